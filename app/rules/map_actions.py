"""The platform's map actions, judged into platform events whatever the game (issue 28).

They go through the same table engine as a game's actions (``tables.apply_action``: one
transaction, the stale-seq check, idempotency, the live stream), but are judged here instead
of by the game's ``decide``; their events are folded by ``app.rules.map_state``. Each refusal
names its field, in both languages.

| kind | who | what |
| --- | --- | --- |
| ``map_fog_reset`` | GM | ``base``: ``hidden`` covers the whole map, ``shown`` reveals it |
| ``map_fog`` | GM | ``op`` (``reveal``/``hide``) one ``shape``: ``rect`` (x, y, w, h), |
| | | ``circle`` (x, y, r), ``poly`` (points) or ``brush`` (points, r) |
| ``map_veil`` | GM | hide a figure from the players (``token``, ``hidden``), or show it again |
| ``map_draw`` | anyone playing | a drawing (``app.rules.map_drawings``) |
| ``map_template`` | anyone playing | an area template, snapped to the grid |
| ``map_erase`` | its author, the GM | a drawing (``drawing``), or all of them (``all``: the GM) |
| ``handout_withdraw`` | GM | a handout (``handout``) taken back (``app.rules.handouts``) |
| ``map_scene_add``, ``…_rename``, ``…_show`` | GM | scenes (``app.rules.map_scenes``) |

Fog, hidden figures and scenes are for the games whose figures may hide
(``map_view.FOG_GAMES``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from app.rules import handouts, map_drawings, map_scenes, map_view
from app.rules.action_fields import choice_field, flag, require_gm
from app.rules.map_fields import MapRefused, board_of, number_field, points_field
from app.rules.map_state import FOG_KINDS, FOG_OPS
from app.rules.match import ActionForm, Actor, Event, State
from app.rules.system import N_

MAX_FOG_SHAPES = 300
MAX_POLY_POINTS = 200
MAX_BRUSH_POINTS = 600


def _secrets_board(state: State, actor: Actor, system_key: str) -> dict[str, Any]:
    require_gm(actor)
    board = board_of(state)
    if not map_view.keeps_secrets(system_key):
        raise MapRefused("no_secrets")
    return board


# — the fog ———————————————————————————————————————————————————————————————————————————

def decide_fog_reset(state: State, action: Mapping[str, Any], actor: Actor,
                     system_key: str) -> list[Event]:
    _secrets_board(state, actor, system_key)
    base = choice_field(action, "base", ("hidden", "shown"))
    return [Event("fog_reset", {"base": base})]


def fog_shape(action: Mapping[str, Any], board: Mapping[str, Any]) -> dict[str, Any]:
    """One shape of the fog, checked against the board."""
    width, height = board["width"], board["height"]
    kind = choice_field(action, "shape", FOG_KINDS)
    shape: dict[str, Any] = {"op": choice_field(action, "op", FOG_OPS), "kind": kind}
    if kind in ("rect", "circle"):
        shape["x"] = number_field(action, "x", 0, width)
        shape["y"] = number_field(action, "y", 0, height)
    if kind == "rect":
        shape["w"] = number_field(action, "w", 0.01, width - shape["x"] or 0.01)
        shape["h"] = number_field(action, "h", 0.01, height - shape["y"] or 0.01)
    elif kind == "circle":
        shape["r"] = number_field(action, "r", 0.01, max(width, height))
    elif kind == "poly":
        shape["points"] = points_field(action, board, least=3, most=MAX_POLY_POINTS)
    else:
        shape["points"] = points_field(action, board, least=1, most=MAX_BRUSH_POINTS)
        shape["r"] = number_field(action, "r", 0.01, max(width, height) / 4)
    return shape


def decide_fog(state: State, action: Mapping[str, Any], actor: Actor,
               system_key: str) -> list[Event]:
    board = _secrets_board(state, actor, system_key)
    shapes = (board.get("fog") or {}).get("shapes") or []
    if len(shapes) >= MAX_FOG_SHAPES:
        raise MapRefused("too_many_shapes", n=len(shapes))
    return [Event("fog_drawn", {"shape": fog_shape(action, board)})]


# — hidden figures ————————————————————————————————————————————————————————————————————

def decide_veil(state: State, action: Mapping[str, Any], actor: Actor,
                system_key: str) -> list[Event]:
    """The GM hides a figure from the players, or shows it again. The event names it for
    everyone who saw it on one side of the change; hidden on both (a figure already in the
    fog), it is the GM's alone (``quiet``)."""
    board = _secrets_board(state, actor, system_key)
    tokens = state.get("tokens") or {}
    token_id = action.get("token")
    token = tokens.get(token_id) if isinstance(token_id, str) else None
    if token is None:
        raise MapRefused("unknown_participant", participant=str(token_id)[:40])
    hidden = flag(action, "hidden")
    if hidden == (token_id in (board.get("veiled") or ())):
        raise MapRefused("already_veiled" if hidden else "not_veiled", name=token["name"],
                         field="hidden")
    payload = {"token": token_id, "name": token["name"], "hidden": hidden}
    before = map_view.hidden_figures(state, map_view.BYSTANDER)
    after = map_view.hidden_figures(_with_veil(state, token_id, hidden), map_view.BYSTANDER)
    quiet = token_id in before and token_id in after
    return [Event("figure_veiled", payload, "quiet" if quiet else "public")]


