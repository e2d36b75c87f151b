"""The instance itself: who administers it, and the settings its admin changes from the admin
page or the API."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.db import write_transaction
from app.errors import Forbidden
from app.i18n import lazy_gettext as _l
from app.models import InstanceSetting, User

INVITATION_ONLY = "invitation_only"


def require_admin(user: User) -> User:
    """The instance admin (``User.is_admin``: the first account registered gets it)."""
    if not user.is_admin or user.disabled_at is not None:
        raise Forbidden(_l("Only the instance administrator can do this."))
    return user


def invitation_only(db: Session) -> bool:
    """Whether only an invitation link opens registration (off by default)."""
    return bool(db.scalar(select(InstanceSetting.value)
                          .where(InstanceSetting.key == INVITATION_ONLY)))


def set_invitation_only(*, db: Session, user: User, value: bool) -> None:
    require_admin(user)
    with write_transaction(db):
        row = db.get(InstanceSetting, INVITATION_ONLY)
        if row is None:
            db.add(InstanceSetting(key=INVITATION_ONLY, value=bool(value)))
        else:
            row.value = bool(value)
