"""Passwords, server-side sessions, CSRF tokens and the login rate limit."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from app.config import Settings
from app.db import write_transaction
from app.errors import TooManyAttempts
from app.models import LoginFailure, User, UserSession, utcnow

PASSWORD_MIN = 10
PASSWORD_MAX = 128
# Touching ``last_seen_at`` on every request would turn each read into a write.
LAST_SEEN_RESOLUTION = timedelta(seconds=60)


def password_hasher(settings: Settings) -> PasswordHasher:
    """argon2id with the library's defaults, unless the settings lower the cost (tests)."""
    overrides = {}
    if settings.argon2_time_cost:
        overrides["time_cost"] = settings.argon2_time_cost
    if settings.argon2_memory_cost:
        overrides["memory_cost"] = settings.argon2_memory_cost
    return PasswordHasher(**overrides)


@dataclass(frozen=True)
class PasswordCheck:
    ok: bool
    new_hash: str | None = None  # set when the stored hash used older parameters


def verify_password(hasher: PasswordHasher, stored: str, password: str) -> PasswordCheck:
    try:
        hasher.verify(stored, password)
    except (VerificationError, InvalidHashError):
        return PasswordCheck(ok=False)
    if hasher.check_needs_rehash(stored):
        return PasswordCheck(ok=True, new_hash=hasher.hash(password))
    return PasswordCheck(ok=True)


def new_token() -> str:
    """256 random bits, URL-safe."""
    return secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def csrf_token(secret: str, binding: str) -> str:
    """A CSRF token bound to the session (or the anonymous cookie) it was issued for."""
    return hmac.new(secret.encode(), f"csrf:{binding}".encode(), hashlib.sha256).hexdigest()


def csrf_valid(secret: str, binding: str | None, presented: str | None) -> bool:
    if not binding or not presented:
        return False
    return hmac.compare_digest(csrf_token(secret, binding), presented)


def start_session(db: Session, user: User) -> str:
    """Open a session for ``user`` and return its token (a new one at every login)."""
    token = new_token()
    db.add(UserSession(token_hash=hash_token(token), user_id=user.id))
    return token


def end_session(db: Session, token: str) -> None:
    db.execute(delete(UserSession).where(UserSession.token_hash == hash_token(token)))


def end_all_sessions(db: Session, user_id: int) -> None:
    db.execute(delete(UserSession).where(UserSession.user_id == user_id))


def find_session(db: Session, token: str, settings: Settings) -> UserSession | None:
    """The live session for ``token``; expired ones (idle or absolute) are removed."""
    record = db.scalar(select(UserSession).where(UserSession.token_hash == hash_token(token)))
    if record is None:
        return None
    now = utcnow()
    idle = now - record.last_seen_at > timedelta(minutes=settings.session_idle_minutes)
    too_old = now - record.created_at > timedelta(hours=settings.session_absolute_hours)
    if idle or too_old or record.user.disabled_at is not None:
        with write_transaction(db):
            db.execute(delete(UserSession).where(UserSession.id == record.id))
        return None
    if now - record.last_seen_at > LAST_SEEN_RESOLUTION:
        record_id = record.id
        with write_transaction(db):
            db.execute(update(UserSession).where(UserSession.id == record_id)
                       .values(last_seen_at=now))
        record = db.get(UserSession, record_id)
    return record


def failure_keys(username: str, address: str | None) -> list[str]:
    keys = [f"user:{username.strip().lower()[:100]}"]
    if address:
        keys.append(f"addr:{address[:100]}")
    return keys


def check_login_rate(db: Session, keys: list[str], limit: int) -> None:
    """Refuse once a key has ``limit`` failures in the last minute."""
    since = utcnow() - timedelta(minutes=1)
    for key in keys:
        count = db.scalar(select(func.count()).select_from(LoginFailure)
                          .where(LoginFailure.key == key, LoginFailure.at > since))
        if count >= limit:
            raise TooManyAttempts()


def record_login_failure(db: Session, keys: list[str], now: datetime | None = None) -> None:
    now = now or utcnow()
    db.execute(delete(LoginFailure).where(LoginFailure.at < now - timedelta(hours=1)))
    for key in keys:
        db.add(LoginFailure(key=key, at=now))
