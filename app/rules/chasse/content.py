"""Chasse préhistorique content, loaded once from ``data/*.toml`` (DESIGN.md § Content).

Seed ``003_17f6fe9f5d5d7b1b.txt``: its movement, weapon and prey-profile tables and most of
its prey-reaction table are missing, so most entries are house content; each says so
(``source = "house"`` with a ``reason``) or cites its section (``source = "seed"``).
A campaign's GM adds weapons and prey species (``Content``); ``catalogue`` merges them.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from app.rules.provenance import check_provenance, load_toml

CLASSES = ("leger", "moyen", "lourd")
TEMPERAMENTS = ("agressive", "placide")
SPEEDS = ("tres_rapide", "rapide", "lourdaud")
HUNTER_PROFILES = ("standard", "pataud")
TERRAIN_KINDS = ("obstacle", "infranchissable", "difficile", "arbre", "buisson", "riviere",
                 "camp")
THREAT_OUTCOMES = ("fuit", "reste", "attaque", "charge")
IDLE_OUTCOMES = ("reste", "erre_demi", "erre", "rode")
DIRECTIONS = {"nord": (0.0, -1.0), "est": (1.0, 0.0), "sud": (0.0, 1.0), "ouest": (-1.0, 0.0)}
GM_PREFIX = "gm-"


def _load(name: str) -> dict[str, Any]:
    return load_toml(__package__, name)


_check = check_provenance


def mass_class(masse: int) -> str:
    """House: the defender's "type" of § Tirs / corps à corps, from its mass."""
    return "leger" if masse <= 2 else "moyen" if masse == 3 else "lourd"


@cache
def profiles() -> dict[str, Any]:
    data = _load("profiles.toml")
    for group in ("hunter", "speed"):
        for key, entry in data[group].items():
            _check(f"profiles.{group}.{key}", entry)
    if set(data["hunter"]) != set(HUNTER_PROFILES) or set(data["speed"]) != set(SPEEDS):
        raise ValueError("profiles.toml: hunter and speed profiles are fixed")
    return data


def house_profiles(content: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The movement profiles as the campaign plays them: the house table (the text's is
    missing), with the GM's changes (content kind ``profile``: one item per profile, the
    last one added winning) — a hunter profile's Dmax and mass (0: the house one), a prey
    speed class's Dmax."""
    data = profiles()
    found = {"hunter": {key: dict(entry) for key, entry in data["hunter"].items()},
             "speed": {key: dict(entry) for key, entry in data["speed"].items()}}
    for item in (content or {}).get("profile", []):
        key = item.get("profile")
        group = "hunter" if key in found["hunter"] else "speed" if key in found["speed"] \
            else None
        if group is None:
            continue
        entry = found[group][key]
        entry.update(dmax=int(item["dmax"]), source="gm")
        if group == "hunter" and isinstance(item.get("masse"), int) and item["masse"] > 0:
            entry["masse"] = item["masse"]
    return found


def _check_weapon(entry: Mapping[str, Any]) -> None:
    _check(f"weapon {entry.get('key')}", entry)
    for table, low in (("to_hit", 1), ("save", 0)):
        values = entry[table]
        if set(values) != set(CLASSES) or not all(low <= v <= 6 for v in values.values()):
            raise ValueError(f"weapon {entry['key']}: {table} by {CLASSES}")
    throw = entry.get("throw")
    if throw is not None and not (len(throw) == 2 and 0 < throw[0] < throw[1]):
        raise ValueError(f"weapon {entry['key']}: throw is [short, long]")


@cache
def _seed_weapons() -> dict[str, dict[str, Any]]:
    weapons = {}
    for entry in _load("weapons.toml")["weapon"]:
        _check_weapon(entry)
        weapons[entry["key"]] = {"melee": False, "natural": False, "throw": None,
                                 "no_small_malus": False, "leaves_hand": False, **entry}
    return weapons


@cache
def _seed_prey() -> dict[str, dict[str, Any]]:
    species = {}
    for entry in _load("prey.toml")["prey"]:
        _check(f"prey {entry.get('key')}", entry)
        if not (1 <= entry["masse"] <= 5 and entry["temperament"] in TEMPERAMENTS
                and entry["speed"] in SPEEDS and entry["weapon"] in _seed_weapons()):
            raise ValueError(f"prey {entry['key']}: mass 1–5, temperament, speed, weapon")
        species[entry["key"]] = dict(entry)
    return species


