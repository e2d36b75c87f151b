"""Mutatior's skills in a fight, and the tentacle's grip (§ 2-3, § 2-2)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from app.rules.dice import ScriptedDice
from app.rules.mutatior.body import Limb, Mutant
from app.rules.mutatior.combat import apply_damage, clash, follow_up
from app.rules.mutatior.content import SKILLS
from app.rules.mutatior.samples import nurglie
from app.rules.mutatior.skills import (
    ANGRY,
    SKILL_EFFECTS,
    IllegalSkill,
    afflux_sanguin,
    cerveau_mobile,
    charognard,
    check_not_gripped,
    coquet,
    frenzy_targets,
    gelatine_expansive,
    grip,
    grip_drain,
    grip_holds,
    instinct_vicieux,
    is_head,
    lobotomie_frenzy,
    lobotomie_tick,
    obsede,
    regeneration,
)


def brute(*skills: str) -> Mutant:
    return Mutant("Brute", (
        Limb("tronc", muscles=6, biomoteurs=4, trunk=True),
        Limb("tête", muscles=2, lobes=3),
        Limb("bras", muscles=4, biomoteurs=2),
        Limb("jambe", muscles=5),
    ), skills=skills)


def test_every_skill_says_where_it_is_applied() -> None:
    assert set(SKILL_EFFECTS) == set(SKILLS)


def test_a_missing_skill_is_refused() -> None:
    with pytest.raises(IllegalSkill):
        regeneration(brute("voleur"))


def test_afflux_sanguin_adds_the_limbs_biomoteurs() -> None:
    surge = afflux_sanguin(brute("afflux_sanguin"), "bras", ScriptedDice([1, 2]))
    assert surge.roll.success and surge.modifier is not None and surge.modifier.value == 2
    attack = clash(brute("afflux_sanguin"), "bras", nurglie(), "queue", ScriptedDice([3, 1]),
                   attack_modifiers=(surge.modifier,))
    assert attack.attack.total == 3 + 4 + 2
    assert afflux_sanguin(brute("afflux_sanguin"), "bras", ScriptedDice([5, 5])).modifier is None


def test_cerveau_mobile_moves_all_lobes_through_the_trunk() -> None:
    smart = brute("cerveau_mobile")
    moved = cerveau_mobile(smart, "tête", "tronc")
    assert moved.limb("tronc").lobes == 3 and moved.limb("tête").lobes == 0
    with pytest.raises(IllegalSkill):
        cerveau_mobile(smart, "tête", "jambe")  # not connected: both are appendages
    crowded = smart.with_limb(Limb("tronc", muscles=6, biomoteurs=6, trunk=True))
    with pytest.raises(IllegalSkill):
        cerveau_mobile(crowded, "tête", "tronc")  # 6 + 3 > 8: no room


def test_cerveau_mobile_leaves_lost_lobes_behind() -> None:
    hurt = brute("cerveau_mobile").with_limb(Limb("tête", muscles=2, lobes=3, lost_lobes=1))
    moved = cerveau_mobile(hurt, "tête", "tronc")
    assert moved.limb("tronc").live_lobes == 2 and moved.limb("tête").lobes == 1


def test_charognard_eats_biomoteurs_up_to_its_pump() -> None:
    eater = brute("charognard").with_limb(
        Limb("tronc", muscles=6, biomoteurs=4, lost_biomoteurs=3, trunk=True))
    corpse = nurglie().with_limb(Limb("tête", muscles=5, lobes=1, lost_lobes=1))
    assert corpse.dead and corpse.live_pump == 5
    fed, gained = charognard(eater, corpse)
    assert gained == 3 and fed.live_pump == fed.pump
    with pytest.raises(IllegalSkill):
        charognard(eater, nurglie())


def test_coquet_sponge_or_anger() -> None:
    vain = brute("coquet")  # brain 3
    assert coquet(vain, ScriptedDice([4])).sponge
    assert coquet(vain, ScriptedDice([6])).sponge
    angry = coquet(vain, ScriptedDice([3]))
    assert not angry.sponge and angry.record.outcome == "énervé"
    assert ANGRY.value == 2  # on the dice of its pump rolls: harder (see test_mutatior_arena)
    assert is_head(vain.limb("tête")) and not is_head(vain.limb("bras"))


def test_gelatine_expansive_and_regeneration_regrow_one_per_turn() -> None:
    hurt = brute("gelatine_expansive", "regeneration")
    hurt = hurt.with_limb(Limb("tête", muscles=2, lobes=3, lost_lobes=2))
    hurt = hurt.with_limb(Limb("tronc", muscles=6, biomoteurs=4, lost_muscles=2, trunk=True))
    assert gelatine_expansive(hurt).limb("tête").lost_lobes == 1
    assert regeneration(hurt).limb("tronc").lost_muscles == 1
    healthy = brute("regeneration")
    assert regeneration(healthy) == healthy


def test_instinct_vicieux_reads_a_limb_under_its_brain() -> None:
    sly = brute("instinct_vicieux")  # brain 3
    seen = instinct_vicieux(sly, nurglie(), "tronc", ScriptedDice([1, 1]))
    assert seen.success and seen.has_biomoteurs is True
    assert instinct_vicieux(sly, nurglie(), "queue", ScriptedDice([1, 1])).has_biomoteurs is False
    missed = instinct_vicieux(sly, nurglie(), "tronc", ScriptedDice([1, 2]))
    assert not missed.success and missed.has_biomoteurs is None


def test_lobotomie_frenzy_then_death() -> None:
    mad = brute("lobotomie")
    mad, _ = apply_damage(mad, "tête", 5)
    assert mad.dead and mad.death_reasons == ("no_lobe",)
    mad, record = lobotomie_frenzy(mad, ScriptedDice([2]))
    assert record is not None and mad.frenzy_turns == 2 and not mad.dead
    mad = lobotomie_tick(mad, isolated=False)
    assert not mad.dead
    assert lobotomie_tick(mad, isolated=False).dead
    assert lobotomie_tick(replace(mad, frenzy_turns=4), isolated=True).dead
    assert frenzy_targets(["Nurglie"], ["Ami"]) == ("Nurglie",)
    assert frenzy_targets([], ["Ami"]) == ("Ami",)
    # Without the skill nothing happens.
    plain, _ = apply_damage(brute("voleur"), "tête", 5)
    assert lobotomie_frenzy(plain, ScriptedDice([])) == (plain, None)


def test_obsede_repeats_the_same_limb_on_the_same_limb() -> None:
    obsessed = brute("obsede")
    hit = clash(obsessed, "jambe", nurglie(), "tête", ScriptedDice([5, 1]))
    step = obsede(follow_up(hit, obsessed, nurglie()), hit, obsessed)
    assert (step.only_with, step.only_at, step.not_with) == ("jambe", "tête", None)
    plain = brute("voleur")
    step = obsede(follow_up(hit, plain, nurglie()), hit, plain)
    assert step.only_with is None and step.not_with == "jambe"


def test_a_tentacle_grips_and_drains_one_organ_per_initiative() -> None:
    squid, prey = nurglie(), brute("voleur")
    hold = clash(squid, "tentacule gauche", prey, "bras", ScriptedDice([4, 1]))
    held = grip(hold, squid)
    assert held is not None and held.limb == "bras"
    with pytest.raises(IllegalSkill):
        check_not_gripped([held], prey, "bras")
    check_not_gripped([held], prey, "jambe")
    prey = grip_drain(held, prey)
    assert prey.limb("bras").lost_muscles == 1
    for _ in range(5):
        prey = grip_drain(held, prey)
    assert prey.limb("bras").dead and not grip_holds(held, squid, prey)
    # A limb that is not a tentacle grips nothing.
    assert grip(clash(squid, "queue", brute(), "bras", ScriptedDice([6, 1])), squid) is None
