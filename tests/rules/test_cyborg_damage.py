"""Damage (Cyborg § (III) Combats / Calcul des dégâts): the damage-factor table, the d6
location table, and the consequences of 0 santé by damage type; the weapon catalogue."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.rules.cyborg.content import (
    FACTORS,
    damage_correction,
    damage_corrections,
    damage_table,
    starting_weapons,
    weapons,
)
from app.rules.cyborg.damage import damage_points, roll_location, wound
from app.rules.dice import ScriptedDice

ROW_OFFSET = {0: 0, 1: 0, 2: 1, 3: 2, 4: 3, 5: 4, 6: 5, 7: 6, 8: 7, 9: 8, 10: 8}


class TestDamageTable:
    def test_cells_as_printed(self) -> None:
        assert damage_points("A", 0) == 4
        assert damage_points("V", 0) == 25
        assert damage_points("G", 7) == 4  # the sawn-off shotgun against a cyborg's armour
        assert damage_points("H", 7) == 5  # the chainsaw
        assert damage_points("K", 7) == 8  # the grenade launcher
        assert damage_points("A", 5) == 0  # "/"
        assert damage_points("F", 10) == 1
        assert damage_points("L", 10) == 7

    def test_the_misprinted_cell_resistance_3_column_d_follows_the_pattern(self) -> None:
        assert damage_points("D", 3) == 5
        assert damage_correction("D", 3)["printed"] == 2
        assert damage_correction("D", 4) is None and damage_correction("E", 3) is None
        (correction,) = damage_corrections()
        assert (correction["resistance"], correction["column"]) == (3, "D")
        assert (correction["printed"], correction["used"]) == (2, 5)
        assert correction["source"] == "house" and correction["reason"]

    def test_every_cell_follows_the_tables_pattern(self) -> None:
        """Checks the transcription: one letter = one point, rows shift as printed."""
        for resistance, row in damage_table().items():
            expected = [max(0, i + 4 - ROW_OFFSET[resistance]) for i in range(len(FACTORS))]
            assert list(row) == expected, resistance

    def test_a_master_stroke_doubles_the_damage(self) -> None:
        assert damage_points("G", 7, master=True) == 8

    def test_above_10_nothing_gets_through(self) -> None:
        assert damage_points("V", 11) == 0

    def test_bad_input(self) -> None:
        with pytest.raises(ValueError, match="factor"):
            damage_points("W", 1)
        with pytest.raises(ValueError, match="negative"):
            damage_points("A", -1)

    @given(factor=st.sampled_from(FACTORS), resistance=st.integers(0, 9))
    def test_more_armour_never_hurts_more_and_a_bigger_letter_never_less(
        self, factor: str, resistance: int
    ) -> None:
        assert damage_points(factor, resistance + 1) <= damage_points(factor, resistance)
        if factor != "V":
            bigger = FACTORS[FACTORS.index(factor) + 1]
            assert damage_points(bigger, resistance) >= damage_points(factor, resistance)


class TestLocation:
    def test_a_d6_on_the_table(self) -> None:
        location, records = roll_location(ScriptedDice([(6, 3)]))
        assert (location.humanoid, location.non_humanoid, location.limb) == (
            "jambe droite", "membre", "right_leg")
        assert records[0].outcome == "jambe droite"

    def test_an_already_lost_limb_is_rolled_again(self) -> None:
        location, records = roll_location(ScriptedDice([2, 2, 5]), lost=["left_arm"])
        assert location.humanoid == "tronc"
        assert [record.outcome for record in records] == [
            "re-roll: limb already lost", "re-roll: limb already lost", "tronc"]


class TestWounds:
    @pytest.mark.parametrize("damage_type", ["explosion", "etouffement", "empoisonnement"])
    def test_immediate_death_without_a_roll(self, damage_type: str) -> None:
        result = wound(ScriptedDice([]), damage_type, constitution=12)
        assert result.dead and result.records == []

    def test_a_flame_thrower_kills_a_laser_localises(self) -> None:
        assert wound(ScriptedDice([]), "brulure", constitution=12, localised=False).dead
        laser = wound(ScriptedDice([5, (20, 3)]), "brulure", constitution=12)
        assert laser.location_name == "tronc" and laser.paralysed and not laser.dead

    def test_strangling_leaves_1d6_turns(self) -> None:
        result = wound(ScriptedDice([(6, 4)]), "etranglement", constitution=12)
        assert result.turns_to_live == 4 and not result.dead

    def test_chainsaw_on_the_right_arm_severs_it_and_a_failed_constitution_knocks_out(
        self,
    ) -> None:
        dice = ScriptedDice([(6, 1), (20, 13)])
        result = wound(dice, "dechirure", constitution=12)
        dice.assert_exhausted()
        assert result.lost_limb == "right_arm" and result.unconscious and not result.dead
        assert result.skill_penalties == {"arme_blanche": -50, "arme_a_feu": -50,
                                          "esquive_parade": -50}
        assert result.records[1].describe() == "1d20: 13 = 13 > 12, failure"

    def test_a_lost_leg_costs_5_rapidite_and_2_dexterite(self) -> None:
        result = wound(ScriptedDice([4, 2]), "dechirure", constitution=12)
        assert result.lost_limb == "left_leg" and not result.unconscious
        assert result.penalties == {"rapidite": -5, "dexterite": -2}

    def test_cut_in_two_needs_a_constitution_test_at_plus_4(self) -> None:
        result = wound(ScriptedDice([5, (20, 9)]), "dechirure", constitution=12)
        assert result.cut_in_two and result.dead  # 9 + 4 = 13 > 12
        assert result.records[1].total == 13
        survived = wound(ScriptedDice([5, (20, 8)]), "dechirure", constitution=12)
        assert survived.cut_in_two and not survived.dead

    def test_a_pierced_trunk_needs_constitution_plus_2(self) -> None:
        dead = wound(ScriptedDice([5, 11]), "perforation", constitution=12)
        assert dead.dead and not dead.paralysed
        alive = wound(ScriptedDice([5, 10]), "perforation", constitution=12)
        assert alive.paralysed and not alive.dead

    def test_the_head_is_death(self) -> None:
        for damage_type in ("dechirure", "perforation", "broyage"):
            result = wound(ScriptedDice([6]), damage_type, constitution=18)
            assert result.dead and result.location_name == "tête"

    def test_crushing_breaks_a_limb(self) -> None:
        leg = wound(ScriptedDice([3]), "broyage", constitution=12)
        assert leg.broken_limb == "right_leg" and leg.lost_limb is None
        assert leg.penalties == {"rapidite": -4, "dexterite": -2}
        arm = wound(ScriptedDice([1]), "broyage", constitution=12)
        assert arm.skill_penalties["arme_a_feu"] == -50

    def test_a_crushed_thorax_is_death_or_coma(self) -> None:
        coma = wound(ScriptedDice([5, 10]), "broyage", constitution=12)
        assert coma.coma and coma.penalties == {"force": -2, "dexterite": -2}
        assert wound(ScriptedDice([5, 11]), "broyage", constitution=12).dead
        assert wound(ScriptedDice([]), "broyage", constitution=12, whole_body=True).dead

    def test_a_whip_only_knocks_out(self) -> None:
        result = wound(ScriptedDice([]), "broyage", constitution=12, knockout=True)
        assert result.unconscious and not result.dead

    def test_non_humanoid_names_and_lost_limbs_rerolled(self) -> None:
        result = wound(ScriptedDice([1, 6]), "perforation", constitution=12,
                       humanoid=False, lost_limbs=["right_arm"])
        assert result.location_name == "centre nerveux" and result.dead

    def test_the_wound_is_json_with_every_roll(self) -> None:
        data = wound(ScriptedDice([2, 4]), "perforation", constitution=12).to_dict()
        assert data["lost_limb"] == "left_arm"
        assert [roll["total"] for roll in data["rolls"]] == [2, 4]

    def test_unknown_damage_type(self) -> None:
        with pytest.raises(ValueError):
            wound(ScriptedDice([]), "magie", constitution=12)


class TestCatalogue:
    def test_the_starting_armament(self) -> None:
        catalogue = weapons()
        assert [(catalogue[k].damage_type, catalogue[k].factor) for k in starting_weapons()] == [
            ("dechirure", "H"), ("perforation", "G"), ("explosion", "K")]

    def test_both_tables_with_their_marks(self) -> None:
        catalogue = weapons()
        natural = {"tentacules", "griffes", "crachat_acide"}  # house: the aliens' own
        printed = [w for k, w in catalogue.items() if k not in natural]
        assert sum(w.kind == "ranged" for w in printed) == 22
        assert sum(w.kind == "melee" for w in printed) == 13
        assert all(catalogue[k].source == "house" for k in natural)
        assert {k for k, w in catalogue.items() if w.two_handed} == {
            "fusil_d_assaut", "mitrailleuse_m60", "mitraillette", "lance_flammes",
            "fusil_laser", "lance_roquettes"}
        assert {k for k, w in catalogue.items() if w.forearm} == {
            "arbalete_automatique", "scie_circulaire"}
        assert {k for k, w in catalogue.items() if w.automatic} == {
            "mitrailleuse_m60", "pistolet_mitrailleur", "mitraillette"}
        assert catalogue["lance_flammes"].magazine is None
        assert catalogue["javelot"].skill == "arme_blanche"
        assert {k for k, w in catalogue.items() if w.knockout} == {"fouet", "fouet_electrifie"}
        assert all(w.source in ("seed", "house") for w in catalogue.values())
