"""The API's schema errors (FastAPI's ``RequestValidationError``) in the user's language.

Pydantic says what went wrong in English (``Input should be greater than or equal to 1``);
this module says it again from the error's ``type`` and ``ctx``, in the language the request
chose (the user's setting, else the language cookie, else ``Accept-Language``; French by
default), naming the field by its path in the request (the API's own names) and a range in
words: both its bounds when the schema gives two (« un nombre entier de 1 à 1 000 est
attendu »), looked up in the route's parameters since the error carries only the one broken.
The JSON shape stays ``{"error": {"code": "invalid_input", "message", "field"}}``.
"""

from __future__ import annotations

import re
import types
import typing
from collections.abc import Mapping, Sequence
from typing import Any

import annotated_types
from fastapi import Request
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from app.http.json_body import NOT_JSON
from app.i18n import gettext, ngettext


def N_(message: str) -> str:
    """Marks a message for the catalogue; translated where it is said."""
    return message


LOCATIONS = ("body", "query", "path", "form", "header", "cookie")

REQUIRED = N_("“%(field)s”: this field is required.")
WHOLE = N_("“%(field)s”: expected a whole number.")
NUMBER = N_("“%(field)s”: expected a number.")
TEXT = N_("“%(field)s”: expected a text.")
BOOLEAN = N_("“%(field)s”: expected true or false.")
OBJECT = N_("“%(field)s”: expected a JSON object.")
LIST = N_("“%(field)s”: expected a list.")
CHOICE = N_("“%(field)s”: expected one of %(choices)s.")
UNKNOWN = N_("“%(field)s”: this field is unknown.")
PATTERN = N_("“%(field)s”: this text holds a character that is not allowed (a control "
             "character or an invisible direction mark) or nothing visible.")
DATE = N_("“%(field)s”: expected a date and time (ISO 8601, e.g. 2026-05-01T20:15:00Z).")
INVALID = N_("“%(field)s”: this value is not valid.")
NO_BODY = N_("The request needs a body (a JSON object).")
ACTION_TOO_LARGE = N_("“%(field)s”: an action is at most %(max)s bytes of JSON.")
WHOLE_RANGE = N_("“%(field)s”: expected a whole number from %(low)s to %(high)s.")
RANGE = N_("“%(field)s”: expected a number from %(low)s to %(high)s.")
ABOVE_UP_TO = N_("“%(field)s”: expected a number greater than %(low)s and at most %(high)s.")
AT_LEAST = N_("“%(field)s”: expected a number of at least %(low)s.")
AT_MOST = N_("“%(field)s”: expected a number of at most %(high)s.")
ABOVE = N_("“%(field)s”: expected a number greater than %(low)s.")
BELOW = N_("“%(field)s”: expected a number less than %(high)s.")
TEXT_RANGE = N_("“%(field)s”: from %(low)s to %(high)s characters are expected.")
ITEMS_RANGE = N_("“%(field)s”: from %(low)s to %(high)s items are expected.")

_INTEGER = ("int_type", "int_parsing", "int_from_float", "int_parsing_size", "whole_number")
_FLOAT = ("float_type", "float_parsing", "finite_number", "decimal_type", "decimal_parsing")
_TEXT = ("string_type", "string_unicode", "string_sub_type")
_BOOLEAN = ("bool_type", "bool_parsing")
_OBJECT = ("model_type", "model_attributes_type", "dict_type", "mapping_type",
           "dataclass_type")
_LIST = ("list_type", "tuple_type", "set_type", "iterable_type")
_DATE = ("datetime_type", "datetime_parsing", "datetime_from_date_parsing", "date_type",
         "date_parsing", "timezone_aware", "timezone_naive", "datetime_object_invalid")
_NUMBER_BOUNDS = ("greater_than", "greater_than_equal", "less_than", "less_than_equal")


