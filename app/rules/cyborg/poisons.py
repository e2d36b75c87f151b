"""Poisons: the table, the victim's resistance, the hourly loss, symptoms as states.

Cyborg § (V) Poisons. The victim's resistance to a poison is its santé / 5; every hour after the
poisoning it loses the damage table's cell (the poison's factor against that resistance) until
santé reaches 0 or an antidote is taken. At 0, the empoisonnement/infection wound is death
(§ (III) Calcul des dégâts). No die is rolled: everything here is a table lookup.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from app.rules.cyborg.content import (
    CHARACTERISTICS,
    DATA,
    FACTORS,
    MAX_RESISTANCE,
    ContentError,
    check_source,
)
from app.rules.cyborg.damage import damage_points
from app.rules.system import N_

RULE = "Cyborg § (V) Poisons"
RESISTANCE_DIVISOR = 5


@dataclass(frozen=True)
class Symptom:
    key: str
    name: str
    skills: int = 0  # percentage points on every skill test
    characteristics: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Poison:
    key: str
    name: str
    factor: str
    mode: str
    symptoms: tuple[str, ...]


def _read() -> dict[str, Any]:
    with (DATA / "poisons.toml").open("rb") as handle:
        return tomllib.load(handle)


@cache
def symptoms() -> dict[str, Symptom]:
    found = {}
    for key, entry in _read()["symptom"].items():
        check_source(entry, f"poisons.toml symptom {key}")
        changes = entry.get("characteristics", {})
        if any(name not in CHARACTERISTICS for name in changes):
            raise ContentError(f"poisons.toml symptom {key}: unknown characteristic")
        found[key] = Symptom(key, entry["name"], entry.get("skills", 0), dict(changes))
    return found


@cache
def poisons() -> dict[str, Poison]:
    found = {}
    for entry in _read()["poison"]:
        where = f"poisons.toml {entry.get('key')}"
        check_source(entry, where)
        if entry["factor"] not in FACTORS or any(s not in symptoms() for s in entry["symptoms"]):
            raise ContentError(f"{where}: bad factor or symptom")
        found[entry["key"]] = Poison(entry["key"], entry["name"], entry["factor"], entry["mode"],
                                     tuple(entry["symptoms"]))
    return found


def poison_resistance(sante: int) -> int:
    """Santé / 5, rounded down, between 0 and 10 (the table's rows)."""
    return min(MAX_RESISTANCE, max(0, sante // RESISTANCE_DIVISOR))


@dataclass
class Poisoning:
    """A running poisoning. Its resistance and hourly loss are fixed when it starts (the text
    computes the resistance once; docs/rules-notes.md)."""

    poison: str
    resistance: int
    per_hour: int
    hours: int = 0
    cured: bool = False

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def poisoned(poison: str, sante: int) -> Poisoning:
    entry = poisons()[poison]
    resistance = poison_resistance(sante)
    return Poisoning(poison, resistance, damage_points(entry.factor, resistance))


@dataclass(frozen=True)
class PoisonHours:
    sante: int  # after the hours passed
    lost: tuple[int, ...]  # one entry per hour that struck
    dead: bool
    notes: tuple[str, ...] = ()


def pass_hours(poisoning: Poisoning, sante: int, hours: int) -> PoisonHours:
    """``hours`` hours go by: each costs the hourly loss until santé reaches 0 (death by
    empoisonnement) or the poisoning is cured. Updates ``poisoning.hours``."""
    if hours < 0:
        raise ValueError("hours cannot be negative")
    lost: list[int] = []
    while len(lost) < hours and not poisoning.cured and sante > 0:
        sante -= poisoning.per_hour
        lost.append(poisoning.per_hour)
    poisoning.hours += len(lost)
    dead = sante <= 0 and not poisoning.cured
    notes = (N_("The poison reached 0 santé: death."),) if dead else ()
    return PoisonHours(sante, tuple(lost), dead, notes)


def antidote(poisoning: Poisoning) -> Poisoning:
    """An antidote stops the hourly loss; the santé lost stays lost, the symptoms go
    (docs/rules-notes.md)."""
    poisoning.cured = True
    return poisoning


def symptom_penalties(poisoning: Poisoning) -> dict[str, Any]:
    """The states a running poisoning puts on the victim, summed: ``skills`` (% on every
    skill test) and ``characteristics`` (points), with the symptom names."""
    if poisoning.cured:
        return {"symptoms": [], "skills": 0, "characteristics": {}}
    states = [symptoms()[key] for key in poisons()[poisoning.poison].symptoms]
    characteristics: dict[str, int] = {}
    for state in states:
        for name, value in state.characteristics.items():
            characteristics[name] = characteristics.get(name, 0) + value
    return {"symptoms": [state.name for state in states],
            "skills": sum(state.skills for state in states),
            "characteristics": characteristics}
