"""Invitations: a GM makes a link; whoever holds it joins the campaign with its role.

The token is the only secret (192 random bits). An invitation is usable until it expires,
is revoked or has been used ``max_uses`` times; accepting re-checks all three under the
write lock, so two people racing for a single-use link cannot both get in.
"""

from __future__ import annotations

import enum
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.db import write_transaction
from app.errors import AppError, CampaignArchived, NotFound, ValidationFailed
from app.i18n import lazy_gettext as _l
from app.models import Campaign, Invite, Membership, Role, User, utcnow
from app.services.campaigns import load_for_write
from app.services.members import parse_role

TOKEN_BYTES = 24
TOKEN_MAX = 64
MAX_USES_LIMIT = 1000
# The lifetimes a GM chooses from; the key is what forms and the API send.
EXPIRY_CHOICES: dict[str, timedelta] = {
    "1h": timedelta(hours=1),
    "1d": timedelta(days=1),
    "7d": timedelta(days=7),
    "30d": timedelta(days=30),
}
DEFAULT_EXPIRY = "7d"


class InviteStatus(enum.StrEnum):
    ACTIVE = "active"
    EXPIRED = "expired"
    REVOKED = "revoked"
    USED_UP = "used_up"


class InviteGone(AppError):
    """The link existed but can no longer be used (410: asking again will not help)."""

    status = 410
    code = "invite_gone"


_GONE_MESSAGES = {
    InviteStatus.EXPIRED: _l("This invitation has expired. Ask the GM for a new link."),
    InviteStatus.REVOKED: _l("This invitation was revoked by the GM."),
    InviteStatus.USED_UP: _l("This invitation has already been used. "
                             "Ask the GM for a new link."),
}


def invite_status(invite: Invite, now: datetime | None = None) -> InviteStatus:
    if invite.revoked_at is not None:
        return InviteStatus.REVOKED
    if invite.expires_at <= (now or utcnow()):
        return InviteStatus.EXPIRED
    if invite.max_uses is not None and invite.uses >= invite.max_uses:
        return InviteStatus.USED_UP
    return InviteStatus.ACTIVE


def gone_error(status: InviteStatus) -> InviteGone:
    return InviteGone(_GONE_MESSAGES[status], code=f"invite_{status.value}")


def check_expiry(value: object) -> timedelta:
    if not isinstance(value, str) or value not in EXPIRY_CHOICES:
        raise ValidationFailed(_l("Choose one of the offered durations."), field="expires_in")
    return EXPIRY_CHOICES[value]


