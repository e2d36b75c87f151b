"""The campaign export document: ``format: "tablee-campaign"``, ``version: 1``.

Strict Pydantic models: no unknown keys, no silent conversions ("3" is not 3, 0 is not
false). People are named by username, never by id; everything else that points somewhere
inside the document does so by position, so the file means the same on any instance:

- ``characters[].owner``, ``events[].actor``, ``rolls[].user``: usernames (null: nobody);
- ``rolls[].match``: index in ``matches`` (0-based; null: a free roll outside matches);
- ``rolls[].character``: a character's name in ``characters``;
- ``rolls[].ref``: 1, 2, 3… in order; ``rolls[].corrects`` and the ``roll_ids`` list in an
  event's payload (the table engine's link from an event to its signed rolls) use it;
- ``events[].seq``: 1, 2, 3… within its match; ``matches[].seq`` is the last one;
- ``characters[].id``: the character's id where the file was written. Events and states name
  characters by that id (``app.rules.platform_ids``), so the importer maps them to its new
  rows; member ids inside events mean nothing elsewhere and become nobody on import.

An importing instance trusts nothing in the file: it makes the importer the only member (the
others come back as ``former_members`` for the GM to invite), marks imported rolls and events
as imported (named as the file says, never linked to a local account), and rebuilds every
match's state by folding its events through the game's own rules, refusing a file whose
snapshot disagrees with its log (``app.services.transfer_checks``).

Roll signatures are not exported: they sign the instance's own ids with its own secret, so
they cannot survive a move. The importing instance signs what it stores (see
``app.services.transfer``); the signed roll-log export stays the tamper-evident record.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from app.services.campaigns import DESCRIPTION_MAX, NAME_MAX
from app.services.characters import NAME_MAX as CHARACTER_NAME_MAX
from app.services.characters import NOTES_MAX
from app.services.dice_cap import MAX_DICE_CAP

FORMAT = "tablee-campaign"
VERSION = 1  # the version this Tablée writes
VERSIONS = (VERSION,)  # the versions it reads
MATCH_NAME_MAX = 120
ROLL_TEXT_MAX = 200
CHAT_BODY_MAX = 1000  # app.services.chat.MAX_BODY
# Base64 text of the largest portrait any instance could accept; the real limit is
# ``settings.max_portrait_bytes``, checked on the decoded bytes.
PORTRAIT_TEXT_MAX = 20 * 1024 * 1024

Visibility = Literal["public", "gm", "self"]
# ISO 8601 text in the file: the one place where a string becomes another type.
def _iso_text(value: object) -> object:
    """A timestamp in a document is ISO 8601 text (a number is not a date)."""
    if not isinstance(value, str | datetime):
        raise ValueError("a timestamp is an ISO 8601 string")
    return value


Timestamp = Annotated[datetime, BeforeValidator(_iso_text), Field(strict=False)]
Username = Annotated[str, Field(min_length=1, max_length=40)]


class Doc(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class CampaignDoc(Doc):
    name: str = Field(max_length=NAME_MAX)
    description: str = Field(max_length=DESCRIPTION_MAX)
    system: str = Field(max_length=32)
    archived: bool
    # The GM's cap on dice per roll; null (or absent, in files written before it) is the
    # default (app/services/dice_cap.py).
    dice_cap: int | None = Field(default=None, ge=1, le=MAX_DICE_CAP)


class MemberDoc(Doc):
    username: Username
    display_name: str = Field(max_length=80)
    role: Literal["gm", "player", "spectator"]


class PortraitDoc(Doc):
    content_type: str = Field(max_length=32)
    data: str = Field(max_length=PORTRAIT_TEXT_MAX, description="the image file, base64")


class ImageDoc(Doc):
    """A map picture a match put under its board (a ``board_background`` event names it)."""

    id: int = Field(ge=1, le=2_147_483_647,
                    description="its id where the file was written (events use it)")
    content_type: str = Field(max_length=32)
    data: str = Field(max_length=PORTRAIT_TEXT_MAX, description="the image file, base64")


class CharacterDoc(Doc):
    id: int | None = Field(default=None, ge=1, le=2_147_483_647,
                           description="its id where the file was written (events use it)")
    name: str = Field(max_length=CHARACTER_NAME_MAX)
    owner: Username | None = Field(description="the player's username; null for an NPC")
    notes: str = Field(max_length=NOTES_MAX)
    sheet: dict[str, Any]
    portrait: PortraitDoc | None


class ContentDoc(Doc):
    """One of the GM's custom content items (``kind``: one of the system's content kinds)."""

    kind: str = Field(min_length=1, max_length=40)
    key: str = Field(pattern=r"^gm-[a-z0-9-]{1,60}$")
    name: str = Field(max_length=CHARACTER_NAME_MAX)
    data: dict[str, Any]


class EventDoc(Doc):
    seq: int = Field(ge=1)
    kind: str = Field(min_length=1, max_length=48)
    payload: dict[str, Any]
    actor: Username | None
    visibility: Literal["public", "gm", "self", "quiet"]
    reverted: bool
    created_at: Timestamp


class MatchDoc(Doc):
    name: str = Field(max_length=MATCH_NAME_MAX)
    system: str = Field(max_length=32)
    status: str = Field(min_length=1, max_length=16)
    state: dict[str, Any]
    seq: int = Field(ge=0)
    events: list[EventDoc] = Field(max_length=200_000)


class RollDoc(Doc):
    """One entry of the campaign's roll log (free rolls, match rolls, GM corrections)."""

    ref: int = Field(ge=1)
    match: int | None = Field(ge=0)
    user: Username | None
    character: str | None = Field(max_length=CHARACTER_NAME_MAX)
    visibility: Visibility
    purpose: str = Field(max_length=ROLL_TEXT_MAX)
    expression: str = Field(min_length=1, max_length=ROLL_TEXT_MAX)
    record: dict[str, Any] = Field(description="the RollRecord: every die, the total…")
    corrects: int | None = Field(ge=1, description="ref of the entry this one corrects")
    original_user: Username | None = Field(
        description="for a correction: who rolled the original")
    created_at: Timestamp


class ChatDoc(Doc):
    """One chat message. A file carries what its GM could read: the table's messages, the
    whispers to or from the GM; two players' whispers stay theirs and are not exported."""

    user: Username | None = Field(description="who wrote it; null for a former member")
    audience: Literal["table", "gm", "member"]
    recipient: Username | None = Field(description="for a whisper to a member: who")
    body: str = Field(min_length=1, max_length=CHAT_BODY_MAX)
    match: int | None = Field(ge=0, description="index of the match it was said at")
    roll: int | None = Field(ge=1, description="ref of its inline roll in ``rolls``")
    created_at: Timestamp


class CampaignExport(Doc):
    """A whole campaign, as written by ``GET /campaigns/{id}/export``."""

    format: Literal["tablee-campaign"]
    version: Literal[1]
    exported_at: Timestamp
    campaign: CampaignDoc
    members: list[MemberDoc] = Field(max_length=1000)
    content: list[ContentDoc] = Field(default=[], max_length=500)
    characters: list[CharacterDoc] = Field(max_length=2000)
    matches: list[MatchDoc] = Field(max_length=2000)
    rolls: list[RollDoc] = Field(max_length=500_000)
    chat: list[ChatDoc] = Field(default=[], max_length=500_000)
    images: list[ImageDoc] = Field(default=[], max_length=500)
