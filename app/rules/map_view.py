"""What a viewer may see of the platform's map: the fog of war, hidden figures, the GM's own
drawings, the other scenes and the handouts not meant for them (issue 28).

The platform applies this after every game's own ``view`` (``view`` below; the table engine's
``tables.viewer_state``, the replay, the stale-seq answer and the import's seat checks all go
through it), so a game needs nothing to hide a figure: what a player may not see is not in
their state at all — not in the page, not in the API, and the panel's forms, read from that
state, offer no hidden target.

- A **figure** is hidden from a player who does not play it when the GM veiled it
  (``board.veiled``), when it stands in hidden ground (the fog: as in a dark corridor, a
  companion who walks out of the light is lost to the others' sight) or when it waits in
  another scene (``board.away``). Who plays it always sees it.
- The **ground** under the fog loses what lies there: terrain that shows nowhere, areas,
  marks and trails whose place is hidden. The fog's own shapes stay (the page draws the fog
  from them: they say where nothing can be seen, never what is there).
- A **drawing** for the GM only is the GM's and its author's; the other **scenes** (their
  names and what they keep) are the GM's.
- A **handout** is read by its recipients (``user_ids``; ``None``: everyone) and the GM.

A game's events are judged by the same measure when they are written
(``event_visibility``): one that names a hidden figure or piece of ground becomes the GM's
(« the GM did something in secret »), or its player's and the GM's when the actor hides only
their own figure; so the raw stream never carries them either. A player's action that names
a hidden figure is refused as one naming nobody (``refuse_hidden``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from app.rules.map_drawings import seen_by
from app.rules.map_state import fog_active, fogged, rect_fogged
from app.rules.match import ActionForm, Actor, Event, EventVisibility, IllegalAction, State
from app.rules.outcome import Outcome, outcome_of

# The games whose figures the GM may hide (fog of war, veiled figures, scenes): free play,
# Cyborg Anti-Alien's dark corridors and camouflaged aliens, Chasse préhistorique's prey in
# the woods (docs/games/*.md say how each uses it). Mutatior's arena is played in front of a
# crowd; Tiamat and Mecha-Ring have no board.
FOG_GAMES = frozenset({"libre", "cyborg", "chasse"})
VEILS = ("veiled", "away", "fog")


def keeps_secrets(system_key: str) -> bool:
    return system_key in FOG_GAMES


def _board(state: Mapping[str, Any]) -> dict[str, Any]:
    board = state.get("board")
    return board if isinstance(board, dict) else {}


def _tokens(state: Mapping[str, Any]) -> dict[str, Any]:
    tokens = state.get("tokens")
    return tokens if isinstance(tokens, dict) else {}


def figure_veil(board: Mapping[str, Any], token_id: str, token: Mapping[str, Any]) -> str | None:
    """Why the players may not see a figure: ``veiled`` by the GM, ``away`` in another
    scene, under the ``fog``; None when nothing hides it."""
    if token_id in (board.get("veiled") or ()):
        return "veiled"
    if token_id in (board.get("away") or {}):
        return "away"
    if fogged(board.get("fog"), token.get("x"), token.get("y")):
        return "fog"
    return None


def veils(state: Mapping[str, Any]) -> dict[str, str]:
    """Every figure something hides, with why (the GM's board dims them)."""
    board = _board(state)
    if not (board.get("veiled") or board.get("away") or fog_active(board.get("fog"))):
        return {}
    found = {}
    for token_id, token in _tokens(state).items():
        if isinstance(token, dict) and (why := figure_veil(board, token_id, token)):
            found[token_id] = why
    return found


def hidden_figures(state: Mapping[str, Any], viewer: Actor) -> set[str]:
    """The figures ``viewer`` may not see: none for the GM; for the others, those something
    hides that they do not play."""
    if viewer.is_gm:
        return set()
    tokens = _tokens(state)
    return {token_id for token_id in veils(state) if not viewer.controls(tokens[token_id])}


def hidden_ground(board: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The terrain the fog covers whole."""
    fog = board.get("fog")
    if not fog_active(fog):
        return []
    return [shape for shape in board.get("terrain") or () if isinstance(shape, dict)
            and rect_fogged(fog, shape.get("x", 0), shape.get("y", 0), shape.get("w", 0),
                            shape.get("h", 0))]


def telling(state: Mapping[str, Any], viewer: Actor, *, names: bool = True) -> frozenset[str]:
    """The ids that would tell ``viewer`` of something hidden from them — hidden figures,
    hidden ground — and with ``names`` their names that no visible figure shares (an event
    naming one is kept from them; a state keeps a name where the game put it elsewhere, as
    Chasse's sides are named after their hunters, whom every player knows)."""
    figures = hidden_figures(state, viewer)
    words = set(figures)
    ground = hidden_ground(_board(state))
    words |= {shape.get("id") for shape in ground}
    if names:
        tokens = _tokens(state)
        shown_names = {token.get("name") for token_id, token in tokens.items()
                       if token_id not in figures and isinstance(token, dict)}
        words |= {tokens[token_id].get("name") for token_id in figures} - shown_names
        words |= {shape.get("label") for shape in ground}
    return frozenset(word for word in words if isinstance(word, str) and word)


# — the viewer's state ———————————————————————————————————————————————————————————————

def view(system: Any, state: State, viewer: Actor) -> State:
    """The game's ``view``, then the platform's: what ``viewer`` may see of a match."""
    return platform_view(system.view(state, viewer), viewer)


def platform_view(state: State, viewer: Actor) -> State:
    if viewer.is_gm or not isinstance(state, dict):
        return state
    if state.get("handouts"):  # none at all when none is theirs: not even an empty list
        readable = [item for item in state["handouts"] if reads_handout(item, viewer)]
        state = {key: value for key, value in state.items() if key != "handouts"}
        if readable:
            state["handouts"] = readable
    board = _board(state)
    if not board or not _board_keeps_secrets(board):
        return state
    figures = hidden_figures(state, viewer)
    gone = telling(state, viewer, names=False) \
        if figures or fog_active(board.get("fog")) else frozenset()
    shown: State = {}
    for key, value in state.items():
        if key == "tokens" and isinstance(value, dict):
            shown[key] = {tid: token for tid, token in value.items() if tid not in figures}
        elif key == "board":
            shown[key] = _board_for(board, figures, viewer)
        elif key == "handouts" or not gone:
            shown[key] = value
        else:
            shown[key] = _scrub(value, gone)
    return shown


def picture_version(background: Mapping[str, Any], fog: Any) -> str:
    """A short name for a picture under the board as the fog leaves it (its address changes
    when either does, so a browser fetches it again then only)."""
    seen = json.dumps([background, fog if fog_active(fog) else None], sort_keys=True)
    return hashlib.sha256(seen.encode()).hexdigest()[:16]


def reads_handout(handout: Mapping[str, Any], viewer: Actor) -> bool:
    readers = handout.get("user_ids")
    return viewer.is_gm or readers is None or viewer.user_id in readers


def _board_keeps_secrets(board: Mapping[str, Any]) -> bool:
    return bool(board.get("veiled") or board.get("away") or board.get("scenes")
                or fog_active(board.get("fog"))
                or any(drawing.get("gm_only") for drawing in board.get("drawings") or ()))


def _board_for(board: Mapping[str, Any], figures: set[str], viewer: Actor) -> dict[str, Any]:
    """The board as a player sees it (``platform_view``)."""
    fog = board.get("fog")
    shown = dict(board)
    if fog_active(fog):
        covered = {id(shape) for shape in hidden_ground(board)}
        shown["terrain"] = [shape for shape in board.get("terrain") or ()
                            if id(shape) not in covered]
        for key in ("areas", "marks"):
            if key in board:
                shown[key] = [item for item in board[key] or ()
                              if not fogged(fog, item.get("x"), item.get("y"))]
        if "trails" in board:
            shown["trails"] = [line for line in board["trails"] or ()
                               if not fogged(fog, line.get("x1"), line.get("y1"))
                               and not fogged(fog, line.get("x2"), line.get("y2"))]
    if "drawings" in board:
        shown["drawings"] = [drawing for drawing in board["drawings"]
                             if seen_by(drawing, viewer)]
    for key, kept in (("veiled", [token for token in board.get("veiled") or ()
                                  if token not in figures]),
                      ("away", {token: scene for token, scene in (board.get("away") or {}).items()
                                if token not in figures})):
        if kept:
            shown[key] = kept
        else:
            shown.pop(key, None)
    if board.get("scenes"):  # the other places are the GM's until the group goes there
        shown["scenes"] = [{"id": scene["id"], "name": scene["name"]}
                           for scene in board["scenes"] if scene["id"] == board.get("scene")]
    return shown


_DROP = object()


def _scrub(value: Any, gone: frozenset[str]) -> Any:
    """``value`` without what names something hidden: a key or a list item that is a hidden
    id or name goes, as does a record (``id`` or ``token``) of one; a field that names one
    reads None."""
    if isinstance(value, dict):
        kept = {}
        for key, item in value.items():
            if key in gone:
                continue
            if isinstance(item, str):
                kept[key] = None if item in gone else item
            else:
                kept[key] = _scrub(item, gone)
        return kept
    if isinstance(value, list):
        return [_scrub(item, gone) for item in value if not _names_hidden(item, gone)]
    return value


def _names_hidden(item: Any, gone: frozenset[str]) -> bool:
    if isinstance(item, str):
        return item in gone
    return isinstance(item, dict) and any(
        isinstance(item.get(key), str) and item[key] in gone for key in ("id", "token"))


def forms_for(forms: list[ActionForm], state: State, viewer: Actor) -> list[ActionForm]:
    """The forms the rules offer ``viewer`` (judged on the whole state), without a choice
    that names something hidden from them: a target list never tells of a hidden figure."""
    gone = telling(state, viewer, names=False) if keeps_secrets_now(state) else frozenset()
    if not gone:
        return forms
    return [replace(form, choices=_scrub(dict(form.choices), gone)) for form in forms]


def outcome_for(system: Any, state: State, viewer: Actor) -> Outcome | None:
    """How the match stands, judged on the whole table (a player's view missing the GM's
    hidden figures would read a fight as decided), its winners a player may not see left
    out."""
    judged = outcome_of(system, state)
    if judged is None or viewer.is_gm:
        return judged
    gone = telling(state, viewer)
    if not gone:
        return judged
    return replace(judged, winners=tuple(name for name in judged.winners if name not in gone))


# — events and actions ————————————————————————————————————————————————————————————————

BYSTANDER = Actor(user_id=None)  # a player who plays nothing: sees only what is open to all


def _holds(value: Any, words: frozenset[str]) -> bool:
    if isinstance(value, str):
        return value in words
    if isinstance(value, dict):
        return any(key in words or _holds(item, words) for key, item in value.items())
    if isinstance(value, list):
        return any(_holds(item, words) for item in value)
    return False


def keeps_secrets_now(state: Any) -> bool:
    """Whether the board hides anything now (the cheap test before judging events)."""
    return isinstance(state, dict) and _board_keeps_secrets(_board(state))


def secrets_in(state: State, actor: Actor) -> tuple[frozenset[str], frozenset[str]]:
    """What the open table (a bystander) and ``actor`` may not be told about ``state``."""
    if not _board(state) or not _board_keeps_secrets(_board(state)):
        return frozenset(), frozenset()
    return telling(state, BYSTANDER), telling(state, actor)


def event_visibility(event: Event, before: tuple[frozenset[str], frozenset[str]],
                     after: tuple[frozenset[str], frozenset[str]],
                     actor: Actor) -> EventVisibility:
    """How far a game's event may go, given what is hidden just before and after it
    (``secrets_in``): as the game wrote it, unless it names something hidden — then the GM's
    alone, or its actor's and the GM's when what it names is hidden from the others only."""
    if event.visibility == "gm":
        return "gm"
    from_actor = before[1] | after[1]
    if not actor.is_gm and _holds(event.payload, from_actor):
        return "gm"
    if _holds(event.payload, before[0] | after[0]):
        if actor.is_gm:
            return "quiet" if event.visibility == "quiet" else "gm"
        return "quiet" if event.visibility == "quiet" else "self"
    return event.visibility


def refuse_hidden(state: State, action: Mapping[str, Any], actor: Actor) -> None:
    """A player naming a figure hidden from them is answered as if it were nobody's (the
    games' own words for an id that names no one)."""
    figures = hidden_figures(state, actor)
    if not figures:
        return
    for value in _strings(action.values()):
        if value in figures:
            raise IllegalAction("unknown_participant", participant=value[:40])


def _strings(values: Iterable[Any]) -> Iterable[str]:
    for value in values:
        if isinstance(value, str):
            yield value
        elif isinstance(value, list):
            yield from (item for item in value if isinstance(item, str))
