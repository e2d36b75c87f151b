"""Combat (Cyborg § (III) Combats): initiative, attacks and dodges, master strokes, punches,
the modifier tables, bursts and magazines — every die scripted."""

from __future__ import annotations

import pytest

from app.rules.cyborg.combat import (
    CombatError,
    Target,
    attack,
    attack_modifiers,
    fire,
    initiative,
    modifier_table,
    punch,
    reload,
)
from app.rules.cyborg.content import weapons
from app.rules.dice import Modifier, ScriptedDice


def cyborg(**changes: object) -> Target:
    values = {"esquive": 30, "resistance": 7, "sante": 30, "constitution": 12}
    return Target(**{**values, **changes})  # type: ignore[arg-type]


class TestInitiative:
    def test_the_highest_summed_rapidite_acts_first(self) -> None:
        dice = ScriptedDice([])
        result = initiative(dice, {"cyborgs": [14, 12], "aliens": [18, 5, 4]})
        assert result.order == ("aliens", "cyborgs")
        assert result.totals == {"cyborgs": 26, "aliens": 27}
        assert result.records == ()

    def test_surprise_goes_first_whatever_the_sums(self) -> None:
        result = initiative(ScriptedDice([]), {"cyborgs": [14], "aliens": [18]},
                            surprise="cyborgs")
        assert result.order == ("cyborgs", "aliens")

    def test_a_tie_is_broken_by_d20_rolled_again_while_tied(self) -> None:
        dice = ScriptedDice([(20, 7), (20, 7), (20, 3), (20, 15), (20, 2)])
        result = initiative(dice, {"a": [10], "b": [10], "c": [10], "d": [4]})
        # a, b tie on 7 above c's 3: they roll again (15 beats 2).
        assert result.order == ("a", "b", "c", "d")
        assert len(result.records) == 5
        dice.assert_exhausted()

    def test_no_group(self) -> None:
        with pytest.raises(CombatError):
            initiative(ScriptedDice([]), {})


class TestAttack:
    def test_a_miss_rolls_nothing_else(self) -> None:
        dice = ScriptedDice([(100, 71)])
        result = attack(dice, weapons()["fusil_a_canon_scie"], 70, cyborg())
        assert not result.hit and result.defence is None and result.sante == 30
        assert result.attack.record.outcome == "failure"

    def test_a_hit_dodged_does_no_damage(self) -> None:
        dice = ScriptedDice([(100, 35), (100, 12)])
        result = attack(dice, weapons()["fusil_a_canon_scie"], 70, cyborg())
        assert not result.hit and result.damage == 0 and not result.attacker_unbalanced
        assert len(result.records) == 2

    def test_a_hit_not_dodged_costs_the_table_cell(self) -> None:
        dice = ScriptedDice([(100, 35), (100, 31)])
        result = attack(dice, weapons()["fusil_a_canon_scie"], 70, cyborg())
        assert result.hit and result.damage == 4 and result.sante == 26  # G vs 7

    def test_offensive_master_stroke_doubles(self) -> None:
        dice = ScriptedDice([(100, 40), (100, 99)])
        result = attack(dice, weapons()["tronconneuse"], 70, cyborg())
        assert result.attack.master and result.damage == 10  # H vs 7 = 5, doubled

    def test_defensive_master_stroke_unbalances_a_melee_attacker_only(self) -> None:
        melee = attack(ScriptedDice([(100, 5), (100, 20)]), weapons()["tronconneuse"], 70,
                       cyborg())
        assert melee.attacker_unbalanced and not melee.hit
        ranged = attack(ScriptedDice([(100, 5), (100, 20)]), weapons()["carabine"], 70,
                        cyborg())
        assert not ranged.attacker_unbalanced and not ranged.hit

    def test_an_unbalanced_target_cannot_dodge(self) -> None:
        dice = ScriptedDice([(100, 5)])
        result = attack(dice, weapons()["tronconneuse"], 70, cyborg(can_dodge=False))
        assert result.hit and result.defence is None
        dice.assert_exhausted()

    def test_modifiers_move_the_target(self) -> None:
        dice = ScriptedDice([(100, 60)])
        result = attack(dice, weapons()["carabine"], 70, cyborg(),
                        attack_modifiers("ranged", {"partiellement_cachee": None}))
        assert result.attack.record.target == 55 and not result.hit

    def test_santé_at_zero_rolls_the_wound(self) -> None:
        # An explosion kills outright: no location die.
        dice = ScriptedDice([(100, 5), (100, 99)])
        result = attack(dice, weapons()["lance_grenades"], 70, cyborg(sante=3))
        assert result.sante == -5 and result.wound is not None and result.wound.dead

    def test_a_located_wound_adds_its_rolls(self) -> None:
        # Chainsaw, santé 2 → −3; location 3 (right leg), constitution test 8 ≤ 12.
        dice = ScriptedDice([(100, 5), (100, 99), (6, 3), (20, 8)])
        result = attack(dice, weapons()["tronconneuse"], 70, cyborg(sante=2))
        assert result.wound is not None and result.wound.lost_limb == "right_leg"
        assert len(result.records) == 4
        dice.assert_exhausted()


