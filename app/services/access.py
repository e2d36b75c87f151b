"""Who may touch a campaign: membership, role, and the archived flag."""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from app import telemetry
from app.errors import CampaignArchived, Forbidden, NotFound
from app.models import Campaign, Membership, Role, User


@dataclass
class CampaignAccess:
    campaign: Campaign
    membership: Membership
    user: User
    # Kept as a plain int: a write transaction starts with a rollback that expires the
    # ORM objects, and reading ``campaign.id`` then would cost a SELECT.
    campaign_id: int = field(init=False)

    def __post_init__(self) -> None:
        self.campaign_id = self.campaign.id

    @property
    def role(self) -> Role:
        return self.membership.role

    @property
    def is_gm(self) -> bool:
        return self.role is Role.GM

    def require_gm(self) -> CampaignAccess:
        if not self.is_gm:
            raise Forbidden()
        return self

    def require_player_or_gm(self) -> CampaignAccess:
        if self.role is Role.SPECTATOR:
            raise Forbidden()
        return self

    def require_writable(self) -> CampaignAccess:
        if self.campaign.archived:
            raise CampaignArchived()
        return self


# Built once: most requests run it (building a statement costs more than running it).
_ACCESS = (select(Campaign, Membership)
           .join(Membership, Membership.campaign_id == Campaign.id)
           .where(Campaign.id == bindparam("campaign_id"),
                  Membership.user_id == bindparam("user_id"),
                  Campaign.importing.is_(False)))  # an import in progress is not there yet


def load_campaign_access(db: Session, user: User, campaign_id: int) -> CampaignAccess:
    """The campaign as ``user`` may see it; 404 for anyone who is not a member."""
    row = db.execute(_ACCESS, {"campaign_id": campaign_id, "user_id": user.id}).first()
    if row is None:
        raise NotFound()
    telemetry.note(campaign=campaign_id)  # for the request's log line
    return CampaignAccess(campaign=row[0], membership=row[1], user=user)
