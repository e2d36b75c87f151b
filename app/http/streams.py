"""Server-Sent Events: one stream per browser tab, resumable, filtered per viewer.

The broker only carries notifications ("match 34 has a new event"); the stream reads the
events themselves from the database, after the last id it sent. So a browser that drops and
reconnects with ``Last-Event-ID`` receives every event it missed, once and in order, from
whichever worker it reaches; and what a viewer may not see never leaves the server, because
each line is filtered and rendered for that viewer before it is sent.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager, suppress
from dataclasses import dataclass
from functools import cached_property
from typing import ClassVar, Protocol

from fastapi import Request
from sqlalchemy.orm import Session
from sse_starlette.sse import AppStatus
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from app.errors import ValidationFailed
from app.i18n import get_locale, set_locale
from app.i18n import lazy_gettext as _l
from app.live import Broker
from app.live.subscription import Subscription
from app.models import ChatMessage
from app.services import chat, rolls
from app.services.access import CampaignAccess
from app.services.match_feed import Viewer

HEARTBEAT_SECONDS = 15
# The scope key under which ``app.main.Tablee`` keeps the server's own ``send``.
RAW_SEND = "tablee.raw_send"
# Ask browsers to come back quickly after a drop (EventSource's ``retry``), in ms.
RETRY_MS = 1_000


@dataclass(frozen=True)
class Item:
    """One thing to send: its id (the resume point), the SSE event name and the data.

    An item without an event name is a *mark*: nothing is sent, the stream only moves past
    its id (an event that does not exist for this viewer, ``tables.exists_for``)."""

    id: int
    event: str
    data: str

    @cached_property
    def wire(self) -> bytes:
        """The item as the stream writes it (``encode``), made once: an item shared by
        many streams (``match_feed.Batch.shared``) is encoded once for all of them."""
        return encode(self)


class Source(Protocol):
    """Where a stream's items come from, and when to look again."""

    def watching(self, broker: Broker) -> AbstractAsyncContextManager[object]:
        """Listen for news; entered before the first read, so nothing is missed."""

    async def items_after(self, after: int, *, fresh: bool) -> list[Item] | None:
        """Items after ``after`` as this viewer may see them (at most a page); ``fresh`` on
        connecting. ``None``: the viewer may no longer watch, end the stream."""

    async def wait(self, sent: int) -> bool:
        """Wait for news after ``sent``; False ends the stream (the browser reconnects)."""

    def caught_up(self, sent: int) -> bool:
        """True when nothing after ``sent`` can be waiting to be read (else the stream reads
        again before it waits: a page may have been full)."""


@dataclass
class StreamSource:
    """A source from two blocking callables run in the thread pool (they use the database),
    woken by its own broker subscription: for streams with few viewers each (the roll log).
    A match's streams share one subscription and one read instead (``match_feed``)."""

    channel: str
    key: int
    # Items after this id, as this viewer may see them (at most a page).
    read_after: Callable[[int], list[Item]]
    # Is the viewer still allowed to watch? Checked before every send.
    still_allowed: Callable[[], bool]
    _subscription: Subscription | None = None

    @asynccontextmanager
    async def watching(self, broker: Broker) -> AsyncIterator[None]:
        async with broker.subscribe(self.channel, key=self.key) as subscription:
            self._subscription = subscription
            yield

    async def items_after(self, after: int, *, fresh: bool) -> list[Item] | None:
        if not await run_in_threadpool(self.still_allowed):
            return None
        return await run_in_threadpool(self.read_after, after)

    def caught_up(self, sent: int) -> bool:
        return False  # ``read_after`` gives at most a page: read until it comes back empty

    async def wait(self, sent: int) -> bool:
        assert self._subscription is not None, "wait inside watching()"
        try:
            await self._subscription.__anext__()
        except StopAsyncIteration:  # kicked, closed, or fell behind: reconnect and resume
            return False
        return True


class FeedSource:
    """The base of the sources that follow a match's shared feed (``match_feed``):
    listening and waiting are the feed's; a subclass says what to send."""

    def __init__(self, viewer: Viewer) -> None:
        self.viewer = viewer

    def watching(self, broker: Broker) -> AbstractAsyncContextManager[None]:
        return self.viewer.watching()

    async def wait(self, sent: int) -> bool:
        return await self.viewer.wait(sent)

    def caught_up(self, sent: int) -> bool:
        return self.viewer.caught_up(sent)


