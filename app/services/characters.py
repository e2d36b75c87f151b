"""The roster: a campaign's characters, their owners, portraits and system sheets.

Who may do what (checked here, so the pages and the API cannot disagree):
every member reads the roster; players create characters for themselves and change only
their own; the GM creates non-player characters (no owner) or characters for a player,
changes every character and hands them over; spectators only read. Nothing changes in an
archived campaign.

Every edit carries the ``version`` it was based on (``Character.version`` is SQLAlchemy's
version counter): a save based on an older version is refused with ``StaleVersion``, whose
details hold the saved values so the form can show them next to what the user typed.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session
from sqlalchemy.orm.exc import StaleDataError

from app.db import write_transaction
from app.errors import Conflict, Forbidden, NotFound, StaleVersion, ValidationFailed
from app.i18n import gettext
from app.i18n import lazy_gettext as _l
from app.models import Character, Image, Membership, Role, Roll, User
from app.rules.dice import Dice, SystemDice
from app.rules.errors import RulesError
from app.rules.registry import get_system
from app.rules.system import N_, NO_CONTENT, Content, GameSystem, Problem, Sheet
from app.rules.text import nul_path
from app.services import images, tables, validation
from app.services.content import campaign_content
from app.services.dice_cap import capped
from app.services.rolls import check_visibility, may_see, record_rolls
from app.services.validation import rules_message

if TYPE_CHECKING:
    from app.services.access import CampaignAccess

NAME_MAX = 120
NOTES_MAX = 20_000
# A sheet is validated by its system; this only stops absurd payloads before that.
SHEET_MAX_CHARS = 100_000
PLATFORM_RULE = "tablee"


class _ActingUser:
    """Default ``owner_id``: whoever creates the character owns it."""

    def __repr__(self) -> str:
        return "ACTING_USER"


ACTING_USER: Any = _ActingUser()


class SheetInvalid(ValidationFailed):
    """The sheet breaks the system's rules; ``problems`` lists every one of them."""

    code = "invalid_sheet"

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__(_l("The sheet does not follow the rules; see each problem."),
                         field=f"sheet.{problems[0].field}")
        self.problems = problems

    def to_dict(self) -> dict[str, Any]:
        # Translated here, when the answer is rendered, in the asker's language.
        body = super().to_dict()
        body["error"]["details"] = {"problems": describe_problems(self.problems)}
        return body


def describe_problems(problems: list[Problem]) -> list[dict[str, str]]:
    """``[{field, message, rule}]`` with each message translated for the current user."""
    return [{"field": problem.field, "message": gettext(problem.message, **problem.params),
             # A seed's citation is not in the catalogue and stays as cited; a house rule's
             # reason is a message (``N_``) and speaks the reader's language.
             "rule": gettext(problem.rule)} for problem in problems]


# --- reading ----------------------------------------------------------------------------

def system_of(access: CampaignAccess) -> GameSystem:
    system = get_system(access.campaign.system)
    if system is None:
        raise Conflict(_l("This campaign's game system is not installed here."),
                       code="unknown_system")
    return system


def list_characters(*, db: Session, campaign_id: int) -> list[Character]:
    """The campaign's characters in alphabetical order (their owners loaded)."""
    return list(db.scalars(select(Character).where(Character.campaign_id == campaign_id)
                           .order_by(func.lower(Character.name), Character.id)))


def get_character(*, db: Session, access: CampaignAccess, character_id: int) -> Character:
    """One character of this campaign; another campaign's character is simply not found."""
    character = db.get(Character, character_id)
    if character is None or character.campaign_id != access.campaign.id:
        raise NotFound()
    return character


def can_edit(access: CampaignAccess, character: Character) -> bool:
    """The GM edits every character; a player edits only their own; spectators none."""
    if access.is_gm:
        return True
    return access.role is Role.PLAYER and character.owner_id == access.user.id


def require_edit(access: CampaignAccess, character: Character) -> None:
    if not can_edit(access, character):
        raise Forbidden(_l("Only this character's player or the GM can change it."))


def eligible_owners(*, db: Session, campaign_id: int) -> list[User]:
    """Members who may own a character: the players and the GM (not spectators)."""
    return list(db.scalars(
        select(User).join(Membership, Membership.user_id == User.id)
        .where(Membership.campaign_id == campaign_id,
               Membership.role.in_((Role.PLAYER, Role.GM)))
        .order_by(func.lower(User.display_name), User.id)))


