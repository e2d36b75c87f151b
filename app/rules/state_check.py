"""Checking a match's state as the game's own rules write it: ``GameSystem.check_state``.

A state is a fold of events, and a campaign file brings events written elsewhere. An event
the rules never wrote can leave a token at ``x: "abc"``, statuses that are a number or a turn
on nobody; the table page and the next action then trip over it. A game's
``check_state(state)`` returns every value its pages and rules could not read, each as a
``Problem`` at its path in the state (``tokens.t1.x``), with the bounds and the text policy
its own actions enforce (each game passes the limits its ``action_fields`` reads use). The
values are held to the types ``evolve`` writes: a form's ``"12"`` is not 12 in a state.
Importing a campaign refuses the file at the first event that leaves one
(``app.services.transfer_fold``, docs/game-system.md).

What every game shares is here: the board, a table of pieces (tokens, participants) keyed
by id, the lists and the turn that name them.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from functools import lru_cache
from typing import Any

from app.rules.board import LABEL_MAX, UNITS
from app.rules.match import State
from app.rules.system import N_, Problem
from app.rules.text import text_problem

WHOLE = N_("Must be a whole number.")
BETWEEN = N_("Must be between %(low)s and %(high)s.")
NUMBER = N_("Must be a number.")
TEXT = N_("Must be text of at most %(n)s characters.")
REQUIRED = N_("This field is required.")
TEXT_POLICY = N_("Must be text without control characters or direction marks.")
CHOICE = N_("Must be one of: %(names)s.")
FLAG = N_("Must be yes or no.")
OBJECT = N_("Must be an object.")
LIST = N_("Must be a list.")
NOBODY = N_("Names no participant of this match.")
TWICE = N_("Listed twice.")
OWN_KEY = N_("Must be %(value)s.")

# A piece's name comes from the roster (a character's name: at most 120 characters,
# app.services.characters.NAME_MAX) or from a GM's form (shorter).
NAME_MAX = 120
BOARD_MIN, BOARD_MAX = 10, 10_000  # app.services.matches: the sizes a match may open with
ID_MAX = 2**31 - 1  # a database id (a character, a member)
TOTAL_MAX = 10**9  # a rolled total (an initiative) is far below this
STATUSES = ("running", "finished")
# A board's numbers other than its size (shapes, areas, marks, a map's scale): a game may
# draw them in fractions of its unit; none reaches this far.
BOARD_NUMBER_MAX = 100 * BOARD_MAX


@lru_cache(maxsize=4096)
def _refused_text(value: str) -> bool:
    """The text policy of a name (cached: a log repeats the same few names)."""
    return text_problem(value, required=True) is not None


def path(where: str, key: object) -> str:
    return f"{where}.{key}" if where else str(key)


class StateCheck:
    """The problems found in one state, each at its path, citing ``rule``."""

    def __init__(self, rule: str) -> None:
        self.rule = rule
        self.problems: list[Problem] = []

    def add(self, where: str, message: str, **params: Any) -> None:
        self.problems.append(Problem(where, message, self.rule, params))

    # — shapes ——————————————————————————————————————————————————————————————————

    def mapping(self, value: Any, where: str) -> dict[str, Any]:
        """``value`` if it is an object, else ``{}`` (and the problem noted)."""
        if isinstance(value, dict):
            return value
        self.add(where, OBJECT)
        return {}

    def listing(self, value: Any, where: str) -> list[Any]:
        if isinstance(value, list):
            return value
        self.add(where, LIST)
        return []

    # — values, read as the action path reads them ————————————————————————————————

    def whole(self, record: Mapping[str, Any], key: str, where: str, low: int, high: int, *,
              optional: bool = False) -> None:
        """A whole number within ``low``..``high`` (``None`` too when ``optional``): the
        state holds what ``evolve`` wrote, so ``"12"`` is not 12 here."""
        value = record.get(key)
        if value is None and optional:
            return
        if type(value) is not int:
            self.add(path(where, key), WHOLE)
        elif not low <= value <= high:
            self.add(path(where, key), BETWEEN, low=low, high=high)

    def number(self, record: Mapping[str, Any], key: str, where: str, low: float,
               high: float, *, optional: bool = False) -> None:
        """A number (whole or not) within ``low``..``high``."""
        value = record.get(key)
        if value is None and optional:
            return
        if type(value) not in (int, float) or not math.isfinite(value):
            self.add(path(where, key), NUMBER)
        elif not low <= value <= high:
            self.add(path(where, key), BETWEEN, low=low, high=high)

    def text(self, record: Mapping[str, Any], key: str, where: str, max_length: int, *,
             required: bool = False, policed: bool = False, optional: bool = False) -> None:
        """A text of at most ``max_length`` characters; ``policed``: one line that follows
        the text policy (``app.rules.text``), as a name typed at the table must."""
        value = record.get(key)
        if value is None and optional:
            return
        if not isinstance(value, str) or len(value) > max_length:
            self.add(path(where, key), TEXT, n=max_length)
        elif required and not value.strip():
            self.add(path(where, key), REQUIRED)
        elif policed and _refused_text(value):
            self.add(path(where, key), TEXT_POLICY)

    def choice(self, record: Mapping[str, Any], key: str, where: str,
               choices: Collection[str], *, optional: bool = False) -> None:
        value = record.get(key)
        if value is None and optional:
            return
        if not isinstance(value, str) or value not in choices:
            names = ", ".join(sorted(choices))
            self.add(path(where, key), CHOICE,
                     names=names if len(names) <= 200 else names[:199] + "…")

    def flag(self, record: Mapping[str, Any], key: str, where: str) -> None:
        if not isinstance(record.get(key), bool):
            self.add(path(where, key), FLAG)

    def platform_id(self, record: Mapping[str, Any], key: str, where: str) -> None:
        """A roster character or a member, by id (``app.rules.platform_ids``), or nobody."""
        self.whole(record, key, where, 1, ID_MAX, optional=True)

    def ref(self, record: Mapping[str, Any], key: str, where: str, table: Mapping[str, Any],
            *, optional: bool = True) -> None:
        """A key of ``table`` (a participant's id), or nobody when ``optional``."""
        value = record.get(key)
        if value is None and optional:
            return
        if not isinstance(value, str) or value not in table:
            self.add(path(where, key), NOBODY)

    def refs(self, record: Mapping[str, Any], key: str, where: str,
             table: Mapping[str, Any], *, once: bool = True) -> None:
        """A list of keys of ``table`` (an order of play: each ``once``); none if absent."""
        at = path(where, key)
        values = [] if record.get(key) is None else self.listing(record[key], at)
        seen: set[str] = set()
        for index, value in enumerate(values):
            if not isinstance(value, str) or value not in table:
                self.add(path(at, index), NOBODY)
            elif once and value in seen:
                self.add(path(at, index), TWICE)
            seen.add(str(value))

    def keys_of(self, record: Mapping[str, Any], key: str, where: str,
                table: Mapping[str, Any]) -> dict[str, Any]:
        """An object whose keys are keys of ``table`` (orders by participant); returns it."""
        found = self.mapping(record.get(key), path(where, key)) if record.get(key) is not None \
            else {}
        for name in found:
            if name not in table:
                self.add(path(path(where, key), name), NOBODY)
        return found


# — what every game on a table shares ————————————————————————————————————————————————

def check_match(check: StateCheck, state: State, *,
                statuses: Collection[str] = STATUSES) -> None:
    """The match's name and status, read by every page."""
    check.text(state, "name", "", NAME_MAX)
    check.choice(state, "status", "", statuses)


def check_pieces(check: StateCheck, state: State, pool: str, *, on_board: bool = False,
                 whole_coordinates: bool = True) -> dict[str, dict[str, Any]]:
    """``state[pool]``: the pieces (tokens, participants) by id, each naming itself, with a
    name and the platform's ids; ``on_board``, their place (``x``, ``y``) within the largest
    board: the GM may shrink a board under its pieces. Returns the pieces that are objects."""
    pieces: dict[str, dict[str, Any]] = {}
    for key, piece in check.mapping(state.get(pool), pool).items():
        where = path(pool, key)
        piece = check.mapping(piece, where)
        if not piece:
            continue
        pieces[key] = piece
        if piece.get("id") != key:
            check.add(path(where, "id"), OWN_KEY, value=key)
        check.text(piece, "name", where, NAME_MAX, required=True, policed=True)
        check.platform_id(piece, "character_id", where)
        check.platform_id(piece, "owner_id", where)
        for axis in ("x", "y") if on_board else ():
            if whole_coordinates:
                check.whole(piece, axis, where, 0, BOARD_MAX)
            else:
                check.number(piece, axis, where, 0, BOARD_MAX)
    return pieces


def check_board(check: StateCheck, state: State) -> None:
    """The board the page draws: its size and unit, the GM's terrain, the marks a game
    puts on it and the map under it."""
    board = check.mapping(state.get("board"), "board")
    check.choice(board, "unit", "board", UNITS)
    for axis in ("width", "height"):
        check.whole(board, axis, "board", BOARD_MIN, BOARD_MAX)
    for index, shape in enumerate(check.listing(board.get("terrain", []), "board.terrain")):
        where = f"board.terrain.{index}"
        shape = check.mapping(shape, where)
        check.text(shape, "id", where, 40, required=True)
        check.text(shape, "label", where, LABEL_MAX, optional=True)
        for key in ("x", "y", "w", "h"):
            check.number(shape, key, where, -BOARD_NUMBER_MAX, BOARD_NUMBER_MAX)
    for key, numbers in (("areas", ("x", "y", "r")), ("marks", ("x", "y")),
                         ("trails", ("x1", "y1", "x2", "y2"))):
        for index, item in enumerate(check.listing(board.get(key, []), f"board.{key}")):
            where = f"board.{key}.{index}"
            item = check.mapping(item, where)
            for number in numbers:
                check.number(item, number, where, -BOARD_NUMBER_MAX, BOARD_NUMBER_MAX)
    if board.get("background") is not None:
        _check_background(check, check.mapping(board["background"], "board.background"))


def _check_background(check: StateCheck, background: Mapping[str, Any]) -> None:
    """The GM's map under the board (the platform's ``board_background`` event)."""
    where = "board.background"
    check.platform_id(background, "image_id", where)
    for key in ("width", "height", "pixels"):
        check.number(background, key, where, 0, BOARD_NUMBER_MAX)
    check.choice(background, "per", where, UNITS)
