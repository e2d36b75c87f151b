"""Chases (Cyborg § (IV) Poursuites): the distance ladder, foot and vehicle rounds, accidents,
shots between vehicles, the vehicle tables — every die scripted."""

from __future__ import annotations

import pytest

from app.rules.cyborg.chases import (
    ALONGSIDE,
    CAUGHT,
    LOST,
    ChaseError,
    Driver,
    accident,
    failed_drive,
    foot_round,
    manoeuvre,
    ram,
    shoot_passenger,
    shoot_structure,
    shot_modifiers,
    step,
    vehicle_round,
    vehicles,
)
from app.rules.cyborg.combat import Target
from app.rules.cyborg.content import weapons
from app.rules.dice import ScriptedDice


class TestLadder:
    def test_steps(self) -> None:
        assert step("moyenne", True) == "courte"
        assert step("moyenne", False) == "longue"
        assert step("courte", True) == CAUGHT
        assert step("courte", True, on_foot=False) == ALONGSIDE
        assert step("tres_longue", False) == LOST
        assert step(ALONGSIDE, False) == "courte"

    def test_a_finished_chase_refuses_another_round(self) -> None:
        with pytest.raises(ChaseError):
            foot_round(ScriptedDice([]), CAUGHT, 12, 12)
        with pytest.raises(ChaseError):
            step("loin", True)


class TestOnFoot:
    def test_the_quarry_fails_the_pursuer_gains(self) -> None:
        dice = ScriptedDice([(20, 10), (20, 15)])
        result = foot_round(dice, "moyenne", 13, 12)
        assert (result.winner, result.distance) == ("pursuer", "courte")
        assert len(result.records) == 2

    def test_both_succeed_the_lower_score_wins(self) -> None:
        result = foot_round(ScriptedDice([(20, 10), (20, 4)]), "tres_longue", 13, 12)
        assert (result.winner, result.distance) == ("quarry", LOST)

    def test_both_fail_or_equal_the_distance_holds(self) -> None:
        assert foot_round(ScriptedDice([(20, 18), (20, 19)]), "longue", 13, 12).distance \
            == "longue"
        assert foot_round(ScriptedDice([(20, 5), (20, 5)]), "longue", 13, 12).winner is None

    def test_the_text_s_example_the_cyborg_is_lost(self) -> None:
        """The alien out-runs the cyborg in the shipyard: the cyborg fails, the alien not."""
        result = foot_round(ScriptedDice([(20, 16), (20, 9)]), "tres_longue", 14, 15)
        assert result.distance == LOST


