"""API: the campaign's roll log — free rolls, the paginated log, GM corrections, export.

Same services and permissions as the pages. An entry the caller may not see keeps only
``id``, ``number``, ``user_id``, ``user_name``, ``visibility``, ``created_at`` and
``hidden: true``.
A bad expression answers 422 with ``error.field = "expression"`` and
``error.details.position`` (0-based) and ``error.details.expected``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import Query, Request
from pydantic import Field

from app.api.schemas import Model, error_responses, text
from app.http.deps import (
    MAX_ID,
    DbSession,
    IdParam,
    MemberAccess,
    SettingsDep,
    TableDice,
    api_router,
)
from app.services import rolls
from app.services.match_publish import publish_roll

router = api_router("rolls")

BASE = "/campaigns/{campaign_id}/rolls"
Visibility = Literal["public", "gm", "self"]


class RollIn(Model):
    expression: str = text(max_length=rolls.MAX_EXPRESSION, description=(
        "Dice notation (docs/dice.md), e.g. `2d6+1 # dégâts`: what follows `#` is the "
        "roll's purpose."))
    visibility: Visibility = Field(default="public", description=(
        "public: everyone; gm: the GM only (GM's secret rolls); self: you and the GM."))


class CorrectionIn(Model):
    total: int = Field(ge=-rolls.MAX_TOTAL, le=rolls.MAX_TOTAL, description="The right total.")
    reason: str = text(max_length=rolls.MAX_REASON)


class RollOut(Model):
    """A log entry. Hidden from you: only the first seven fields are present."""

    id: int = Field(description="The entry's id: what links and corrections use.")
    number: int = Field(description="Its number in the campaign's log (n°1 is the campaign's "
                                    "first roll), as pages show it to people. Not signed.")
    user_id: int | None
    user_name: str
    visibility: str
    created_at: str = Field(description="ISO 8601, exactly as signed.")
    hidden: bool
    campaign_id: int | None = None
    match_id: int | None = None
    character_id: int | None = None
    purpose: str | None = Field(default=None, description=(
        "Why the roll was made, as stored and signed (a rule's purpose in French)."))
    purpose_text: str | None = Field(default=None, description=(
        "The purpose in your language (a rule's purpose said from its ``purpose_message``; "
        "a typed one as typed). Not signed."))
    expression: str | None = None
    record: dict[str, Any] | None = Field(default=None, description=(
        "The RollRecord: purpose (and, for a purpose the rules named, purpose_message: its "
        "message id and params), expression, dice (each face with kept, exploded, critical, "
        "success, added, group, sign, and rerolled or rolled when a die was rerolled or "
        "changed), modifiers, total, target, outcome, and tree (the expression as evaluated, "
        "when it is more than a sum of dice and numbers: docs/dice.md § Records); a "
        "correction adds corrected_from, reason and original_user_id."))
    total: int | None = None
    corrects_id: int | None = None
    corrected_by: list[int] | None = None
    imported: dict[str, str | None] | None = Field(default=None, description=(
        "Brought by a campaign file, not rolled here: who rolled (``user``, and for a "
        "correction ``original_user``) as the file says; linked to no account here. Signed "
        "with the rest."))
    signature: str | None = Field(default=None, description="HMAC-SHA256 of the instance.")


class RollPageOut(Model):
    entries: list[RollOut]
    has_more: bool = Field(description="More entries past this page (older with before_id "
                                       "or by default, newer with after_id).")


class ExportEntryOut(Model):
    id: int
    number: int = Field(description="its number in the campaign's log; not signed")
    campaign_id: int
    match_id: int | None
    user_id: int | None
    character_id: int | None
    visibility: str
    purpose: str
    expression: str
    record: dict[str, Any]
    corrects_id: int | None
    created_at: str
    imported: dict[str, str | None] | None = Field(
        description="set when a campaign file brought it (not rolled here); signed")
    signature: str
    user_name: str
    match_name: str | None
    shared_with: str | None = Field(default=None, description=(
        "For a roll made in a whisper between two members: the other one's name (they alone "
        "see it, not the GM). Not signed."))


class ExportCampaignOut(Model):
    id: int
    name: str


class ExportOut(Model):
    format: str
    campaign: ExportCampaignOut
    exported_at: str
    entries: list[ExportEntryOut]


def _out(view: rolls.RollView) -> RollOut:
    return RollOut(**rolls.public_entry(view))


@router.post(BASE, status_code=201, response_model=RollOut, response_model_exclude_unset=True,
             responses=error_responses(404, 409))
def free_roll(body: RollIn, request: Request, db: DbSession, settings: SettingsDep,
              access: MemberAccess, dice: TableDice):
    """Roll on the server and add the result to the campaign's log (players and the GM)."""
    roll = rolls.free_roll(db=db, secret=settings.resolved_secret_key, access=access,
                           expression=body.expression, visibility=body.visibility, dice=dice)
    publish_roll(request.app.state.broker, access.campaign.id, roll.id)
    return _out(rolls.RollView(roll, visible=True))


@router.get(BASE, response_model=RollPageOut, response_model_exclude_unset=True,
            responses=error_responses(404))
def roll_log(db: DbSession, access: MemberAccess,
             before_id: Annotated[int | None, Query(ge=1, le=MAX_ID)] = None,
             after_id: Annotated[int | None, Query(ge=0, le=MAX_ID)] = None,
             limit: Annotated[int, Query(ge=1, le=rolls.MAX_PAGE)] = rolls.PAGE_SIZE):
    """A page of the log: newest first (``before_id`` for older), or oldest first after
    ``after_id``. Entries hidden from you say only who rolled, when, and how hidden."""
    page = rolls.roll_page(db=db, access=access, before_id=before_id, after_id=after_id,
                           limit=limit)
    return RollPageOut(entries=[_out(view) for view in page.entries], has_more=page.has_more)


@router.post(BASE + "/{roll_id}/corrections", status_code=201, response_model=RollOut,
             response_model_exclude_unset=True, responses=error_responses(404, 409))
def correct_roll(body: CorrectionIn, roll_id: IdParam, request: Request, db: DbSession,
                 settings: SettingsDep, access: MemberAccess):
    """The GM corrects a result: a new entry pointing at the original, seen by whoever saw
    the original."""
    roll = rolls.correct_roll(db=db, secret=settings.resolved_secret_key, access=access,
                              roll_id=roll_id, total=body.total, reason=body.reason)
    publish_roll(request.app.state.broker, access.campaign.id, roll.id)
    return _out(rolls.RollView(roll, visible=True))


@router.get(BASE + "/export", response_model=ExportOut, responses=error_responses(404))
def export(db: DbSession, access: MemberAccess):
    """Every entry you may see, oldest first and signed (check with
    ``python -m app verify-log FILE``)."""
    return rolls.export_document(db=db, access=access)
