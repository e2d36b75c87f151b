"""The cyborg's sheet: creation rolls, validation, and the values derived from it.

A sheet is plain JSON data::

    {"characteristics": {"force": 13, …},       # the six, 3..18 at creation
     "sante": 35, "sante_max": 35,               # 10D4 + 10; current santé may go below 0
     "resistance": 7,                            # the armour
     "skills": {"arme_blanche": 20, …},          # held skills → credit allocated to each
     "custom_skill": {"name": "…", "formula": ["intelligence", "volonte", "dexterite"]},
     "weapons": ["tronconneuse", …]}

Base percentages are never stored: they follow the characteristics (``derived``).
Sources: seed sections "(III) Le cyborg : feuille de personnage", "Règles § (I) Les
caractéristiques" and "Règles § (II) Les compétences".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from app.rules.cyborg.content import (
    CHARACTERISTICS,
    MAX_RESISTANCE,
    Skill,
    skill_by_number,
    skills,
    starting_weapons,
    weapons,
)
from app.rules.dice import Dice, RollRecord
from app.rules.errors import RulesError
from app.rules.notation import roll
from app.rules.system import N_, Problem, Sheet

RULE_SHEET = "(III) Le cyborg : feuille de personnage"
RULE_CHARACTERISTICS = "Règles § (I) Les caractéristiques"
RULE_SKILLS = "Règles § (II) Les compétences"
RULE_SANTE = "Règles § (III) Combats / Calcul des dégâts (10D4 + 10, entre 20 et 50)"
RULE_RESISTANCE = "Règles § (III) Combats / Calcul des dégâts (10 est la plus haute protection)"
RULE_HOUSE = "house: sheet format"

CHARACTERISTIC_RANGE = (3, 18)
SANTE_RANGE = (20, 50)
SANTE_FLOOR = -999  # current santé may fall below 0 ("0 ou négatif n'implique pas la mort")
ARMOUR_RESISTANCE = 7
CREDIT = 80
DRAWN_SKILLS = 3
MAX_DRAWS = 1000
MAX_CUSTOM_NAME = 40
CUSTOM = "au_choix"
SHEET_KEYS = {"characteristics", "sante", "sante_max", "resistance", "skills", "custom_skill",
              "weapons"}


class SkillDrawError(RulesError):
    """Dice that keep giving held skills: a broken dice source, never a fair one."""

    code = "skill_draw_stuck"
    templates_en: ClassVar[dict[str, str]] = {
        "skill_draw_stuck": "no new skill after {draws} draws",
    }
    templates_fr: ClassVar[dict[str, str]] = {
        "skill_draw_stuck": "aucune nouvelle compétence après {draws} tirages",
    }


def given_skills() -> tuple[str, ...]:
    """Arme blanche, Arme à feu, Esquive/Parade: every cyborg starts with them."""
    return tuple(key for key, skill in skills().items() if skill.given)


# — creation rolls —


def roll_characteristics(dice: Dice) -> tuple[dict[str, int], list[RollRecord]]:
    """Each characteristic: 4D6, the three best added (the dropped die stays in the record)."""
    records = [roll("4d6kh3", dice, purpose=name) for name in CHARACTERISTICS]
    values = {name: record.total for name, record in zip(CHARACTERISTICS, records, strict=True)}
    return values, records


def roll_sante(dice: Dice) -> RollRecord:
    return roll("10d4+10", dice, purpose="santé")


def draw_skills(
    dice: Dice, held: tuple[str, ...] | None = None, count: int = DRAWN_SKILLS
) -> tuple[list[str], list[RollRecord]]:
    """Draw ``count`` new skills with (1D20 + 1D6) − 1, re-drawing a 1, 2 or 3 (the given
    skills) or a skill already held. Every draw is recorded, re-draws included."""
    owned = list(given_skills() if held is None else held)
    drawn: list[str] = []
    records: list[RollRecord] = []
    while len(drawn) < count:
        if len(records) >= MAX_DRAWS:
            raise SkillDrawError(draws=len(records))
        record = roll("1d20+1d6-1", dice, purpose="compétence tirée")
        skill = skill_by_number(record.total)
        if record.total <= DRAWN_SKILLS:
            outcome = "re-draw: given skill"
        elif skill.key in owned:
            outcome = "re-draw: already held"
        else:
            outcome = skill.name
            owned.append(skill.key)
            drawn.append(skill.key)
        records.append(record.with_target(None, outcome))
    return drawn, records


@dataclass(frozen=True)
class Creation:
    sheet: Sheet
    records: tuple[RollRecord, ...]  # characteristics, santé, skill draws, in rolling order


def create_sheet(dice: Dice) -> Creation:
    """A new cyborg as the text builds it; the player then spreads the 80 % credit."""
    characteristics, records = roll_characteristics(dice)
    sante = roll_sante(dice)
    drawn, draws = draw_skills(dice)
    sheet = blank_sheet()
    sheet["characteristics"] = characteristics
    sheet["sante"] = sheet["sante_max"] = sante.total
    sheet["skills"].update({key: 0 for key in drawn})
    return Creation(sheet, (*records, sante, *draws))


def blank_sheet() -> Sheet:
    """A sheet before its rolls: average characteristics, the given skills, nothing drawn."""
    return {
        "characteristics": {name: 10 for name in CHARACTERISTICS},
        "sante": 35,
        "sante_max": 35,
        "resistance": ARMOUR_RESISTANCE,
        "skills": {key: 0 for key in given_skills()},
        "custom_skill": {"name": skills()[CUSTOM].name, "formula": list(skills()[CUSTOM].formula)},
        "weapons": list(starting_weapons()),
    }


# — derived values —


def base_percentage(skill: Skill, characteristics: Mapping[str, int],
                    custom_formula: tuple[str, ...] | None = None) -> int:
    """The sum of the skill's characteristics (Repérage: a flat 35 %)."""
    formula = custom_formula if skill.custom and custom_formula else skill.formula
    return skill.base + sum(characteristics.get(name, 0) for name in formula)


