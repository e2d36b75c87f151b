"""Cyborg Anti-Alien content (skills, weapons, the damage table) loaded from ``data/*.toml``.

Content is data, not code (DESIGN.md § Content): each entry carries its provenance
(``source = "seed"`` with the section, or ``"house"`` with a reason). The files are read and
checked once, the first time a rule needs them, so a broken file fails at start-up, not mid-match.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from app.rules.provenance import ContentError, check_provenance

DATA = Path(__file__).parent / "data"

CHARACTERISTICS = ("force", "constitution", "dexterite", "rapidite", "volonte", "intelligence")
# The characteristics as the seed writes them (§ (I): « la force, la constitution, la
# dextérité, la rapidité, la volonté et l'intelligence »): game terms, in every language.
CHARACTERISTIC_NAMES = {"force": "force", "constitution": "constitution",
                        "dexterite": "dextérité", "rapidite": "rapidité",
                        "volonte": "volonté", "intelligence": "intelligence"}
DAMAGE_TYPES = ("dechirure", "perforation", "explosion", "brulure", "etranglement",
                "etouffement", "broyage", "empoisonnement")
FACTORS = tuple("ABCDEFGHIJKLMNOPQRSTUV")
LIMBS = ("right_arm", "left_arm", "right_leg", "left_leg")
MAX_RESISTANCE = 10



@dataclass(frozen=True)
class Skill:
    number: int
    key: str
    name: str
    formula: tuple[str, ...]
    base: int = 0
    given: bool = False
    custom: bool = False
    cap: int | None = None
    source: str = "seed"


@dataclass(frozen=True)
class Weapon:
    key: str
    name: str
    kind: str  # "ranged" or "melee"
    skill: str
    damage_type: str
    factor: str
    magazine: int | None = None
    shots_per_turn: int | None = None
    automatic: bool = False
    two_handed: bool = False
    forearm: bool = False
    localised_burn: bool = False
    knockout: bool = False
    # Broyage of the whole target (a steamroller, a rock fall), not a blow: death at 0 santé
    # (Cyborg § (III) Calcul des dégâts, Broyage: "si c'est la cible dans sa totalité…").
    crushes: bool = False
    source: str = "seed"


@dataclass(frozen=True)
class Location:
    roll: int
    humanoid: str
    non_humanoid: str
    note: int  # 1: a limb, 2: the trunk, 0: death
    limb: str | None = None


def _load(name: str) -> dict[str, Any]:
    with (DATA / name).open("rb") as handle:
        return tomllib.load(handle)


def check_source(entry: dict[str, Any], where: str) -> None:
    # Cyborg's data files cite the seed per table, not per entry.
    check_provenance(where, entry, seed_section=False)


@cache
def skills() -> dict[str, Skill]:
    """The 25 skills by key, in the order of the draw table."""
    found: dict[str, Skill] = {}
    for entry in _load("skills.toml")["skill"]:
        where = f"skills.toml {entry.get('key')}"
        check_source(entry, where)
        formula = tuple(entry["formula"])
        if any(name not in CHARACTERISTICS for name in formula):
            raise ContentError(f"{where}: unknown characteristic in {formula}")
        found[entry["key"]] = Skill(
            number=entry["number"], key=entry["key"], name=entry["name"], formula=formula,
            base=entry.get("base", 0), given=entry.get("given", False),
            custom=entry.get("custom", False), cap=entry.get("cap"), source=entry["source"],
        )
    if [skill.number for skill in found.values()] != list(range(1, 26)):
        raise ContentError("skills.toml: the draw table needs entries 1 to 25 in order")
    return found


def skill_by_number(number: int) -> Skill:
    return list(skills().values())[number - 1]


@cache
def weapons() -> dict[str, Weapon]:
    found: dict[str, Weapon] = {}
    fields = set(Weapon.__dataclass_fields__)
    for entry in _load("weapons.toml")["weapon"]:
        where = f"weapons.toml {entry.get('key')}"
        check_source(entry, where)
        if entry["damage_type"] not in DAMAGE_TYPES or entry["factor"] not in FACTORS:
            raise ContentError(f"{where}: bad damage type or factor")
        if entry["skill"] not in skills() or entry["kind"] not in ("ranged", "melee"):
            raise ContentError(f"{where}: bad skill or kind")
        found[entry["key"]] = Weapon(**{k: v for k, v in entry.items() if k in fields})
    return found


@cache
def starting_weapons() -> tuple[str, ...]:
    keys = tuple(_load("weapons.toml")["starting"]["weapons"])
    if any(key not in weapons() for key in keys):
        raise ContentError("weapons.toml: a starting weapon is not in the catalogue")
    return keys


@cache
def damage_table() -> dict[int, tuple[int, ...]]:
    """Resistance (0–10) → the points lost for each factor A…V, corrections applied."""
    data = _load("damage.toml")
    if tuple(data["columns"]) != FACTORS:
        raise ContentError("damage.toml: columns must be A to V")
    table = {int(row): tuple(values) for row, values in data["rows"].items()}
    if sorted(table) != list(range(MAX_RESISTANCE + 1)):
        raise ContentError("damage.toml: rows must be resistances 0 to 10")
    if any(len(values) != len(FACTORS) for values in table.values()):
        raise ContentError("damage.toml: every row needs 22 cells")
    for correction in data.get("correction", []):
        check_source(correction, "damage.toml correction")
        cell = table[correction["resistance"]][FACTORS.index(correction["column"])]
        if cell != correction["used"]:
            raise ContentError("damage.toml: a correction's cell does not hold its used value")
    return table


@cache
def damage_corrections() -> tuple[dict[str, Any], ...]:
    """The cells where Tablée departs from the printed table, with the reason."""
    return tuple(_load("damage.toml").get("correction", []))


def damage_correction(factor: str, resistance: int) -> dict[str, Any] | None:
    """The house correction behind the cell (factor × resistance), if the cell is one:
    ``{"printed", "used", "reason"}`` — a log line that used it says so."""
    for correction in damage_corrections():
        if (correction["column"], correction["resistance"]) == (factor, resistance):
            return {key: correction[key] for key in ("printed", "used", "reason")}
    return None


@cache
def locations() -> dict[int, Location]:
    found = {}
    for entry in _load("damage.toml")["location"]:
        check_source(entry, "damage.toml location")
        found[entry["roll"]] = Location(entry["roll"], entry["humanoid"], entry["non_humanoid"],
                                        entry["note"], entry.get("limb"))
    if sorted(found) != list(range(1, 7)):
        raise ContentError("damage.toml: the location table needs rolls 1 to 6")
    return found


# — the GM's own content (per campaign) —
#
# The text leaves both catalogues open: "vous pouvez déterminer à votre gré les données de bien
# d'autres" (weapons) and "ces deux tableaux ont vocation à être complétés … par des véhicules
# aériens" (vehicles). A campaign's custom items (``app.rules.system.Content``) join the
# catalogue under their own key, prefixed ``gm:`` so they never shadow a printed entry.

WEAPON_KINDS = {"weapon_ranged": "ranged", "weapon_melee": "melee"}
VEHICLE_KINDS = {"vehicle_ground": "terrestre", "vehicle_air": "aerien"}
GM_PREFIX = "gm:"


def _custom_int(item: dict[str, Any], name: str, default: int | None = None) -> int | None:
    value = item.get(name, default)
    if isinstance(value, bool) or value in ("", None):
        return default
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def custom_weapons(content: Any) -> dict[str, Weapon]:
    """The GM's weapons, read tolerantly: an item that does not say what a weapon needs is
    left out (the platform validated it against ``content_kinds`` already)."""
    found: dict[str, Weapon] = {}
    for kind_key, kind in WEAPON_KINDS.items():
        for item in (content or {}).get(kind_key, []) or []:
            if not isinstance(item, dict):
                continue
            damage_type, factor = item.get("damage_type"), item.get("factor")
            if damage_type not in DAMAGE_TYPES or factor not in FACTORS or not item.get("key"):
                continue
            shots = _custom_int(item, "shots_per_turn", 1) if kind == "ranged" else None
            found[GM_PREFIX + str(item["key"])] = Weapon(
                key=GM_PREFIX + str(item["key"]), name=str(item.get("name") or item["key"]),
                kind=kind, skill="arme_a_feu" if kind == "ranged" else "arme_blanche",
                damage_type=damage_type, factor=factor,
                magazine=_custom_int(item, "magazine") or None if kind == "ranged" else None,
                shots_per_turn=shots, automatic=(shots or 0) >= 5,
                two_handed=bool(item.get("two_handed")),
                localised_burn=bool(item.get("localised_burn")),
                crushes=damage_type == "broyage" and bool(item.get("crushes")), source="gm")
    return found


def all_weapons(content: Any = None) -> dict[str, Weapon]:
    """The printed catalogue (and the house natural weapons) plus the campaign's own."""
    return {**weapons(), **custom_weapons(content)}
