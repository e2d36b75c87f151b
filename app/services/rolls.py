"""The campaign's roll log: signed roll records, free rolls, GM corrections, export.

Each entry is signed with an HMAC of the instance secret over its canonical JSON, so an
exported log can be checked for tampering (``python -m app verify-log FILE``).

Who sees what: a ``public`` roll is for every member, a ``gm`` roll for the GM only, a
``self`` roll for its roller and the GM. Everybody else learns only that a roll happened
(who, when, how hidden): its faces, expression and purpose never leave this module for them.
A GM's correction is its own entry with the original's visibility and roller, so exactly
the people who saw a roll see it corrected.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, func, insert, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from app.db import write_transaction
from app.errors import NotFound, ValidationFailed
from app.i18n import get_locale, ngettext
from app.i18n import gettext as _
from app.i18n import lazy_gettext as _l
from app.models import Campaign, ChatMessage, Match, Membership, Roll, User, utcnow
from app.rules import notation
from app.rules.dice import Dice, Modifier, RollRecord
from app.rules.errors import NotationError
from app.rules.match import VISIBILITIES
from app.rules.purposes import Purpose
from app.rules.purposes import render as render_purpose
from app.services import dice_cap, validation
from app.services.access import CampaignAccess
from app.services.validation import rules_message

PAGE_SIZE = 50
MAX_PAGE = 200
MAX_EXPRESSION = 200
MAX_REASON = 200
MAX_TOTAL = 1_000_000
EXPORT_FORMAT = "tablee-roll-log/1"


# — signatures ——————————————————————————————————————————————————————————————————

def signed_fields(entry: Mapping[str, Any]) -> dict[str, Any]:
    """The fields a signature covers: everything that says what was rolled, by whom, when —
    and, for an entry brought by a campaign file, that it was imported and whom the file
    named (so it cannot pass for a roll made here)."""
    fields = {key: entry.get(key) for key in (
        "id", "campaign_id", "match_id", "user_id", "character_id", "visibility", "purpose",
        "expression", "record", "corrects_id", "created_at")}
    if entry.get("imported") is not None:
        fields["imported"] = entry["imported"]
    return fields


def sign(secret: str, entry: Mapping[str, Any]) -> str:
    canonical = json.dumps(signed_fields(entry), sort_keys=True, separators=(",", ":"),
                           ensure_ascii=False, default=str)
    return hmac.new(secret.encode(), canonical.encode(), hashlib.sha256).hexdigest()


def verify(secret: str, entry: Mapping[str, Any]) -> bool:
    return hmac.compare_digest(sign(secret, entry), str(entry.get("signature", "")))


def entry_dict(roll: Roll) -> dict[str, Any]:
    return {"id": roll.id, "number": roll.number, "campaign_id": roll.campaign_id,
            "match_id": roll.match_id,
            "user_id": roll.user_id, "character_id": roll.character_id,
            "visibility": roll.visibility, "purpose": roll.purpose,
            "expression": roll.expression, "record": roll.record,
            "corrects_id": roll.corrects_id, "created_at": _iso(roll.created_at),
            "imported": roll.imported, "signature": roll.signature}


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="microseconds")


class ExportUnreadable(ValueError):
    """The file is not a roll-log export (the CLI says so instead of a traceback)."""


@dataclass(frozen=True)
class LogCheck:
    """What ``verify-log`` found: entries rolled here, entries brought by a campaign file
    (signed when imported, but never rolled here), and the ids whose signature fails."""

    rolled_here: int
    imported: int
    tampered: list[object]


def check_log(secret: str, document: object) -> LogCheck:
    """Check every entry of an export's signature, counting imported entries apart."""
    entries = document.get("entries") if isinstance(document, Mapping) else None
    if not isinstance(entries, list) or not all(isinstance(e, Mapping) for e in entries):
        raise ExportUnreadable("expected a roll-log export: a JSON object with an 'entries' "
                               "list (GET /campaigns/<id>/rolls/export.json)")
    imported = sum(1 for entry in entries if entry.get("imported") is not None)
    return LogCheck(rolled_here=len(entries) - imported, imported=imported,
                    tampered=[entry.get("id") for entry in entries if not verify(secret, entry)])