def field_path(error: Mapping[str, Any]) -> str | None:
    """The field's path in the request (``options.width``, ``character_ids.2``); a model's
    own check names its field in ``ctx`` (``app.api.schemas.Model``)."""
    if error.get("type") == "json_invalid":
        return None  # the position in the text, not a field
    loc = list(error.get("loc", ()))
    if loc and loc[0] in LOCATIONS:
        loc = loc[1:]  # where it was sent; a field may itself be named « body » (the chat's)
    parts = [str(part) for part in loc]
    named = (error.get("ctx") or {}).get("field")
    if isinstance(named, str):
        parts.append(named)
    return ".".join(parts) or None


def message(request: Request, error: Mapping[str, Any]) -> str:
    """One schema error as a sentence in the request's language."""
    kind = str(error.get("type", ""))
    ctx = error.get("ctx") or {}
    field = field_path(error)
    if kind == "json_invalid":
        return gettext(NOT_JSON)
    if field is None:
        return gettext(NO_BODY) if kind == "missing" else gettext(INVALID, field="?")
    said = _said(kind, ctx, field, request, error)
    return said if said is not None else gettext(INVALID, field=field)


def _choices(ctx: Mapping[str, Any]) -> list[str]:
    """The values pydantic lists as expected: « 'x' or 'y' », « 1, 2 or 3 », « 1 »."""
    expected = str(ctx.get("expected", ""))
    quoted = re.findall(r"'([^']*)'", expected)
    return quoted or [part for part in re.split(r",\s*|\s+or\s+", expected) if part]


def _said(kind: str, ctx: Mapping[str, Any], field: str, request: Request,
          error: Mapping[str, Any]) -> str | None:
    simple = {"missing": REQUIRED, "extra_forbidden": UNKNOWN,
              "string_pattern_mismatch": PATTERN}
    for kinds, text in ((_INTEGER, WHOLE), (_FLOAT, NUMBER), (_TEXT, TEXT),
                        (_BOOLEAN, BOOLEAN), (_OBJECT, OBJECT), (_LIST, LIST), (_DATE, DATE)):
        simple.update(dict.fromkeys(kinds, text))
    if kind in simple:
        return gettext(simple[kind], field=field)
    if kind in ("literal_error", "enum"):
        return gettext(CHOICE, field=field, choices=", ".join(_choices(ctx)) or "?")
    if kind == "action_too_large":
        return gettext(ACTION_TOO_LARGE, field=field, max=ctx.get("max"))
    bounds = _bounds(request, error.get("loc", ()))
    if kind in _NUMBER_BOUNDS:
        return _number_range(field, kind, ctx, bounds)
    if kind in ("string_too_short", "string_too_long", "too_short", "too_long"):
        low = ctx.get("min_length", bounds.get("min_length"))
        high = ctx.get("max_length", bounds.get("max_length"))
        if kind in ("string_too_short", "too_short"):
            high = bounds.get("max_length")
        else:
            low = bounds.get("min_length")
        characters = kind.startswith("string")
        low = low or None  # "from 0 to 60 characters" says less than "at most 60"
        if low is not None and high is not None:
            return gettext(TEXT_RANGE if characters else ITEMS_RANGE,
                           field=field, low=low, high=high)
        if high is not None:
            if characters:
                return ngettext("“%(field)s”: at most %(num)s character is expected.",
                                "“%(field)s”: at most %(num)s characters are expected.", high,
                                field=field)
            return ngettext("“%(field)s”: at most %(num)s item is expected.",
                            "“%(field)s”: at most %(num)s items are expected.", high,
                            field=field)
        if characters:
            return ngettext("“%(field)s”: at least %(num)s character is expected.",
                            "“%(field)s”: at least %(num)s characters are expected.", low or 1,
                            field=field)
        return ngettext("“%(field)s”: at least %(num)s item is expected.",
                        "“%(field)s”: at least %(num)s items are expected.", low or 1,
                        field=field)
    return None


