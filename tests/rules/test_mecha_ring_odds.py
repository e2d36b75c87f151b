"""Mecha-Ring: an attack's odds (docs/odds.md § Mecha-Ring) are the attack's own — the radar, the
strike on the part chosen and the boost that chooses it, each compared with the seeded runs of
tests/odds_check.py through the rules engine's ``decide``; and a card in an opponent's hand,
which the viewer does not see, is not in them (tests.rules.test_mecha_ring_rules's table: the
strong robot, Anna's, against the weak one, Boris's)."""

from __future__ import annotations

import copy
from fractions import Fraction

import pytest

from app.rules.mecha_ring import odds as mecha_odds
from tests.odds_check import assert_matches_simulation
from tests.rules.test_mecha_ring_rules import ANNA, BORIS, GM, MECHA, act, attack_phase


@pytest.fixture(scope="module")
def ring():
    return attack_phase()


def exact_of(odds, **more) -> dict:
    return {**{chance.key: chance.probability for chance in odds.chances}, **more}


def test_the_radar_s_odds_match_seeded_radar_rolls(ring):
    state, _first, second = ring
    attack = {"kind": "attack", "target": second}
    odds = MECHA.odds(MECHA.view(state, ANNA), attack, ANNA)
    # Three radar dice (parabole): any odd face, 1 − 1/8.
    assert odds.chance("radar") == Fraction(7, 8)
    assert odds.chance("worst") <= odds.chance("best") < 1
    assert_matches_simulation({"radar": odds.chance("radar")}, lambda dice: {"radar"} if next(
        e.payload for e in MECHA.decide(state, attack, ANNA, dice)
        if e.kind == "radar_rolled")["success"] else set())


def test_a_jammed_radar_always_fails_and_a_sure_one_always_succeeds(ring):
    state, first, second = ring
    attack = {"kind": "attack", "target": second}
    for buff, chance in (("jammed", 0), ("sure_radar", 1)):
        changed = copy.deepcopy(state)
        changed["tokens"][first]["buffs"][buff] = True
        odds = MECHA.odds(MECHA.view(changed, ANNA), attack, ANNA)
        assert odds.chance("radar") == chance
        assert_matches_simulation({"radar": odds.chance("radar")}, lambda dice, s=changed: {
            "radar"} if next(e.payload for e in MECHA.decide(s, attack, ANNA, dice)
                             if e.kind == "radar_rolled")["success"] else set(), runs=2000)


def struck_keys(events) -> set[str]:
    struck = next(event.payload for event in events if event.kind == "struck")
    keys = {f"lost={struck['energy_before'] - struck['energy_after']}"}
    if struck["hit"]:
        keys.add("hit")
    if struck["destroyed"]:
        keys.add("destroyed")
    if struck["fell"]:
        keys.add("fell")
    return keys


def lost_of(found) -> dict[str, Fraction]:
    counts: dict[str, Fraction] = {}
    for blow, chance in found.items():
        counts[f"lost={blow.lost}"] = counts.get(f"lost={blow.lost}", Fraction(0)) + chance
    return counts


@pytest.fixture(scope="module")
def aimed(ring):
    """The radar succeeded (an odd face): Anna chooses the part of Boris's weak robot. Its
    head is missing (the torse may be aimed at) and its torse has 2 energy left; the host
    gave it one défense die less (public: its line in the log)."""
    state, first, second = ring
    state = copy.deepcopy(state)
    weak = state["tokens"][second]
    weak["robot"]["tete"] = None
    weak["robot"]["torse"]["energy"] = 2
    _, state = act(state, {"kind": "modifier", "seat": second, "roll": "defence",
                           "dice": "-1", "reason": "ring glissant"})
    _, state = act(state, {"kind": "attack", "target": second}, ANNA, faces=[1, 2, 2])
    assert state["fight"]["pending"]["chooser"] == first
    return state, first, second


def test_the_strike_on_the_torse_matches_seeded_strikes(aimed):
    state, first, second = aimed
    choose = {"kind": "choose_part", "slot": "torse"}
    odds = MECHA.odds(MECHA.view(state, ANNA), choose, ANNA)
    assert odds.chance("fell") == odds.chance("destroyed") > 0
    found = mecha_odds.strike_outcomes(state, first, second, "torse")
    assert sum(found.values()) == 1
    details = [detail.params for detail in odds.details]
    assert details[0]["defence"] == 1  # tronc rouillé's 2 défense dice, −1 by the host
    assert_matches_simulation(exact_of(odds, **lost_of(found)), lambda dice: struck_keys(
        MECHA.decide(state, choose, ANNA, dice)))


def test_the_boost_s_aim_has_the_odds_of_its_strike(ring):
    state, first, second = ring
    _, state = act(state, {"kind": "attack", "target": second}, ANNA, faces=[2, 4, 6])
    # Anna spends her head's radar energy and aims at Boris's head (crâne blindé, 3 dice).
    boost = {"kind": "boost_radar", "slot": "tete", "aim": "tete"}
    odds = MECHA.odds(MECHA.view(state, ANNA), boost, ANNA)
    direct = mecha_odds.strike_odds(state, first, second, "tete")
    assert odds.chance("hit") == direct.chance("hit") < 1
    found = mecha_odds.strike_outcomes(state, first, second, "tete")
    assert_matches_simulation(exact_of(odds, **lost_of(found)), lambda dice: struck_keys(
        MECHA.decide(state, boost, ANNA, dice)))
    # Without its aim, no strike is decided yet: the part is chosen next.
    assert MECHA.odds(MECHA.view(state, ANNA), {"kind": "boost_radar", "slot": "tete"},
                      ANNA) is None


def test_a_card_in_the_defender_s_hand_is_not_in_the_attacker_s_odds(ring):
    """The hands are secret: Boris's shield in hand changes nothing to Anna's odds (her view
    holds only how many cards he has), nor to Boris's own before he plays it; played, its
    défense dice are public and counted."""
    state, _first, second = ring
    _, state = act(state, {"kind": "attack", "target": second}, faces=[1, 2, 2])
    choose = {"kind": "choose_part", "slot": "tete"}
    bare = MECHA.odds(MECHA.view(state, ANNA), choose, ANNA)
    armed = copy.deepcopy(state)
    armed["tokens"][second]["sfx_hand"] = ["bouclier_ionique#1"]
    armed["tokens"][second]["credits"] = 20
    view = MECHA.view(armed, ANNA)
    assert view["tokens"][second]["sfx_hand"] == 1  # a count, not the card
    assert MECHA.odds(view, choose, ANNA) == bare
    assert MECHA.odds(MECHA.view(armed, GM), choose, GM) == bare
    shielded = copy.deepcopy(armed)
    shielded["tokens"][second]["buffs"]["defence"] = 2  # the shield played: public
    assert MECHA.odds(MECHA.view(shielded, ANNA), choose, ANNA).chance("hit") < \
        bare.chance("hit")


@pytest.mark.parametrize("action, actor", [
    ({"kind": "attack", "target": "t9"}, ANNA),     # nobody there
    ({"kind": "choose_part", "slot": "tete"}, ANNA),  # nothing to choose yet
    ({"kind": "boost_radar", "slot": "tete"}, ANNA),  # no failed radar
    ({"kind": "roll_order"}, ANNA),                  # no odds for this form
])
def test_no_odds_for_an_attack_the_rules_would_refuse(ring, action, actor):
    state, _first, second = ring
    assert MECHA.odds(MECHA.view(state, actor), action, actor) is None
    assert MECHA.odds(MECHA.view(state, BORIS), {"kind": "attack", "target": second},
                      BORIS) is None  # not his turn