# — writing ————————————————————————————————————————————————————————————————————

def record_rolls(*, db: Session, secret: str, campaign_id: int, user_id: int | None,
                 records: Iterable[Mapping[str, Any]], visibility: str,
                 match_id: int | None = None, character_id: int | None = None,
                 corrects_id: int | None = None) -> list[Roll]:
    """Add signed entries inside the caller's transaction (the id is part of what is signed)."""
    records = list(records)
    rolls = []
    for number, record in zip(next_numbers(db, campaign_id, len(records)), records,
                              strict=True):
        roll = Roll(**_new_entry(campaign_id=campaign_id, match_id=match_id, user_id=user_id,
                                 character_id=character_id, visibility=visibility,
                                 record=record, corrects_id=corrects_id), number=number)
        db.add(roll)
        db.flush()
        roll.signature = sign(secret, entry_dict(roll))
        rolls.append(roll)
    return rolls


def append_rolls(*, db: Session, secret: str, campaign_id: int, user_id: int | None,
                 records: Iterable[Mapping[str, Any]], visibility: str,
                 match_id: int | None = None) -> list[int]:
    """``record_rolls`` for the action path: the same signed entries, written with two Core
    statements each (the insert, which takes the campaign's next number itself, then its
    signature, which covers the id) instead of the ORM's unit of work; returns their ids."""
    core = db.connection()  # the session's transaction, without the ORM's per-statement work
    records = list(records)
    if records:
        _lock_numbers(core, campaign_id)
    ids = []
    for record in records:
        entry = _new_entry(campaign_id=campaign_id, match_id=match_id, user_id=user_id,
                           character_id=None, visibility=visibility, record=record,
                           corrects_id=None)
        (roll_id,) = core.execute(_INSERT_NUMBERED_ROLL,
                                  {**entry, "numbered_campaign": campaign_id}
                                  ).inserted_primary_key
        signed = {**entry, "id": roll_id, "created_at": _iso(entry["created_at"])}
        core.execute(_SIGN_ROLL, {"roll_id": roll_id, "signed": sign(secret, signed)})
        ids.append(roll_id)
    return ids


_rolls = Roll.__table__
_earlier = _rolls.alias("earlier")
_LAST_NUMBER = (select(func.coalesce(func.max(_earlier.c.number), 0))
                .where(_earlier.c.campaign_id == bindparam("numbered_campaign")))
# The insert takes the campaign's next number in the same statement (no read of its own).
_INSERT_NUMBERED_ROLL = insert(_rolls).values(number=(_LAST_NUMBER.scalar_subquery() + 1))
_SIGN_ROLL = (update(_rolls).where(_rolls.c.id == bindparam("roll_id"))
              .values(signature=bindparam("signed")))
# FOR NO KEY UPDATE: two writers of one campaign's rolls queue, while inserts that only
# point at the campaign (its chat, its characters) go on.
_LOCK_CAMPAIGN = (select(Campaign.id).where(Campaign.id == bindparam("campaign_id"))
                  .with_for_update(key_share=True))


def _lock_numbers(core: Connection, campaign_id: int) -> None:
    """Before taking numbers in the campaign: PostgreSQL locks its row, so that two
    transactions never take the same number (each later statement then reads the other's
    committed rolls); SQLite's writers already queue (``BEGIN IMMEDIATE``)."""
    if core.dialect.name != "sqlite":
        core.execute(_LOCK_CAMPAIGN, {"campaign_id": campaign_id})


def next_numbers(db: Session, campaign_id: int, count: int) -> range:
    """The campaign's next ``count`` roll numbers (its first roll is n°1), inside the
    caller's write transaction."""
    if not count:
        return range(0)
    core = db.connection()
    _lock_numbers(core, campaign_id)
    last = core.execute(_LAST_NUMBER, {"numbered_campaign": campaign_id}).scalar_one()
    return range(last + 1, last + 1 + count)