def skill_lines(sheet: Sheet) -> list[dict[str, Any]]:
    """Each held skill as the sheet shows it: base + allocated = total."""
    characteristics = _characteristics(sheet)
    custom = _custom_formula(sheet)
    lines = []
    for key, allocated in _skills(sheet).items():
        skill = skills().get(key)
        if skill is None:
            continue
        base = base_percentage(skill, characteristics, custom)
        extra = allocated if isinstance(allocated, int) and not isinstance(allocated, bool) else 0
        name = _custom_name(sheet) if skill.custom else skill.name
        lines.append({"key": key, "name": name, "base": base, "allocated": extra,
                      "total": base + extra, "cap": skill.cap})
    return lines


def skill_value(sheet: Sheet, key: str) -> int:
    """The percentage a test uses; 0 for a skill not held."""
    return next((line["total"] for line in skill_lines(sheet) if line["key"] == key), 0)


def punch_factor(force: int) -> str:
    """Punches (Arme blanche, broyage): force 3–6 → B, 7–12 → C, 13–18 → D, beyond → E.

    Règles § (III) Combats / Déroulement leaves the scale beyond 18 to the GM ("E et plus");
    Tablée starts it at E and the GM may raise it with a custom weapon.
    """
    if force <= 6:
        return "B"
    if force <= 12:
        return "C"
    return "D" if force <= 18 else "E"


def derived(sheet: Sheet) -> dict[str, Any]:
    lines = skill_lines(sheet)
    used = sum(line["allocated"] for line in lines)
    drawn = [line for line in lines if line["key"] not in given_skills()]
    return {
        "skills": lines,
        "credit_used": used,
        "credit_left": CREDIT - used,
        "skills_to_draw": max(0, DRAWN_SKILLS - len(drawn)),
        "punch_factor": punch_factor(_characteristics(sheet).get("force", 0)),
    }


# — validation —


def validate(sheet: Sheet) -> list[Problem]:
    """Every broken creation rule, each citing the seed section that sets it."""
    if not isinstance(sheet, dict):
        return [Problem("sheet", N_("The sheet must be an object."), RULE_HOUSE)]
    problems: list[Problem] = []
    unknown = set(sheet) - SHEET_KEYS
    if unknown:
        problems.append(Problem("sheet", N_("Unknown fields: %(names)s."), RULE_HOUSE,
                                {"names": ", ".join(sorted(unknown))}))
    problems += _characteristic_problems(sheet.get("characteristics"))
    problems += _sante_problems(sheet)
    resistance = sheet.get("resistance")
    if not _is_int(resistance) or not 0 <= resistance <= MAX_RESISTANCE:
        problems.append(Problem("resistance", N_("Must be between %(low)s and %(high)s."),
                                RULE_RESISTANCE, {"low": 0, "high": MAX_RESISTANCE}))
    problems += _skill_problems(sheet)
    problems += _custom_problems(sheet.get("custom_skill"))
    problems += _weapon_problems(sheet.get("weapons"))
    return problems


def _characteristic_problems(values: Any) -> list[Problem]:
    if not isinstance(values, dict) or set(values) != set(CHARACTERISTICS):
        return [Problem("characteristics", N_("The six characteristics are needed."),
                        RULE_CHARACTERISTICS)]
    low, high = CHARACTERISTIC_RANGE
    return [
        Problem(f"characteristics.{name}", N_("Must be between %(low)s and %(high)s."),
                RULE_CHARACTERISTICS, {"low": low, "high": high})
        for name in CHARACTERISTICS
        if not _is_int(values[name]) or not low <= values[name] <= high
    ]


