"""Shapes shared by the API modules: the error body and the common responses."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict


class ErrorDetail(BaseModel):
    code: str
    message: str
    field: str | None = None
    details: dict[str, Any] | None = None


class ErrorBody(BaseModel):
    error: ErrorDetail


_DESCRIPTIONS = {
    400: "Bad request",
    401: "Not logged in, or wrong credentials",
    403: "Not allowed (role, or CSRF token missing)",
    404: "Not found, or not visible to you",
    409: "Conflict: stale version, archived campaign, or duplicate",
    413: "Too large",
    422: "Invalid input",
    429: "Too many attempts",
}


def error_responses(*codes: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI entries for the error statuses a route may answer (400/401/403/422 always)."""
    wanted = sorted({400, 401, 403, 422, *codes})
    return {code: {"model": ErrorBody, "description": _DESCRIPTIONS[code]} for code in wanted}


class Model(BaseModel):
    model_config = ConfigDict(from_attributes=True, extra="forbid")