def _new_entry(*, campaign_id: int, match_id: int | None, user_id: int | None,
               character_id: int | None, visibility: str, record: Mapping[str, Any],
               corrects_id: int | None) -> dict[str, Any]:
    """A new entry's columns, unsigned (its id comes from the insert), but its number."""
    return {"campaign_id": campaign_id, "match_id": match_id, "user_id": user_id,
            "character_id": character_id, "visibility": visibility,
            "purpose": (record.get("purpose") or "")[:200],
            "expression": record["expression"][:200], "record": dict(record),
            "corrects_id": corrects_id, "signature": "",
            "created_at": utcnow()}


def check_visibility(visibility: object, *, is_gm: bool = True) -> str:
    """One of ``VISIBILITIES``. Only the GM rolls in secret: everyone else is told "the GM
    rolled the dice in secret", which would be untrue of a player's roll."""
    if visibility not in VISIBILITIES:
        raise ValidationFailed(_l("Choose who sees the roll: everyone, the GM, or you and the "
                                  "GM."), field="visibility")
    if visibility == "gm" and not is_gm:
        raise ValidationFailed(_l("Only the GM rolls in secret; choose \"me and the GM\" to "
                                  "keep a roll between you and the GM."), field="visibility")
    return str(visibility)


def free_roll(*, db: Session, secret: str, access: CampaignAccess, expression: object,
              visibility: object = "public", dice: Dice) -> Roll:
    """A free roll in the campaign's log, rolled here on the server.

    A bad expression answers ``ValidationFailed`` on ``expression`` with the position and
    what was expected (in the request's language), and nothing is stored.
    """
    access.require_player_or_gm().require_writable()
    chosen = check_visibility(visibility, is_gm=access.is_gm)
    if not isinstance(expression, str) or not expression.strip():
        raise ValidationFailed(_l("Write a dice expression, for example 2d6+1."),
                               field="expression")
    if len(expression) > MAX_EXPRESSION:
        raise ValidationFailed(_l("A dice expression has at most %(n)s characters.",
                                  n=MAX_EXPRESSION), field="expression")
    validation.policed(expression, field="expression")
    record = roll_typed(expression, access=access, dice=dice)
    with write_transaction(db):
        (roll,) = record_rolls(db=db, secret=secret, campaign_id=access.campaign.id,
                               user_id=access.user.id, records=[record.to_dict()],
                               visibility=chosen)
    return roll


def roll_typed(expression: str, *, access: CampaignAccess, dice: Dice) -> RollRecord:
    """An expression a member typed (the free roller, the chat's ``/r``), rolled under the
    campaign's cap on dice per roll, like an action at a table (``tables.apply_action``):
    past it, or badly written, it is refused on ``expression`` and nothing is rolled."""
    try:
        return notation.roll(expression, dice_cap.capped(dice, access.campaign))
    except NotationError as error:
        raise notation_failure(error) from error


def notation_failure(error: NotationError) -> ValidationFailed:
    """The rules' own words (French or English: they carry both) and where it went wrong."""
    message = rules_message(error)
    return ValidationFailed(message, field="expression", code="bad_expression",
                            details={"position": error.fields.get("position"),
                                     "reason": error.code,
                                     "expected": list(error.expected)})


def correct_roll(*, db: Session, secret: str, access: CampaignAccess, roll_id: int,
                 total: object, reason: object) -> Roll:
    """The GM changes a result: a new entry pointing at the old one, never an edit.

    The correction keeps the original's visibility and names its roller
    (``record.original_user_id``), so it reaches exactly those who saw the original.
    """
    access.require_gm().require_writable()
    if not isinstance(total, int) or isinstance(total, bool) or abs(total) > MAX_TOTAL:
        raise ValidationFailed(_l("The corrected total must be a whole number."), field="total")
    if not isinstance(reason, str) or not reason.strip() or len(reason) > MAX_REASON:
        raise ValidationFailed(_l("Say why the result is corrected (200 characters at most)."),
                               field="reason")
    validation.policed(reason.strip(), field="reason", required=True)
    with write_transaction(db):
        original = db.get(Roll, roll_id)
        if original is None or original.campaign_id != access.campaign.id or not may_see(
                original, user_id=access.user.id, is_gm=True,
                whisper=whispers(db, [original]).get(original.id)):
            raise NotFound()  # a roll of two players' whisper is not the GM's to read
        record = RollRecord.from_dict(original.record)
        corrected = {**record.to_dict(), "total": total, "outcome": None,
                     "corrected_from": record.total, "reason": reason.strip(),
                     "original_user_id": owner_id(original)}
        (roll,) = record_rolls(db=db, secret=secret, campaign_id=original.campaign_id,
                               match_id=original.match_id, user_id=access.user.id,
                               character_id=original.character_id, records=[corrected],
                               visibility=original.visibility, corrects_id=original.id)
    return roll