def _sante_problems(sheet: Sheet) -> list[Problem]:
    problems = []
    low, high = SANTE_RANGE
    sante_max, sante = sheet.get("sante_max"), sheet.get("sante")
    if not _is_int(sante_max) or not low <= sante_max <= high:
        problems.append(Problem("sante_max", N_("Must be between %(low)s and %(high)s."),
                                RULE_SANTE, {"low": low, "high": high}))
    if not _is_int(sante) or sante < SANTE_FLOOR:
        problems.append(Problem("sante", N_("Must be a whole number."), RULE_SANTE))
    elif _is_int(sante_max) and sante > sante_max:
        problems.append(Problem("sante", N_("Santé cannot exceed its maximum."), RULE_SANTE))
    return problems


def _skill_problems(sheet: Sheet) -> list[Problem]:
    held = sheet.get("skills")
    if not isinstance(held, dict):
        return [Problem("skills", N_("Must be an object."), RULE_HOUSE)]
    problems = []
    unknown = [key for key in held if key not in skills()]
    if unknown:
        problems.append(Problem("skills", N_("Unknown skills: %(names)s."), RULE_SKILLS,
                                {"names": ", ".join(sorted(unknown))}))
    missing = [key for key in given_skills() if key not in held]
    if missing:
        problems.append(Problem("skills", N_("Every cyborg has %(names)s."), RULE_SKILLS,
                                {"names": ", ".join(skills()[key].name for key in missing)}))
    drawn = [key for key in held if key in skills() and key not in given_skills()]
    if len(drawn) not in (0, DRAWN_SKILLS):
        problems.append(Problem("skills", N_("A cyborg draws exactly %(n)s more skills."),
                                RULE_SKILLS, {"n": DRAWN_SKILLS}))
    for key, allocated in held.items():
        if not _is_int(allocated) or allocated < 0:
            problems.append(Problem(f"skills.{key}", N_("Must be a whole number, 0 or more."),
                                    RULE_SKILLS))
    if not problems:
        problems += _credit_problems(sheet)
    return problems


def _credit_problems(sheet: Sheet) -> list[Problem]:
    problems = []
    lines = skill_lines(sheet)
    used = sum(line["allocated"] for line in lines)
    if used > CREDIT:
        problems.append(Problem("skills", N_("The credit to spread is %(n)s %% at most."),
                                RULE_SKILLS, {"n": CREDIT, "used": used}))
    for line in lines:
        if line["cap"] is not None and line["total"] > line["cap"]:
            problems.append(Problem(f"skills.{line['key']}", N_("%(skill)s is %(n)s %% at most."),
                                    RULE_SKILLS + " (N.B.)",
                                    {"skill": line["name"], "n": line["cap"]}))
    return problems


def _custom_problems(custom: Any) -> list[Problem]:
    rule = RULE_SKILLS + " (25 Au choix du joueur)"
    if not isinstance(custom, dict) or set(custom) != {"name", "formula"}:
        return [Problem("custom_skill", N_("The player's own skill has a name and a formula."),
                        rule)]
    problems = []
    name = custom["name"]
    if not isinstance(name, str) or not 0 < len(name.strip()) <= MAX_CUSTOM_NAME:
        problems.append(Problem("custom_skill.name", N_("A name has 1 to %(n)s characters."),
                                rule, {"n": MAX_CUSTOM_NAME}))
    formula = custom["formula"]
    if (not isinstance(formula, list) or len(formula) != 3
            or any(part not in CHARACTERISTICS for part in formula)):
        problems.append(Problem("custom_skill.formula", N_("Pick three characteristics."), rule))
    return problems


def _weapon_problems(keys: Any) -> list[Problem]:
    rule = "Règles § (III) Combats / Catalogue des armes"
    if not isinstance(keys, list) or not all(isinstance(key, str) for key in keys):
        return [Problem("weapons", N_("Must be a list."), RULE_HOUSE)]
    unknown = [key for key in keys if key not in weapons()]
    if unknown:
        return [Problem("weapons", N_("Unknown weapons: %(names)s."), rule,
                        {"names": ", ".join(unknown)})]
    return []


# — tolerant readers: derived values are shown while a sheet is still being edited —


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _characteristics(sheet: Sheet) -> dict[str, int]:
    values = sheet.get("characteristics") if isinstance(sheet, dict) else None
    if not isinstance(values, dict):
        return {}
    return {name: values[name] for name in CHARACTERISTICS if _is_int(values.get(name))}


def _skills(sheet: Sheet) -> dict[str, Any]:
    held = sheet.get("skills") if isinstance(sheet, dict) else None
    return held if isinstance(held, dict) else {}


def _custom_formula(sheet: Sheet) -> tuple[str, ...] | None:
    custom = sheet.get("custom_skill") if isinstance(sheet, dict) else None
    formula = custom.get("formula") if isinstance(custom, dict) else None
    if isinstance(formula, list) and len(formula) == 3 and all(f in CHARACTERISTICS
                                                                for f in formula):
        return tuple(formula)
    return None


def _custom_name(sheet: Sheet) -> str:
    custom = sheet.get("custom_skill")
    name = custom.get("name") if isinstance(custom, dict) else None
    return name if isinstance(name, str) and name.strip() else skills()[CUSTOM].name
