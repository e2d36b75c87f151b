"""Cyborg Anti-Alien's ``check_state``: the participants on the board, the groups' initiative
and the chase, as its actions write them (app/rules/state_check.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.rules.match import State
from app.rules.state_check import (
    TOTAL_MAX,
    StateCheck,
    check_board,
    check_match,
    check_pieces,
)
from app.rules.system import Problem

RULE = "Cyborg Anti-Alien"


def check_state(state: State) -> list[Problem]:
    check = StateCheck(RULE)
    check_match(check, state)
    check_board(check, state)
    tokens = check_pieces(check, state, "tokens", on_board=True, whole_coordinates=False)
    for tid, token in tokens.items():
        _check_token(check, token, f"tokens.{tid}")
    check.refs(state, "order", "", tokens)
    check.ref(state, "turn", "", tokens)
    check.whole(state, "round", "", 0, TOTAL_MAX)
    check.whole(state, "hour", "", 0, TOTAL_MAX)
    if state.get("initiative") is not None:
        _check_initiative(check, check.mapping(state["initiative"], "initiative"))
    if state.get("chase") is not None:
        chase = check.mapping(state["chase"], "chase")
        for side in ("pursuer", "quarry"):
            entry = check.mapping(chase.get(side), f"chase.{side}")
            check.ref(entry, "driver", f"chase.{side}", tokens, optional=False)
    return check.problems


def _check_token(check: StateCheck, token: Mapping[str, Any], where: str) -> None:
    check.text(token, "group", where, 80, required=True)
    for key in ("sante", "sante_max", "resistance"):
        check.whole(token, key, where, -TOTAL_MAX, TOTAL_MAX)
    check.whole(token, "turns_to_live", where, -TOTAL_MAX, TOTAL_MAX, optional=True)
    check.flag(token, "acted", where)
    for key in ("states", "lost_limbs", "broken_limbs"):
        for index, word in enumerate(check.listing(token.get(key, []), f"{where}.{key}")):
            check.text({"word": word}, "word", f"{where}.{key}.{index}", 80)
    magazines = check.mapping(token.get("magazines", {}), f"{where}.magazines")
    for key in magazines:
        check.whole(magazines, key, f"{where}.magazines", 0, TOTAL_MAX)
    check.mapping(token.get("weapon_names", {}), f"{where}.weapon_names")
    modifier = check.mapping(token.get("modifier", {}), f"{where}.modifier")
    check.whole(modifier, "value", f"{where}.modifier", -TOTAL_MAX, TOTAL_MAX, optional=True)


def _check_initiative(check: StateCheck, initiative: Mapping[str, Any]) -> None:
    """The groups in the order they act, and which one acts now (the page names it)."""
    groups = check.listing(initiative.get("order"), "initiative.order")
    for index, group in enumerate(groups):
        check.text({"group": group}, "group", f"initiative.order.{index}", 80, required=True)
    check.whole(initiative, "active", "initiative", 0, max(len(groups) - 1, 0))
    check.mapping(initiative.get("totals", {}), "initiative.totals")
