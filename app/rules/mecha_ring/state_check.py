"""Mecha-Ring's ``check_state``: the seats (tokens) and everything that names one — the
fight's order, the reaction window, the results — as its actions write them
(app/rules/state_check.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.rules.match import State
from app.rules.mecha_ring.robot import SLOTS
from app.rules.state_check import TOTAL_MAX, StateCheck, check_match, check_pieces
from app.rules.system import Problem

RULE = "Mecha-Ring"
PHASES = ("setup", "fight", "market", "between", "over")
AWAY = ("wait", "bot")
CELLS = 4  # a part's energy cells


def check_state(state: State) -> list[Problem]:
    check = StateCheck(RULE)
    check_match(check, state)
    check.choice(state, "phase", "", PHASES)
    seats = check_pieces(check, state, "tokens")
    for tid, seat in seats.items():
        _check_seat(check, seat, f"tokens.{tid}")
    check.refs(state, "seats", "", seats)
    check.ref(state, "turn", "", seats)
    check.ref(state, "challenger", "", seats)
    _check_cards(check, state, "market", "")
    if state.get("fight") is not None:
        fight = check.mapping(state["fight"], "fight")
        check.refs(fight, "order", "fight", seats)
    if state.get("window") is not None:
        window = check.mapping(state["window"], "window")
        for key in ("waiting", "passed"):
            check.refs(window, key, "window", seats)
    if state.get("result") is not None:
        result = check.mapping(state["result"], "result")
        check.ref(result, "winner", "result", seats)
        check.ref(result, "champion", "result", seats)
    for index, fought in enumerate(check.listing(state.get("history", []), "history")):
        fought = check.mapping(fought, f"history.{index}")
        check.ref(fought, "winner", f"history.{index}", seats)
        check.whole(fought, "rounds", f"history.{index}", 0, TOTAL_MAX)
    return check.problems


def _check_seat(check: StateCheck, seat: Mapping[str, Any], where: str) -> None:
    check.whole(seat, "credits", where, 0, TOTAL_MAX)
    for key in ("out", "bot"):
        check.flag(seat, key, where)
    check.choice(seat, "away", where, AWAY, optional=True)
    for key in ("hand", "sfx_hand", "loot"):
        _check_cards(check, seat, key, where)
    robot = check.mapping(seat.get("robot"), f"{where}.robot")
    for slot in SLOTS:
        if robot.get(slot) is None:
            continue
        part = check.mapping(robot[slot], f"{where}.robot.{slot}")
        check.text(part, "card", f"{where}.robot.{slot}", 80, required=True)
        check.whole(part, "energy", f"{where}.robot.{slot}", -TOTAL_MAX, CELLS)
    check.mapping(seat.get("buffs", {}), f"{where}.buffs")


def _check_cards(check: StateCheck, record: Mapping[str, Any], key: str, where: str) -> None:
    """A list of cards, each ``<card key>#<copy>``."""
    at = f"{where}.{key}" if where else key
    for index, card in enumerate(check.listing(record.get(key, []), at)):
        check.text({"card": card}, "card", f"{at}.{index}", 80, required=True)
