"""The live stream of a match's pings (``app.services.pings``): what the broker carries on
the match's ``ping:{id}`` channel, sent to one member as Server-Sent Events (``event: ping``,
``data:`` the ping as JSON), the same for the page and the API.

Pings are not kept: a stream sends those that arrive while it is open, each numbered from
where the browser says it stopped (``Last-Event-ID``), and a reconnection sends none of the
ones it missed. Before each one the member's role is read again, as the roll log's stream
does: a member who left, or whose role changed, hears no more.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from fastapi import Request
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response

from app.http.streams import Item, Outlet, event_stream
from app.live import Broker
from app.live.subscription import Subscription
from app.services import pings, rolls, tables
from app.services.access import CampaignAccess

EVENT = "ping"
NEWEST = 2**31 - 1  # a ping stream's numbers are its own: any position may resume


class PingSource:
    """One member's pings of one match (``app.http.streams.Source``)."""

    def __init__(self, channel: str, key: int, still_allowed: Callable[[], bool]) -> None:
        self.channel, self.key, self.still_allowed = channel, key, still_allowed
        self._subscription: Subscription | None = None
        self._waiting: list[dict[str, Any]] = []

    @asynccontextmanager
    async def watching(self, broker: Broker) -> AsyncIterator[None]:
        async with broker.subscribe(self.channel, key=self.key) as subscription:
            self._subscription = subscription
            yield

    async def items_after(self, after: int, *, fresh: bool) -> list[Item] | None:
        if not await run_in_threadpool(self.still_allowed):
            return None
        arrived, self._waiting = self._waiting, []
        return [Item(after + index, EVENT, json.dumps(message, ensure_ascii=False))
                for index, message in enumerate(arrived, start=1)]

    def caught_up(self, sent: int) -> bool:
        return True

    async def wait(self, sent: int, outlet: Outlet) -> int | None:
        assert self._subscription is not None, "wait inside watching()"
        try:
            message = await self._subscription.__anext__()
        except StopAsyncIteration:  # kicked, closed or fell behind: the browser reconnects
            return None
        if isinstance(message, dict) and message.get("kind") == "ping":
            self._waiting.append({key: message.get(key) for key in ("x", "y", "by", "name")})
        return sent


def ping_stream(request: Request, db: Session, access: CampaignAccess,
                match_id: int) -> Response:
    """The pings of one of the campaign's matches, live, for this member."""
    tables.match_position(db, access, match_id)  # 404 for a match of another campaign
    campaign_id, user_id, role = access.campaign.id, access.user.id, access.role
    make_session = request.app.state.sessionmaker

    def still_allowed() -> bool:
        with make_session() as session:
            return rolls.still_watching(db=session, campaign_id=campaign_id, user_id=user_id,
                                        role=role)

    return event_stream(request, PingSource(pings.channel(match_id), user_id, still_allowed),
                        newest=NEWEST, request_session=db)
