"""A hunter's sheet: profile, shaman, weapons, wounds, food brought back.

Seed § Les figurines: hunters are "Standards" or "Patauds", "caractérisés par leurs armements
individuels. Certains peuvent être des chamanes". § Les blessures: mass = wounds a figure
takes. The text rolls nothing at creation; what a hunter carries (at most three weapons) and
the hunters' mass are house decisions (docs/rules-notes.md § Chasse préhistorique).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.rules.chasse.content import GM_PREFIX, HUNTER_PROFILES, house_profiles, hunter_weapons
from app.rules.system import N_, NO_CONTENT, Content, Problem, Sheet

RULE_FIGURES = "Chasse préhistorique § Les figurines"
RULE_WOUNDS = "Chasse préhistorique § Les blessures"
RULE_WEAPONS = N_("Chasse préhistorique § Tirs (house rule: three weapons at most)")
RULE_FOOD = "Chasse préhistorique § Pillage / dépeçage"
MAX_WEAPONS = 3
FOOD_LIMIT = 100_000
FIELDS = {"profile", "shaman", "weapons", "wounds", "food", "hunts", "dead"}


def blank_sheet() -> Sheet:
    return {"profile": "standard", "shaman": False, "weapons": ["javelot"], "wounds": 0,
            "food": 0, "hunts": 0, "dead": False}


def _profile(sheet: Mapping[str, Any], content: Content = NO_CONTENT) -> Mapping[str, Any]:
    """The hunter's profile as the campaign plays it (the GM may change the house ones)."""
    found = house_profiles(content)["hunter"]
    return found.get(sheet.get("profile"), found["standard"])


def masse(sheet: Mapping[str, Any], content: Content = NO_CONTENT) -> int:
    return int(_profile(sheet, content)["masse"])


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def validate(sheet: Sheet, content: Content = NO_CONTENT) -> list[Problem]:
    if not isinstance(sheet, dict):
        return [Problem("sheet", N_("The sheet must be an object."), RULE_FIGURES)]
    problems: list[Problem] = []
    if sheet.get("profile") not in HUNTER_PROFILES:
        problems.append(Problem("profile", N_("Choose Standard or Pataud."), RULE_FIGURES))
    if not isinstance(sheet.get("shaman", False), bool):
        problems.append(Problem("shaman", N_("Yes or no."), RULE_FIGURES))
    problems += _weapon_problems(sheet.get("weapons"), content)
    wounds = sheet.get("wounds")
    if not _whole(wounds) or wounds < 0:
        problems.append(Problem("wounds", N_("Must be a whole number of at least 0."),
                                RULE_WOUNDS))
    elif sheet.get("profile") in HUNTER_PROFILES and wounds >= masse(sheet, content):
        problems.append(Problem("wounds", N_("A hunter with %(n)s wounds or more is dead: "
                                             "at most %(max)s."), RULE_WOUNDS,
                                {"n": masse(sheet, content), "max": masse(sheet, content) - 1}))
    for key in ("food", "hunts"):
        value = sheet.get(key)
        if not _whole(value) or not 0 <= value <= FOOD_LIMIT:
            problems.append(Problem(key, N_("Must be between %(low)s and %(high)s."), RULE_FOOD,
                                    {"low": 0, "high": FOOD_LIMIT}))
    if not isinstance(sheet.get("dead", False), bool):
        problems.append(Problem("dead", N_("Yes or no."), RULE_WOUNDS))
    unknown = set(sheet) - FIELDS
    if unknown:
        problems.append(Problem("sheet", N_("Unknown fields: %(names)s."), RULE_FIGURES,
                                {"names": ", ".join(sorted(unknown))}))
    return problems


def _weapon_problems(weapons: Any, content: Content) -> list[Problem]:
    if not isinstance(weapons, list) or not all(isinstance(w, str) for w in weapons):
        return [Problem("weapons", N_("Must be a list."), RULE_WEAPONS)]
    problems = []
    if not 1 <= len(weapons) <= MAX_WEAPONS:
        problems.append(Problem("weapons", N_("A hunter carries 1 to %(n)s weapons."),
                                RULE_WEAPONS, {"n": MAX_WEAPONS}))
    if len(set(weapons)) != len(weapons):
        problems.append(Problem("weapons", N_("The same weapon twice."), RULE_WEAPONS))
    known = hunter_weapons(content)
    for key in weapons:
        if key not in known:
            problems.append(Problem("weapons", N_("Unknown weapon: %(name)s."), RULE_WEAPONS,
                                    {"name": key[:40]}))
    return problems


def derived(sheet: Sheet, content: Content = NO_CONTENT) -> dict[str, Any]:
    """Dmax, mass (wounds it takes), the wounds left, and each weapon's ranges."""
    profile = _profile(sheet, content)
    known = hunter_weapons(content)
    carried = [known[key] for key in sheet.get("weapons") or [] if key in known]
    wounds = sheet.get("wounds") if _whole(sheet.get("wounds")) else 0
    return {"dmax": profile["dmax"], "masse": profile["masse"],
            "wounds_left": max(profile["masse"] - wounds, 0),
            "fire_target": 3 if sheet.get("shaman") else 6,
            "melee_bonus": profile["melee_bonus"],
            "throws": [{"name": w["name"], "short": w["throw"][0], "long": w["throw"][1]}
                       for w in carried if w["throw"]],
            "melee": [w["name"] for w in carried if w["melee"]]}


def _int(value: Any) -> int | str:
    text = str(value or "").strip()
    return int(text) if text.lstrip("-").isdigit() else text


def from_form(form: Mapping[str, str]) -> Sheet:
    """Fields ``profile``, ``shaman`` (checkbox), ``weapon_0..2`` (or ``weapon_extra``, a GM
    weapon's key), ``wounds``, ``food``, ``hunts``, ``dead`` (checkbox)."""
    weapons = [form[f"weapon_{n}"].strip() for n in range(MAX_WEAPONS + 1)
               if (form.get(f"weapon_{n}") or "").strip()]
    extra = (form.get("weapon_extra") or "").strip()
    if extra:
        weapons.append(extra if extra.startswith(GM_PREFIX) else GM_PREFIX + extra)
    checked = ("on", "true", "1", "yes")
    return {"profile": (form.get("profile") or "").strip(),
            "shaman": form.get("shaman") in checked, "weapons": weapons,
            "wounds": _int(form.get("wounds", "0") or "0"),
            "food": _int(form.get("food", "0") or "0"),
            "hunts": _int(form.get("hunts", "0") or "0"),
            "dead": form.get("dead") in checked}


TABLE_FIELDS = ("wounds", "food", "hunts", "dead")
RULE_CHANGE = N_("Chasse préhistorique § Pillage / dépeçage (house rule: the hunts write "
                 "these, the GM corrects them)")


def validate_change(before: Sheet, after: Sheet, content: Content = NO_CONTENT) -> list[
        Problem]:
    """A player does not write the food, hunts, wounds or death of a hunter: the hunts do
    (``between_matches``); a player's new hunter starts with none."""
    return [Problem(key, N_("Only the hunts change this (or the GM)."), RULE_CHANGE)
            for key in TABLE_FIELDS if after.get(key) != before.get(key)]