@dataclass(frozen=True)
class SheetPreview:
    sheet: Any
    problems: list[Problem]
    # None while the sheet has problems: derived values of a broken sheet mean nothing.
    derived: dict[str, Any] | None


def preview_sheet(*, db: Session, access: CampaignAccess, sheet: Any) -> SheetPreview:
    """Problems and derived values of a sheet being typed; changes nothing."""
    system = system_of(access)
    content = campaign_content(db=db, campaign_id=access.campaign.id)
    problems = _sheet_problems(system, sheet, content)
    return SheetPreview(sheet=sheet, problems=problems,
                        derived=None if problems else system.derived(sheet, content))


def derived_values(*, db: Session, access: CampaignAccess,
                   character: Character) -> dict[str, Any] | None:
    return preview_sheet(db=db, access=access, sheet=character.sheet).derived


def snapshot(character: Character) -> dict[str, Any]:
    """The saved values, as a 409 shows them to the person whose save was refused."""
    return {"id": character.id, "name": character.name, "notes": character.notes,
            "sheet": character.sheet, "owner_id": character.owner_id,
            "version": character.version}


# --- checks -----------------------------------------------------------------------------

def _sheet_problems(system: GameSystem, sheet: Any,
                    content: Content = NO_CONTENT) -> list[Problem]:
    if not isinstance(sheet, dict):
        return [Problem("sheet", N_("The sheet must be an object."), PLATFORM_RULE)]
    try:
        size = len(json.dumps(sheet))
    except (TypeError, ValueError, RecursionError):
        return [Problem("sheet", N_("The sheet must be plain JSON."), PLATFORM_RULE)]
    if size > SHEET_MAX_CHARS:
        return [Problem("sheet", N_("The sheet is too large (at most %(n)s characters)."),
                        PLATFORM_RULE, {"n": SHEET_MAX_CHARS})]
    if (where := nul_path(sheet)) is not None:
        return [Problem(where or "sheet", N_("This text contains a control character (such as "
                                             "NUL or an escape); remove it."), PLATFORM_RULE)]
    return system.validate_sheet(sheet, content)


def check_sheet(system: GameSystem, sheet: Any, content: Content = NO_CONTENT) -> Sheet:
    problems = _sheet_problems(system, sheet, content)
    if problems:
        raise SheetInvalid(problems)
    return sheet


def _clean_name(name: object) -> str:
    return validation.text(name, field="name", max_length=NAME_MAX)


def _clean_notes(notes: object) -> str:
    return validation.text(notes, field="notes", max_length=NOTES_MAX, required=False,
                           multiline=True)


def _duplicate_name() -> Conflict:
    return Conflict(_l("Another character of this campaign already has this name."),
                    field="name", code="duplicate_name")


def _check_name_free(db: Session, campaign_id: int, name: str,
                     except_id: int | None = None) -> None:
    query = select(Character.id).where(Character.campaign_id == campaign_id,
                                       Character.name == name)
    if except_id is not None:
        query = query.where(Character.id != except_id)
    if db.scalar(query) is not None:
        raise _duplicate_name()


