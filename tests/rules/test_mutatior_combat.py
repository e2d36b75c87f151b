"""Mutatior's fight: the text's worked example replayed die by die, and each rule alone."""

from __future__ import annotations

from dataclasses import replace

import pytest

from app.rules.dice import Modifier, ScriptedDice
from app.rules.mutatior.body import validate
from app.rules.mutatior.combat import (
    ATTACKER,
    DEFENDER,
    IllegalMelee,
    apply_damage,
    apply_infarctus,
    clash,
    escape_attacks,
    follow_up,
    initiative,
    pump_roll,
    shoot,
    tie_break,
)
from app.rules.mutatior.samples import grosbaf, nurglie, scarabator, zetzet


def test_the_example_creatures_are_legal() -> None:
    assert validate(grosbaf()) == [] and validate(zetzet()) == []
    assert (grosbaf().pump, zetzet().pump) == (6, 8)


def test_exemple_de_combat_step_by_step() -> None:
    gros, zet = grosbaf(), zetzet()
    # Grosbaf tries to impale Zetzet's torso: 7 + 1 (horn) + 3 = 11 against 6 + 2 = 8.
    dice = ScriptedDice([3, 2])
    first = clash(gros, "tête", zet, "torse", dice)
    assert (first.attack.total, first.defence.total) == (11, 8)
    assert first.attack.describe() == "1d6: 3 → 3 + muscles 7 + corne 1 = 11"
    assert first.winner == ATTACKER and first.damage == 3
    zet, report = apply_damage(zet, "torse", first.damage)
    assert report.lost == {"muscles": 3, "biomoteurs": 0, "lobes": 0}
    assert zet.limb("torse").live_muscles == 3 and not zet.dead
    # A second attack with his claws needs a pump roll: 9 against a pump of 6 fails.
    step = follow_up(first, gros, zet)
    assert (step.kind, step.by, step.needs_pump_roll) == ("second_attack", "Grosbaf", True)
    assert (step.not_with, step.not_at) == ("tête", "torse")
    dice = ScriptedDice([4, 5])
    second = pump_roll(gros, dice)
    assert (second.record.total, second.record.target, second.success) == (9, 6, False)
    # Zetzet bites Grosbaf's leg: 5 + 4 = 9 against 6 + 3 = 9, a tie.
    dice = ScriptedDice([4, 3])
    bite = clash(zet, "tête", gros, "jambe gauche", dice)
    assert (bite.attack.total, bite.defence.total, bite.winner) == (9, 9, None)
    # Both pump rolls: Zetzet 2 for a pump of 8, Grosbaf 4 for 6; Zetzet rolled lower.
    dice = ScriptedDice([1, 1, 1, 3])
    tie = tie_break(zet, gros, dice)
    assert (tie.attacker_roll.natural, tie.attacker_roll.record.target) == (2, 8)
    assert (tie.defender_roll.natural, tie.defender_roll.record.target) == (4, 6)
    assert tie.attacker_roll.success and tie.defender_roll.success
    assert tie.winner == ATTACKER
    step = follow_up(bite, zet, gros, tie=tie)
    assert (step.kind, step.by, step.needs_pump_roll) == ("second_attack", "Zetzet", False)
    # The tail on Grosbaf's head, who scores more: Grosbaf may counter on a pump roll.
    dice = ScriptedDice([2, 2])
    tail = clash(zet, "queue", gros, "tête", dice, used_limbs=frozenset({"tête"}))
    assert (tail.attack.total, tail.defence.total, tail.winner) == (6, 9, DEFENDER)
    step = follow_up(tail, zet, gros, attack_number=2)
    assert (step.kind, step.by, step.needs_pump_roll) == ("counter", "Grosbaf", True)
    assert (step.not_with, step.not_at) == ("tête", "queue")


def test_never_a_third_attack_and_a_counter_ends_the_exchange() -> None:
    gros, zet = grosbaf(), zetzet()
    won = clash(gros, "bras gauche", zet, "queue", ScriptedDice([6, 1]))
    assert follow_up(won, gros, zet, attack_number=2).kind is None
    assert follow_up(won, gros, zet, counter=True).kind is None


def test_gros_tas_forbids_the_counter() -> None:
    gros, zet = grosbaf(skills=("gros_tas",)), zetzet()
    lost = clash(gros, "bras droit", zet, "tête", ScriptedDice([1, 6]))
    assert lost.winner == DEFENDER
    assert follow_up(lost, gros, zet).kind is None  # Grosbaf has Gros tas and more muscle
    plain = replace(gros, skills=("voleur",))
    assert follow_up(lost, plain, zet).kind == "counter"


@pytest.mark.parametrize("attacker_limb, target, code", [
    ("tronc", "torse", "trunk_never_attacks"),
    ("tête", "nulle part", "unknown_limb"),
    ("bras gauche", "torse", "limb_already_attacked"),
])
def test_illegal_attacks(attacker_limb: str, target: str, code: str) -> None:
    with pytest.raises(IllegalMelee) as refused:
        clash(grosbaf(), attacker_limb, zetzet(), target, ScriptedDice([]),
              used_limbs=frozenset({"bras gauche"}))
    assert refused.value.code == code


