"""The campaign's chat: messages to the table, whispers to the GM or to one member, and
inline rolls (``/r 4d6kh3 # Perception``) through the signed roll log.

Who reads what (decided in ``docs/live.md`` § Chat):

- ``table``: every member of the campaign, spectators included;
- ``gm``: its sender and the campaign's GM;
- ``member``: its sender and its recipient — nobody else, not even the GM: a whisper between
  two players is theirs.

A message a viewer may not read is never read for them: ``messages_for`` filters in the
query itself, so neither a page, the API nor a live stream can carry it.

An inline roll is a ``Roll`` of the campaign's log, signed like any other, whose visibility
follows the message's audience: ``public`` at the table, ``self`` (the roller and the GM)
for a player's whisper, ``gm`` for the GM's. A roll in a whisper between two members is
theirs alone, as the whisper is: the roll log reads its message to know (``rolls.whispers``)
and shows everyone else, the GM included, only that a roll was made. The message carries the
result to its own readers; the roll log shows it to the roll's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_, func, or_, select
from sqlalchemy.orm import Session

from app.db import write_transaction
from app.errors import ValidationFailed
from app.i18n import lazy_gettext as _l
from app.models import ChatMessage, Match, Membership, Role, User
from app.rules.dice import Dice, RollRecord
from app.services import validation
from app.services.access import CampaignAccess
from app.services.rolls import record_rolls, roll_typed

MAX_BODY = 1000
PAGE_SIZE = 50
MAX_PAGE = 200
AUDIENCES = ("table", "gm", "member")
ROLL_PREFIXES = ("/r ", "/roll ")


def channel(campaign_id: int) -> str:
    """The broker channel that wakes a campaign's chat streams (a notification only)."""
    return f"chat:{campaign_id}"


@dataclass(frozen=True)
class Recipient:
    """Who a message goes to: ``table``, ``gm``, or ``member`` with a user id."""

    audience: str
    user_id: int | None = None


def parse_recipient(value: object) -> Recipient:
    """``"table"`` (or empty), ``"gm"``, or a member's user id (a number, or its text)."""
    if value is None or value == "" or value == "table":
        return Recipient("table")
    if value == "gm":
        return Recipient("gm")
    if isinstance(value, bool):
        value = None
    if isinstance(value, str) and value.isascii() and value.isdigit():
        value = int(value)
    if isinstance(value, int) and 0 < value < 2**31:
        return Recipient("member", value)
    raise ValidationFailed(_l("Choose who reads the message: the table, the GM or one member."),
                           field="to", code="bad_recipient")


def roll_expression(body: str) -> str | None:
    """The dice expression of an inline roll (``/r 2d6+1 # dégâts``), or None."""
    lowered = body.lower()
    for prefix in ROLL_PREFIXES:
        if lowered.startswith(prefix):
            return body[len(prefix):].strip()
    if lowered in ("/r", "/roll"):
        return ""
    return None


def _roll_visibility(recipient: Recipient, *, is_gm: bool) -> str:
    if recipient.audience == "table":
        return "public"
    return "gm" if is_gm else "self"


def send(*, db: Session, secret: str, access: CampaignAccess, body: object, to: object = None,
         match_id: object = None, dice: Dice) -> ChatMessage:
    """Post a message (or an inline roll) as this member; nothing is stored if it is refused.

    Spectators talk but do not roll (the roll log's rule); an archived campaign is read-only.
    """
    access.require_writable()
    recipient = parse_recipient(to)
    if not isinstance(body, str) or not body.strip():
        raise ValidationFailed(_l("Write a message."), field="body", code="empty_message")
    text = body.strip()
    if len(text) > MAX_BODY:
        raise ValidationFailed(_l("A message has at most %(n)s characters.", n=MAX_BODY),
                               field="body", code="message_too_long")
    validation.policed(text, field="body", multiline=True, required=True)
    match = _match_of(db, access, match_id)
    if recipient.audience == "member":
        _check_member(db, access, recipient.user_id)
    record = _inline_roll(access, text, dice)
    with write_transaction(db):
        roll = None
        if record is not None:
            (roll,) = record_rolls(db=db, secret=secret, campaign_id=access.campaign.id,
                                   user_id=access.user.id, records=[record.to_dict()],
                                   match_id=match.id if match else None,
                                   visibility=_roll_visibility(recipient,
                                                               is_gm=access.is_gm))
        message = ChatMessage(campaign_id=access.campaign.id,
                              match_id=match.id if match else None, user_id=access.user.id,
                              audience=recipient.audience, recipient_id=recipient.user_id,
                              body=text, roll_id=roll.id if roll else None)
        db.add(message)
        db.flush()
    return message


