"""Mutatior: each action's odds (docs/odds.md § Mutatior) are the action's own — compared with the
seeded runs of tests/odds_check.py through the rules engine's ``decide`` for every kind of form
that gives odds: the attack (a turn's, and a second attack with its pump roll, Afflux sanguin
and a Coquet aimed at), the shot, the sprint (gel and Coureur effréné), the sponge, a crowd
event, Instinct vicieux and the entrance prize. Grosbaf (Patom's) against Zetzet (Yetzar's),
from the second round of the text's example (tests.rules.test_mutatior_system)."""

from __future__ import annotations

import copy
from fractions import Fraction

import pytest

from app.rules.dice import ScriptedDice
from app.rules.match import apply
from app.rules.mutatior import odds as mutatior_odds
from app.rules.mutatior.arena import WEATHERS
from app.rules.mutatior.match_state import mutant
from app.rules.mutatior.system import MUTATIOR
from tests.odds_check import assert_matches_simulation
from tests.rules.test_mutatior_system import (
    GM,
    PATOM,
    YETZAR,
    example_match,
    play,
    to_the_second_round,
)

HORN = {"kind": "attack", "limb": "m1:tête", "target": "m2:torse"}


@pytest.fixture(scope="module")
def second_round():
    return to_the_second_round(example_match())


def exact_of(odds, **more) -> dict:
    return {**{chance.key: chance.probability for chance in odds.chances}, **more}


def organs_of(found) -> dict[str, Fraction]:
    """The chance of each count of organs lost, as ``f"organs={n}"`` keys."""
    counts: dict[str, Fraction] = {}
    for outcome, chance in found.items():
        key = f"organs={outcome.organs}"
        counts[key] = counts.get(key, Fraction(0)) + chance
    return counts


def _body_after(state, payload, tid):
    """``tid``'s body as the event leaves it (the event carries the bodies it changes)."""
    bodies = {**state["bodies"], **payload.get("bodies", {})}
    return mutant({**state, "bodies": bodies}, tid)


def blow_keys(state, events, tid="m1", target="m2") -> set[str]:
    """What one attack did, as its odds name it."""
    keys: set[str] = set()
    before = mutant(state, tid).live_pump
    first = events[0]
    if first.kind == "follow_up_failed":
        if first.payload["infarctus"]:
            keys.add("infarctus")
        return keys | {"organs=0"}
    if first.kind == "pump_rolled":
        keys.add("pump")
    blow = next(event.payload for event in events if event.kind == "attacked")
    if blow["winner"] == "attacker":
        keys.add("hit")
    elif blow["winner"] is None:
        keys.add("tie")
    report = blow.get("report") or {}
    keys.add(f"organs={sum(report.get('lost', {}).values())}")
    if report.get("limb_died"):
        keys.add("limb")
    if _body_after(state, blow, target).dead:
        keys.add("kill")
    kind = (blow["pending"] or {}).get("kind")
    if kind == "second_attack":
        keys.add("again")
    elif kind == "counter":
        keys.add("counter")
    if _body_after(state, blow, tid).live_pump < before:
        keys.add("infarctus")
    return keys


def test_the_horn_s_odds_match_seeded_attacks_through_decide(second_round):
    # The GM's modifier is public in Mutatior (its line in the log): Zetzet's +1 counts.
    _, state = play(second_round, GM, {"kind": "gm_modifier", "token": "m2", "value": 1,
                                       "reason": "mur"}, [])
    odds = MUTATIOR.odds(MUTATIOR.view(state, PATOM), HORN, PATOM)
    # d6 + 8 against d6 + 7: the attack wins on 21 pairs of 36, a tie on 5.
    assert odds.chance("hit") == Fraction(21, 36) and odds.chance("tie") == Fraction(5, 36)
    # 7 damage at most against 6 muscles and 4 biomoteurs: neither the limb nor Zetzet die,
    # and the panel does not list them (the simulation holds the odds to it).
    assert {c.key for c in odds.chances}.isdisjoint({"limb", "kill"})
    found = mutatior_odds.attack_outcomes(MUTATIOR.view(state, PATOM), HORN)
    assert sum(found.values()) == 1
    assert_matches_simulation(exact_of(odds, **organs_of(found)), lambda dice: blow_keys(
        state, MUTATIOR.decide(state, HORN, PATOM, dice)))


