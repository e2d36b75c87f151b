"""Free rolls per second: ``app.rules.notation.roll`` against the ``d20`` library.

Both sides draw from the same random source: CPython's Mersenne Twister with the same seed.
``d20`` rolls through the module-level ``random`` (``random.randrange`` per die, seeded
with ``random.seed``); ours through ``SeededDice(seed)``, its own ``random.Random(seed)``
(32 bits per die from ``randbytes``, one call per dice group).

Each side does the same work a caller needs: parse (both cache the parsed expression),
roll every die, and give the total (d20 computes its total lazily, so it is read; ours
also keeps every die in the ``RollRecord``). A second, informational pair of columns adds
the one-line text (``RollRecord.describe()`` against d20's ``RollResult.result``).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

import d20

from app.rules import notation
from app.rules.dice import SeededDice
from bench.report import Figure, table

EXPRESSIONS = ("1d20+5", "4d6kh3", "3d10kh1", "2d6+1d4+3", "10d6", "1d100")
SEED = 20_260_101


def _rate(make_call: Callable[[], Callable[[], object]], seconds: float, repeats: int) -> float:
    """Calls per second: the best of ``repeats`` timed batches of about ``seconds`` each.

    The best batch is the least disturbed by the rest of the machine; every batch starts
    from a freshly seeded source, so both sides see the same faces run after run.
    """
    call = make_call()
    count, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds / 4:  # size the batch, and warm up
        call()
        count += 1
    batch = max(100, count * 4)
    best = 0.0
    for _ in range(repeats):
        call = make_call()
        started = time.perf_counter()
        for _ in range(batch):
            call()
        best = max(best, batch / (time.perf_counter() - started))
    return best


def _ours(expression: str, *, text: bool) -> Callable[[], Callable[[], object]]:
    def make() -> Callable[[], object]:
        dice, roll = SeededDice(SEED), notation.roll
        if text:
            return lambda: roll(expression, dice).describe()
        return lambda: roll(expression, dice).total
    return make


def _d20(expression: str, *, text: bool) -> Callable[[], Callable[[], object]]:
    def make() -> Callable[[], object]:
        random.seed(SEED)  # d20 draws from the module-level generator
        roll = d20.roll
        if text:
            return lambda: roll(expression).result
        return lambda: roll(expression).total
    return make


def run(*, quick: bool = False) -> list[Figure]:
    seconds, repeats = (0.06, 2) if quick else (0.15, 3)
    rows, figures = [], []
    for expression in EXPRESSIONS:
        ours = _rate(_ours(expression, text=False), seconds, repeats)
        theirs = _rate(_d20(expression, text=False), seconds, repeats)
        ours_text = _rate(_ours(expression, text=True), seconds, repeats)
        theirs_text = _rate(_d20(expression, text=True), seconds, repeats)
        ratio = ours / theirs
        rows.append((expression, f"{ours:,.0f}", f"{theirs:,.0f}", f"{ratio:.2f}×",
                     f"{ours_text:,.0f}", f"{theirs_text:,.0f}",
                     f"{ours_text / theirs_text:.2f}×"))
        figures.append(Figure(f"free rolls {expression}: ours ÷ d20", ratio, "×", aim=1.0,
                              direction="min", is_ratio=True))
    print("Free rolls per second (one core, same seeded Mersenne Twister for both):")
    print(table(rows, ("expression", "ours/s", "d20/s", "ratio",
                       "ours+text/s", "d20+text/s", "ratio+text")))
    return figures
