"""Campaign export and import: one JSON document holds a whole campaign.

Export is for the GM only: the document holds every sheet, every note, every hidden event
and roll. Its shape is ``app.services.transfer_document``.

Import always creates a NEW campaign, with the importer as its GM. Members are re-linked
by username when such an account exists here; the others are reported as not found and
their characters become non-player characters. A former GM who is not the importer joins
as a player (a campaign has one GM). Event actors and rollers are re-linked by username
too (unknown here: nobody). Roll-log entries are signed again by this instance, since a
signature covers ids and the instance secret (see ``transfer_document``).

Everything is checked first (``transfer_checks``), and the writing is one transaction: a
refused import leaves the database exactly as it was.
"""

from __future__ import annotations

import base64
import json
import re
import unicodedata
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError as PydanticValidationError
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.config import Settings
from app.db import write_transaction
from app.errors import AppError, ValidationFailed
from app.i18n import lazy_gettext as _l
from app.models import (
    Campaign,
    Character,
    CustomContent,
    Image,
    Match,
    MatchEvent,
    Membership,
    Role,
    Roll,
    User,
    utcnow,
)
from app.services import content
from app.services import rolls as roll_log
from app.services.content import list_items
from app.services.transfer_checks import (
    ORIGINAL_USER_ID,
    ROLL_IDS,
    CheckedPortrait,
    check_campaign_name,
    check_document,
)
from app.services.transfer_document import (
    FORMAT,
    VERSION,
    CampaignDoc,
    CampaignExport,
    CharacterDoc,
    ContentDoc,
    EventDoc,
    MatchDoc,
    MemberDoc,
    PortraitDoc,
    RollDoc,
)

