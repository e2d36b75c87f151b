"""Pages: the instance administration (backups, accounts). Instance admins only."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from fastapi import Form, Request
from starlette.responses import FileResponse, Response

from app.errors import AppError
from app.http.deps import AdminUser, DbSession, IdParam, SettingsDep, page_router
from app.models import User
from app.services import admin, backup, instance
from app.web.forms import field_errors, see_other
from app.web.templating import render

router = page_router()
UserId = IdParam


def _admin_page(request: Request, db: DbSession, settings: SettingsDep,
                extra: dict[str, Any] | None = None, *, status_code: int = 200) -> Response:
    backups = backup.list_backups(settings)
    made = request.query_params.get("backup", "")
    context = {
        "users": admin.list_users(db=db),
        "invitation_only": instance.invitation_only(db),
        "backups": backups,
        # Only a name that is really in the folder is offered for download.
        "new_backup": next((item for item in backups if item.name == made), None),
        **(extra or {}),
    }
    return render(request, "admin/index.html", context, status_code=status_code)


@router.get("/admin")
def admin_page(request: Request, db: DbSession, settings: SettingsDep,
               user: AdminUser) -> Response:
    return _admin_page(request, db, settings)


@router.post("/admin/registration")
def set_registration(db: DbSession, user: AdminUser,
                     invitation_only: Annotated[str, Form()] = "") -> Response:
    instance.set_invitation_only(db=db, user=user, value=invitation_only == "on")
    return see_other("/admin?registration=1#registration")


@router.post("/admin/backup")
def make_backup(request: Request, db: DbSession, settings: SettingsDep,
                user: AdminUser) -> Response:
    try:
        path = backup.backup_database(settings)
    except AppError as error:
        return _admin_page(request, db, settings, {"errors": field_errors(error)},
                           status_code=error.status)
    return see_other(f"/admin?backup={Path(path).name}#backups")


@router.get("/admin/backups/{name}")
def download_backup(name: str, settings: SettingsDep, user: AdminUser) -> Response:
    found = backup.find_backup(settings, name)
    return FileResponse(found.path, media_type="application/vnd.sqlite3",
                        filename=found.name, content_disposition_type="attachment")


def _set_disabled(request: Request, db: DbSession, settings: SettingsDep, user: User,
                  user_id: int, disabled: bool) -> Response:
    try:
        admin.set_user_disabled(db=db, admin=user, user_id=user_id, disabled=disabled)
    except AppError as error:
        return _admin_page(request, db, settings, {"errors": field_errors(error)},
                           status_code=error.status)
    return see_other("/admin#users")


@router.post("/admin/users/{user_id}/disable")
def disable_user(request: Request, db: DbSession, settings: SettingsDep, user: AdminUser,
                 user_id: UserId) -> Response:
    return _set_disabled(request, db, settings, user, user_id, True)


@router.post("/admin/users/{user_id}/enable")
def enable_user(request: Request, db: DbSession, settings: SettingsDep, user: AdminUser,
                user_id: UserId) -> Response:
    return _set_disabled(request, db, settings, user, user_id, False)
