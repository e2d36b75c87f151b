"""A match's live side: announce committed events, and read them back for one viewer.

The broker carries only a notification ("match 34 has events up to seq 17"), sent after the
commit so that nobody is told about an event that could still roll back. Each open stream
then reads the events from the database itself, as its viewer may see them *now* — with a
session of its own, since a stream outlives the request that opened it — and checks before
every send that the viewer is still a member with at least the role they connected with
(DESIGN.md § The one flow, step 4).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app import tables
from app.errors import NotFound
from app.live import Broker
from app.models import Membership, Role, User
from app.services.access import load_campaign_access

logger = logging.getLogger(__name__)

SessionFactory = Callable[[], Session]

# A stream ends when its viewer's role drops below the one they connected with.
_ROLE_RANK = {Role.SPECTATOR: 0, Role.PLAYER: 1, Role.GM: 2}


def channel(match_id: int) -> str:
    return f"match:{match_id}"


def publish_outcome(broker: Broker, outcome: tables.ActionOutcome) -> None:
    """Tell the match's viewers that events up to ``outcome.seq`` are committed.

    Call it after the service returned (the commit is done). A replayed answer to a retried
    request announces nothing: its events were announced the first time. A broker that is
    not running (an app served without its lifespan) costs viewers their liveness, never the
    caller their answer — the database already holds the truth, and streams catch up.
    """
    if outcome.replayed:
        return
    message = {"kind": "event", "match_id": outcome.match_id, "seq": outcome.seq}
    try:
        broker.publish_threadsafe(channel(outcome.match_id), message)
        if outcome.roll_ids and outcome.campaign_id is not None:
            # Rolls at the table also land in the campaign's live roll log.
            broker.publish_threadsafe(f"campaign:{outcome.campaign_id}",
                                      {"kind": "roll", "roll_id": outcome.roll_ids[-1]})
    except RuntimeError:
        logger.warning("live: the broker is not running; match %s seq %s not announced",
                       outcome.match_id, outcome.seq)


def still_member(*, sessionmaker: SessionFactory, campaign_id: int, user_id: int,
                 role_at_connect: Role) -> bool:
    """Is the viewer still in the campaign, with at least the role they connected with?"""
    with sessionmaker() as db:
        role = db.scalar(select(Membership.role).where(Membership.campaign_id == campaign_id,
                                                       Membership.user_id == user_id))
    return role is not None and _ROLE_RANK[role] >= _ROLE_RANK[role_at_connect]


def visible_events_after(*, sessionmaker: SessionFactory, campaign_id: int, match_id: int,
                         user_id: int, after_seq: int,
                         limit: int = tables.LOG_PAGE) -> list[dict[str, Any]]:
    """The match's events after ``after_seq``, redacted for the viewer's current role.

    The viewer is looked up afresh on every call, so a role changed mid-stream filters the
    very next event; a viewer who is no longer a member gets nothing.
    """
    with sessionmaker() as db:
        user = db.get(User, user_id)
        if user is None:
            return []
        try:
            access = load_campaign_access(db, user, campaign_id)
            match = tables.get_match(db, access, match_id)
        except NotFound:
            return []
        actor = tables.actor_for(db, access)
        return tables.events_after(db, match, actor, after_seq=after_seq, limit=limit)
