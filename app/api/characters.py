"""API: a campaign's roster — characters, their sheets, hand-over and portraits.

Same services and permissions as the pages. Sheet problems answer 422 with
``error.details.problems = [{field, message, rule}]`` and ``error.field = "sheet.<field>"``;
a save based on an old ``version`` answers 409 with the saved values in
``error.details.current``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import File, Request, UploadFile
from pydantic import Field
from sqlalchemy.orm import Session
from starlette.responses import Response

from app.api.rolls import RollOut
from app.api.schemas import Model, error_responses, text
from app.http.deps import (
    DbSession,
    IdParam,
    MemberAccess,
    SettingsDep,
    TableDice,
    api_router,
)
from app.http.uploads import image_response, read_upload
from app.i18n import gettext
from app.models import Character
from app.services import characters, rolls
from app.services.access import CampaignAccess
from app.services.characters import ACTING_USER, NAME_MAX, NOTES_MAX
from app.services.content import campaign_content
from app.services.match_publish import publish_rolled

router = api_router("characters")

BASE = "/campaigns/{campaign_id}/characters"
ONE = BASE + "/{character_id}"
MAX_ID = 2**31 - 1
UserId = Annotated[int, Field(ge=1, le=MAX_ID)]
# The schema says what the service accepts (a client can tell a well-formed request from
# the start): a name that is not blank, no NUL anywhere. The sheet's own rules depend on
# the campaign's game system, so they are checked (422 with every problem), not declared.
Name = Annotated[str, text(max_length=NAME_MAX)]
Notes = Annotated[str, text(max_length=NOTES_MAX, required=False, multiline=True)]


class CharacterOut(Model):
    id: int
    campaign_id: int
    name: str
    notes: str
    owner_id: int | None = Field(description="The player; null for a non-player character.")
    owner_name: str | None
    sheet: dict[str, Any]
    portrait_url: str | None
    version: int = Field(description="Send it back with every change (PATCH).")
    created_at: datetime
    updated_at: datetime


class CharacterDetailOut(CharacterOut):
    derived: dict[str, Any] | None = Field(
        description="Values computed from the sheet by the game system.")


class CharacterIn(Model):
    name: Name
    notes: Notes = ""
    sheet: dict[str, Any] | None = Field(
        default=None, description="Omitted: the game system's blank sheet.")
    owner_id: UserId | None = Field(
        default=None, description="Omitted: yourself. GM only: a player's id, or null for a "
                                  "non-player character.")
    roll: bool | None = Field(
        default=None, description=(
            "Games that roll part of a new sheet (Cyborg Anti-Alien, Tiamat): the server "
            "rolls what the dice decide into the sheet sent (Tiamat: the talents, unless "
            "`talent_mode` is `chosen`; Cyborg: everything but skill 25's name and formula) "
            "and signs the rolls into the roll log. Always for a player. The GM's sheet is "
            "rolled when none is sent, or with `true`; otherwise kept as typed (a profile)."))


class CharacterPatch(Model):
    version: int = Field(ge=0, le=MAX_ID, description="The version this change is based on.")
    name: Name | None = None
    notes: Notes | None = None
    sheet: dict[str, Any] | None = None


class SheetRollOut(Model):
    key: str = Field(description="What to send as `roll` to roll it.")
    label: str = Field(description="As the sheet names it (a game term).")
    group: str = Field(description="characteristic, skill, weapon, test, attack, defence, "
                                   "shot, throw or strike.")
    formula: str = Field(description="What it rolls, as the game writes it (« 72 % », "
                                     "« 3D10 + 2 », « 2d6 ≤ 12 »).")
    rule: str = Field(description="The section of the rules the test comes from.")


class SheetRollOptionOut(Model):
    name: str
    label: str
    kind: str = Field(description="choice or int")
    choices: list[str] = Field(description="The values of a choice (blank: the default).")
    low: int | None = None
    high: int | None = None


class SheetRollsOut(Model):
    rolls: list[SheetRollOut] = Field(description="Empty for a game whose sheets roll "
                                                  "nothing, or a sheet with problems.")
    options: list[SheetRollOptionOut]


class SheetRollIn(Model):
    roll: str = Field(max_length=80, description="A key from GET …/rolls.")
    options: dict[str, str | int] = Field(
        default_factory=dict, max_length=10,
        description="The game's options (GET …/rolls): a difficulty, a modifier…")
    visibility: Literal["public", "gm", "self"] = Field(
        default="public", description="public: everyone; gm: the GM only; self: you and "
                                      "the GM.")


class TransferIn(Model):
    owner_id: UserId | None = Field(description="The new player; null for a non-player "
                                                "character.")


def _out(access: CampaignAccess, character: Character) -> CharacterOut:
    return CharacterOut(**_fields(access, character))


def _detail(db: Session, access: CampaignAccess, character: Character) -> CharacterDetailOut:
    return CharacterDetailOut(**_fields(access, character),
                              derived=characters.derived_values(db=db, access=access,
                                                                character=character))


def _fields(access: CampaignAccess, character: Character) -> dict[str, Any]:
    portrait = (f"/api/v1/campaigns/{access.campaign.id}/characters/{character.id}/portrait"
                if character.portrait_id else None)
    return {"id": character.id, "campaign_id": character.campaign_id, "name": character.name,
            "notes": character.notes, "owner_id": character.owner_id,
            "owner_name": character.owner.display_name if character.owner else None,
            "sheet": character.sheet, "portrait_url": portrait, "version": character.version,
            "created_at": character.created_at, "updated_at": character.updated_at}


@router.get(BASE, response_model=list[CharacterOut], responses=error_responses(404))
def list_characters(db: DbSession, access: MemberAccess):
    """The campaign's characters, in alphabetical order (every member)."""
    return [_out(access, character)
            for character in characters.list_characters(db=db, campaign_id=access.campaign.id)]