def _inline_roll(access: CampaignAccess, text: str, dice: Dice) -> RollRecord | None:
    """The roll of a ``/r`` message (None for a plain message), rolled as the free roller
    rolls (``rolls.roll_typed``: the campaign's dice cap included); a refusal names the
    message's ``body``, its position counted in the message."""
    expression = roll_expression(text)
    if expression is None:
        return None
    if access.role is Role.SPECTATOR:
        raise ValidationFailed(_l("Spectators do not roll dice."), field="body",
                               code="spectators_do_not_roll")
    if not expression:
        raise ValidationFailed(_l("Write a dice expression after /r, for example "
                                  "/r 2d6+1 # damage."), field="body", code="bad_expression")
    try:
        return roll_typed(expression, access=access, dice=dice)
    except ValidationFailed as failure:
        details = dict(failure.details)
        if isinstance(details.get("position"), int):  # a position in the message
            details["position"] += text.find(expression, 2)
        raise ValidationFailed(failure.message, field="body", code=failure.code,
                               details=details) from failure


def _match_of(db: Session, access: CampaignAccess, match_id: object) -> Match | None:
    if match_id in (None, ""):
        return None
    if isinstance(match_id, str) and match_id.isascii() and match_id.isdigit():
        match_id = int(match_id)
    match = db.get(Match, match_id) if isinstance(match_id, int) and not isinstance(
        match_id, bool) and 0 < match_id < 2**31 else None
    if match is None or match.campaign_id != access.campaign.id:
        raise ValidationFailed(_l("This match is not one of the campaign's."),
                               field="match_id", code="bad_match")
    return match


def _check_member(db: Session, access: CampaignAccess, user_id: int | None) -> None:
    if user_id == access.user.id:
        raise ValidationFailed(_l("Whisper to someone else than yourself."), field="to",
                               code="bad_recipient")
    member = db.scalar(select(Membership.id).where(Membership.campaign_id == access.campaign.id,
                                                   Membership.user_id == user_id))
    if member is None:
        raise ValidationFailed(_l("Choose who reads the message: the table, the GM or one "
                                  "member."), field="to", code="bad_recipient")


# — reading ————————————————————————————————————————————————————————————————————

def readable_by(*, user_id: int, is_gm: bool):
    """The SQL condition for the messages this viewer may read (see the module docstring)."""
    conditions = [ChatMessage.audience == "table", ChatMessage.user_id == user_id,
                  and_(ChatMessage.audience == "member", ChatMessage.recipient_id == user_id)]
    if is_gm:
        conditions.append(ChatMessage.audience == "gm")
    return or_(*conditions)


def may_read(message: ChatMessage, *, user_id: int, is_gm: bool) -> bool:
    """The same rule as ``readable_by``, for a message already loaded."""
    return (message.audience == "table" or message.user_id == user_id
            or (message.audience == "gm" and is_gm)
            or (message.audience == "member" and message.recipient_id == user_id))


@dataclass(frozen=True)
class ChatPage:
    messages: list[ChatMessage]  # oldest first
    has_more: bool = False


