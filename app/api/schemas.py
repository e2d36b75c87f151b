"""Shapes shared by the API modules: the error body and the common responses."""

from __future__ import annotations

import functools
import types
import typing
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic_core import PydanticCustomError

from app.rules.text import text_pattern


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
    429: "Too many attempts (see Retry-After)",
    500: "Server error (the same JSON error shape)",
    503: "Busy or unavailable for a moment: retry after Retry-After seconds",
}


def text(*, max_length: int, required: bool = True, multiline: bool = False,
         **field: Any) -> Any:
    """A text field whose schema states the one text policy (``app.rules.text``): what the
    schema accepts, the service accepts, and the other way round."""
    return Field(max_length=max_length, min_length=1 if required else 0,
                 pattern=text_pattern(multiline=multiline, required=required), **field)


def error_responses(*codes: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI entries for the error statuses a route may answer (400, 401, 403, 413, 422,
    500 and 503 always)."""
    wanted = sorted({400, 401, 403, 413, 422, 500, 503, *codes})
    return {code: {"model": ErrorBody, "description": _DESCRIPTIONS[code]} for code in wanted}


class Model(BaseModel):
    model_config = ConfigDict(from_attributes=True, extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _integers_are_integers(cls, data: Any) -> Any:
        """JSON ``true``, ``3.0`` or ``"2"`` is not an integer, whatever Python would coerce.

        (Pydantic's strict mode would also refuse enum values and dates sent as strings.)
        """
        if not isinstance(data, dict):
            return data
        for key, shape in _integer_fields(cls):
            value = data.get(key)
            values = value if shape == "list" and isinstance(value, list) else [value]
            if any(item is not None and (isinstance(item, bool) or not isinstance(item, int))
                   for item in values):
                # Said in the caller's language by app.http.validation_errors.
                raise PydanticCustomError("whole_number", "{field} must be a whole number",
                                          {"field": key})
        return data


@functools.cache
def _integer_fields(model: type[BaseModel]) -> tuple[tuple[str, str], ...]:
    """The model's integer fields (their JSON key, and "int" or "list"), read once per model
    rather than once per request."""
    shapes = ((field.alias or name, _int_shape(field.annotation))
              for name, field in model.model_fields.items())
    return tuple((key, shape) for key, shape in shapes if shape)


def _int_shape(annotation: Any) -> str | None:
    """"int" for ``int`` / ``int | None`` (also Annotated), "list" for ``list[int]``."""
    if typing.get_origin(annotation) is typing.Annotated:
        return _int_shape(typing.get_args(annotation)[0])
    if annotation is int:
        return "int"
    origin = typing.get_origin(annotation)
    if origin in (types.UnionType, typing.Union):
        args = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
        return _int_shape(args[0]) if len(args) == 1 else None
    if origin is list and _int_shape(typing.get_args(annotation)[0]) == "int":
        return "list"
    return None
