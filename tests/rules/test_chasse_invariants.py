"""Chasse préhistorique: random legal play. Hundreds of hunts pick among ``legal_actions``
with seeded dice; none raises, every state is JSON, folding the log gives the state, no
counter goes negative or past its maximum, a fallen figure never acts again and no two bases
stand on each other."""

from __future__ import annotations

import json
import math
import random

import pytest

from app.rules.chasse.sheet import blank_sheet
from app.rules.dice import SeededDice
from app.rules.match import Actor, IllegalAction, MatchSetup, ParticipantSetup, apply, fold
from app.rules.registry import get_system

CHASSE = get_system("chasse")
GM = Actor(1, is_gm=True)
PLAYERS = {7: Actor(7, character_ids=frozenset({1, 2})), 8: Actor(8, character_ids=frozenset({3}))}
ACTING = {"move": "token", "shoot": "token", "melee": "token", "butcher": "token",
          "light_fire": "token", "pick_up": "token"}


def _action(form, state, rng):
    choices, action = form.choices, {"kind": form.kind}
    if form.kind == "move":
        token = rng.choice(choices["tokens"])
        hunter = state["tokens"][token]
        if choices["targets"].get(token) and rng.random() < 0.4:
            return {**action, "token": token, "target": rng.choice(choices["targets"][token])[0]}
        board = state["board"]
        return {**action, "token": token,
                "x": max(0, min(board["width"], int(hunter["x"]) + rng.randint(-4, 4))),
                "y": max(0, min(board["height"], int(hunter["y"]) - rng.randint(-1, 5)))}
    if form.kind == "shoot":
        token = rng.choice(sorted(choices["shots"]))
        target, _name, weapon, *_ = rng.choice(choices["shots"][token])
        return {**action, "token": token, "target": target, "weapon": weapon}
    if form.kind == "melee":
        token = rng.choice(sorted(choices["fights"]))
        fight = choices["fights"][token]
        return {**action, "token": token, "target": rng.choice(fight["targets"])[0],
                "weapon": rng.choice(fight["weapons"])}
    if form.kind == "butcher":
        token = rng.choice(sorted(choices["meat"]))
        return {**action, "token": token,
                "carcass": choices["meat"][token]["carcasses"][0][0]}
    if form.kind == "pick_up":
        token = rng.choice(sorted(choices["items"]))
        return {**action, "token": token, "item": rng.choice(choices["items"][token])[0]}
    if form.kind == "light_fire":
        token = rng.choice(choices["tokens"])[0]
        hunter = state["tokens"][token]
        return {**action, "token": token, "x": int(hunter["x"]),
                "y": max(int(hunter["y"]) - 1, 0)}
    return action


def _check(state):
    json.dumps(state)
    for token in state["tokens"].values():
        assert 0 <= token["wounds"] <= token["masse"]
        assert token.get("carried", 0) >= 0 and token.get("food", 0) >= 0
        assert token["kind"] != "hunter" or token.get("picked", 0) <= 3
        if token["state"] == "ok":
            assert token["wounds"] < token["masse"]
    for side in state["sides"]:
        assert side["food"] >= 0
    # bases: no two figures standing on the ground stand on each other (issue 25)
    standing = [t for t in state["tokens"].values() if t["state"] in ("ok", "burning")]
    for i, one in enumerate(standing):
        for other in standing[i + 1:]:
            assert math.dist((one["x"], one["y"]), (other["x"], other["y"])) >= 0.98, (
                one["id"], other["id"])
    for fire in state["fires"]:
        assert 1 <= fire["turns_left"] <= 3
    # A thrown javelin or spear is in a hand, on the ground or in a figure: never two.
    for weapon in ("javelot", "propulseur"):
        held = sum(t.get("weapons", []).count(weapon) + t.get("stuck", []).count(weapon)
                   for t in state["tokens"].values())
        lying = sum(item["weapon"] == weapon for item in state.get("ground", []))
        assert held + lying <= 1


def _hunt(seed: int):
    rng, dice = random.Random(seed), SeededDice(seed)
    sheets = [{**blank_sheet(), "weapons": ["javelot", "lance"]},
              {**blank_sheet(), "shaman": True, "weapons": ["fronde", "couteau"]},
              {**blank_sheet(), "profile": "pataud", "weapons": ["propulseur", "hache"]}]
    setup = MatchSetup("Chasse", tuple(ParticipantSetup(
        f"H{n}", character_id=n + 1, owner_id=7 if n < 2 else 8, sheet=sheet)
        for n, sheet in enumerate(sheets)))
    log = list(CHASSE.start(setup, dice))
    state = fold(CHASSE, log)
    for action in ({"kind": "choose_scenario", "scenario": rng.choice(
            ["vallee", "steppe", "mammouth"])}, {"kind": "begin_hunt"}):
        events, state = apply(CHASSE, state, action, GM, dice)
        log += events
    for _ in range(300):
        if state["status"] == "finished":
            break
        side = state["sides"][state["active"]]
        actor = PLAYERS[side["owner_id"]] if rng.random() < 0.8 else GM
        forms = [f for f in CHASSE.legal_actions(state, actor)
                 if f.kind not in ("note", "correct", "gm_modifier", "end_hunt", "add_terrain",
                                   "remove_terrain")]
        if not forms:  # the hunt is decided: nobody plays on, the GM ends it
            assert CHASSE.outcome(state) is not None
            events, state = apply(CHASSE, state, {"kind": "end_hunt"}, GM, dice)
            log += events
            break
        action = _action(rng.choice(forms), state, rng)
        before = state
        try:
            events, state = apply(CHASSE, state, action, actor, dice)
        except IllegalAction:
            assert action["kind"] in ("move", "light_fire")  # a random point may be too far
            continue
        if action["kind"] in ACTING:
            assert before["tokens"][action["token"]]["state"] == "ok"
        log += events
        _check(state)
    assert fold(CHASSE, log) == state
    return state


@pytest.mark.parametrize("block", range(4))
def test_random_legal_hunts_keep_the_invariants(block):
    finished = sum(_hunt(block * 50 + seed)["status"] == "finished" for seed in range(50))
    assert finished > 0