@cache
def reactions() -> dict[str, Any]:
    data = _load("reactions.toml")
    for key in ("threat", "idle"):
        _check(f"reactions.{key}", data[key])
    check_reactions(data)
    return data


def check_reactions(data: Mapping[str, Any]) -> None:
    threat, idle = data["threat"], data["idle"]
    for temperament in TEMPERAMENTS:
        row = threat[temperament]
        if len(row) != 8 or not set(row) <= set(THREAT_OUTCOMES):
            raise ValueError(f"reactions.threat.{temperament}: 8 outcomes (blue die 0–7)")
    if len(idle["outcomes"]) != 8 or not set(idle["outcomes"]) <= set(IDLE_OUTCOMES):
        raise ValueError("reactions.idle.outcomes: 8 outcomes (blue die 0–7)")
    if len(idle["directions"]) != 6 or not set(idle["directions"]) <= set(DIRECTIONS):
        raise ValueError("reactions.idle.directions: 6 directions (red die 1–6)")


@cache
def _shipped_scenarios() -> dict[str, dict[str, Any]]:
    """The ready hunts, checked by the same rules as a GM's (``scenario.problems_of``)."""
    from app.rules.chasse.scenario import problems_of

    found = {}
    for entry in _load("scenarios.toml")["scenario"]:
        _check(f"scenario {entry.get('key')}", entry)
        problems = problems_of(entry, _seed_prey())
        if problems:
            first = problems[0]
            raise ValueError(f"scenario {entry['key']}: {first.field}: "
                             f"{first.message % dict(first.params)}")
        found[entry["key"]] = {"north": "top", "camp_edge": "", **entry}
    return found


def scenarios(content: Mapping[str, Any] | None = None) -> dict[str, dict[str, Any]]:
    """The ready hunts, then the campaign GM's own (``gm-…`` keys) that pass the same
    checks (a GM item is checked when saved; one broken since, by a species removed, is
    left out)."""
    from app.rules.chasse.scenario import from_item

    found = dict(_shipped_scenarios())
    species = prey_species(content)
    for item in (content or {}).get("scenario", []):
        entry, problems = from_item(item, species)
        if not problems:
            found[item["key"]] = entry
    return found


def _gm_weapon(item: Mapping[str, Any]) -> dict[str, Any]:
    short, long_ = int(item.get("short") or 0), int(item.get("long") or 0)
    return {"key": item["key"], "name": item["name"], "source": "gm",
            "melee": bool(item.get("melee")), "natural": False,
            "throw": [short, long_] if 0 < short < long_ else None,
            "leaves_hand": bool(item.get("leaves_hand")),
            "no_small_malus": bool(item.get("no_small_malus")),
            "to_hit": {c: int(item[f"to_hit_{c}"]) for c in CLASSES},
            "save": {c: int(item[f"save_{c}"]) for c in CLASSES}}


def _gm_prey(item: Mapping[str, Any]) -> dict[str, Any]:
    return {"key": item["key"], "name": item["name"], "source": "gm",
            "masse": int(item["masse"]), "temperament": item["temperament"],
            "speed": item["speed"], "weapon": item["weapon"]}


def weapons(content: Mapping[str, Any] | None = None) -> dict[str, dict[str, Any]]:
    """The seed/house weapons, then the campaign's (``gm-…`` keys never collide)."""
    found = dict(_seed_weapons())
    for item in (content or {}).get("weapon", []):
        found[item["key"]] = _gm_weapon(item)
    return found


def prey_species(content: Mapping[str, Any] | None = None) -> dict[str, dict[str, Any]]:
    found = dict(_seed_prey())
    known = weapons(content)
    for item in (content or {}).get("prey", []):
        if item.get("weapon") in known:
            found[item["key"]] = _gm_prey(item)
    return found


def hunter_weapons(content: Mapping[str, Any] | None = None) -> dict[str, dict[str, Any]]:
    """What a hunter may carry: every weapon but the prey's natural ones."""
    return {key: weapon for key, weapon in weapons(content).items() if not weapon["natural"]}
