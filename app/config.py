"""Settings, read once from the environment (prefix ``TABLEE_``)."""

from __future__ import annotations

import secrets
from functools import cached_property
from pathlib import Path

from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="TABLEE_", extra="ignore")

    data_dir: Path = Path("var")
    database_url: str = ""
    redis_url: str | None = None
    # Prefixes every Redis channel: installs (or test runs) that share one Redis keep apart.
    redis_namespace: str = "tablee:"
    # Left empty, a key is generated once and kept in ``data_dir/secret_key``.
    secret_key: str = ""
    # Behind HTTPS: Secure + ``__Host-`` cookies and HSTS.
    https: bool = False
    session_idle_minutes: int = 60 * 24 * 3
    session_absolute_hours: int = 24 * 30
    # Rate limits (app.auth): free failed logins per account and address, and per address,
    # in the window, before each next one waits twice as long (at most the cap); and
    # registrations per address and hour.
    login_free_failures: int = 5
    login_address_free_failures: int = 20
    login_window_minutes: int = 15
    rate_limit_max_wait_seconds: int = 900
    registrations_per_hour: int = 10
    # Addresses (or networks, "10.0.0.0/8") of reverse proxies whose X-Forwarded-For is
    # believed, comma-separated; empty: the client is whoever connects.
    trusted_proxies: str = ""
    # Request bodies: a form or a JSON action; uploads and imports have their own limits
    # (app.web.middleware.BODY_LIMITS).
    max_body_bytes: int = 1024 * 1024
    max_portrait_bytes: int = 2 * 1024 * 1024
    # How long a write waits for SQLite's lock before the request answers 503 (Retry-After).
    sqlite_busy_timeout_ms: int = 10_000
    max_import_bytes: int = 20 * 1024 * 1024
    default_locale: str = "fr"
    # /metrics answers only ``Authorization: Bearer <this>``; empty: /metrics is a 404.
    metrics_token: str = ""
    # Argon2 cost; tests lower it so thousands of logins stay fast.
    argon2_time_cost: int | None = None
    argon2_memory_cost: int | None = None

    @cached_property
    def resolved_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{(self.data_dir / 'tablee.db').resolve()}"

    @cached_property
    def resolved_secret_key(self) -> str:
        if self.secret_key:
            return self.secret_key
        key_file = self.data_dir / "secret_key"
        if not key_file.exists():
            self.data_dir.mkdir(parents=True, exist_ok=True)
            key_file.write_text(secrets.token_urlsafe(48))
            key_file.chmod(0o600)
        return key_file.read_text().strip()

    @property
    def session_cookie_name(self) -> str:
        return "__Host-tablee_session" if self.https else "tablee_session"

    @property
    def anon_cookie_name(self) -> str:
        return "__Host-tablee_anon" if self.https else "tablee_anon"
