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
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Callable, Coroutine, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager, suppress
from dataclasses import dataclass
from functools import cached_property, partial
from typing import Any, ClassVar, Protocol

from fastapi import Request
from sqlalchemy.orm import Session
from sse_starlette.sse import AppStatus
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from app.db import run_db
from app.errors import NotAuthenticated, NotFound, ValidationFailed
from app.http.deps import Viewer as RequestViewer
from app.http.deps import adopt_viewer, load_member_viewer
from app.i18n import get_locale, set_locale
from app.i18n import lazy_gettext as _l
from app.live import Broker
from app.live.subscription import Subscription
from app.models import ChatMessage
from app.services import chat, rolls, tables
from app.services.access import CampaignAccess, load_campaign_access
from app.services.match_feed import Batch, Viewer

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
    # written after the id (``41.3fa0…``), for the browser to send back in Last-Event-ID: what
    # the tab holds besides the events up to ``id`` (the page stream's action panel)
    tag: str = ""

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

    async def wait(self, sent: int, outlet: Outlet) -> int | None:
        """Wait for news after ``sent``. The position the stream has reached (news may have
        been written to ``outlet`` meanwhile, without the stream's task); ``None`` ends the
        stream (the browser reconnects)."""

    def caught_up(self, sent: int) -> bool:
        """True when nothing after ``sent`` can be waiting to be read (else the stream reads
        again before it waits: a page may have been full)."""


class SubscribedSource(ABC):
    """A source woken by its own broker subscription to ``channel`` (``key``: the viewer's,
    for the broker's kicks): for streams with few viewers each (the roll log, the chat, the
    pings). Whether the viewer may still watch (``still_allowed``, blocking: it reads the
    database of ``sessions``, through ``run_db``) is asked again before every send. A
    match's streams share one subscription and one read instead (``match_feed``)."""

    channel: str
    key: int
    sessions: Callable[[], Session]
    still_allowed: Callable[[], bool]
    _subscription: Subscription | None = None

    @asynccontextmanager
    async def watching(self, broker: Broker) -> AsyncIterator[None]:
        async with broker.subscribe(self.channel, key=self.key) as subscription:
            self._subscription = subscription
            yield

    async def items_after(self, after: int, *, fresh: bool) -> list[Item] | None:
        if not await run_db(self.sessions, self.still_allowed):
            return None
        return await self._items_after(after)

    @abstractmethod
    async def _items_after(self, after: int) -> list[Item]:
        """The items after ``after`` (the viewer is allowed: checked just before)."""

    async def wait(self, sent: int, outlet: Outlet) -> int | None:
        assert self._subscription is not None, "wait inside watching()"
        try:
            message = await self._subscription.__anext__()
        except StopAsyncIteration:  # kicked, closed, or fell behind: reconnect and resume
            return None
        self._heard(message)
        return sent

    def _heard(self, message: Any) -> None:
        """What the subscription brought: kept by a source whose items are the messages;
        a source that reads its items again needs nothing of it."""
        return None


@dataclass
class StreamSource(SubscribedSource):
    """A subscribed source whose items are read from the database (``read_after``, through
    ``run_db``): the roll log, the chat."""

    channel: str
    key: int
    sessions: Callable[[], Session]
    # Items after this id, as this viewer may see them (at most a page).
    read_after: Callable[[int], list[Item]]
    # Is the viewer still allowed to watch? Checked before every send.
    still_allowed: Callable[[], bool]

    async def _items_after(self, after: int) -> list[Item]:
        return await run_db(self.sessions, self.read_after, after)

    def caught_up(self, sent: int) -> bool:
        return False  # ``read_after`` gives at most a page: read until it comes back empty