@pytest.fixture(scope="module")
def second_attack(second_round):
    """Grosbaf's horn has won (11 against 8): his second attack waits, pump roll first. He
    has Afflux sanguin (his claws' arm has no biomoteur, his trunk has: the test gives the
    left arm 2); Zetzet is Coquet, and the claws aim at its head."""
    state = copy.deepcopy(second_round)
    state["bodies"]["m1"]["skills"] = ["afflux_sanguin"]
    arm = next(limb for limb in state["bodies"]["m1"]["limbs"] if limb["name"] == "bras gauche")
    arm["biomoteurs"] = 2
    state["bodies"]["m2"]["skills"] = ["coquet"]
    _, state = play(state, PATOM, HORN, [3, 2])
    assert state["pending"]["kind"] == "second_attack" and state["pending"]["needs_pump"]
    return state


def test_a_second_attack_s_pump_roll_surge_and_coquet_match_seeded_runs(second_attack):
    claws = {"kind": "attack", "limb": "m1:bras gauche", "target": "m2:tête", "surge": "1"}
    view = MUTATIOR.view(second_attack, PATOM)
    odds = MUTATIOR.odds(view, claws, PATOM)
    # The pump roll: 2d6 ≤ 8 (a pump of 8: the left arm's 2 with the trunk's 6) but 7.
    assert odds.chance("pump") == Fraction(20, 36)
    assert [part.msgid for part in odds.sentence][:2] == [
        "%(chance)s to pass the pump roll", "%(chance)s to hit"]
    found = mutatior_odds.attack_outcomes(view, claws)
    assert sum(found.values()) == 1
    assert_matches_simulation(exact_of(odds, **organs_of(found)), lambda dice: blow_keys(
        second_attack, MUTATIOR.decide(second_attack, claws, PATOM, dice)))


def shot_keys(state, events) -> set[str]:
    shot = next(event.payload for event in events if event.kind == "shot")
    report = shot.get("report") or {}
    keys = {f"organs={sum(report.get('lost', {}).values())}"}
    if shot["outcome"] != "miss":
        keys.add("hit")
    if shot["outcome"] == "aimed":
        keys.add("aimed")
    if report.get("limb_died"):
        keys.add("limb")
    if _body_after(state, shot, "m2").dead:
        keys.add("kill")
    return keys


def test_the_shot_s_odds_match_seeded_shots_through_decide(second_round):
    # Zetzet's torso has lost 5 muscles: a shot may tear it down. Mimétisme: 9+ to hit.
    state = copy.deepcopy(second_round)
    state["bodies"]["m2"]["limbs"][0]["lost_muscles"] = 5
    shot = {"kind": "shoot", "limb": "m1:tronc", "target": "m2:tête"}
    odds = MUTATIOR.odds(MUTATIOR.view(state, PATOM), shot, PATOM)
    # d6 + 6 biomoteurs ≥ 9: a 3 or more hits; a 6 on the head aimed at.
    assert odds.chance("hit") == Fraction(2, 3) and odds.chance("aimed") == Fraction(1, 6)
    assert odds.chance("limb") > 0
    found = mutatior_odds.shot_outcomes(MUTATIOR.view(state, PATOM), shot)
    assert_matches_simulation(exact_of(odds, **organs_of(found)), lambda dice: shot_keys(
        state, MUTATIOR.decide(state, shot, PATOM, dice)))


def test_the_sprint_s_odds_in_the_frost_match_seeded_sprints(second_round):
    state = copy.deepcopy(second_round)
    frost = WEATHERS[1]
    state["weather"] = {"face": frost.face, "key": frost.key, "name": frost.name}
    state["bodies"]["m1"]["skills"] = ["coureur_effrene"]
    sprint = {"kind": "sprint", "token": "m1", "third": "1"}
    odds = MUTATIOR.odds(MUTATIOR.view(state, PATOM), sprint, PATOM)
    assert odds.chance("sprint") == Fraction(15, 36)  # 2d6 ≤ 6, but 7
    assert odds.chance("third") == Fraction(15, 36) ** 2
    assert odds.chance("fall") == odds.chance("sprint") / 6  # a 1 after moving twice

    def keys(dice) -> set[str]:
        run = next(e.payload for e in MUTATIOR.decide(state, sprint, PATOM, dice)
                   if e.kind == "sprinted")
        found = {"sprint"} if run["moves"] >= 2 else set()
        found |= {"third"} if run["moves"] == 3 else set()
        found |= {"infarctus"} if run["infarctus"] else set()
        return found | ({"fall"} if run["fell"] else set())
    assert_matches_simulation(exact_of(odds), keys)