class TestVehicles:
    def test_table_as_printed(self) -> None:
        jet = vehicles()["dark_jet_45"]
        assert (jet.resistance, jet.structure, jet.safety) == (3, 45, 2)
        assert vehicles()["supertanker"].safety == 5
        assert vehicles()["moto"].resistance == 0
        assert len(vehicles()) == 16

    def test_both_succeed_the_lower_roll_gains(self) -> None:
        dice = ScriptedDice([(100, 20), (100, 35)])
        result = vehicle_round(dice, "courte", Driver(60, 45), Driver(50, 50))
        assert (result.winner, result.distance) == ("pursuer", ALONGSIDE)

    def test_a_failure_is_an_accident_and_keeps_the_distance(self) -> None:
        dice = ScriptedDice([(100, 20), (100, 85)])
        result = vehicle_round(dice, "longue", Driver(60, 45), Driver(50, 50))
        assert result.quarry is not None and result.quarry.accident
        assert result.distance == "longue" and result.winner is None and result.notes

    def test_the_mistake_variant_costs_1d10_structure(self) -> None:
        dice = ScriptedDice([(100, 20), (100, 85), (10, 7)])
        result = vehicle_round(dice, "longue", Driver(60, 45), Driver(50, 50), accidents=False)
        assert result.quarry is not None and result.quarry.structure == 43
        assert not result.quarry.accident
        assert (result.winner, result.distance) == ("pursuer", "moyenne")
        assert len(result.records) == 3

    def test_a_mistake_down_to_0_structure_is_an_accident(self) -> None:
        dice = ScriptedDice([(100, 90), (10, 5), (100, 10)])
        result = vehicle_round(dice, "longue", Driver(60, 4), Driver(50, 50), accidents=False)
        assert result.pursuer is not None and result.pursuer.accident
        assert result.distance == "longue"

    def test_a_tour_de_force_needs_the_vehicles_alongside(self) -> None:
        with pytest.raises(ChaseError):
            manoeuvre(ScriptedDice([]), 50, tour_de_force=True)
        assert manoeuvre(ScriptedDice([(100, 30)]), 50, tour_de_force=True,
                         alongside=True).success

    def test_only_a_pursuer_that_closed_a_short_distance_rams(self) -> None:
        with pytest.raises(ChaseError) as refused:
            ram(ScriptedDice([]), 50, caught_up=False)
        assert refused.value.code == "not_caught_up"
        test = ram(ScriptedDice([(100, 42)]), 50, caught_up=True)
        assert test.success and test.record.purpose == "heurter le poursuivi"

    def test_a_failed_drive_is_an_accident_unless_the_milder_rule_is_chosen(self) -> None:
        failed = manoeuvre(ScriptedDice([(100, 80)]), 50)
        crash = failed_drive(ScriptedDice([]), failed, 30, accidents=True)
        assert (crash.accident, crash.structure, crash.mistake) == (True, 30, None)
        mild = failed_drive(ScriptedDice([(10, 4)]), failed, 30, accidents=False)
        assert (mild.accident, mild.structure, mild.mistake.total) == (False, 26, 4)
        assert failed_drive(ScriptedDice([(10, 9)]), failed, 9, accidents=False).accident


class TestAccidents:
    def test_safety_saves_or_1d100_over_4(self) -> None:
        dice = ScriptedDice([(6, 2), (6, 5), (100, 63)])
        saved, hurt = accident(dice, "dark_jet_45", 2)
        assert saved.saved and saved.damage == 0 and len(saved.records) == 1
        assert not hurt.saved and hurt.damage == 15 and len(hurt.records) == 2


class TestShots:
    def test_modifiers_from_a_moving_vehicle(self) -> None:
        assert sum(m.value for m in shot_modifiers(driver=False)) == -10
        assert sum(m.value for m in shot_modifiers(driver=True)) == -20

    def test_a_shot_at_the_structure(self) -> None:
        dice = ScriptedDice([(100, 30)])
        result = shoot_structure(dice, weapons()["pistolet_mitrailleur"], 60, "fourgon", 4,
                                 shot_modifiers(driver=True))
        assert result.test.record.target == 40
        assert result.damage == 14 and result.structure == -10 and result.accident  # F vs 3, ×2

    def test_a_motorbike_has_no_structure_to_aim_at(self) -> None:
        with pytest.raises(ChaseError):
            shoot_structure(ScriptedDice([]), weapons()["carabine"], 60, "moto", 25)

    def test_passengers_add_the_vehicle_s_resistance_and_cannot_dodge(self) -> None:
        cyborg = Target(esquive=40, resistance=7, sante=30, constitution=12)
        hit = shoot_passenger(ScriptedDice([(100, 5)]), weapons()["fusil_a_canon_scie"], 60,
                              "dark_jet_45", cyborg)
        assert hit.hit and hit.defence is None and hit.damage == 2  # G against 7 + 3 = 10
        armoured = Target(esquive=40, resistance=8, sante=30, constitution=12)
        none = shoot_passenger(ScriptedDice([(100, 5)]), weapons()["fusil_a_canon_scie"], 60,
                               "bus", armoured)
        assert none.damage == 0 and none.sante == 30  # 11: above the maximum of 10