class FeedSource:
    """The base of the sources that follow a match's shared feed (``match_feed``):
    listening and waiting are the feed's; a subclass says what to send.

    A subclass that can make its items from a batch at once, in the event loop
    (``at_once``), lets the feed write them while the stream waits (``Outlet.write_now``);
    one that renders in a thread (the HTML stream) is woken instead.
    """

    def __init__(self, viewer: Viewer) -> None:
        self.viewer = viewer

    def watching(self, broker: Broker) -> AbstractAsyncContextManager[None]:
        return self.viewer.watching()

    def at_once(self, batch: Batch, after: int) -> list[Item] | None:
        """The items of ``batch`` after ``after``, made without waiting; ``None`` when this
        source cannot (its task reads and renders them). They may depend on nothing else
        than the batch, ``after`` and the viewer's actor: streams of one actor share them."""
        return None

    async def wait(self, sent: int, outlet: Outlet) -> int | None:
        if type(self).at_once is FeedSource.at_once:
            return sent if await self.viewer.wait(sent) else None
        return await self.viewer.wait_served(sent, partial(self._serve, outlet))

    def _serve(self, outlet: Outlet, batch: Batch, sent: int) -> int | None:
        """Write what ``batch`` holds after ``sent`` for this waiting stream: the position
        reached, or ``None`` for the stream's task to do it (``Viewer.wait_served``)."""
        chunk, reached = batch.once((type(self), self.viewer.actor, sent),
                                    partial(self._chunk_after, batch, sent))
        if reached is None or (chunk and not outlet.write_now(chunk)):
            return None
        return reached

    def _chunk_after(self, batch: Batch, sent: int) -> tuple[bytes, int | None]:
        items = self.at_once(batch, sent)
        if items is None:
            return b"", None
        sending = [item for item in items if item.event]
        return (_chunk(sending) if sending else b""), (items[-1].id if items else sent)

    def caught_up(self, sent: int) -> bool:
        return self.viewer.caught_up(sent)


def resume_point(request: Request, newest: int, *, tagged: bool = False) -> int:
    """Where to resume: the ``Last-Event-ID`` header, or ``?after=`` on a first connection;
    0 (from the start) when neither is given. ``tagged``: this stream writes tags after its
    ids (``Item.tag``), read apart by ``resume_tags``.

    A position that is not a whole number from 0 to ``newest`` (the last id this stream has)
    names nothing the viewer was ever sent: refused with a 422, so a client's bug shows
    instead of a stream that silently waits for ids that will not come.
    """
    header = request.headers.get("last-event-id")
    if header and tagged:
        header = header.partition(".")[0]
    field, raw = ("Last-Event-ID", header) if header else ("after",
                                                           request.query_params.get("after"))
    if not raw:
        return 0
    if not (raw.isascii() and raw.isdigit()) or int(raw) > newest:
        raise ValidationFailed(
            _l("%(field)s must be a position this stream has sent (0 to %(newest)s).",
               field=field, newest=newest), field=field, code="bad_resume_position")
    return int(raw)


_TAG = re.compile(r"[0-9a-f]{1,64}")


def resume_tags(request: Request, *queries: str) -> tuple[str | None, ...]:
    """The tags after the ``Last-Event-ID`` (``Item.tag``, its parts separated by dots:
    ``41.3fa0….9b1c…``), or, on a first connection, the ``queries`` parameters': what the
    tab holds besides its events, one per query. A part that is missing or not one this
    server writes is None (the stream then assumes the tab does not hold it)."""
    header = request.headers.get("last-event-id")
    raw = header.split(".")[1:] if header else [request.query_params.get(q) for q in queries]
    raw += [None] * (len(queries) - len(raw))
    return tuple(part if part and _TAG.fullmatch(part) else None
                 for part in raw[:len(queries)])


async def _events(request: Request, source: Source, after: int,
                  outlet: Outlet) -> AsyncIterator[bytes]:
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
                        yield _chunk(sending)
                    sent = items[-1].id
                    if not source.caught_up(sent):
                        continue  # maybe a full page: read on before waiting
                reached = await source.wait(sent, outlet)
                if reached is None:
                    return
                sent = reached
    finally:
        open_streams.dec()


def _chunk(items: list[Item]) -> bytes:
    """Items written together, as one chunk."""
    return items[0].wire if len(items) == 1 else b"".join(item.wire for item in items)


