"""The ten steps of a side's turn (seed § Séquence de jeu), the automatic ones resolved by
the server: 1 fire, 3 prey near a fire, 5 prey attacked or near a hunter, 8 the same after
the shots and melee (and near a fire), 9 the other prey's end-of-turn test. The player's
steps (2 fires, 4 moves and charges, 6 shots, 7 melee, 10 butchering) wait for "next step"
— unless the tribe has nothing to do there: then the step passes by itself, and a step 10
with nothing to do ends the turn (issue 23: no click for a step with nothing in it).
Leaving step 7, every prey still in contact with a hunter it has not fought attacks it
(house: "les combats ont lieu lorsqu'au moins deux figurines opposées sont en contact").
"""

from __future__ import annotations

from app.rules.chasse import fire, prey
from app.rules.chasse.ending import decided, ending, scores
from app.rules.chasse.fights import in_contact, melee_round
from app.rules.chasse.geometry import inside
from app.rules.chasse.match import step_forms
from app.rules.chasse.resolve import Acc
from app.rules.chasse.state import INTERACTIVE, STEPS, active_side, alive, hunters
from app.rules.chasse.state import prey as living_prey
from app.rules.dice import Dice


def _ordered(tokens):
    return sorted(tokens, key=lambda t: int(t["id"][1:]))


def _fire_flight(acc: Acc, step: int) -> None:
    for token in _ordered(living_prey(acc.state)):
        token = acc.token(token["id"])
        if not alive(token) or token["fled_fire"]:
            continue
        near = fire.near_fire(acc.state, token)
        if near is not None:
            prey.flee_fire(acc, token, near, step)


def _threats(acc: Acc, dice: Dice, step: int) -> None:
    done: set[str] = set()
    for token in _ordered(living_prey(acc.state)):
        token = acc.token(token["id"])
        lead = prey.leader_of(acc.state, token) if alive(token) else None
        if lead is None or lead["id"] in done or token["fled_fire"]:
            continue
        members = [m for m in prey.group_members(acc.state, lead)]
        if any(prey.threatened(acc.state, m) for m in members):
            done.add(lead["id"])
            prey.threat_test(acc, dice, next(m for m in members
                                             if prey.threatened(acc.state, m)), step)


def _idle(acc: Acc, dice: Dice, step: int) -> None:
    done: set[str] = set()
    for token in _ordered(living_prey(acc.state)):
        token = acc.token(token["id"])
        if not alive(token) or token["reacted"]:
            continue
        lead = prey.leader_of(acc.state, token)
        if lead["id"] in done:
            continue
        done.add(lead["id"])
        prey.idle_test(acc, dice, lead, step)


def _contacts(acc: Acc, dice: Dice) -> None:
    """Leaving step 7: a prey still in contact with a hunter, neither of which has fought
    this turn, attacks it — first the hunter it engaged."""
    for token in _ordered(living_prey(acc.state)):
        beast = acc.token(token["id"])
        if not alive(beast) or beast["fought"]:
            continue
        near = [h for h in _ordered(hunters(acc.state))
                if not h["fought"] and in_contact(beast, h)]
        near.sort(key=lambda h: h["id"] != beast.get("engaged"))
        if near:
            melee_round(acc, dice, leader=beast["id"], defender=near[0]["id"],
                        cause="contact")


def run(acc: Acc, dice: Dice, step: int) -> None:
    """Enter ``step``, resolve it if it is automatic, and go on to the next one until a
    step where the side's player has something to do (``settle``)."""
    while True:
        acc.emit("step_begun", {"step": step})
        if step == 1:
            fire.step_one(acc, dice)
        elif step == 3:
            _fire_flight(acc, step)
        elif step == 5:
            _threats(acc, dice, step)
        elif step == 8:
            _fire_flight(acc, step)
            _threats(acc, dice, step)
        elif step == 9:
            _idle(acc, dice, step)
        if step in INTERACTIVE or step >= STEPS:
            settle(acc, dice)
            return
        step += 1


def leave(acc: Acc, dice: Dice) -> None:
    """What closing the current player step does before the next one opens."""
    if acc.state["step"] == 7:
        _contacts(acc, dice)
    run(acc, dice, acc.state["step"] + 1)


def advance_to(acc: Acc, dice: Dice, step: int) -> None:
    """Close the player steps before ``step`` (the player acts on a later one: a walk at
    step 2, a fight at step 6), resolving the automatic ones between."""
    while acc.state.get("status") == "running" and acc.state["step"] < step:
        leave(acc, dice)


def idle(state, step: int | None = None) -> bool:
    """The side playing has nothing to do at this step (or ``step``)."""
    side = active_side(state)
    return side is not None and not step_forms(state, hunters(state, side["id"]),
                                               step or state["step"])


def settle(acc: Acc, dice: Dice) -> None:
    """A player step with nothing to do passes by itself; step 10 with nothing to do ends
    the turn. Nothing moves once the hunt is decided (the GM ends it) or over."""
    state = acc.state
    if state.get("status") != "running" or decided(state) or not idle(state):
        return
    if state["step"] >= STEPS:
        pass_turn(acc, dice)
    else:
        leave(acc, dice)


def pass_turn(acc: Acc, dice: Dice) -> None:
    """Step 10 closed: the food carried into the camp is brought back, the next tribe with
    a hunter standing plays (a new round after the last), unless the hunt ends here."""
    state = acc.state
    side = state["sides"][state["active"]]
    bank(acc, side["id"])
    sides = acc.state["sides"]
    following, round_number = acc.state["active"], acc.state["round"]
    for _ in sides:  # a side whose hunters have all fallen plays no more turns
        following = (following + 1) % len(sides)
        round_number += 1 if following == 0 else 0
        if hunters(acc.state, sides[following]["id"]):
            break
    reason = ending(acc.state, round_number)
    if reason:
        acc.emit("hunt_ended", {"reason": reason, "result": scores(acc.state)})
        return
    acc.emit("turn_begun", {"active": following, "round": round_number,
                            "side": sides[following]["name"], "keep_trails": True})
    run(acc, dice, 1)


def bank(acc: Acc, side: str) -> None:
    """A hunter inside the camp with food drops it there: the food is brought back."""
    camps = [s for s in acc.state["board"]["terrain"] if s.get("kind") == "camp"]
    for hunter in _ordered(hunters(acc.state, side)):
        if hunter.get("carried") and any(inside([hunter["x"], hunter["y"]], c) for c in camps):
            acc.emit("food_banked", {"token": hunter["id"], "name": hunter["name"],
                                     "units": hunter["carried"]})
