"""Campaigns: create, list, edit, archive, delete.

Routes authorise (``access.require_gm()``…) before calling these; the services re-read the
campaign inside their write transaction, so a campaign archived or edited a moment ago is
seen as it is now, not as the route's read snapshot remembered it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session
from sqlalchemy.orm.exc import StaleDataError

from app.db import write_transaction
from app.errors import CampaignArchived, Conflict, NotFound, StaleVersion, ValidationFailed
from app.i18n import lazy_gettext as _l
from app.models import Campaign, Membership, Role, User, utcnow
from app.rules.registry import get_system
from app.services import validation
from app.services.dice_cap import check_cap

NAME_MAX = 120
DESCRIPTION_MAX = 5000


def check_system(system: object) -> str:
    if not isinstance(system, str) or get_system(system) is None:
        raise ValidationFailed(_l("Unknown game system."), field="system")
    return system


def check_version(value: object) -> int:
    """The version an edit was based on: a whole number, as typed in a hidden field."""
    if isinstance(value, bool):
        value = None
    if isinstance(value, str) and value.strip().isdigit() and len(value.strip()) <= 12:
        value = int(value.strip())
    if not isinstance(value, int) or value < 0:
        raise ValidationFailed(_l("The version of this form is missing or invalid. "
                                  "Reload the page and try again."), field="version")
    return value


def load_for_write(db: Session, campaign_id: int, *, lock: bool = False) -> Campaign:
    """The campaign as it is now, inside a write transaction; archived ones refuse writes."""
    campaign = db.get(Campaign, campaign_id, populate_existing=True, with_for_update=lock)
    if campaign is None:
        raise NotFound()
    if campaign.archived:
        raise CampaignArchived()
    return campaign


def create_campaign(*, db: Session, user: User, name: object, description: object = "",
                    system: object) -> Campaign:
    """A new campaign, with its creator as GM."""
    cleaned_name = validation.text(name, field="name", max_length=NAME_MAX)
    cleaned_description = validation.text(description, field="description",
                                          max_length=DESCRIPTION_MAX, required=False,
                                          multiline=True)
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
        .where(Membership.user_id == user.id, Campaign.importing.is_(False))
        .order_by(Campaign.archived_at.is_not(None), Campaign.created_at.desc())
    ).all()
    return [MyCampaign(campaign=row[0], role=row[1]) for row in rows]


def editable_values(campaign: Campaign) -> dict[str, Any]:
    """What a stale editor is shown: the values someone else saved, and their version."""
    return {"name": campaign.name, "description": campaign.description,
            "version": campaign.version}


def set_dice_cap(*, db: Session, campaign: Campaign, dice_cap: object) -> Campaign:
    """The GM's cap on dice per roll (``None``: the default), checked as the edit page does;
    whatever the campaign's version (the cap is one value: the last word wins)."""
    value = None if dice_cap is None else check_cap(dice_cap)
    with write_transaction(db):
        current = load_for_write(db, campaign.id)
        current.dice_cap = value
        db.flush()
    return current


def update_campaign(*, db: Session, campaign: Campaign, version: object,
                    name: object | None = None,
                    description: object | None = None,
                    dice_cap: object | None = None) -> Campaign:
    """Save an edit based on ``version``; a stale one is refused with the current values.

    ``None`` leaves a field as it is. ``version_id_col`` makes the UPDATE itself check the
    version too, so two saves racing past the first check cannot both win.
    """
    campaign_id = campaign.id
    expected = check_version(version)
    changes: dict[str, Any] = {}
    if dice_cap is not None:  # blank: back to the default (app/services/dice_cap.py)
        changes["dice_cap"] = check_cap(dice_cap)
    if name is not None:
        changes["name"] = validation.text(name, field="name", max_length=NAME_MAX)
    if description is not None:
        changes["description"] = validation.text(description, field="description",
                                                 max_length=DESCRIPTION_MAX, required=False,
                                                 multiline=True)
    try:
        with write_transaction(db):
            current = load_for_write(db, campaign_id)
            if current.version != expected:
                raise StaleVersion(current=editable_values(current))
            for key, value in changes.items():
                setattr(current, key, value)
            db.flush()
    except StaleDataError:
        fresh = db.get(Campaign, campaign_id, populate_existing=True)
        if fresh is None:
            raise NotFound() from None
        raise StaleVersion(current=editable_values(fresh)) from None
    return current


def set_archived(*, db: Session, campaign: Campaign, archived: bool) -> Campaign:
    """Archive (read-only for everyone) or bring back; doing it twice changes nothing."""
    campaign_id = campaign.id
    with write_transaction(db):
        current = db.get(Campaign, campaign_id, populate_existing=True, with_for_update=True)
        if current is None:
            raise NotFound()
        if archived and current.archived_at is None:
            current.archived_at = utcnow()
        elif not archived and current.archived_at is not None:
            current.archived_at = None
    return current


def delete_campaign(*, db: Session, campaign: Campaign, confirm_name: object) -> None:
    """Delete a campaign and everything in it, once its exact name has been typed.

    Allowed on archived campaigns too: archiving protects the content from edits, and
    deleting is the GM's deliberate, confirmed choice.
    """
    campaign_id = campaign.id
    typed = confirm_name.strip() if isinstance(confirm_name, str) else None
    with write_transaction(db):
        current = db.get(Campaign, campaign_id, populate_existing=True)
        if current is None:
            raise NotFound()
        if typed != current.name:
            # 409, not 422: the text is well formed, it just does not match the campaign.
            raise Conflict(_l("Type the campaign's exact name to delete it."),
                           field="confirm_name", code="confirmation_mismatch")
        # Members, invites, characters and matches go with it (ON DELETE CASCADE).
        db.delete(current)