def encode(item: Item) -> bytes:
    """One SSE event: ``id``, ``event``, then each line of the data on a ``data:`` line
    (lines end with CRLF, as they did with sse-starlette)."""
    data = item.data
    if "\n" in data or "\r" in data:  # only SSE's own line ends (not str.splitlines's)
        data = "\r\ndata: ".join(_LINE_END.split(data))
    tag = f".{item.tag}" if item.tag else ""
    return f"id: {item.id}{tag}\r\nevent: {item.event}\r\ndata: {data}\r\n\r\n".encode()


_LINE_END = re.compile(r"\r\n|\r|\n")
CONNECTED = f": connected\r\nretry: {RETRY_MS}\r\n\r\n".encode()
PING = b": ping\r\n\r\n"


class Outlet:
    """Where one stream's chunks go, in order: the server's ``send``.

    The stream's own task awaits ``write``. ``write_now`` is for whoever holds news for a
    stream that is waiting: a match feed writes one event to a thousand waiting streams
    itself, in one pass, instead of waking a thousand tasks that would each resume through
    their generator to write the same bytes (docs/live.md § The stream response). A send
    that cannot finish at once (the client reads slowly: the server pauses writing) goes on
    in a task of its own; later chunks wait for it, so the order holds.
    """

    __slots__ = ("_loop", "_pending", "_send", "last_sent")

    def __init__(self) -> None:
        self._send: Send | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pending: asyncio.Task[None] | None = None
        self.last_sent = 0.0  # loop time of the last chunk handed over (for the heartbeat)

    def bind(self, send: Send) -> None:
        self._send, self._loop = send, asyncio.get_running_loop()
        self.last_sent = self._loop.time()

    async def write(self, chunk: bytes) -> None:
        assert self._send is not None and self._loop is not None, "write after bind()"
        while self._pending is not None:
            await asyncio.wait((self._pending,))
        await self._send({"type": "http.response.body", "body": chunk, "more_body": True})
        self.last_sent = self._loop.time()

    def write_now(self, chunk: bytes) -> bool:
        """Hand ``chunk`` to the server without waiting. False, having sent nothing, when the
        stream is not open or an earlier chunk is still on its way: the stream's task must
        write this one (``write`` keeps the order)."""
        send, loop = self._send, self._loop
        if send is None or loop is None or self._pending is not None:
            return False
        sending = send({"type": "http.response.body", "body": chunk, "more_body": True})
        try:
            waiting = sending.send(None)
        except StopIteration:  # the common case: the socket took the bytes
            self.last_sent = loop.time()
            return True
        except Exception:  # the client left: its task ends the stream
            return False
        # The send waits (a paused transport): it goes on in a task, holding the order.
        self._pending = loop.create_task(_resume(sending, waiting))
        self._pending.add_done_callback(self._sent)
        return True

    def _sent(self, task: asyncio.Task[None]) -> None:
        self._pending = None
        if not task.cancelled() and task.exception() is None and self._loop is not None:
            self.last_sent = self._loop.time()

    def close(self) -> None:
        if self._pending is not None:
            self._pending.cancel()
        self._send = None


