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
FALSE_WORDS = ("", "off", "false", "0", "no")


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
    """A checkbox or a yes/no list: ``True``/``False`` from JSON, ``on``/nothing (and the
    like) from a form. Anything else is refused: a stale or forged value is no « no »."""
    value = action.get(field, False)
    if value is True or value in TRUE_WORDS:
        return True
    if value is False or value is None or value in FALSE_WORDS:
        return False
    raise IllegalAction("bad_field", field=field, reason="expected yes or no",
                        reason_fr="oui ou non est attendu")


def require_gm(actor: Actor) -> None:
    if not actor.is_gm:
        raise IllegalAction("gm_only")
