"""Passwords, server-side sessions, CSRF tokens and the rate limits on logins and
registrations."""

from __future__ import annotations

import hashlib
import hmac
import math
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import bindparam, delete, func, select, update
from sqlalchemy.orm import Session

from app.config import Settings
from app.db import write_transaction
from app.errors import TooManyAttempts
from app.models import Attempt, User, UserSession, utcnow

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


def session_expired(created_at: datetime, last_seen_at: datetime, disabled_at: datetime | None,
                    settings: Settings, now: datetime) -> bool:
    """Idle too long, open too long, or its account disabled: the session is over."""
    idle = now - last_seen_at > timedelta(minutes=settings.session_idle_minutes)
    too_old = now - created_at > timedelta(hours=settings.session_absolute_hours)
    return idle or too_old or disabled_at is not None


def touch_due(last_seen_at: datetime, now: datetime) -> bool:
    """Whether ``last_seen_at`` is to be written again (once a minute at most)."""
    return now - last_seen_at > LAST_SEEN_RESOLUTION


# Built once: every request runs it (building a statement costs more than running it).
_SESSION_BY_HASH = select(UserSession).where(UserSession.token_hash == bindparam("token_hash"))


def find_session(db: Session, token: str, settings: Settings) -> UserSession | None:
    """The live session for ``token``; expired ones (idle or absolute) are removed."""
    record = db.scalar(_SESSION_BY_HASH, {"token_hash": hash_token(token)})
    if record is None:
        return None
    now = utcnow()
    if session_expired(record.created_at, record.last_seen_at, record.user.disabled_at,
                       settings, now):
        with write_transaction(db):
            db.execute(delete(UserSession).where(UserSession.id == record.id))
        return None
    if touch_due(record.last_seen_at, now):
        record_id = record.id
        with write_transaction(db):
            db.execute(update(UserSession).where(UserSession.id == record_id)
                       .values(last_seen_at=now))
        record = db.get(UserSession, record_id)
    return record


# — rate limits (failed logins, registrations) ————————————————————————————————————
#
# Each counted attempt is a row (key, time) in ``attempts``, shared by every worker. A key
# has a number of free attempts in its window; past them, each new one must wait twice as
# long as the one before (2 s, 4 s, 8 s… at most ``cap``) after the last. Failed logins are
# counted per account *and address* together, so nobody can lock an account out from
# elsewhere, and per address across accounts, so one address cannot spray passwords.


@dataclass(frozen=True)
class Limit:
    key: str
    free: int
    window: timedelta


def login_limits(username: str, address: str | None, settings: Settings) -> list[Limit]:
    window = timedelta(minutes=settings.login_window_minutes)
    where = (address or "unknown")[:100]
    return [Limit(f"login:{username.strip().lower()[:60]}@{where}",
                  settings.login_free_failures, window),
            Limit(f"login-address:{where}", settings.login_address_free_failures, window)]


def registration_limits(address: str | None, settings: Settings) -> list[Limit]:
    return [Limit(f"register:{(address or 'unknown')[:100]}",
                  settings.registrations_per_hour, timedelta(hours=1))]


def backoff(count: int, free: int, cap: int) -> int:
    """Seconds to wait after the last attempt: none within the free ones, then 2, 4, 8…"""
    if count < free:
        return 0
    return min(cap, 2 ** min(count - free + 1, 30))


def check_limits(db: Session, limits: list[Limit], cap: int, now: datetime | None = None
                 ) -> None:
    """Refuse with ``TooManyAttempts`` (and how long to wait) while any limit holds."""
    now = now or utcnow()
    for limit in limits:
        count, last = db.execute(select(func.count(), func.max(Attempt.at)).where(
            Attempt.key == limit.key, Attempt.at > now - limit.window)).one()
        wait = backoff(count, limit.free, cap)
        if wait and last is not None and (remaining := last + timedelta(seconds=wait) - now) \
                > timedelta(0):
            raise TooManyAttempts(retry_after=math.ceil(remaining.total_seconds()))


def record_attempt(db: Session, limits: list[Limit], now: datetime | None = None) -> None:
    """Count one attempt under each limit (and forget those older than a day)."""
    now = now or utcnow()
    db.execute(delete(Attempt).where(Attempt.at < now - timedelta(days=1)))
    db.add_all(Attempt(key=limit.key, at=now) for limit in limits)
