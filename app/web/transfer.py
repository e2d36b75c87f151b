"""Pages: export a campaign to a JSON file (GM only), import one as a new campaign."""

from __future__ import annotations

import json
from typing import Annotated

from fastapi import File, Form, Query, Request, UploadFile
from starlette.responses import Response

from app.config import Settings
from app.errors import AppError, ValidationFailed
from app.http.deps import CurrentUser, DbSession, MemberAccess, SettingsDep, protected_router
from app.i18n import lazy_gettext as _l
from app.services import transfer
from app.services.validation import USERNAME_RE
from app.web.forms import field_errors, see_other
from app.web.templating import render

router = protected_router()
# The result page names at most this many people (they travel in its URL), then a count.
SHOWN_UNMATCHED_MAX = 100


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
                                          document=document, name=name or None)
    except AppError as error:
        context = {**_form_context(settings), "errors": _import_errors(error),
                   "form": {"name": name}}
        return render(request, "transfer/import.html", context, status_code=error.status)
    return see_other(_result_url(result))


def _result_url(result: transfer.ImportResult) -> str:
    """Usernames are plain ``[A-Za-z0-9_.-]``: they go in the query string as they are."""
    target = f"/campaigns/{result.campaign.id}/imported"
    if not result.unmatched_members:
        return target
    shown = result.unmatched_members[:SHOWN_UNMATCHED_MAX]
    more = len(result.unmatched_members) - len(shown)
    return f"{target}?missing={','.join(shown)}" + (f"&more={more}" if more else "")


@router.get("/campaigns/{campaign_id}/imported")
def import_done(request: Request, access: MemberAccess, missing: str = "",
                more: Annotated[int, Query(ge=0, le=100_000)] = 0) -> Response:
    """The result of an import: where the campaign is, and who was not found here."""
    names = [name for name in missing.split(",") if USERNAME_RE.match(name)]
    return render(request, "transfer/imported.html",
                  {"campaign": access.campaign, "unmatched": names[:SHOWN_UNMATCHED_MAX],
                   "more": more})


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
