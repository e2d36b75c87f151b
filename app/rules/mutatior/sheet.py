"""A Mutatior sheet as JSON, and the ``Mutant`` it stands for.

000_e34df4ff7a8d792c.txt § Feuilles de mutants: a sheet is a name (the character's), the
limbs with their organs and implants, the skills, the biomass, popularity and XP. Here a
sheet also keeps the wounds a fight left (``lost_*`` per limb, healed between fights with
biomass, § 3-2 Soins), the biomass its trainer banked on it (``reserve_kg``), the popularity
won beyond its skills (``fame``), its team name (optional) and whether it died.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.rules.mutatior.body import MAX_LIMBS, Limb, Mutant
from app.rules.mutatior.content import IMPLANTS, SKILLS, Implant, rule
from app.rules.system import N_, Problem

ORGAN_FIELDS = ("muscles", "biomoteurs", "lobes")
LOST_FIELDS = tuple(f"lost_{organ}" for organ in ORGAN_FIELDS)
LIMB_KEYS = frozenset({"name", "trunk", "tentacle", *ORGAN_FIELDS, *LOST_FIELDS, "offensive",
                       "defensive", "special"})
SHEET_KEYS = frozenset({"limbs", "skills", "xp", "fame", "reserve_kg", "team", "dead",
                        "damage_order", "fights", "grafts"})
# Counted by the table and the trainer, read by ``changes.validate_change`` (§ 3-2): the fights
# the mutant came back from, and the limbs Greffon added (one per fight survived).
COUNTERS = ("xp", "fame", "reserve_kg", "fights", "grafts")
# § 1-5 Dégâts: muscles, then biomoteurs, then lobes — "sinon choisissez vous-même": the order
# the owner chose, used when the GM lets owners choose (the arena form).
DAMAGE_ORDERS = tuple(",".join(order) for order in (
    ("muscles", "biomoteurs", "lobes"), ("muscles", "lobes", "biomoteurs"),
    ("biomoteurs", "muscles", "lobes"), ("biomoteurs", "lobes", "muscles"),
    ("lobes", "muscles", "biomoteurs"), ("lobes", "biomoteurs", "muscles")))
NAME_MAX = 40
TEAM_MAX = 60
NUMBER_MAX = 1_000_000
ORGAN_MAX = 99
FORM_ROWS = MAX_LIMBS  # the form's limb rows (2 spare ones are shown beyond the body)
DEFENSIVE_SLOTS = 3
R_SHEET = rule("Feuilles de mutants")


def blank_limb(name: str = "", *, trunk: bool = False) -> dict[str, Any]:
    return {"name": name, "trunk": trunk, "tentacle": False, "muscles": 1, "biomoteurs": 0,
            "lobes": 0, "lost_muscles": 0, "lost_biomoteurs": 0, "lost_lobes": 0,
            "offensive": "", "defensive": [], "special": ""}


def limb_dict(limb: Limb) -> dict[str, Any]:
    return {"name": limb.name, "trunk": limb.trunk, "tentacle": limb.tentacle,
            "muscles": limb.muscles, "biomoteurs": limb.biomoteurs, "lobes": limb.lobes,
            "lost_muscles": limb.lost_muscles, "lost_biomoteurs": limb.lost_biomoteurs,
            "lost_lobes": limb.lost_lobes, "offensive": limb.offensive or "",
            "defensive": list(limb.defensive), "special": limb.special or ""}


def sheet_of(mutant: Mutant, **extra: Any) -> dict[str, Any]:
    """A sheet for a built mutant (the samples, the demo teams)."""
    sheet = {"limbs": [limb_dict(limb) for limb in mutant.limbs], "skills": list(mutant.skills),
             "xp": mutant.xp, "fame": mutant.fame, "reserve_kg": 0, "team": "", "dead": False,
             "fights": 0, "grafts": 0}
    sheet.update(extra)
    return sheet


def _whole(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def shape_problems(sheet: Any) -> list[Problem]:
    """The JSON's shape: types and ranges, before the rules are read."""
    if not isinstance(sheet, dict):
        return [Problem("sheet", N_("The sheet must be an object."), R_SHEET)]
    problems = []
    unknown = set(sheet) - SHEET_KEYS
    if unknown:
        problems.append(Problem("sheet", N_("Unknown fields: %(names)s."), R_SHEET,
                                {"names": ", ".join(sorted(map(str, unknown)))}))
    for key in COUNTERS:
        value = _whole(sheet.get(key, 0))
        if value is None or not 0 <= value <= NUMBER_MAX:
            problems.append(Problem(key, N_("Must be between %(low)s and %(high)s."), R_SHEET,
                                    {"low": 0, "high": NUMBER_MAX}))
    team = sheet.get("team", "")
    if not isinstance(team, str) or len(team) > TEAM_MAX:
        problems.append(Problem("team", N_("Must be text of at most %(n)s characters."),
                                R_SHEET, {"n": TEAM_MAX}))
    if sheet.get("damage_order", "") not in ("", *DAMAGE_ORDERS):
        problems.append(Problem("damage_order", N_("Unknown damage order."),
                                rule("1-5 Dégâts")))
    if not isinstance(sheet.get("dead", False), bool):
        problems.append(Problem("dead", N_("Must be yes or no."), R_SHEET))
    skills = sheet.get("skills")
    if not isinstance(skills, list) or not all(isinstance(s, str) for s in skills):
        problems.append(Problem("skills", N_("Must be a list."), R_SHEET))
    limbs = sheet.get("limbs")
    if not isinstance(limbs, list):
        problems.append(Problem("limbs", N_("Must be a list."), R_SHEET))
        return problems
    if len(limbs) > MAX_LIMBS:
        return problems  # the body rule says it (and reading on is pointless)
    for index, limb in enumerate(limbs):
        problems += _limb_shape(index, limb)
    return problems


