"""Every rule an imported campaign document must follow, checked before anything is written.

Each refusal is a ``ValidationFailed`` whose ``field`` says where in the document the
problem is (``characters.2.sheet.hp``, ``matches.0.events.4.seq``…).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterable
from typing import Any

from app.errors import ValidationFailed
from app.i18n import gettext
from app.i18n import lazy_gettext as _l
from app.rules.dice import RollRecord
from app.rules.registry import get_system
from app.rules.system import Content, GameSystem
from app.services import images
from app.services.campaigns import DESCRIPTION_MAX, NAME_MAX
from app.services.characters import NAME_MAX as CHARACTER_NAME_MAX
from app.services.characters import NOTES_MAX, SheetInvalid, check_sheet, describe_problems
from app.services.content import check_item, clean_fields
from app.services.content import kinds as content_kinds
from app.services.transfer_document import (
    CHAT_BODY_MAX,
    MATCH_NAME_MAX,
    ROLL_TEXT_MAX,
    CampaignExport,
    CharacterDoc,
    ChatDoc,
    ContentDoc,
    MatchDoc,
    MemberDoc,
    PortraitDoc,
    RollDoc,
)
from app.services.transfer_fold import check_match_log
from app.services.validation import USERNAME_RE, no_nul, policed

PORTRAIT_TYPES = {"image/png": "PNG", "image/jpeg": "JPEG", "image/webp": "WEBP",
                  "image/gif": "GIF"}
# Written by the platform, not by a game: checked here because import translates them.
ROLL_IDS = "roll_ids"
ORIGINAL_USER_ID = "original_user_id"


def check_campaign_name(document: CampaignExport, new_name: str | None) -> str:
    """The new campaign's name: ``new_name`` when given (the form's field), else the file's."""
    if new_name and new_name.strip():
        return check_text(new_name, "name", NAME_MAX).strip()
    return check_text(document.campaign.name, "campaign.name", NAME_MAX).strip()


def check_document(document: CampaignExport, *,
                   max_portrait_bytes: int) -> dict[int, images.CleanImage]:
    """Check everything; returns the decoded portraits by character index."""
    system = _system(document.campaign.system, "campaign.system")
    no_nul(document.model_dump(mode="json"))  # anywhere, sheets and payloads included
    check_text(document.campaign.description, "campaign.description", DESCRIPTION_MAX,
               required=False, multiline=True)
    _check_members(document.members)
    content = _check_content(document.campaign.system, document.content)
    _check_unique((c.name.strip() for c in document.characters), "characters",
                  _l("Two characters have the same name."))
    _check_unique((str(c.id) for c in document.characters if c.id is not None), "characters",
                  _l("Two characters have the same id."))
    portraits = {}
    for index, character in enumerate(document.characters):
        portrait = _check_character(system, character, f"characters.{index}",
                                    max_portrait_bytes, content)
        if portrait is not None:
            portraits[index] = portrait
    for index, match in enumerate(document.matches):
        _check_match(match, f"matches.{index}", len(document.rolls))
    names = {character.name.strip() for character in document.characters}
    for index, roll in enumerate(document.rolls):
        _check_roll(roll, index, f"rolls.{index}", len(document.matches), names)
    for index, message in enumerate(document.chat):
        _check_chat(message, f"chat.{index}", len(document.matches), len(document.rolls))
    return portraits


def _system(key: str, field: str) -> GameSystem:
    system = get_system(key)
    if system is None:
        raise ValidationFailed(_l("Unknown game system: %(key)s.", key=key), field=field)
    return system


def _check_members(members: list[MemberDoc]) -> None:
    for index, member in enumerate(members):
        check_username(member.username, f"members.{index}.username")
    _check_unique((member.username.lower() for member in members), "members",
                  _l("A member is listed twice."))


