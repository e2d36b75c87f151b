"""Chasse préhistorique: a throw's odds (docs/odds.md) are the throw's own — compared with
the seeded throws of tests/odds_check.py through the rules engine's ``decide``."""

from __future__ import annotations

import copy
from fractions import Fraction

import pytest

from app.rules.chasse import odds as chasse_odds
from app.rules.chasse.sheet import blank_sheet
from app.rules.dice import ScriptedDice, SeededDice
from app.rules.match import Actor, MatchSetup, ParticipantSetup, apply, fold
from app.rules.registry import get_system
from tests.odds_check import assert_matches_simulation

CHASSE = get_system("chasse")
GM = Actor(1, is_gm=True)
PAUL = Actor(7, character_ids=frozenset({11, 12}))
BRUNO = Actor(8, character_ids=frozenset({13}))
THROW = {"kind": "shoot", "shot": "t1|t3|javelot"}


def _do(state, action, actor=GM):
    return apply(CHASSE, state, action, actor, ScriptedDice([]))[1]


@pytest.fixture(scope="module")
def step_six():
    """Ourk (javelin) and Ghâ (sling), Paul's tribe, at step 6 of the first turn; a boar
    5.7" from Ourk (long range). Two hunters: a throw leaves the step open (Ghâ may still
    throw), so ``decide`` is the throw itself and nothing that passes by itself after it."""
    setup = MatchSetup("Chasse", (
        ParticipantSetup("Ourk", character_id=11, owner_id=7,
                         sheet={**blank_sheet(), "weapons": ["javelot"]}),
        ParticipantSetup("Ghâ", character_id=12, owner_id=7,
                         sheet={**blank_sheet(), "weapons": ["fronde"]})))
    state = fold(CHASSE, list(CHASSE.start(setup, ScriptedDice([]))))
    state = _do(state, {"kind": "add_prey", "species": "sanglier", "x": 24, "y": 28})
    state = _do(state, {"kind": "begin_hunt"})
    state = _do(state, {"kind": "next_step"}, PAUL)
    state = _do(state, {"kind": "move", "token": "t1", "x": 20, "y": 32}, PAUL)
    state = _do(state, {"kind": "next_step"}, PAUL)
    assert state["step"] == 6
    return state


def _outcome(events) -> set[str]:
    """What one throw did, as the odds name it."""
    shot = next(event.payload for event in events if event.kind == "shot")
    keys = set()
    if shot["result"]["outcome"] != "miss":
        keys.add("hit")
    if shot["result"]["outcome"] == "wound":
        keys.add("wound")
    if any(hurt["dead"] for hurt in shot["damage"]):
        keys.add("down")
    return keys


def test_the_throw_odds_match_seeded_throws_through_decide(step_six):
    # The GM's modifier (+1, public in this game) waits for the next roll: the odds count it.
    state = _do(step_six, {"kind": "gm_modifier", "value": 1, "label": "vent"})
    odds = CHASSE.odds(state, THROW, PAUL)
    # 4+ to hit a boar, −1 long range, +1 wind: a D6 of 4 or more; a save of 5 or more.
    assert (odds.chance("hit"), odds.chance("wound"), odds.chance("down")) == (
        Fraction(1, 2), Fraction(1, 3), 0)
    exact = {chance.key: chance.probability for chance in odds.chances}
    assert_matches_simulation(exact, lambda dice: _outcome(
        CHASSE.decide(state, THROW, PAUL, dice)))


def test_a_wound_that_brings_the_prey_down_is_an_outcome(step_six):
    state = copy.deepcopy(step_six)
    state["tokens"]["t3"]["wounds"] = state["tokens"]["t3"]["masse"] - 1
    odds = CHASSE.odds(state, THROW, PAUL)
    assert odds.chance("down") == odds.chance("wound") == Fraction(2, 9)
    assert [part.msgid for part in odds.sentence] == [
        "%(chance)s to hit", "%(chance)s to wound", "%(chance)s that %(name)s falls"]


