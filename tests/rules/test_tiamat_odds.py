"""Tiamat's exact odds (docs/odds.md § Tiamat): for every kind of action that rolls, the
chances — and the santé lost on average — against the seeded throws of tests/odds_check.py
through the rules engine's ``decide``."""

from __future__ import annotations

import copy
from collections import Counter
from fractions import Fraction
from math import comb

import pytest

from app.rules.match import Actor, copy_state
from app.rules.tiamat.profiles import voyous
from app.rules.tiamat.system import TIAMAT
from tests.odds_check import RUNS, assert_counts_match, assert_mean_matches, simulate
from tests.rules.test_tiamat_extras import fighter, two
from tests.rules.test_tiamat_match import GM, play, setup

PAUL = Actor(user_id=7, character_ids=frozenset({21}))


def exact(odds) -> dict[str, Fraction]:
    return {chance.key: chance.probability for chance in odds.chances}


def expected(odds, key: str) -> Fraction:
    return next(e.value for e in odds.expectations if e.key == key)


def blow_keys(events) -> tuple[set, int]:
    """What one attack did, as the odds name it, and the santé its target lost."""
    resolved = next(e.payload for e in events if e.kind == "attack_resolved")
    keys, lost = set(), 0
    if resolved["hit"]:
        keys.add("hit")
    if resolved.get("countered"):
        keys.add("countered")
    for prefix in ("", "counter_"):
        damage = resolved.get(prefix + "damage") or {}
        for name, key in (("grave", "grave"), ("ko", "ko"), ("dead", "dead"),
                          ("henchman_out", "out")):
            if damage.get(name):
                keys.add(prefix + key)
        if prefix == "" and "sante" in damage:
            lost += damage["loss"]
    parry = resolved.get("lethal_parry") or {}
    lost += parry.get("loss", 0)
    if parry.get("dead"):
        keys.add("dead")
    return keys, lost


def check(odds, throw, *, sante: bool = True) -> None:
    """Each chance against the seeded throws; the santé lost on average against their mean."""
    def both(dice):
        keys, lost = throw(dice)
        return [*keys, ("sante", lost)]

    counts = simulate(both)
    assert_counts_match(exact(odds), Counter({k: n for k, n in counts.items()
                                              if isinstance(k, str)}), RUNS)
    if sante:
        assert_mean_matches(expected(odds, "sante"),
                            {k[1]: n for k, n in counts.items() if isinstance(k, tuple)},
                            RUNS, "santé lost")


# — attacks and their answer ——————————————————————————————————————————————————————

@pytest.fixture(scope="module")
def knife_fight():
    """Un holds a knife (lethal); Deux, 9 santé left, has no action left: the attack is
    answered at once by its défense instinctive."""
    state = two(fighter("blocage", weapons=("couteau",)), fighter("blocage"))
    state = play(state, GM, {"kind": "manoeuvre", "what": "draw", "weapon": "couteau"}, [])[1]
    state["participants"]["p2"].update(actions_left=0, sante=9)
    return state


def test_an_attack_answered_at_once_matches_seeded_attacks(knife_fight):
    attack = {"kind": "attack", "technique": "attaque_armee", "target": "p2"}
    odds = TIAMAT.odds(knife_fight, attack, GM)
    chances = exact(odds)
    assert set(chances) == {"hit", "grave", "ko", "dead"} and chances["dead"] > 0
    # The défense instinctive of a fighter with no action left: one die, nothing to choose.
    assert [d.msgid for d in odds.details][-1].startswith("Puissance")
    check(odds, lambda dice: blow_keys(TIAMAT.decide(knife_fight, attack, GM, dice)))


@pytest.fixture(scope="module")
def counter_pending():
    """Un's Straight-punch waits for Deux's answer; Deux knows Cross-counter (1 furie)."""
    state = two(fighter("straight_punch"), fighter("cross_counter", furie=2))
    return play(state, GM, {"kind": "attack", "technique": "straight_punch",
                            "target": "p2"}, [])[1]


def test_a_counter_attack_matches_seeded_answers(counter_pending):
    defend = {"kind": "defend", "technique": "cross_counter"}
    odds = TIAMAT.odds(counter_pending, defend, GM)
    chances = exact(odds)
    assert {"hit", "countered", "counter_grave"} <= set(chances)
    assert "counter_ko" not in chances  # a fresh fighter is not knocked out by one counter
    assert chances["hit"] + chances["countered"] < 1  # a tie stops both
    assert odds.sentence[0].msgid == "%(chance)s of being hit"
    check(odds, lambda dice: blow_keys(TIAMAT.decide(counter_pending, defend, GM, dice)))