def test_a_limb_without_muscle_cannot_attack_and_defends_with_a_bare_d6() -> None:
    zet, _ = apply_damage(zetzet(), "queue", 4)  # 4 muscles gone, 4 biomoteurs left
    with pytest.raises(IllegalMelee, match="no muscle"):
        clash(zet, "queue", grosbaf(), "tête", ScriptedDice([]))
    bare = clash(grosbaf(), "tête", zet, "queue", ScriptedDice([1, 5]))
    assert bare.defence.total == 5


def test_pump_roll_naturals_and_modifiers() -> None:
    strong = scarabator()  # pump 12
    seven = pump_roll(strong, ScriptedDice([3, 4]))
    assert (seven.success, seven.natural_seven, seven.record.outcome) == (False, True, "7 naturel")
    twelve = pump_roll(strong, ScriptedDice([6, 6]))
    assert (twelve.success, twelve.infarctus) == (False, True)
    assert apply_infarctus(strong).live_pump == 11
    assert pump_roll(strong, ScriptedDice([5, 6])).success
    hot = pump_roll(strong, ScriptedDice([5, 6]), modifiers=[Modifier(1, "canicule")])
    assert (hot.record.total, hot.success) == (12, True)
    dead_leg, _ = apply_damage(strong, "patte arrière droite", 3)
    limp = pump_roll(dead_leg, ScriptedDice([5, 6]), modifiers=[Modifier(1, "canicule")])
    assert (limp.record.total, limp.success) == (13, False)
    assert limp.record.describe() == (
        "2d6: 5, 6 → 11 + membres morts 1 + canicule 1 = 13 > 12, raté")


def test_initiative_ties_go_to_more_limbs_then_a_reroll() -> None:
    gros, zet, nurg = grosbaf(), zetzet(), nurglie()  # brains 1, 3, 1; limbs 6, 3, 5
    # Zetzet 1 + 3 = 4, Grosbaf 3 + 1 = 4, Nurglie 6 + 1 = 7: Grosbaf has more limbs.
    order = initiative([zet, gros, nurg], ScriptedDice([1, 3, 6]))
    assert order.order == ("Nurglie", "Grosbaf", "Zetzet")
    twin = replace(gros, name="Grosbaf II")
    order = initiative([gros, twin], ScriptedDice([4, 4, 2, 5]))
    assert order.order == ("Grosbaf II", "Grosbaf")
    assert [r.purpose for r in order.rolls] == [
        "initiative Grosbaf", "initiative Grosbaf II",
        "initiative relance Grosbaf", "initiative relance Grosbaf II"]
    blinded = initiative([nurg, zet], ScriptedDice([6, 1]),
                         modifiers={"Nurglie": [Modifier(-4, "projecteur")]})
    assert blinded.order == ("Zetzet", "Nurglie")


def test_shooting() -> None:
    zet, gros = zetzet(), grosbaf()
    miss = shoot(zet, "queue", gros, ScriptedDice([1]), aimed_limb="tête")
    assert miss.outcome == "miss"
    aimed = shoot(zet, "queue", gros, ScriptedDice([6, 4]), aimed_limb="tête")
    assert (aimed.outcome, aimed.target_limb, aimed.damage.total) == ("aimed", "tête", 4)
    random_hit = shoot(zet, "queue", gros, ScriptedDice([3, (6, 5), 2]), aimed_limb="tête")
    assert (random_hit.outcome, random_hit.target_limb) == ("random", "jambe gauche")
    # Mimétisme: Zetzet is hit only on a total of 9+ (Scarabator shoots from its leg, 6 bio).
    scar = scarabator()
    assert shoot(scar, "patte avant gauche", zet, ScriptedDice([2]),
                 aimed_limb="tête").outcome == "miss"
    assert shoot(scar, "patte avant gauche", zet, ScriptedDice([3, (3, 1), 5]),
                 aimed_limb="tête").target_limb == "torse"
    with pytest.raises(IllegalMelee):
        shoot(gros, "tête", zet, ScriptedDice([]), aimed_limb="tête")


def test_dead_organs_spoil_the_aim() -> None:
    zet, _ = apply_damage(zetzet(), "torse", 2)
    worse = shoot(zet, "queue", grosbaf(), ScriptedDice([2]), aimed_limb="tête")
    assert worse.outcome == "miss" and worse.roll.total == 4


def test_damage_order_armour_and_death() -> None:
    scar = scarabator()  # carapace on the trunk: armour 1
    scar, report = apply_damage(scar, "tronc", 12)
    assert (report.armour, report.lost) == (1, {"muscles": 9, "biomoteurs": 2, "lobes": 0})
    chosen, report = apply_damage(zetzet(), "tête", 2, order=("lobes", "muscles", "biomoteurs"))
    assert report.lost["lobes"] == 2 and chosen.limb("tête").live_lobes == 1
    head, report = apply_damage(zetzet(), "tête", 20)
    assert report.wasted == 12 and report.limb_died and report.killed
    assert head.death_reasons == ("no_lobe",)
    assert head.dead
    with pytest.raises(IllegalMelee) as refused:
        clash(head, "queue", grosbaf(), "tête", ScriptedDice([]))
    assert refused.value.code == "dead_mutant"


def test_leaving_a_melee_costs_attacks() -> None:
    assert escape_attacks(zetzet(), grosbaf()) == 3  # 5 living appendages against 2
    assert escape_attacks(grosbaf(), zetzet()) == 1  # always at least one