def _check_content(system_key: str, items: list[ContentDoc]) -> Content:
    """Each custom item checked as the GM's form checks it; returns what the rules see."""
    kinds = {kind.key: kind for kind in content_kinds(system_key)}
    found: dict[str, list[dict[str, Any]]] = {}
    for index, item in enumerate(items):
        where = f"content.{index}"
        if item.kind not in kinds:
            raise ValidationFailed(_l("This game has no such kind of content."),
                                   field=f"{where}.kind")
        check_text(item.name, f"{where}.name", CHARACTER_NAME_MAX)
        try:
            data = clean_fields(kinds[item.kind], item.data, whole=False)
        except ValidationFailed as error:
            raise ValidationFailed(error.message, field=f"{where}.data.{error.field}") from error
        found.setdefault(item.kind, []).append(
            {**data, "key": item.key, "name": item.name, "source": "gm"})
    _check_unique((f"{item.kind}/{item.key}" for item in items), "content",
                  _l("A custom content item is listed twice."))
    # Then each item as a whole, against all the others (a scenario names a GM's species).
    for index, item in enumerate(items):
        try:
            check_item(kinds[item.kind], clean_fields(kinds[item.kind], item.data,
                                                      whole=False), found)
        except ValidationFailed as error:
            raise ValidationFailed(error.message, field=f"content.{index}.data.{error.field}",
                                   details=error.details) from error
    return found


def _check_character(system: GameSystem, character: CharacterDoc, where: str,
                     max_portrait_bytes: int, content: Content) -> images.CleanImage | None:
    check_text(character.name, f"{where}.name", CHARACTER_NAME_MAX)
    check_text(character.notes, f"{where}.notes", NOTES_MAX, required=False, multiline=True)
    if character.owner is not None:
        check_username(character.owner, f"{where}.owner")
    try:  # the system's own rules, exactly as for a sheet saved in the roster
        check_sheet(system, character.sheet, content)
    except SheetInvalid as error:
        first = error.problems[0]
        raise ValidationFailed(
            _l("Character %(name)s: %(problem)s", name=character.name,
               problem=gettext(first.message, **first.params)),
            field=f"{where}.sheet.{first.field}", code="invalid_sheet",
            details={"problems": describe_problems(error.problems)}) from error
    if character.portrait is None:
        return None
    return check_portrait(character.portrait, f"{where}.portrait", max_portrait_bytes)


def _check_match(match: MatchDoc, where: str, roll_count: int) -> None:
    system = _system(match.system, f"{where}.system")
    check_text(match.name, f"{where}.name", MATCH_NAME_MAX)
    check_text(match.status, f"{where}.status", 16)
    # The log numbers its events 1, 2, 3…; the snapshot is the fold up to the last one.
    for position, event in enumerate(match.events, start=1):
        at = f"{where}.events.{position - 1}"
        check_text(event.kind, f"{at}.kind", 48)
        if event.seq != position:
            raise ValidationFailed(
                _l("The events of a match must be numbered 1, 2, 3… without gaps "
                   "(expected %(expected)s, found %(found)s).", expected=position,
                   found=event.seq), field=f"{at}.seq")
        if event.actor is not None:
            check_username(event.actor, f"{at}.actor")
        _check_roll_links(event.payload, f"{at}.payload", roll_count)
    if match.seq != len(match.events):
        raise ValidationFailed(
            _l("The match is at step %(seq)s but its log has %(n)s events.", seq=match.seq,
               n=len(match.events)), field=f"{where}.seq")
    check_match_log(system, match, where)


def _check_roll_links(payload: dict[str, Any], where: str, roll_count: int) -> None:
    if ROLL_IDS not in payload:
        return
    links = payload[ROLL_IDS]
    if not isinstance(links, list) or not all(
            link is None or (type(link) is int and 1 <= link <= roll_count) for link in links):
        raise ValidationFailed(_l("roll_ids must list entries of the roll log (their ref)."),
                               field=f"{where}.{ROLL_IDS}")