# — reading ————————————————————————————————————————————————————————————————————

def owner_id(roll: Roll) -> int | None:
    """Whose roll it is: the roller, or for a correction the roller of the original."""
    if roll.corrects_id is not None and "original_user_id" in roll.record:
        return roll.record["original_user_id"]
    return roll.user_id


@dataclass(frozen=True)
class Whisper:
    """The whisper between two members a roll was made in: a whisper to one member is theirs
    alone, the GM included (``app.services.chat``), and so is its roll."""

    recipient_id: int | None
    recipient_name: str


def whispers(db: Session, rows: Sequence[Roll]) -> dict[int, Whisper]:
    """The ``rows`` rolled inside a whisper between two members, by roll id. (A campaign
    file's whispers come back as whispers to the GM: an imported roll is never one.)"""
    ids = {row.id for row in rows if row.visibility == "self"}
    if not ids:
        return {}
    found = db.execute(
        select(ChatMessage.roll_id, ChatMessage.recipient_id, User.display_name)
        .outerjoin(User, User.id == ChatMessage.recipient_id)
        .where(ChatMessage.audience == "member",
               ChatMessage.roll_id.between(min(ids), max(ids))))  # a range: no id list
    return {roll_id: Whisper(recipient_id, name or _("a former member"))
            for roll_id, recipient_id, name in found if roll_id in ids}


def may_see(roll: Roll, *, user_id: int, is_gm: bool, whisper: Whisper | None = None) -> bool:
    if roll.visibility == "public":
        return True
    if whisper is not None:
        return user_id in (owner_id(roll), whisper.recipient_id)
    return is_gm or (roll.visibility == "self" and owner_id(roll) == user_id)


@dataclass(frozen=True)
class RollView:
    """A log entry as one viewer may see it: whole, or only the fact that it happened."""

    roll: Roll
    visible: bool
    # Ids of the later entries that correct this one (on a page of the log).
    corrections: tuple[int, ...] = ()
    whisper: Whisper | None = None
    # Id → number in the campaign of the entries it links to (the one it corrects, the ones
    # correcting it): people read numbers, links keep ids.
    numbers: Mapping[int, int] = field(default_factory=dict)

    def number_of(self, roll_id: int) -> int:
        return self.numbers.get(roll_id, roll_id)

    @property
    def user_name(self) -> str:
        if self.roll.user:
            return self.roll.user.display_name
        if self.roll.imported and self.roll.imported.get("user"):
            return str(self.roll.imported["user"])  # as its campaign file said
        return _("a former member")

    @property
    def record(self) -> dict[str, Any]:
        """The roll's record, or nothing at all for a viewer who may not see it."""
        return self.roll.record if self.visible else {}


@dataclass(frozen=True)
class RollPage:
    entries: list[RollView]
    has_more: bool = False
    newest_id: int | None = None


