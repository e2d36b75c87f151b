"""How a message reads once its values are in: real plurals and French elision.

Two rules every message follows, whoever renders it (the Babel catalogues through
``app.i18n`` and the templates, the rules' own two-language messages through
``RulesError``), so that no message has to know its values in advance:

- **Plurals.** French says 0 and 1 in the singular (« 0 point », « 1 munition »), English
  only 1. A rules message writes a count as ``{n:unité|unités}``: the figure, then the word
  in the form the figure wants. The catalogues use ``ngettext`` for the same thing.
- **Numbers.** A fraction is written with the reader's decimal mark: « 4,8 cm » in French,
  "4.8 cm" in English (``number``: Babel's, to at most two places; a whole number stays as
  it is). A rules message does it for every float it is given; so do the catalogues'
  messages (``app.i18n``) and the templates' ``_()``.
- **Elision.** French drops the vowel of « de », « que », « le », « la » before a word that
  starts with a vowel sound (« la tête d'Équipe Acier », « plus que l'Aurochs »,
  « L'Aurochs avance »). A message cannot know whether the name it is given does, so the
  elision is made when the name is put in. A name starting with « h » or « y » keeps the
  full word: whether its « h » is mute is the name's own business (« de Hugues »).
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping
from typing import Any

from babel.numbers import format_decimal

# A word that starts with a vowel sound, as far as its first letter can tell.
_VOWEL_START = re.compile(r"[aeiouàâäéèêëîïôöùûüœæ]", re.IGNORECASE)
# « de », « que » (and the words ending in it), « le », « la » right before a placeholder:
# ``%(name)s`` (the catalogues) or ``{name}`` (the rules' messages, possibly with a spec).
_ELIDABLE = re.compile(
    r"\b(?P<word>[Dd]e|(?:[Jj]us|[Ll]ors|[Pp]uis)?[Qq]ue|[Ll][ea])"
    r" (?P<slot>%\((?P<percent>\w+)\)s|\{(?P<brace>\w+)(?::[^{}]*)?\})")


def is_singular(count: float, lang: str) -> bool:
    """Whether ``count`` takes the singular: 0 and 1 in French (and −1, 1,5…), 1 in English."""
    return abs(count) < 2 if lang == "fr" else abs(count) == 1


def number(value: object, lang: str, *, places: int = 2) -> str:
    """A number as the reader writes it: « 4,8 » in French, "4.8" in English, to at most
    ``places`` decimals. Whole numbers (ids, dice, years, 6.0) are written whole; anything
    that is not a float is written as it is."""
    if not isinstance(value, float):
        return str(value)
    if value.is_integer():
        return str(int(value))
    if value != value or value in (float("inf"), float("-inf")):
        return str(value)
    return format_decimal(round(value, places), format="#,##0." + "#" * places,
                          locale="fr" if lang == "fr" else "en")


def starts_with_vowel(value: object) -> bool:
    return bool(_VOWEL_START.match(str(value).lstrip()))


def elide(template: str, values: Mapping[str, Any]) -> str:
    """``template`` (French) with « de %(name)s » written « d'%(name)s » when the name given
    starts with a vowel; the placeholders stay, for the caller's own formatting."""
    def replace(match: re.Match[str]) -> str:
        name = match["percent"] or match["brace"]
        if name not in values or not starts_with_vowel(values[name]):
            return match[0]
        return f"{match['word'][:-1]}'{match['slot']}"
    return _ELIDABLE.sub(replace, template)


class _Counting(string.Formatter):
    """``str.format`` that also reads ``{n:word|words}`` as a count and its noun."""

    def __init__(self, lang: str) -> None:
        self.lang = lang

    def format_field(self, value: Any, format_spec: str) -> str:
        if "|" not in format_spec:
            if isinstance(value, float) and not format_spec:
                return number(value, self.lang)
            text = super().format_field(value, format_spec)
            return text.replace(".", ",") if isinstance(value, float) \
                and self.lang == "fr" else text
        singular, plural = format_spec.split("|", 1)
        return f"{number(value, self.lang)} " \
               f"{singular if is_singular(value, self.lang) else plural}"


def render(template: str, values: Mapping[str, Any], lang: str) -> str:
    """A rules message (``str.format`` syntax) in ``lang``, counts and elisions made."""
    if lang == "fr":
        template = elide(template, values)
    return _Counting(lang).vformat(template, (), values)