@router.post(BASE, status_code=201, response_model=CharacterDetailOut,
             responses=error_responses(404, 409))
def create_character(body: CharacterIn, db: DbSession, access: MemberAccess,
                     settings: SettingsDep, dice: TableDice):
    """Create a character: players for themselves, the GM for anyone or as an NPC.

    In a game whose creation rolls dice, the server rolls them (for a player, always) into
    the sheet sent and signs them into the campaign's roll log; what the player chose is
    checked first, so a refused sheet (422, every problem) rolls nothing."""
    owner = body.owner_id if "owner_id" in body.model_fields_set else ACTING_USER
    character = characters.create_character(db=db, access=access, name=body.name,
                                            notes=body.notes, sheet=body.sheet,
                                            owner_id=owner, roll=body.roll, dice=dice,
                                            secret=settings.resolved_secret_key)
    return _detail(db, access, character)


@router.get(ONE, response_model=CharacterDetailOut, responses=error_responses(404))
def get_character(db: DbSession, access: MemberAccess, character_id: IdParam):
    return _detail(db, access, characters.get_character(db=db, access=access,
                                                    character_id=character_id))


@router.patch(ONE, response_model=CharacterDetailOut, responses=error_responses(404, 409))
def update_character(body: CharacterPatch, db: DbSession, access: MemberAccess,
                     character_id: IdParam):
    """Change name, notes and/or sheet; ``version`` must be the one you last read."""
    character = characters.update_character(db=db, access=access, character_id=character_id,
                                            version=body.version, name=body.name,
                                            notes=body.notes, sheet=body.sheet)
    return _detail(db, access, character)


@router.delete(ONE, status_code=204, responses=error_responses(404, 409))
def delete_character(db: DbSession, access: MemberAccess, character_id: IdParam):
    characters.delete_character(db=db, access=access, character_id=character_id)
    return Response(status_code=204)