def messages_for(*, db: Session, campaign_id: int, user_id: int, is_gm: bool,
                 before_id: int | None = None, after_id: int | None = None,
                 limit: int = PAGE_SIZE) -> ChatPage:
    """The messages this viewer may read, oldest first: the newest page (before
    ``before_id``), or the ones after ``after_id``; ``has_more`` says whether more remain
    past the page (older, resp. newer)."""
    limit = max(1, min(limit, MAX_PAGE))
    query = select(ChatMessage).where(ChatMessage.campaign_id == campaign_id,
                                      readable_by(user_id=user_id, is_gm=is_gm))
    if after_id is not None:
        rows = list(db.scalars(query.where(ChatMessage.id > after_id)
                               .order_by(ChatMessage.id).limit(limit + 1)).unique())
        return ChatPage(rows[:limit], len(rows) > limit)
    if before_id is not None:
        query = query.where(ChatMessage.id < before_id)
    rows = list(db.scalars(query.order_by(ChatMessage.id.desc()).limit(limit + 1)).unique())
    return ChatPage(list(reversed(rows[:limit])), len(rows) > limit)


def page_for(*, db: Session, access: CampaignAccess, **kwargs: Any) -> ChatPage:
    return messages_for(db=db, campaign_id=access.campaign.id, user_id=access.user.id,
                        is_gm=access.is_gm, **kwargs)


def newest_id(*, db: Session, campaign_id: int) -> int:
    """The campaign's newest message id (every message, read or not: a stream position)."""
    return db.scalar(select(func.max(ChatMessage.id))
                     .where(ChatMessage.campaign_id == campaign_id)) or 0


@dataclass(frozen=True)
class Addressee:
    """A choice of the form's "To" list."""

    value: str
    label: str


def addressees(*, db: Session, access: CampaignAccess) -> list[Addressee]:
    """The table, the GM (for players and spectators), then every other member by name."""
    choices = [Addressee("table", str(_l("The whole table")))]
    if not access.is_gm:
        choices.append(Addressee("gm", str(_l("The GM only"))))
    rows = db.execute(select(User.id, User.display_name, Membership.role)
                      .join(Membership, Membership.user_id == User.id)
                      .where(Membership.campaign_id == access.campaign.id,
                             User.id != access.user.id)
                      .order_by(User.display_name, User.id)).all()
    for user_id, name, role in rows:
        if role is Role.GM:
            continue  # "the GM only" says it
        choices.append(Addressee(str(user_id), str(_l("%(name)s only", name=name))))
    return choices


def sender_name(message: ChatMessage) -> str:
    if message.user:
        return message.user.display_name
    if message.imported and message.imported.get("user"):
        return str(message.imported["user"])  # as its campaign file said
    return str(_l("a former member"))


def audience_label(message: ChatMessage, *, viewer_id: int) -> str | None:
    """Who else reads a whisper, said to its reader; None for a message to the table."""
    if message.audience == "table":
        return None
    if message.imported and message.imported.get("recipient"):
        return str(_l("to %(name)s", name=message.imported["recipient"]))
    if message.audience == "gm":
        return str(_l("to the GM"))
    if message.recipient_id == viewer_id:
        return str(_l("to you"))
    name = message.recipient.display_name if message.recipient else str(_l("a former member"))
    return str(_l("to %(name)s", name=name))


def public_message(message: ChatMessage, *, viewer_id: int) -> dict[str, Any]:
    """A message as the API gives it (only ever to a viewer who may read it)."""
    roll = message.roll
    return {"id": message.id, "campaign_id": message.campaign_id,
            "match_id": message.match_id, "user_id": message.user_id,
            "user_name": sender_name(message), "audience": message.audience,
            "recipient_id": message.recipient_id,
            "to": audience_label(message, viewer_id=viewer_id),
            "body": message.body, "created_at": message.created_at.isoformat(),
            "roll": None if roll is None else {
                "id": roll.id, "expression": roll.expression, "purpose": roll.purpose,
                "visibility": roll.visibility, "total": roll.record.get("total"),
                "record": roll.record}}