def test_the_details_say_what_the_dice_need(step_six):
    odds = CHASSE.odds(step_six, THROW, PAUL)
    assert [(d.msgid, d.params) for d in odds.details[:3]] == [
        ("The D6 to hit needs %(target)s or more.", {"target": 4}),
        ("Counted: %(modifiers)s.", {"modifiers": "-1 portée longue"}),
        ("On a hit, a save of %(save)s or more spares the target.", {"save": 5})]


@pytest.mark.parametrize("action, actor", [
    (THROW, BRUNO),                                          # not his hunter
    ({"kind": "shoot", "shot": "t1|t9|javelot"}, PAUL),      # no such target
    ({"kind": "shoot", "shot": "t1|t3|fronde"}, PAUL),       # not Ourk's weapon
    ({"kind": "melee", "fight": "t1|t3|couteau"}, PAUL),     # not in contact
    ({"kind": "note", "text": "x"}, PAUL),                  # no odds for this form
    ({"kind": "shoot"}, PAUL),                               # nothing chosen yet
])
def test_no_odds_for_a_throw_the_rules_would_refuse(step_six, action, actor):
    assert CHASSE.odds(step_six, action, actor) is None


# — a melee round, a fire, a charge (docs/odds.md § Chasse préhistorique) ——————————————

def _melee_keys(events) -> set[str]:
    """What one round did, as the odds name it."""
    melee = next(event.payload for event in events if event.kind == "melee")
    first, second = (result["outcome"] for result in melee["results"])
    dead = {hurt["token"] for hurt in melee["damage"] if hurt["dead"]}
    keys = {f"leader={first}", f"back={second}"}
    keys |= {"hit"} if first != "miss" else set()
    keys |= {"wound"} if first == "wound" else set()
    keys |= {"hurt"} if second == "wound" else set()
    keys |= {"down"} if melee["defender"] in dead else set()
    return keys | ({"fallen"} if melee["leader"] in dead else set())


@pytest.fixture(scope="module")
def in_contact(step_six):
    """Ourk (a flint knife too) and Ghâ both in contact with the boar, at step 6: a fight
    taken from the step before (the form closes step 6 first, as ``decide`` does). The boar
    has one wound left to take, Ourk too."""
    state = copy.deepcopy(step_six)
    state["tokens"]["t1"].update(x=24, y=29, weapons=["javelot", "couteau"])
    state["tokens"]["t2"].update(x=25, y=28)
    state["tokens"]["t1"]["wounds"] = state["tokens"]["t1"]["masse"] - 1
    state["tokens"]["t3"]["wounds"] = state["tokens"]["t3"]["masse"] - 1
    return state


def test_a_melee_round_s_odds_match_seeded_rounds_through_decide(in_contact):
    fight = {"kind": "melee", "fight": "t1|t3|couteau"}
    odds = CHASSE.odds(CHASSE.view(in_contact, PAUL), fight, PAUL)
    # The knife against a boar: 4+, +1 for Ghâ's support: 3+; the boar saves on 4+. The
    # boar's tusks back at Ourk: 4+, no save for a light hunter (house table).
    assert odds.chance("hit") == Fraction(2, 3)
    assert odds.chance("wound") == odds.chance("down") == Fraction(1, 3)
    assert odds.chance("fallen") == odds.chance("hurt") > 0
    assert ("Counted: %(modifiers)s.", {"modifiers": "+1 soutien"}) in [
        (d.msgid, d.params) for d in odds.details]
    found = chasse_odds.melee_outcomes(CHASSE.view(in_contact, PAUL),
                                       {"kind": "melee", "token": "t1", "target": "t3",
                                        "weapon": "couteau"}, PAUL)
    assert sum(found.values()) == 1
    exact = {chance.key: chance.probability for chance in odds.chances}
    for (first, second, *_), chance in found.items():
        exact[f"leader={first}"] = exact.get(f"leader={first}", Fraction(0)) + chance
        exact[f"back={second}"] = exact.get(f"back={second}", Fraction(0)) + chance
    assert_matches_simulation(exact, lambda dice: _melee_keys(
        CHASSE.decide(in_contact, fight, PAUL, dice)))


