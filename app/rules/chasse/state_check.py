"""Chasse préhistorique's ``check_state``: the figures on the ground, the tribes and the turn,
as its actions write them (app/rules/state_check.py)."""

from __future__ import annotations

from app.rules.match import State
from app.rules.state_check import (
    TOTAL_MAX,
    StateCheck,
    check_board,
    check_match,
    check_pieces,
)
from app.rules.system import Problem

RULE = "Chasse préhistorique"
STATUSES = ("setup", "running", "finished")
KINDS = ("hunter", "prey")
STATES = ("ok", "dead", "burning", "burnt", "gone")
STEPS = 10  # the ten steps of a turn


def check_state(state: State) -> list[Problem]:
    check = StateCheck(RULE)
    check_match(check, state, statuses=STATUSES)
    check_board(check, state)
    figures = check_pieces(check, state, "tokens", on_board=True, whole_coordinates=False)
    for tid, figure in figures.items():
        where = f"tokens.{tid}"
        check.choice(figure, "kind", where, KINDS)
        check.choice(figure, "state", where, STATES)
        for key in ("masse", "wounds"):
            check.whole(figure, key, where, 0, TOTAL_MAX)
        check.number(figure, "dmax", where, 0, TOTAL_MAX)
        for key in ("carried", "food"):
            check.number(figure, key, where, 0, TOTAL_MAX, optional=True)
        if figure.get("kind") == "hunter":
            for index, weapon in enumerate(check.listing(figure.get("weapons"),
                                                         f"{where}.weapons")):
                check.text({"weapon": weapon}, "weapon", f"{where}.weapons.{index}", 80)
    sides = check.listing(state.get("sides", []), "sides")
    for index, side in enumerate(sides):
        where = f"sides.{index}"
        side = check.mapping(side, where)
        check.text(side, "name", where, 120, required=True)
        check.platform_id(side, "owner_id", where)
        check.number(side, "food", where, 0, TOTAL_MAX)
    if state.get("status") == "running":  # the page names the tribe that plays
        check.whole(state, "active", "", 0, max(len(sides) - 1, 0))
        check.whole(state, "step", "", 1, STEPS)
    check.whole(state, "round", "", 0, TOTAL_MAX)
    check.refs(state, "order", "", figures)
    if state.get("modifier") is not None:
        modifier = check.mapping(state["modifier"], "modifier")
        check.whole(modifier, "value", "modifier", -TOTAL_MAX, TOTAL_MAX)
        check.text(modifier, "label", "modifier", 200)
    return check.problems
