"""What text Tablée accepts — one policy for every entry point: pages, the JSON API, actions at
the table and campaign imports (so what one accepts, all accept, and the other way round).

- No control character (NUL included) except line breaks and tabs in multi-line text (notes,
  descriptions). They are invisible on a page, break logs and exports, and PostgreSQL refuses
  NUL outright.
- No bidirectional override or isolate (U+202A–U+202E, U+2066–U+2069) nor the invisible
  direction marks: they make a name display as something else than what it is ("Trojan
  Source"); a name in Arabic or Hebrew needs none of them.
- A required text is not made only of invisible characters (spaces of any kind, zero-width
  characters, fillers): a name nobody can see is no name.
"""

from __future__ import annotations

import re
from typing import ClassVar

from app.rules.match import IllegalAction

# The three sets, as regular-expression classes: the JSON API's schema states the same rule
# with them (``text_pattern``), so a client can tell an acceptable text before sending it.
CONTROLS = "\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f-\\x9f"  # Cc, but tab and line breaks
LINE_BREAKS = "\\t\\n\\r"
BIDI = "\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069"
# Characters that draw nothing besides spaces: format characters (zero-width spaces and
# joiners, soft hyphen, word joiners, byte-order mark, tags) and the Hangul and Braille
# fillers used to fake an empty name.
INVISIBLE = ("\\u00ad\\u034f\\u115f\\u1160\\u17b4\\u17b5\\u180e\\u200b-\\u200d"
             "\\u2060-\\u2064\\u206a-\\u206f\\u2800\\u3164\\ufeff\\uffa0")

_BIDI = re.compile(f"[{BIDI}]")


def text_pattern(*, multiline: bool = False, required: bool = False) -> str:
    """The policy as one regular expression (for the API's schema)."""
    refused = CONTROLS + BIDI + ("" if multiline else LINE_BREAKS)
    if not required:
        return f"^[^{refused}]*$"
    return f"^[^{refused}]*[^{refused}{INVISIBLE}\\s][^{refused}]*$"


def text_problem(value: str, *, multiline: bool = False, required: bool = False) -> str | None:
    """Why ``value`` is refused (``"control"``, ``"bidi"`` or ``"invisible"``), or None."""
    if _BIDI.search(value):
        return "bidi"
    if re.search(f"[{CONTROLS}{'' if multiline else LINE_BREAKS}]", value):
        return "control"
    if required and value and not re.search(f"[^{INVISIBLE}\\s]", value):
        return "invisible"
    return None


class TextRefused(IllegalAction):
    """A text the policy refuses (``code``: ``text_`` + what ``text_problem`` found). An
    ``IllegalAction`` too, so a refused text at the table is refused like any action."""

    code = "text_control"
    templates_en: ClassVar[dict[str, str]] = {
        "text_control": "This text contains a control character (such as NUL or an escape); "
                   "remove it.",
        "text_bidi": "This text contains invisible direction marks that could disguise it; "
                "remove them.",
        "text_invisible": "This text is made only of invisible characters; write something "
                     "readable.",
    }
    templates_fr: ClassVar[dict[str, str]] = {
        "text_control": "Ce texte contient un caractère de contrôle (comme NUL ou un "
                   "échappement) ; retirez-le.",
        "text_bidi": "Ce texte contient des marques de direction invisibles qui pourraient le "
                "déguiser ; retirez-les.",
        "text_invisible": "Ce texte n'est fait que de caractères invisibles ; écrivez quelque "
                     "chose de lisible.",
    }


def check_text(value: str, *, field: str | None = None, multiline: bool = False,
               required: bool = False) -> str:
    """``value`` itself, or ``TextRefused`` saying why not (naming ``field``)."""
    problem = text_problem(value, multiline=multiline, required=required)
    if problem is not None:
        raise TextRefused(f"text_{problem}", **({"field": field} if field else {}))
    return value


def nul_path(value: object, path: str = "") -> str | None:
    """Where a NUL character hides in JSON-like data (a dotted path; ``""`` for the value
    itself), or None. PostgreSQL refuses NUL in text and JSON alike, SQLite keeps it: every
    entry point refuses it first, so both databases answer the same."""
    if isinstance(value, str):
        return path if "\x00" in value else None
    if isinstance(value, dict):
        for key, item in value.items():
            where = f"{path}.{key}" if path else str(key)
            if "\x00" in str(key):
                return where
            if (found := nul_path(item, where)) is not None:
                return found
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            if (found := nul_path(item, f"{path}.{index}" if path else str(index))) is not None:
                return found
    return None
