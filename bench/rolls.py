"""Free rolls per second: ``app.rules.notation.roll`` against the ``d20`` library, and how
fast the hand-written parser reads an expression against Lark's LALR parser (docs/dice.md).

Both sides draw from the same random source: CPython's Mersenne Twister with the same seed.
``d20`` rolls through the module-level ``random`` (``random.randrange`` per die, seeded
with ``random.seed``); ours through ``SeededDice(seed)``, its own ``random.Random(seed)``
(32 bits per die from ``randbytes``, one call per dice group).

Each side does the same work a caller needs: parse (both cache the parsed expression),
roll every die, and give the total (d20 computes its total lazily, so it is read; ours
also keeps every die in the ``RollRecord``). A second, informational pair of columns adds
the one-line text (``RollRecord.describe()`` against d20's ``RollResult.result``).

The machine may be busy: each ratio is the median of several rounds in which our batch and
d20's run one right after the other (alternating), timed in CPU time of this process, so
other work slows both sides of a round alike.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import d20
import lark

from app.rules import notation
from app.rules.dice import SeededDice
from app.rules.dice_parser import Parser, check_values
from bench.report import Figure, table

EXPRESSIONS = (
    "1d20+5", "4d6kh3", "2d6+1d4+3", "10d6", "1d100",  # what the games roll
    "2d6ro<3", "1d20rr1+4", "8d6mi2", "4d6e6kh3",  # rerolls, minimum, explosions
    "(1d20+5, 1d20+3)kh1", "(1d20+5)*2", "8d6/2",  # sets and arithmetic
    "1d8 [tranchant] + 2d6 [feu]",  # annotations
)
AIM = 2.0  # issue 26: at least twice as fast as d20 on each
SEED = 20_260_101
Make = Callable[[], Callable[[], object]]


def _batch_size(make: Make, seconds: float) -> int:
    """How many calls take about ``seconds`` (and warms the caches up)."""
    call, count, started = make(), 0, time.process_time()
    while time.process_time() - started < seconds:
        call()
        count += 1
    return max(50, count)


def _rate(make: Make, batch: int) -> float:
    """Calls per CPU second over one batch, from a freshly seeded source."""
    call = make()
    started = time.process_time()
    for _ in range(batch):
        call()
    return batch / max(time.process_time() - started, 1e-9)


def _alternating(ours: Make, theirs: Make, seconds: float,
                 rounds: int) -> tuple[float, float, float]:
    """Median rates of each side and median ratio, over ``rounds`` back-to-back pairs."""
    our_batch, their_batch = _batch_size(ours, seconds), _batch_size(theirs, seconds)
    pairs = [(_rate(ours, our_batch), _rate(theirs, their_batch)) for _ in range(rounds)]
    return (statistics.median(p[0] for p in pairs), statistics.median(p[1] for p in pairs),
            statistics.median(p[0] / p[1] for p in pairs))


def _ours(expression: str, *, text: bool) -> Make:
    def make() -> Callable[[], object]:
        dice, roll = SeededDice(SEED), notation.roll
        if text:
            return lambda: roll(expression, dice).describe()
        return lambda: roll(expression, dice).total
    return make


def _d20(expression: str, *, text: bool) -> Make:
    def make() -> Callable[[], object]:
        random.seed(SEED)  # d20 draws from the module-level generator
        roll = d20.roll
        if text:
            return lambda: roll(expression).result
        return lambda: roll(expression).total
    return make


def _parsers(seconds: float, rounds: int) -> tuple[float, float, float, float]:
    """Expressions parsed per second, no cache: ours (tree only, and with every check the
    notation makes before rolling) against Lark's LALR parser on d20's own grammar (the
    Lark that d20 pins), which only builds Lark's parse tree."""
    grammar = (Path(d20.__file__).parent / "grammar.lark").read_text(encoding="utf-8")
    lalr = lark.Lark(grammar, start=["expr", "commented_expr"], parser="lalr",
                     maybe_placeholders=True)

    def each(parse: Callable[[str], object]) -> Make:
        def make() -> Callable[[], object]:
            return lambda: [parse(expression) for expression in EXPRESSIONS]
        return make

    tree = each(lambda text: Parser(text).expression())
    checked = each(lambda text: check_values(Parser(text).expression().root))
    theirs = each(lambda text: lalr.parse(text, start="expr"))
    ours_rate, lark_rate, _ = _alternating(tree, theirs, seconds, rounds)
    checked_rate, _, ratio = _alternating(checked, theirs, seconds, rounds)
    n = len(EXPRESSIONS)
    return ours_rate * n, checked_rate * n, lark_rate * n, ratio


def run(*, quick: bool = False) -> list[Figure]:
    seconds, rounds = (0.02, 3) if quick else (0.05, 9)
    rows, figures = [], []
    for expression in EXPRESSIONS:
        ours, theirs, ratio = _alternating(_ours(expression, text=False),
                                           _d20(expression, text=False), seconds, rounds)
        ours_text, theirs_text, ratio_text = _alternating(
            _ours(expression, text=True), _d20(expression, text=True), seconds, rounds)
        rows.append((expression, f"{ours:,.0f}", f"{theirs:,.0f}", f"{ratio:.2f}×",
                     f"{ours_text:,.0f}", f"{theirs_text:,.0f}", f"{ratio_text:.2f}×"))
        figures.append(Figure(f"free rolls {expression}: ours ÷ d20", ratio, "×", aim=AIM,
                              direction="min", is_ratio=True))
    print(f"Free rolls per second (one core, same seeded Mersenne Twister for both; median of "
          f"{rounds} alternating rounds, CPU time):")
    print(table(rows, ("expression", "ours/s", "d20/s", "ratio",
                       "ours+text/s", "d20+text/s", "ratio+text")))
    ours, checked, theirs, ratio = _parsers(seconds, rounds)
    print(f"\nParsing, no cache ({len(EXPRESSIONS)} expressions above): hand-written "
          f"{ours:,.0f}/s (tree), {checked:,.0f}/s (tree and every check); Lark "
          f"{lark.__version__} LALR on d20's grammar {theirs:,.0f}/s (its parse tree only)")
    figures.append(Figure("parsing with every check: hand-written ÷ Lark LALR", ratio, "×",
                          aim=1.0, direction="min", is_ratio=True))
    return figures
