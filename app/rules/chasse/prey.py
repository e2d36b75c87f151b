"""The prey act by themselves (seed § Déplacements des Proies).

They must move when a fire is within 5" (they flee it, no test: "une Proie ayant dû fuir à
cause d'un incendie ne fait pas ce test"), and when attacked or with a hunter within 3" (the
D6 bleu / D6 rouge test: +1 on the blue die for an aggressive group, −1 for a placid one).
The others test at the end of the turn. A group moves as its dominant does (§ Déplacements
des Chasseurs: "ne considérer que le chef"); the followers keep its move.
The table cells are house content (``data/reactions.toml``, scenario-editable):
- Fuit: away from the nearest hunter, Dmax; a prey pushed off the board is gone.
- Attaque: straight at the nearest hunter up to Dmax; on contact, a melee round at once.
- Charge: Dmax + the red die, +1 in the first melee round.
- Reste: stands its ground.
- Erre (end-of-turn test): Dmax (or Dmax/2) towards the red die's compass direction.
- Rôde: Dmax/2 towards the nearest hunter, a melee round on contact.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from app.rules.chasse.fights import in_contact, melee_round
from app.rules.chasse.fire import fire_centre
from app.rules.chasse.geometry import (
    CONTACT,
    OVERLAP,
    distance,
    nearest,
    o_pos,
    path_cost,
    walk,
)
from app.rules.chasse.resolve import Acc, d6
from app.rules.chasse.scenario import compass
from app.rules.chasse.state import bases, group_members, hunters
from app.rules.dice import Dice
from app.rules.purposes import Purpose

RULE = "Chasse préhistorique § Déplacements des Proies"
THREAT_RANGE = 3.0
GROUP_RANGE = 2.0  # "Les autres figurines restant à moins de 2'' de ce dernier"


def leader_of(state: Mapping[str, Any], token: Mapping[str, Any]) -> dict[str, Any]:
    members = group_members(state, token)  # type: ignore[arg-type]
    for member in members:
        if member.get("dominant"):
            return member
    return members[0]


def threatened(state: Mapping[str, Any], token: Mapping[str, Any]) -> bool:
    return token.get("attacked") or any(
        distance(o_pos(token), o_pos(h)) < THREAT_RANGE for h in hunters(state))  # type: ignore[arg-type]


def _modifier(state: Mapping[str, Any], lead: Mapping[str, Any]) -> int:
    if len(group_members(state, lead)) < 2:  # type: ignore[arg-type]
        return 0
    return 1 if lead["temperament"] == "agressive" else -1


def _move_group(acc: Acc, lead: Mapping[str, Any], direction: tuple[float, float],
                budget: float, *, stop_at: list[float] | None = None,
                may_leave: bool = False) -> list[dict[str, Any]]:
    """The dominant walks, stopping at other figures' bases; the followers keep their place
    beside it, within 2" and never on another base (§ Déplacements des Chasseurs: "Les
    autres figurines restant à moins de 2'' de ce dernier"). A group whose dominant flees
    off the board leaves with it."""
    board, terrain = acc.state["board"], acc.state["board"]["terrain"]
    jumps = lead["speed"] == "tres_rapide"
    group = group_members(acc.state, lead)  # type: ignore[arg-type]
    others = [o_pos(f) for f in bases(acc.state, {m["id"] for m in group})]
    end, _, off = walk(o_pos(lead), direction, budget, terrain, board, jumps=jumps,
                       stop_at=stop_at, figures=others)
    gone = off and may_leave
    moves = [{"token": lead["id"], "from": o_pos(lead), "to": end, "gone": gone,
              "distance": round(distance(o_pos(lead), end), 2)}]  # the log says how far
    taken = [end, *others]
    for member in group:
        if member["id"] == lead["id"]:
            continue
        ideal = [end[0] + member["x"] - lead["x"], end[1] + member["y"] - lead["y"]]
        to = o_pos(member) if gone else _follow(o_pos(member), ideal, end, taken, terrain,
                                                  board)
        taken.append(to)
        moves.append({"token": member["id"], "from": o_pos(member), "to": to, "gone": gone,
                      "distance": round(distance(o_pos(member), to), 2)})
    return moves


def _follow(start: list[float], ideal: list[float], leader: list[float],
            taken: list[list[float]], terrain: list[Mapping[str, Any]],
            board: Mapping[str, Any]) -> list[float]:
    """Where a follower stands after its dominant moved: its place beside it when free, else
    the free spot within 2" of it closest to that place (house: a base never stands on
    another, and the group keeps together); where it stood when there is none."""
    reach = max(GROUP_RANGE, distance(ideal, leader))  # a group placed wider keeps its width
    spots = [ideal] + [[leader[0] + radius * math.cos(angle * math.pi / 8),
                        leader[1] + radius * math.sin(angle * math.pi / 8)]
                       for radius in (CONTACT, 1.5, GROUP_RANGE) for angle in range(16)]
    for spot in sorted(spots, key=lambda spot: distance(spot, ideal)):
        spot = [round(spot[0], 2), round(spot[1], 2)]
        if not (0 <= spot[0] <= board["width"] and 0 <= spot[1] <= board["height"]) or \
                distance(spot, leader) > reach + 1e-9:
            continue
        if any(distance(spot, other) < OVERLAP for other in taken) or \
                path_cost(start, spot, terrain) is None:
            continue
        return spot
    return list(start)


def _towards(a: list[float], b: list[float]) -> tuple[float, float]:
    return (b[0] - a[0], b[1] - a[1])


def _emit(acc: Acc, lead: Mapping[str, Any], payload: dict[str, Any]) -> None:
    members = [m["id"] for m in group_members(acc.state, lead)]  # type: ignore[arg-type]
    acc.emit("prey_reacted", {"token": lead["id"], "name": lead["name"], "members": members,
                              "dmax": lead["dmax"], "rule": RULE, **payload})


def flee_fire(acc: Acc, token: Mapping[str, Any], fire: Mapping[str, Any], step: int) -> None:
    lead = leader_of(acc.state, token)
    away = _towards(fire_centre(fire), o_pos(lead))
    if away == (0.0, 0.0):
        away = compass(acc.state["board"], "nord")
    moves = _move_group(acc, lead, away, lead["dmax"], may_leave=True)
    _emit(acc, lead, {"cause": "fire", "step": step, "outcome": "fuit_feu",
                      "fire": fire.get("label") or fire["id"], "moves": moves})


def _blue_red(dice: Dice, lead: Mapping[str, Any]) -> tuple[dict, dict]:
    blue = d6(dice, Purpose("blue D6 — {name}", name=lead["name"]))
    red = d6(dice, Purpose("red D6 — {name}", name=lead["name"]))
    return blue, red


def _attack(acc: Acc, dice: Dice, lead: Mapping[str, Any], hunter: Mapping[str, Any],
            budget: float, outcome: str, test: dict[str, Any], rolls: list[dict],
            step: int, cause: str) -> None:
    """Attaque / charge / rôde: straight at the hunter; on contact it engages ("En cas de
    contact, engage le combat"). The fight itself is the melee step's (7: "Résolutions des
    corps à corps") when it engaged at step 5 — the hunter may then lead its own attack —
    and at once after it (steps 8 and 9), unless the prey has fought this turn already. A
    prey already in contact does not move: no charge, no +1 (a move of 0" is no charge)."""
    charging = outcome == "charge" and not in_contact(lead, hunter)
    moves = _move_group(acc, lead, _towards(o_pos(lead), o_pos(hunter)), budget,
                        stop_at=o_pos(hunter))
    fresh_hunter = acc.token(hunter["id"])
    ends = next(move["to"] for move in moves if move["token"] == lead["id"])
    engaged = in_contact({"x": ends[0], "y": ends[1]}, fresh_hunter)
    # how the contact is fought: at the melee step (7), at once, or not again this turn
    when = "step_7" if step == 5 else "fought" if lead.get("fought") else "now"
    _emit(acc, lead, {"cause": cause, "step": step, "outcome": outcome, "test": test,
                      "rolls": rolls, "target": hunter["id"], "target_name": hunter["name"],
                      "reach": budget, "moves": moves,
                      **({"engaged": {"target": hunter["id"], "charge": charging,
                                      "when": when}} if engaged else {})})
    if engaged and when == "now":
        melee_round(acc, dice, leader=lead["id"], defender=hunter["id"], cause=outcome)


def threat_test(acc: Acc, dice: Dice, token: Mapping[str, Any], step: int) -> None:
    """The test "en cas d'attaque, ou si un Chasseur est à moins de 3""."""
    lead = leader_of(acc.state, token)
    blue, red = _blue_red(dice, lead)
    modifier = _modifier(acc.state, lead)
    modified = max(0, min(7, blue["total"] + modifier))
    outcome = acc.state["reactions"]["threat"][lead["temperament"]][modified]
    test = {"table": "threat", "blue": blue["total"], "red": red["total"],
            "modifier": modifier, "modified": modified, "temperament": lead["temperament"]}
    hunter = nearest(o_pos(lead), hunters(acc.state))
    cause = "attacked" if token.get("attacked") else "hunter_near"
    if hunter is None or outcome == "reste":
        _emit(acc, lead, {"cause": cause, "step": step, "outcome": "reste", "test": test,
                          "rolls": [blue, red], "moves": []})
        return
    if outcome == "fuit":
        away = _towards(o_pos(hunter), o_pos(lead))
        if away == (0, 0):
            away = compass(acc.state["board"], "nord")
        moves = _move_group(acc, lead, away, lead["dmax"], may_leave=True)
        _emit(acc, lead, {"cause": cause, "step": step, "outcome": "fuit", "test": test,
                          "rolls": [blue, red], "target": hunter["id"],
                          "target_name": hunter["name"], "moves": moves})
        return
    budget = lead["dmax"] + (red["total"] if outcome == "charge" else 0)
    _attack(acc, dice, lead, hunter, budget, outcome, test, [blue, red], step, cause)


def idle_test(acc: Acc, dice: Dice, token: Mapping[str, Any], step: int) -> None:
    """The end-of-turn test of a prey that did not have to move (house table)."""
    lead = leader_of(acc.state, token)
    blue, red = _blue_red(dice, lead)
    modifier = _modifier(acc.state, lead)
    modified = max(0, min(7, blue["total"] + modifier))
    table = acc.state["reactions"]["idle"]
    outcome = table["outcomes"][modified]
    direction = table["directions"][red["total"] - 1]
    test = {"table": "idle", "blue": blue["total"], "red": red["total"], "modifier": modifier,
            "modified": modified, "temperament": lead["temperament"], "direction": direction}
    base = {"cause": "end_of_turn", "step": step, "test": test, "rolls": [blue, red]}
    hunter = nearest(o_pos(lead), hunters(acc.state))
    if outcome == "rode" and hunter is not None:
        _attack(acc, dice, lead, hunter, lead["dmax"] / 2, "rode", test, [blue, red], step,
                "end_of_turn")
        return
    if outcome in ("erre", "erre_demi"):
        reach = lead["dmax"] if outcome == "erre" else lead["dmax"] / 2
        # a wander stops at the board's edge: prey leave only when they flee (issue 25)
        moves = _move_group(acc, lead, compass(acc.state["board"], direction), reach)
        _emit(acc, lead, {**base, "outcome": outcome, "reach": reach, "moves": moves})
        return
    _emit(acc, lead, {**base, "outcome": "reste", "moves": []})
