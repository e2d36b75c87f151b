"""Rolls from a hunter's sheet (``app.rules.sheet_rolls``): fire, and each weapon's to-hit.

- « Allumer un feu » (Chasse préhistorique § Incendie): a D6, 6 or more (3 for a shaman),
  +1 a helper (three at most).
- A weapon thrown or struck (§ Tirs, § Bonus et malus au tir, the combat paragraphs): a D6
  at least the weapon's value against the defender's class (the weapon table is missing:
  ``data/weapons.toml``, house); long range −1, a small beast (M1) −1 except for bows and
  slings; a melee blow adds the Pataud's +1 (house) and the table's bonus (a charge +1, each
  supporting figure +1). The defender's save is the defender's roll, not the sheet's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.rules.chasse.combat import RULE_MELEE, RULE_SHOT
from app.rules.chasse.content import hunter_weapons, mass_class, profiles
from app.rules.chasse.fire import HELPERS_MAX, RULE, fire_target
from app.rules.chasse.resolve import d6
from app.rules.dice import Dice, RollRecord
from app.rules.purposes import Purpose
from app.rules.sheet_rolls import SheetRoll, choice, find, whole
from app.rules.system import N_, NO_CONTENT, Content, ContentField

SMALL = "m1"  # « une petite bête (catégorie M1) »
TARGETS = {SMALL: 1, "leger": 2, "moyen": 3, "lourd": 4}  # the class → a mass in it
BONUS = (-3, 3)
OPTIONS = (
    ContentField("target", N_("Class of the target"), "choice", required=False, choices=(
        ("moyen", N_("medium (M3: a Pataud, a boar)")),
        (SMALL, N_("small beast (M1)")),
        ("leger", N_("light (M2: a Standard hunter)")),
        ("lourd", N_("heavy (M4–M5)")))),
    ContentField("range", N_("Range of a throw"), "choice", required=False, choices=(
        ("courte", N_("short")), ("longue", N_("long (−1)")))),
    ContentField("helpers", N_("Helpers lighting the fire (+1 each)"), "int", low=0,
                 high=HELPERS_MAX, required=False),
    ContentField("bonus", N_("Other bonus (a charge +1, each supporter +1)"), "int",
                 low=BONUS[0], high=BONUS[1], required=False),
)


def sheet_rolls(sheet: Mapping[str, Any], content: Content = NO_CONTENT) -> list[SheetRoll]:
    """Lighting a fire, then each weapon carried: thrown, struck, or both (a javelot)."""
    rolls = [SheetRoll("fire", "feu", "test", f"1D6 ≥ {fire_target(bool(sheet.get('shaman')))}",
                       RULE)]
    known = hunter_weapons(content)
    for key in sheet.get("weapons") or []:
        weapon = known.get(key)
        if weapon is None:
            continue
        # The D6 to reach against a light, a medium and a heavy defender.
        to_hit = "1D6 ≥ " + "/".join(str(weapon["to_hit"][c]) for c in ("leger", "moyen", "lourd"))
        if weapon["throw"]:
            short, long_ = weapon["throw"]
            rolls.append(SheetRoll(f"throw:{key}", weapon["name"], "throw",
                                   f'{to_hit} · {short}" / {long_}"', RULE_SHOT))
        if weapon["melee"]:
            rolls.append(SheetRoll(f"strike:{key}", weapon["name"], "strike", to_hit,
                                   RULE_MELEE))
    return rolls


def roll_on_sheet(sheet: Mapping[str, Any], key: str, options: Mapping[str, Any],
                  dice: Dice, *, name: str, content: Content = NO_CONTENT) -> list[RollRecord]:
    """The test behind ``key`` (see the module's docstring), its purpose naming ``name``."""
    chosen = find(sheet_rolls(sheet, content), key)
    bonus = whole(options, "bonus", low=BONUS[0], high=BONUS[1])
    if chosen.key == "fire":
        helpers = whole(options, "helpers", low=0, high=HELPERS_MAX)
        rolled = d6(dice, Purpose("lighting a fire — {name}", name=name),
                    modifiers=((helpers, Purpose("helpers")), (bonus, Purpose("GM"))),
                    target=fire_target(bool(sheet.get("shaman"))))
        return [RollRecord.from_dict(rolled)]
    kind, _, item = chosen.key.partition(":")
    weapon = hunter_weapons(content)[item]
    target = choice(options, "target", TARGETS, default="moyen")
    modifiers: list[tuple[int, str]] = []
    if kind == "throw":
        if choice(options, "range", ("courte", "longue"), default="courte") == "longue":
            modifiers.append((-1, "portée longue"))
        if target == SMALL and not weapon.get("no_small_malus"):
            modifiers.append((-1, "petite bête (M1)"))
    else:
        pataud = profiles()["hunter"].get(sheet.get("profile"), {}).get("melee_bonus", 0)
        modifiers.append((int(pataud), "Pataud"))
    modifiers.append((bonus, Purpose("GM")))
    to_hit = int(weapon["to_hit"][mass_class(TARGETS[target])])
    rolled = d6(dice, f"{weapon['name']} — {name}", modifiers=tuple(modifiers), target=to_hit)
    return [RollRecord.from_dict(rolled)]
