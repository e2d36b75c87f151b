"""Helpers for HTML forms: safe redirects and turning errors into inline messages."""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.responses import RedirectResponse

from app.errors import AppError


def see_other(url: str) -> RedirectResponse:
    """303 after a POST, so a reload never posts twice."""
    return RedirectResponse(url, status_code=303)


def safe_next(target: str | None, default: str = "/") -> str:
    """Only local paths: ``next=//evil.example`` must not become an open redirect."""
    if not target:
        return default
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith("//") \
            or "\\" in target:
        return default
    return target


def field_errors(error: AppError) -> dict[str, str]:
    """``{field: message}`` for the form; errors without a field go under ``_form``. An
    error that carries every problem of the form (``details.errors``) gives them all."""
    every = error.details.get("errors") if isinstance(error.details, dict) else None
    if isinstance(every, dict):
        return {str(field): str(message) for field, message in every.items()}
    return {error.field or "_form": str(error.message)}