def resume_point(request: Request, newest: int) -> int:
    """Where to resume: the ``Last-Event-ID`` header, or ``?after=`` on a first connection;
    0 (from the start) when neither is given.

    A position that is not a whole number from 0 to ``newest`` (the last id this stream has)
    names nothing the viewer was ever sent: refused with a 422, so a client's bug shows
    instead of a stream that silently waits for ids that will not come.
    """
    header = request.headers.get("last-event-id")
    field, raw = ("Last-Event-ID", header) if header else ("after",
                                                           request.query_params.get("after"))
    if not raw:
        return 0
    if not (raw.isascii() and raw.isdigit()) or int(raw) > newest:
        raise ValidationFailed(
            _l("%(field)s must be a position this stream has sent (0 to %(newest)s).",
               field=field, newest=newest), field=field, code="bad_resume_position")
    return int(raw)


async def _events(request: Request, source: Source, after: int) -> AsyncIterator[bytes]:
    sent, fresh = after, True
    open_streams = request.app.state.metrics.open_streams
    open_streams.inc()
    try:
        yield CONNECTED
        # Listen before reading the backlog, so nothing published meanwhile is missed.
        async with source.watching(request.app.state.broker):
            while True:
                items = await source.items_after(sent, fresh=fresh)
                if items is None:
                    return
                fresh = False
                if items:
                    sending = [item for item in items if item.event]
                    if sending:  # a mark (no event name) only moves past its id
                        yield sending[0].wire if len(sending) == 1 else b"".join(
                            item.wire for item in sending)
                    sent = items[-1].id
                    if not source.caught_up(sent):
                        continue  # maybe a full page: read on before waiting
                if not await source.wait(sent):
                    return
    finally:
        open_streams.dec()


def encode(item: Item) -> bytes:
    """One SSE event: ``id``, ``event``, then each line of the data on a ``data:`` line
    (lines end with CRLF, as they did with sse-starlette)."""
    data = item.data
    if "\n" in data or "\r" in data:  # only SSE's own line ends (not str.splitlines's)
        data = "\r\ndata: ".join(_LINE_END.split(data))
    return f"id: {item.id}\r\nevent: {item.event}\r\ndata: {data}\r\n\r\n".encode()


_LINE_END = re.compile(r"\r\n|\r|\n")
CONNECTED = f": connected\r\nretry: {RETRY_MS}\r\n\r\n".encode()
PING = b": ping\r\n\r\n"