def test_the_sponge_s_odds_match_seeded_throws(second_round):
    sponge = {"kind": "sponge", "token": "m1"}
    odds = MUTATIOR.odds(MUTATIOR.view(second_round, PATOM), sponge, PATOM)
    # Grosbaf 1d6 + 1 lobe against Zetzet's 1d6 + 3: equal or more on 10 pairs of 36.
    assert odds.chance("unharmed") == Fraction(10, 36)
    assert_matches_simulation(exact_of(odds), lambda dice: {"unharmed"} if next(
        e.payload for e in MUTATIOR.decide(second_round, sponge, PATOM, dice)
        if e.kind == "sponge_thrown")["unharmed"] else set())


def test_a_crowd_event_s_odds_count_the_earlier_failures(second_round):
    state = copy.deepcopy(second_round)
    state["crowd"]["chances"]["owner-11"] = 1
    state["crowd"].setdefault("failures", {})["owner-11"] = {"jet_de_canette": 2}
    can = {"kind": "crowd_event", "team": "owner-11", "event": "jet_de_canette",
           "victim": "m1"}
    odds = MUTATIOR.odds(MUTATIOR.view(state, YETZAR), can, YETZAR)
    assert odds.chance("success") == Fraction(21, 36)  # 2d6 + 2 ≥ 9: 7 or more
    assert_matches_simulation(exact_of(odds), lambda dice: {"success"} if next(
        e.payload for e in MUTATIOR.decide(state, can, YETZAR, dice)
        if e.kind == "crowd_attempt")["success"] else set())


def test_instinct_vicieux_s_odds_match_seeded_tries(second_round):
    state = copy.deepcopy(second_round)
    state["bodies"]["m1"]["skills"] = ["instinct_vicieux"]
    head = next(limb for limb in state["bodies"]["m1"]["limbs"] if limb["name"] == "tête")
    head.update(muscles=2, lobes=6)
    instinct = {"kind": "use_skill", "token": "m1", "skill": "instinct_vicieux",
                "limb": "m2:queue"}
    odds = MUTATIOR.odds(MUTATIOR.view(state, PATOM), instinct, PATOM)
    assert odds.chance("success") == Fraction(10, 36)  # 2d6 under 6
    assert_matches_simulation(exact_of(odds), lambda dice: {"success"} if MUTATIOR.decide(
        state, instinct, PATOM, dice)[0].payload["success"] else set())


def test_the_entrance_prize_s_kilograms_match_seeded_prizes():
    state = example_match()
    prize = {"kind": "entrance_prize", "team": "owner-10"}
    odds = MUTATIOR.odds(MUTATIOR.view(state, GM), prize, GM)
    assert odds.expectations[0].value == 7
    exact = {f"kg={kg}": chance for kg, chance in mutatior_odds.entrance_outcomes().items()}
    assert_matches_simulation(exact, lambda dice: "kg={}".format(
        MUTATIOR.decide(state, prize, GM, dice)[0].payload["kg"]))


@pytest.mark.parametrize("action, actor", [
    (HORN, YETZAR),                                                   # not his mutant
    ({"kind": "attack", "limb": "m1:tronc", "target": "m2:torse"}, PATOM),  # the trunk
    ({"kind": "attack", "limb": "m1:tête", "target": "m9:torse"}, PATOM),   # nobody
    ({"kind": "attack", "limb": "m1:tête"}, PATOM),                   # no target yet
    ({"kind": "shoot", "limb": "m1:tête", "target": "m2:torse"}, PATOM),    # no biomoteur
    ({"kind": "sprint", "token": "m2"}, YETZAR),                      # not its turn
    ({"kind": "use_skill", "token": "m1", "skill": "instinct_vicieux",
      "limb": "m2:queue"}, PATOM),                                    # not its skill
    ({"kind": "move", "token": "m1", "x": 30, "y": 33}, PATOM),       # no dice, no odds
])
def test_no_odds_for_an_action_the_rules_would_refuse(second_round, action, actor):
    assert MUTATIOR.odds(MUTATIOR.view(second_round, actor), action, actor) is None


def test_the_odds_leave_the_match_as_it_was(second_round):
    before = copy.deepcopy(second_round)
    MUTATIOR.odds(MUTATIOR.view(second_round, PATOM), HORN, PATOM)
    assert second_round == before
    # and the attack itself still plays on scripted dice
    events, _ = apply(MUTATIOR, second_round, HORN, PATOM, ScriptedDice([3, 2]))
    assert events[0].payload["damage"] == 3