@router.get(ONE + "/rolls", response_model=SheetRollsOut, responses=error_responses(404))
def sheet_rolls(db: DbSession, access: MemberAccess, character_id: IdParam):
    """What on this character's sheet rolls, and the options a roll takes (every member
    reads them; its player and the GM roll)."""
    character = characters.get_character(db=db, access=access, character_id=character_id)
    system = characters.system_of(access)
    content = campaign_content(db=db, campaign_id=access.campaign.id)
    return SheetRollsOut(
        rolls=[SheetRollOut(key=offer.key, label=offer.label, group=offer.group,
                            formula=offer.formula, rule=offer.rule)
               for offer in characters.sheet_rolls(system, character.sheet, content)],
        options=[SheetRollOptionOut(name=option.name, label=str(gettext(option.label)),
                                    kind=option.kind,
                                    choices=[value for value, _label in option.choices],
                                    low=option.low, high=option.high)
                 for option in characters.sheet_roll_options(system)])


@router.post(ONE + "/rolls", status_code=201, response_model=list[RollOut],
             response_model_exclude_unset=True, responses=error_responses(403, 404, 409))
def roll_from_sheet(body: SheetRollIn, request: Request, db: DbSession, access: MemberAccess,
                    settings: SettingsDep, dice: TableDice, character_id: IdParam):
    """Roll one thing of the sheet with the game's own test (Tiamat: characteristic D10 pool
    + skill; Cyborg: percentile skill test…) into the campaign's roll log, signed, with the
    character; its live stream is told. The character's player and the GM roll. A bad key
    or option answers 422 with ``error.field`` = ``roll`` or the option's name."""
    made = characters.roll_from_sheet(
        db=db, access=access, character_id=character_id, key=body.roll, options=body.options,
        visibility=body.visibility, secret=settings.resolved_secret_key, dice=dice)
    publish_rolled(request.app.state.broker, access.campaign.id, made.rolls[-1].id,
                   made.journals)
    return [RollOut(**rolls.public_entry(rolls.RollView(roll, visible=True)))
            for roll in made.rolls]


@router.post(ONE + "/transfer", response_model=CharacterDetailOut,
             responses=error_responses(404, 409))
def transfer_character(body: TransferIn, db: DbSession, access: MemberAccess,
                       character_id: IdParam):
    """GM only: hand the character to a player, or make it a non-player character."""
    character = characters.transfer_character(db=db, access=access, character_id=character_id,
                                              owner_id=body.owner_id)
    return _detail(db, access, character)


@router.put(ONE + "/portrait", response_model=CharacterDetailOut,
            responses=error_responses(404, 409, 413))
def put_portrait(db: DbSession, settings: SettingsDep, access: MemberAccess,
                 character_id: IdParam, file: Annotated[UploadFile, File()]):
    """Upload a PNG, JPEG, WebP or GIF portrait (re-encoded; metadata removed)."""
    character = characters.set_portrait(
        db=db, access=access, character_id=character_id,
        data=read_upload(file, settings.max_portrait_bytes),
        max_bytes=settings.max_portrait_bytes)
    return _detail(db, access, character)


@router.delete(ONE + "/portrait", response_model=CharacterDetailOut,
               responses=error_responses(404, 409))
def delete_portrait(db: DbSession, access: MemberAccess, character_id: IdParam):
    character = characters.remove_portrait(db=db, access=access, character_id=character_id)
    return _detail(db, access, character)


_IMAGE = {"schema": {"type": "string", "format": "binary"}}


@router.get(ONE + "/portrait", response_class=Response,
            responses={200: {"description": "The portrait",
                             "content": {"image/png": _IMAGE, "image/jpeg": _IMAGE}},
                       304: {"description": "Not modified (If-None-Match)"},
                       **error_responses(404)})
def get_portrait(request: Request, db: DbSession, access: MemberAccess,
                 character_id: IdParam):
    image = characters.get_portrait(db=db, access=access, character_id=character_id)
    return image_response(request, image)
