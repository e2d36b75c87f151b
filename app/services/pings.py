"""Pings: a member points at a place of the board, and every viewer of the match sees it pulse
for a moment (issue 28).

A ping is not part of the match: it changes no state, nobody undoes it, and the log would
fill with them over an evening (and each would make the others' open forms stale). So it
goes through the broker alone, without a row: ``{"kind": "ping", "x", "y", "by", "name"}``
on the match's own ``ping:{match_id}`` channel, sent after the sender's membership and the
match's campaign were checked, read only by the streams of members of that match's campaign
(``app.http.pings``, which check the membership again before each one), lost by a viewer who
was not connected. It carries nothing a viewer of the board could not point at themselves.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from typing import Any

from sqlalchemy.orm import Session

from app.errors import TooManyAttempts, ValidationFailed
from app.i18n import lazy_gettext as _l
from app.live import Broker
from app.services import tables
from app.services.access import CampaignAccess

BURST, WINDOW = 6, 10.0  # at most six pings in ten seconds per member and match


class Throttle:
    """The pings each member sent lately, per match (one per app: ``app.state``)."""

    def __init__(self) -> None:
        self._sent: dict[tuple[int, int], deque[float]] = {}
        self._lock = threading.Lock()

    def take(self, user_id: int, match_id: int) -> None:
        """Count one more, or refuse it (429) when there were too many in the window."""
        now = time.monotonic()
        with self._lock:
            sent = self._sent.setdefault((user_id, match_id), deque())
            while sent and now - sent[0] > WINDOW:
                sent.popleft()
            if len(sent) >= BURST:
                raise TooManyAttempts(max(1, round(WINDOW - (now - sent[0]))))
            sent.append(now)


def channel(match_id: int) -> str:
    return f"ping:{match_id}"


def ping(*, db: Session, access: CampaignAccess, match_id: int, x: object, y: object,
         throttle: Throttle) -> dict[str, Any]:
    """The ping a member sends at (x, y) of a match's board, checked; what the broker will
    carry. Bad input, or too many at once, sends nothing."""
    match = tables.get_match(db, access, match_id)
    board = (match.state or {}).get("board")
    if not isinstance(board, dict):
        raise ValidationFailed(_l("This match has no board."), field="x")
    place = {axis: _coordinate(value, axis, board["width" if axis == "x" else "height"])
             for axis, value in (("x", x), ("y", y))}
    throttle.take(access.user.id, match.id)
    return {"kind": "ping", **place, "by": access.user.id,
            "name": access.user.display_name, "match_id": match.id}


def _coordinate(value: object, axis: str, high: float) -> float:
    try:
        number = float(str(value).strip().replace(",", "."))
    except ValueError:
        number = float("nan")
    if not 0 <= number <= high:  # NaN too
        raise ValidationFailed(_l("A place on the board: %(axis)s from 0 to %(high)s.",
                                  axis=axis, high=high), field=axis)
    return round(number, 2)


def publish(broker: Broker, message: dict[str, Any]) -> None:
    broker.announce(channel(message["match_id"]), message)
