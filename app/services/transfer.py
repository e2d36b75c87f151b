"""Campaign export and import: one JSON document holds a whole campaign.

Export is for the GM only: the document holds every sheet, every note, every hidden event
and roll. Its shape is ``app.services.transfer_document``.

A campaign file is untrusted input. Import always creates a NEW campaign whose only member
is the importer, as GM: the file's other members come back as ``former_members``, which the
GM may turn into invitation links (or not), never as memberships; their characters stay
unowned until someone joins and the GM hands them over. Imported rolls and events keep who
the file says made them, marked as imported and linked to no account here (``verify-log``
counts them apart). A match's state is never taken from the file: the game folds the file's
events (their character ids pointed at the new rows) and the file is refused when its
snapshot disagrees with its log.

Everything is checked first (``transfer_checks``): a refused import writes nothing.
"""

from __future__ import annotations

import base64
import json
import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from pydantic import ValidationError as PydanticValidationError
from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from app.config import Settings
from app.db import write_transaction
from app.errors import AppError, ValidationFailed
from app.i18n import lazy_gettext as _l
from app.models import (
    Campaign,
    Character,
    ChatMessage,
    CustomContent,
    Image,
    Invite,
    Match,
    MatchEvent,
    Membership,
    Role,
    Roll,
    User,
    utcnow,
)
from app.rules.match import Event, fold
from app.rules.platform_ids import remap_ids
from app.rules.registry import get_system
from app.services import board_backgrounds, content, images, invites
from app.services import chat as chat_log
from app.services import rolls as roll_log
from app.services.access import CampaignAccess
from app.services.content import list_items
from app.services.transfer_checks import (
    ORIGINAL_USER_ID,
    ROLL_IDS,
    check_campaign_name,
    check_document,
)
from app.services.transfer_document import (
    FORMAT,
    VERSION,
    VERSIONS,
    CampaignDoc,
    CampaignExport,
    CharacterDoc,
    ChatDoc,
    ContentDoc,
    EventDoc,
    ImageDoc,
    MatchDoc,
    MemberDoc,
    PortraitDoc,
    RollDoc,
)
from app.services.transfer_tables import PageCheck, check_tables

__all__ = ["CampaignExport", "ImportResult", "export_campaign", "export_filename",
           "import_campaign", "parse_document"]

ROLE_ORDER = {Role.GM: 0, Role.PLAYER: 1, Role.SPECTATOR: 2}


# --- export -------------------------------------------------------------------------------


def export_campaign(*, db: Session, access: CampaignAccess) -> CampaignExport:
    """The whole campaign as a document (GM only)."""
    access.require_gm()
    campaign = access.campaign
    characters = db.scalars(select(Character).where(Character.campaign_id == campaign.id)).all()
    matches = db.scalars(select(Match).where(Match.campaign_id == campaign.id)
                         .order_by(Match.id)).all()
    rolls = _rolls_the_gm_reads(db, campaign.id)
    refs = {roll.id: ref for ref, roll in enumerate(rolls, start=1)}
    return CampaignExport(
        format=FORMAT, version=VERSION, exported_at=utcnow(),
        campaign=CampaignDoc(name=campaign.name, description=campaign.description,
                             system=campaign.system, archived=campaign.archived,
                             dice_cap=campaign.dice_cap),
        members=_export_members(db, campaign.id),
        content=[ContentDoc(kind=item.kind, key=item.key, name=item.name, data=item.data)
                 for item in list_items(db=db, campaign_id=campaign.id)],
        characters=_export_characters(db, characters),
        matches=_export_matches(db, matches, refs),
        rolls=_export_rolls(db, rolls, refs, matches, characters),
        chat=_export_chat(db, access, refs, matches),
        images=_export_images(db, matches),
    )


def _rolls_the_gm_reads(db: Session, campaign_id: int) -> list[Roll]:
    """Every roll but those made inside two members' whisper (``rolls.whispers``): the roll
    log shows the GM only that they happened, and the file leaves them out with the
    whispers themselves (``_export_chat``)."""
    rolls = db.scalars(select(Roll).where(Roll.campaign_id == campaign_id)
                       .order_by(Roll.id)).all()
    private = roll_log.whispers(db, rolls)
    return [roll for roll in rolls if roll.id not in private]


