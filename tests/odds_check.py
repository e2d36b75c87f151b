"""The test every game's odds take (docs/odds.md § Checking a game's odds): exact chances
against many seeded throws of the real rules.

``assert_matches_simulation(exact, throw)`` runs ``throw(dice)`` — the action through the
rules engine's ``decide``, returning the outcome's key (or a set of keys, for outcomes that
overlap: « hit » and « wound ») — ``RUNS`` times with seeded dice, counts each key, and asserts
that every exact chance is within four standard errors of what the dice gave (an outcome of
chance 0 or 1 must never or always happen).

``RUNS`` is 25,000 in the suite: four standard errors are then at most 1.3 points of chance,
far under what a wrong rule moves (a missed +1 on a d6 moves a chance by 16 points), and the
suite's odds checks take a fifth of the time 100,000 took. ``make odds-deep`` runs them again
with ``TABLEE_ODDS_RUNS=100000`` (at most 0.6 points) before a change to a game's odds lands.
"""

from __future__ import annotations

import math
import multiprocessing
import os
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping
from fractions import Fraction

from app.rules.dice import Dice, SeededDice

RUNS = int(os.environ.get("TABLEE_ODDS_RUNS", "25000"))
SPREAD = 4
# The throws are always cut into the same seeded streams (``seed/0``, ``seed/1``), however
# many processes throw them: a test sees the same dice alone, in a pool or under xdist.
STREAMS = 2
# A fork pool shares a simulation among the cores, but under pytest-xdist every core already
# runs a worker of its own: a pool there only makes four processes fight for two cores
# (more CPU spent for the same throws), so an xdist worker throws both streams itself.
PROCESSES = 1 if os.environ.get("PYTEST_XDIST_WORKER") else min(STREAMS, os.cpu_count() or 1)


def _count(throw: Callable[[Dice], Hashable | Iterable[Hashable]], runs: int,
           seed: str) -> Counter:
    dice = SeededDice(seed)
    counts: Counter = Counter()
    for _ in range(runs):
        keys = throw(dice)
        counts.update(keys if isinstance(keys, set | frozenset | list | tuple) else [keys])
    return counts


def simulate(throw: Callable[[Dice], Hashable | Iterable[Hashable]], *, runs: int = RUNS,
             seed: int | str = "odds", processes: int = PROCESSES) -> Counter:
    """Each key's count over ``runs`` throws, cut into ``STREAMS`` seeded streams
    (``seed/0``, ``seed/1``…) thrown by up to ``processes`` forked workers, so the rules'
    real cost is paid on every core; the counts are the same whoever throws them."""
    streams = [(runs // STREAMS + (i < runs % STREAMS), f"{seed}/{i}") for i in range(STREAMS)]
    if processes <= 1 or not hasattr(os, "fork"):
        return sum((_count(throw, share, name) for share, name in streams), Counter())
    global _THROW
    _THROW = throw  # a forked worker inherits it: nothing to pickle
    with multiprocessing.get_context("fork").Pool(min(processes, STREAMS)) as pool:
        parts = pool.starmap(_worker, streams)
    return sum(parts, Counter())


_THROW: Callable | None = None


def _worker(runs: int, seed: str) -> Counter:
    assert _THROW is not None
    return _count(_THROW, runs, seed)


def assert_matches_simulation(exact: Mapping[Hashable, Fraction],
                              throw: Callable[[Dice], Hashable | Iterable[Hashable]], *,
                              runs: int = RUNS, seed: int | str = "odds") -> Counter:
    """Every exact chance within ``SPREAD`` standard errors of ``runs`` seeded throws."""
    counts = simulate(throw, runs=runs, seed=seed)
    assert_counts_match(exact, counts, runs)
    return counts


def assert_counts_match(exact: Mapping[Hashable, Fraction], counts: Mapping[Hashable, int],
                        runs: int) -> None:
    """The judgement of ``assert_matches_simulation`` on counts already simulated (a throw
    that also returns values for ``assert_mean_matches``)."""
    unknown = set(counts) - set(exact)
    assert not unknown, f"outcomes the odds do not name: {sorted(map(str, unknown))}"
    for key, chance in exact.items():
        seen = counts.get(key, 0) / runs
        if chance in (0, 1):
            assert seen == chance, f"{key}: chance {chance}, seen {seen}"
            continue
        error = math.sqrt(float(chance) * (1 - float(chance)) / runs)
        assert abs(seen - float(chance)) <= SPREAD * error, (
            f"{key}: exact {float(chance):.5f}, seen {seen:.5f} over {runs} "
            f"(more than {SPREAD} standard errors of {error:.5f})")


def assert_mean_matches(expected: Fraction, values: Mapping[int, int], runs: int,
                        name: str = "mean") -> None:
    """An exact expectation (points lost on average…) within ``SPREAD`` standard errors of
    the mean of ``runs`` seeded throws; ``values`` counts each value seen (a throw that gave
    none counts as 0)."""
    seen = sum(values.values())
    assert seen <= runs
    mean = sum(value * count for value, count in values.items()) / runs
    square = sum(value * value * count for value, count in values.items()) / runs
    error = math.sqrt(max(0.0, square - mean * mean) / runs)
    if error == 0:
        assert mean == expected, f"{name}: exact {float(expected)}, seen {mean}"
        return
    assert abs(mean - float(expected)) <= SPREAD * error, (
        f"{name}: exact {float(expected):.5f}, seen {mean:.5f} over {runs} "
        f"(more than {SPREAD} standard errors of {error:.5f})")