def _with_veil(state: State, token_id: str, hidden: bool) -> State:
    board = dict(state["board"])
    veiled = [token for token in board.get("veiled") or () if token != token_id]
    board["veiled"] = [*veiled, token_id] if hidden else veiled
    return {**state, "board": board}


Decide = Callable[[State, Mapping[str, Any], Actor, str], list[Event]]
DECIDE: dict[str, Decide] = {
    "map_fog_reset": decide_fog_reset,
    "map_fog": decide_fog,
    "map_veil": decide_veil,
    "map_draw": map_drawings.decide_draw,
    "map_template": map_drawings.decide_template,
    "map_erase": map_drawings.decide_erase,
    "handout_withdraw": handouts.decide_withdraw,
    "map_scene_add": map_scenes.decide_add,
    "map_scene_rename": map_scenes.decide_rename,
    "map_scene_show": map_scenes.decide_show,
}
KINDS = frozenset(DECIDE)


def forms(state: State, actor: Actor, system_key: str) -> list[ActionForm]:
    """The map's forms this actor may use now (the table page's « Outils de carte »
    section, the API's ``legal_actions``)."""
    if actor.is_spectator:
        return []
    found: list[ActionForm] = []
    if actor.is_gm and state.get("handouts"):  # a game without a board hands out too
        found.append(ActionForm("handout_withdraw", N_("Take a handout back"),
                                "board/_withdraw.html",
                                {"handouts": [item["id"] for item in state["handouts"]]}))
    board = state.get("board")
    if not isinstance(board, dict) or state.get("status") == "finished":
        return found
    found += [
        ActionForm("map_draw", N_("Draw on the map"), "board/_draw.html",
                   {"shapes": list(map_drawings.DRAW_KINDS),
                    "colours": list(map_drawings.COLOURS)}),
        ActionForm("map_template", N_("Place an area template"), "board/_template.html",
                   {"shapes": list(map_drawings.TEMPLATE_SHAPES),
                    "colours": list(map_drawings.COLOURS),
                    "snap": list(map_drawings.SNAP.get(board.get("unit", "cm"),
                                                       map_drawings.SNAP["cm"]))})]
    if erasable := map_drawings.erasable(board, actor):
        found.append(ActionForm("map_erase", N_("Erase a drawing"), "board/_erase.html",
                                {"drawings": erasable, "all": actor.is_gm}))
    if actor.is_gm and map_view.keeps_secrets(system_key):
        found += [
            ActionForm("map_fog_reset", N_("Cover or reveal the whole map"),
                       "board/_fog_reset.html", {"bases": ["hidden", "shown"]}),
            ActionForm("map_fog", N_("Reveal or hide part of the map"), "board/_fog.html",
                       {"ops": list(FOG_OPS), "shapes": list(FOG_KINDS)}),
            ActionForm("map_veil", N_("Hide a figure from the players"), "board/_veil.html",
                       {"tokens": _ordered(state), "veiled": list(board.get("veiled") or ())})]
        found += _scene_forms(state, board)
    return found


def _scene_forms(state: State, board: Mapping[str, Any]) -> list[ActionForm]:
    """The GM's scenes: another place, a name, the table taken elsewhere."""
    scenes = board.get("scenes") or []
    forms = [ActionForm("map_scene_add", N_("Add a scene"), "board/_scene_add.html",
                        {"first": not scenes})]
    if len(scenes) > 1:
        away = board.get("away") or {}
        forms.append(ActionForm(
            "map_scene_show", N_("Take the table to another scene"), "board/_scene_show.html",
            {"scenes": [scene["id"] for scene in scenes if scene["id"] != board.get("scene")],
             "tokens": [tid for tid in _ordered(state) if tid not in away],
             "along": map_scenes.along_by_default(state)}))
    if scenes:
        forms.append(ActionForm("map_scene_rename", N_("Rename a scene"),
                                "board/_scene_rename.html",
                                {"scenes": [scene["id"] for scene in scenes]}))
    return forms


def tools(system_key: str, actor: Actor, state: State, *, writable: bool) -> dict[str, Any]:
    """The board's map tools this viewer gets on the table page's toolbar."""
    on_board = isinstance(state.get("board"), dict) and writable \
        and state.get("status") != "finished"
    playing = on_board and not actor.is_spectator
    board = state.get("board") or {}
    return {"fog": playing and actor.is_gm and map_view.keeps_secrets(system_key),
            "draw": playing, "template": playing, "erase": playing,
            # a signal is no action: spectators point too, and after the end (the replay's talk)
            "ping": isinstance(state.get("board"), dict),
            "snap": map_drawings.SNAP.get(board.get("unit", "cm"), map_drawings.SNAP["cm"])}


def _ordered(state: State) -> list[str]:
    """Every figure, in the turn order first."""
    tokens = state.get("tokens") or {}
    order = [tid for tid in state.get("order") or () if tid in tokens]
    return order + [tid for tid in tokens if tid not in order]


def is_map_action(action: Mapping[str, Any]) -> bool:
    return action.get("kind") in KINDS


def decide(state: State, action: Mapping[str, Any], actor: Actor,
           system_key: str) -> list[Event]:
    """The platform's events for a map action (``IllegalAction`` with the reason)."""
    if actor.is_spectator:
        raise MapRefused("spectator")
    if state.get("status") == "finished":
        raise MapRefused("match_over")
    return DECIDE[action["kind"]](state, action, actor, system_key)
