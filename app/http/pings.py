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
from collections.abc import Callable
from typing import Any

from fastapi import Request
from sqlalchemy.orm import Session
from starlette.responses import Response

from app.http.streams import Item, SubscribedSource, event_stream
from app.services import pings, rolls, tables
from app.services.access import CampaignAccess

EVENT = "ping"
NEWEST = 2**31 - 1  # a ping stream's numbers are its own: any position may resume


class PingSource(SubscribedSource):
    """One member's pings of one match: those the subscription brought since the last send,
    numbered on from where the browser stopped."""

    def __init__(self, channel: str, key: int, sessions: Callable[[], Session],
                 still_allowed: Callable[[], bool]) -> None:
        self.channel, self.key = channel, key
        self.sessions, self.still_allowed = sessions, still_allowed
        self._waiting: list[dict[str, Any]] = []

    async def _items_after(self, after: int) -> list[Item]:
        arrived, self._waiting = self._waiting, []
        return [Item(after + index, EVENT, json.dumps(message, ensure_ascii=False))
                for index, message in enumerate(arrived, start=1)]

    def caught_up(self, sent: int) -> bool:
        return True

    def _heard(self, message: Any) -> None:
        if isinstance(message, dict) and message.get("kind") == "ping":
            self._waiting.append({key: message.get(key) for key in ("x", "y", "by", "name")})


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

    source = PingSource(pings.channel(match_id), user_id, make_session, still_allowed)
    return event_stream(request, source, newest=NEWEST, request_session=db)
