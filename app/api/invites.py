"""API: invitation links (the GM's list, create, revoke) and accepting one."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import Path, Request, Response
from pydantic import Field

from app.api.campaigns import MAX_ID
from app.api.schemas import ErrorBody, Model, error_responses
from app.http.deps import CurrentUser, DbSession, MemberAccess, ViewerDep, api_router
from app.models import Invite, Role
from app.services import invites
from app.services.invites import InviteStatus

router = api_router("invites")
InviteId = Annotated[int, Path(ge=1, le=MAX_ID)]
Token = Annotated[str, Path(max_length=invites.TOKEN_MAX)]
GONE: dict[int | str, dict[str, Any]] = {410: {
    "model": ErrorBody,
    "description": "Gone: the invitation expired, was revoked or is used up"}}


class InviteIn(Model):
    role: Literal["player", "spectator"] = "player"
    expires_in: Literal["1h", "1d", "7d", "30d"] = invites.DEFAULT_EXPIRY
    max_uses: int | None = Field(default=1, ge=1, le=invites.MAX_USES_LIMIT,
                                 description="1 for a single use; null for no limit.")


class InviteOut(Model):
    id: int
    token: str
    path: str = Field(description="Where the link leads: ``/invite/{token}``.")
    url: str = Field(description="The full link to send.")
    role: Role
    status: InviteStatus
    expires_at: datetime
    max_uses: int | None
    uses: int
    revoked_at: datetime | None
    created_at: datetime


class InvitePreviewOut(Model):
    campaign_id: int
    campaign_name: str
    system: str
    role: Role
    expires_at: datetime
    already_member: bool


class AcceptedOut(Model):
    campaign_id: int
    membership_id: int
    role: Role
    already_member: bool = Field(description="True if you were already in: nothing changed.")


def invite_out(request: Request, invite: Invite, status: InviteStatus) -> InviteOut:
    path = f"/invite/{invite.token}"
    return InviteOut(id=invite.id, token=invite.token, path=path,
                     url=f"{str(request.base_url).rstrip('/')}{path}", role=invite.role,
                     status=status, expires_at=invite.expires_at, max_uses=invite.max_uses,
                     uses=invite.uses, revoked_at=invite.revoked_at,
                     created_at=invite.created_at)


@router.get("/campaigns/{campaign_id:int}/invites", response_model=list[InviteOut],
            responses=error_responses(404))
def list_invites(request: Request, db: DbSession, access: MemberAccess) -> list[InviteOut]:
    """Every invitation of the campaign with its status (GM)."""
    access.require_gm()
    return [invite_out(request, item.invite, item.status)
            for item in invites.list_invites(db=db, campaign_id=access.campaign.id)]


@router.post("/campaigns/{campaign_id:int}/invites", status_code=201, response_model=InviteOut,
             responses=error_responses(400, 404, 409))
def create_invite(body: InviteIn, request: Request, db: DbSession,
                  access: MemberAccess) -> InviteOut:
    """A new link (GM) that lets people join with ``role``."""
    access.require_gm().require_writable()
    invite = invites.create_invite(db=db, campaign_id=access.campaign.id,
                                   created_by=access.user, role=body.role,
                                   expires_in=body.expires_in, max_uses=body.max_uses)
    return invite_out(request, invite, InviteStatus.ACTIVE)


@router.delete("/campaigns/{campaign_id:int}/invites/{invite_id}", status_code=204,
               responses=error_responses(404, 409))
def revoke_invite(db: DbSession, access: MemberAccess, invite_id: InviteId) -> Response:
    """Revoke a link (GM); it stays listed as revoked. Revoking twice changes nothing."""
    access.require_gm().require_writable()
    invites.revoke_invite(db=db, campaign_id=access.campaign.id, invite_id=invite_id)
    return Response(status_code=204)


@router.get("/invites/{token}", response_model=InvitePreviewOut,
            responses={**error_responses(404), **GONE})
def preview_invite(db: DbSession, viewer: ViewerDep, token: Token) -> InvitePreviewOut:
    """What a link offers; no login needed (the token is the secret). 404 unknown,
    410 expired, revoked or used up."""
    preview = invites.preview_invite(db=db, token=token, user=viewer.user)
    if preview.status is not InviteStatus.ACTIVE and preview.membership is None:
        raise invites.gone_error(preview.status)
    return InvitePreviewOut(campaign_id=preview.campaign.id,
                            campaign_name=preview.campaign.name,
                            system=preview.campaign.system, role=preview.invite.role,
                            expires_at=preview.invite.expires_at,
                            already_member=preview.membership is not None)


@router.post("/invites/{token}/accept", response_model=AcceptedOut,
             responses={**error_responses(404, 409), **GONE})
def accept_invite(db: DbSession, user: CurrentUser, token: Token) -> AcceptedOut:
    """Join the campaign with the link's role. Already a member: nothing changes."""
    accepted = invites.accept_invite(db=db, token=token, user=user)
    return AcceptedOut(campaign_id=accepted.membership.campaign_id,
                       membership_id=accepted.membership.id,
                       role=accepted.membership.role, already_member=accepted.already_member)
