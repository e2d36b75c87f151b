"""The harness every game reuses: play a scripted match, then check the log is the truth.

``fold(log) == snapshot`` after every step, and rewinding then redoing returns exactly the
same state (DESIGN.md § The one flow).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.models import Campaign, Match, Membership, Role, User
from app.rules.dice import ScriptedDice
from app.services import campaigns, tables
from app.services.access import CampaignAccess, load_campaign_access


@dataclass
class Step:
    """One scripted action: who acts, what they do, and the faces the dice will show."""

    access: CampaignAccess
    action: Mapping[str, Any]
    faces: Iterable[Any] = field(default_factory=list)


def user_ids(db: Session, names: Iterable[str]) -> dict[str, int]:
    """The ids of the accounts with these usernames, by name."""
    return {name: db.scalar(select(User.id).where(User.username_key == name)) for name in names}


def campaign_with_players(db: Session, gm_id: int, player_ids: Iterable[int], *, name: str,
                          system: str) -> Campaign:
    """A campaign of ``system`` created by the GM, the players seated (not yet committed)."""
    campaign = campaigns.create_campaign(db=db, user=db.get(User, gm_id), name=name,
                                         system=system)
    db.add_all([Membership(campaign_id=campaign.id, user_id=player_id, role=Role.PLAYER)
                for player_id in player_ids])
    return campaign


def campaign_access(db: Session, ids: Mapping[str, int],
                    campaign_id: int) -> dict[str, CampaignAccess]:
    """Each person's access to the campaign, by name."""
    return {name: load_campaign_access(db, db.get(User, user_id), campaign_id)
            for name, user_id in ids.items()}


def normalised(state: Any) -> Any:
    """States compare as they are stored: through JSON."""
    return json.loads(json.dumps(state, sort_keys=True))


def assert_log_is_the_truth(db: Session, match: Match) -> None:
    db.commit()
    db.refresh(match)
    assert normalised(tables.fold_log(db, match)) == normalised(match.state)


def play(db: Session, secret: str, match: Match, steps: Iterable[Step]) -> Match:
    """Apply each step with its scripted dice; every die scripted must be used."""
    for step in steps:
        dice = ScriptedDice(step.faces)
        tables.apply_action(db=db, secret=secret, access=step.access, match_id=match.id,
                            action=dict(step.action), expected_seq=None, dice=dice)
        dice.assert_exhausted()
        assert_log_is_the_truth(db, match)
    return match


def assert_rewind_and_redo_round_trip(db: Session, gm: CampaignAccess, match: Match,
                                      to_seq: int) -> None:
    db.refresh(match)
    before = normalised(match.state)
    expected_after_rewind = normalised(tables.fold_log(db, match, upto=to_seq))
    tables.rewind(db=db, access=gm, match_id=match.id, to_seq=to_seq)
    db.refresh(match)
    assert normalised(match.state) == expected_after_rewind
    assert_log_is_the_truth(db, match)
    tables.redo(db=db, access=gm, match_id=match.id)
    db.refresh(match)
    assert normalised(match.state) == before
    assert_log_is_the_truth(db, match)
