"""Poisons (Cyborg § (V)), first aid, recovery and surgery (§ (II), § (VI)) and ranks (§ (VII))."""

from __future__ import annotations

import pytest

from app.rules.cyborg.poisons import (
    antidote,
    pass_hours,
    poison_resistance,
    poisoned,
    poisons,
    symptom_penalties,
    symptoms,
)
from app.rules.cyborg.progression import (
    HealingError,
    between_missions,
    first_aid,
    mission_accomplished,
    rank_for,
    ranks,
    surgery,
    total_skill_bonus,
)
from app.rules.dice import ScriptedDice


class TestPoisons:
    def test_table_as_printed(self) -> None:
        table = poisons()
        assert [(p.name, p.factor) for p in table.values()] == [
            ("Cyanure", "Q"), ("Arsenic", "N"), ("Colendraline", "N"), ("Tellurinase", "O"),
            ("Nitrichlorure", "O"), ("Carbone de tellurase", "M")]
        assert table["carbone_de_tellurase"].mode == "contact"

    def test_resistance_is_sante_over_5(self) -> None:
        assert poison_resistance(34) == 6
        assert poison_resistance(-3) == 0
        assert poison_resistance(80) == 10

    def test_hourly_loss_until_zero(self) -> None:
        running = poisoned("arsenic", 30)  # resistance 6, N → 12
        assert running.per_hour == 12
        first = pass_hours(running, 30, 2)
        assert first.lost == (12, 12) and first.sante == 6 and not first.dead
        second = pass_hours(running, first.sante, 5)
        assert second.lost == (12,) and second.dead and second.notes
        assert running.hours == 3

    def test_an_antidote_stops_the_loss_and_the_symptoms(self) -> None:
        running = poisoned("carbone_de_tellurase", 30)
        assert symptom_penalties(running)["skills"] == -10
        assert symptom_penalties(running)["characteristics"] == {"dexterite": -2}
        antidote(running)
        assert pass_hours(running, 20, 3).lost == ()
        assert symptom_penalties(running)["symptoms"] == []

    def test_every_symptom_is_house_content_with_a_penalty(self) -> None:
        assert all(s.skills or s.characteristics for s in symptoms().values())


class TestFirstAid:
    def test_a_success_heals_2d6_up_to_the_maximum(self) -> None:
        dice = ScriptedDice([(100, 40), (6, 5), (6, 4)])
        result = first_aid(dice, 50, 20, 35)
        assert result.healed == 9 and result.sante == 29 and len(result.records) == 2
        capped = first_aid(ScriptedDice([(100, 40), (6, 6), (6, 6)]), 50, 30, 35)
        assert capped.healed == 5 and capped.sante == 35

    def test_a_failure_heals_nothing(self) -> None:
        result = first_aid(ScriptedDice([(100, 90)]), 50, 20, 35)
        assert result.healed == 0 and result.sante == 20

    def test_once_a_day_per_patient(self) -> None:
        with pytest.raises(HealingError) as error:
            first_aid(ScriptedDice([]), 50, 20, 35, tried_today=True)
        assert error.value.message_fr()


class TestRecoveryAndSurgery:
    def test_between_missions_full_santé_plus_1d6(self) -> None:
        result = between_missions(ScriptedDice([(6, 4)]), 35)
        assert (result.sante_max, result.sante) == (39, 39)

    @pytest.mark.parametrize(("face", "restored", "dead"),
                             [(1, False, True), (2, False, False), (3, False, False),
                              (4, True, False), (5, True, False), (6, True, False)])
    def test_a_lost_limb(self, face: int, restored: bool, dead: bool) -> None:
        result = surgery(ScriptedDice([(6, face)]), "left_leg")
        assert (result.restored, result.dead) == (restored, dead)
        assert result.bonus == ({"rapidite": 1} if face == 6 else {})

    def test_a_better_arm_gives_force(self) -> None:
        assert surgery(ScriptedDice([(6, 6)]), "right_arm").bonus == {"force": 1}

    def test_cut_in_two_needs_5_or_6_or_is_euthanised(self) -> None:
        assert surgery(ScriptedDice([(6, 5)]), None, cut_in_two=True).restored
        failed = surgery(ScriptedDice([(6, 4)]), None, cut_in_two=True)
        assert failed.dead and not failed.restored

    def test_unknown_limb(self) -> None:
        with pytest.raises(HealingError):
            surgery(ScriptedDice([]), "tail")


class TestRanks:
    def test_table_as_printed(self) -> None:
        assert [(r.name, r.missions) for r in ranks()] == [
            ("Initié", 3), ("Commandeur", 5), ("Grand-Machine", 10), ("Grand-Sudoken", 15),
            ("Vénérable-Shiba", 22)]
        assert ranks()[3].dark_jet and ranks()[4].resistance == 1

    def test_rank_held_and_cumulative_skill_bonus(self) -> None:
        assert rank_for(2) is None
        rank = rank_for(9)
        assert rank is not None and rank.name == "Commandeur"
        assert total_skill_bonus(10) == 17

    def test_a_promotion_happens_once(self) -> None:
        reached = mission_accomplished(ScriptedDice([]), 2)
        assert [r.key for r in reached.reached] == ["initie"] and reached.missions == 3
        assert mission_accomplished(ScriptedDice([]), 3).reached == []

    def test_venerable_shiba_rolls_followers_and_25_ends_it(self) -> None:
        shiba = mission_accomplished(ScriptedDice([(6, 4)]), 21)
        assert shiba.followers == 4 and len(shiba.records) == 1
        assert mission_accomplished(ScriptedDice([]), 24).eliminated
