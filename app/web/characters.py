"""Pages: a campaign's roster, character pages, sheet editing with live derived values,
hand-over, deletion and portraits.

The sheet fields belong to the campaign's game system: the pages include
``systems/<key>/sheet_form.html`` and ``sheet_view.html``, and the system turns the posted
fields back into a sheet (``sheet_from_form``). The generic fields of the character form are
``name``, ``notes``, ``version``, ``owner_id`` and ``csrf_token``; a system's partial must not
reuse these names. The partials also get ``content``: the campaign's custom content (kind →
items), to offer a GM's weapons or implants beside the catalogue.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Annotated, Any

from fastapi import Depends, File, Request, UploadFile
from starlette.responses import Response

from app.errors import Conflict, StaleVersion, ValidationFailed
from app.http.deps import (
    DbSession,
    IdParam,
    MemberAccess,
    SettingsDep,
    TableDice,
    page_router,
)
from app.http.uploads import image_response, read_upload
from app.models import Character, Role
from app.rules.system import Problem
from app.services import characters, rolls
from app.services.access import CampaignAccess
from app.services.characters import ACTING_USER, SheetInvalid
from app.services.content import campaign_content
from app.services.images import ImageTooLarge, mebibytes
from app.services.match_publish import publish_rolled
from app.web.forms import field_errors, see_other
from app.web.rolls import entry_context
from app.web.templating import render

router = page_router()

# Ids are 32-bit on PostgreSQL; bigger numbers are simply not found.
CharacterId = IdParam
BASE = "/campaigns/{campaign_id}/characters"


async def form_fields(request: Request) -> dict[str, str]:
    """Every text field of the posted form (a system's sheet fields are not known here)."""
    form = await request.form()
    return {key: value for key, value in form.items() if isinstance(value, str)}


FormFields = Annotated[dict[str, str], Depends(form_fields)]


def roster_url(access: CampaignAccess) -> str:
    return f"/campaigns/{access.campaign.id}/characters"


def character_url(access: CampaignAccess, character_id: int) -> str:
    return f"{roster_url(access)}/{character_id}"


def problems_by_field(problems: list[Problem]) -> dict[str, list[dict[str, str]]]:
    """Translated problems grouped by field, for the system partial to show inline."""
    grouped: dict[str, list[dict[str, str]]] = defaultdict(list)
    for problem in characters.describe_problems(problems):
        grouped[problem["field"]].append(problem)
    return dict(grouped)


def _form_errors(error: Exception) -> dict[str, str]:
    """Inline messages for the generic fields (sheet problems are shown by the partial)."""
    if isinstance(error, SheetInvalid):
        return {}
    return field_errors(error)  # type: ignore[arg-type]


def _int_or_raw(value: str) -> int | str:
    """A number from a form field; anything else is left for the service to refuse."""
    return int(value) if value.strip().isdigit() else value


# --- the roster -------------------------------------------------------------------------

@router.get(BASE)
def roster(request: Request, db: DbSession, access: MemberAccess) -> Response:
    listed = characters.list_characters(db=db, campaign_id=access.campaign.id)
    return render(request, "characters/list.html", {
        "access": access, "campaign": access.campaign, "characters": listed,
        "editable": {c.id for c in listed if characters.can_edit(access, c)},
        "can_create": access.role is not Role.SPECTATOR and not access.campaign.archived,
    })


def _render_new(request: Request, db: DbSession, access: CampaignAccess, *,
                form: dict[str, str], sheet: Any, errors: dict[str, str] | None = None,
                refused: Sequence[Problem] = (), status_code: int = 200) -> Response:
    """``sheet``: what the user typed (never what the dice gave: a refused character keeps
    no roll); ``refused``: the problems the creation met, shown with the sheet's own."""
    system = characters.system_of(access)
    owners = characters.eligible_owners(db=db, campaign_id=access.campaign.id) \
        if access.is_gm else []
    preview = characters.preview_sheet(db=db, access=access, sheet=sheet)
    problems = [*preview.problems, *(p for p in refused if p not in preview.problems)]
    # A blank sheet is not wrong yet: its problems are the panel's list of what is left to
    # do, and are shown by their fields once a creation was refused.
    was_refused = status_code >= 400
    return render(request, "characters/new.html", {
        "access": access, "campaign": access.campaign, "form": form, "sheet": sheet,
        "rolls_at_creation": characters.rolls_at_creation(system),
        "builder_first": characters.chooses_before_rolling(system),
        "content": campaign_content(db=db, campaign_id=access.campaign.id),
        "owners": owners, "errors": errors or {},
        "problems": problems_by_field(problems) if was_refused else {},
        "problem_list": characters.describe_problems(problems),
        "refused": was_refused,
        "derived": preview.derived,
    }, status_code=status_code)


@router.get(BASE + "/new")
def new_character_page(request: Request, db: DbSession, access: MemberAccess) -> Response:
    access.require_player_or_gm().require_writable()
    return _render_new(request, db, access, form={"name": "", "notes": "", "owner_id": ""},
                       sheet=characters.system_of(access).new_sheet())


@router.post(BASE + "/sheet-preview")
def new_sheet_preview(request: Request, db: DbSession, access: MemberAccess,
                      fields: FormFields) -> Response:
    """The derived-values panel of the sheet being typed on the new-character page (htmx);
    creates nothing."""
    access.require_player_or_gm().require_writable()
    preview = characters.preview_sheet(
        db=db, access=access, sheet=characters.system_of(access).sheet_from_form(fields))
    return render(request, "characters/_derived.html", {
        "campaign": access.campaign, "derived": preview.derived,
        "problem_list": characters.describe_problems(preview.problems), "oob": True})


@router.post(BASE)
def create_character(request: Request, db: DbSession, access: MemberAccess,
                     settings: SettingsDep, dice: TableDice, fields: FormFields) -> Response:
    """A game that rolls at creation: the dice decide their part (a GM may keep a typed
    profile instead, ``typed_sheet``). Where the player chooses before the dice (Tiamat),
    the page's builder is the sheet the dice complete; where the dice come first (Cyborg),
    the page sends no sheet and the rest is chosen on the edit page."""
    access.require_player_or_gm().require_writable()
    system = characters.system_of(access)
    typed = access.is_gm and bool(fields.get("typed_sheet"))
    sheet = system.sheet_from_form(fields)
    dice_first = characters.rolls_at_creation(system) and not (
        typed or characters.chooses_before_rolling(system))
    owner: object = ACTING_USER
    if access.is_gm:
        raw_owner = fields.get("owner_id", "")
        owner = _int_or_raw(raw_owner) if raw_owner else None
    try:
        character = characters.create_character(
            db=db, access=access, name=fields.get("name", ""), notes=fields.get("notes", ""),
            sheet=None if dice_first else sheet, owner_id=owner,
            secret=settings.resolved_secret_key, dice=dice,
            roll=characters.rolls_at_creation(system) and not typed)
    except (ValidationFailed, Conflict) as error:
        shown = system.new_sheet() if dice_first else sheet
        return _render_new(request, db, access, form=fields, sheet=shown,
                           errors=_form_errors(error), status_code=error.status,
                           refused=error.problems if isinstance(error, SheetInvalid) else [])
    return see_other(character_url(access, character.id))


# --- one character ----------------------------------------------------------------------

@router.get(BASE + "/{character_id}")
def character_page(request: Request, db: DbSession, access: MemberAccess,
                   character_id: CharacterId) -> Response:
    character = characters.get_character(db=db, access=access, character_id=character_id)
    return _render_view(request, db, access, character)


@router.get(BASE + "/{character_id}/print")
def print_page(request: Request, db: DbSession, access: MemberAccess,
               character_id: CharacterId) -> Response:
    """The sheet alone, laid out for paper (the system's ``sheet_print.html`` if it has one)."""
    character = characters.get_character(db=db, access=access, character_id=character_id)
    return render(request, "characters/print.html", {
        "access": access, "campaign": access.campaign, "character": character,
        "sheet": character.sheet, "system": characters.system_of(access),
        "content": campaign_content(db=db, campaign_id=access.campaign.id),
        "derived": characters.derived_values(db=db, access=access, character=character),
    })


def _render_view(request: Request, db: DbSession, access: CampaignAccess, character: Character,
                 *, errors: dict[str, str] | None = None, roll: dict[str, Any] | None = None,
                 status_code: int = 200) -> Response:
    """``roll``: the state of the sheet's roll panel after a roll was asked (the options
    chosen, its errors, the rolls made); an htmx roll gets that panel alone."""
    writable = not access.campaign.archived
    content = campaign_content(db=db, campaign_id=access.campaign.id)
    system = characters.system_of(access)
    may_roll = writable and characters.can_edit(access, character)
    offered = characters.sheet_rolls(system, character.sheet, content) if may_roll else []
    return render(request, "characters/view.html", {
        "access": access, "campaign": access.campaign, "character": character,
        "sheet": character.sheet,
        "derived": characters.derived_values(db=db, access=access, character=character),
        "content": content,
        "can_edit": writable and characters.can_edit(access, character),
        "can_transfer": writable and access.is_gm,
        "owners": characters.eligible_owners(db=db, campaign_id=access.campaign.id)
        if access.is_gm else [],
        "errors": errors or {},
        "rolls": {offer.key: offer for offer in offered},
        "roll_panel": _roll_panel(request, db, access, character, roll) if offered else None,
    }, status_code=status_code, partial="characters/_sheet_rolls.html" if roll else None)


def _roll_panel(request: Request, db: DbSession, access: CampaignAccess, character: Character,
                roll: dict[str, Any] | None) -> dict[str, Any]:
    """What the roll panel shows: the options (as last asked), who sees the roll, its
    errors, and the rolls just made — or, after a roll sent without JavaScript, the one
    named in the address."""
    roll = roll or {}
    made = roll.get("results")
    if made is None and request.query_params.get("roll", "").isdigit():
        seen = characters.roll_seen_on_sheet(db=db, access=access, character=character,
                                             roll_id=int(request.query_params["roll"]))
        made = [seen] if seen is not None else []
    options = characters.sheet_roll_options(characters.system_of(access))
    values = roll.get("options", {})
    # The options stay unfolded while one is set away from its default, or refused.
    defaults = {option.name: option.choices[0][0] if option.choices else "" for option in options}
    chosen = any(str(values.get(name) or "").strip() not in ("", "0", default)
                 for name, default in defaults.items())
    errors = roll.get("errors", {})
    return {**entry_context(request, access), "can_correct": False, "options": options,
            "values": values, "visibility": roll.get("visibility", "public"),
            "errors": errors, "open": chosen or any(key not in ("roll", "_form") for key in errors)
            or roll.get("visibility", "public") != "public",
            "results": [rolls.RollView(made_roll, visible=True) for made_roll in made or []]}


@router.post(BASE + "/{character_id}/rolls")
def roll_from_sheet(request: Request, db: DbSession, access: MemberAccess,
                    settings: SettingsDep, dice: TableDice, character_id: CharacterId,
                    fields: FormFields) -> Response:
    """A click on a skill, a characteristic or a weapon of the sheet: the game's own test,
    into the campaign's roll log (its live stream told). htmx gets the roll panel back."""
    system = characters.system_of(access)
    asked = {"options": {option.name: fields.get(option.name, "")
                         for option in characters.sheet_roll_options(system)},
             "visibility": fields.get("visibility", "public")}
    try:
        made = characters.roll_from_sheet(
            db=db, access=access, character_id=character_id, key=fields.get("roll"),
            options=asked["options"], visibility=asked["visibility"],
            secret=settings.resolved_secret_key, dice=dice)
    except ValidationFailed as error:
        character = characters.get_character(db=db, access=access, character_id=character_id)
        return _render_view(request, db, access, character, status_code=error.status,
                            roll={**asked, "errors": field_errors(error)})
    publish_rolled(request.app.state.broker, access.campaign.id, made.rolls[-1].id,
                   made.journals)
    if request.headers.get("hx-request") == "true":
        character = characters.get_character(db=db, access=access, character_id=character_id)
        return _render_view(request, db, access, character,
                            roll={**asked, "results": made.rolls})
    first = made.rolls[0].id
    return see_other(f"{character_url(access, character_id)}?roll={first}#sheet-rolls")


def _render_edit(request: Request, db: DbSession, access: CampaignAccess,
                 character: Character, *,
                 form: dict[str, Any], sheet: Any, errors: dict[str, str] | None = None,
                 conflict: dict[str, Any] | None = None, refused: Sequence[Problem] = (),
                 status_code: int = 200) -> Response:
    """``refused``: problems the save met beyond the sheet's own (how it changed, what the
    dice gave), shown with them."""
    preview = characters.preview_sheet(db=db, access=access, sheet=sheet)
    problems = [*preview.problems, *(p for p in refused if p not in preview.problems)]
    if conflict is not None:
        conflict = {**conflict, "derived": characters.preview_sheet(
            db=db, access=access, sheet=conflict["sheet"]).derived}
    return render(request, "characters/edit.html", {
        "access": access, "campaign": access.campaign, "character": character, "form": form,
        "sheet": sheet, "errors": errors or {}, "conflict": conflict,
        "content": campaign_content(db=db, campaign_id=access.campaign.id),
        "problems": problems_by_field(problems),
        "problem_list": characters.describe_problems(problems),
        "refused": status_code >= 400 and conflict is None,
        "derived": preview.derived,
        "max_portrait_mib": mebibytes(request.app.state.settings.max_portrait_bytes),
    }, status_code=status_code)


def _editable(db: DbSession, access: CampaignAccess, character_id: int) -> Character:
    character = characters.get_character(db=db, access=access, character_id=character_id)
    characters.require_edit(access, character)
    access.require_writable()
    return character


@router.get(BASE + "/{character_id}/edit")
def edit_page(request: Request, db: DbSession, access: MemberAccess,
              character_id: CharacterId) -> Response:
    character = _editable(db, access, character_id)
    return _render_edit(request, db, access, character, sheet=character.sheet, form={
        "name": character.name, "notes": character.notes, "version": character.version})


@router.post(BASE + "/{character_id}/edit")
def save_character(request: Request, db: DbSession, access: MemberAccess,
                   character_id: CharacterId, fields: FormFields) -> Response:
    character = _editable(db, access, character_id)
    sheet = characters.system_of(access).sheet_from_form(fields)
    form = {"name": fields.get("name", ""), "notes": fields.get("notes", ""),
            "version": fields.get("version", "")}
    try:
        characters.update_character(db=db, access=access, character_id=character_id,
                                    version=_int_or_raw(form["version"]), name=form["name"],
                                    notes=form["notes"], sheet=sheet)
    except StaleVersion as error:
        current = error.details["current"]
        # Their version becomes the base: saving again, after reading it, is deliberate.
        return _render_edit(request, db, access, character, form={**form,
                            "version": current["version"]}, sheet=sheet,
                            conflict=current, status_code=error.status)
    except (ValidationFailed, Conflict) as error:
        return _render_edit(request, db, access, character, form=form, sheet=sheet,
                            errors=_form_errors(error), status_code=error.status,
                            refused=error.problems if isinstance(error, SheetInvalid) else [])
    return see_other(character_url(access, character_id))


@router.post(BASE + "/{character_id}/sheet-preview")
def sheet_preview(request: Request, db: DbSession, access: MemberAccess,
                  character_id: CharacterId, fields: FormFields) -> Response:
    """The derived-values panel for the sheet being typed (htmx); saves nothing."""
    _editable(db, access, character_id)
    preview = characters.preview_sheet(
        db=db, access=access, sheet=characters.system_of(access).sheet_from_form(fields))
    return render(request, "characters/_derived.html", {
        "campaign": access.campaign, "derived": preview.derived,
        "problem_list": characters.describe_problems(preview.problems), "oob": True})


@router.post(BASE + "/{character_id}/transfer")
def transfer_character(request: Request, db: DbSession, access: MemberAccess,
                       character_id: CharacterId, fields: FormFields) -> Response:
    access.require_gm().require_writable()
    raw_owner = fields.get("owner_id", "")
    try:
        characters.transfer_character(db=db, access=access, character_id=character_id,
                                      owner_id=_int_or_raw(raw_owner) if raw_owner else None)
    except ValidationFailed as error:
        character = characters.get_character(db=db, access=access, character_id=character_id)
        return _render_view(request, db, access, character, errors=field_errors(error),
                            status_code=error.status)
    return see_other(character_url(access, character_id))


@router.post(BASE + "/{character_id}/delete")
def delete_character(db: DbSession, access: MemberAccess,
                     character_id: CharacterId) -> Response:
    characters.delete_character(db=db, access=access, character_id=character_id)
    return see_other(roster_url(access) + "?deleted=1")


# --- portraits --------------------------------------------------------------------------

@router.post(BASE + "/{character_id}/portrait")
def upload_portrait(request: Request, db: DbSession, settings: SettingsDep,
                    access: MemberAccess, character_id: CharacterId,
                    portrait: Annotated[UploadFile | None, File()] = None) -> Response:
    character = _editable(db, access, character_id)
    try:
        characters.set_portrait(db=db, access=access, character_id=character_id,
                                data=read_upload(portrait, settings.max_portrait_bytes),
                                max_bytes=settings.max_portrait_bytes)
    except (ValidationFailed, ImageTooLarge) as error:
        return _render_edit(request, db, access, character, sheet=character.sheet,
                            form={"name": character.name, "notes": character.notes,
                                  "version": character.version},
                            errors=field_errors(error), status_code=error.status)
    return see_other(character_url(access, character_id) + "/edit?portrait=1")


@router.post(BASE + "/{character_id}/portrait/delete")
def remove_portrait(db: DbSession, access: MemberAccess,
                    character_id: CharacterId) -> Response:
    characters.remove_portrait(db=db, access=access, character_id=character_id)
    return see_other(character_url(access, character_id) + "/edit")


@router.get(BASE + "/{character_id}/portrait")
def portrait(request: Request, db: DbSession, access: MemberAccess,
             character_id: CharacterId) -> Response:
    image = characters.get_portrait(db=db, access=access, character_id=character_id)
    return image_response(request, image)
