"""Pages: export a campaign to a JSON file (GM only), import one as a new campaign."""

from __future__ import annotations

import json
from typing import Annotated

from fastapi import File, Form, Request, UploadFile
from starlette.responses import Response

from app.config import Settings
from app.errors import AppError, ValidationFailed
from app.http.deps import CurrentUser, DbSession, MemberAccess, SettingsDep, page_router
from app.i18n import lazy_gettext as _l
from app.services import transfer
from app.services.access import CampaignAccess
from app.web.forms import field_errors, see_other
from app.web.invites import invite_link
from app.web.templating import render

router = page_router()


def export_response(document: transfer.CampaignExport, filename: str) -> Response:
    body = json.dumps(document.model_dump(mode="json"), ensure_ascii=False, indent=2)
    return Response(body.encode(), media_type="application/json",
                    headers={"Content-Disposition": f'attachment; filename="{filename}"'})


@router.get("/campaigns/{campaign_id}/export")
def export_campaign(db: DbSession, access: MemberAccess) -> Response:
    """Download the whole campaign as ``tablee-<slug>-<date>.json`` (GM only)."""
    document = transfer.export_campaign(db=db, access=access)
    return export_response(document,
                           transfer.export_filename(access.campaign, document.exported_at))


@router.get("/campaigns/import")
def import_page(request: Request, user: CurrentUser, settings: SettingsDep) -> Response:
    return render(request, "transfer/import.html", _form_context(settings))


@router.post("/campaigns/import")
def import_campaign(request: Request, db: DbSession, settings: SettingsDep, user: CurrentUser,
                    file: Annotated[UploadFile | None, File()] = None,
                    name: Annotated[str, Form()] = "") -> Response:
    try:
        raw = _read_upload(file, settings)
        document = transfer.parse_document(raw, settings)
        result = transfer.import_campaign(db=db, settings=settings, user=user,
                                          document=document, name=name or None,
                                          page_check=request.app.state.import_page_check)
    except AppError as error:
        context = {**_form_context(settings), "errors": _import_errors(error),
                   "form": {"name": name}}
        return render(request, "transfer/import.html", context, status_code=error.status)
    return see_other(f"/campaigns/{result.campaign.id}/imported")


def _imported_page(request: Request, access: CampaignAccess, *,
                   invited: list[transfer.FormerInvite] | None = None) -> Response:
    return render(request, "transfer/imported.html", {
        "campaign": access.campaign, "former": transfer.former_members(access),
        "invited": [(item, invite_link(request, item.invite.token)) for item in invited or []]})


@router.get("/campaigns/{campaign_id}/imported")
def import_done(request: Request, access: MemberAccess) -> Response:
    """The result of an import: the campaign, and the people its file named, whom the GM
    may invite (an import makes nobody a member)."""
    return _imported_page(request, access)


@router.post("/campaigns/{campaign_id}/former-members/invites")
def invite_former(request: Request, db: DbSession, access: MemberAccess,
                  username: Annotated[list[str] | None, Form()] = None) -> Response:
    invited = transfer.invite_former_members(db=db, access=access, usernames=username or [])
    return _imported_page(request, access, invited=invited)


@router.post("/campaigns/{campaign_id}/former-members/dismiss")
def dismiss_former(db: DbSession, access: MemberAccess) -> Response:
    transfer.dismiss_former_members(db=db, access=access)
    return see_other(f"/campaigns/{access.campaign.id}")


def _form_context(settings: Settings) -> dict[str, object]:
    return {"max_mb": settings.max_import_bytes // (1024 * 1024), "form": {}}


def _import_errors(error: AppError) -> dict[str, str]:
    """Problems deep in the document are shown on the file field, with where they are."""
    if error.field in (None, "name", "file"):
        return field_errors(error)
    return {"file": f"{error.field} — {error.message}"}


def _read_upload(file: UploadFile | None, settings: Settings) -> bytes:
    """The uploaded bytes, reading no further than one byte past the limit."""
    if file is None or not file.filename:
        raise ValidationFailed(_l("Choose a file to import."), field="file")
    raw = file.file.read(settings.max_import_bytes + 1)
    transfer.check_size(len(raw), settings)
    return raw
