"""Tiamat's dice conventions, replaying the seed's worked examples (« Tests et Actions »)."""

from __future__ import annotations

from app.rules.dice import Modifier, ScriptedDice
from app.rules.tiamat.content import parse_formula
from app.rules.tiamat.pools import formula_pool, opposed, pool, simple_test

JACK = {"force": 3, "endurance": 2, "habilete": 2, "rapidite": 2, "perception": 2,
        "intelligence": 2, "temperament": 2, "volonte": 3}


def test_parchment_fails_with_a_margin_of_two() -> None:
    # « Jack à 2 en intelligence et +2 en langue … obtient 1 et 6 … un résultat de 8 »
    dice = ScriptedDice([1, 6])
    test = simple_test(dice, JACK["intelligence"], 10, skill=2, skill_name="Langue")
    dice.assert_exhausted()
    assert test.record.total == 8 and not test.success and test.margin == -2


def test_hacking_succeeds_with_a_margin_of_two() -> None:
    # « obtient 3 et 7 … un résultat de 10 … une marge de réussite de 2 »
    test = simple_test(ScriptedDice([3, 7]), 2, 8, skill=3, skill_name="Informatique")
    assert test.record.total == 10 and test.success and test.margin == 2


def test_team_search_rolls_five_dice() -> None:
    # Ryu (Perception 3) + 2D10 for Jack and Dante; Investigation 1 + 3 + 0; best 7 → 11.
    dice = ScriptedDice([2, 7, 1, 5, 3])
    test = simple_test(dice, 3, 10, skill=4, helpers=2)
    dice.assert_exhausted()
    assert len(test.record.dice) == 5 and test.record.total == 11


def test_keep_one_d10_and_sum_d6() -> None:
    assert pool(ScriptedDice([3, 8]), 2).total == 8
    # « Jack a ouvert le feu … 2D6 … 1 et 6. Le résultat est donc de 7. »
    from app.rules.tiamat.pools import d6_sum
    assert d6_sum(ScriptedDice([1, 6]), 2).total == 7


def test_two_criticals_bend_the_bar() -> None:
    # Force 3: 2, 10, 10 → two d6 (3, 5) → 18 ≥ 15 (héroïque).
    test = simple_test(ScriptedDice([2, 10, 10, 3, 5]), 3, 15)
    assert test.record.total == 18 and test.success
    assert sum(1 for die in test.record.dice if die.added == "critical") == 2


def test_one_die_minimum() -> None:
    # « Rapidité -2D10 » (la Gifle) with Rapidité 2 still rolls one die.
    d10, d6, flat = formula_pool(parse_formula("Rapidité -2D10"), JACK)
    record = pool(ScriptedDice([4]), d10, d6=d6, flat=flat)
    assert len(record.dice) == 1 and record.total == 4


def test_climbing_with_a_rope_and_acrobatie() -> None:
    # « Habileté +1D10 +2 … 2, 5 et 7 … 9 »
    record = pool(ScriptedDice([2, 5, 7]), 2 + 1, labels=(Modifier(2, "Acrobatie"),))
    assert record.total == 9


def test_knife_damage_with_a_critical() -> None:
    # Force + 1D6, Force 3: 1, 8, 10 → critical d6 3, knife d6 4 → 17.
    d10, d6, flat = formula_pool(parse_formula("Puissance de l'arme"), JACK,
                                 weapon=(0, 1, 0, True))
    dice = ScriptedDice([1, 8, 10, 3, 4])
    record = pool(dice, d10, d6=d6, flat=flat)
    dice.assert_exhausted()
    assert (d10, d6) == (3, 1) and record.total == 17


def test_the_initiator_loses_ties() -> None:
    attack = pool(ScriptedDice([6]), 1)
    defence = pool(ScriptedDice([6]), 1)
    assert not opposed(attack, defence)
    assert opposed(pool(ScriptedDice([7]), 1), defence)
