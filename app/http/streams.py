"""Server-Sent Events: one stream per browser tab, resumable, filtered per viewer.

The broker only carries notifications ("match 34 has a new event"); the stream reads the
events themselves from the database, after the last id it sent. So a browser that drops and
reconnects with ``Last-Event-ID`` receives every event it missed, once and in order, from
whichever worker it reaches; and what a viewer may not see never leaves the server, because
each line is filtered and rendered for that viewer before it is sent.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import Protocol

from fastapi import Request
from sqlalchemy.orm import Session
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.concurrency import run_in_threadpool

from app.errors import ValidationFailed
from app.i18n import lazy_gettext as _l
from app.live import Broker
from app.live.subscription import Subscription
from app.services.match_feed import Viewer

HEARTBEAT_SECONDS = 15
# Ask browsers to come back quickly after a drop (EventSource's ``retry``), in ms.
RETRY_MS = 1_000


@dataclass(frozen=True)
class Item:
    """One thing to send: its id (the resume point), the SSE event name and the data."""

    id: int
    event: str
    data: str


class Source(Protocol):
    """Where a stream's items come from, and when to look again."""

    def watching(self, broker: Broker) -> AbstractAsyncContextManager[object]:
        """Listen for news; entered before the first read, so nothing is missed."""

    async def items_after(self, after: int, *, fresh: bool) -> list[Item] | None:
        """Items after ``after`` as this viewer may see them (at most a page); ``fresh`` on
        connecting. ``None``: the viewer may no longer watch, end the stream."""

    async def wait(self, sent: int) -> bool:
        """Wait for news after ``sent``; False ends the stream (the browser reconnects)."""


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


async def _events(request: Request, source: Source, after: int
                  ) -> AsyncIterator[ServerSentEvent]:
    sent, fresh = after, True
    open_streams = request.app.state.metrics.open_streams
    open_streams.inc()
    try:
        yield ServerSentEvent(comment="connected", retry=RETRY_MS)
        # Listen before reading the backlog, so nothing published meanwhile is missed.
        async with source.watching(request.app.state.broker):
            while True:
                items = await source.items_after(sent, fresh=fresh)
                if items is None:
                    return
                fresh = False
                for item in items:
                    yield ServerSentEvent(item.data, event=item.event, id=str(item.id))
                    sent = item.id
                if items:
                    continue  # maybe a full page: read on before waiting
                if not await source.wait(sent):
                    return
    finally:
        open_streams.dec()


def event_stream(request: Request, source: Source, *, newest: int,
                 request_session: Session) -> EventSourceResponse:
    """The response for ``source``, resumed where the client says (``resume_point``, at most
    ``newest``). The request's session is closed first: a stream lives for hours and must
    not hold a pooled connection (the source opens its own per read)."""
    after = resume_point(request, newest)
    request_session.close()
    return EventSourceResponse(_events(request, source, after),
                               ping=HEARTBEAT_SECONDS,
                               headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})
