"""Rolls from a Tiamat sheet (``app.rules.sheet_rolls``): a characteristic, a skill, a weapon.

- A characteristic or a skill is « Jet de dés simple » (Tiamat § Tests et Actions):
  « Caractéristique x D10 + Compétence », the best D10 kept, each 10 a critical adding a D6
  (« Convention des lancers de dés »), against a difficulty when the page gives one (success
  on ≥). « Les choix de la caractéristique, de la compétence … sont à l'appréciation du MJ »:
  a skill is rolled with the characteristic the page chose, else with its usual one
  (``USUAL``, house — the text's own pairings where it gives them). A grave wound to the head
  costs a die and the house talents add theirs, as at the table (``match_actions._test``).
- A weapon rolls its puissance (« Armes / Dommage des armes »): Force + its dice for a contact
  weapon, its D6 alone for a gun (« Un tir de pistolet 9mm inflige 2D6 »).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.rules import notation
from app.rules.dice import Dice, Modifier, RollRecord
from app.rules.sheet_rolls import SheetRoll, choice, find
from app.rules.system import N_, NO_CONTENT, Content, ContentField
from app.rules.tiamat.content import CHAR_NAMES, SKILL_NAMES, Weapon, all_weapons
from app.rules.tiamat.pools import DIFFICULTIES, DIFFICULTY_NAMES, pool
from app.rules.tiamat.sheet import all_talents, characteristics
from app.rules.tiamat.talents import test_dice

RULE_TEST = "Tiamat § Tests et Actions / Jet de dés simple"
RULE_WEAPON = "Tiamat § Armes / Dommage des armes"

# The characteristic a skill is tested with when the page does not choose one (house). The
# text pairs Intelligence + Langue and + Informatique, Habileté + Infiltration and + Course,
# Perception + Vigilance and + Investigation, Tempérament + Intimidation (« Jet de dés
# simple », « Jet d'opposition », « Agir en équipe »); the others follow what the skill does.
USUAL = {
    "acrobatie": "habilete", "art": "habilete", "conduite": "habilete", "course": "habilete",
    "culture_generale": "intelligence", "explosif": "intelligence",
    "infiltration": "habilete", "informatique": "intelligence",
    "investigation": "perception", "intimidation": "temperament", "langue": "intelligence",
    "larcin": "habilete", "legende": "intelligence", "medecine": "intelligence",
    "meditation": "volonte", "natation": "endurance", "navigation": "intelligence",
    "persuasion": "temperament", "pilotage": "habilete", "seduction": "temperament",
    "survie": "perception", "vigilance": "perception",
}

OPTIONS = (
    ContentField("difficulty", N_("Difficulty"), "choice", required=False, choices=(
        ("", N_("none: the GM reads the score")),
        *((key, name) for key, name in DIFFICULTY_NAMES.items()))),
    ContentField("characteristic", N_("Characteristic for a skill"), "choice", required=False,
                 choices=(("", N_("its usual one")), *CHAR_NAMES.items())),
)


def _skill_level(sheet: Mapping[str, Any], key: str) -> int:
    value = (sheet.get("skills") or {}).get(key, 0)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _weapon_formula(weapon: Weapon, force: int) -> str:
    if weapon.uses_force or weapon.d10:
        text = f"{(force if weapon.uses_force else 0) + weapon.d10}D10"
        text += f" + {weapon.d6}D6" if weapon.d6 else ""
    else:
        text = f"{max(1, weapon.d6)}D6"
    if weapon.flat:
        text += f" + {weapon.flat}" if weapon.flat > 0 else f" − {-weapon.flat}"
    return text


def sheet_rolls(sheet: Mapping[str, Any], content: Content = NO_CONTENT) -> list[SheetRoll]:
    """The eight characteristics, the twenty-two skills (a skill not learnt adds nothing,
    « il n'ajoute rien »), and every weapon carried that strikes or shoots."""
    chars = characteristics(sheet)
    rolls = [SheetRoll(f"char:{key}", name, "characteristic", f"{chars[key]}D10", RULE_TEST)
             for key, name in CHAR_NAMES.items()]
    for key, name in SKILL_NAMES.items():
        level = _skill_level(sheet, key)
        formula = f"{chars[USUAL[key]]}D10" + (f" + {level}" if level else "")
        rolls.append(SheetRoll(f"skill:{key}", name, "skill", formula, RULE_TEST))
    weapons = all_weapons(content)
    for key in sheet.get("weapons") or []:
        weapon = weapons.get(key)
        if weapon is not None and weapon.kind in ("contact", "distance"):
            rolls.append(SheetRoll(f"weapon:{key}", weapon.name, "weapon",
                                   _weapon_formula(weapon, chars["force"]), RULE_WEAPON))
    return rolls


def roll_on_sheet(sheet: Mapping[str, Any], key: str, options: Mapping[str, Any],
                  dice: Dice, *, name: str, content: Content = NO_CONTENT) -> list[RollRecord]:
    """The test behind ``key`` (see the module's docstring), its purpose naming ``name``."""
    chosen = find(sheet_rolls(sheet, content), key)
    kind, _, item = chosen.key.partition(":")
    if kind == "weapon":
        return [_puissance(sheet, all_weapons(content)[item], dice, name)]
    difficulty = choice(options, "difficulty", DIFFICULTIES)
    characteristic = item if kind == "char" else choice(
        options, "characteristic", CHAR_NAMES, default=USUAL[item])
    skill = item if kind == "skill" else None
    return [_test(sheet, characteristic, skill, difficulty, dice, name)]


def _test(sheet: Mapping[str, Any], characteristic: str, skill: str | None, difficulty: str,
          dice: Dice, name: str) -> RollRecord:
    """« Caractéristique x D10 + Compétence »: a head wound costs a die (« Blessures
    graves »), each house talent that helps adds one (``talents.test_dice``)."""
    wounded = "tete" in (sheet.get("wounds") or [])
    gifts = test_dice({"talents": all_talents(sheet)}, characteristic, skill)
    count = characteristics(sheet)[characteristic] - wounded + len(gifts)
    level = _skill_level(sheet, skill) if skill else 0
    label = CHAR_NAMES[characteristic] + (f" + {SKILL_NAMES[skill]}" if skill else "")
    labels = (Modifier(level, SKILL_NAMES[skill]),) if skill and level else ()
    record = pool(dice, count, purpose=f"{label} — {name}", labels=labels)
    if not difficulty:
        return record
    target = DIFFICULTIES[difficulty]
    return record.with_target(target, "success" if record.total >= target else "failure")


def _puissance(sheet: Mapping[str, Any], weapon: Weapon, dice: Dice, name: str) -> RollRecord:
    purpose = f"puissance ({weapon.name}) — {name}"
    if weapon.uses_force or weapon.d10:
        d10 = (characteristics(sheet)["force"] if weapon.uses_force else 0) + weapon.d10
        return pool(dice, d10, d6=weapon.d6, flat=weapon.flat, purpose=purpose)
    return notation.roll(f"{max(1, weapon.d6)}d6" + (f"{weapon.flat:+d}" if weapon.flat else ""),
                         dice, purpose=purpose)
