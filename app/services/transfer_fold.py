"""An imported match's log, folded event by event and checked by its game at every step.

A match's state is never taken from a campaign file (DESIGN.md § The one flow: the log is
the truth): the game folds the file's events, and the file is refused at the first event it
cannot read, at the first event after which the game's ``check_state`` refuses the state
(a token at ``x: "abc"``, orders written for nobody), or where the file's snapshot disagrees
with what the log gives. Every step is checked, not only the last: the replay page shows
each one. A refusal names the event's field the bad value came from
(``matches.0.events.3.payload.token.x``).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

from app.errors import ValidationFailed
from app.i18n import lazy_gettext as _l
from app.rules import map_check
from app.rules.match import Event, State, fold_steps
from app.rules.system import GameSystem, Problem
from app.services.transfer_document import EventDoc, MatchDoc

UNREADABLE = _l("The game cannot read this event.")
DISAGREES = _l("The saved state of this match disagrees with its log.")


def check_match_log(system: GameSystem, match: MatchDoc, where: str) -> State:
    """The state the file's log folds to, checked at every step and against the file's
    snapshot; a ``ValidationFailed`` naming the first bad field otherwise."""
    state = _fold_checked(system, match, where)
    if (path := first_difference(state, match.state)) is not None:
        raise ValidationFailed(DISAGREES, field=f"{where}.state{path}")
    if state.get("status", match.status) != match.status:
        raise ValidationFailed(DISAGREES, field=f"{where}.status")
    return state


def _fold_checked(system: GameSystem, match: MatchDoc, where: str) -> State:
    check_state = getattr(system, "check_state", None)
    live = [(index, event) for index, event in enumerate(match.events) if not event.reverted]
    steps = fold_steps(system, _events(live))
    state: State = {}
    for index, event in live:
        at = f"{where}.events.{index}.payload"
        try:  # a game reads what it wrote; anything else is unreadable
            state = next(steps)
            problems = check_state(state) if check_state else []
            problems += map_check.problems(state)  # the platform's part: fog, drawings…
        except Exception as error:
            raise ValidationFailed(UNREADABLE, field=at) from error
        if problems:
            raise _refused(problems[0], state, event, at)
    try:
        return json.loads(json.dumps(state))  # what the database will give back
    except (TypeError, ValueError) as error:
        raise ValidationFailed(UNREADABLE, field=f"{where}.events") from error


def _events(live: list[tuple[int, EventDoc]]) -> Iterator[Event]:
    for _index, event in live:
        yield Event(event.kind, copy.deepcopy(event.payload), event.visibility)


def _refused(problem: Problem, state: State, event: EventDoc, at: str) -> ValidationFailed:
    field = payload_field(event.payload, problem.field, value_at(state, problem.field))
    return ValidationFailed(
        _l("After this event, the match's state breaks the game's rules (%(where)s): "
           "%(problem)s", where=problem.field, problem=_l(problem.message, **problem.params)),
        field=f"{at}{field}", code="invalid_state", details={"state": problem.field})


# — where a refused value came from ——————————————————————————————————————————————

MISSING = object()


def value_at(state: Any, path: str) -> Any:
    """The value at a dotted path of the state (``tokens.t1.x``), or ``MISSING``."""
    value = state
    for part in path.split(".") if path else ():
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return MISSING
    return value


def payload_field(payload: dict[str, Any], state_path: str, value: Any) -> str:
    """Where in the event's payload the refused value sits, as ``.token.x`` (``""``: the
    payload itself). The place whose path ends like the state's (``token.x`` for
    ``tokens.t1.x``, ``set.orders.p9`` for ``orders.p9``); else one holding the same value
    (``to`` for a turn given to nobody)."""
    wanted = state_path.split(".")
    best: tuple[int, bool, list[str]] = (0, False, [])
    for where, found in _places(payload, []):
        score = (_common_suffix(where, wanted), _same(found, value), where)
        if score[:2] > best[:2]:
            best = score
    return "".join(f".{part}" for part in best[2]) if best[0] or best[1] else ""


def _places(value: Any, where: list[str]) -> Iterator[tuple[list[str], Any]]:
    items = value.items() if isinstance(value, dict) else enumerate(value) \
        if isinstance(value, list) else ()
    for key, item in items:
        inside = [*where, str(key)]
        yield inside, item
        yield from _places(item, inside)


def _common_suffix(a: list[str], b: list[str]) -> int:
    count = 0
    while count < min(len(a), len(b)) and a[-1 - count] == b[-1 - count]:
        count += 1
    return count


def _same(found: Any, value: Any) -> bool:
    return value is not MISSING and type(found) is type(value) and found == value \
        and not isinstance(value, dict | list)


def first_difference(found: Any, expected: Any, path: str = "") -> str | None:
    """Where two JSON values first differ (``.tokens.t1.hp``; ``""`` for the values
    themselves), or None when they are equal."""
    if isinstance(found, dict) and isinstance(expected, dict):
        for key in sorted(set(found) | set(expected), key=str):
            if key not in found or key not in expected:
                return f"{path}.{key}"
            if (where := first_difference(found[key], expected[key],
                                          f"{path}.{key}")) is not None:
                return where
        return None
    if isinstance(found, list) and isinstance(expected, list):
        for index, (a, b) in enumerate(zip(found, expected, strict=False)):
            if (where := first_difference(a, b, f"{path}.{index}")) is not None:
                return where
        return None if len(found) == len(expected) else f"{path}.{min(len(found), len(expected))}"
    same = found == expected and type(found) is type(expected)
    return None if same else path
