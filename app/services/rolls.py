"""The campaign's roll log: signed roll records, free rolls, GM corrections, export.

Each entry is signed with an HMAC of the instance secret over its canonical JSON, so an
exported log can be checked for tampering (``python -m app verify-log FILE``).
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.db import write_transaction
from app.errors import NotFound, ValidationFailed
from app.i18n import lazy_gettext as _l
from app.models import Roll, utcnow
from app.rules import notation
from app.rules.dice import Dice, RollRecord
from app.rules.errors import NotationError
from app.rules.match import VISIBILITIES
from app.services.access import CampaignAccess

PAGE_SIZE = 50


def signed_fields(entry: Mapping[str, Any]) -> dict[str, Any]:
    """The fields a signature covers: everything that says what was rolled, by whom, when."""
    return {key: entry.get(key) for key in (
        "id", "campaign_id", "match_id", "user_id", "character_id", "visibility", "purpose",
        "expression", "record", "corrects_id", "created_at")}


def sign(secret: str, entry: Mapping[str, Any]) -> str:
    canonical = json.dumps(signed_fields(entry), sort_keys=True, separators=(",", ":"),
                           ensure_ascii=False, default=str)
    return hmac.new(secret.encode(), canonical.encode(), hashlib.sha256).hexdigest()


def verify(secret: str, entry: Mapping[str, Any]) -> bool:
    return hmac.compare_digest(sign(secret, entry), str(entry.get("signature", "")))


def entry_dict(roll: Roll) -> dict[str, Any]:
    return {"id": roll.id, "campaign_id": roll.campaign_id, "match_id": roll.match_id,
            "user_id": roll.user_id, "character_id": roll.character_id,
            "visibility": roll.visibility, "purpose": roll.purpose,
            "expression": roll.expression, "record": roll.record,
            "corrects_id": roll.corrects_id, "created_at": _iso(roll.created_at),
            "signature": roll.signature}


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="microseconds")


def record_rolls(*, db: Session, secret: str, campaign_id: int, user_id: int | None,
                 records: Iterable[Mapping[str, Any]], visibility: str,
                 match_id: int | None = None, character_id: int | None = None,
                 corrects_id: int | None = None) -> list[Roll]:
    """Add signed entries inside the caller's transaction (the id is part of what is signed)."""
    rolls = []
    for record in records:
        roll = Roll(campaign_id=campaign_id, match_id=match_id, user_id=user_id,
                    character_id=character_id, visibility=visibility,
                    purpose=(record.get("purpose") or "")[:200],
                    expression=record["expression"][:200], record=dict(record),
                    corrects_id=corrects_id, signature="", created_at=utcnow())
        db.add(roll)
        db.flush()
        roll.signature = sign(secret, entry_dict(roll))
        rolls.append(roll)
    return rolls


def check_visibility(visibility: object) -> str:
    if visibility not in VISIBILITIES:
        raise ValidationFailed(_l("Choose who sees the roll: everyone, the GM, or you and the "
                                  "GM."), field="visibility")
    return str(visibility)


def free_roll(*, db: Session, secret: str, access: CampaignAccess, expression: object,
              visibility: object = "public", dice: Dice) -> Roll:
    """A free roll in the campaign's log, rolled here on the server."""
    access.require_player_or_gm().require_writable()
    chosen = check_visibility(visibility)
    if not isinstance(expression, str) or not expression.strip() or len(expression) > 200:
        raise ValidationFailed(_l("Write a dice expression, for example 2d6+1."),
                               field="expression")
    try:
        record = notation.roll(expression, dice)
    except NotationError as error:
        raise ValidationFailed(_l("%(problem)s", problem=error.message), field="expression",
                               code="bad_expression",
                               details={"position": error.fields.get("position"),
                                        "message_fr": error.message_fr()}) from error
    with write_transaction(db):
        (roll,) = record_rolls(db=db, secret=secret, campaign_id=access.campaign.id,
                               user_id=access.user.id, records=[record.to_dict()],
                               visibility=chosen)
    return roll


def correct_roll(*, db: Session, secret: str, access: CampaignAccess, roll_id: int,
                 total: object, reason: object) -> Roll:
    """The GM changes a result: a new entry pointing at the old one, never an edit."""
    access.require_gm().require_writable()
    if not isinstance(total, int) or isinstance(total, bool) or abs(total) > 1_000_000:
        raise ValidationFailed(_l("The corrected total must be a whole number."), field="total")
    if not isinstance(reason, str) or not reason.strip() or len(reason) > 200:
        raise ValidationFailed(_l("Say why the result is corrected (200 characters at most)."),
                               field="reason")
    with write_transaction(db):
        original = db.get(Roll, roll_id)
        if original is None or original.campaign_id != access.campaign.id:
            raise NotFound()
        record = RollRecord.from_dict(original.record)
        corrected = {**record.to_dict(), "total": total, "outcome": None,
                     "purpose": reason.strip(), "corrected_from": record.total}
        (roll,) = record_rolls(db=db, secret=secret, campaign_id=original.campaign_id,
                               match_id=original.match_id, user_id=access.user.id,
                               records=[corrected], visibility=original.visibility,
                               corrects_id=original.id)
    return roll


def may_see(roll: Roll, *, user_id: int, is_gm: bool) -> bool:
    return roll.visibility == "public" or is_gm or (
        roll.visibility == "self" and roll.user_id == user_id)


@dataclass(frozen=True)
class RollView:
    """A log entry as one viewer may see it: whole, or only the fact that it happened."""

    roll: Roll
    visible: bool


def roll_log(*, db: Session, access: CampaignAccess, before_id: int | None = None,
             after_id: int | None = None, limit: int = PAGE_SIZE) -> list[RollView]:
    """A page of the log, newest first (``before_id``) or oldest first (``after_id``)."""
    query = select(Roll).where(Roll.campaign_id == access.campaign.id)
    if after_id is not None:
        query = query.where(Roll.id > after_id).order_by(Roll.id)
    else:
        if before_id is not None:
            query = query.where(Roll.id < before_id)
        query = query.order_by(Roll.id.desc())
    rows = db.scalars(query.limit(max(1, min(limit, 200)))).all()
    return [RollView(roll, may_see(roll, user_id=access.user.id, is_gm=access.is_gm))
            for roll in rows]


def export_entries(*, db: Session, access: CampaignAccess) -> list[dict[str, Any]]:
    """Every entry this member may see, oldest first, with its signature."""
    rows = db.scalars(select(Roll).where(Roll.campaign_id == access.campaign.id)
                      .order_by(Roll.id)).all()
    return [entry_dict(roll) for roll in rows
            if may_see(roll, user_id=access.user.id, is_gm=access.is_gm)]