def roll_page(*, db: Session, access: CampaignAccess, before_id: int | None = None,
              after_id: int | None = None, limit: int = PAGE_SIZE) -> RollPage:
    """A page of the log, newest first (``before_id``) or oldest first (``after_id``).

    ``has_more`` says whether older (resp. newer) entries remain past this page.
    """
    limit = max(1, min(limit, MAX_PAGE))
    query = select(Roll).where(Roll.campaign_id == access.campaign.id)
    if after_id is not None:
        query = query.where(Roll.id > after_id).order_by(Roll.id)
    else:
        if before_id is not None:
            query = query.where(Roll.id < before_id)
        query = query.order_by(Roll.id.desc())
    rows = list(db.scalars(query.limit(limit + 1)).all())
    has_more = len(rows) > limit
    rows = rows[:limit]
    return RollPage(entries=_views(db, access, rows), has_more=has_more,
                    newest_id=max((row.id for row in rows), default=None))


def newest_id(*, db: Session, campaign_id: int) -> int:
    """The id of the campaign's newest log entry (0 for an empty log)."""
    return db.scalar(select(func.max(Roll.id)).where(Roll.campaign_id == campaign_id)) or 0


def roll_log(*, db: Session, access: CampaignAccess, before_id: int | None = None,
             after_id: int | None = None, limit: int = PAGE_SIZE) -> list[RollView]:
    return roll_page(db=db, access=access, before_id=before_id, after_id=after_id,
                     limit=limit).entries


def _views(db: Session, access: CampaignAccess, rows: Sequence[Roll]) -> list[RollView]:
    user_id, is_gm = access.user.id, access.is_gm
    whispered = whispers(db, rows)
    visible = {row.id for row in rows if may_see(row, user_id=user_id, is_gm=is_gm,
                                                 whisper=whispered.get(row.id))}
    corrections: dict[int, list[int]] = {}
    numbers = {row.id: row.number for row in rows}
    if visible:
        triples = db.execute(select(Roll.corrects_id, Roll.id, Roll.number)
                             .where(Roll.corrects_id.in_(visible)).order_by(Roll.id)).all()
        for original, correction, number in triples:
            corrections.setdefault(original, []).append(correction)
            numbers[correction] = number
    originals = {row.corrects_id for row in rows if row.corrects_id} - numbers.keys()
    if originals:
        numbers.update(db.execute(select(Roll.id, Roll.number)
                                  .where(Roll.id.in_(originals))).all())
    return [RollView(row, row.id in visible, tuple(corrections.get(row.id, ())),
                     whispered.get(row.id), numbers) for row in rows]


def still_watching(*, db: Session, campaign_id: int, user_id: int, role: str) -> bool:
    """A live viewer keeps their stream while their membership and role are unchanged.

    A lowered or removed role ends the stream; the browser reconnects and is judged anew.
    """
    current = db.scalar(select(Membership.role).where(Membership.campaign_id == campaign_id,
                                                      Membership.user_id == user_id))
    return current is not None and current == role


# — sharing: the API's and the export's view of an entry ————————————————————————————

def public_entry(view: RollView) -> dict[str, Any]:
    """An entry for this viewer: whole and signed, or only id, user, visibility and time."""
    roll = view.roll
    if not view.visible:
        return {"id": roll.id, "number": roll.number, "user_id": roll.user_id,
                "user_name": view.user_name, "visibility": roll.visibility,
                "created_at": _iso(roll.created_at), "hidden": True}
    return {**entry_dict(roll), "user_name": view.user_name, "hidden": False,
            "purpose_text": purpose_label(roll.purpose, roll.record) or None,
            "total": roll.record.get("total"), "corrected_by": list(view.corrections)}


def export_document(*, db: Session, access: CampaignAccess,
                    now: datetime | None = None) -> dict[str, Any]:
    """Every entry this member may see, oldest first, signed, with the names that help read it.

    Only the fields listed by ``signed_fields`` (and ``signature``) are checked by
    ``verify-log``; ``user_name`` and ``match_name`` are there for people.
    """
    rows = db.scalars(select(Roll).where(Roll.campaign_id == access.campaign.id)
                      .order_by(Roll.id)).all()
    matches = dict(db.execute(select(Match.id, Match.name)
                              .where(Match.campaign_id == access.campaign.id)).all())
    entries = []
    for view in _views(db, access, rows):
        if view.visible:
            entries.append({**entry_dict(view.roll), "user_name": view.user_name,
                            "match_name": matches.get(view.roll.match_id),
                            "shared_with": view.whisper.recipient_name if view.whisper
                            else None})
    return {"format": EXPORT_FORMAT,
            "campaign": {"id": access.campaign.id, "name": access.campaign.name},
            "exported_at": _iso(now or utcnow()), "entries": entries}


