"""Campaigns: create, list, edit, archive, delete."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.db import write_transaction
from app.errors import ValidationFailed
from app.i18n import lazy_gettext as _l
from app.models import Campaign, Membership, Role, User
from app.rules.registry import get_system
from app.services import validation

NAME_MAX = 120
DESCRIPTION_MAX = 5000


def check_system(system: object) -> str:
    if not isinstance(system, str) or get_system(system) is None:
        raise ValidationFailed(_l("Unknown game system."), field="system")
    return system


def create_campaign(*, db: Session, user: User, name: object, description: object = "",
                    system: object) -> Campaign:
    """A new campaign, with its creator as GM."""
    cleaned_name = validation.text(name, field="name", max_length=NAME_MAX)
    cleaned_description = validation.text(description, field="description",
                                          max_length=DESCRIPTION_MAX, required=False)
    key = check_system(system)
    with write_transaction(db):
        campaign = Campaign(name=cleaned_name, description=cleaned_description, system=key)
        db.add(campaign)
        db.flush()
        db.add(Membership(campaign_id=campaign.id, user_id=user.id, role=Role.GM))
    return campaign


@dataclass(frozen=True)
class MyCampaign:
    campaign: Campaign
    role: Role


def my_campaigns(*, db: Session, user: User) -> list[MyCampaign]:
    """The campaigns ``user`` belongs to, newest first, with their role in each."""
    rows = db.execute(
        select(Campaign, Membership.role)
        .join(Membership, Membership.campaign_id == Campaign.id)
        .where(Membership.user_id == user.id)
        .order_by(Campaign.archived_at.is_not(None), Campaign.created_at.desc())
    ).all()
    return [MyCampaign(campaign=row[0], role=row[1]) for row in rows]
