"""Members of a campaign: list, change role, remove or leave, hand over the GM role.

A campaign always has exactly one GM: the GM can be neither removed nor demoted, and
leaves the role only by handing it to another member, in one transaction. Every change of
role or membership first locks the campaign's row, so two of them on one campaign run one
after the other (a role change cannot demote someone who has just become GM).
"""

from __future__ import annotations

from sqlalchemy import case, select, update
from sqlalchemy.orm import Session

from app.db import write_transaction
from app.errors import Conflict, NotFound, ValidationFailed
from app.i18n import lazy_gettext as _l
from app.models import Character, Membership, Role, User
from app.services.campaigns import load_for_write

# The roles a GM may give; the GM role itself only moves through ``hand_over_gm``.
ASSIGNABLE_ROLES = (Role.PLAYER, Role.SPECTATOR)
_ROLE_ORDER = case({Role.GM: 0, Role.PLAYER: 1}, value=Membership.role, else_=2)


def parse_role(value: object, *, field: str = "role") -> Role:
    """``player`` or ``spectator``, as typed in a form or sent as JSON."""
    for role in ASSIGNABLE_ROLES:
        if value == role.value:
            return role
    raise ValidationFailed(_l("Choose player or spectator."), field=field)


def list_members(*, db: Session, campaign_id: int) -> list[Membership]:
    """The GM first, then players, then spectators, each by name."""
    return list(db.scalars(
        select(Membership).join(User, User.id == Membership.user_id)
        .where(Membership.campaign_id == campaign_id)
        .order_by(_ROLE_ORDER, User.display_name, User.id)
    ))


def _member_of(db: Session, campaign_id: int, membership_id: int) -> Membership:
    """A membership of this campaign, or 404 (another campaign's ids are not visible)."""
    membership = db.get(Membership, membership_id, populate_existing=True)
    if membership is None or membership.campaign_id != campaign_id:
        raise NotFound()
    return membership


def _refuse_gm(membership: Membership) -> None:
    if membership.role is Role.GM:
        raise Conflict(_l("The GM keeps the role until handing it to another member."),
                       code="gm_role", field="membership_id")


def change_role(*, db: Session, campaign_id: int, membership_id: int,
                role: object) -> Membership:
    """Make a member a player or a spectator (never the GM: see ``hand_over_gm``)."""
    new_role = parse_role(role)
    with write_transaction(db):
        load_for_write(db, campaign_id, lock=True)
        membership = _member_of(db, campaign_id, membership_id)
        _refuse_gm(membership)
        membership.role = new_role
    return membership


def remove_member(*, db: Session, campaign_id: int, membership_id: int) -> None:
    """Remove a member (or let a member leave); never the GM.

    Their characters in this campaign become non-player characters, run by the GM: a
    former member keeps no hold on the campaign, and the GM can hand them to someone else.
    """
    with write_transaction(db):
        load_for_write(db, campaign_id, lock=True)
        membership = _member_of(db, campaign_id, membership_id)
        _refuse_gm(membership)
        db.execute(
            update(Character)
            .where(Character.campaign_id == campaign_id,
                   Character.owner_id == membership.user_id)
            # A new version: an edit opened before the change must not overwrite it.
            .values(owner_id=None, version=Character.version + 1)
            .execution_options(synchronize_session=False)
        )
        db.delete(membership)


def hand_over_gm(*, db: Session, campaign_id: int, membership_id: int) -> Membership:
    """Make another member the GM; the old GM becomes a player. Returns the new GM."""
    with write_transaction(db):
        load_for_write(db, campaign_id, lock=True)
        target = _member_of(db, campaign_id, membership_id)
        if target.role is Role.GM:
            raise Conflict(_l("This member is already the GM."), field="membership_id",
                           code="already_gm")
        for old_gm in db.scalars(select(Membership).where(
                Membership.campaign_id == campaign_id, Membership.role == Role.GM)):
            old_gm.role = Role.PLAYER
        target.role = Role.GM
    return target