def _is_id(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _playing_member(db: Session, campaign_id: int, user_id: object) -> int:
    """``user_id`` if they are a player or the GM of the campaign, else a field error."""
    found = _is_id(user_id) and db.scalar(
        select(Membership.user_id).where(Membership.campaign_id == campaign_id,
                                         Membership.user_id == user_id,
                                         Membership.role.in_((Role.PLAYER, Role.GM))))
    if not found:
        raise ValidationFailed(_l("Choose a player of this campaign."), field="owner_id",
                               code="not_a_player")
    return user_id  # type: ignore[return-value]


def _resolve_owner(db: Session, access: CampaignAccess, owner_id: object) -> int | None:
    if owner_id is ACTING_USER:
        return access.user.id
    if not access.is_gm:
        if owner_id != access.user.id:
            raise Forbidden(_l("Only the GM can create a character for someone else."))
        return access.user.id
    if owner_id is None:
        return None
    return _playing_member(db, access.campaign.id, owner_id)


def _lock(db: Session, access: CampaignAccess, character_id: int) -> Character:
    """Inside a write: the character's current row, locked (PostgreSQL), still checked."""
    access.require_writable()
    character = db.get(Character, character_id, populate_existing=True,
                       with_for_update={"of": Character})
    if character is None or character.campaign_id != access.campaign.id:
        raise NotFound()
    return character


def _refused_as_stale(db: Session, character_id: int) -> StaleVersion | NotFound:
    """Someone saved (or deleted) between our check and our write: show their version."""
    db.rollback()
    current = db.get(Character, character_id, populate_existing=True)
    return NotFound() if current is None else StaleVersion(snapshot(current))


# --- writing ----------------------------------------------------------------------------

def create_character(*, db: Session, access: CampaignAccess, name: object,
                     notes: object = "", sheet: object = None,
                     owner_id: object = ACTING_USER, secret: str = "",
                     dice: Dice | None = None, roll: bool | None = None) -> Character:
    """A new character. ``sheet=None`` starts from the system's blank sheet.

    The owner is the acting user unless the GM names a player, or passes ``owner_id=None``
    for a non-player character. In a game whose creation rolls dice (``roll_sheet``) the
    server rolls what the dice decide into the sheet as it was chosen (``roll``: always for
    a player; for the GM, by default only when no sheet is given — a typed profile is kept
    as it is). What the player chose is checked before any die is thrown, so a refused
    sheet costs no roll; the rolls are signed into the campaign's roll log with ``secret``.
    """
    access.require_player_or_gm()
    access.require_writable()
    system = system_of(access)
    cleaned_name, cleaned_notes = _clean_name(name), _clean_notes(notes)
    content = campaign_content(db=db, campaign_id=access.campaign.id)
    if _rolls_at_creation(system, access, sheet, roll):
        chosen = system.new_sheet() if sheet is None else sheet
        _check_choices(system, access, chosen, content)
        sheet, records = _rolled(system, chosen, dice)
    else:
        records = []
    cleaned_sheet = system.new_sheet() if sheet is None else check_sheet(system, sheet, content)
    # A player's new character is judged as a change from the blank sheet: no experience,
    # money or biomass the rules did not give (games with ``validate_change``).
    _check_change(system, access, system.new_sheet(), cleaned_sheet, content)
    try:
        with write_transaction(db):
            access.require_writable()
            owner = _resolve_owner(db, access, owner_id)
            _check_name_free(db, access.campaign.id, cleaned_name)
            character = Character(campaign_id=access.campaign.id, owner_id=owner,
                                  name=cleaned_name, notes=cleaned_notes, sheet=cleaned_sheet)
            db.add(character)
            db.flush()
            record_rolls(db=db, secret=secret, campaign_id=access.campaign.id,
                         user_id=access.user.id, character_id=character.id,
                         records=[{**record, "purpose": record.get("purpose") or gettext(
                             "Creation of %(name)s", name=cleaned_name)} for record in records],
                         visibility="public")
    except IntegrityError as error:  # a concurrent save took the name first
        raise _duplicate_name() from error
    return character


def rolls_at_creation(system: GameSystem) -> bool:
    """The game rolls part of a new character's sheet (``roll_sheet``)."""
    return getattr(system, "roll_sheet", None) is not None


def chooses_before_rolling(system: GameSystem) -> bool:
    """The player fills the whole builder on the new-character page and the dice roll only
    their part into it (Tiamat's talents), instead of rolling first and choosing the rest
    on the edit page (Cyborg's credit, spread over the skills the dice drew)."""
    return rolls_at_creation(system) and bool(getattr(system, "chooses_before_rolling", False))


def _rolls_at_creation(system: GameSystem, access: CampaignAccess, sheet: object,
                       roll: bool | None) -> bool:
    """Whether the server rolls this new character: a player's, always; the GM's when asked,
    or by default when no sheet is given (a GM's complete sheet is a profile, taken as it
    is). A sheet that is not even an object is left for the checks to refuse."""
    if not rolls_at_creation(system) or not (sheet is None or isinstance(sheet, dict)):
        return False
    if not access.is_gm:
        return True
    return sheet is None if roll is None else roll


def _top_field(field: str) -> str:
    return field.split(".", 1)[0]


def _check_choices(system: GameSystem, access: CampaignAccess, chosen: Sheet,
                   content: Content) -> None:
    """What the player chose, judged before the dice: every problem except those of the
    values the dice are about to give."""
    dice_decide = set(rolled_fields(system))
    problems = [problem for problem in _sheet_problems(system, chosen, content)
                if _top_field(problem.field) not in dice_decide]
    if problems:
        raise SheetInvalid(problems)
    _check_change(system, access, system.new_sheet(), chosen, content)


def _rolled(system: GameSystem, chosen: Sheet, dice: Dice | None
            ) -> tuple[Sheet, list[dict[str, Any]]]:
    """The sheet with the server's creation rolls in it, and those rolls."""
    rolled, records = system.roll_sheet(dice or SystemDice(), chosen)  # type: ignore[attr-defined]
    return rolled, [record.to_dict() if hasattr(record, "to_dict") else dict(record)
                    for record in records]


def rolled_fields(system: GameSystem) -> tuple[str, ...]:
    return tuple(getattr(system, "rolled_fields", ()))


def _check_change(system: GameSystem, access: CampaignAccess, before: Sheet, after: Sheet,
                  content: Content) -> None:
    """A game may judge how a sheet changes, not only what it is (``validate_change``):
    what a player may do between matches. The GM's edits are corrections and pass."""
    validate_change = getattr(system, "validate_change", None)
    if validate_change is None or access.is_gm:
        return
    problems = validate_change(before, after, content)
    if problems:
        raise SheetInvalid(problems)


def _check_rolled_fields_kept(system: GameSystem, access: CampaignAccess, before: Sheet,
                              after: Sheet) -> None:
    """Only the GM changes what the dice gave (``rolled_fields``); a player's edit keeps it."""
    if access.is_gm:
        return
    changed = [key for key in rolled_fields(system) if before.get(key) != after.get(key)]
    if changed:
        raise SheetInvalid([Problem(key, N_("Only the GM can change a value the dice gave."),
                                    PLATFORM_RULE) for key in changed])


@contextmanager
def _editing(db: Session, access: CampaignAccess, character_id: int, *,
             gm_only: bool = False) -> Iterator[Character]:
    """One write to a character: check who may, lock the row, check again, and turn a
    race lost to another save into a 409 that shows their version."""
    _check_may_edit(db, access, character_id, gm_only=gm_only)
    try:
        with write_transaction(db):
            character = _lock(db, access, character_id)
            if not gm_only:
                require_edit(access, character)
            yield character
    except StaleDataError as error:
        raise _refused_as_stale(db, character_id) from error


def _check_may_edit(db: Session, access: CampaignAccess, character_id: int, *,
                    gm_only: bool = False) -> None:
    if gm_only:
        access.require_gm()
    character = get_character(db=db, access=access, character_id=character_id)
    if not gm_only:
        require_edit(access, character)
    access.require_writable()


def update_character(*, db: Session, access: CampaignAccess, character_id: int,
                     version: object, name: object = None, notes: object = None,
                     sheet: object = None) -> Character:
    """Save name, notes and sheet (``None`` keeps a value) if ``version`` is still current."""
    _check_may_edit(db, access, character_id)
    if not _is_id(version):
        raise ValidationFailed(_l("This must be a whole number."), field="version")
    system = system_of(access)
    cleaned_name = None if name is None else _clean_name(name)
    cleaned_notes = None if notes is None else _clean_notes(notes)
    content = campaign_content(db=db, campaign_id=access.campaign.id)
    cleaned_sheet = None if sheet is None else check_sheet(system, sheet, content)
    try:
        with _editing(db, access, character_id) as character:
            if character.version != version:
                raise StaleVersion(snapshot(character))
            if cleaned_name is not None:
                _check_name_free(db, access.campaign.id, cleaned_name, except_id=character.id)
                character.name = cleaned_name
            if cleaned_notes is not None:
                character.notes = cleaned_notes
            if cleaned_sheet is not None:
                _check_rolled_fields_kept(system, access, character.sheet, cleaned_sheet)
                _check_change(system, access, character.sheet, cleaned_sheet, content)
                character.sheet = cleaned_sheet
    except IntegrityError as error:
        raise _duplicate_name() from error
    return character


def transfer_character(*, db: Session, access: CampaignAccess, character_id: int,
                       owner_id: int | None) -> Character:
    """The GM hands a character to a player (or the GM), or makes it a non-player one."""
    with _editing(db, access, character_id, gm_only=True) as character:
        character.owner_id = None if owner_id is None else _playing_member(
            db, access.campaign.id, owner_id)
    db.refresh(character)  # load the new owner for display
    return character


def delete_character(*, db: Session, access: CampaignAccess, character_id: int) -> None:
    """Delete a character and its portrait (its player or the GM)."""
    with _editing(db, access, character_id) as character:
        portrait_id = character.portrait_id
        db.delete(character)
        db.flush()
        images.delete_image(db, portrait_id)


# --- portraits --------------------------------------------------------------------------

def set_portrait(*, db: Session, access: CampaignAccess, character_id: int, data: bytes,
                 max_bytes: int) -> Character:
    """Check, clean and store an uploaded portrait, replacing the previous one."""
    _check_may_edit(db, access, character_id)
    clean = images.clean_image(data, max_bytes=max_bytes)  # slow work before the lock
    with _editing(db, access, character_id) as character:
        _replace_portrait(db, character, images.new_image(clean))
    return character


def remove_portrait(*, db: Session, access: CampaignAccess, character_id: int) -> Character:
    with _editing(db, access, character_id) as character:
        _replace_portrait(db, character, None)
    return character


def _replace_portrait(db: Session, character: Character, image: Image | None) -> None:
    previous = character.portrait_id
    if image is not None:
        db.add(image)
        db.flush()
    character.portrait_id = image.id if image is not None else None
    db.flush()
    images.delete_image(db, previous)


def get_portrait(*, db: Session, access: CampaignAccess, character_id: int) -> Image:
    character = get_character(db=db, access=access, character_id=character_id)
    image = db.get(Image, character.portrait_id) if character.portrait_id else None
    if image is None:
        raise NotFound(_l("This character has no portrait."))
    return image


# --- rolls from the sheet -----------------------------------------------------------------

def sheet_rolls(system: GameSystem, sheet: object, content: Content = NO_CONTENT) -> list[Any]:
    """What on this sheet rolls (``SheetRoll``s; none for a game without, or a sheet with
    problems: its numbers mean nothing yet)."""
    offered = getattr(system, "sheet_rolls", None)
    if offered is None or _sheet_problems(system, sheet, content):
        return []
    return list(offered(sheet, content))


def sheet_roll_options(system: GameSystem) -> tuple[Any, ...]:
    """The choices the page offers beside the sheet's roll buttons (``ContentField``s)."""
    return tuple(getattr(system, "sheet_roll_options", ()))


@dataclass(frozen=True)
class SheetRolled:
    """A roll from a sheet: its entries in the roll log, and the line it wrote in the
    journal of each running match that seats the character (to publish, after the commit)."""

    rolls: list[Roll]
    journals: list[tables.ActionOutcome]


def roll_from_sheet(*, db: Session, access: CampaignAccess, character_id: int, key: object,
                    options: Mapping[str, Any], visibility: object = "public", secret: str,
                    dice: Dice) -> SheetRolled:
    """Roll one thing of a character's sheet with the game's own test (``roll_on_sheet``)
    and sign it into the campaign's roll log, with the character; the journal of every
    running match where the character sits shows it (``tables.journal_rolls``). Its player
    and the GM roll; an unknown key or option is refused on its field and nothing is
    stored."""
    character = get_character(db=db, access=access, character_id=character_id)
    require_edit(access, character)
    access.require_writable()
    chosen = check_visibility(visibility, is_gm=access.is_gm)
    system = system_of(access)
    content = campaign_content(db=db, campaign_id=access.campaign.id)
    if getattr(system, "roll_on_sheet", None) is None:
        raise ValidationFailed(_l("Nothing rolls from this game's sheets."), field="roll",
                               code="nothing_to_roll")
    if not sheet_rolls(system, character.sheet, content):
        raise ValidationFailed(_l("This sheet has problems to fix before it rolls."),
                               field="roll", code="sheet_invalid")
    try:
        records = system.roll_on_sheet(  # type: ignore[attr-defined]
            character.sheet, str(key or ""), options, capped(dice, access.campaign),
            name=character.name, content=content)
    except RulesError as error:
        raise ValidationFailed(rules_message(error), field=error.fields.get("option", "roll"),
                               code=error.code) from error
    except ValidationFailed as error:  # the campaign's cap on dice, said on the button
        raise ValidationFailed(error.message, field="roll", code=error.code) from error
    campaign_id, user_id = access.campaign.id, access.user.id
    character_id, name = character.id, character.name
    with write_transaction(db):
        seating = tables.tables_seating(db, campaign_id, character_id)
        made = record_rolls(db=db, secret=secret, campaign_id=campaign_id, user_id=user_id,
                            character_id=character_id,
                            records=[record.to_dict() for record in records],
                            visibility=chosen)
        journals = tables.journal_rolls(db, secret, seating, character_id=character_id,
                                        name=name, made=made, actor=user_id)
    return SheetRolled(made, journals)


def roll_seen_on_sheet(*, db: Session, access: CampaignAccess, character: Character,
                       roll_id: int) -> Roll | None:
    """A roll made from this character's sheet, if this viewer may see it (the page shows
    the last one again after a roll sent without JavaScript)."""
    roll = db.get(Roll, roll_id)
    if roll is None or roll.campaign_id != access.campaign.id \
            or roll.character_id != character.id:
        return None
    return roll if may_see(roll, user_id=access.user.id, is_gm=access.is_gm) else None
