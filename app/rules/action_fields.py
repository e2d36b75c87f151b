"""Reading an action's fields, the same way in every game: a form posts strings, the API
posts JSON, and a bad value is refused (``IllegalAction("bad_field")``) naming the field
and what it may be. Each game's own refusals subclass ``IllegalAction``; these use only
the shared codes, whose messages every subclass inherits."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app.rules.match import Actor, IllegalAction
from app.rules.text import check_text

TRUE_WORDS = ("on", "true", "1", "yes")


def int_field(action: Mapping[str, Any], field: str, low: int, high: int,
              default: int | None = None) -> int:
    """A whole number within ``low``..``high``; an absent or empty field takes ``default``."""
    value = action.get(field, default)
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        value = int(value)
    if (value == "" or value is None) and default is not None:
        value = default
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise IllegalAction("bad_field", field=field, reason=f"{low}…{high}", low=low,
                            high=high)
    return value


def text_field(action: Mapping[str, Any], field: str, max_length: int, *,
               required: bool = True, multiline: bool = False) -> str:
    """A text, stripped, that follows the one text policy (``app.rules.text``)."""
    value = action.get(field, "")
    if not isinstance(value, str) or len(value.strip()) > max_length or (
            required and not value.strip()):
        raise IllegalAction("bad_field", field=field, reason=f"1…{max_length}",
                            max_length=max_length)
    return check_text(value.strip(), field=field, multiline=multiline, required=required)


def choice_field(action: Mapping[str, Any], field: str, choices: Sequence[str],
                 default: str | None = None) -> str:
    value = action.get(field, default)
    if value not in choices:
        raise IllegalAction("bad_field", field=field, reason=", ".join(choices)[:200],
                            choices=list(choices)[:20])
    return value


def flag(action: Mapping[str, Any], field: str) -> bool:
    """A checkbox: ``True`` from JSON, ``on`` (and the like) from a form."""
    value = action.get(field, False)
    return value is True or value in TRUE_WORDS


def require_gm(actor: Actor) -> None:
    if not actor.is_gm:
        raise IllegalAction("gm_only")
