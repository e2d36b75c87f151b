"""Cyborg Anti-Alien tests: characteristic, opposed and skill tests, and the text's
armoured-door example replayed with scripted dice (Cyborg § (I) Les caractéristiques)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from app.rules.cyborg.checks import characteristic_test, opposed_test, skill_test
from app.rules.dice import Modifier, ScriptedDice


class TestArmouredDoorExample:
    """A cyborg chases an alien through a shipyard; every number the text prints is checked.

    The text gives no numbers for the pit jump or the race: the faces and characteristics of
    those two steps are ours, chosen to give the outcomes the text reports."""

    def test_breaking_the_door_force_13_malus_3_rolls_9(self) -> None:
        dice = ScriptedDice([(20, 9)])
        test = characteristic_test(dice, 13, 3, purpose="force")
        dice.assert_exhausted()
        assert [die.value for die in test.record.dice] == [9]
        assert test.record.total == 12  # "9 + 3 = 12"
        assert test.record.target == 13
        assert test.success  # "12 < 13 : c'est une réussite"
        assert test.record.describe() == "1d20: 9 → 9 + malus 3 = 12 < 13, success"

    def test_the_wide_pit_both_succeed_a_dexterity_test_at_plus_2(self) -> None:
        dice = ScriptedDice([(20, 7), (20, 8)])
        alien = characteristic_test(dice, 14, 2, purpose="dextérité")
        cyborg = characteristic_test(dice, 12, 2, purpose="dextérité")
        dice.assert_exhausted()
        assert (alien.score, cyborg.score) == (9, 10)
        assert alien.success and cyborg.success  # "l'alien et le joueur réussissent"

    def test_the_race_in_the_open_the_cyborg_loses_the_opposed_rapidite(self) -> None:
        dice = ScriptedDice([(20, 15), (20, 6)])
        race = opposed_test(dice, 11, 13, purposes=("rapidité cyborg", "rapidité alien"))
        dice.assert_exhausted()
        assert not race.first.success and race.second.success
        assert race.winner == "second"  # "il se fait semer"


class TestCharacteristicTest:
    def test_a_tie_with_the_characteristic_succeeds(self) -> None:
        assert characteristic_test(ScriptedDice([10]), 10).success

    def test_one_over_fails(self) -> None:
        test = characteristic_test(ScriptedDice([11]), 10)
        assert not test.success and test.record.outcome == "failure"

    def test_a_negative_malus_is_a_bonus(self) -> None:
        test = characteristic_test(ScriptedDice([12]), 10, -2)
        assert test.success
        assert test.record.describe() == "1d20: 12 → 12 - bonus 2 = 10 = 10, success"

    @given(face=st.integers(1, 20), value=st.integers(3, 18), malus=st.integers(-10, 10))
    def test_success_is_the_total_at_most_the_characteristic(
        self, face: int, value: int, malus: int
    ) -> None:
        test = characteristic_test(ScriptedDice([face]), value, malus)
        assert test.score == face + malus
        assert test.success == (face + malus <= value)


class TestOpposedTest:
    def test_both_succeed_the_lower_score_wins(self) -> None:
        assert opposed_test(ScriptedDice([8, 5]), 12, 12).winner == "second"
        assert opposed_test(ScriptedDice([4, 5]), 12, 12).winner == "first"

    def test_equal_scores_or_two_failures_keep_things_as_they_are(self) -> None:
        assert opposed_test(ScriptedDice([7, 7]), 12, 15).winner is None
        assert opposed_test(ScriptedDice([19, 20]), 12, 15).winner is None

    def test_the_only_success_wins_whatever_the_scores(self) -> None:
        assert opposed_test(ScriptedDice([3, 13]), 12, 12).winner == "first"

    def test_maluses_apply_to_each_side(self) -> None:
        race = opposed_test(ScriptedDice([5, 5]), 12, 12, first_malus=8)
        assert (race.first.score, race.second.score) == (13, 5)
        assert race.winner == "second"


class TestSkillTest:
    def test_a_score_at_most_the_skill_succeeds(self) -> None:
        test = skill_test(ScriptedDice([(100, 47)]), 47)
        assert test.success and not test.master and test.units == 7

    def test_above_the_skill_fails(self) -> None:
        assert not skill_test(ScriptedDice([48]), 47).success

    def test_units_die_0_on_a_success_is_a_master_stroke(self) -> None:
        test = skill_test(ScriptedDice([30]), 47)
        assert test.master and test.success and test.units == 0
        assert test.record.describe() == "1d100: 30 = 30 < 47, master stroke"

    def test_units_die_0_on_a_failure_is_only_a_failure(self) -> None:
        test = skill_test(ScriptedDice([60]), 47)
        assert not test.success and not test.master

    def test_modifiers_move_the_target_not_the_roll(self) -> None:
        test = skill_test(ScriptedDice([40]), 47,
                          [Modifier(-15, "obscurité"), Modifier(5, "rafale")])
        assert test.target == 37 and test.record.total == 40
        assert not test.success
        assert test.record.target == 37

    def test_a_skill_of_100_or_more_always_succeeds(self) -> None:
        test = skill_test(ScriptedDice([100]), 104)
        assert test.master and test.units == 0

    @given(face=st.integers(1, 100), skill=st.integers(0, 140))
    def test_master_means_success_with_a_round_score(self, face: int, skill: int) -> None:
        test = skill_test(ScriptedDice([face]), skill)
        assert test.success == (face <= skill)
        assert test.master == (face <= skill and face % 10 == 0)
