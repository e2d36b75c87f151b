"""Pages: a campaign's members (the GM manages them; anyone but the GM may leave)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Form, Path, Request
from starlette.responses import Response

from app.errors import AppError, Conflict, ValidationFailed
from app.http.deps import DbSession, MemberAccess, page_router
from app.services import members
from app.services.access import CampaignAccess
from app.web.campaigns import error_page
from app.web.forms import see_other
from app.web.templating import render

router = page_router()
MAX_ID = 2_147_483_647
MembershipId = Annotated[int, Path(ge=1, le=MAX_ID)]
# Errors shown above the member list rather than on an error page.
FORM_ERRORS = (ValidationFailed, Conflict)


def _members_page(request: Request, db: DbSession, access: CampaignAccess, *,
                  error: AppError | None = None) -> Response:
    return render(request, "campaigns/members.html", {
        "campaign": access.campaign, "access": access,
        "members": members.list_members(db=db, campaign_id=access.campaign.id),
        # One list, many small forms: the message goes above the list.
        "errors": {"_form": str(error.message)} if error else None,
    }, status_code=error.status if error else 200)


@router.get("/campaigns/{campaign_id:int}/members")
def members_page(request: Request, db: DbSession, access: MemberAccess) -> Response:
    access.require_gm()
    return _members_page(request, db, access)


@router.post("/campaigns/{campaign_id:int}/members/{membership_id}/role")
def change_role(request: Request, db: DbSession, access: MemberAccess,
                membership_id: MembershipId, role: Annotated[str, Form()] = "") -> Response:
    access.require_gm().require_writable()
    try:
        members.change_role(db=db, campaign_id=access.campaign.id,
                            membership_id=membership_id, role=role)
    except FORM_ERRORS as error:
        return _members_page(request, db, access, error=error)
    except AppError as error:
        return error_page(request, error)
    return see_other(f"/campaigns/{access.campaign.id}/members")


@router.post("/campaigns/{campaign_id:int}/members/{membership_id}/remove")
def remove_member(request: Request, db: DbSession, access: MemberAccess,
                  membership_id: MembershipId) -> Response:
    access.require_gm().require_writable()
    try:
        members.remove_member(db=db, campaign_id=access.campaign.id,
                              membership_id=membership_id)
    except FORM_ERRORS as error:
        return _members_page(request, db, access, error=error)
    except AppError as error:
        return error_page(request, error)
    return see_other(f"/campaigns/{access.campaign.id}/members")


@router.post("/campaigns/{campaign_id:int}/gm")
def hand_over_gm(request: Request, db: DbSession, access: MemberAccess,
                 membership_id: Annotated[int, Form(ge=1, le=MAX_ID)]) -> Response:
    access.require_gm().require_writable()
    try:
        members.hand_over_gm(db=db, campaign_id=access.campaign.id,
                             membership_id=membership_id)
    except FORM_ERRORS as error:
        return _members_page(request, db, access, error=error)
    except AppError as error:
        return error_page(request, error)
    return see_other(f"/campaigns/{access.campaign.id}")


@router.post("/campaigns/{campaign_id:int}/leave")
def leave_campaign(request: Request, db: DbSession, access: MemberAccess) -> Response:
    """Leave the campaign; the GM must first hand the role to someone else (409)."""
    access.require_writable()
    try:
        members.remove_member(db=db, campaign_id=access.campaign.id,
                              membership_id=access.membership.id)
    except AppError as error:
        return error_page(request, error)
    return see_other("/campaigns?left=1")