def export_entries(*, db: Session, access: CampaignAccess) -> list[dict[str, Any]]:
    """Every entry this member may see, oldest first, with its signature."""
    return export_document(db=db, access=access)["entries"]


def export_text(document: Mapping[str, Any]) -> str:
    """The export as text for people: one block per roll, every die and why it counted."""
    campaign = document["campaign"]
    lines = [_("Roll log of %(name)s", name=campaign["name"]),
             _("Exported at %(when)s UTC", when=_moment(document["exported_at"])),
             ngettext("%(num)s entry", "%(num)s entries", len(document["entries"])), ""]
    # People read the campaign's numbers (an entry exported before them shows its id).
    numbers = {entry["id"]: entry.get("number") or entry["id"] for entry in document["entries"]}
    for entry in document["entries"]:
        lines += _text_block(entry, numbers)
        lines.append("")
    return "\n".join(lines)


def _text_block(entry: Mapping[str, Any], numbers: Mapping[int, int]) -> list[str]:
    record = entry.get("record") or {}
    lines = [_("Roll no. %(id)s — %(when)s UTC — %(who)s",
               id=numbers[entry["id"]], when=_moment(entry["created_at"]),
               who=entry.get("user_name") or "?")]
    if entry.get("purpose"):
        lines.append(_("For: %(purpose)s", purpose=purpose_label(entry["purpose"], record)))
    lines.append(_("Expression: %(expression)s", expression=entry["expression"]))
    lines.append(_("Dice: %(dice)s", dice=dice_text(record.get("dice") or []) or "—"))
    if record.get("tree"):  # (1d20+5)*2, sets, annotations: how the dice make the total
        lines.append(_("Worked out: %(line)s",
                       line=RollRecord.from_dict(record).describe(get_locale())))
    modifiers = [signed(m["value"]) + (f" ({modifier_label(m)})" if m.get("label") else "")
                 for m in record.get("modifiers") or []]
    lines.append(_("Modifiers: %(modifiers)s", modifiers=", ".join(modifiers) or "—"))
    lines.append(_("Total: %(total)s", total=record.get("total")))
    if record.get("target") is not None:
        lines.append(_("Target: %(target)s", target=record["target"]))
    if record.get("outcome"):
        lines.append(_("Outcome: %(outcome)s", outcome=outcome_label(record["outcome"])))
    if entry.get("match_id") is not None:
        lines.append(_("Match: %(name)s (no. %(id)s)", name=entry.get("match_name") or "?",
                       id=entry["match_id"]))
    if entry.get("corrects_id") is not None:
        lines.append(_("Corrects roll no. %(id)s: %(before)s → %(after)s, %(reason)s",
                       id=numbers.get(entry["corrects_id"], entry["corrects_id"]),
                       before=record.get("corrected_from"),
                       after=record.get("total"), reason=record.get("reason") or ""))
    lines.append(_("Visible to: %(who)s", who=visibility_label(
        entry["visibility"], shared_with=entry.get("shared_with"))))
    lines.append(_("Signature: %(signature)s", signature=entry["signature"]))
    return lines


def dice_text(dice: Iterable[Mapping[str, Any]]) -> str:
    """``d6 1 (dropped), d6 6 (exploded), d6 2 (explosion)`` — every die and its fate."""
    return ", ".join(f"d{die['sides']} {die['value']}" + (
        f" ({', '.join(flags)})" if (flags := die_flags(die)) else "") for die in dice)