def _export_chat(db: Session, access: CampaignAccess, refs: dict[int, int],
                 matches: list[Match]) -> list[ChatDoc]:
    """The messages the exporting GM reads (``chat.readable_by``): two players' whispers
    are theirs, and a file the GM carries away must not hold them."""
    messages = db.scalars(select(ChatMessage).where(
        ChatMessage.campaign_id == access.campaign.id,
        chat_log.readable_by(user_id=access.user.id, is_gm=True)).order_by(ChatMessage.id)
    ).unique().all()
    usernames = _usernames(db, {m.user_id for m in messages} | {m.recipient_id for m in messages})
    match_index = {match.id: index for index, match in enumerate(matches)}
    documents = []
    for message in messages:
        imported = message.imported or {}
        documents.append(ChatDoc(
            user=usernames.get(message.user_id) if message.user_id else imported.get("user"),
            audience=message.audience,
            recipient=usernames.get(message.recipient_id) if message.recipient_id
            else imported.get("recipient"),
            body=message.body,
            match=match_index.get(message.match_id) if message.match_id else None,
            roll=refs.get(message.roll_id) if message.roll_id else None,
            created_at=message.created_at))
    return documents


# The platform's events that hold a picture under ``image_id``: the map under a board, a
# handout's (app/services/handouts.py).
PICTURE_KINDS = (board_backgrounds.KIND, "handout_shared")


def _map_image_ids(matches_events: Iterator[dict[str, Any]] | list[dict[str, Any]]) -> list[int]:
    found: list[int] = []
    for payload in matches_events:
        image_id = (payload or {}).get("image_id")
        if isinstance(image_id, int) and not isinstance(image_id, bool) and image_id not in found:
            found.append(image_id)
    return found


def _export_images(db: Session, matches: list[Match]) -> list[ImageDoc]:
    """The pictures the matches' logs name: maps under a board, handouts' pictures."""
    if not matches:
        return []
    wanted = _map_image_ids(list(db.scalars(select(MatchEvent.payload).where(
        MatchEvent.match_id.in_([m.id for m in matches]),
        MatchEvent.kind.in_(PICTURE_KINDS)))))
    if not wanted:
        return []
    return [ImageDoc(id=image.id, content_type=image.content_type,
                     data=base64.b64encode(image.data).decode("ascii"))
            for image in db.scalars(select(Image).where(Image.id.in_(wanted))
                                    .order_by(Image.id))]


def check_map_images(document: CampaignExport, *, max_bytes: int) -> dict[int, Any]:
    """Decode and re-encode every map picture of the file (like a portrait); each one a
    ``board_background`` event names must be in the file."""
    checked: dict[int, Any] = {}
    for index, picture in enumerate(document.images):
        field = f"images.{index}"
        if picture.id in checked:
            raise ValidationFailed(_l("Two pictures have the same id."), field=field)
        try:
            data = base64.b64decode(picture.data, validate=True)
        except ValueError:
            raise ValidationFailed(_l("This is not a PNG, JPEG, WebP or GIF image."),
                                   field=field) from None
        checked[picture.id] = images.clean_image(data, max_bytes=max_bytes, field=field)
    for match_index, match in enumerate(document.matches):
        named = _map_image_ids([event.payload for event in match.events
                                if event.kind in PICTURE_KINDS])
        for image_id in named:
            if image_id not in checked:
                raise ValidationFailed(_l("A match's map names a picture the file does not "
                                          "carry."), field=f"matches.{match_index}.events")
    return checked


def _add_map_images(db: Session, checked: dict[int, Any]) -> dict[int, int]:
    ids: dict[int, int] = {}
    with write_transaction(db):
        for file_id, clean in checked.items():
            image = images.new_image(clean)
            db.add(image)
            db.flush()
            ids[file_id] = image.id
    return ids


def _usernames(db: Session, ids: set[int | None]) -> dict[int, str]:
    wanted = {user_id for user_id in ids if isinstance(user_id, int)}
    if not wanted:
        return {}
    return dict(db.execute(select(User.id, User.username).where(User.id.in_(wanted))).all())


def _export_members(db: Session, campaign_id: int) -> list[MemberDoc]:
    rows = db.scalars(select(Membership).where(Membership.campaign_id == campaign_id)).all()
    rows = sorted(rows, key=lambda row: (ROLE_ORDER[row.role], row.user.username_key))
    return [MemberDoc(username=row.user.username, display_name=row.user.display_name,
                      role=row.role.value) for row in rows]


