"""Small field checks shared by the services, each raising a field-tagged error."""

from __future__ import annotations

import re
import unicodedata

from app.errors import ValidationFailed
from app.i18n import get_locale
from app.i18n import lazy_gettext as _l
from app.rules.errors import RulesError
from app.rules.text import TextRefused, check_text, nul_path

# Latin letters, accented ones included (« Gaëlle », « Zoé »), digits, dot, dash, underscore;
# other scripts stay out, so that no name can pass for another with look-alike letters.
USERNAME_RE = re.compile(r"^[0-9A-Za-zÀ-ÖØ-öø-ÿĀ-ſ_.\-]{3,40}$")


def username_form(value: str) -> str:
    """One spelling per name: composed accents (NFC), as typed and as looked up."""
    return unicodedata.normalize("NFC", value.strip())


def rules_message(error: RulesError) -> str:
    """A rules error's message in the request's language (the rules carry both)."""
    return error.message_fr() if get_locale() == "fr" else error.message


def text(value: object, *, field: str, max_length: int, required: bool = True,
         multiline: bool = False) -> str:
    """A text field, stripped, following the one text policy (``app.rules.text``)."""
    if not isinstance(value, str):
        raise ValidationFailed(_l("This must be text."), field=field)
    cleaned = value.strip()
    if required and not cleaned:
        raise ValidationFailed(_l("This field is required."), field=field)
    if len(cleaned) > max_length:
        raise ValidationFailed(_l("At most %(n)s characters.", n=max_length), field=field)
    policed(cleaned, field=field, multiline=multiline, required=required)
    return cleaned


def policed(value: str, *, field: str, multiline: bool = False, required: bool = False) -> str:
    """``value`` if the text policy accepts it, else a ``ValidationFailed`` on ``field``."""
    try:
        return check_text(value, multiline=multiline, required=required)
    except TextRefused as error:
        raise ValidationFailed(rules_message(error), field=field, code=error.code) from error


def username(value: object) -> str:
    name = username_form(text(value, field="username", max_length=40))
    if not USERNAME_RE.match(name):
        raise ValidationFailed(
            _l("3 to 40 characters: letters, digits, dot, dash or underscore."),
            field="username")
    return name


def no_nul(data: object, *, field: str = "") -> None:
    """Refuse JSON-like data with a NUL character anywhere (``field`` + the path to it):
    PostgreSQL refuses NUL in text and JSON, SQLite keeps it, so every entry point refuses
    it first and both databases answer the same clear 422."""
    if (where := nul_path(data)) is not None:
        refusal = TextRefused("text_control")
        raise ValidationFailed(rules_message(refusal), code=refusal.code,
                               field=".".join(part for part in (field, where) if part) or None)
