"""The session and language cookies."""

from __future__ import annotations

from starlette.responses import Response

from app.config import Settings
from app.i18n import LOCALE_COOKIE


def set_session_cookie(response: Response, settings: Settings, token: str) -> None:
    response.set_cookie(settings.session_cookie_name, token, httponly=True, samesite="lax",
                        secure=settings.https, path="/",
                        max_age=settings.session_absolute_hours * 3600)


def clear_session_cookie(response: Response, settings: Settings) -> None:
    response.delete_cookie(settings.session_cookie_name, path="/", secure=settings.https,
                           httponly=True, samesite="lax")


def set_locale_cookie(response: Response, settings: Settings, locale: str) -> None:
    response.set_cookie(LOCALE_COOKIE, locale, max_age=365 * 24 * 3600, samesite="lax",
                        secure=settings.https, path="/", httponly=True)
