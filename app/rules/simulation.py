"""Many fights, hunts or tournaments played on from one position by the house bots, and what
they add up to (issue 27, docs/odds.md § Simulations and the bookmaker).

A game that can be simulated has a module (``SIMULATORS``) with:

    simulable(state) -> bool                 # is there something to play on?
    play(state, seed: str) -> dict[str, int] # one run from ``state``, with SeededDice(seed):
                                             # how it ended, as counts (``win:t1`` → 1)
    figures(tally, state) -> Figures         # the counts of many runs, in words
    fill(view, viewer, dice) -> State        # (optional) a whole state the viewer's view
                                             # could be, its hidden cards dealt at random

Each run plays through the game's own ``legal_actions`` and ``decide`` (the bots choose among
what the rules offer, the rules judge and roll), from the position a viewer may see: the
platform passes the GM the whole state and anyone else their view (``tables.viewer_state``),
which the game's ``fill`` completes with what the viewer cannot know drawn at random, anew for
every run. So a simulation says nothing a viewer could not have worked out themselves.

Run ``n`` of a simulation seeded ``s`` throws ``SeededDice(f"{s}:{n}")`` (and deals the hidden
cards with ``SeededDice(f"{s}:{n}:hidden")``): the runs are the same however they are shared
among processes, and the counts add up to the same totals. ``run_chunk`` is what a process of
the pool runs (``app/services/simulations.py``). Pure: no clock, no I/O.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from types import ModuleType
from typing import Any

from app.rules.dice import SeededDice
from app.rules.match import Actor, State
from app.rules.odds.action import Phrase

SIMULATORS = {
    "mutatior": "app.rules.mutatior.simulate",
    "chasse": "app.rules.chasse.simulate",
    "mecha_ring": "app.rules.mecha_ring.simulate",
}


def simulator(system_key: str) -> ModuleType | None:
    """The game's simulation module, or None when the game has none."""
    name = SIMULATORS.get(system_key)
    return importlib.import_module(name) if name else None


def simulable(system_key: str, state: Mapping[str, Any]) -> bool:
    game = simulator(system_key)
    return bool(game and isinstance(state, Mapping) and state and game.simulable(state))


# — adding runs up ————————————————————————————————————————————————————————————————

@dataclass
class Tally:
    """The counts of ``runs`` runs: ``sums[key]`` adds up each run's count for ``key``."""

    runs: int = 0
    sums: dict[str, int] = field(default_factory=dict)

    def add(self, facts: Mapping[str, int]) -> None:
        self.runs += 1
        for key, value in facts.items():
            self.sums[key] = self.sums.get(key, 0) + int(value)

    def merge(self, other: Tally) -> None:
        self.runs += other.runs
        for key, value in other.sums.items():
            self.sums[key] = self.sums.get(key, 0) + value

    def share(self, key: str) -> Fraction:
        """The share of the runs where ``key`` happened (its count over the runs)."""
        return Fraction(self.sums.get(key, 0), self.runs) if self.runs else Fraction(0)

    def mean(self, key: str) -> Fraction:
        return self.share(key)

    def to_dict(self) -> dict[str, Any]:
        return {"runs": self.runs, "sums": dict(sorted(self.sums.items()))}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Tally:
        return cls(int(data["runs"]), {str(k): int(v) for k, v in data["sums"].items()})


# — the figures, for the page and the API ————————————————————————————————————————————

@dataclass(frozen=True)
class Line:
    """One outcome: whose it is (a name from the state, shown as it is, or words), how often
    it happened (``chance``) or how much on average (``mean``); ``quote``: the bookmaker
    quotes it (decimal odds, 1 / chance)."""

    key: str
    name: str | Phrase
    chance: Fraction | None = None
    mean: Fraction | None = None
    quote: bool = False


@dataclass(frozen=True)
class Section:
    key: str
    title: Phrase
    lines: tuple[Line, ...]


@dataclass(frozen=True)
class Figures:
    sections: tuple[Section, ...]
    notes: tuple[Phrase, ...] = ()

    def chances(self) -> list[Fraction]:
        return [line.chance for section in self.sections for line in section.lines
                if line.chance is not None]


def margin(figures: Figures, runs: int) -> float:
    """The widest 95 % margin of error of the figures' chances, in points (1.96 standard
    errors of the largest binomial spread among them)."""
    if runs <= 0:
        return 0.0
    spread = max((float(p) * (1 - float(p)) for p in figures.chances()), default=0.0)
    return 196 * (spread / runs) ** 0.5


def quote(chance: Fraction) -> Fraction | None:
    """The bookmaker's fair decimal odds for an outcome of this chance (« 2,5 » pays 2.5
    times the stake back): none for what never happened."""
    return 1 / chance if chance > 0 else None


# — running ————————————————————————————————————————————————————————————————————————

def run_one(system_key: str, state: State, viewer: Actor | None, seed: int | str,
            index: int) -> dict[str, int]:
    """Run ``index`` of a simulation: from ``state`` (the whole state when ``viewer`` is None,
    else ``viewer``'s view, completed by the game's ``fill``)."""
    game = simulator(system_key)
    if game is None:
        raise ValueError(f"no simulation for {system_key}")
    position = state
    if viewer is not None and hasattr(game, "fill"):
        position = game.fill(state, viewer, SeededDice(f"{seed}:{index}:hidden"))
    return game.play(position, f"{seed}:{index}")


def run_chunk(system_key: str, state: State, viewer: Actor | None, seed: int | str,
              first: int, count: int) -> dict[str, Any]:
    """Runs ``first`` to ``first + count - 1``, added up (what a pool process returns)."""
    tally = Tally()
    for index in range(first, first + count):
        tally.add(run_one(system_key, state, viewer, seed, index))
    return tally.to_dict()


def simulate(system_key: str, state: State, runs: int, seed: int | str = 1,
             viewer: Actor | None = None) -> Tally:
    """``runs`` runs in this process (the tests, the bench's one-core figure)."""
    return Tally.from_dict(run_chunk(system_key, state, viewer, seed, 0, runs))
