"""Accounts: registration, login, logout, preferences, disabling."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app import auth
from app.config import Settings
from app.db import write_transaction
from app.errors import AppError, NotFound, ValidationFailed
from app.i18n import SUPPORTED_LOCALES
from app.i18n import lazy_gettext as _l
from app.models import User, utcnow
from app.services import instance, invites, validation

# Computed once so that a login for an unknown name costs as much as a real one.
_DUMMY_HASHES: dict[tuple[int, int], str] = {}


def check_password_rules(password: object, *, field: str = "password") -> str:
    if not isinstance(password, str):
        raise ValidationFailed(_l("This must be text."), field=field)
    if len(password) < auth.PASSWORD_MIN:
        raise ValidationFailed(_l("At least %(n)s characters.", n=auth.PASSWORD_MIN),
                               field=field)
    if len(password) > auth.PASSWORD_MAX:
        raise ValidationFailed(_l("At most %(n)s characters.", n=auth.PASSWORD_MAX),
                               field=field)
    return password


def _checked_at_once(username: object, display_name: object,
                     password: object) -> tuple[str, str]:
    """Every field checked, every problem told at once: the first as the error, all of them
    in ``details.errors`` (``{field: message}``) for the form to show beside each field."""
    problems: list[ValidationFailed] = []
    name = shown = ""
    try:
        name = validation.username(username)
    except ValidationFailed as error:
        problems.append(error)
    try:
        fallback = name or (username if isinstance(username, str) else "")
        shown = validation.text(display_name or fallback, field="display_name", max_length=80)
    except ValidationFailed as error:
        problems.append(error)
    try:
        check_password_rules(password)
    except ValidationFailed as error:
        problems.append(error)
    if problems:
        first = problems[0]
        first.details = {**first.details, "errors": {
            problem.field or "_form": str(problem.message) for problem in problems}}
        raise first
    return name, shown


def register(*, db: Session, settings: Settings, username: object, password: object,
             display_name: object = "", locale: str | None = None, address: str | None = None,
             invite_token: object = None) -> User:
    """Create an account. A taken name gets the same answer as any unusable name.

    Limited per address (``settings.registrations_per_hour``); on an invitation-only
    instance, only with a live invitation link (``invite_token``).
    """
    limits = auth.registration_limits(address, settings)
    auth.check_limits(db, limits, settings.rate_limit_max_wait_seconds)
    with write_transaction(db):
        auth.record_attempt(db, limits)
    if instance.invitation_only(db) and not invites.usable_token(db=db, token=invite_token):
        raise AppError(_l("This Tablée is open by invitation only: ask a GM for an "
                          "invitation link."), code="invitation_only").with_status(403)
    name, shown = _checked_at_once(username, display_name, password)
    password_hash = auth.password_hasher(settings).hash(password)  # before the lock
    unusable = ValidationFailed(_l("This username cannot be used. Choose another one."),
                                field="username", code="username_unavailable")
    try:
        with write_transaction(db):
            if db.scalar(select(User.id).where(User.username_key == name.lower())):
                raise unusable
            is_first = not db.scalar(select(func.count()).select_from(User))
            user = User(username=name, username_key=name.lower(), display_name=shown,
                        password_hash=password_hash,
                        locale=locale if locale in SUPPORTED_LOCALES else None,
                        is_admin=is_first)
            db.add(user)
    except IntegrityError as error:  # a concurrent registration won the name
        raise unusable from error
    return user


@dataclass(frozen=True)
class LoginResult:
    user: User
    token: str


def login(*, db: Session, settings: Settings, username: object, password: object,
          address: str | None) -> LoginResult:
    """Check the password (rate-limited) and open a new session.

    The same message answers an unknown name and a wrong password, and both cost one
    hash verification, so a login tells nothing about which accounts exist.
    """
    name = validation.username_form(username) if isinstance(username, str) else ""
    if not validation.USERNAME_RE.match(name):
        name = ""  # no account has it: the same answer and the same cost as an unknown one
    secret = password if isinstance(password, str) else ""
    limits = auth.login_limits(name, address, settings)
    auth.check_limits(db, limits, settings.rate_limit_max_wait_seconds)
    hasher = auth.password_hasher(settings)
    user = db.scalar(select(User).where(User.username_key == name.lower())) if name else None
    stored = user.password_hash if user else _dummy_hash(hasher)
    check = auth.verify_password(hasher, stored, secret[: auth.PASSWORD_MAX])
    if user is None or not check.ok or user.disabled_at is not None:
        with write_transaction(db):
            auth.record_attempt(db, limits)
        raise AppError(_l("Wrong username or password."), code="bad_credentials",
                       field="password").with_status(401)
    with write_transaction(db):
        user = db.get(User, user.id)
        if check.new_hash:
            user.password_hash = check.new_hash
        token = auth.start_session(db, user)
    return LoginResult(user=user, token=token)


def _dummy_hash(hasher) -> str:
    key = (hasher.time_cost, hasher.memory_cost)
    if key not in _DUMMY_HASHES:
        _DUMMY_HASHES[key] = hasher.hash("not a real password, only for timing")
    return _DUMMY_HASHES[key]


def logout(*, db: Session, token: str) -> None:
    with write_transaction(db):
        auth.end_session(db, token)


def update_preferences(*, db: Session, user: User, display_name: object | None = None,
                       locale: object | None = None) -> User:
    with write_transaction(db):
        user = db.get(User, user.id)
        if display_name is not None:
            user.display_name = validation.text(display_name, field="display_name",
                                                max_length=80)
        if locale is not None:
            if locale not in (*SUPPORTED_LOCALES, ""):
                raise ValidationFailed(_l("Unknown language."), field="locale")
            user.locale = locale or None
    return user


def change_password(*, db: Session, settings: Settings, user: User, current: object,
                    new: object, keep_token: str | None) -> str:
    """Change the password, end every other session, and return a fresh session token."""
    hasher = auth.password_hasher(settings)
    if not isinstance(current, str) or not auth.verify_password(
            hasher, user.password_hash, current[: auth.PASSWORD_MAX]).ok:
        raise ValidationFailed(_l("Your current password is wrong."), field="current_password")
    new_hash = hasher.hash(check_password_rules(new, field="new_password"))
    with write_transaction(db):
        user = db.get(User, user.id)
        user.password_hash = new_hash
        auth.end_all_sessions(db, user.id)
        return auth.start_session(db, user)


def set_disabled(*, db: Session, user_id: int, disabled: bool) -> User:
    """Disable (or enable) an account; disabling ends all its sessions at once."""
    with write_transaction(db):
        user = db.get(User, user_id)
        if user is None:
            raise NotFound()
        user.disabled_at = utcnow() if disabled else None
        if disabled:
            auth.end_all_sessions(db, user.id)
    return user
