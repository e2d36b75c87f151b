"""Instance administration: the account list, disabling accounts (who may administer is
``app.services.instance.require_admin``).

The instance admin is ``User.is_admin`` (the first account registered gets it). Backups
live in ``app.services.backup``; this module only decides who may touch them.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.errors import Forbidden
from app.i18n import lazy_gettext as _l
from app.models import User
from app.services import accounts
from app.services.instance import require_admin


def list_users(*, db: Session) -> list[User]:
    """Every account, oldest first (the first one is the original administrator)."""
    return list(db.scalars(select(User).order_by(User.created_at, User.id)))


def set_user_disabled(*, db: Session, admin: User, user_id: int, disabled: bool) -> User:
    """Disable or enable an account; disabling ends its sessions at once.

    An admin cannot disable their own account: the instance could be left with nobody
    able to enable anyone again.
    """
    require_admin(admin)
    if disabled and user_id == admin.id:
        raise Forbidden(_l("You cannot disable your own account."))
    return accounts.set_disabled(db=db, user_id=user_id, disabled=disabled)
