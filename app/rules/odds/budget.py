"""How much work one exact distribution may take, and the refusal when it would take more.

A distribution is worked out step by step (a group of dice, a sum, a product…). Before each
step, its size and an estimate of its cost are checked against the budget, and the clock
between steps: an expression that would hold too many values or take too long is refused
with its cap, in both languages, before the step that would run away. The web computes in
a worker thread besides (``app.services.odds``), so a request never waits past the cap.
"""

from __future__ import annotations

import time
from typing import Any, ClassVar

from app.rules.errors import RulesError

MAX_VALUES = 10_000
"""Distinct values one step of a distribution may hold (a total, a group, a product…)."""
MAX_SECONDS = 2.0
"""The time one distribution may take, estimated before each step and measured after."""
MAX_STATES = 50_000
"""Sets of faces a group whose dice change each other (``ra``, ``roh1``…) may hold."""


def _grouped(number: int, lang: str) -> str:
    """10000 → « 10 000 » (French, a narrow no-break space) or "10,000"."""
    text = f"{number:,}"
    return text.replace(",", "\u202f") if lang == "fr" else text


def _seconds(value: float, lang: str) -> str:
    text = f"{value:g}"
    return text.replace(".", ",") if lang == "fr" else text


class OddsRefused(RulesError):
    """An expression whose exact distribution is beyond the budget: which cap, and the figure
    this expression reached when it says one."""

    code = "odds_too_long"
    templates_en: ClassVar[dict[str, str]] = {
        "odds_too_long": "too long to work out exactly: the exact odds of an expression are "
        "worked out in at most {seconds} seconds, and this one needs more",
        "odds_too_many_values": "too many possible values to work out exactly: at most "
        "{limit} values at each step, and this expression reaches {value}",
        "odds_too_many_states": "too many ways for these dice to change each other: at most "
        "{limit} sets of faces in a group, and this one reaches {value}",
    }
    templates_fr: ClassVar[dict[str, str]] = {
        "odds_too_long": "trop long à calculer exactement : les chances exactes d'une "
        "expression se calculent en {seconds} secondes au plus, et celle-ci en demande "
        "davantage",
        "odds_too_many_values": "trop de valeurs possibles pour un calcul exact : au plus "
        "{limit} valeurs à chaque étape, et cette expression en atteint {value}",
        "odds_too_many_states": "trop de façons pour ces dés de se modifier les uns les "
        "autres : au plus {limit} jeux de faces dans un groupe, et celui-ci en atteint {value}",
    }

    def _format_fields(self, lang: str) -> dict[str, Any]:
        fields = dict(self.fields)
        for key in ("limit", "value"):
            if isinstance(fields.get(key), int):
                fields[key] = _grouped(fields[key], lang)
        if "seconds" in fields:
            fields["seconds"] = _seconds(fields["seconds"], lang)
        return fields


class Budget:
    """The caps of one distribution and what it has spent so far.

    ``spend`` takes a step's estimated cost in seconds (each step's estimate is calibrated
    on this machine's slowest runs: docs/odds.md § The budget) and refuses the step that
    would pass ``seconds``; ``check`` refuses once the clock has passed it, between steps.
    """

    def __init__(self, *, seconds: float = MAX_SECONDS, max_values: int = MAX_VALUES,
                 max_states: int = MAX_STATES, clock=time.monotonic) -> None:
        self.seconds = seconds
        self.max_values = max_values
        self.max_states = max_states
        self._clock = clock
        self._deadline = clock() + seconds
        self.estimated = 0.0

    def values(self, count: int) -> None:
        if count > self.max_values:
            raise OddsRefused("odds_too_many_values", limit=self.max_values, value=count)

    def states(self, count: int) -> None:
        if count > self.max_states:
            raise OddsRefused("odds_too_many_states", limit=self.max_states, value=count)

    def spend(self, seconds: float) -> None:
        self.estimated += seconds
        if self.estimated > self.seconds:
            self._too_long()
        self.check()

    def check(self) -> None:
        if self._clock() > self._deadline:
            self._too_long()

    def _too_long(self) -> None:
        raise OddsRefused("odds_too_long", seconds=self.seconds)
