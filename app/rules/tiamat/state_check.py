"""Tiamat's ``check_state``: the fighters, and everything that names one (the turn, the attack
waiting for its defence, the secret orders…), as its actions write them
(app/rules/state_check.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.rules.match import State
from app.rules.state_check import (
    CHOICE,
    NAME_MAX,
    TOTAL_MAX,
    StateCheck,
    check_match,
    check_pieces,
)
from app.rules.system import Problem
from app.rules.tiamat.content import techniques
from app.rules.tiamat.match_actions import ORDERS_MAX, POSTURE_WORDS
from app.rules.tiamat.sheet import KINDS
from app.rules.tiamat.sides import GM_ENDED, NOBODY_LEFT, SIDE_OUT, SIDES

RULE = "Tiamat § Combat « versus »"
# A gauge and its maximum (« Santé 12/15 »): the GM's corrections keep each within 0…max.
GAUGES = (("sante", "sante_max"), ("energie", "energie_max"), ("furie", "furie_max"),
          ("actions_left", "actions"), ("down", "members"))
GAUGE_MAX = 10_000
REASONS = (SIDE_OUT, NOBODY_LEFT, GM_ENDED)
ROUND_MAX = 1_000_000  # « until round N »: a lasting state is kept far in the future


def check_state(state: State) -> list[Problem]:
    check = StateCheck(RULE)
    check_match(check, state)
    fighters = check_pieces(check, state, "participants")
    for pid, fighter in fighters.items():
        _check_fighter(check, fighter, f"participants.{pid}", fighters)
    check.whole(state, "round", "", 0, ROUND_MAX)
    check.refs(state, "order", "", fighters)
    check.ref(state, "turn", "", fighters)
    check.refs(state, "surprised", "", fighters)
    _check_pending(check, state, fighters)
    _check_result(check, state)
    for key in ("orders", "orders_revealed"):
        for pid in check.keys_of(state, key, "", fighters):
            check.text(state[key], pid, key, ORDERS_MAX)
    for index, group in enumerate(check.listing(state.get("simultaneous", []),
                                                "simultaneous")):
        check.refs({"group": group}, "group", f"simultaneous.{index}", fighters)
    return check.problems


def _check_fighter(check: StateCheck, fighter: Mapping[str, Any], where: str,
                   fighters: Mapping[str, Any]) -> None:
    check.choice(fighter, "kind", where, KINDS)
    for value, maximum in GAUGES:
        check.whole(fighter, maximum, where, 0, GAUGE_MAX)
        high = fighter.get(maximum)
        check.whole(fighter, value, where, 0, high if type(high) is int else GAUGE_MAX)
    check.choice(fighter, "posture", where, POSTURE_WORDS)
    for key in ("ko", "dead"):
        check.flag(fighter, key, where)
    check.whole(fighter, "initiative", where, -TOTAL_MAX, TOTAL_MAX, optional=True)
    check.whole(fighter, "prepared", where, 0, GAUGE_MAX)
    for key, ceiling in (("states", ROUND_MAX), ("temp_wounds", ROUND_MAX),
                         ("ammo", GAUGE_MAX), ("characteristics", GAUGE_MAX)):
        table = check.mapping(fighter.get(key, {}), f"{where}.{key}")
        for name in table:
            check.whole(table, name, f"{where}.{key}", -ceiling, ceiling)
    for index, wound in enumerate(check.listing(fighter.get("wounds", []), f"{where}.wounds")):
        check.text({"wound": wound}, "wound", f"{where}.wounds.{index}", 40)
    arsenal = check.mapping(fighter.get("arsenal", {}), f"{where}.arsenal")
    for key, weapon in arsenal.items():
        weapon = check.mapping(weapon, f"{where}.arsenal.{key}")
        check.text(weapon, "name", f"{where}.arsenal.{key}", 120)
        check.whole(weapon, "ammo", f"{where}.arsenal.{key}", 0, GAUGE_MAX, optional=True)
    check.ref(fighter, "weapon", where, arsenal)
    check.ref(fighter, "held_by", where, fighters)
    # The fight's sides and standing defences (``sides.py``, ``turns.py``): the page names
    # the side and the technique.
    check.choice(fighter, "side", where, SIDES, optional=True)
    check.choice(fighter, "standing_defence", where, ("instinctive", *techniques()),
                 optional=True)
    if "fled" in fighter:
        check.flag(fighter, "fled", where)
    # Holds and terror (issue 24): the technique holding it, who terrorised it.
    check.choice(fighter, "hold", where, techniques(), optional=True)
    check.ref(fighter, "terrorised_by", where, fighters)


def _check_result(check: StateCheck, state: State) -> None:
    """A finished fight's result, as the page says it: the winners' names and one of the
    reasons ``sides.py`` gives, with the beaten side's names."""
    if state.get("result") is None:
        return
    result = check.mapping(state["result"], "result")
    for index, name in enumerate(check.listing(result.get("winners", []), "result.winners")):
        check.text({"name": name}, "name", f"result.winners.{index}", NAME_MAX)
    check.choice(result, "reason", "result", REASONS)
    params = check.mapping(result.get("params", {}), "result.params")
    for key in params:
        if key == "names":
            check.text(params, key, "result.params", NAME_MAX * 40)
        else:
            check.add(f"result.params.{key}", CHOICE, names="names")


def _check_pending(check: StateCheck, state: State, fighters: Mapping[str, Any]) -> None:
    """The attack waiting for its defence and the chain on offer name fighters and a
    technique of the catalogue (the page shows their names)."""
    if state.get("pending") is not None:
        pending = check.mapping(state["pending"], "pending")
        check.ref(pending, "attacker", "pending", fighters, optional=False)
        check.ref(pending, "target", "pending", fighters, optional=False)
        check.choice(pending, "technique", "pending", techniques())
    if state.get("combo") is not None:
        combo = check.mapping(state["combo"], "combo")
        check.ref(combo, "pid", "combo", fighters, optional=False)
        check.ref(combo, "target", "combo", fighters)
        check.listing(combo.get("options"), "combo.options")