def _check_roll(roll: RollDoc, index: int, where: str, match_count: int,
                character_names: set[str]) -> None:
    if roll.ref != index + 1:
        raise ValidationFailed(_l("Roll-log entries must be numbered 1, 2, 3… in order."),
                               field=f"{where}.ref")
    if roll.match is not None and roll.match >= match_count:
        raise ValidationFailed(_l("This roll names a match that is not in the file."),
                               field=f"{where}.match")
    if roll.character is not None and roll.character.strip() not in character_names:
        raise ValidationFailed(_l("This roll names a character that is not in the file."),
                               field=f"{where}.character")
    if roll.corrects is not None and roll.corrects >= roll.ref:
        raise ValidationFailed(_l("A correction must follow the roll it corrects."),
                               field=f"{where}.corrects")
    for field, username in (("user", roll.user), ("original_user", roll.original_user)):
        if username is not None:
            check_username(username, f"{where}.{field}")
    check_text(roll.purpose, f"{where}.purpose", ROLL_TEXT_MAX, required=False)
    check_text(roll.expression, f"{where}.expression", ROLL_TEXT_MAX)
    if ORIGINAL_USER_ID in roll.record:  # an id from elsewhere: the file names people
        raise ValidationFailed(_l("Name the original roller with original_user."),
                               field=f"{where}.record.{ORIGINAL_USER_ID}")
    try:  # the roll log shows every entry: it must read as a roll
        RollRecord.from_dict(roll.record).describe()
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as error:
        raise ValidationFailed(_l("This is not a roll record."),
                               field=f"{where}.record") from error


def _check_chat(message: ChatDoc, where: str, match_count: int, roll_count: int) -> None:
    if message.match is not None and message.match >= match_count:
        raise ValidationFailed(_l("This message names a match that is not in the file."),
                               field=f"{where}.match")
    if message.roll is not None and message.roll > roll_count:
        raise ValidationFailed(_l("This message names a roll that is not in the file."),
                               field=f"{where}.roll")
    for field, username in (("user", message.user), ("recipient", message.recipient)):
        if username is not None:
            check_username(username, f"{where}.{field}")
    check_text(message.body, f"{where}.body", CHAT_BODY_MAX, multiline=True)


def check_text(value: str, field: str, max_length: int, *, required: bool = True,
               multiline: bool = False) -> str:
    """Stored as written (no stripping): a round trip gives back the same text. The same text
    policy as every other entry point (``app.rules.text``)."""
    if required and not value.strip():
        raise ValidationFailed(_l("This field is required."), field=field)
    if len(value) > max_length:
        raise ValidationFailed(_l("At most %(n)s characters.", n=max_length), field=field)
    return policed(value, field=field, multiline=multiline, required=required)


def check_username(value: str, field: str) -> None:
    if not USERNAME_RE.match(value):
        raise ValidationFailed(
            _l("3 to 40 characters: letters, digits, dot, dash or underscore."), field=field)


def _check_unique(keys: Iterable[str], field: str, message: Any) -> None:
    seen: set[str] = set()
    for key in keys:
        if key in seen:
            raise ValidationFailed(message, field=field)
        seen.add(key)


def check_portrait(portrait: PortraitDoc, field: str, max_bytes: int) -> images.CleanImage:
    """Check a portrait and re-encode it like an upload (``images.clean_image``): what is
    stored is built from its pixels alone, never the file's bytes, so no metadata and
    nothing hidden after the image comes in (a JPEG loses a little at each import, as at
    each upload). Its ``content_type`` must say what it is."""
    if portrait.content_type not in PORTRAIT_TYPES:
        raise ValidationFailed(_l("This is not a PNG, JPEG, WebP or GIF image."),
                               field=f"{field}.content_type")
    try:
        data = base64.b64decode(portrait.data, validate=True)
    except (binascii.Error, ValueError) as error:
        raise ValidationFailed(_l("The portrait is not valid base64."),
                               field=f"{field}.data") from error
    clean = images.clean_image(data, max_bytes=max_bytes, field=f"{field}.data")
    if PORTRAIT_TYPES[portrait.content_type] != clean.source_format:
        raise ValidationFailed(_l("The portrait is not the image type it claims to be."),
                               field=f"{field}.content_type")
    return clean