async def _resume(sending: Coroutine[Any, Any, None], waiting: object) -> None:
    """Run ``sending`` to its end, its first step taken by hand having yielded ``waiting``
    (what an asyncio task does with a coroutine from its second step on)."""
    try:
        while True:
            try:
                if waiting is None:  # a bare yield: ``asyncio.sleep(0)``
                    await asyncio.sleep(0)
                else:  # the future it waits on, taken from it as a task takes it
                    waiting._asyncio_future_blocking = False  # type: ignore[attr-defined]
                    await waiting  # type: ignore[misc]
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: S110 — the coroutine meets it as it resumes
                pass
            try:
                waiting = sending.send(None)
            except StopIteration:
                return
    finally:
        sending.close()  # nothing when it has finished


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
                 headers: Mapping[str, str] | None = None, status_code: int = 200,
                 outlet: Outlet | None = None) -> None:
        # ``status_code`` is declared for FastAPI's OpenAPI, which reads its default.
        super().__init__(status_code=status_code, headers=headers, media_type=self.media_type)
        # Response adds "content-length: 0" for its empty body; a stream has no length.
        self.raw_headers = [(name, value) for name, value in self.raw_headers
                            if name != b"content-length"]
        self._chunks = chunks
        self._ping = ping
        # Given by whoever made ``chunks`` when others may write to the stream at once.
        self.outlet = outlet if outlet is not None else Outlet()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": self.status_code,
                    "headers": self.raw_headers})
        if scope.get("method") == "HEAD":
            await send({"type": "http.response.body", "body": b"", "more_body": False})
            return
        # The start went through every middleware (headers, request id, status for the
        # log); the body chunks need none of them.
        send = scope.get(RAW_SEND, send)
        self.outlet.bind(send)
        writer = asyncio.ensure_future(self._write())
        pinger = asyncio.ensure_future(self._heartbeat())
        listener = asyncio.ensure_future(_disconnected(receive))
        _Shutdown.watch(writer)
        try:
            await asyncio.wait((writer, listener), return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (writer, pinger, listener):
                task.cancel()
            await asyncio.gather(writer, pinger, listener, return_exceptions=True)
            self.outlet.close()
            _Shutdown.forget(writer)
        if listener.cancelled():  # the client is still there: end the response properly
            with suppress(OSError, RuntimeError):  # the client may have just gone
                await send({"type": "http.response.body", "body": b"", "more_body": False})
        if writer.done() and not writer.cancelled() and writer.exception() is not None:
            raise writer.exception()  # type: ignore[misc]

    async def _write(self) -> None:
        try:
            async for chunk in self._chunks:
                await self.outlet.write(chunk)
        finally:
            await self._chunks.aclose()  # type: ignore[attr-defined]

    async def _heartbeat(self) -> None:
        """A comment after ``ping`` quiet seconds keeps proxies and browsers from timing out.
        (A chunk and a ping never interleave: each ``send`` writes one whole chunk.)"""
        loop = asyncio.get_running_loop()
        while True:
            quiet = loop.time() - self.outlet.last_sent
            if quiet >= self._ping:
                await self.outlet.write(PING)
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


async def match_watcher(request: Request, campaign_id: int,
                        match_id: int) -> tuple[CampaignAccess, int]:
    """For a match's stream routes (``lean_route``s: a tab (re)opening its stream is, after
    the actions, a table's commonest request): who is asking, their access and the match's
    newest seq, read in one transaction (``run_db``) where FastAPI's dependencies took a
    thread hop and a transaction each. Raises as those would: ``NotAuthenticated`` for
    nobody logged in, ``NotFound`` for a campaign or match that is not theirs — in the
    viewer's language."""
    state = request.app.state

    def who_and_where() -> tuple[RequestViewer, CampaignAccess | None, int | Exception]:
        with state.sessionmaker() as db:
            viewer, access = load_member_viewer(db, request, state.settings, campaign_id)
            if viewer.user is None:
                return viewer, None, NotAuthenticated()
            try:
                access = access or load_campaign_access(db, viewer.user, campaign_id)
                return viewer, access, tables.match_position(db, access, match_id)
            except NotFound as refused:
                return viewer, access, refused

    viewer, access, newest = await run_db(state.sessionmaker, who_and_where)
    adopt_viewer(request, viewer)
    if isinstance(newest, Exception):
        raise newest
    assert access is not None
    return access, newest


def event_stream(request: Request, source: Source, *, newest: int,
                 request_session: Session | None = None,
                 tagged: bool = False) -> EventStreamResponse:
    """The response for ``source``, resumed where the client says (``resume_point``, at most
    ``newest``). The request's session, if any, is closed first: a stream lives for hours and
    must not hold a pooled connection (the source opens its own per read)."""
    after = resume_point(request, newest, tagged=tagged)
    if request_session is not None:
        request_session.close()
    outlet = Outlet()
    return EventStreamResponse(_events(request, source, after, outlet), ping=HEARTBEAT_SECONDS,
                               headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
                               outlet=outlet)


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
                                              sessions=make_session, read_after=items_after,
                                              still_allowed=still_allowed),
                        newest=chat.newest_id(db=db, campaign_id=campaign_id),
                        request_session=db)
