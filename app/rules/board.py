"""The board every game on a map shares: its size and unit, and the GM's terrain shapes.

State: ``state["board"] = {"unit", "width", "height", "terrain": [shape…]}``, each shape
``{"id", "label", "x", "y", "w", "h"}`` in the board's unit — what the match page draws
(``templates/matches/_board.html``) — and optionally ``"areas"``: circles a game marks on
the board (``{"x", "y", "r", "label"}``: the last grenade's blast), set with ``mark_area``,
``"marks"``: small things lying on it (``{"x", "y", "label"}``: Chasse's thrown javelins),
``"trails"``: lines of the latest moves (``{"x1", "y1", "x2", "y2"}``) and ``"north"``
(``top``, ``right``, ``bottom`` or ``left``: where a game's compass points).
A game adds the handlers below to its own ``decide`` and ``evolve`` tables and offers the
forms ``board/_terrain.html`` and ``board/_remove_terrain.html``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from app.rules.action_fields import int_field, require_gm, text_field
from app.rules.match import Actor, Event, IllegalAction, State
from app.rules.wording import number

UNITS = ("cm", "in", "sq")
LABEL_MAX = 80


# The board's units in words, singular and plural (the ruler says « cases », "squares").
_UNIT_WORDS = {"en": {"sq": ("square", "squares"), "cm": ("cm", "cm"), "in": ("in", "in")},
               "fr": {"sq": ("case", "cases"), "cm": ("cm", "cm"), "in": ("po", "po")}}


def board_distance(value: float, unit: str, lang: str, *, places: int = 1) -> str:
    """A distance on the board in words, to a tenth as the board's ruler measures it:
    « 1,5 case », « 4,5 cases », "2 squares" (``places``: more decimals when a tenth is too
    coarse to tell two distances apart)."""
    value = round(float(value), places)
    figure = number(value, lang, places=places)
    singular, plural = _UNIT_WORDS["fr" if lang == "fr" else "en"].get(unit, (unit, unit))
    one = value < 2 if lang == "fr" else value == 1
    return f"{figure} {singular if one else plural}"


class MoveTooFar(IllegalAction):
    """A move longer than the figure may still go this turn, said alike in every game: the
    distance asked and the distance left, in the board's unit (issue 23: « peut encore se
    déplacer de 10 cm » did not say how far the player had asked). ``length``: the straight
    line, when the ground made the path cost more (Chasse préhistorique)."""

    code = "too_far"
    templates_en: ClassVar[dict[str, str]] = {
        **IllegalAction.templates_en,
        "too_far": "{name} cannot go that far this turn: {asked} asked for, {allowed} left",
        "too_far_ground": "{name} cannot go that far this turn: the path asked for costs "
                          "{asked} ({length} straight, plus the ground), {allowed} left",
    }
    templates_fr: ClassVar[dict[str, str]] = {
        **IllegalAction.templates_fr,
        "too_far": "{name} ne peut pas aller si loin : le déplacement demandé fait {asked}, "
                   "il lui reste {allowed} ce tour",
        "too_far_ground": "{name} ne peut pas aller si loin : le trajet demandé coûte {asked} "
                          "({length} en ligne droite, plus le terrain), il lui reste "
                          "{allowed} ce tour",
    }

    def __init__(self, *, name: str, asked: float, allowed: float, unit: str,
                 length: float | None = None) -> None:
        fields: dict[str, Any] = {"name": name, "asked": round(asked, 2),
                                  "allowed": round(max(allowed, 0), 2), "unit": unit,
                                  "field": "x"}
        if length is not None and round(length, 2) < fields["asked"]:
            fields["length"] = round(length, 2)  # the ground made the path dearer
        super().__init__(**fields)

    def _render(self, templates: dict[str, str], lang: str) -> str:
        key = "too_far_ground" if "length" in self.fields else "too_far"
        return templates[key].format(**self._format_fields(lang))

    def _format_fields(self, lang: str) -> dict[str, Any]:
        fields = dict(self.fields)
        # A tenth, unless it would show the two distances alike (6,04 asked, 6 left).
        places = 1 if round(fields["asked"], 1) > round(fields["allowed"], 1) else 2
        for key in ("asked", "allowed", "length"):
            if key in fields:
                fields[key] = board_distance(fields[key], fields["unit"], lang, places=places)
        return fields


def new_board(options: Mapping[str, Any], *, unit: str, width: int, height: int) -> dict:
    """The board a match opens with: the creation form's options, else the game's own."""
    return {"unit": options.get("unit", unit), "width": int(options.get("width", width)),
            "height": int(options.get("height", height)), "terrain": []}


def decide_add_terrain(state: State, action: Mapping[str, Any], actor: Actor,
                       dice: Any = None) -> list[Event]:
    require_gm(actor)
    board = state["board"]
    shape = {"id": f"z{len(board['terrain']) + 1}",
             "label": text_field(action, "label", LABEL_MAX, required=False),
             "x": int_field(action, "x", 0, board["width"]),
             "y": int_field(action, "y", 0, board["height"]),
             "w": int_field(action, "w", 1, board["width"]),
             "h": int_field(action, "h", 1, board["height"])}
    existing = {terrain["id"] for terrain in board["terrain"]}
    while shape["id"] in existing:  # ids stay unique after removals
        shape["id"] += "'"
    return [Event("terrain_added", {"terrain": shape})]


def decide_remove_terrain(state: State, action: Mapping[str, Any], actor: Actor,
                          dice: Any = None) -> list[Event]:
    require_gm(actor)
    terrain_id = action.get("terrain")
    if terrain_id not in {shape["id"] for shape in state["board"]["terrain"]}:
        raise IllegalAction("bad_field", field="terrain", reason="?")
    return [Event("terrain_removed", {"terrain": terrain_id})]


def terrain_added(state: State, payload: dict) -> None:
    state["board"]["terrain"].append(payload["terrain"])


def terrain_removed(state: State, payload: dict) -> None:
    state["board"]["terrain"] = [shape for shape in state["board"]["terrain"]
                                 if shape["id"] != payload["terrain"]]


def mark_area(state: State, *, x: float, y: float, r: float, label: str) -> None:
    """Show a circle on the board (the latest replaces the previous one)."""
    state["board"]["areas"] = [{"x": x, "y": y, "r": r, "label": label}]


DECIDE = {"add_terrain": decide_add_terrain, "remove_terrain": decide_remove_terrain}
EVOLVE = {"terrain_added": terrain_added, "terrain_removed": terrain_removed}
