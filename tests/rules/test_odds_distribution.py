"""The exact distribution of the notation's expressions (docs/odds.md), checked against the
roller itself: each expression's chances against 20,000 seeded rolls of ``notation.roll``,
and known figures where they are known exactly."""

from __future__ import annotations

from fractions import Fraction

import pytest

from app.rules import notation
from app.rules.dice import SeededDice
from app.rules.errors import NotationError
from app.rules.odds import Budget, OddsRefused, distribution

# Every operator of docs/dice.md § Reference, each way the engine works a group out.
EXPRESSIONS = [
    "1d20+5", "2d6+1d4+3", "4d6kh3", "4d6dl1", "3d20kh2kl1", "4d6kh3dl1", "2d20kl1",
    "6d6k>3", "6d6p<3", "6d6k>3kh2", "2d6ro<3", "1d20ro1", "4d6roh1", "2d6rr<3",
    "1d20rr1+4", "4d6ra6", "8d6mi2", "1d20ma15", "d6mi2ro2", "d6!", "3d6!", "1d10e>8",
    "d6ro1!", "d6!mi2", "2d6e6e5", "4d6e6kh3", "4d6!kh3", "6d10>=8", "6d10!>=8",
    "3d6kh2>=4", "(1d20+5, 1d20+3)kh1", "(1d6, 1d8, 1d10)k>4", "(1d20+5)*2", "8d6/2",
    "1d6*1d6%5", "1d6//1d2", "-1d6+1d6", "1d8[tranchant]+2d6[feu]", "3d10t", "3d10t+1d6",
    "0d10t", "(1d20+5>=15, 1d20+5>=15)", "1d20>=1d20", "6d10>=8>=2", "0d6+3", "d%",
]


def _rolled(expression: str, runs: int, seed: str):
    dice = SeededDice(seed)
    totals: dict[int, int] = {}
    wins = 0
    for _ in range(runs):
        record = notation.roll(expression, dice)
        totals[record.total] = totals.get(record.total, 0) + 1
        wins += record.outcome == "success"
    return totals, wins


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_the_exact_chances_are_what_the_roller_throws(expression):
    found = distribution(expression)
    assert sum(chance for _, chance in found) == 1
    runs = 20_000
    totals, wins = _rolled(expression, runs, f"odds {expression}")
    assert set(totals) <= {value for value, _ in found}, "a total the odds call impossible"
    # Four standard errors per total: dozens of totals are tested at once.
    for value, chance in found:
        seen = totals.get(value, 0) / runs
        spread = 4 * (float(chance * (1 - chance)) / runs) ** 0.5 + 1e-9
        assert abs(seen - float(chance)) <= spread, (value, float(chance), seen)
    mean = sum(v * n for v, n in totals.items()) / runs
    assert abs(mean - float(found.mean)) <= 4 * found.deviation / runs ** 0.5 + 1e-9
    if found.success is not None:
        spread = 4 * (float(found.success * (1 - found.success)) / runs) ** 0.5
        assert abs(wins / runs - float(found.success)) <= spread


def test_known_figures_exactly():
    assert distribution("4d6kh3").mean == Fraction(15869, 1296)
    assert distribution("1d20+5>=15").success == Fraction(11, 20)
    assert distribution("2d6").probability(7) == Fraction(1, 6)
    assert distribution("6d10>=8").mean == Fraction(9, 5)
    assert distribution("d6!").chance(">=", 7) == Fraction(1, 6)
    assert distribution("1d20rr1").probability(1) == 0  # rerolled to the end
    assert distribution("3d10t").chance(">", 10) == 1 - Fraction(9, 10) ** 3
    found = distribution("1d20+5 >= 15 # attaque")
    assert (found.comparison, found.target, found.low, found.high) == (">=", 15, 6, 25)
    assert distribution("2d6").variance == Fraction(35, 6)


def test_an_endless_roll_says_where_it_was_cut():
    (cut,) = distribution("d6!").cuts
    assert (cut.kind, cut.notation) == ("explosion", "1d6!")
    assert cut.depth >= 10 and cut.beyond <= Fraction(1, 10**12)
    assert cut.beyond == Fraction(1, 6) ** (cut.depth + 1)
    (reroll,) = distribution("1d20rr1").cuts
    assert (reroll.kind, reroll.depth) == ("reroll", None)


def test_a_bad_expression_is_refused_as_the_roller_refuses_it():
    with pytest.raises(NotationError):
        distribution("1d6+x")


def test_too_large_an_expression_is_refused_with_its_cap_before_it_is_computed():
    # A clock that never moves cannot refuse anything: the refusal is the estimate's, made
    # before the work (no timing here: the machine's load would make it flaky).
    with pytest.raises(OddsRefused) as refused:
        distribution("1000d6", Budget(clock=lambda: 0.0))
    assert "2 seconds" in str(refused.value) and "2 secondes" in refused.value.message_fr()
    with pytest.raises(OddsRefused) as refused:
        distribution("1d1000*1d1000")
    assert refused.value.code == "odds_too_many_values"
    assert "10\u202f000" in refused.value.message_fr() and "10,000" in str(refused.value)


def test_the_clock_stops_a_distribution_between_steps():
    ticks = iter(range(100))
    budget = Budget(seconds=5, clock=lambda: next(ticks) * 10.0)
    with pytest.raises(OddsRefused) as refused:
        distribution("1d6+1d6+1d6", budget)
    assert refused.value.code == "odds_too_long"
