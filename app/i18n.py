"""Translations: French by default, English on request (Babel catalogues).

The current locale lives in a context variable set once per request (user preference,
then the language cookie, then ``Accept-Language``), so services and templates call
``gettext`` without passing the request around.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextvars import ContextVar
from functools import cache
from pathlib import Path

from babel import Locale
from babel.support import LazyProxy, NullTranslations, Translations

from app.rules import wording

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
    stay as they are (ids, dice, years): only a fraction needs the locale's mark
    (``app.rules.wording.number``, which the rules' own messages use too)."""
    return wording.number(value, locale or get_locale())


def localised(variables: Mapping[str, object]) -> dict[str, object]:
    """A message's values with every fraction written as the reader writes it."""
    return {name: number(value) if isinstance(value, float) else value
            for name, value in variables.items()}


def elided(text: str, variables: Mapping[str, object]) -> str:
    """A translated message with French elision made for its values (« la tête d'Équipe »,
    ``app.rules.wording``); other languages as they are."""
    return wording.elide(text, variables) if variables and get_locale() == "fr" else text


def gettext(message: str, **variables: object) -> str:
    text = translations_for(get_locale()).gettext(message)
    return elided(text, variables) % localised(variables) if variables else text


def ngettext(singular: str, plural: str, n: int, **variables: object) -> str:
    text = translations_for(get_locale()).ngettext(singular, plural, n)
    return elided(text, variables) % {"num": n, **localised(variables)}


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