def test_a_lethal_blow_parried_bare_handed_matches_seeded_parries(knife_fight):
    state = copy.deepcopy(knife_fight)
    state["participants"]["p2"].update(actions_left=1, sante=5)
    state = play(state, GM, {"kind": "attack", "technique": "attaque_armee",
                             "target": "p2"}, [])[1]
    defend = {"kind": "defend", "technique": "blocage"}
    odds = TIAMAT.odds(state, defend, GM)
    assert any(d.msgid.startswith("A lethal blow parried") for d in odds.details)
    check(odds, lambda dice: blow_keys(TIAMAT.decide(state, defend, GM, dice)))


def test_a_blow_at_henchmen_matches_seeded_blows():
    state = setup(("Un", fighter("straight_punch"), None, None),
                  ("Voyous", voyous(), None, None))
    state = play(state, GM, {"kind": "roll_initiative"}, [9, 1, 1, 1])[1]
    state["participants"]["p2"]["actions_left"] = 0
    attack = {"kind": "attack", "technique": "straight_punch", "target": "p2"}
    odds = TIAMAT.odds(state, attack, GM)
    assert set(exact(odds)) == {"hit", "out"} and not odds.expectations
    check(odds, lambda dice: blow_keys(TIAMAT.decide(state, attack, GM, dice)), sante=False)


def test_a_combo_is_worked_out_against_the_defense_instinctive_and_matches():
    """Charge enragée hit: its Straight-punch is free. Deux may still choose a defence,
    so the odds assume the défense instinctive — the throw answers with it."""
    state = setup(("Un", fighter("charge_enragee", "straight_punch", furie=4), None, None),
                  ("Deux", fighter("blocage"), None, None))
    state = play(state, GM, {"kind": "roll_initiative"}, [9, 1, 1, 1, 1, 1])[1]
    state = play(state, GM, {"kind": "attack", "technique": "charge_enragee",
                             "target": "p2"}, [])[1]
    state = play(state, GM, {"kind": "defend", "technique": "instinctive"},
                 [9, 1, 1, 1, 1, 1, 5, 4, 1, 1, 1])[1]
    assert state["combo"]["options"] == [{"technique": "straight_punch", "chain": None}]
    combo = {"kind": "combo", "option": "0"}
    odds = TIAMAT.odds(state, combo, GM)
    words = [d.msgid for d in odds.details]
    assert "%(technique)s: %(chance)s to hit." in words  # against Blocage, if chosen

    def throw(dice):
        declared = TIAMAT.decide(state, combo, GM, dice)
        after = TIAMAT.evolve(copy_state(state), declared[0]) if len(declared) == 1 else None
        assert after is not None and after["pending"]
        return blow_keys(TIAMAT.decide(after, {"kind": "defend", "technique": "instinctive"},
                                       GM, dice))
    check(odds, throw)


def test_imparable_cannot_be_parried_and_a_standing_defence_is_the_gm_s_to_count():
    """Hammer kick (Imparable) against a fighter whose standing defence is Blocage: a parry
    that cannot stop it, so the blow always lands — for the GM, who sees that defence; a
    player attacking sees only the défense instinctive and its alternatives."""
    kicker = fighter("hammer_kick")
    kicker_sheet = {"Un": kicker}
    state = setup(("Un", kicker_sheet["Un"], 21, 7), ("Deux", fighter("blocage"), None, None))
    state = play(state, GM, {"kind": "roll_initiative"}, [9, 1, 1, 1, 1, 1])[1]
    state = play(state, GM, {"kind": "standing_defence", "participant": "p2",
                             "technique": "blocage"}, [])[1]
    attack = {"kind": "attack", "technique": "hammer_kick", "target": "p2"}
    gm = TIAMAT.odds(TIAMAT.view(state, GM), attack, GM)
    assert gm.chance("hit") == 1
    assert "Imparable: a parry cannot stop it." in [d.msgid for d in gm.details]
    player = TIAMAT.odds(TIAMAT.view(state, PAUL), attack, PAUL)
    assert player.chance("hit") < 1
    assert "Imparable: a parry cannot stop it." not in [d.msgid for d in player.details]
    assert any(d.msgid.startswith("Worked out against the défense instinctive")
               for d in player.details)


# — tests and opposed rolls ——————————————————————————————————————————————————————

def roll_keys(events) -> set[str]:
    event = next(e for e in events if e.kind in (
        "tested", "jumped", "manoeuvred", "escape_tried", "fear_fought",
        "kusarigama_thrown", "opposed_rolled"))
    payload = event.payload
    won = {"tested": lambda: payload["success"], "jumped": lambda: payload["success"],
           "manoeuvred": lambda: payload["test"]["success"],
           "escape_tried": lambda: payload["free"], "fear_fought": lambda: payload["won"],
           "kusarigama_thrown": lambda: payload["thrown"],
           "opposed_rolled": lambda: payload["initiator_wins"]}[event.kind]()
    keys = {"success"} if won else set()
    if event.kind == "escape_tried" and payload["ko"]:
        keys.add("ko")
    return keys


