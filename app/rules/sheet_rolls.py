"""Rolls from a character sheet: what on a sheet rolls, and how the page asks for it.

A game whose sheet rolls (a skill, a characteristic, a weapon) offers three optional members
(docs/game-system.md § Sheet rolls):

- ``sheet_rolls(sheet, content) -> list[SheetRoll]``: each thing that rolls, by its key;
- ``sheet_roll_options``: the choices offered beside the buttons (a difficulty, a
  situational modifier), as ``ContentField``s (``choice`` or ``int``, never required);
- ``roll_on_sheet(sheet, key, options, dice, *, name, content) -> list[RollRecord]``: the
  game's own test for that key, with the dice injected; ``SheetRollRefused`` (or the game's
  own ``RulesError``) for a key or an option it does not know.

The rules stay pure: the platform signs the records into the campaign's roll log.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from app.rules.errors import RulesError


@dataclass(frozen=True)
class SheetRoll:
    """One thing on a sheet that rolls."""

    key: str  # what the page and the API send: "skill:arme_a_feu", "char:force", "pump"
    label: str  # as the sheet names it (a game term: « Arme à feu »)
    group: str  # "characteristic", "skill", "weapon" or "test"
    formula: str  # what it rolls, as the game writes it: « 55 % », « 3D10 + 2 »
    rule: str  # the seed section of the test


class SheetRollRefused(RulesError):
    """A sheet roll the rules cannot make: an unknown key, or an option out of its range."""

    code = "unknown_roll"
    templates_en: ClassVar[dict[str, str]] = {
        "unknown_roll": "this sheet has nothing called '{key}' to roll",
        "bad_choice": "choose one of the values offered",
        "bad_number": "a whole number from {low} to {high}",
    }
    templates_fr: ClassVar[dict[str, str]] = {
        "unknown_roll": "cette fiche n'a rien à lancer sous le nom « {key} »",
        "bad_choice": "choisissez l'une des valeurs proposées",
        "bad_number": "un nombre entier de {low} à {high}",
    }


def find(rolls: Iterable[SheetRoll], key: object) -> SheetRoll:
    """The sheet roll called ``key``, or the refusal that says there is none."""
    for roll in rolls:
        if roll.key == key:
            return roll
    raise SheetRollRefused("unknown_roll", key=str(key)[:60])


def choice(options: Mapping[str, Any], name: str, allowed: Iterable[str], *,
           default: str = "") -> str:
    """An option that is one of ``allowed`` (blank: ``default``). A refusal names the option
    (``fields["option"]``): the page shows it next to that field."""
    value = str(options.get(name) or "").strip()
    if not value:
        return default
    if value not in set(allowed):
        raise SheetRollRefused("bad_choice", option=name)
    return value


def whole(options: Mapping[str, Any], name: str, *, low: int, high: int,
          default: int = 0) -> int:
    """A whole-number option within ``low``..``high`` (blank: ``default``)."""
    value = options.get(name)
    if value is None or (isinstance(value, str) and not value.strip()):
        return default
    if isinstance(value, bool):
        raise SheetRollRefused("bad_number", option=name, low=low, high=high)
    try:
        number = int(str(value).strip().replace("−", "-"))
    except ValueError:
        raise SheetRollRefused("bad_number", option=name, low=low, high=high) from None
    if not low <= number <= high:
        raise SheetRollRefused("bad_number", option=name, low=low, high=high)
    return number
