"""Free play's ``check_state``: the tokens as its actions write them (app/rules/state_check.py)."""

from __future__ import annotations

from app.rules.libre.match import HP_LIMIT, TEXT_MAX
from app.rules.match import State
from app.rules.state_check import (
    NAME_MAX,
    TOTAL_MAX,
    StateCheck,
    check_board,
    check_match,
    check_pieces,
)
from app.rules.system import N_, Problem

RULE = N_("Free play (house rule)")


def check_state(state: State) -> list[Problem]:
    check = StateCheck(RULE)
    check_match(check, state)
    check_board(check, state)
    tokens = check_pieces(check, state, "tokens", on_board=True)
    for token_id, token in tokens.items():
        where = f"tokens.{token_id}"
        check.whole(token, "hp_max", where, 0, HP_LIMIT)
        hp_max = token.get("hp_max")
        check.whole(token, "hp", where, 0, hp_max if type(hp_max) is int else HP_LIMIT)
        check.text(token, "statuses", where, TEXT_MAX)
        check.whole(token, "initiative", where, -TOTAL_MAX, TOTAL_MAX, optional=True)
    check.refs(state, "order", "", tokens)
    check.ref(state, "turn", "", tokens)
    check.whole(state, "round", "", 0, TOTAL_MAX)
    check.whole(state, "next_token", "", 1, TOTAL_MAX)
    for index, profile in enumerate(check.listing(state.get("profiles", []), "profiles")):
        where = f"profiles.{index}"
        profile = check.mapping(profile, where)
        check.text(profile, "key", where, 80, required=True)
        check.text(profile, "name", where, NAME_MAX, required=True)
        check.whole(profile, "hp_max", where, 0, HP_LIMIT)
        check.text(profile, "statuses", where, TEXT_MAX)
    return check.problems
