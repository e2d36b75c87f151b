"""Figures, their aims, and the table printed at the end of a run."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

Direction = Literal["min", "max"]


@dataclass(frozen=True)
class Figure:
    """One measured figure and the aim it is read against.

    ``aim`` is a bound: with ``direction="max"`` the figure should stay at or below it
    (a latency), with ``"min"`` at or above it (a ratio to beat). ``is_ratio`` says the
    figure is itself a ratio (ours ÷ d20, 10,000 ÷ 10 events…); otherwise the table shows
    the figure ÷ its aim, so every row reads the same way. ``aim=None``: shown, not judged.
    """

    name: str
    value: float
    unit: str
    aim: float | None = None
    direction: Direction = "max"
    is_ratio: bool = False
    note: str = ""

    @property
    def met(self) -> bool | None:
        if self.aim is None:
            return None
        return self.value <= self.aim if self.direction == "max" else self.value >= self.aim

    def measured_text(self) -> str:
        return f"{_number(self.value)}{self.unit}"

    def aim_text(self) -> str:
        if self.aim is None:
            return "—"
        sign = "≤" if self.direction == "max" else "≥"
        return f"{sign} {_number(self.aim)}{self.unit}"

    def ratio_text(self) -> str:
        if self.is_ratio:
            return f"{self.value:.2f}"
        if self.aim is None or self.aim == 0:
            return "—"
        return f"{self.value / self.aim:.2f} of aim"

    def verdict(self) -> str:
        return {None: "", True: "meets", False: "MISSES"}[self.met]


def _number(value: float) -> str:
    if value >= 1000:
        return f"{value:,.0f}"
    if value >= 100:
        return f"{value:.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def percentile(samples: Sequence[float], fraction: float) -> float:
    """The ``fraction`` quantile (0.5, 0.99) by linear interpolation between samples."""
    if not samples:
        return float("nan")
    if len(samples) == 1:
        return samples[0]
    cuts = statistics.quantiles(samples, n=1000, method="inclusive")
    return cuts[round(fraction * 1000) - 1]


def table(rows: Sequence[Sequence[str]], headers: Sequence[str]) -> str:
    """A plain-text table (fits in docs/benchmarks.md as a code block)."""
    widths = [max(len(str(cell)) for cell in column) for column in zip(headers, *rows, strict=True)]
    lines = ["  ".join(str(cell).ljust(width) for cell, width in zip(headers, widths, strict=True))]
    lines.append("  ".join("-" * width for width in widths))
    lines += ["  ".join(str(cell).ljust(width) for cell, width in zip(row, widths, strict=True))
              for row in rows]
    return "\n".join(line.rstrip() for line in lines)


def summary(figures: Sequence[Figure]) -> str:
    rows = [(f.name, f.measured_text(), f.aim_text(), f.ratio_text(), f.verdict())
            for f in figures]
    return table(rows, ("figure", "measured", "aim", "ratio", ""))
