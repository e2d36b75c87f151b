"""API: a campaign's members (list, change role, remove or leave, hand over the GM role)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from fastapi import Path, Response
from pydantic import Field

from app.api.campaigns import MAX_ID
from app.api.schemas import Model, error_responses
from app.http.deps import DbSession, MemberAccess, api_router
from app.models import Membership, Role
from app.services import members

router = api_router("members")
MembershipId = Annotated[int, Path(ge=1, le=MAX_ID)]


class MemberOut(Model):
    id: int = Field(description="The membership id (used by the routes below).")
    user_id: int
    username: str
    display_name: str
    role: Role
    joined_at: datetime


class RoleIn(Model):
    role: Literal["player", "spectator"]


class HandOverIn(Model):
    membership_id: int = Field(ge=1, le=MAX_ID, description="The member who becomes GM.")


def member_out(membership: Membership) -> MemberOut:
    return MemberOut(id=membership.id, user_id=membership.user_id,
                     username=membership.user.username,
                     display_name=membership.user.display_name, role=membership.role,
                     joined_at=membership.joined_at)


@router.get("/campaigns/{campaign_id:int}/members", response_model=list[MemberOut],
            responses=error_responses(404))
def list_members(db: DbSession, access: MemberAccess) -> list[MemberOut]:
    """Every member, the GM first (any member may read this)."""
    return [member_out(m) for m in members.list_members(db=db, campaign_id=access.campaign.id)]


@router.patch("/campaigns/{campaign_id:int}/members/{membership_id}", response_model=MemberOut,
              responses=error_responses(400, 404, 409))
def change_role(body: RoleIn, db: DbSession, access: MemberAccess,
                membership_id: MembershipId) -> MemberOut:
    """Make a member a player or a spectator (GM). The GM's own role: 409."""
    access.require_gm().require_writable()
    return member_out(members.change_role(db=db, campaign_id=access.campaign.id,
                                          membership_id=membership_id, role=body.role))


@router.delete("/campaigns/{campaign_id:int}/members/{membership_id}", status_code=204,
               responses=error_responses(404, 409))
def remove_member(db: DbSession, access: MemberAccess,
                  membership_id: MembershipId) -> Response:
    """Remove a member (GM), or leave: any member may delete their own membership.

    The GM can be neither removed nor leave (409) until the role is handed over. The
    member's characters in the campaign become non-player characters.
    """
    if membership_id != access.membership.id:
        access.require_gm()
    access.require_writable()
    members.remove_member(db=db, campaign_id=access.campaign.id, membership_id=membership_id)
    return Response(status_code=204)


@router.post("/campaigns/{campaign_id:int}/gm", response_model=MemberOut,
             responses=error_responses(400, 404, 409))
def hand_over_gm(body: HandOverIn, db: DbSession, access: MemberAccess) -> MemberOut:
    """Make another member the GM (GM); you become a player. Answers the new GM.

    409 ``already_gm`` when the chosen member is the GM already."""
    access.require_gm().require_writable()
    return member_out(members.hand_over_gm(db=db, campaign_id=access.campaign.id,
                                           membership_id=body.membership_id))
