"""Mutatior's ``check_state``: the figures on the arena, their teams and bodies, and
everything that names one (the turn, the attacks owed, the crowd's moods), as its actions
write them (app/rules/state_check.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.rules.match import State
from app.rules.mutatior.match_flow import STRIKES
from app.rules.state_check import (
    NOBODY,
    TOTAL_MAX,
    StateCheck,
    check_board,
    check_match,
    check_pieces,
)
from app.rules.system import Problem

RULE = "Mutatior"
PHASES = ("setup", "fight", "over")
ORGANS = ("muscles", "biomoteurs", "lobes")
ORGAN_MAX = 10_000


def check_state(state: State) -> list[Problem]:
    check = StateCheck(RULE)
    check_match(check, state)
    check.choice(state, "phase", "", PHASES)
    check_board(check, state)
    figures = check_pieces(check, state, "tokens", on_board=True, whole_coordinates=False)
    for tid, figure in figures.items():
        where = f"tokens.{tid}"
        check.text(figure, "kind", where, 40, required=True)
        check.text(figure, "team", where, 80, optional=True)
        check.text(figure, "status", where, 40, required=True)
        check.whole(figure, "initiative", where, -TOTAL_MAX, TOTAL_MAX, optional=True)
    bodies = check.keys_of(state, "bodies", "", figures)
    for tid, body in bodies.items():
        _check_body(check, body, f"bodies.{tid}")
    teams = check.mapping(state.get("teams", {}), "teams")
    for key, team in teams.items():
        _check_team(check, team, f"teams.{key}", figures, bodies)
    check.refs(state, "team_order", "", teams)
    for key in ("order", "initiative"):
        check.refs(state, key, "", figures)
    check.refs(state, "placed", "", figures, once=False)  # a figure may be placed again
    check.ref(state, "turn", "", figures)
    _check_names_of_figures(check, state, figures)
    _check_orders(check, state, figures)
    return check.problems


def _check_orders(check: StateCheck, state: State, figures: Mapping[str, Any]) -> None:
    """The trainers' standing orders by mutant, and whether the fight is decided
    (``match_flow``; both absent from a match played before them)."""
    for tid, orders in check.keys_of(state, "standing", "", figures).items():
        where = f"standing.{tid}"
        orders = check.mapping(orders, where)
        check.choice(orders, "strike", where, STRIKES)
        check.text(orders, "limb", where, 80, optional=True)
    if "decided" in state:
        check.flag(state, "decided", "")


def _check_team(check: StateCheck, team: Any, where: str, figures: Mapping[str, Any],
                bodies: Mapping[str, Any]) -> None:
    team = check.mapping(team, where)
    check.text(team, "trainer", where, 80)
    check.platform_id(team, "owner_id", where)
    check.refs(team, "members", where, figures)
    for index, tid in enumerate(team.get("members") or []):
        if tid in figures and tid not in bodies:  # the arena panel shows each one's organs
            check.add(f"{where}.members.{index}", NOBODY)


def _check_body(check: StateCheck, body: Any, where: str) -> None:
    body = check.mapping(body, where)
    for index, limb in enumerate(check.listing(body.get("limbs"), f"{where}.limbs")):
        at = f"{where}.limbs.{index}"
        limb = check.mapping(limb, at)
        check.text(limb, "name", at, 80, required=True)
        for organ in ORGANS:
            check.whole(limb, organ, at, 0, ORGAN_MAX)
            check.whole(limb, f"lost_{organ}", at, 0, ORGAN_MAX)


def _check_names_of_figures(check: StateCheck, state: State,
                            figures: Mapping[str, Any]) -> None:
    """What names a figure outside the tables: the activation, the attack on offer, the
    attacks owed, the crowd's moods, the tentacles' grips."""
    for key, field in (("activation", "token"), ("pending", "by")):
        if state.get(key) is not None:
            check.ref(check.mapping(state[key], key), field, key, figures, optional=False)
    for index, owed in enumerate(check.listing(state.get("free_attacks", []),
                                                "free_attacks")):
        owed = check.mapping(owed, f"free_attacks.{index}")
        for field in ("by", "against"):
            check.ref(owed, field, f"free_attacks.{index}", figures, optional=False)
        check.whole(owed, "left", f"free_attacks.{index}", 0, TOTAL_MAX)
    check.refs(state, "angry", "", figures)
    check.keys_of(state, "booed", "", figures)
    for tid, modifier in check.keys_of(state, "modifiers", "", figures).items():
        check.whole(check.mapping(modifier, f"modifiers.{tid}"), "value", f"modifiers.{tid}",
                    -TOTAL_MAX, TOTAL_MAX)
    for index, grip in enumerate(check.listing(state.get("grips", []), "grips")):
        check.ref(check.mapping(grip, f"grips.{index}"), "victim", f"grips.{index}", figures,
                  optional=False)
