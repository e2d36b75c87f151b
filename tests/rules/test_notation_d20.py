"""Our notation against the d20 library (avrae/d20, the most used Python dice library), on
the expressions of its own tests and README (tests/rules/d20_expressions.py): where we mean
the same, both must give the same total on the same faces."""

from __future__ import annotations

import random

import pytest

from app.rules.errors import NotationError
from app.rules.notation import roll
from tests.rules.d20_expressions import DIFFERS, EXPRESSIONS, JUDGED, REFUSED, SAME

d20 = pytest.importorskip("d20")  # a bench dependency, installed by make test

SEEDS = range(200)  # 117 expressions × 200 shared streams of faces


class Stream:
    """The same uniform draws for both libraries: d20 asks ``randrange(n)``, we ask faces."""

    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        if stop is None:
            start, stop = 0, start
        return start + step * int(self.random.random() * ((stop - start) // step))

    def roll(self, sides: int, *, count: int = 1) -> list[int]:
        return [int(self.random.random() * sides) + 1 for _ in range(count)]


def both(expr: str, seed: int, monkeypatch: pytest.MonkeyPatch) -> tuple[int, object]:
    """d20's total and our record, each thrown from stream ``seed``."""
    monkeypatch.setattr(d20.expression, "random", Stream(seed))
    theirs = d20.roll(expr).total
    return theirs, roll(expr, Stream(seed))


def by(verdict: str) -> list[str]:
    return [expr for expr, seen, _ in EXPRESSIONS if seen == verdict]


@pytest.mark.parametrize("expr", by(SAME))
def test_the_same_meaning_gives_the_same_total_on_the_same_faces(
        expr: str, monkeypatch: pytest.MonkeyPatch) -> None:
    for seed in SEEDS:
        theirs, ours = both(expr, seed, monkeypatch)
        assert ours.total == theirs, (seed, ours.describe())


@pytest.mark.parametrize("expr", by(JUDGED))
def test_a_comparison_of_totals_says_what_d20s_1_or_0_says(
        expr: str, monkeypatch: pytest.MonkeyPatch) -> None:
    theirs, ours = both(expr, 0, monkeypatch)
    assert ours.outcome == ("success" if theirs else "failure")
    assert ours.target is not None


@pytest.mark.parametrize("expr", by(REFUSED))
def test_refused_before_any_die_is_thrown(expr: str) -> None:
    with pytest.raises(NotationError):
        roll(expr, Stream(0))


@pytest.mark.parametrize("expr", by(DIFFERS))
def test_a_documented_difference_still_rolls(expr: str) -> None:
    roll(expr, Stream(0))


def test_each_difference_is_written_in_the_docs() -> None:
    from pathlib import Path

    docs = (Path(__file__).parents[2] / "docs" / "dice.md").read_text(encoding="utf-8")
    section = docs.split("## Where we differ from d20")[1].split("\n## ")[0]
    for expr, verdict, _ in EXPRESSIONS:
        if verdict == DIFFERS:
            assert f"`{expr}`" in section, expr


def test_most_of_d20s_expressions_roll_here_as_there() -> None:
    verdicts = [verdict for _, verdict, _ in EXPRESSIONS]
    assert len(verdicts) == 117
    assert verdicts.count(SAME) + verdicts.count(JUDGED) >= 90
