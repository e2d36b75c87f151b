"""The platform's part of a board, folded by the engine whatever the game (issue 28).

Every board game keeps ``state["board"]`` (``app.rules.board``); the platform adds, under the
same key, what a GM expects of a virtual tabletop's map, each changed by an event of the
match's log (``PLATFORM_KINDS``: undone, replayed, exported and imported like any other):

- ``background``: the picture under the board (``board_background``,
  ``app/services/board_backgrounds.py``);
- ``fog``: ``{"base": "hidden" | "shown", "shapes": [shape…]}`` — the fog of war. A point is
  hidden when the last shape that holds it says ``hide``, or, if none holds it, when the base
  is ``hidden`` (``fog_reset`` sets the base and clears the shapes; ``fog_drawn`` adds one
  shape: a ``rect``, ``circle``, ``poly`` or ``brush`` stroke, to ``reveal`` or ``hide``);
- ``veiled``: the figures the GM hides from the players wherever they stand
  (``figure_veiled``);
- ``drawings``: lines, shapes, text and area templates (``drawing_added``,
  ``drawing_removed``), each for everyone or the GM only;
- ``scenes``, ``scene`` and ``away``: the match's other places and which figures wait there
  (``scene_added``, ``scene_renamed``, ``scene_shown``);
- ``state["handouts"]``: what the GM handed out (``handout_shared``: ``{"id", "title",
  "text"}``, its picture under ``image_id`` and its readers under ``user_ids``, ``None`` for
  everyone; ``handout_withdrawn``).

This module only folds and measures: pure, and importing nothing of ``app`` but the rules'
own text (``app.rules.match`` imports it). Judging the actions is ``app.rules.map_actions``;
what a viewer may see of it, ``app.rules.map_view``.
"""

from __future__ import annotations

import copy
import itertools
import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any

State = dict[str, Any]
Point = tuple[float, float]

FOG_KINDS = ("rect", "circle", "poly", "brush")
FOG_OPS = ("reveal", "hide")
# What a scene keeps of its own while another is shown (a fresh scene starts without them).
SCENE_PARTS = ("background", "terrain", "fog", "drawings", "areas", "marks", "trails")


# — geometry —————————————————————————————————————————————————————————————————————————

def _segment_distance(x: float, y: float, a: Point, b: Point) -> float:
    (ax, ay), (bx, by) = a, b
    dx, dy = bx - ax, by - ay
    length = dx * dx + dy * dy
    t = 0.0 if length == 0 else max(0.0, min(1.0, ((x - ax) * dx + (y - ay) * dy) / length))
    return math.hypot(x - (ax + t * dx), y - (ay + t * dy))


def _inside_polygon(x: float, y: float, points: list[Point]) -> bool:
    """Even-odd ray casting (a point on an edge may fall either side: the brush and the
    outline the page draws make that invisible)."""
    inside = False
    for (ax, ay), (bx, by) in zip(points, points[1:] + points[:1], strict=True):
        if (ay > y) != (by > y) and x < ax + (y - ay) * (bx - ax) / (by - ay):
            inside = not inside
    return inside


def _points(shape: Mapping[str, Any]) -> list[Point]:
    return [(float(p[0]), float(p[1])) for p in shape.get("points") or ()]


def holds(shape: Mapping[str, Any], x: float, y: float) -> bool:
    """Whether a fog shape covers the point (x, y), in the board's unit."""
    kind = shape.get("kind")
    if kind == "rect":
        return (shape["x"] <= x <= shape["x"] + shape["w"]
                and shape["y"] <= y <= shape["y"] + shape["h"])
    if kind == "circle":
        return math.hypot(x - shape["x"], y - shape["y"]) <= shape["r"]
    if kind == "poly":
        return _inside_polygon(x, y, _points(shape))
    if kind == "brush":
        points = _points(shape)
        if len(points) == 1:
            return math.hypot(x - points[0][0], y - points[0][1]) <= shape["r"]
        return any(_segment_distance(x, y, a, b) <= shape["r"]
                   for a, b in itertools.pairwise(points))
    return False


def fogged(fog: Mapping[str, Any] | None, x: object, y: object) -> bool:
    """Whether the fog hides the point: the last shape holding it decides, else the base."""
    if not fog or not isinstance(x, int | float) or not isinstance(y, int | float):
        return False
    hidden = fog.get("base") == "hidden"
    for shape in fog.get("shapes") or ():
        if holds(shape, x, y):
            hidden = shape.get("op") == "hide"
    return hidden


def fog_active(fog: Mapping[str, Any] | None) -> bool:
    """Whether anything is hidden at all (a shown base and no shape hide nothing)."""
    return bool(fog) and (fog.get("base") == "hidden" or any(
        shape.get("op") == "hide" for shape in fog.get("shapes") or ()))


def rect_fogged(fog: Mapping[str, Any] | None, x: float, y: float, w: float, h: float) -> bool:
    """A piece of ground is under the fog when none of a 5 × 5 grid of its points shows
    (its corners and edges included): one that shows anywhere is drawn whole, the fog over
    the rest of it."""
    if not fog_active(fog):
        return False
    steps = [i / 4 for i in range(5)]
    return all(fogged(fog, x + w * a, y + h * b) for a in steps for b in steps)


# — folding ——————————————————————————————————————————————————————————————————————————

