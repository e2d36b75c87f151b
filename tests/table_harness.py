"""The harness every game reuses: play a scripted match, then check the log is the truth.

``fold(log) == snapshot`` after every step, and rewinding then redoing returns exactly the
same state (DESIGN.md § The one flow).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.orm import Session

from app.models import Match
from app.rules.dice import ScriptedDice
from app.services import tables
from app.services.access import CampaignAccess


@dataclass
class Step:
    """One scripted action: who acts, what they do, and the faces the dice will show."""

    access: CampaignAccess
    action: Mapping[str, Any]
    faces: Iterable[Any] = field(default_factory=list)


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
