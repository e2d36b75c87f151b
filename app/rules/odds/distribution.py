"""An exact distribution: every total an expression can give and its chance, as fractions.

Nothing is rounded here: chances are ``Fraction``s, the mean and the variance too; only
the deviation (a square root) is a float. Pages round for display only.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from app.rules.dice_pool import COMPARE

COMPARISONS = (">=", "<=", "=", ">", "<", "!=")
"""The ways a typed target is compared with a total, as the notation writes them."""


@dataclass(frozen=True, slots=True)
class Cut:
    """Where an endless roll was followed to, and what lies beyond.

    ``kind``: ``"explosion"`` (extra dice per die: ``depth``) or ``"reroll"`` (rerolls per
    die: ``depth``, or ``None`` when worked out to the end: every reroll until the face is
    no longer selected). ``beyond``: the chance that one die goes past ``depth``; what lies
    beyond is counted as if the die stopped there. ``notation``: the group it is about.
    """

    kind: str
    notation: str
    depth: int | None
    beyond: Fraction

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "notation": self.notation, "depth": self.depth,
                "beyond": _fraction_text(self.beyond), "beyond_float": float(self.beyond)}


@dataclass(frozen=True, slots=True)
class Distribution:
    """The totals of ``expression`` (its canonical form) with their exact counts out of
    ``denominator``, lowest first. With a comparison of totals at the top (``1d20+5 >= 15``)
    the totals are its left side's and ``success`` the chance that the comparison holds;
    ``target`` is its right side when that is a plain number."""

    expression: str
    counts: tuple[tuple[int, int], ...]
    denominator: int
    cuts: tuple[Cut, ...] = ()
    success: Fraction | None = None
    comparison: str | None = None
    target: int | None = None
    mean: Fraction = field(init=False)
    variance: Fraction = field(init=False)

    def __post_init__(self) -> None:
        total = self.denominator
        mean = Fraction(sum(value * count for value, count in self.counts), total)
        square = Fraction(sum(value * value * count for value, count in self.counts), total)
        object.__setattr__(self, "mean", mean)
        object.__setattr__(self, "variance", square - mean * mean)

    @property
    def deviation(self) -> float:
        return math.sqrt(self.variance)

    @property
    def low(self) -> int:
        return self.counts[0][0]

    @property
    def high(self) -> int:
        return self.counts[-1][0]

    def __iter__(self) -> Iterator[tuple[int, Fraction]]:
        """Each total and its chance, lowest first."""
        for value, count in self.counts:
            yield value, Fraction(count, self.denominator)

    def probability(self, value: int) -> Fraction:
        return next((chance for total, chance in self if total == value), Fraction(0))

    def chance(self, comparison: str, target: int) -> Fraction:
        """The chance that the total ``comparison`` ``target`` (``">="``: reaches it)."""
        test = COMPARE[comparison]
        return Fraction(sum(count for value, count in self.counts if test(value, target)),
                        self.denominator)

    def to_dict(self) -> dict[str, Any]:
        """JSON: each chance exact (``"1/6"``) and as a float, the figures the same way."""
        return {
            "expression": self.expression,
            "outcomes": [{"value": value, "chance": _fraction_text(chance),
                          "probability": float(chance)} for value, chance in self],
            "mean": _fraction_text(self.mean), "mean_float": float(self.mean),
            "variance": _fraction_text(self.variance), "deviation": self.deviation,
            "low": self.low, "high": self.high,
            "success": None if self.success is None else _fraction_text(self.success),
            "success_float": None if self.success is None else float(self.success),
            "comparison": self.comparison, "target": self.target,
            "cuts": [cut.to_dict() for cut in self.cuts],
        }


def _fraction_text(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else str(value)
