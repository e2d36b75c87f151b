"""Scenes: a match keeps several places — each its own picture under the board, ground, fog
of war, drawings and figures — and the GM moves the table between them (issue 28).

``board["scenes"]`` lists them (``{"id", "name"}``; the one not shown keeps its parts under
``stash``: ``map_state.SCENE_PARTS``), ``board["scene"]`` names the one shown, and
``board["away"]`` the figures that wait in another one (``map_state._scene_shown``). A match
starts with one place and no list; adding the first other one names the place shown too.
The board's size and unit are the match's, the same in every scene (the figures keep their
places, which the rules read).

The other scenes are the GM's (``map_view``: a player's view keeps only the one shown, its
name and nothing of the others), so adding or renaming one is ``quiet`` (but naming the one
shown); moving the table is
everyone's, naming the scene it goes to — unless a figure hidden from the players on both
sides of the move goes along.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.rules import map_state, map_view
from app.rules.action_fields import require_gm, text_field
from app.rules.map_fields import MapRefused, board_of
from app.rules.match import Actor, Event, State, copy_state

NAME_MAX = 80
MAX_SCENES = 30


def _scene_board(state: State, actor: Actor, system_key: str) -> dict[str, Any]:
    require_gm(actor)
    board = board_of(state)
    if not map_view.keeps_secrets(system_key):
        raise MapRefused("no_secrets")
    return board


def scene_id(board: Mapping[str, Any], wanted: object) -> str:
    if not any(scene["id"] == wanted for scene in board.get("scenes") or ()):
        raise MapRefused("bad_field", field="scene", reason="?")
    return str(wanted)


def decide_add(state: State, action: Mapping[str, Any], actor: Actor,
               system_key: str) -> list[Event]:
    """A new scene (``name``); the first one also names the place shown now (``current``,
    else « the match's name »)."""
    board = _scene_board(state, actor, system_key)
    scenes = board.get("scenes") or []
    if len(scenes) >= MAX_SCENES:
        raise MapRefused("bad_field", field="name", reason=f"at most {MAX_SCENES} scenes",
                         reason_fr=f"au plus {MAX_SCENES} scènes")
    name = text_field(action, "name", NAME_MAX)
    events = []
    if not scenes:
        here = text_field(action, "current", NAME_MAX, required=False) \
            or str(state.get("name") or "")[:NAME_MAX] or "1"
        # the place shown is everyone's: its name shows above their board
        events.append(Event("scene_added", {"scene": {"id": "s1", "name": here},
                                            "current": True}))
        scenes = [{"id": "s1"}]
    taken = {scene["id"] for scene in scenes}
    number = len(taken) + 1
    while f"s{number}" in taken:
        number += 1
    events.append(Event("scene_added", {"scene": {"id": f"s{number}", "name": name}},
                        "quiet"))
    return events


def decide_rename(state: State, action: Mapping[str, Any], actor: Actor,
                  system_key: str) -> list[Event]:
    board = _scene_board(state, actor, system_key)
    wanted = scene_id(board, action.get("scene"))
    name = text_field(action, "name", NAME_MAX)
    shown = wanted == board.get("scene")  # the players see the name of the one shown
    return [Event("scene_renamed", {"scene": wanted, "name": name},
                  "public" if shown else "quiet")]


def decide_show(state: State, action: Mapping[str, Any], actor: Actor,
                system_key: str) -> list[Event]:
    """The table goes to another scene with the figures ``along`` (some of those in the
    scene it leaves); the others wait there."""
    board = _scene_board(state, actor, system_key)
    wanted = scene_id(board, action.get("scene"))
    if wanted == board.get("scene"):
        raise MapRefused("bad_field", field="scene", reason="the table is already there",
                         reason_fr="la table y est déjà")
    here = set(state.get("tokens") or ()) - set(board.get("away") or {})
    chosen = action.get("along") or []
    chosen = [chosen] if isinstance(chosen, str) else chosen
    if not isinstance(chosen, list) or any(token not in here for token in chosen):
        raise MapRefused("bad_field", field="along", reason="figures of this scene",
                         reason_fr="des figurines de cette scène")
    name = next(scene["name"] for scene in board["scenes"] if scene["id"] == wanted)
    payload = {"scene": wanted, "name": name, "along": sorted(chosen)}
    # Naming a figure the players see on one side of the move tells them nothing new.
    after = copy_state(state)
    map_state.evolve(after, "scene_shown", payload)
    hidden = map_view.hidden_figures(state, map_view.BYSTANDER) & \
        map_view.hidden_figures(after, map_view.BYSTANDER)
    secret = any(token in hidden for token in chosen)
    return [Event("scene_shown", payload, "gm" if secret else "public")]


def along_by_default(state: State) -> list[str]:
    """The figures that go with the table unless the GM says otherwise: those of the scene
    shown that someone plays."""
    board = state.get("board") or {}
    away = board.get("away") or {}
    return [token_id for token_id, token in (state.get("tokens") or {}).items()
            if token_id not in away and token.get("character_id") is not None]
