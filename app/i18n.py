"""Translations: French by default, English on request (Babel catalogues).

The current locale lives in a context variable set once per request (user preference,
then the language cookie, then ``Accept-Language``), so services and templates call
``gettext`` without passing the request around.
"""

from __future__ import annotations

from contextvars import ContextVar
from functools import cache
from pathlib import Path

from babel import Locale
from babel.numbers import format_decimal
from babel.support import LazyProxy, NullTranslations, Translations

SUPPORTED_LOCALES = ("fr", "en")
DEFAULT_LOCALE = "fr"
TRANSLATIONS_DIR = Path(__file__).parent / "translations"
LOCALE_COOKIE = "tablee_locale"

_current_locale: ContextVar[str] = ContextVar("locale", default=DEFAULT_LOCALE)

LazyText = LazyProxy


@cache
def translations_for(locale: str) -> NullTranslations:
    return Translations.load(str(TRANSLATIONS_DIR), [locale], domain="messages")


def set_locale(locale: str) -> None:
    _current_locale.set(locale if locale in SUPPORTED_LOCALES else DEFAULT_LOCALE)


def get_locale() -> str:
    return _current_locale.get()


def number(value: float | int, locale: str | None = None) -> str:
    """A number as the reader writes it: « 9,5 » in French, "9.5" in English. Whole numbers
    stay as they are (ids, dice, years): only a fraction needs the locale's mark."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, float):
        return str(value)
    return format_decimal(value, format="#,##0.##", locale=locale or get_locale())


def _localised(variables: dict[str, object]) -> dict[str, object]:
    return {name: number(value) if isinstance(value, float) else value
            for name, value in variables.items()}


def gettext(message: str, **variables: object) -> str:
    text = translations_for(get_locale()).gettext(message)
    return text % _localised(variables) if variables else text


def ngettext(singular: str, plural: str, n: int, **variables: object) -> str:
    text = translations_for(get_locale()).ngettext(singular, plural, n)
    return text % {"num": n, **_localised(variables)}


def lazy_gettext(message: str, **variables: object) -> LazyProxy:
    """A string translated when shown, in the language of whoever sees it."""
    return LazyProxy(gettext, message, enable_cache=False, **variables)


def negotiate(accept_language: str | None) -> str | None:
    """The best supported locale for an ``Accept-Language`` header, if any."""
    if not accept_language:
        return None
    ranked: list[tuple[float, str]] = []
    for part in accept_language.split(","):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        if params.strip().startswith("q="):
            try:
                quality = float(params.strip()[2:])
            except ValueError:
                quality = 0.0
        ranked.append((quality, tag.strip().lower()))
    for _, tag in sorted(ranked, key=lambda item: -item[0]):
        primary = tag.split("-")[0]
        if primary in SUPPORTED_LOCALES:
            return primary
    return None


def choose_locale(user_locale: str | None, cookie: str | None, accept: str | None) -> str:
    for candidate in (user_locale, cookie):
        if candidate in SUPPORTED_LOCALES:
            return candidate
    return negotiate(accept) or DEFAULT_LOCALE


def language_name(locale: str) -> str:
    return Locale.parse(locale).get_display_name(locale).capitalize()