def _number_range(field: str, kind: str, ctx: Mapping[str, Any],
                  bounds: Mapping[str, Any]) -> str:
    ge, gt = (ctx.get("ge"), None) if kind == "greater_than_equal" else (
        (None, ctx.get("gt")) if kind == "greater_than" else (bounds.get("ge"), bounds.get("gt")))
    le, lt = (ctx.get("le"), None) if kind == "less_than_equal" else (
        (None, ctx.get("lt")) if kind == "less_than" else (bounds.get("le"), bounds.get("lt")))
    whole = bounds.get("integer", False)
    if ge is not None and le is not None:
        return gettext(WHOLE_RANGE if whole else RANGE, field=field, low=ge, high=le)
    if gt is not None and le is not None:
        return gettext(ABOVE_UP_TO, field=field, low=gt, high=le)
    if ge is not None:
        return gettext(AT_LEAST, field=field, low=ge)
    if gt is not None:
        return gettext(ABOVE, field=field, low=gt)
    if le is not None:
        return gettext(AT_MOST, field=field, high=le)
    return gettext(BELOW, field=field, high=lt)


# — where the schema states the field's bounds ———————————————————————————————————————

_BOUND_TYPES = {annotated_types.Ge: "ge", annotated_types.Gt: "gt", annotated_types.Le: "le",
                annotated_types.Lt: "lt", annotated_types.MinLen: "min_length",
                annotated_types.MaxLen: "max_length"}


def _bounds(request: Request, loc: Sequence[Any]) -> dict[str, Any]:
    """The field's bounds (``ge``, ``le``, ``max_length``…) and whether it is an integer,
    from the route's parameters; empty when they cannot be found."""
    route = request.scope.get("route")
    dependant = getattr(route, "dependant", None)
    if dependant is None or not loc or loc[0] not in LOCATIONS:
        return {}
    try:
        info = _param(dependant, str(loc[0]), list(loc[1:]))
    except (AttributeError, KeyError, IndexError, TypeError):
        return {}
    return _info_bounds(info) if info is not None else {}


def _param(dependant: Any, where: str, path: list[Any]) -> FieldInfo | None:
    params = _params(dependant, where)
    if where == "body" and len(params) == 1 and _model(params[0].field_info.annotation) and (
            not path or path[0] != params[0].alias):
        return _walk(params[0].field_info, path)
    for param in params:
        if path and param.alias == path[0]:
            return _walk(param.field_info, path[1:])
    return None


def _params(dependant: Any, where: str) -> list[Any]:
    found = list(getattr(dependant, f"{where}_params", ()) or ())
    for child in dependant.dependencies:
        found += _params(child, where)
    return found


def _walk(info: FieldInfo, path: list[Any]) -> FieldInfo | None:
    for part in path:
        annotation = _unwrapped(info.annotation)
        model = _model(annotation)
        if model is not None and isinstance(part, str) and part in model.model_fields:
            info = model.model_fields[part]
        elif isinstance(part, int) and typing.get_origin(annotation) in (list, tuple, set):
            info = FieldInfo.from_annotation(typing.get_args(annotation)[0])
        elif isinstance(part, str) and typing.get_origin(annotation) is dict:
            info = FieldInfo.from_annotation(typing.get_args(annotation)[1])
        else:
            return None
    return info


def _unwrapped(annotation: Any) -> Any:
    """``X | None`` → ``X``; ``Annotated[X, …]`` → ``X``."""
    while True:
        origin = typing.get_origin(annotation)
        if origin is typing.Annotated:
            annotation = typing.get_args(annotation)[0]
        elif origin in (typing.Union, types.UnionType):
            members = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
            if len(members) != 1:
                return annotation
            annotation = members[0]
        else:
            return annotation


def _model(annotation: Any) -> type[BaseModel] | None:
    annotation = _unwrapped(annotation)
    return annotation if isinstance(annotation, type) and issubclass(
        annotation, BaseModel) else None


def _info_bounds(info: FieldInfo) -> dict[str, Any]:
    bounds: dict[str, Any] = {}
    metadata = list(info.metadata)
    # ``Annotated[str, Field(…)] | None`` keeps its bounds inside the union's member.
    if typing.get_origin(info.annotation) in (typing.Union, types.UnionType):
        for member in typing.get_args(info.annotation):
            if typing.get_origin(member) is typing.Annotated:
                metadata += FieldInfo.from_annotation(member).metadata
    for item in metadata:
        for kind, name in _BOUND_TYPES.items():
            if isinstance(item, kind):
                bounds[name] = getattr(item, name)
    bounds["integer"] = _unwrapped(info.annotation) is int
    return bounds