def _export_characters(db: Session, characters: list[Character]) -> list[CharacterDoc]:
    portrait_ids = [c.portrait_id for c in characters if c.portrait_id is not None]
    images = {image.id: image for image in
              db.scalars(select(Image).where(Image.id.in_(portrait_ids)))} if portrait_ids else {}
    documents = []
    for character in sorted(characters, key=lambda c: c.name):
        image = images.get(character.portrait_id) if character.portrait_id else None
        portrait = PortraitDoc(content_type=image.content_type,
                               data=base64.b64encode(image.data).decode("ascii")) \
            if image else None
        documents.append(CharacterDoc(
            id=character.id, name=character.name,
            owner=character.owner.username if character.owner else None,
            notes=character.notes, sheet=character.sheet, portrait=portrait))
    return documents


def _export_matches(db: Session, matches: list[Match], refs: dict[int, int]) -> list[MatchDoc]:
    if not matches:
        return []
    events = db.scalars(select(MatchEvent).where(MatchEvent.match_id.in_([m.id for m in matches]))
                        .order_by(MatchEvent.match_id, MatchEvent.seq)).all()
    usernames = _usernames(db, {event.actor_id for event in events})
    by_match: dict[int, list[EventDoc]] = {match.id: [] for match in matches}
    for event in events:
        by_match[event.match_id].append(EventDoc(
            seq=event.seq, kind=event.kind, payload=_relink_rolls(event.payload, refs),
            actor=usernames.get(event.actor_id) if event.actor_id
            else (event.imported or {}).get("actor"),
            visibility=event.visibility, reverted=event.reverted, created_at=event.created_at))
    return [MatchDoc(name=match.name, system=match.system, status=match.status,
                     state=match.state, seq=match.seq, events=by_match[match.id])
            for match in matches]


def _export_rolls(db: Session, rolls: list[Roll], refs: dict[int, int], matches: list[Match],
                  characters: list[Character]) -> list[RollDoc]:
    match_index = {match.id: index for index, match in enumerate(matches)}
    names = {character.id: character.name for character in characters}
    usernames = _usernames(db, {roll.user_id for roll in rolls}
                           | {roll.record.get(ORIGINAL_USER_ID) for roll in rolls})
    documents = []
    for roll in rolls:
        # A correction names its original roller by id inside the record: lifted out by name.
        record = dict(roll.record)
        original = record.pop(ORIGINAL_USER_ID, None)
        imported = roll.imported or {}  # an imported roll: who rolled as its file said
        documents.append(RollDoc(
            ref=refs[roll.id], match=match_index.get(roll.match_id) if roll.match_id else None,
            user=usernames.get(roll.user_id) if roll.user_id else imported.get("user"),
            character=names.get(roll.character_id) if roll.character_id else None,
            visibility=roll.visibility, purpose=roll.purpose, expression=roll.expression,
            record=record, corrects=refs.get(roll.corrects_id) if roll.corrects_id else None,
            original_user=usernames.get(original) if isinstance(original, int)
            else imported.get("original_user"),
            created_at=roll.created_at))
    return documents


def _relink_rolls(payload: dict[str, Any], mapping: dict[int, int]) -> dict[str, Any]:
    """The payload with its ``roll_ids`` translated (ids → refs on export, back on import).

    ``roll_ids`` is the table engine's link from an event to its signed rolls
    (``app.services.tables``); the rest of a payload belongs to the game and is copied untouched.
    """
    linked = payload.get(ROLL_IDS)
    if not isinstance(linked, list):
        return payload
    return {**payload, ROLL_IDS: [mapping.get(item) for item in linked]}


def export_filename(campaign: Campaign, when: datetime) -> str:
    """``tablee-<slug>-<date>.json``: plain ASCII, safe in a Content-Disposition header."""
    folded = unicodedata.normalize("NFKD", campaign.name).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", folded.lower()).strip("-")[:50].strip("-")
    return f"tablee-{slug or 'campaign'}-{when:%Y-%m-%d}.json"


# --- reading a file -----------------------------------------------------------------------


class TooLarge(AppError):
    status = 413
    code = "too_large"