def check_max_uses(value: object) -> int | None:
    """``None`` (or an empty form field) for no limit, else 1 to ``MAX_USES_LIMIT``."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, str) and value.strip().isdigit() and len(value.strip()) <= 6:
        value = int(value.strip())
    if not isinstance(value, int) or isinstance(value, bool) \
            or not 1 <= value <= MAX_USES_LIMIT:
        raise ValidationFailed(
            _l("A whole number from 1 to %(n)s, or empty for no limit.", n=MAX_USES_LIMIT),
            field="max_uses")
    return value


def create_invite(*, db: Session, campaign_id: int, created_by: User, role: object,
                  expires_in: object = DEFAULT_EXPIRY, max_uses: object = 1) -> Invite:
    """A new invitation link for ``campaign_id`` (the caller has checked the GM role)."""
    invite_role = parse_role(role)
    lifetime = check_expiry(expires_in)
    uses_limit = check_max_uses(max_uses)
    with write_transaction(db):
        load_for_write(db, campaign_id)
        invite = Invite(campaign_id=campaign_id, token=secrets.token_urlsafe(TOKEN_BYTES),
                        role=invite_role, expires_at=utcnow() + lifetime,
                        max_uses=uses_limit, uses=0, created_by_id=created_by.id)
        db.add(invite)
    return invite


@dataclass(frozen=True)
class ListedInvite:
    invite: Invite
    status: InviteStatus


def list_invites(*, db: Session, campaign_id: int) -> list[ListedInvite]:
    """Every invitation of the campaign, newest first (used, expired and revoked too)."""
    now = utcnow()
    invites = db.scalars(select(Invite).where(Invite.campaign_id == campaign_id)
                         .order_by(Invite.created_at.desc(), Invite.id.desc()))
    return [ListedInvite(invite=invite, status=invite_status(invite, now))
            for invite in invites]


def revoke_invite(*, db: Session, campaign_id: int, invite_id: int) -> Invite:
    """Revoke an invitation of this campaign (again: nothing changes)."""
    with write_transaction(db):
        load_for_write(db, campaign_id)
        invite = db.get(Invite, invite_id, populate_existing=True)
        if invite is None or invite.campaign_id != campaign_id:
            raise NotFound()
        if invite.revoked_at is None:
            invite.revoked_at = utcnow()
    return invite


@dataclass(frozen=True)
class InvitePreview:
    invite: Invite
    campaign: Campaign
    status: InviteStatus
    # The viewer's membership when they already belong to the campaign.
    membership: Membership | None


def _unknown() -> NotFound:
    return NotFound(_l("This invitation link is not valid. Check that you copied all of it."))


def _by_token(db: Session, token: object, *, lock: bool = False) -> Invite:
    if not isinstance(token, str) or not 0 < len(token) <= TOKEN_MAX:
        raise _unknown()
    statement = select(Invite).where(Invite.token == token)
    invite = db.scalar(statement.with_for_update() if lock else statement)
    if invite is None:
        raise _unknown()
    return invite


def _membership(db: Session, campaign_id: int, user: User | None) -> Membership | None:
    if user is None:
        return None
    return db.scalar(select(Membership).where(Membership.campaign_id == campaign_id,
                                              Membership.user_id == user.id))


def usable_token(*, db: Session, token: object) -> bool:
    """Whether ``token`` is a live invitation (known, not expired, revoked or used up) to a
    campaign that can still be joined."""
    try:
        invite = _by_token(db, token)
    except NotFound:
        return False
    campaign = db.get(Campaign, invite.campaign_id)
    return (campaign is not None and not campaign.archived
            and invite_status(invite) is InviteStatus.ACTIVE)


def preview_invite(*, db: Session, token: object, user: User | None = None) -> InvitePreview:
    """What the link offers (campaign, role) and whether it still works; 404 if unknown."""
    invite = _by_token(db, token)
    campaign = db.get(Campaign, invite.campaign_id)
    if campaign is None:
        raise _unknown()
    return InvitePreview(invite=invite, campaign=campaign, status=invite_status(invite),
                         membership=_membership(db, campaign.id, user))


@dataclass(frozen=True)
class Accepted:
    membership: Membership
    # True when the user was already in the campaign: nothing was changed.
    already_member: bool


def accept_invite(*, db: Session, token: object, user: User) -> Accepted:
    """Join the invitation's campaign with its role, counting one use.

    A member keeps their role (an invitation never demotes or promotes anyone) and uses
    nothing; expiry, revocation and the use count are checked under the write lock.
    """
    campaign_id: int | None = None
    try:
        with write_transaction(db):
            invite = _by_token(db, token, lock=True)
            campaign_id = invite.campaign_id
            existing = _membership(db, campaign_id, user)
            if existing is not None:
                return Accepted(membership=existing, already_member=True)
            status = invite_status(invite)
            if status is not InviteStatus.ACTIVE:
                raise gone_error(status)
            campaign = db.get(Campaign, invite.campaign_id, populate_existing=True)
            if campaign is None:
                raise _unknown()
            if campaign.archived:
                raise CampaignArchived()
            membership = Membership(campaign_id=campaign.id, user_id=user.id,
                                    role=Role(invite.role))
            db.add(membership)
            invite.uses += 1
            db.flush()
    except IntegrityError:  # the same person joined a moment ago (another tab)
        existing = _membership(db, campaign_id, user) if campaign_id else None
        if existing is None:
            raise
        return Accepted(membership=existing, already_member=True)
    return Accepted(membership=membership, already_member=False)