def _board(state: State) -> dict[str, Any] | None:
    board = state.get("board")
    return board if isinstance(board, dict) else None


def _background(board: dict[str, Any], payload: Mapping[str, Any]) -> None:
    """The picture under the board (``image_id`` None: none), its size in the board's unit,
    and the scale the GM gave (``pixels`` per ``per``)."""
    if payload.get("image_id") is None:
        board.pop("background", None)
    else:
        board["background"] = {key: payload.get(key)
                               for key in ("image_id", "width", "height", "pixels", "per")}


def _fog_reset(board: dict[str, Any], payload: Mapping[str, Any]) -> None:
    board["fog"] = {"base": payload["base"], "shapes": []}


def _fog_drawn(board: dict[str, Any], payload: Mapping[str, Any]) -> None:
    fog = board.setdefault("fog", {"base": "shown", "shapes": []})
    fog["shapes"].append(copy.deepcopy(payload["shape"]))


def _figure_veiled(board: dict[str, Any], payload: Mapping[str, Any]) -> None:
    veiled = [token for token in board.get("veiled", []) if token != payload["token"]]
    if payload["hidden"]:
        veiled.append(payload["token"])
    if veiled:
        board["veiled"] = veiled
    else:
        board.pop("veiled", None)


def _drawing_added(board: dict[str, Any], payload: Mapping[str, Any]) -> None:
    board.setdefault("drawings", []).append(copy.deepcopy(payload["drawing"]))


def _drawing_removed(board: dict[str, Any], payload: Mapping[str, Any]) -> None:
    board["drawings"] = [drawing for drawing in board.get("drawings", [])
                         if drawing.get("id") != payload["id"]]


def _scene_added(board: dict[str, Any], payload: Mapping[str, Any]) -> None:
    """A new place; ``current``: the one shown now (named when the first other is added)."""
    scene = payload["scene"]
    board.setdefault("scenes", []).append({"id": scene["id"], "name": scene["name"]})
    if payload.get("current"):
        board["scene"] = scene["id"]


def _scene_renamed(board: dict[str, Any], payload: Mapping[str, Any]) -> None:
    for scene in board.get("scenes", []):
        if scene["id"] == payload["scene"]:
            scene["name"] = payload["name"]


def _scene_shown(state: State, board: dict[str, Any], payload: Mapping[str, Any]) -> None:
    """The group moves to another scene: what the board shows now is kept with the scene it
    leaves, the other's is laid out, and the figures not ``along`` wait where they were."""
    scenes = {scene["id"]: scene for scene in board.get("scenes", [])}
    leaving, target = board.get("scene"), payload["scene"]
    if target not in scenes or leaving not in scenes or target == leaving:
        return
    scenes[leaving]["stash"] = {part: board.pop(part) for part in SCENE_PARTS if part in board}
    board.update(scenes[target].pop("stash", None) or {})
    board.setdefault("terrain", [])
    along = set(payload.get("along") or ())
    away = dict(board.get("away") or {})
    for token in token_ids(state):
        where = away.get(token, leaving)
        if where == leaving and token not in along:
            away[token] = leaving
        elif where == target:
            away.pop(token, None)
    if away:
        board["away"] = away
    else:
        board.pop("away", None)
    board["scene"] = target


def _handout_shared(state: State, payload: Mapping[str, Any]) -> None:
    handouts = [item for item in state.get("handouts", [])
                if item["id"] != payload["handout"]["id"]]
    state["handouts"] = [*handouts, {**copy.deepcopy(payload["handout"]),
                                     "image_id": payload.get("image_id"),
                                     "user_ids": copy.deepcopy(payload.get("user_ids"))}]


def _handout_withdrawn(state: State, payload: Mapping[str, Any]) -> None:
    state["handouts"] = [item for item in state.get("handouts", [])
                         if item["id"] != payload["id"]]
    if not state["handouts"]:
        del state["handouts"]


BOARD_EVOLVE: dict[str, Callable[[dict[str, Any], Mapping[str, Any]], None]] = {
    "board_background": _background,
    "fog_reset": _fog_reset,
    "fog_drawn": _fog_drawn,
    "figure_veiled": _figure_veiled,
    "drawing_added": _drawing_added,
    "drawing_removed": _drawing_removed,
    "scene_added": _scene_added,
    "scene_renamed": _scene_renamed,
}
# Kinds that read the whole state (the figures a scene leaves behind) or live outside the
# board (a game without one hands out papers too).
STATE_EVOLVE: dict[str, Callable[[State, Mapping[str, Any]], None]] = {
    "handout_shared": _handout_shared,
    "handout_withdrawn": _handout_withdrawn,
}
PLATFORM_KINDS = frozenset(BOARD_EVOLVE) | frozenset(STATE_EVOLVE) | {"scene_shown"}


def evolve(state: State, kind: str, payload: Mapping[str, Any]) -> None:
    """Fold one platform event into ``state`` in place. An event about the board does
    nothing to a state without one (a game that lost its board keeps its log readable)."""
    if kind in STATE_EVOLVE:
        STATE_EVOLVE[kind](state, payload)
        return
    board = _board(state)
    if board is None:
        return
    if kind == "scene_shown":
        _scene_shown(state, board, payload)
    else:
        BOARD_EVOLVE[kind](board, payload)


def token_ids(state: State) -> Iterable[str]:
    tokens = state.get("tokens")
    return list(tokens) if isinstance(tokens, dict) else []
