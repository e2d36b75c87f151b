"""Small field checks shared by the services, each raising a field-tagged error."""

from __future__ import annotations

import re

from app.errors import ValidationFailed
from app.i18n import lazy_gettext as _l

USERNAME_RE = re.compile(r"^[A-Za-z0-9_.\-]{3,40}$")


def text(value: object, *, field: str, max_length: int, required: bool = True) -> str:
    if not isinstance(value, str):
        raise ValidationFailed(_l("This must be text."), field=field)
    cleaned = value.strip()
    if required and not cleaned:
        raise ValidationFailed(_l("This field is required."), field=field)
    if len(cleaned) > max_length:
        raise ValidationFailed(_l("At most %(n)s characters.", n=max_length), field=field)
    if "\x00" in cleaned:
        raise ValidationFailed(_l("This text contains a forbidden character."), field=field)
    return cleaned


def username(value: object) -> str:
    name = text(value, field="username", max_length=40)
    if not USERNAME_RE.match(name):
        raise ValidationFailed(
            _l("3 to 40 characters: letters, digits, dot, dash or underscore."),
            field="username")
    return name
