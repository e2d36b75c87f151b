"""Drawings and area templates on the board (issue 28): lines, shapes, text and freehand ink,
and the circle, cone, line and square templates of the games whose rules have areas —
each for everyone, or for the GM only (and its author).

A drawing is ``{"id", "kind", "colour", "by", "gm_only", …}`` in ``board["drawings"]``
(``app.rules.map_state``). Its kind says what else it holds, in the board's unit:

- ``free``: ``points`` (the stroke's middle), ``width``, and ``outline``: the ink's shape as
  the browser drew it (perfect-freehand), when it sent one;
- ``line``: ``points``, its two ends; ``width``;
- ``rect``: ``x``, ``y``, ``w``, ``h``; ``circle``: ``x``, ``y``, ``r``; ``text``: ``x``,
  ``y``, ``text``;
- ``template``: ``shape`` (``circle``, ``cone``, ``line``, ``square``), its origin ``x``,
  ``y``, ``size`` (radius, length or side), ``angle`` (degrees, clockwise from east: cone and
  line), ``width`` (line).

A template is snapped to the grid (its origin to half a square, or a centimetre; its size to
whole squares, inches or centimetres; its direction to 15°), the same grid the ruler counts
in, and drawn with the same piece as a game's marked areas (Cyborg's grenade blast, Chasse's
fires: ``matches/_map_svg.html``). A drawing for the GM only is a ``quiet`` event: nobody else
learns it exists, and their view leaves it out (``map_view``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from app.rules.action_fields import choice_field, flag, text_field
from app.rules.map_fields import MapRefused, board_of, number_field, points_field
from app.rules.match import Actor, Event, IllegalAction, State

COLOURS = ("red", "blue", "green", "orange", "black", "white")
DRAW_KINDS = ("free", "line", "rect", "circle", "text")
TEMPLATE_SHAPES = ("circle", "cone", "line", "square")
MAX_DRAWINGS = 300
MAX_FREE_POINTS = 600
MAX_OUTLINE_POINTS = 1500
TEXT_MAX = 200
ANGLE_STEP = 15
# A cone as wide at its flat end as it is long (the big tables' cone): half its angle.
CONE_HALF_ANGLE = math.degrees(math.atan(0.5))
# Where a template's origin and size fall, per board unit: (origin step, size step).
SNAP = {"sq": (0.5, 1), "in": (0.5, 1), "cm": (1, 1)}


def _room(board: Mapping[str, Any]) -> None:
    drawings = board.get("drawings") or []
    if len(drawings) >= MAX_DRAWINGS:
        raise MapRefused("too_many_drawings", n=len(drawings))


def _new_id(board: Mapping[str, Any]) -> str:
    taken = {drawing.get("id") for drawing in board.get("drawings") or ()}
    number = len(taken) + 1
    while f"d{number}" in taken:
        number += 1
    return f"d{number}"


def _visibility(drawing: Mapping[str, Any]) -> str:
    """A drawing for the GM only exists for its author and the GM alone."""
    return "quiet" if drawing["gm_only"] else "public"


def _common(state: State, action: Mapping[str, Any], actor: Actor) -> dict[str, Any]:
    board = board_of(state)
    _room(board)
    return {"id": _new_id(board), "colour": choice_field(action, "colour", COLOURS, "red"),
            "by": actor.user_id, "gm_only": flag(action, "gm_only")}


def _outline(action: Mapping[str, Any], board: Mapping[str, Any]) -> list[list[float]] | None:
    """The ink's outline the browser drew, within a margin round the board (a stroke's edge
    reaches past its middle)."""
    if action.get("outline") in (None, "", []):
        return None
    return points_field(action, board, least=3, most=MAX_OUTLINE_POINTS, field="outline",
                        margin=max(board["width"], board["height"]) / 20)


def decide_draw(state: State, action: Mapping[str, Any], actor: Actor,
                system_key: str) -> list[Event]:
    """Anyone at the table (not a spectator) draws on the board."""
    drawing = _common(state, action, actor)
    board = state["board"]
    width, height = board["width"], board["height"]
    kind = choice_field(action, "shape", DRAW_KINDS)
    drawing["kind"] = kind
    if kind in ("free", "line"):
        drawing["points"] = points_field(action, board, least=2,
                                         most=2 if kind == "line" else MAX_FREE_POINTS)
        stroke = action.get("width")
        drawing["width"] = number_field(action, "width", 0.01, max(width, height) / 10) \
            if stroke not in (None, "") else round(max(width, height) / 200, 2)
        if kind == "free" and (outline := _outline(action, board)) is not None:
            drawing["outline"] = outline
    elif kind in ("rect", "circle", "text"):
        drawing["x"] = number_field(action, "x", 0, width)
        drawing["y"] = number_field(action, "y", 0, height)
        if kind == "rect":
            drawing["w"] = number_field(action, "w", 0.01, width - drawing["x"] or 0.01)
            drawing["h"] = number_field(action, "h", 0.01, height - drawing["y"] or 0.01)
        elif kind == "circle":
            drawing["r"] = number_field(action, "r", 0.01, max(width, height))
        else:
            drawing["text"] = text_field(action, "text", TEXT_MAX)
    return [Event("drawing_added", {"drawing": drawing}, _visibility(drawing))]


def snap(value: float, step: float) -> float:
    return round(round(value / step) * step, 2)


def decide_template(state: State, action: Mapping[str, Any], actor: Actor,
                    system_key: str) -> list[Event]:
    """An area template, snapped to the grid (anyone at the table)."""
    drawing = _common(state, action, actor)
    board = state["board"]
    width, height = board["width"], board["height"]
    origin_step, size_step = SNAP.get(board.get("unit", "cm"), SNAP["cm"])
    shape = choice_field(action, "shape", TEMPLATE_SHAPES)
    drawing.update(kind="template", shape=shape,
                   x=snap(number_field(action, "x", 0, width), origin_step),
                   y=snap(number_field(action, "y", 0, height), origin_step),
                   size=max(size_step, snap(number_field(action, "size", size_step / 2,
                                                         max(width, height)), size_step)))
    if shape in ("cone", "line"):
        angle = action.get("angle")
        drawing["angle"] = snap(number_field(action, "angle", -360, 360), ANGLE_STEP) % 360 \
            if angle not in (None, "") else 0
    if shape == "line":
        drawing["width"] = size_step
    return [Event("drawing_added", {"drawing": drawing}, _visibility(drawing))]


def decide_erase(state: State, action: Mapping[str, Any], actor: Actor,
                 system_key: str) -> list[Event]:
    """A drawing taken away by its author or the GM; with ``all``, every drawing (the
    GM)."""
    board = board_of(state)
    drawings = [drawing for drawing in board.get("drawings") or ()
                if seen_by(drawing, actor)]
    wanted = action.get("drawing")
    if flag(action, "all"):
        if not actor.is_gm:
            raise IllegalAction("gm_only")
        chosen = drawings
    else:
        chosen = [drawing for drawing in drawings if drawing.get("id") == wanted]
        if not chosen:
            raise MapRefused("bad_field", field="drawing", reason="?")
        if not actor.is_gm and chosen[0].get("by") != actor.user_id:
            raise MapRefused("not_yours", field="drawing")
    if not chosen:
        raise MapRefused("bad_field", field="drawing", reason="nothing to erase",
                         reason_fr="rien à effacer")
    return [Event("drawing_removed", {"id": drawing["id"]}, _visibility(drawing))
            for drawing in chosen]


def seen_by(drawing: Mapping[str, Any], viewer: Actor) -> bool:
    """A drawing for the GM only is its author's and the GM's."""
    return not drawing.get("gm_only") or viewer.is_gm or drawing.get("by") == viewer.user_id


def erasable(board: Mapping[str, Any], actor: Actor) -> list[str]:
    return [drawing["id"] for drawing in board.get("drawings") or ()
            if seen_by(drawing, actor) and (actor.is_gm or drawing.get("by") == actor.user_id)]


# — how a template is drawn and measured —————————————————————————————————————————————

def _turn(x: float, y: float, length: float, degrees: float) -> list[float]:
    radians = math.radians(degrees)
    return [round(x + length * math.cos(radians), 3), round(y + length * math.sin(radians), 3)]


def outline(template: Mapping[str, Any]) -> list[list[float]]:
    """A template's corners on the board (a cone's arc as twelve points); a circle has
    none (the page draws it as a circle)."""
    shape, x, y, size = template["shape"], template["x"], template["y"], template["size"]
    if shape == "square":
        half = size / 2
        return [[x - half, y - half], [x + half, y - half], [x + half, y + half],
                [x - half, y + half]]
    angle = template.get("angle", 0)
    if shape == "cone":  # flat at its end, as wide there as it is long
        edge = size / math.cos(math.radians(CONE_HALF_ANGLE))
        return [[x, y], _turn(x, y, edge, angle - CONE_HALF_ANGLE),
                _turn(x, y, edge, angle + CONE_HALF_ANGLE)]
    if shape == "line":
        half = template.get("width", 1) / 2
        end = _turn(x, y, size, angle)
        return [_turn(x, y, half, angle - 90), _turn(*end, half, angle - 90),
                _turn(*end, half, angle + 90), _turn(x, y, half, angle + 90)]
    return []


def label_place(template: Mapping[str, Any], clearance: float) -> list[float]:
    """Where a template's size reads: a circle's or a square's middle (above its origin), a
    little beyond a cone's or a line's far end, clear of the figure at its origin."""
    x, y = template["x"], template["y"]
    if template["shape"] in ("cone", "line"):
        return _turn(x, y, template["size"] + clearance * 1.5, template.get("angle", 0))
    return [x, round(y - clearance * 1.4, 3)]
