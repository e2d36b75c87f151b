"""Mutatior between fights: XP, biomass, prizes, care, new skills and bets (§ 3-2, § 3-3)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from app.rules.dice import ScriptedDice
from app.rules.mutatior.body import Limb, Mutant
from app.rules.mutatior.campaign import (
    Bet,
    FightResult,
    IllegalCare,
    biomass_gains,
    check_bet,
    chouchou_du_public,
    experience,
    graft,
    heal,
    learn_skill,
    move_between_fights,
    prizes,
    recycle,
    replace_dead_limb,
    settle_bets,
)
from app.rules.mutatior.samples import nurglie, scarabator
from app.rules.mutatior.skills import IllegalSkill


def killed(mutant: Mutant) -> Mutant:
    """Dead of its lobes, the rest of its body intact."""
    return mutant.with_limb(replace(mutant.limb("tête"), lost_lobes=mutant.limb("tête").lobes))


def result(**extra: object) -> FightResult:
    """Patom's Scarabator (wounded: 3 organs lost) and Bob (1 lost, a Voleur) kill Yetzar's
    Nurglie; Yetzar's Zed survives untouched."""
    beetle = scarabator().with_limb(Limb("patte avant droite", muscles=4, lost_muscles=3))
    bob = Mutant("Bob", (Limb("tronc", muscles=5, biomoteurs=4, trunk=True, lost_muscles=1),
                         Limb("tête", muscles=2, lobes=2)), skills=("voleur",))
    zed = Mutant("Zed", (Limb("tronc", muscles=5, biomoteurs=4, trunk=True),
                         Limb("tête", muscles=2, lobes=2)),
                 skills=("chouchou_du_public", "coquet"), xp=2)
    teams = {"patom": (beetle, bob), "yetzar": (killed(nurglie()), zed)}
    return FightResult(teams, **{"winner": "patom", "killed_by": {"Nurglie": "patom"},
                                 **extra})  # type: ignore[arg-type]


def test_survivors_gain_experience() -> None:
    fight = result(extra_xp={"Bob": 1})
    xp = {name: m.xp for name, m in experience(fight).items()}
    assert xp == {"Scarabator": 1, "Bob": 2, "Zed": 3}


def test_biomass_gains() -> None:
    fight = result()
    gains = biomass_gains(fight, ScriptedDice([1, 1, 2, 2, 3, 3]),
                          spoils={"Nurglie": ["tentacule gauche", "queue", "tête"]})
    by_team = {team: sum(g.kg for g in gains if g.team == team) for team in ("patom", "yetzar")}
    # Patom: the tentacle (55 kg) and, thanks to Bob the Voleur, the tail (40 kg); 2d6 × 2.
    # Yetzar: Zed's 2d6 and Nurglie's remains less the two limbs taken.
    tentacle, tail = 55, 40
    assert nurglie().limb_biomass(nurglie().limb("tentacule gauche")) == tentacle
    corpse = killed(nurglie())
    remains = sum(corpse.limb_biomass(limb) for limb in corpse.limbs) - tentacle - tail
    assert by_team == {"patom": tentacle + tail + 2 + 4, "yetzar": 6 + remains}


def test_prizes_and_the_crowds_darling() -> None:
    fight = result()
    gains = prizes(fight, ScriptedDice([2, 3, 4]))
    assert [(g.team, g.params["prize"], g.kg) for g in gains] == [
        ("patom", "Le plus bel éclopé", 25), ("yetzar", "La tafiotte", 20)]
    gift = chouchou_du_public(fight, ScriptedDice([3]))
    assert [(g.team, g.kg) for g in gift] == [("yetzar", 6)]  # 3 × popularity 2


def test_heal_replace_graft_move_recycle() -> None:
    hurt = scarabator().with_limb(Limb("patte avant droite", muscles=4, lost_muscles=3))
    healed, cost = heal(hurt, "patte avant droite")
    assert cost == 30 and healed.lost_organs == 0
    dead = scarabator().with_limb(Limb("patte milieu gauche", muscles=4, lost_muscles=4))
    with pytest.raises(IllegalCare):
        heal(dead, "patte milieu gauche")
    new, price = replace_dead_limb(dead, "patte milieu gauche",
                                   Limb("patte milieu gauche", muscles=5))
    assert price == 50 and new.limb("patte milieu gauche").live_muscles == 5
    with pytest.raises(IllegalCare):
        replace_dead_limb(scarabator(), "tête", Limb("tête", muscles=1, lobes=1))
    with pytest.raises(IllegalCare):
        graft(scarabator(), Limb("aile", muscles=2), survived=True)
    grafted, kg = graft(replace(scarabator(), skills=("greffon",)), Limb("aile", muscles=2),
                        survived=True)
    assert len(grafted.limbs) == 9 and kg == 20
    moved = move_between_fights(scarabator(), "lobes", "tête", "patte arrière droite")
    assert moved.limb("patte arrière droite").lobes == 5 and moved.limb("tête").lobes == 0
    with pytest.raises(IllegalSkill):  # 4 muscles + 6 biomoteurs: no room
        move_between_fights(scarabator(), "biomoteurs", "patte avant gauche",
                            "patte avant droite")
    with pytest.raises(IllegalSkill):
        move_between_fights(scarabator(), "muscles", "tête", "tronc")
    assert recycle(scarabator()) == 565 and recycle(hurt) == 535


def test_a_new_skill_costs_six_xp_and_is_unique_in_the_team() -> None:
    veteran = replace(nurglie(), xp=7)
    learned = learn_skill(veteran, "regeneration", [scarabator()])
    assert learned.skills == ("obsede", "regeneration") and learned.xp == 1
    with pytest.raises(IllegalCare):
        learn_skill(veteran, "gros_tas", [scarabator()])
    with pytest.raises(IllegalCare):
        learn_skill(replace(nurglie(), xp=5), "regeneration", [])


def test_bets_are_checked_and_settled() -> None:
    rosters = {"patom": ["Scarabator", "Bob"], "yetzar": ["Nurglie", "Zed"]}
    assert check_bet(Bet("Patom", "death", 10, mutant="Nurglie"), rosters, "patom") == []
    assert check_bet(Bet("Patom", "death", 10, mutant="Bob"), rosters, "patom")
    assert check_bet(Bet("Patom", "secret", 10, mutant="Zed"), rosters, "patom")
    assert check_bet(Bet("Patom", "victory", 0, team="yetzar"), rosters, "patom")
    bets = [
        Bet("Patom", "victory", 20, team="patom"),
        Bet("Patom", "death", 10, mutant="Nurglie"),  # dead, popularity 1
        Bet("Patom", "death", 10, mutant="Zed"),  # lives: the stake goes to Yetzar
        Bet("Yetzar", "victory", 15, team="yetzar"),
        Bet("Yetzar", "secret", 12, mutant="Zed"),  # survives, popularity 2
        Bet("Ginette", "spectator", 5, team="patom"),
    ]
    owners = {"patom": "Patom", "yetzar": "Yetzar"}
    net = settle_bets(bets, result(), owners=owners)
    assert net == {"Patom": 20 + 10 - 10, "Yetzar": 10 - 15 + 6, "Ginette": 5}
    # A police check takes off the winnings only, never more.
    net = settle_bets(bets, result(), owners=owners, police={"Patom": 7, "Yetzar": 40})
    assert net == {"Patom": 13, "Yetzar": 1 - 16, "Ginette": 5}