class EventStreamResponse(Response):
    """A lean Server-Sent Events response (it replaced sse-starlette's, whose per-message
    cancel scope and task group cost more than the rest of a fan-out; docs/benchmarks.md).

    Per stream: one task runs ``chunks`` and writes each chunk as it comes, one sends a
    heartbeat comment after ``ping`` seconds without a chunk, and the response itself waits
    for the client to leave. Whichever ends first ends the others: the generator is closed
    (its ``finally`` blocks run: the subscription is left) when the client disconnects,
    when the server shuts down (``_Shutdown``), or it ends the stream by returning.
    """

    media_type = "text/event-stream"

    def __init__(self, chunks: AsyncIterator[bytes], *, ping: float,
                 headers: Mapping[str, str] | None = None, status_code: int = 200) -> None:
        # ``status_code`` is declared for FastAPI's OpenAPI, which reads its default.
        super().__init__(status_code=status_code, headers=headers, media_type=self.media_type)
        # Response adds "content-length: 0" for its empty body; a stream has no length.
        self.raw_headers = [(name, value) for name, value in self.raw_headers
                            if name != b"content-length"]
        self._chunks = chunks
        self._ping = ping
        self._last_sent = 0.0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": self.status_code,
                    "headers": self.raw_headers})
        if scope.get("method") == "HEAD":
            await send({"type": "http.response.body", "body": b"", "more_body": False})
            return
        loop = asyncio.get_running_loop()
        self._last_sent = loop.time()
        # The start went through every middleware (headers, request id, status for the
        # log); the body chunks need none of them.
        send = scope.get(RAW_SEND, send)
        writer = asyncio.ensure_future(self._write(send))
        pinger = asyncio.ensure_future(self._heartbeat(send, loop))
        listener = asyncio.ensure_future(_disconnected(receive))
        _Shutdown.watch(writer)
        try:
            await asyncio.wait((writer, listener), return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (writer, pinger, listener):
                task.cancel()
            await asyncio.gather(writer, pinger, listener, return_exceptions=True)
            _Shutdown.forget(writer)
        if listener.cancelled():  # the client is still there: end the response properly
            with suppress(OSError, RuntimeError):  # the client may have just gone
                await send({"type": "http.response.body", "body": b"", "more_body": False})
        if writer.done() and not writer.cancelled() and writer.exception() is not None:
            raise writer.exception()  # type: ignore[misc]

    async def _write(self, send: Send) -> None:
        loop = asyncio.get_running_loop()
        try:
            async for chunk in self._chunks:
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
                self._last_sent = loop.time()
        finally:
            await self._chunks.aclose()  # type: ignore[attr-defined]

    async def _heartbeat(self, send: Send, loop: asyncio.AbstractEventLoop) -> None:
        """A comment after ``ping`` quiet seconds keeps proxies and browsers from timing out.
        (A chunk and a ping never interleave: each ``send`` writes one whole chunk.)"""
        while True:
            quiet = loop.time() - self._last_sent
            if quiet >= self._ping:
                await send({"type": "http.response.body", "body": PING, "more_body": True})
                self._last_sent = loop.time()
                quiet = 0.0
            await asyncio.sleep(self._ping - quiet)


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


class _Shutdown:
    """Ends every stream when the server is asked to stop: uvicorn waits for open responses
    before it exits, and a stream never ends by itself. sse-starlette's hook on uvicorn's
    exit handler (``AppStatus``) says when; one watcher per process polls it."""

    writers: ClassVar[set[asyncio.Future[None]]] = set()
    watcher: ClassVar[asyncio.Task[None] | None] = None
    POLL_SECONDS = 0.5

    @classmethod
    def watch(cls, writer: asyncio.Future[None]) -> None:
        cls.writers.add(writer)
        loop = asyncio.get_running_loop()
        watcher = cls.watcher
        if watcher is None or watcher.done() or watcher.get_loop() is not loop:
            cls.watcher = loop.create_task(cls._watch())

    @classmethod
    def forget(cls, writer: asyncio.Future[None]) -> None:
        cls.writers.discard(writer)

    @classmethod
    async def _watch(cls) -> None:
        while cls.writers:
            # A stream whose loop ended without unwinding it (a test's server) left a done
            # writer behind: drop those.
            cls.writers = {writer for writer in cls.writers if not writer.done()}
            if AppStatus.should_exit:
                for writer in list(cls.writers):
                    writer.cancel()
            await asyncio.sleep(cls.POLL_SECONDS)


def event_stream(request: Request, source: Source, *, newest: int,
                 request_session: Session) -> EventStreamResponse:
    """The response for ``source``, resumed where the client says (``resume_point``, at most
    ``newest``). The request's session is closed first: a stream lives for hours and must
    not hold a pooled connection (the source opens its own per read)."""
    after = resume_point(request, newest)
    request_session.close()
    return EventStreamResponse(_events(request, source, after), ping=HEARTBEAT_SECONDS,
                               headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


def chat_stream(request: Request, db: Session, access: CampaignAccess, *,
                as_item: Callable[[ChatMessage], Item], page_size: int | None = None
                ) -> Response:
    """The campaign's chat as this member may read it (``chat.messages_for``), live: the
    page's stream and the API's differ only in how a message is written (``as_item``)."""
    campaign_id, user_id, role, is_gm = (access.campaign.id, access.user.id, access.role,
                                         access.is_gm)
    make_session = request.app.state.sessionmaker
    locale = get_locale()
    limit = {"limit": page_size} if page_size else {}

    def items_after(after_id: int) -> list[Item]:
        set_locale(locale)
        with make_session() as session:
            page = chat.messages_for(db=session, campaign_id=campaign_id, user_id=user_id,
                                     is_gm=is_gm, after_id=after_id, **limit)
            return [as_item(message) for message in page.messages]

    def still_allowed() -> bool:
        with make_session() as session:
            return rolls.still_watching(db=session, campaign_id=campaign_id, user_id=user_id,
                                        role=role)

    return event_stream(request, StreamSource(channel=chat.channel(campaign_id), key=user_id,
                                              read_after=items_after,
                                              still_allowed=still_allowed),
                        newest=chat.newest_id(db=db, campaign_id=campaign_id),
                        request_session=db)
