"""API: instance administration (backups, accounts, registration). Instance admins only."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from pydantic import Field

from app.api.schemas import Model, error_responses
from app.http.deps import AdminUser, DbSession, IdParam, SettingsDep, api_router
from app.models import User
from app.services import admin, backup, instance

router = api_router("admin")
UserId = IdParam


class BackupOut(Model):
    path: str
    size: int


class BackupListItem(Model):
    name: str
    size: int
    created_at: datetime


class AdminUserOut(Model):
    id: int
    username: str
    display_name: str
    is_admin: bool
    disabled: bool
    created_at: datetime


class RegistrationSettings(Model):
    invitation_only: bool = Field(strict=True,
                                  description="only an invitation link opens registration")


@router.get("/admin/registration", response_model=RegistrationSettings,
            responses=error_responses())
def get_registration(db: DbSession, user: AdminUser) -> RegistrationSettings:
    """Who may register on this instance."""
    return RegistrationSettings(invitation_only=instance.invitation_only(db))


@router.put("/admin/registration", response_model=RegistrationSettings,
            responses=error_responses())
def put_registration(body: RegistrationSettings, db: DbSession,
                     user: AdminUser) -> RegistrationSettings:
    """Open registration to all, or to invitation links only."""
    instance.set_invitation_only(db=db, user=user, value=body.invitation_only)
    return RegistrationSettings(invitation_only=instance.invitation_only(db))


def _user_out(user: User) -> AdminUserOut:
    return AdminUserOut(id=user.id, username=user.username, display_name=user.display_name,
                        is_admin=user.is_admin, disabled=user.disabled_at is not None,
                        created_at=user.created_at)


@router.post("/admin/backups", status_code=201, response_model=BackupOut,
             responses=error_responses(404, 409))
def make_backup(settings: SettingsDep, user: AdminUser) -> BackupOut:
    """Write a consistent copy of the SQLite database (409 on PostgreSQL: use pg_dump)."""
    path = backup.backup_database(settings)
    return BackupOut(path=path, size=Path(path).stat().st_size)


@router.get("/admin/backups", response_model=list[BackupListItem], responses=error_responses())
def list_backups(settings: SettingsDep, user: AdminUser) -> list[BackupListItem]:
    """The backups written so far, newest first (download them from ``/admin/backups/{name}``)."""
    return [BackupListItem(name=item.name, size=item.size, created_at=item.created_at)
            for item in backup.list_backups(settings)]


@router.get("/admin/users", response_model=list[AdminUserOut], responses=error_responses())
def list_users(db: DbSession, user: AdminUser) -> list[AdminUserOut]:
    return [_user_out(account) for account in admin.list_users(db=db)]


@router.post("/admin/users/{user_id}/disable", response_model=AdminUserOut,
             responses=error_responses(404))
def disable_user(user_id: UserId, db: DbSession, user: AdminUser) -> AdminUserOut:
    """Disable an account and end all its sessions (not your own: 403)."""
    return _user_out(admin.set_user_disabled(db=db, admin=user, user_id=user_id, disabled=True))


@router.post("/admin/users/{user_id}/enable", response_model=AdminUserOut,
             responses=error_responses(404))
def enable_user(user_id: UserId, db: DbSession, user: AdminUser) -> AdminUserOut:
    return _user_out(admin.set_user_disabled(db=db, admin=user, user_id=user_id,
                                             disabled=False))