@pytest.fixture(scope="module")
def step_two(step_six):
    """The same hunt at step 2 of Paul's first turn (fires), a bush 1" from Ourk."""
    setup = MatchSetup("Chasse", (
        ParticipantSetup("Ourk", character_id=11, owner_id=7,
                         sheet={**blank_sheet(), "weapons": ["javelot"]}),
        ParticipantSetup("Ghâ", character_id=12, owner_id=7,
                         sheet={**blank_sheet(), "weapons": ["fronde"]})))
    state = fold(CHASSE, list(CHASSE.start(setup, ScriptedDice([]))))
    state = _do(state, {"kind": "add_prey", "species": "sanglier", "x": 24, "y": 28})
    state = _do(state, {"kind": "add_terrain", "ground": "buisson", "label": "Ronces",
                        "x": 10, "y": 10, "w": 2, "h": 2})
    state = _do(state, {"kind": "begin_hunt"})
    assert state["step"] == 2
    return state


def test_lighting_a_fire_s_odds_match_seeded_tries(step_two):
    ourk, gha = step_two["tokens"]["t1"], step_two["tokens"]["t2"]
    helpers = 1 if ((ourk["x"] - gha["x"]) ** 2 + (ourk["y"] - gha["y"]) ** 2) <= 4 else 0
    light = {"kind": "light_fire", "token": "t1", "x": int(ourk["x"]), "y": int(ourk["y"])}
    odds = CHASSE.odds(CHASSE.view(step_two, PAUL), light, PAUL)
    assert odds.chance("lit") == Fraction(1 + helpers, 6)  # a 6, +1 per helper
    assert_matches_simulation({"lit": odds.chance("lit")}, lambda dice: {"lit"} if next(
        e.payload for e in CHASSE.decide(step_two, light, PAUL, dice)
        if e.kind == "fire_lit")["success"] else set())


def test_a_charge_s_odds_match_seeded_charges_and_a_move_throws_none(step_two):
    state = copy.deepcopy(step_two)
    state["tokens"]["t1"].update(x=33, y=28)  # 9" from the boar, in sight
    charge = {"kind": "move", "token": "t1", "target": "t3"}
    # Taken from step 2 (the fires): the form closes it first.
    odds = CHASSE.odds(CHASSE.view(state, PAUL), charge, PAUL)
    assert odds.chance("reach") == Fraction(5, 6)  # Dmax 6 + a D6 of 2 or more: 1" away
    assert_matches_simulation({"reach": odds.chance("reach")}, lambda dice: {"reach"} if next(
        e.payload for e in CHASSE.decide(state, charge, PAUL, dice)
        if e.kind == "hunter_moved")["charge"]["success"] else set())
    walk = CHASSE.odds(CHASSE.view(state, PAUL), {"kind": "move", "token": "t1", "x": 31,
                                                  "y": 28, "target": ""}, PAUL)
    assert walk.chances == () and walk.sentence[0].msgid == \
        "a move without a charge throws no die"
    assert CHASSE.odds(CHASSE.view(state, BRUNO), charge, BRUNO) is None


def test_bare_hands_chosen_are_bare_hands_even_with_a_knife(in_contact):
    """The melee form offers « Mains nues » beside the hunter's weapons: chosen, the round is
    fought bare-handed (it used to take the knife), and the odds say the same."""
    fists = {"kind": "melee", "fight": "t1|t3|mains_nues"}
    events = CHASSE.decide(in_contact, fists, PAUL, SeededDice("fists"))
    melee = next(event.payload for event in events if event.kind == "melee")
    assert melee["results"][0]["weapon"] == "mains_nues"
    odds = CHASSE.odds(CHASSE.view(in_contact, PAUL), fists, PAUL)
    # Bare hands against a boar: 5+, +1 support: 4+; its save 3+.
    assert odds.chance("hit") == Fraction(1, 2) and odds.chance("wound") == Fraction(1, 6)
