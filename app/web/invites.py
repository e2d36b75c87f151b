"""Pages: the GM's invitation links, and the page a link opens."""

from __future__ import annotations

from typing import Annotated

from fastapi import Form, Path, Request
from starlette.responses import Response

from app.errors import AppError, CampaignArchived, ValidationFailed
from app.http.deps import CurrentUser, DbSession, MemberAccess, ViewerDep, page_router
from app.services import invites
from app.services.access import CampaignAccess
from app.services.invites import EXPIRY_CHOICES, InviteGone, InviteStatus
from app.web.campaigns import error_page
from app.web.forms import field_errors, see_other
from app.web.templating import render

router = page_router()
FormText = Annotated[str, Form()]
InviteId = Annotated[int, Path(ge=1, le=2_147_483_647)]
# Any length: the service answers 404 for whatever is not a live token.
Token = Annotated[str, Path()]


def invite_link(request: Request, token: str) -> str:
    """The full address to paste in a message (this server's own base URL)."""
    return f"{str(request.base_url).rstrip('/')}/invite/{token}"


def _invites_page(request: Request, db: DbSession, access: CampaignAccess, *,
                  form: dict[str, str] | None = None,
                  error: AppError | None = None) -> Response:
    listed = invites.list_invites(db=db, campaign_id=access.campaign.id)
    return render(request, "invites/list.html", {
        "campaign": access.campaign,
        "invites": [(item, invite_link(request, item.invite.token)) for item in listed],
        "expiry_choices": list(EXPIRY_CHOICES),
        "form": form or {"role": "player", "expires_in": invites.DEFAULT_EXPIRY,
                         "max_uses": "1"},
        "max_uses_limit": invites.MAX_USES_LIMIT,
        "errors": field_errors(error) if error else None,
    }, status_code=error.status if error else 200)


@router.get("/campaigns/{campaign_id:int}/invites")
def invites_page(request: Request, db: DbSession, access: MemberAccess) -> Response:
    access.require_gm()
    return _invites_page(request, db, access)


@router.post("/campaigns/{campaign_id:int}/invites")
def create_invite(request: Request, db: DbSession, access: MemberAccess, role: FormText = "",
                  expires_in: FormText = "", max_uses: FormText = "") -> Response:
    access.require_gm().require_writable()
    try:
        invite = invites.create_invite(db=db, campaign_id=access.campaign.id,
                                       created_by=access.user, role=role,
                                       expires_in=expires_in, max_uses=max_uses)
    except ValidationFailed as error:
        form = {"role": role, "expires_in": expires_in, "max_uses": max_uses}
        return _invites_page(request, db, access, form=form, error=error)
    except AppError as error:
        return error_page(request, error)
    return see_other(f"/campaigns/{access.campaign.id}/invites#invite-{invite.id}")


@router.post("/campaigns/{campaign_id:int}/invites/{invite_id}/revoke")
def revoke_invite(request: Request, db: DbSession, access: MemberAccess,
                  invite_id: InviteId) -> Response:
    access.require_gm().require_writable()
    try:
        invites.revoke_invite(db=db, campaign_id=access.campaign.id, invite_id=invite_id)
    except AppError as error:
        return error_page(request, error)
    return see_other(f"/campaigns/{access.campaign.id}/invites")


def _invite_page(request: Request, preview: invites.InvitePreview, token: str, *,
                 error: AppError | None = None) -> Response:
    gone = None if preview.status is InviteStatus.ACTIVE else invites.gone_error(preview.status)
    status = 200
    if error is not None:
        status = error.status
    elif gone is not None and preview.membership is None:
        status = gone.status
    return render(request, "invites/show.html", {
        "preview": preview, "token": token, "error": error,
        "gone_message": gone.message if gone else None,
    }, status_code=status)


@router.get("/invite/{token}")
def invite_page(request: Request, db: DbSession, viewer: ViewerDep, token: Token) -> Response:
    """Anyone holding the link sees what it offers; unknown links are 404, dead ones 410."""
    preview = invites.preview_invite(db=db, token=token, user=viewer.user)
    return _invite_page(request, preview, token)


@router.post("/invite/{token}")
def accept_invite(request: Request, db: DbSession, user: CurrentUser,
                  token: Token) -> Response:
    try:
        accepted = invites.accept_invite(db=db, token=token, user=user)
    except (InviteGone, CampaignArchived) as error:
        preview = invites.preview_invite(db=db, token=token, user=user)
        return _invite_page(request, preview, token, error=error)
    except AppError as error:
        return error_page(request, error)
    return see_other(f"/campaigns/{accepted.membership.campaign_id}")
