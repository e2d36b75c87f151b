"""Tiamat invariants under random legal play: hundreds of matches where every action is picked
among ``legal_actions`` with seeded dice never raise anything but a refusal, never push a
counter below 0 or above its maximum, never let a dead or KO fighter act, and fold(log) ==
the state at every step."""

from __future__ import annotations

import random

from hypothesis import example, given, settings
from hypothesis import strategies as st

from app.rules.dice import SeededDice
from app.rules.match import Actor, IllegalAction, MatchSetup, ParticipantSetup, fold
from app.rules.tiamat.match import active
from app.rules.tiamat.match_actions import MANOEUVRES, RECOVERY
from app.rules.tiamat.profiles import jin, ryu, voyous
from app.rules.tiamat.sheet import jack
from app.rules.tiamat.system import TIAMAT

GM = Actor(user_id=1, is_gm=True)
ROSTERS = [
    [("Jack", jack()), ("Voyous", voyous())],
    [("Jack", jack()), ("Jin", jin())],
    [("Ryu", ryu()), ("Jack", jack()), ("Voyous", voyous()), ("Jin", jin())],
]


def pick(form, state: dict, rng: random.Random) -> dict | None:
    c = form.choices
    if form.kind == "attack":
        return {"kind": "attack", "technique": rng.choice(c["techniques"]),
                "target": rng.choice(c["targets"]),
                "location": rng.choice(c["locations"]), "range": rng.choice(c["ranges"])}
    if form.kind == "defend":
        return {"kind": "defend", "technique": rng.choice(["instinctive", *c["options"]])}
    if form.kind == "combo":
        return {"kind": "combo", "option": rng.randrange(len(c["options"]))}
    if form.kind == "manoeuvre":
        return {"kind": "manoeuvre", "what": rng.choice(MANOEUVRES),
                "weapon": rng.choice(["", *c["weapons"]])}
    if form.kind == "coup_de_grace":
        return {"kind": "coup_de_grace", "target": rng.choice(c["targets"])}
    if form.kind == "test":
        return {"kind": "test", "participant": rng.choice(c["participants"]),
                "characteristic": "force", "difficulty": "difficile"}
    if form.kind == "recover":
        return {"kind": "recover", "participant": rng.choice(c["participants"]),
                "what": rng.choice(RECOVERY), "amount": rng.randint(1, 3)}
    if form.kind in ("roll_initiative", "end_turn", "escape"):
        return {"kind": form.kind}
    return None  # gm_adjust and end are left to the GM's judgement


def check(state: dict) -> None:
    for p in state["participants"].values():
        assert 0 <= p["sante"] <= p["sante_max"]
        assert 0 <= p["energie"] <= p["energie_max"]
        assert 0 <= p["furie"] <= p["furie_max"]
        assert 0 <= p["actions_left"] <= p["actions"]
        assert 0 <= p["down"] <= max(p["members"], 0)
        if p["dead"]:
            assert p["ko"]
    turn = state.get("turn")
    if turn is not None and state.get("pending") is None:
        assert active(state["participants"][turn]) or not any(
            f.kind == "attack" for f in TIAMAT.legal_actions(state, GM))


# derandomize: the same 60 matches on every run, so CI never turns red by chance; the
# examples are matches random play once broke (seed 50: a held fighter with no action left
# tried to break free, and went to −1 action).
@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.integers(0, 10_000), st.sampled_from(range(len(ROSTERS))))
@example(50, 2)
def test_random_legal_play_keeps_the_invariants(seed: int, roster: int) -> None:
    rng = random.Random(seed)
    dice = SeededDice(seed)
    setup = MatchSetup("Aléatoire", tuple(ParticipantSetup(name, sheet=sheet)
                                          for name, sheet in ROSTERS[roster]))
    log = TIAMAT.start(setup, dice)
    state = fold(TIAMAT, log)
    for _ in range(80):
        forms = [f for f in TIAMAT.legal_actions(state, GM)
                 if f.kind not in ("gm_adjust", "end")]
        if not forms:
            break
        action = pick(rng.choice(forms), state, rng)
        if action is None:
            continue
        before = repr(state)
        try:
            events = TIAMAT.decide(state, action, GM, dice)
        except IllegalAction:
            assert repr(state) == before  # a refusal changes nothing
            continue
        for event in events:
            state = TIAMAT.evolve(state, event)
        log += events
        check(state)
        for event in events:  # a dead fighter never acts
            payload = event.payload
            if event.kind == "attack_declared":
                attacker = next(p for p in state["participants"].values()
                                if p["name"] == payload["attacker"])
                assert not attacker["dead"]
    assert fold(TIAMAT, log) == state
