"""The live side of a table: announce committed events and rolls.

The broker carries only a notification ("match 34 has events up to seq 17"), sent after the
commit so that nobody is told about an event that could still roll back. The open streams
then read the events from the database — once per match, shared (``match_feed``) — and
filter them for each viewer, after checking the viewer's role in the same read
(DESIGN.md § The one flow, step 4).
"""

from __future__ import annotations

import logging

from app.live import Broker
from app.services import tables

logger = logging.getLogger(__name__)


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
        broker.announce(channel(outcome.match_id), message)
        if outcome.roll_ids and outcome.campaign_id is not None:
            # Rolls at the table also land in the campaign's live roll log.
            publish_roll(broker, outcome.campaign_id, outcome.roll_ids[-1])
    except RuntimeError:
        logger.warning("live: the broker is not running; match %s seq %s not announced",
                       outcome.match_id, outcome.seq)


def publish_roll(broker: Broker, campaign_id: int, roll_id: int) -> None:
    """Tell the campaign's roll-log viewers (after the commit) that it has a new entry."""
    broker.announce(f"campaign:{campaign_id}", {"kind": "roll", "roll_id": roll_id})


def publish_rolled(broker: Broker, campaign_id: int, roll_id: int,
                   journals: list[tables.ActionOutcome]) -> None:
    """A roll made away from a table (a character's sheet): the roll log's viewers are told
    (``roll_id``, its last entry), then those of each table whose journal shows it."""
    publish_roll(broker, campaign_id, roll_id)
    for outcome in journals:
        publish_outcome(broker, outcome)


def publish_chat(broker: Broker, campaign_id: int, message_id: int) -> None:
    """Tell the campaign's chat streams (after the commit) that a message was posted; each
    stream reads it from the database and sends it only to those who may read it."""
    try:
        broker.announce(f"chat:{campaign_id}", {"kind": "chat",
                                                          "message_id": message_id})
    except RuntimeError:
        logger.warning("live: the broker is not running; chat %s not announced", message_id)
