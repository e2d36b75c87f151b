"""Mutatior's content (organ weights, implants, skills), loaded once from ``data/*.toml``.

The files ship inside the package and are read at import, like any constant; each entry says
where it comes from (``source = "seed"`` with its section, or ``"house"`` with a reason), and
``_check`` refuses an entry without one so no number sneaks in unexplained.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.rules.provenance import check_provenance, load_toml

CITED_AS = "Mutatior"
ORGANS = ("muscle", "biomoteur", "lobe")


@dataclass(frozen=True)
class Implant:
    key: str
    kind: str  # "offensive", "defensive" or "special"
    name: str
    weight_kg: int
    attack: int = 0
    armour: int = 0
    source: str = "house"


@dataclass(frozen=True)
class Skill:
    key: str
    name: str
    effect: str
    weather: bool = False
    effect_fr: str = ""  # the seed's own wording, shown to French readers


def _load(name: str) -> dict[str, Any]:
    return load_toml(__package__, name)


_check = check_provenance


def _organ_weights() -> dict[str, int]:
    data = _load("organs.toml")
    if set(data) != set(ORGANS):
        raise ValueError("organs.toml must define exactly muscle, biomoteur and lobe")
    for key, entry in data.items():
        _check(f"organs.{key}", entry)
    return {key: int(entry["weight_kg"]) for key, entry in data.items()}


def _implants() -> dict[str, Implant]:
    implants: dict[str, Implant] = {}
    for kind, entries in _load("implants.toml").items():
        if kind not in ("offensive", "defensive", "special"):
            raise ValueError(f"implants.toml: unknown kind {kind!r}")
        for key, entry in entries.items():
            _check(f"implants.{kind}.{key}", entry)
            if key in implants:
                raise ValueError(f"implants.toml: {key!r} defined twice")
            implants[key] = Implant(key, kind, entry["name"], int(entry["weight_kg"]),
                                    int(entry.get("attack", 0)), int(entry.get("armour", 0)),
                                    entry["source"])
    return implants


def _skills() -> dict[str, Skill]:
    skills = {}
    for key, entry in _load("skills.toml").items():
        _check(f"skills.{key}", entry)
        skills[key] = Skill(key, entry["name"], entry["effect"], bool(entry.get("weather")),
                            entry.get("effect_fr", ""))
    return skills


ORGAN_WEIGHTS: dict[str, int] = _organ_weights()
IMPLANTS: dict[str, Implant] = _implants()
SKILLS: dict[str, Skill] = _skills()


def rule(section: str) -> str:
    """A citation of the seed as players read it: the game and the section, e.g.
    « Mutatior § 2-1 Corps » (the seed's file name means nothing at a table)."""
    return f"{CITED_AS} § {section}"


# — The GM's custom implants and special organs (per campaign, ``GameSystem.content_kinds``) —
#
# A campaign's items join the catalogue in a ``catalogue(content)`` the caller builds and hands
# on: a ``Mutant`` carries the one its body was read with (``sheet.mutant_of``,
# ``match_state.mutant``), so every rule that weighs or arms a limb asks the mutant. A GM item
# key is prefixed ``gm-`` by the platform, so it never shadows a catalogue entry.

CONTENT_KINDS = {"offensive_implant": "offensive", "defensive_implant": "defensive",
                 "special_organ": "special"}


def _int_field(item: Mapping[str, object], name: str, low: int, high: int) -> int:
    value = item.get(name, 0)
    if isinstance(value, bool) or not isinstance(value, int):
        return 0
    return max(low, min(high, value))


def custom_catalogue(content: Mapping[str, object] | None) -> dict[str, Implant]:
    """The campaign's custom items as ``Implant``s (malformed items are skipped)."""
    found: dict[str, Implant] = {}
    for kind_key, kind in CONTENT_KINDS.items():
        items = (content or {}).get(kind_key) or []
        if not isinstance(items, list):
            continue
        for item in items:
            if not isinstance(item, Mapping) or not isinstance(item.get("key"), str):
                continue
            key = item["key"]
            if key in IMPLANTS or key in found:
                continue
            found[key] = Implant(key, kind, str(item.get("name") or key),
                                 _int_field(item, "weight_kg", 0, 1000),
                                 _int_field(item, "attack", 0, 10) if kind == "offensive" else 0,
                                 _int_field(item, "armour", 0, 10) if kind == "defensive" else 0,
                                 "gm")
    return found


def catalogue(content: Mapping[str, object] | None = None) -> Mapping[str, Implant]:
    """Every implant and special organ a campaign's mutants may carry, by key: the campaign's
    custom items (``content``: kind key → items, ``app.rules.system.Content``) and the
    catalogue. Without custom items, the catalogue itself."""
    custom = custom_catalogue(content)
    return {**custom, **IMPLANTS} if custom else IMPLANTS