def die_flags(die: Mapping[str, Any]) -> list[str]:
    """What happened to a die, in words (the page shows the same as CSS classes)."""
    flags = []
    if die.get("rerolled"):
        flags.append(_("rerolled"))
    elif not die.get("kept", True):
        flags.append(_("dropped"))
    if die.get("rolled") is not None:  # a minimum or maximum changed the face (docs/dice.md)
        flags.append(_("rolled %(face)s", face=die["rolled"]))
    if die.get("exploded"):
        flags.append(_("exploded"))
    if die.get("critical"):
        flags.append(_("critical"))
    if die.get("added") == "explosion":
        flags.append(_("from an explosion"))
    elif die.get("added") == "reroll":
        flags.append(_("from a reroll"))
    elif die.get("added") == "critical":
        flags.append(_("critical bonus"))
    if die.get("success") is True:
        flags.append(_("success"))
    elif die.get("success") is False:
        flags.append(_("failure"))
    if die.get("sign", 1) < 0:
        flags.append(_("subtracted"))
    return flags


# The outcome words the games store in a roll record (``RollRecord.outcome``), in the
# reader's language. The records keep the stored word (it is signed); only the display
# changes. A word not listed (a location, a skill's name: French game terms) shows as stored.
OUTCOMES = {
    "success": _l("success"), "réussi": _l("success"),
    "failure": _l("failure"), "raté": _l("failure"),
    "master stroke": _l("master stroke"),
    "7 naturel": _l("natural 7"),
    "restored": _l("restored"), "euthanised": _l("euthanised"), "dead": _l("dead"),
    "amputated": _l("amputated"), "better": _l("better than before"),
    "saved": _l("saved"), "hurt": _l("hurt"),
    "re-roll: limb already lost": _l("rolled again: limb already lost"),
    "re-draw: given skill": _l("drawn again: a skill already given"),
    "re-draw: already held": _l("drawn again: a skill already held"),
}


def outcome_label(outcome: object) -> str:
    """A stored outcome word as the reader says it (« succès », « coup de maître »…)."""
    if not outcome:
        return ""
    label = OUTCOMES.get(str(outcome))
    return str(label) if label is not None else str(outcome)


def purpose_label(purpose: object, record: Mapping[str, Any] | None = None) -> str:
    """A roll's purpose in the reader's language: a purpose the rules named (a ``Purpose``,
    or a stored record's ``purpose_message``) is said again from its message id; one typed
    by a player (``/r 4d6kh3 # Perception``), or stored before message ids, shows as typed.
    What is stored and signed never changes: only the display does."""
    if not purpose:
        return ""
    if isinstance(purpose, Purpose):
        return purpose.text(get_locale())
    message = record.get("purpose_message") if isinstance(record, Mapping) else None
    if message is None:
        return str(purpose)
    return render_purpose(str(purpose), message, get_locale()) or str(purpose)


def modifier_label(modifier: object) -> str:
    """A modifier's label in the reader's language: a label the rules named (a ``Purpose``
    in a ``Modifier``, or a stored modifier's ``label_message``) is said again from its
    message id (« MJ », "GM"); a game term, the GM's own words or an older label as stored."""
    if isinstance(modifier, Modifier):
        return modifier.text(get_locale()) or ""
    if not isinstance(modifier, Mapping) or not modifier.get("label"):
        return ""
    label = str(modifier["label"])
    return render_purpose(label, modifier.get("label_message"), get_locale()) or label


def roll_summary(record: RollRecord) -> str:
    """``RollRecord.describe()`` with its modifiers and outcome in the reader's language."""
    language = get_locale()
    if not record.outcome:
        return record.describe(language)
    return (f"{record.with_target(record.target, None).describe(language)}, "
            f"{outcome_label(record.outcome)}")


def visibility_label(visibility: str, *, shared_with: str | None = None) -> str:
    if shared_with is not None:  # a roll in a whisper between two members
        return _("the roller and %(name)s", name=shared_with)
    labels = {"public": _l("everyone"), "gm": _l("the GM only"),
              "self": _l("the roller and the GM")}
    return str(labels.get(visibility, visibility))


def signed(value: int) -> str:
    return f"+{value}" if value >= 0 else f"−{abs(value)}"


def _moment(iso: str) -> str:
    """``2026-05-01T20:15:03.123456+00:00`` → ``2026-05-01 20:15:03``."""
    return iso.replace("T", " ")[:19]
