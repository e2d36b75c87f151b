"""API: campaigns (list, create, read, edit with a version, archive, delete)."""

from __future__ import annotations

import enum
from datetime import datetime
from typing import Annotated, Any

from fastapi import Query, Response
from pydantic import Field

from app.api.schemas import Model, error_responses, text
from app.http.deps import CurrentUser, DbSession, MemberAccess, api_router
from app.models import Campaign, Role
from app.rules.registry import all_systems
from app.services import campaigns, dice_cap, matches

router = api_router("campaigns")

# Ids are 32-bit integers on every backend (PostgreSQL's ``integer``).
MAX_ID = 2_147_483_647
# A generous cap on free-text inputs whose service gives the precise limit (used by
# other API modules, e.g. match names).
NAME_INPUT_MAX = 500
# The registered game systems, as an enum in the schema (unknown keys get 422).
SystemKey = enum.StrEnum("SystemKey", {system.key: system.key for system in all_systems()})

# The schema says exactly what the services accept (``schemas.text``), so a client (or
# schemathesis) can tell a well-formed request from the start.
CampaignName = Annotated[str, text(max_length=campaigns.NAME_MAX)]
Description = Annotated[str, text(max_length=campaigns.DESCRIPTION_MAX, required=False,
                                  multiline=True)]


class CampaignIn(Model):
    name: CampaignName
    description: Description = ""
    system: SystemKey = Field(description="A key from ``GET /api/v1/systems``.")


class CampaignPatch(Model):
    version: int = Field(ge=0, le=MAX_ID,
                         description="The ``version`` this edit is based on; 409 if stale.")
    name: CampaignName | None = None
    description: Description | None = None


class CampaignOut(Model):
    id: int
    name: str
    description: str
    system: str
    archived: bool
    archived_at: datetime | None
    version: int
    created_at: datetime
    updated_at: datetime
    role: Role = Field(description="Your role in this campaign.")


def campaign_out(campaign: Campaign, role: Role) -> CampaignOut:
    return CampaignOut(id=campaign.id, name=campaign.name, description=campaign.description,
                       system=campaign.system, archived=campaign.archived,
                       archived_at=campaign.archived_at, version=campaign.version,
                       created_at=campaign.created_at, updated_at=campaign.updated_at,
                       role=role)


@router.get("/campaigns", response_model=list[CampaignOut], responses=error_responses())
def list_campaigns(db: DbSession, user: CurrentUser) -> list[CampaignOut]:
    """The campaigns you belong to, with your role in each (archived ones last)."""
    return [campaign_out(item.campaign, item.role)
            for item in campaigns.my_campaigns(db=db, user=user)]


@router.post("/campaigns", status_code=201, response_model=CampaignOut,
             responses=error_responses(400))
def create_campaign(body: CampaignIn, db: DbSession, user: CurrentUser) -> CampaignOut:
    """Create a campaign; you are its GM. An unknown ``system`` is refused (422)."""
    campaign = campaigns.create_campaign(db=db, user=user, name=body.name,
                                         description=body.description,
                                         system=body.system.value)
    return campaign_out(campaign, Role.GM)


@router.get("/campaigns/{campaign_id:int}", response_model=CampaignOut,
            responses=error_responses(404))
def get_campaign(access: MemberAccess) -> CampaignOut:
    return campaign_out(access.campaign, access.role)


class SummaryOut(Model):
    system: str
    summary: dict[str, Any] | None = Field(description=(
        "The game's own summary of the campaign (Mecha-Ring: ``standings`` summed over its "
        "tournaments and ``tournaments``, each with its ``match_id``, winner, champion and "
        "each team's victory points, fights won and crédits); null for a game without one."))


@router.get("/campaigns/{campaign_id:int}/summary", response_model=SummaryOut,
            responses=error_responses(404))
def campaign_summary(db: DbSession, access: MemberAccess) -> SummaryOut:
    """What the campaign page's game panel shows (standings, history…), for every member."""
    return SummaryOut(system=access.campaign.system,
                      summary=matches.campaign_summary(db=db, access=access))