if TYPE_CHECKING:
    from app.services.access import CampaignAccess

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
    rolls = db.scalars(select(Roll).where(Roll.campaign_id == campaign.id)
                       .order_by(Roll.id)).all()
    refs = {roll.id: ref for ref, roll in enumerate(rolls, start=1)}
    return CampaignExport(
        format=FORMAT, version=VERSION, exported_at=utcnow(),
        campaign=CampaignDoc(name=campaign.name, description=campaign.description,
                             system=campaign.system, archived=campaign.archived),
        members=_export_members(db, campaign.id),
        content=[ContentDoc(kind=item.kind, key=item.key, name=item.name, data=item.data)
                 for item in list_items(db=db, campaign_id=campaign.id)],
        characters=_export_characters(db, characters),
        matches=_export_matches(db, matches, refs),
        rolls=_export_rolls(db, rolls, refs, matches, characters),
    )


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
            name=character.name, owner=character.owner.username if character.owner else None,
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
            actor=usernames.get(event.actor_id) if event.actor_id else None,
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
        documents.append(RollDoc(
            ref=refs[roll.id], match=match_index.get(roll.match_id) if roll.match_id else None,
            user=usernames.get(roll.user_id) if roll.user_id else None,
            character=names.get(roll.character_id) if roll.character_id else None,
            visibility=roll.visibility, purpose=roll.purpose, expression=roll.expression,
            record=record, corrects=refs.get(roll.corrects_id) if roll.corrects_id else None,
            original_user=usernames.get(original) if isinstance(original, int) else None,
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


def parse_document(raw: bytes, settings: Settings) -> CampaignExport:
    """Read an uploaded file; every problem becomes one clear, located error."""
    check_size(len(raw), settings)
    try:
        data = json.loads(raw)
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise ValidationFailed(_l("This file is not JSON."), field="file") from error
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValidationFailed(_l("This file is not a Tablée campaign export."), field="file")
    if data.get("version") != VERSION:
        raise ValidationFailed(
            _l("This file uses format version %(found)s; this Tablée reads version %(known)s.",
               found=str(data.get("version"))[:20], known=VERSION), field="file")
    try:
        return CampaignExport.model_validate(data)
    except PydanticValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "file"
        raise ValidationFailed(_l("%(where)s: %(detail)s", where=where, detail=first["msg"]),
                               field=where) from error


# --- import -------------------------------------------------------------------------------


@dataclass(frozen=True)
class ImportResult:
    campaign: Campaign
    unmatched_members: list[str]


def import_campaign(*, db: Session, settings: Settings, user: User,
                    document: CampaignExport, name: str | None = None) -> ImportResult:
    """Create a new campaign from ``document`` with ``user`` as GM (``name`` renames it)."""
    campaign_name = check_campaign_name(document, name)
    portraits = check_document(document, max_portrait_bytes=settings.max_portrait_bytes)
    with write_transaction(db):
        users = _users_by_key(db, _all_usernames(document))
        campaign = Campaign(name=campaign_name, description=document.campaign.description,
                            system=document.campaign.system,
                            archived_at=utcnow() if document.campaign.archived else None)
        db.add(campaign)
        db.flush()
        linked, unmatched = _add_members(db, campaign, user, document.members, users)
        _add_content(db, campaign, document.content)
        character_ids = _add_characters(db, campaign, document.characters, linked, portraits)
        match_ids = _add_matches(db, campaign, document.matches)
        roll_ids = _add_rolls(db, settings.resolved_secret_key, campaign, document.rolls, users,
                              match_ids, character_ids)
        _add_events(db, document.matches, match_ids, users, roll_ids)
    return ImportResult(campaign=campaign, unmatched_members=unmatched)


def _all_usernames(document: CampaignExport) -> set[str]:
    names = {member.username for member in document.members}
    names |= {c.owner for c in document.characters if c.owner}
    names |= {e.actor for m in document.matches for e in m.events if e.actor}
    names |= {r.user for r in document.rolls if r.user}
    names |= {r.original_user for r in document.rolls if r.original_user}
    return {name.lower() for name in names}


def _users_by_key(db: Session, keys: set[str]) -> dict[str, User]:
    found: dict[str, User] = {}
    ordered = sorted(keys)
    for start in range(0, len(ordered), 500):
        chunk = ordered[start:start + 500]
        for account in db.scalars(select(User).where(User.username_key.in_(chunk))):
            found[account.username_key] = account
    return found


def _user_id(users: dict[str, User], username: str | None) -> int | None:
    account = users.get(username.lower()) if username else None
    return account.id if account else None


def _add_members(db: Session, campaign: Campaign, importer: User, members: list[MemberDoc],
                 users: dict[str, User]) -> tuple[dict[str, User], list[str]]:
    """The importer as GM, then everyone found here; returns (linked by key, not found)."""
    db.add(Membership(campaign_id=campaign.id, user_id=importer.id, role=Role.GM))
    linked = {importer.username_key: importer}
    unmatched = []
    for member in members:
        key = member.username.lower()
        if key == importer.username_key:
            continue
        account = users.get(key)
        if account is None:
            unmatched.append(member.username)
            continue
        role = Role.PLAYER if member.role == Role.GM.value else Role(member.role)
        db.add(Membership(campaign_id=campaign.id, user_id=account.id, role=role))
        linked[key] = account
    return linked, unmatched


def _add_content(db: Session, campaign: Campaign, items: list[ContentDoc]) -> None:
    kinds = {kind.key: kind for kind in content.kinds(campaign.system)}
    db.add_all(CustomContent(campaign_id=campaign.id, kind=item.kind, key=item.key,
                             name=item.name.strip(),
                             data=content.clean_fields(kinds[item.kind], item.data))
               for item in items)


def _add_characters(db: Session, campaign: Campaign, characters: list[CharacterDoc],
                    linked: dict[str, User],
                    portraits: dict[int, CheckedPortrait]) -> dict[str, int]:
    """The roster (owners only among the linked members); returns ids by name."""
    ids = {}
    for index, character in enumerate(characters):
        portrait_id = None
        if (picture := portraits.get(index)) is not None:
            image = picture.new_image()
            db.add(image)
            db.flush()
            portrait_id = image.id
        row = Character(campaign_id=campaign.id, owner_id=_user_id(linked, character.owner),
                        name=character.name.strip(), notes=character.notes,
                        sheet=character.sheet, portrait_id=portrait_id)
        db.add(row)
        db.flush()
        ids[row.name] = row.id
    return ids


def _add_matches(db: Session, campaign: Campaign, matches: list[MatchDoc]) -> list[int]:
    rows = [Match(campaign_id=campaign.id, system=match.system, name=match.name.strip(),
                  status=match.status, state=match.state, seq=match.seq) for match in matches]
    db.add_all(rows)
    db.flush()
    return [row.id for row in rows]


def _add_rolls(db: Session, secret: str, campaign: Campaign, rolls: list[RollDoc],
               users: dict[str, User], match_ids: list[int],
               character_ids: dict[str, int]) -> dict[int, int]:
    """The roll log in its order, each entry signed by this instance; returns ref → id."""
    ids: dict[int, int] = {}
    for roll in rolls:
        record = dict(roll.record)
        if roll.corrects is not None:
            record[ORIGINAL_USER_ID] = _user_id(users, roll.original_user)
        row = Roll(campaign_id=campaign.id,
                   match_id=match_ids[roll.match] if roll.match is not None else None,
                   user_id=_user_id(users, roll.user),
                   character_id=character_ids.get(roll.character.strip())
                   if roll.character else None,
                   visibility=roll.visibility, purpose=roll.purpose,
                   expression=roll.expression, record=record,
                   corrects_id=ids[roll.corrects] if roll.corrects is not None else None,
                   signature="", created_at=_utc(roll.created_at))
        db.add(row)
        db.flush()  # the id is part of what is signed
        row.signature = roll_log.sign(secret, roll_log.entry_dict(row))
        ids[roll.ref] = row.id
    return ids


def _add_events(db: Session, matches: list[MatchDoc], match_ids: list[int],
                users: dict[str, User], roll_ids: dict[int, int]) -> None:
    for match, match_id in zip(matches, match_ids, strict=True):
        db.add_all(MatchEvent(match_id=match_id, seq=event.seq, kind=event.kind,
                              payload=_relink_rolls(event.payload, roll_ids),
                              actor_id=_user_id(users, event.actor),
                              visibility=event.visibility, reverted=event.reverted,
                              created_at=_utc(event.created_at))
                   for event in match.events)


def _utc(moment: datetime) -> datetime:
    """As the database gives it back (UTC), so a signature made now still verifies later."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
