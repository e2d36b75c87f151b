"""Checking the platform's part of a state (``app.rules.map_state``) as its own actions write
it: a campaign file's events are folded and checked after every step, the game's part by the
game's ``check_state``, this part here (``app.services.transfer_fold``), so an imported fog
shape, drawing, scene or handout is one the table could have made."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.rules import handouts, map_drawings
from app.rules.map_state import FOG_KINDS, FOG_OPS
from app.rules.match import State
from app.rules.state_check import BETWEEN, BOARD_NUMBER_MAX, ID_MAX, LIST, NOBODY, StateCheck, path
from app.rules.system import Problem

RULE = "platform: the map tools (docs/table.md)"
MOST_POINTS = map_drawings.MAX_OUTLINE_POINTS


def problems(state: State) -> list[Problem]:
    check = StateCheck(RULE)
    board = state.get("board")
    if isinstance(board, dict):
        _board(check, board, "board", state.get("tokens") or {})
    if state.get("handouts") is not None:
        for index, item in enumerate(check.listing(state["handouts"], "handouts")):
            _handout(check, check.mapping(item, f"handouts.{index}"), f"handouts.{index}")
    return check.problems


def _board(check: StateCheck, board: Mapping[str, Any], where: str,
           tokens: Mapping[str, Any]) -> None:
    _parts(check, board, where)
    if board.get("veiled") is not None:
        for index, token in enumerate(check.listing(board["veiled"], path(where, "veiled"))):
            if token not in tokens:
                check.add(path(where, f"veiled.{index}"), NOBODY)
    scenes = board.get("scenes")
    ids = set()
    if scenes is not None:
        for index, scene in enumerate(check.listing(scenes, path(where, "scenes"))):
            at = path(where, f"scenes.{index}")
            scene = check.mapping(scene, at)
            check.text(scene, "id", at, 20, required=True)
            check.text(scene, "name", at, 80, required=True, policed=True)
            ids.add(scene.get("id"))
            if scene.get("stash") is not None:
                _parts(check, check.mapping(scene["stash"], path(at, "stash")), path(at, "stash"))
        check.choice(board, "scene", where, sorted(str(scene_id) for scene_id in ids))
    if board.get("away") is not None:
        for token, scene in check.mapping(board["away"], path(where, "away")).items():
            if token not in tokens or scene not in ids:
                check.add(path(where, f"away.{token}"), NOBODY)


def _parts(check: StateCheck, board: Mapping[str, Any], where: str) -> None:
    """What a scene keeps of its own: the fog and the drawings (the game's terrain and marks
    are the game's to check, the picture ``board_background``'s)."""
    if board.get("fog") is not None:
        fog = check.mapping(board["fog"], path(where, "fog"))
        check.choice(fog, "base", path(where, "fog"), ("hidden", "shown"))
        for index, shape in enumerate(check.listing(fog.get("shapes", []),
                                                    path(where, "fog.shapes"))):
            _fog_shape(check, check.mapping(shape, path(where, f"fog.shapes.{index}")),
                       path(where, f"fog.shapes.{index}"))
    if board.get("drawings") is not None:
        for index, drawing in enumerate(check.listing(board["drawings"],
                                                      path(where, "drawings"))):
            at = path(where, f"drawings.{index}")
            _drawing(check, check.mapping(drawing, at), at)


def _numbers(check: StateCheck, record: Mapping[str, Any], keys: tuple[str, ...],
             where: str) -> None:
    for key in keys:
        check.number(record, key, where, -BOARD_NUMBER_MAX, BOARD_NUMBER_MAX)


def _points(check: StateCheck, record: Mapping[str, Any], key: str, where: str) -> None:
    points = check.listing(record.get(key), path(where, key))
    if not 1 <= len(points) <= MOST_POINTS:
        check.add(path(where, key), BETWEEN, low=1, high=MOST_POINTS)
    for index, pair in enumerate(points):
        at = path(where, f"{key}.{index}")
        pair = check.listing(pair, at)
        if len(pair) != 2:
            check.add(at, LIST)
            continue
        _numbers(check, {"x": pair[0], "y": pair[1]}, ("x", "y"), at)


def _fog_shape(check: StateCheck, shape: Mapping[str, Any], where: str) -> None:
    check.choice(shape, "op", where, FOG_OPS)
    check.choice(shape, "kind", where, FOG_KINDS)
    kind = shape.get("kind")
    numbers = {"rect": ("x", "y", "w", "h"), "circle": ("x", "y", "r"),
               "brush": ("r",)}.get(str(kind), ())
    _numbers(check, shape, numbers, where)
    if kind in ("poly", "brush"):
        _points(check, shape, "points", where)


def _drawing(check: StateCheck, drawing: Mapping[str, Any], where: str) -> None:
    check.text(drawing, "id", where, 20, required=True)
    check.choice(drawing, "kind", where, (*map_drawings.DRAW_KINDS, "template"))
    check.choice(drawing, "colour", where, map_drawings.COLOURS)
    check.flag(drawing, "gm_only", where)
    check.platform_id(drawing, "by", where)
    kind = drawing.get("kind")
    if kind in ("free", "line"):
        _points(check, drawing, "points", where)
        _numbers(check, drawing, ("width",), where)
        if kind == "free" and drawing.get("outline") is not None:
            _points(check, drawing, "outline", where)
    elif kind in ("rect", "circle", "text"):
        _numbers(check, drawing, {"rect": ("x", "y", "w", "h"), "circle": ("x", "y", "r"),
                                  "text": ("x", "y")}[kind], where)
        if kind == "text":
            check.text(drawing, "text", where, map_drawings.TEXT_MAX, required=True,
                       policed=True)
    elif kind == "template":
        check.choice(drawing, "shape", where, map_drawings.TEMPLATE_SHAPES)
        _numbers(check, drawing, ("x", "y", "size"), where)
        if drawing.get("shape") in ("cone", "line"):
            check.number(drawing, "angle", where, 0, 360)


def _handout(check: StateCheck, item: Mapping[str, Any], where: str) -> None:
    check.text(item, "id", where, 20, required=True)
    check.text(item, "title", where, handouts.TITLE_MAX, required=True, policed=True)
    check.text(item, "text", where, handouts.TEXT_MAX)
    check.platform_id(item, "image_id", where)
    readers = item.get("user_ids")
    if readers is not None:
        for index, reader in enumerate(check.listing(readers, path(where, "user_ids"))):
            check.whole({"id": reader}, "id", path(where, f"user_ids.{index}"), 1, ID_MAX)