@router.patch("/campaigns/{campaign_id:int}", response_model=CampaignOut,
              responses=error_responses(400, 404, 409))
def update_campaign(body: CampaignPatch, db: DbSession, access: MemberAccess) -> CampaignOut:
    """Edit name and description (GM). A stale ``version`` answers 409 with the current
    values in ``error.details.current``; an archived campaign answers 409 too."""
    access.require_gm().require_writable()
    campaign = campaigns.update_campaign(db=db, campaign=access.campaign, version=body.version,
                                         name=body.name, description=body.description)
    return campaign_out(campaign, access.role)


@router.delete("/campaigns/{campaign_id:int}", status_code=204,
               responses=error_responses(404, 409))
def delete_campaign(db: DbSession, access: MemberAccess,
                    confirm_name: Annotated[str, Query(
                        max_length=campaigns.NAME_MAX,
                        description="The campaign's exact name.")]) -> Response:
    """Delete the campaign and everything in it (GM), archived or not.

    ``confirm_name`` (a query parameter, so every client can send it with DELETE) must be
    the campaign's exact name, else 409 ``confirmation_mismatch`` and nothing is deleted.
    """
    access.require_gm()
    campaigns.delete_campaign(db=db, campaign=access.campaign, confirm_name=confirm_name)
    return Response(status_code=204)


@router.post("/campaigns/{campaign_id:int}/archive", response_model=CampaignOut,
             responses=error_responses(404))
def archive_campaign(db: DbSession, access: MemberAccess) -> CampaignOut:
    """Make the campaign read-only for everyone (GM); archiving twice changes nothing."""
    access.require_gm()
    return campaign_out(campaigns.set_archived(db=db, campaign=access.campaign, archived=True),
                        access.role)


@router.post("/campaigns/{campaign_id:int}/unarchive", response_model=CampaignOut,
             responses=error_responses(404))
def unarchive_campaign(db: DbSession, access: MemberAccess) -> CampaignOut:
    access.require_gm()
    return campaign_out(campaigns.set_archived(db=db, campaign=access.campaign,
                                               archived=False), access.role)


# — the dice cap ——————————————————————————————————————————————————————————————————

class DiceCapOut(Model):
    dice_cap: int = Field(description="At most this many dice in one roll or one action.")
    is_default: bool = Field(description="True when the GM has set none (the default).")
    default: int = Field(description="The cap of a campaign whose GM has set none.")
    maximum: int = Field(description="The highest cap a GM may set.")


class DiceCapIn(Model):
    dice_cap: int | None = Field(ge=1, le=dice_cap.MAX_DICE_CAP, description=(
        "The new cap, from 1 to the maximum; null goes back to the default."))


def _dice_cap_out(campaign: Campaign) -> DiceCapOut:
    return DiceCapOut(dice_cap=dice_cap.cap_of(campaign), is_default=campaign.dice_cap is None,
                      default=dice_cap.DEFAULT_DICE_CAP, maximum=dice_cap.MAX_DICE_CAP)


@router.get("/campaigns/{campaign_id:int}/dice-cap", response_model=DiceCapOut,
            responses=error_responses(404))
def get_dice_cap(access: MemberAccess) -> DiceCapOut:
    """The campaign's cap on the dice of one roll (GM, as the campaign's settings page)."""
    access.require_gm()
    return _dice_cap_out(access.campaign)


@router.put("/campaigns/{campaign_id:int}/dice-cap", response_model=DiceCapOut,
            responses=error_responses(404, 409))
def put_dice_cap(body: DiceCapIn, db: DbSession, access: MemberAccess) -> DiceCapOut:
    """Set the cap (GM; 409 on an archived campaign). Out of range: 422, nothing changes."""
    access.require_gm().require_writable()
    return _dice_cap_out(campaigns.set_dice_cap(db=db, campaign=access.campaign,
                                                dice_cap=body.dice_cap))