def _limb_shape(index: int, limb: Any) -> list[Problem]:
    where = f"limbs.{index}"
    if not isinstance(limb, dict):
        return [Problem(where, N_("A limb is an object."), R_SHEET)]
    problems = []
    unknown = set(limb) - LIMB_KEYS
    if unknown:
        problems.append(Problem(where, N_("Unknown fields: %(names)s."), R_SHEET,
                                {"names": ", ".join(sorted(map(str, unknown)))}))
    name = limb.get("name")
    if not isinstance(name, str) or len(name) > NAME_MAX:
        problems.append(Problem(f"{where}.name", N_("A limb's name has 1 to %(n)s characters."),
                                R_SHEET, {"n": NAME_MAX}))
    for key in (*ORGAN_FIELDS, *LOST_FIELDS):
        value = _whole(limb.get(key, 0))
        if value is None or not 0 <= value <= ORGAN_MAX:
            problems.append(Problem(f"{where}.{key}", N_("Must be between %(low)s and %(high)s."),
                                    R_SHEET, {"low": 0, "high": ORGAN_MAX}))
    for key in ("trunk", "tentacle"):
        if not isinstance(limb.get(key, False), bool):
            problems.append(Problem(f"{where}.{key}", N_("Must be yes or no."), R_SHEET))
    for key in ("offensive", "special"):
        value = limb.get(key, "")
        if not isinstance(value, str) or len(value) > NAME_MAX:
            problems.append(Problem(f"{where}.{key}", N_("Must be text of at most %(n)s "
                                                         "characters."), R_SHEET,
                                    {"n": NAME_MAX}))
    defensive = limb.get("defensive", [])
    if not isinstance(defensive, list) or not all(
            isinstance(key, str) and 0 < len(key) <= NAME_MAX for key in defensive):
        problems.append(Problem(f"{where}.defensive", N_("Must be a list."), R_SHEET))
    return problems


def limb_of(data: Mapping[str, Any]) -> Limb:
    return Limb(name=data.get("name", ""), muscles=data.get("muscles", 0),
                biomoteurs=data.get("biomoteurs", 0), lobes=data.get("lobes", 0),
                trunk=bool(data.get("trunk")), tentacle=bool(data.get("tentacle")),
                offensive=data.get("offensive") or None,
                defensive=tuple(data.get("defensive") or ()),
                special=data.get("special") or None,
                lost_muscles=data.get("lost_muscles", 0),
                lost_biomoteurs=data.get("lost_biomoteurs", 0),
                lost_lobes=data.get("lost_lobes", 0))


def mutant_of(sheet: Mapping[str, Any], name: str = "mutant",
              catalogue: Mapping[str, Implant] = IMPLANTS) -> Mutant:
    """The ``Mutant`` of a sheet whose shape is right (``shape_problems`` empty); its implants
    are read in ``catalogue`` (``content.catalogue(content)`` for a campaign's own items)."""
    return Mutant(name=name, limbs=tuple(limb_of(limb) for limb in sheet.get("limbs", [])),
                  skills=tuple(sheet.get("skills", [])), xp=sheet.get("xp", 0),
                  fame=sheet.get("fame", 0), catalogue=catalogue)


def skill_choices() -> list[tuple[str, str]]:
    return [(key, skill.name) for key, skill in SKILLS.items()]
