"""Rolls from a Cyborg sheet (``app.rules.sheet_rolls``): the game's own tests (``checks``).

- A skill: the percentile dice against the skill's total (base + credit + rank − wounds),
  moved by the GM's modifier in %; a success whose units die shows 0 is a master stroke
  (Cyborg § (III) Combats / Déroulement).
- A characteristic: 1D20 plus the GM's malus, at most the characteristic in play to succeed
  (Cyborg § (I) Les caractéristiques: « 9 + 3 = 12 < 13 : c'est une réussite »).
- A weapon: the test of the skill it is used with (Arme blanche or Arme à feu, § (III)
  Catalogue des armes), the attack the table would roll before any dodge.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.rules.cyborg.checks import CHARACTERISTIC_RULE, SKILL_RULE, characteristic_test, skill_test
from app.rules.cyborg.content import CHARACTERISTIC_NAMES, all_weapons, skills
from app.rules.cyborg.sheet import effective_characteristics, skill_lines
from app.rules.dice import Dice, Modifier, RollRecord
from app.rules.purposes import Purpose
from app.rules.sheet_rolls import SheetRoll, find, whole
from app.rules.system import N_, NO_CONTENT, Content, ContentField

MODIFIER = (-100, 100)
MALUS = (-20, 20)
OPTIONS = (
    ContentField("modifier", N_("Skill modifier, in points (+ makes it easier)"), "int",
                 low=MODIFIER[0], high=MODIFIER[1], required=False),
    ContentField("malus", N_("Characteristic malus (added to the D20, + makes it harder)"),
                 "int", low=MALUS[0], high=MALUS[1], required=False),
)


def sheet_rolls(sheet: Mapping[str, Any], content: Content = NO_CONTENT) -> list[SheetRoll]:
    """The six characteristics, every skill held, every weapon carried."""
    chars = effective_characteristics(sheet)
    rolls = [SheetRoll(f"char:{key}", name, "characteristic", f"1D20 ≤ {chars.get(key, 0)}",
                       CHARACTERISTIC_RULE) for key, name in CHARACTERISTIC_NAMES.items()]
    totals = {}
    for line in skill_lines(sheet):
        totals[line["key"]] = line["total"]
        rolls.append(SheetRoll(f"skill:{line['key']}", line["name"], "skill",
                               f"{line['total']} %", SKILL_RULE))
    catalogue = all_weapons(content)
    for key in sheet.get("weapons") or []:
        weapon = catalogue.get(key) if isinstance(key, str) else None
        if weapon is not None:
            rolls.append(SheetRoll(f"weapon:{key}", weapon.name, "weapon",
                                   f"{totals.get(weapon.skill, 0)} %", SKILL_RULE))
    return rolls


def roll_on_sheet(sheet: Mapping[str, Any], key: str, options: Mapping[str, Any],
                  dice: Dice, *, name: str, content: Content = NO_CONTENT) -> list[RollRecord]:
    """The test behind ``key`` (see the module's docstring), its purpose naming ``name``."""
    chosen = find(sheet_rolls(sheet, content), key)
    kind, _, item = chosen.key.partition(":")
    if kind == "char":
        malus = whole(options, "malus", low=MALUS[0], high=MALUS[1])
        value = effective_characteristics(sheet).get(item, 0)
        test = characteristic_test(dice, value, malus, purpose=f"{chosen.label} — {name}")
        return [test.record]
    modifier = whole(options, "modifier", low=MODIFIER[0], high=MODIFIER[1])
    modifiers = (Modifier(modifier, Purpose("GM")),) if modifier else ()
    # The modifier moves the target, not the dice: the purpose says it, the target shows it.
    moved = f" {modifier:+d} %".replace("-", "−") if modifier else ""
    if kind == "weapon":
        weapon = all_weapons(content)[item]
        skill = weapon.skill
        skill_name = skills()[skill].name if skill in skills() else skill
        purpose = f"{weapon.name} ({skill_name}{moved}) — {name}"
    else:
        skill, purpose = item, f"{chosen.label}{moved} — {name}"
    total = next((line["total"] for line in skill_lines(sheet) if line["key"] == skill), 0)
    return [skill_test(dice, total, modifiers, purpose=purpose).record]
