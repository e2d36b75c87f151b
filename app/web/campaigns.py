"""Pages: my campaigns, a campaign's overview, edit, archive, delete."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Form, Request
from starlette.responses import Response

from app.errors import AppError, CampaignArchived, Conflict, StaleVersion, ValidationFailed
from app.http.deps import CurrentUser, DbSession, MemberAccess, page_router
from app.models import User
from app.rules.registry import all_systems
from app.services import campaigns, content, matches, members
from app.services.access import CampaignAccess
from app.services.dice_cap import DEFAULT_DICE_CAP
from app.web.forms import field_errors, see_other
from app.web.templating import render

# ``:int`` leaves paths like ``/campaigns/import`` to the routes that own them.
router = page_router()
FormText = Annotated[str, Form()]
# Errors that leave the edit form on screen with what was typed.
FORM_ERRORS = (ValidationFailed, Conflict, CampaignArchived)
LIMITS = {"name": campaigns.NAME_MAX, "description": campaigns.DESCRIPTION_MAX}


def error_page(request: Request, error: AppError) -> Response:
    """The error page for a service's refusal, rendered while the session is still open.

    The refused transaction was rolled back, which expires every loaded object (the
    viewer's account too); the app-wide handler runs after the session is closed and
    could not load them again to draw the page header.
    """
    return render(request, "error.html", {"error": error}, status_code=error.status)


def _list_page(request: Request, db: DbSession, user: User, *,
               form: dict[str, str] | None = None, error: AppError | None = None) -> Response:
    default_system = all_systems()[0].key if all_systems() else ""
    return render(request, "campaigns/list.html", {
        "items": campaigns.my_campaigns(db=db, user=user),
        "form": form or {"system": default_system},
        "errors": field_errors(error) if error else None,
        "limits": LIMITS,
    }, status_code=error.status if error else 200)


@router.get("/campaigns")
def campaign_list(request: Request, db: DbSession, user: CurrentUser) -> Response:
    return _list_page(request, db, user)


@router.post("/campaigns")
def create_campaign(request: Request, db: DbSession, user: CurrentUser, name: FormText = "",
                    description: FormText = "", system: FormText = "") -> Response:
    try:
        campaign = campaigns.create_campaign(db=db, user=user, name=name,
                                             description=description, system=system)
    except ValidationFailed as error:
        form = {"name": name, "description": description, "system": system}
        return _list_page(request, db, user, form=form, error=error)
    return see_other(f"/campaigns/{campaign.id}")


@router.get("/campaigns/{campaign_id:int}")
def campaign_page(request: Request, db: DbSession, access: MemberAccess) -> Response:
    return render(request, "campaigns/show.html", {
        "access": access, "campaign": access.campaign,
        "members": members.list_members(db=db, campaign_id=access.campaign.id),
        "has_content_kinds": bool(content.kinds(access.campaign.system)),
        "summary": matches.campaign_summary(db=db, access=access),
    })


def _edit_page(request: Request, access: CampaignAccess, form: dict[str, Any], *,
               error: AppError | None = None) -> Response:
    conflict = error.details.get("current") if isinstance(error, StaleVersion) else None
    if conflict:
        # Saving again now is a deliberate choice made after seeing the other version.
        form = {**form, "version": conflict["version"]}
    return render(request, "campaigns/edit.html", {
        "campaign": access.campaign, "form": form, "conflict": conflict, "limits": LIMITS,
        "default_dice_cap": DEFAULT_DICE_CAP,
        "errors": field_errors(error) if error else None,
    }, status_code=error.status if error else 200)


@router.get("/campaigns/{campaign_id:int}/edit")
def edit_page(request: Request, access: MemberAccess) -> Response:
    access.require_gm().require_writable()
    cap = access.campaign.dice_cap
    return _edit_page(request, access, {**campaigns.editable_values(access.campaign),
                                        "dice_cap": "" if cap is None else str(cap)})


@router.post("/campaigns/{campaign_id:int}/edit")
def edit_campaign(request: Request, db: DbSession, access: MemberAccess, name: FormText = "",
                  description: FormText = "", version: FormText = "",
                  dice_cap: FormText = "") -> Response:
    access.require_gm().require_writable()
    try:
        campaigns.update_campaign(db=db, campaign=access.campaign, version=version, name=name,
                                  description=description, dice_cap=dice_cap)
    except FORM_ERRORS as error:
        typed = {"name": name, "description": description, "version": version,
                 "dice_cap": dice_cap}
        return _edit_page(request, access, typed, error=error)
    except AppError as error:
        return error_page(request, error)
    return see_other(f"/campaigns/{access.campaign.id}?saved=1")


def _set_archived(request: Request, db: DbSession, access: CampaignAccess,
                  archived: bool) -> Response:
    access.require_gm()
    try:
        campaigns.set_archived(db=db, campaign=access.campaign, archived=archived)
    except AppError as error:
        return error_page(request, error)
    return see_other(f"/campaigns/{access.campaign.id}")


@router.post("/campaigns/{campaign_id:int}/archive")
def archive_campaign(request: Request, db: DbSession, access: MemberAccess) -> Response:
    return _set_archived(request, db, access, archived=True)


@router.post("/campaigns/{campaign_id:int}/unarchive")
def unarchive_campaign(request: Request, db: DbSession, access: MemberAccess) -> Response:
    return _set_archived(request, db, access, archived=False)


@router.get("/campaigns/{campaign_id:int}/delete")
def delete_page(request: Request, access: MemberAccess) -> Response:
    access.require_gm()
    return render(request, "campaigns/delete.html", {"campaign": access.campaign})


@router.post("/campaigns/{campaign_id:int}/delete")
def delete_campaign(request: Request, db: DbSession, access: MemberAccess,
                    confirm_name: FormText = "") -> Response:
    access.require_gm()
    try:
        campaigns.delete_campaign(db=db, campaign=access.campaign, confirm_name=confirm_name)
    except Conflict as error:
        return render(request, "campaigns/delete.html", {
            "campaign": access.campaign, "typed": confirm_name,
            "errors": field_errors(error)}, status_code=error.status)
    except AppError as error:
        return error_page(request, error)
    return see_other("/campaigns?deleted=1")