class TestPunches:
    @pytest.mark.parametrize(("force", "factor"), [(5, "B"), (12, "C"), (13, "D"), (19, "E")])
    def test_factor_by_force(self, force: int, factor: str) -> None:
        fist = punch(force)
        assert (fist.factor, fist.damage_type, fist.skill) == (factor, "broyage", "arme_blanche")

    def test_a_punch_is_melee(self) -> None:
        result = attack(ScriptedDice([(100, 5), (100, 99)]), punch(15), 50, cyborg(resistance=1))
        assert result.damage == 7  # D vs 1


class TestModifierTables:
    def test_tables_as_printed(self) -> None:
        table = modifier_table()
        assert table["chute_libre"].value == -25 and table["chute_libre"].table == "melee"
        assert table["surprise"].value == 20
        assert table["bout_portant"].value == 15 and table["bout_portant"].table == "ranged"
        assert all(entry.label for entry in table.values())

    def test_ranged_attacks_may_take_melee_entries_not_the_reverse(self) -> None:
        assert attack_modifiers("ranged", {"obscurite": None}) == (Modifier(-15, "Obscurité"),)
        with pytest.raises(CombatError):
            attack_modifiers("melee", {"bout_portant": None})

    def test_or_more_entries_may_be_harsher_never_milder(self) -> None:
        assert attack_modifiers("melee", {"obscurite": -40})[0].value == -40
        with pytest.raises(CombatError):
            attack_modifiers("melee", {"obscurite": -5})
        with pytest.raises(CombatError):
            attack_modifiers("melee", {"bouclier": -20})

    def test_the_burst_bonus_is_not_picked_by_hand(self) -> None:
        with pytest.raises(CombatError):
            attack_modifiers("ranged", {"rafale": None})
        with pytest.raises(CombatError):
            attack_modifiers("ranged", {"nope": None})


class TestFiring:
    def test_a_burst_rolls_every_round_with_plus_5(self) -> None:
        # Three rounds of a sub-machine gun (F vs 7 = 3): hit, miss, hit with a master stroke.
        dice = ScriptedDice([(100, 54), (100, 99), (100, 56), (100, 30), (100, 99)])
        volley = fire(dice, "pistolet_mitrailleur", 50, cyborg(), shots=3, loaded=10)
        assert volley.burst and volley.magazine == 7
        assert [shot.attack.record.target for shot in volley.shots] == [55, 55, 55]
        assert [shot.damage for shot in volley.shots] == [3, 0, 6]
        assert volley.sante == 21
        assert len(volley.records) == 5
        dice.assert_exhausted()

    def test_two_rounds_are_not_a_burst(self) -> None:
        volley = fire(ScriptedDice([(100, 90), (100, 90)]), "mitraillette", 50, cyborg(),
                      shots=2)
        assert not volley.burst and volley.magazine == 48

    def test_shots_per_turn_and_magazine_limits(self) -> None:
        with pytest.raises(CombatError) as error:
            fire(ScriptedDice([]), "magnum_44", 50, cyborg(), shots=2)
        assert "1 shot a turn" in str(error.value)
        assert error.value.message_fr() == "Magnum 44 tire au plus 1 coup par tour"
        with pytest.raises(CombatError):
            fire(ScriptedDice([]), "fusil_a_canon_scie", 50, cyborg(), shots=2, loaded=1)
        with pytest.raises(CombatError):
            fire(ScriptedDice([]), "fusil_a_canon_scie", 50, cyborg(), shots=0)

    def test_no_magazine_no_count(self) -> None:
        volley = fire(ScriptedDice([(100, 90)]), "fusil_laser", 50, cyborg())
        assert volley.magazine is None
        assert reload("fusil_laser") is None
        assert reload("fusil_a_canon_scie") == 2
