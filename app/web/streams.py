"""Server-Sent Events: one stream per browser tab, resumable, filtered per viewer.

The broker only carries notifications ("match 34 has a new event"); the stream reads the
events themselves from the database, after the last id it sent. So a browser that drops and
reconnects with ``Last-Event-ID`` receives every event it missed, once and in order, from
whichever worker it reaches; and what a viewer may not see never leaves the server, because
each line is filtered and rendered for that viewer before it is sent.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

from fastapi import Request
from sqlalchemy.orm import Session
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.concurrency import run_in_threadpool

HEARTBEAT_SECONDS = 15
# Ask browsers to come back quickly after a drop (EventSource's ``retry``), in ms.
RETRY_MS = 1_000


@dataclass(frozen=True)
class Item:
    """One thing to send: its id (the resume point), the SSE event name and the data."""

    id: int
    event: str
    data: str


@dataclass(frozen=True)
class StreamSource:
    """Where a stream's items come from; both callables are sync (they use the database)."""

    channel: str
    key: int
    # Items after this id, as this viewer may see them (at most a page).
    items_after: Callable[[int], list[Item]]
    # Is the viewer still allowed to watch? Checked before every send.
    still_allowed: Callable[[], bool]


def last_event_id(request: Request) -> int:
    """The resume point: the ``Last-Event-ID`` header, or ``?after=`` on a first connection."""
    raw = request.headers.get("last-event-id") or request.query_params.get("after") or "0"
    try:
        return max(0, int(raw))
    except ValueError:
        return 0


async def _events(request: Request, source: StreamSource, after: int
                  ) -> AsyncIterator[ServerSentEvent]:
    broker = request.app.state.broker
    sent = after
    yield ServerSentEvent(comment="connected", retry=RETRY_MS)
    # Subscribe before reading the backlog, so nothing published meanwhile is missed.
    async with broker.subscribe(source.channel, key=source.key) as subscription:
        while True:
            if not await run_in_threadpool(source.still_allowed):
                return
            items = await run_in_threadpool(source.items_after, sent)
            for item in items:
                yield ServerSentEvent(item.data, event=item.event, id=str(item.id))
                sent = item.id
            if items:
                continue  # a full page: read on before waiting
            try:
                await subscription.__anext__()
            except StopAsyncIteration:
                # Kicked, closed, or fell behind: the browser reconnects and resumes.
                return


def event_stream(request: Request, source: StreamSource, *,
                 request_session: Session) -> EventSourceResponse:
    """The response for ``source``. The request's session is closed first: a stream lives
    for hours and must not hold a pooled connection (the source opens its own per read)."""
    request_session.close()
    return EventSourceResponse(_events(request, source, last_event_id(request)),
                               ping=HEARTBEAT_SECONDS,
                               headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})