@pytest.fixture(scope="module")
def duel():
    """Un (Force 4, Habileté 4, Acrobatie 2, Course 1) against Deux, Un's turn."""
    un = fighter("straight_punch", force=4, habilete=4)
    un["skills"] = {"acrobatie": 2, "course": 1, "intimidation": 3}
    return two(un, fighter("blocage", weapons=("kusarigama",)))


ROLLS = [
    ({"kind": "test", "participant": "p1", "characteristic": "habilete",
      "skill": "acrobatie", "difficulty": "heroique", "bonus_dice": "1"}, None),
    ({"kind": "jump", "metres": "7"}, None),
    ({"kind": "manoeuvre", "what": "run", "terrain": "verglas"}, None),
    ({"kind": "opposed", "participant_a": "p1", "characteristic_a": "volonte",
      "skill_a": "intimidation", "participant_b": "p2", "characteristic_b": "volonte",
      "bonus_b": "2"}, None),
    ({"kind": "escape"}, "held"),
    ({"kind": "overcome_fear"}, "afraid"),
    ({"kind": "kusarigama_throw", "target": "p1"}, "chained"),
]


def _situation(duel, name):
    state = copy.deepcopy(duel)
    un, deux = state["participants"]["p1"], state["participants"]["p2"]
    if name == "held":  # the last try: a failure is a KO
        un.update(held_by="p2", hold="straight_punch", escape_tries=1)
    elif name == "afraid":
        un["states"] = {"terrorise": 5}
        un["terrorised_by"] = "p2"
        deux["characteristics"]["temperament"] = 4
    elif name == "chained":  # Deux's turn; Un is caught by the kusarigama's chain
        state["turn"] = "p2"
        deux["actions_left"] = 2
        un.update(held_by="p2", held_with="kusarigama", hold="capture_du_kusarigama")
    return state


@pytest.mark.parametrize("action, situation", ROLLS, ids=[a["kind"] for a, _ in ROLLS])
def test_a_test_or_an_opposed_roll_matches_seeded_rolls(duel, action, situation):
    state = _situation(duel, situation)
    odds = TIAMAT.odds(state, action, GM)
    assert odds is not None and 0 < odds.chance("success") < 1
    if situation == "held":
        assert odds.chance("ko") == 1 - odds.chance("success")
    assert_counts_match(exact(odds), simulate(
        lambda dice: roll_keys(TIAMAT.decide(state, action, GM, dice))), RUNS)


def test_the_figures_of_a_test_are_the_rules_own():
    """Habileté 4 + Acrobatie 2 + one bonus die against héroïque (15): 5D10 keep the best
    + 2 needs a critical (a 10 and its D6 of 3 or more)."""
    state = two(fighter("straight_punch", habilete=4), fighter("blocage"))
    state["participants"]["p1"]["skills"] = {"acrobatie": 2}
    odds = TIAMAT.odds(state, ROLLS[0][0], GM)
    def tens(k: int) -> Fraction:  # exactly k of the five D10 show 10
        return comb(5, k) * Fraction(1, 10) ** k * Fraction(9, 10) ** (5 - k)
    # one 10: 10 + 1D6 + 2 ≥ 15 on a D6 of 3+; two: 2D6 of 3+ (all but 1 + 1); three or more
    # always reach it
    assert odds.chance("success") == (tens(1) * Fraction(4, 6) + tens(2) * Fraction(35, 36)
                                      + sum(tens(k) for k in (3, 4, 5)))
    assert odds.details[0].params["pool"] == "5D10 + 2"


@pytest.mark.parametrize("action", [
    {"kind": "attack", "technique": "straight_punch", "target": "p9"},   # nobody
    {"kind": "attack", "technique": "straight_punch", "target": "p1"},   # itself
    {"kind": "attack", "technique": "hammer_kick", "target": "p2"},      # not known
    {"kind": "defend", "technique": "blocage"},                          # nothing pending
    {"kind": "test", "participant": "p1", "characteristic": "chance"},   # no such thing
    {"kind": "end_turn"},                                                # no odds
])
def test_no_odds_for_what_the_rules_refuse(action):
    state = two(fighter("straight_punch"), fighter("blocage"))
    assert TIAMAT.odds(state, action, GM) is None


def test_a_manoeuvre_without_dice_says_so():
    state = two(fighter("straight_punch"), fighter("blocage"))
    odds = TIAMAT.odds(state, {"kind": "manoeuvre", "what": "prepare"}, GM)
    assert odds.chances == () and odds.sentence[0].msgid == "No dice: nothing is left to chance."