def check_size(size: int, settings: Settings) -> None:
    if size > settings.max_import_bytes:
        raise TooLarge(_l("The file is too large (at most %(n)s MB).",
                          n=settings.max_import_bytes // (1024 * 1024)), field="file")


def check_format(data: object, *, field: str | None = None) -> None:
    """A Tablée campaign export in a version this Tablée reads, said first and in words:
    the schema alone would name the value it wants, not the versions it reads. ``field``:
    where the error is shown (the upload form's ``file``), else the key at fault."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValidationFailed(_l("This file is not a Tablée campaign export."),
                               field=field or "format")
    version = data.get("version")
    if type(version) is not int or version not in VERSIONS:
        raise ValidationFailed(
            _l("This file uses format version %(found)s; this Tablée reads version %(known)s.",
               found=str(version)[:20], known=", ".join(str(known) for known in VERSIONS)),
            field=field or "version")


def parse_document(raw: bytes, settings: Settings) -> CampaignExport:
    """Read an uploaded file; every problem becomes one clear, located error."""
    check_size(len(raw), settings)
    try:
        data = json.loads(raw)
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise ValidationFailed(_l("This file is not JSON."), field="file") from error
    check_format(data, field="file")
    try:
        return CampaignExport.model_validate(data)
    except PydanticValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "file"
        raise ValidationFailed(_l("%(where)s: %(detail)s", where=where, detail=first["msg"]),
                               field=where) from error


# --- import -------------------------------------------------------------------------------
#
# Everything is checked before anything is written (``transfer_checks``). The writing then
# goes in short transactions — the campaign first, hidden (``importing``), then its content,
# roster, matches, roll log and events in chunks — so that a large file never holds the
# database's write lock for long and other tables keep playing meanwhile (SQLite has one
# writer). The campaign appears only when the last chunk is in; if anything fails on the way,
# what was written is deleted, and an import cut short by a crash is purged by the next one.

CHUNK = 500
STALE_IMPORT = timedelta(hours=1)


@dataclass(frozen=True)
class FormerMember:
    """A member named by the file: the GM may invite them (never made a member by import)."""

    username: str
    display_name: str
    role: str
    characters: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {"username": self.username, "display_name": self.display_name,
                "role": self.role, "characters": list(self.characters)}


@dataclass(frozen=True)
class ImportResult:
    campaign: Campaign
    former_members: list[FormerMember]


def import_campaign(*, db: Session, settings: Settings, user: User,
                    document: CampaignExport, name: str | None = None,
                    page_check: PageCheck | None = None) -> ImportResult:
    """Create a new campaign from ``document`` with ``user`` as its GM and only member
    (``name`` renames it). Each match must open from every seat, its table page rendered by
    ``page_check`` (``transfer_tables``), before the campaign appears."""
    campaign_name = check_campaign_name(document, name)
    portraits = check_document(document, max_portrait_bytes=settings.max_portrait_bytes)
    maps = check_map_images(document, max_bytes=settings.max_portrait_bytes)
    purge_stale_imports(db=db)
    former = _former_members(document, user)
    with write_transaction(db):
        campaign = Campaign(name=campaign_name, description=document.campaign.description,
                            system=document.campaign.system, importing=True,
                            dice_cap=document.campaign.dice_cap,
                            imported_members=[member.as_dict() for member in former] or None,
                            archived_at=utcnow() if document.campaign.archived else None)
        db.add(campaign)
        db.flush()
        db.add(Membership(campaign_id=campaign.id, user_id=user.id, role=Role.GM))
        campaign_id = campaign.id
    try:
        _add_content(db, campaign_id, document)
        characters = _add_characters(db, campaign_id, document.characters, user, portraits)
        match_ids = _add_matches(db, campaign_id, document.matches)
        roll_ids = _add_rolls(db, settings.resolved_secret_key, campaign_id, document.rolls,
                              match_ids, characters)
        map_ids = _add_map_images(db, maps)
        for match, match_id in zip(document.matches, match_ids, strict=True):
            _add_events(db, match, match_id, roll_ids, characters, map_ids)
        _add_chat(db, campaign_id, document.chat, match_ids, roll_ids)
        check_tables(db, campaign_id=campaign_id, gm=user, match_ids=match_ids,
                     page_check=page_check)
        with write_transaction(db):
            campaign = db.get(Campaign, campaign_id, populate_existing=True)
            campaign.importing = False
    except BaseException:
        _discard(db, campaign_id)
        raise
    return ImportResult(campaign=campaign, former_members=former)


def _former_members(document: CampaignExport, importer: User) -> list[FormerMember]:
    """Everyone the file names as a member, except the importer, with what they played."""
    played: dict[str, list[str]] = {}
    for character in document.characters:
        if character.owner:
            played.setdefault(character.owner.lower(), []).append(character.name.strip())
    return [FormerMember(member.username, member.display_name,
                         Role.PLAYER.value if member.role == Role.GM.value else member.role,
                         tuple(played.get(member.username.lower(), ())))
            for member in document.members if member.username.lower() != importer.username_key]


def purge_stale_imports(*, db: Session, now: datetime | None = None) -> int:
    """Delete imports that never finished (the server stopped in the middle of one)."""
    cutoff = (now or utcnow()) - STALE_IMPORT
    stale = list(db.scalars(select(Campaign.id).where(Campaign.importing.is_(True),
                                                      Campaign.created_at < cutoff)))
    for campaign_id in stale:
        _discard(db, campaign_id)
    return len(stale)


def _discard(db: Session, campaign_id: int) -> None:
    """Delete a campaign being imported and everything written for it (portraits too)."""
    with write_transaction(db):
        portraits = list(db.scalars(select(Character.portrait_id).where(
            Character.campaign_id == campaign_id, Character.portrait_id.is_not(None))))
        portraits += _map_image_ids(list(db.scalars(
            select(MatchEvent.payload).join(Match, Match.id == MatchEvent.match_id).where(
                Match.campaign_id == campaign_id, MatchEvent.kind.in_(PICTURE_KINDS)))))
        db.execute(delete(Campaign).where(Campaign.id == campaign_id))
        if portraits:
            db.execute(delete(Image).where(Image.id.in_(portraits)))


def _chunks(items: Sequence[Any], size: int = CHUNK) -> Iterator[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


def _add_content(db: Session, campaign_id: int, document: CampaignExport) -> None:
    kinds = {kind.key: kind for kind in content.kinds(document.campaign.system)}
    with write_transaction(db):
        db.add_all(CustomContent(campaign_id=campaign_id, kind=item.kind, key=item.key,
                                 name=item.name.strip(),
                                 # checked whole, against the others, beforehand
                                 data=content.clean_fields(kinds[item.kind], item.data,
                                                           whole=False))
                   for item in document.content)


def _add_characters(db: Session, campaign_id: int, characters: list[CharacterDoc],
                    importer: User, portraits: dict[int, images.CleanImage]) -> dict[int, int]:
    """The roster, unowned but for the importer's own; returns the file's ids → new ids."""
    ids: dict[int, int] = {}
    for start in range(0, len(characters), CHUNK // 10):
        with write_transaction(db):
            for index in range(start, min(start + CHUNK // 10, len(characters))):
                character = characters[index]
                portrait_id = None
                if (picture := portraits.get(index)) is not None:
                    image = images.new_image(picture)
                    db.add(image)
                    db.flush()
                    portrait_id = image.id
                mine = (character.owner or "").lower() == importer.username_key
                row = Character(campaign_id=campaign_id, owner_id=importer.id if mine else None,
                                name=character.name.strip(), notes=character.notes,
                                sheet=character.sheet, portrait_id=portrait_id)
                db.add(row)
                db.flush()
                if character.id is not None:
                    ids[character.id] = row.id
    return ids


def _add_matches(db: Session, campaign_id: int, matches: list[MatchDoc]) -> list[int]:
    """The match rows; their state comes from their events (``_add_events``)."""
    with write_transaction(db):
        rows = [Match(campaign_id=campaign_id, system=match.system, name=match.name.strip(),
                      status=match.status, state={}, seq=0) for match in matches]
        db.add_all(rows)
        db.flush()
        return [row.id for row in rows]


def _add_rolls(db: Session, secret: str, campaign_id: int, rolls: list[RollDoc],
               match_ids: list[int], characters: dict[int, int]) -> dict[int, int]:
    """The roll log in its order, marked imported (who rolled as the file says, linked to no
    account here) and signed by this instance; returns ref → id."""
    names = {}
    ids: dict[int, int] = {}
    if rolls:
        names = {name: cid for name, cid in db.execute(
            select(Character.name, Character.id).where(Character.campaign_id == campaign_id))}
    for chunk in _chunks(rolls):
        with write_transaction(db):
            for roll in chunk:
                imported = {"user": roll.user}
                if roll.corrects is not None:
                    imported["original_user"] = roll.original_user
                # A ref is the roll's place in the file's log (1, 2, 3…), which is its number
                # in the campaign exported: the numbers come back as they were.
                row = Roll(campaign_id=campaign_id, number=roll.ref,
                           match_id=match_ids[roll.match] if roll.match is not None else None,
                           user_id=None, imported=imported,
                           character_id=names.get(roll.character.strip())
                           if roll.character else None,
                           visibility=roll.visibility, purpose=roll.purpose,
                           expression=roll.expression, record=dict(roll.record),
                           corrects_id=ids[roll.corrects] if roll.corrects is not None else None,
                           signature="", created_at=_utc(roll.created_at))
                db.add(row)
                db.flush()  # the id is part of what is signed
                row.signature = roll_log.sign(secret, roll_log.entry_dict(row))
                ids[roll.ref] = row.id
    return ids


def _add_chat(db: Session, campaign_id: int, messages: list[ChatDoc], match_ids: list[int],
              roll_ids: dict[int, int]) -> None:
    """The chat, linked to no account here (who wrote it to whom as the file says). The
    file held what its GM read; the importer is the new GM, so every whisper in it becomes
    one the GM reads (``gm``), and the table's messages stay the table's."""
    for chunk in _chunks(messages):
        with write_transaction(db):
            db.add_all([ChatMessage(
                campaign_id=campaign_id,
                match_id=match_ids[message.match] if message.match is not None else None,
                user_id=None, recipient_id=None,
                audience="table" if message.audience == "table" else "gm",
                imported={"user": message.user, "recipient": message.recipient},
                body=message.body,
                roll_id=roll_ids[message.roll] if message.roll is not None else None,
                created_at=_utc(message.created_at)) for message in chunk])


def _add_events(db: Session, match: MatchDoc, match_id: int, roll_ids: dict[int, int],
                characters: dict[int, int], map_ids: dict[int, int] | None = None) -> None:
    """The log with its ids pointed at the new rows, then the state folded from it."""
    system = get_system(match.system)

    def payload_of(event: EventDoc) -> dict[str, Any]:
        payload = remap_ids(_relink_rolls(event.payload, roll_ids), characters)
        if event.kind in PICTURE_KINDS and payload.get("image_id") is not None:
            payload["image_id"] = (map_ids or {}).get(payload["image_id"])
        return payload

    rows = [MatchEvent(match_id=match_id, seq=event.seq, kind=event.kind,
                       payload=payload_of(event),
                       actor_id=None, imported={"actor": event.actor},
                       visibility=event.visibility, reverted=event.reverted,
                       created_at=_utc(event.created_at))
            for event in match.events]
    for chunk in _chunks(rows):
        with write_transaction(db):
            db.add_all(chunk)
    state = fold(system, [Event(row.kind, row.payload, row.visibility)
                          for row in rows if not row.reverted])
    with write_transaction(db):
        row = db.get(Match, match_id, populate_existing=True)
        row.state, row.seq = state, match.seq
        row.status = state.get("status", match.status)


def _utc(moment: datetime) -> datetime:
    """As the database gives it back (UTC), so a signature made now still verifies later."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


# --- the file's former members: invitations, if the GM wants them -------------------------

@dataclass(frozen=True)
class FormerInvite:
    member: FormerMember
    invite: Invite


def former_members(access: CampaignAccess) -> list[FormerMember]:
    """The members the campaign's file named that the GM has not dealt with yet (GM only)."""
    access.require_gm()
    return [FormerMember(item["username"], item["display_name"], item["role"],
                         tuple(item.get("characters") or ()))
            for item in access.campaign.imported_members or []]


def invite_former_members(*, db: Session, access: CampaignAccess,
                          usernames: Sequence[str]) -> list[FormerInvite]:
    """One single-use invitation link per chosen former member, with their role; they leave
    the list (the links are shown once, to hand out)."""
    access.require_gm().require_writable()
    wanted = {name.lower() for name in usernames}
    chosen = [member for member in former_members(access) if member.username.lower() in wanted]
    created = [FormerInvite(member, invites.create_invite(
        db=db, campaign_id=access.campaign.id, created_by=access.user, role=member.role))
        for member in chosen]
    _keep_former(db, access, [member for member in former_members(access)
                              if member.username.lower() not in wanted])
    return created


def dismiss_former_members(*, db: Session, access: CampaignAccess) -> None:
    """Forget the list: nobody from the file is invited."""
    access.require_gm()
    _keep_former(db, access, [])


def _keep_former(db: Session, access: CampaignAccess, members: list[FormerMember]) -> None:
    with write_transaction(db):
        campaign = db.get(Campaign, access.campaign.id, populate_existing=True)
        campaign.imported_members = [member.as_dict() for member in members] or None
    access.campaign.imported_members = campaign.imported_members
