"""What one viewer sees of a match, as HTML fragments: log lines, the state panel, the forms.

The match page renders these fragments inside itself; the live stream (``MatchStream``)
renders the same fragments for each new event, outside any request, for one viewer.

The live stream's scheme (one stream per browser tab, ``GET …/matches/{id}/stream``):

* every SSE message's ``id`` is an event ``seq``, and ids never go down, so a browser that
  reconnects with ``Last-Event-ID: N`` receives exactly the events after N, once;
* each new event is one message: ``log`` (its line, appended to the log), or ``logreset``
  for an undo/redo (the whole log again, since older lines became struck through or not);
* after each batch of events, one ``state`` message carrying the same id as the batch's last
  event: the participants, the initiative, the turn and the board, rendered for this viewer.
  It also carries the action panel (an htmx out-of-band swap) when what this viewer's panel
  is drawn from changed (``panel_tag``), so a half-typed form is not wiped by someone else's
  roll; its id names that panel (``41.3fa0…``), so a tab that reconnects is sent the panel
  again only when the one it holds is no longer current;
* on connecting, a ``state`` message with the resume id, so a reconnected tab catches up
  with the state even when it missed no event.

A ``state`` message shares its id with a log line: resuming from that id re-sends neither.
Hidden events are redacted (``tables.redact``) before anything is rendered.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
import secrets
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import bindparam, inspect, select
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from app.db import run_db
from app.errors import NotFound
from app.http.streams import FeedSource, Item
from app.i18n import get_locale, gettext, set_locale
from app.models import Campaign, Character, Match, MatchEvent, Membership, Role, User
from app.rules import map_actions, map_drawings, map_view
from app.rules.board import board_distance
from app.rules.dice import RollRecord
from app.rules.match import CONTROL_KINDS, ActionForm, Actor, State, seated_characters
from app.rules.outcome import Outcome, outcome_of
from app.rules.registry import get_system
from app.rules.system import N_, GameSystem
from app.services import matches, tables
from app.services.access import CampaignAccess
from app.services.match_feed import Batch, Viewer
from app.web import board_tokens
from app.web.templating import templates

GENERIC_ACTION = "matches/_generic_action.html"
# Token sizes and grid spacing in the board's own unit (a 30 mm base, a one-inch base…).
BOARD_SCALE = {"cm": {"radius": 1.5, "grid": 10}, "in": {"radius": 0.6, "grid": 1},
               "sq": {"radius": 0.4, "grid": 1}}


def match_url(campaign_id: int, match_id: int) -> str:
    return f"/campaigns/{campaign_id}/matches/{match_id}"


def fragment(name: str, context: dict[str, Any]) -> str:
    """Render a partial outside a request (the live stream has none), blank lines dropped."""
    html = templates.env.get_template(name).render(context)
    return "\n".join(line for line in html.splitlines() if line.strip())


# — the log ——————————————————————————————————————————————————————————————————

@dataclass(frozen=True)
class LogLine:
    """One event as a viewer reads it: the (redacted) event, its rolls, who did it."""

    event: dict[str, Any]
    rolls: list[RollRecord]
    who: str | None
    secret_by: str | None = None

    @property
    def undoable(self) -> bool:
        return self.event["kind"] not in CONTROL_KINDS | {"hidden"} \
            and not self.event["reverted"]


def log_lines(db: Session, events: list[dict[str, Any]]) -> list[LogLine]:
    return named_lines(events, matches.names(db=db, user_ids=matches.people_in(events)))


def named_lines(events: list[dict[str, Any]], people: Mapping[int, str]) -> list[LogLine]:
    """``log_lines`` with the names already read (``people``: everyone the events name)."""
    lines = []
    for event in events:
        payload = event["payload"]
        records = [RollRecord.from_dict(record) for record in payload.get("rolls") or ()] \
            if event["kind"] != "hidden" else []
        secret_by = people.get(payload.get("by")) if event["kind"] == "hidden" else None
        lines.append(LogLine(event, records, people.get(event["actor_id"]), secret_by))
    return lines


def log_context(db: Session, match: Match, access: CampaignAccess,
                events: list[dict[str, Any]], *, csrf_token: str) -> dict[str, Any]:
    return lines_context(match, access, log_lines(db, events),
                         matches.gm_ids(db=db, campaign_id=match.campaign_id),
                         csrf_token=csrf_token)


def lines_context(match: Match, access: CampaignAccess, lines: list[LogLine],
                  gm_ids: Iterable[int], *, csrf_token: str,
                  undo: bool = True) -> dict[str, Any]:
    """``log_context`` with its reads done (the live stream reads once for every viewer).
    ``undo=False``: no « Undo to here » whoever reads (the stream adds a GM's own)."""
    return {"lines": lines, "system_key": match.system,
            "url": match_url(match.campaign_id, match.id), "seq": match.seq,
            "can_undo": undo and can_undo(access), "gm_ids": set(gm_ids),
            # the table's journal is one Tab stop; its controls are reached by the arrows
            "journal_keys": True, "csrf_token": csrf_token}


def can_undo(access: CampaignAccess) -> bool:
    """The log's lines carry « Undo to here » (a form with the viewer's CSRF token)."""
    return access.is_gm and not access.campaign.archived


# — the state panel and the board ————————————————————————————————————————————

# Token colours: one per side (a team, else a player), the GM's creatures apart.
SIDE_COLOURS = 6
LABEL_CHARS = 12  # a token's label on the board; the full name is in its tooltip
# Small linking words a cut label must not end on (« Ourk le… » reads as a stray article).
LINKING_WORDS = frozenset(("le", "la", "les", "l'", "de", "des", "du", "d'", "et", "au", "aux",
                           "à", "en", "un", "une", "sur", "dans",
                           "the", "of", "and", "a", "an", "in", "on"))


def side_key(token: dict[str, Any]) -> str:
    """The side a token plays for: its team (Mutatior), else its player; ``gm`` for the
    GM's creatures (no owner)."""
    team = token.get("team")
    if isinstance(team, str) and team and team != "gm":
        return f"team-{team}"
    owner = token.get("owner_id")
    if owner is not None:
        return f"owner-{owner}"
    group = token.get("group")  # Cyborg: the GM's aliens and humans, told apart
    return f"gm-{group}" if isinstance(group, str) and group else "gm"


def short_label(name: str) -> str:
    """A name that fits under a token, cut between words: a screen reader's user hears the
    full name, and the visible words must be part of it (WCAG 2.5.3, label in name)."""
    if len(name) <= LABEL_CHARS:
        return name
    words, kept = name.split(), []
    for word in words:
        if len(" ".join([*kept, word])) > LABEL_CHARS - 1:
            break
        kept.append(word)
    while len(kept) > 1 and kept[-1].lower() in LINKING_WORDS:
        kept.pop()
    return " ".join(kept or words[:1]) + "…"


def token_radius(board: dict[str, Any]) -> float:
    """A token's radius in board units, as ``_board_svg.html`` draws it and its labels are
    placed (the game's base, never smaller than a sixtieth of the board)."""
    scale = BOARD_SCALE.get(board.get("unit", "cm"), BOARD_SCALE["cm"])
    return max(scale["radius"], float(board.get("width") or 0) / 60)


def token_looks(state: State, portraits: Iterable[int] = (), *, system_key: str = "libre",
                actor: Actor | None = None,
                movable: Iterable[str] = ()) -> dict[str, dict[str, Any]]:
    """How each token is drawn: its side's colour class, its full name and a short label for
    a crowded board (board.js places them clear of each other), its portrait's character id
    (when that character has one) or a figure drawn for it, its health and states, how far
    it may still move, and — for a viewer's own token that cannot move now — why."""
    tokens = state.get("tokens") or {}
    keys = {side_key(token) for token in tokens.values()}
    sides = sorted(key for key in keys if not key.startswith("gm"))
    colour = {side: f"side-{index % SIDE_COLOURS}" for index, side in enumerate(sides)}
    # The GM's creatures apart: grey, and dark shades of their own when they form groups.
    gm_groups = sorted(key for key in keys if key.startswith("gm-"))
    colour.update({key: f"side-gm side-gm-{index % 3}" for index, key in enumerate(gm_groups)})
    colour["gm"] = "side-gm"
    with_portrait = set(portraits)
    moving = set(movable)
    looks = {}
    for token_id, token in tokens.items():
        name = str(token.get("name") or token_id)
        character = token.get("character_id")
        portrait = character if character in with_portrait else None
        health = board_tokens.vitals(system_key, state, {"id": token_id, **token})
        still = None
        if actor is not None and token_id not in moving and not actor.is_spectator \
                and actor.controls(token):
            still = board_tokens.why_still(system_key, state, {"id": token_id, **token},
                                           health.condition)
        looks[token_id] = {
            "side": colour[side_key(token)], "label": short_label(name),
            "portrait": portrait,
            "figure": None if portrait else board_tokens.figure(system_key, token),
            "vitals": health, "reach": board_tokens.reach(system_key, state,
                                                          {"id": token_id, **token}),
            "still": still}
    return looks


def state_context(state: State, *, system_key: str, seq: int,
                  movable: Iterable[str] = (), portraits: Iterable[int] = (),
                  campaign_id: int | None = None, actor: Actor | None = None,
                  replay_url: str | None = None, outcome: Outcome | bool | None = False,
                  map_url: str | None = None, handouts_url: str | None = None,
                  readers: Mapping[int, str] | None = None) -> dict[str, Any]:
    """What ``matches/_state.html`` reads. ``replay_url``: where a finished match's result
    links to (the table page; the replay itself passes none). ``outcome``: judged on the
    whole table (``map_view.outcome_for``); by default, on ``state``. ``map_url``: where
    this viewer's picture under the board is (the fog painted on it for a player);
    ``handouts_url`` where each handout opens, ``readers`` the names of who they go to."""
    board = state.get("board") or {}
    if outcome is False:
        outcome = outcome_of(get_system(system_key), state)
    return {"state": state, "seq": seq, "movable": set(movable), "system_key": system_key,
            "outcome": outcome, "replay_url": replay_url, "map_url": map_url,
            "veils": map_view.veils(state), "gm_view": bool(actor and actor.is_gm),
            "drawings": drawings_shown(board, actor),
            "handouts_url": handouts_url, "readers": readers or {},
            "scale": BOARD_SCALE.get(board.get("unit", "cm"), BOARD_SCALE["cm"]),
            "radius": token_radius(board),
            "current": (state.get("tokens") or {}).get(state.get("turn") or ""),
            "looks": token_looks(state, portraits, system_key=system_key, actor=actor,
                                 movable=movable),
            "ruler": board_tokens.ruler(board, BOARD_SCALE.get(
                board.get("unit", "cm"), BOARD_SCALE["cm"])["grid"]),
            "campaign_id": campaign_id}


COLOUR_WORDS = {"red": N_("red"), "blue": N_("blue"), "green": N_("green"),
                "orange": N_("orange"), "black": N_("black"), "white": N_("white")}


def drawings_shown(board: Mapping[str, Any], actor: Actor | None) -> list[dict[str, Any]]:
    """The board's drawings as ``matches/_map_svg.html`` draws them: a template's corners
    and its measurement, each in words (its tooltip and the board's list), and whether this
    viewer may erase it."""
    unit = board.get("unit", "cm")
    lang = get_locale()

    def far(value: float) -> str:
        return board_distance(value, unit, lang)

    shown = []
    for drawing in board.get("drawings") or ():
        item = dict(drawing)
        kind = drawing.get("kind")
        colour = gettext(COLOUR_WORDS.get(drawing.get("colour"), "red"))
        if kind == "template":
            item["corners"] = map_drawings.outline(drawing)
            item["label_at"] = map_drawings.label_place(drawing, token_radius(board))
            item["label"] = gettext(TEMPLATE_WORDS[drawing["shape"]], size=far(drawing["size"]))
            item["words"] = gettext("%(label)s from %(x)s, %(y)s (%(colour)s)",
                                    label=item["label"], x=_n(drawing["x"]),
                                    y=_n(drawing["y"]), colour=colour)
        else:
            item["words"] = _drawing_words(drawing, colour)
        item["erasable"] = actor is not None and not actor.is_spectator and (
            actor.is_gm or drawing.get("by") == actor.user_id)
        shown.append(item)
    return shown


TEMPLATE_WORDS = {"circle": N_("radius %(size)s"), "cone": N_("cone %(size)s"),
                  "line": N_("line %(size)s"), "square": N_("square %(size)s")}


def _n(value: float) -> str:
    return f"{value:g}"


def _drawing_words(drawing: Mapping[str, Any], colour: str) -> str:
    kind = drawing.get("kind")
    if kind == "line":
        (x1, y1), (x2, y2) = drawing["points"]
        return gettext("Line from %(x1)s, %(y1)s to %(x2)s, %(y2)s (%(colour)s)",
                       x1=_n(x1), y1=_n(y1), x2=_n(x2), y2=_n(y2), colour=colour)
    if kind == "rect":
        return gettext("Rectangle at %(x)s, %(y)s, %(w)s × %(h)s (%(colour)s)",
                       x=_n(drawing["x"]), y=_n(drawing["y"]), w=_n(drawing["w"]),
                       h=_n(drawing["h"]), colour=colour)
    if kind == "circle":
        return gettext("Circle at %(x)s, %(y)s, radius %(r)s (%(colour)s)",
                       x=_n(drawing["x"]), y=_n(drawing["y"]), r=_n(drawing["r"]),
                       colour=colour)
    if kind == "text":
        return gettext("Text « %(text)s » at %(x)s, %(y)s", text=drawing["text"],
                       x=_n(drawing["x"]), y=_n(drawing["y"]))
    x, y = drawing["points"][0]
    return gettext("Freehand drawing from %(x)s, %(y)s (%(colour)s)", x=_n(x), y=_n(y),
                   colour=colour)


def map_picture_url(url: str, state: State, step: int | None = None) -> str | None:
    """Where the viewer's picture under the board is: the match's own address, named by
    what the picture and the fog are now (a browser fetches it again only when they change;
    a player's has the fog painted on it, ``app.services.map_pictures``)."""
    board = state.get("board") or {}
    background = board.get("background")
    if not background:
        return None
    version = map_view.picture_version(background, board.get("fog"))
    at = f"&step={step}" if step is not None else ""
    return f"{url}/map?v={version}{at}"


def portrait_ids(db: Session, campaign_id: int) -> set[int]:
    """The campaign's characters that have a portrait (drawn on their tokens)."""
    rows = db.scalars(select(Character.id).where(Character.campaign_id == campaign_id,
                                                 Character.portrait_id.is_not(None)))
    return set(rows)


def movable_tokens(forms: list[ActionForm]) -> list[str]:
    """Tokens this viewer may drag: those the ``move`` form offers them."""
    for form in forms:
        if form.kind == "move":
            return list(form.choices.get("tokens", []))
    return []


# — the action panel ———————————————————————————————————————————————————————————

def action_template(form: ActionForm) -> str:
    """``"libre/_roll.html"`` → ``systems/libre/actions/_roll.html``."""
    if not form.template:
        return GENERIC_ACTION
    system_key, _, name = form.template.partition("/")
    return f"systems/{system_key}/actions/{name}"


@dataclass(frozen=True)
class ActionError:
    """A refused action: which form, why, and what was typed (kept in the form)."""

    kind: str
    message: str
    values: dict[str, str] = field(default_factory=dict)
    field: str | None = None  # the form field it is about, when the rules named one


@dataclass(frozen=True)
class Panel:
    """The forms a viewer may use now, each with a fresh idempotency key, and where each goes:
    ``now`` (pinned at the top: the decision the table awaits from this viewer), the GM's
    own tools (folded in one section), the rest in the rules' order."""

    forms: list[ActionForm]
    movable: list[str]
    can_redo: bool
    my_turn: bool = False  # a player's own participant is the one to act
    now: frozenset[str] = frozenset()
    gm_tools: frozenset[str] = frozenset()
    outcome: Outcome | None = None  # who won, said at the top of the panel

    def section(self, form: ActionForm) -> str:
        if form.kind.startswith("handout_"):
            return "handouts"
        if form.kind in map_actions.KINDS:
            return "map"
        if form.kind in self.now:
            return "now"
        return "gm" if form.kind in self.gm_tools else "main"


def whose_turn(state: State) -> Mapping[str, Any] | None:
    """The participant whose turn it is, for games that keep one in ``state["turn"]`` (a
    token or a participant id); None for the others."""
    turn = state.get("turn")
    if not isinstance(turn, str):
        return None
    for pool in ("tokens", "participants"):
        found = (state.get(pool) or {}).get(turn)
        if isinstance(found, Mapping):
            return found
    return None


# Who the rules are asked about to sort a panel: nobody's user (ids start at 1).
PROBE_USER = 0


def gm_tool_kinds(system: GameSystem, state: State, forms: list[ActionForm]) -> frozenset[str]:
    """The GM's forms that the rules would offer no player, even one seated with every
    character of the match: the tools of running the table (corrections, modifiers,
    adding figures, ending the match…), folded in one section of the GM's panel. Those the
    rules list ahead of anything a player could do are the table's next step (Mecha-Ring's
    « Fermer la fenêtre de réaction », Tiamat's initiative for a new round): they stay."""
    everyone = Actor(user_id=PROBE_USER, character_ids=seated_characters(state))
    offered = {form.kind for form in system.legal_actions(state, everyone)}
    leading = set()
    for form in forms:
        if form.kind in offered:
            break
        leading.add(form.kind)
    return frozenset(form.kind for form in forms
                     if form.kind not in offered and form.kind not in leading)


def now_kinds(system: GameSystem, state: State, forms: list[ActionForm],
              turn: bool) -> frozenset[str]:
    """The forms pinned at the top: those a decision awaits (``awaited`` in their choices:
    Mecha-Ring's reaction window); else, on this viewer's turn, those that come with it —
    all but what anyone at the table may always do (a note, a free roll) and the settings a
    player makes once for the fight (``setting`` in their choices: a standing defence, standing
    orders)."""
    awaited = frozenset(form.kind for form in forms if form.choices.get("awaited"))
    if awaited or not turn:
        return awaited
    bystander = Actor(user_id=PROBE_USER)
    always = {form.kind for form in system.legal_actions(state, bystander)}
    return frozenset(form.kind for form in forms
                     if form.kind not in always and not form.choices.get("setting"))


def build_panel(db: Session | None, match: Match, access: CampaignAccess, actor: Actor,
                state: State, *, redo: bool | None = None) -> Panel:
    """``redo``: whether the last event is an undo, when the caller has read it (the live
    stream, once for every viewer); else it is read with ``db``."""
    system = tables.system_of(match)
    writable = not access.campaign.archived
    forms = map_view.forms_for(system.legal_actions(state, actor), match.state, actor) \
        if writable else []
    game_forms = forms
    # The platform's map tools (app/rules/map_actions.py), in a section of their own.
    forms = forms + (map_actions.forms(state, actor, system.key) if writable else [])
    can_redo = writable and access.is_gm and (
        redo if redo is not None else matches.can_redo(db=db, match=match))
    current = whose_turn(state)
    # a form may say the table awaits this player outside any turn (``awaited`` in its
    # choices: Mecha-Ring's reaction window)
    # A GM's own turn too: the participant is theirs (Mecha-Ring's host seating a team).
    my_turn = bool(forms) and (
        current is not None and current.get("owner_id") == actor.user_id if actor.is_gm
        else (current is not None and actor.controls(current))
        or any(form.choices.get("awaited") for form in forms))
    gm_tools = gm_tool_kinds(system, state, game_forms) if game_forms and actor.is_gm \
        else frozenset()
    # the GM's own turn: a participant no player owns (a creature, the henchmen)
    gm_turn = actor.is_gm and current is not None and current.get("owner_id") is None
    playing = [form for form in game_forms if form.kind not in gm_tools]
    now = now_kinds(system, state, playing, my_turn or gm_turn) if playing else frozenset()
    # Who won, said in the panel too (issue 23: « a finished fight shows its winner »): a
    # board keeps the state panel below the first screen, a phone behind another tab.
    outcome = map_view.outcome_for(system, match.state, actor)
    return Panel(forms, movable_tokens(forms), can_redo, my_turn, now, gm_tools, outcome)


def panel_context(match: Match, access: CampaignAccess, state: State, panel: Panel, *,
                  csrf_token: str, error: ActionError | None = None,
                  tag: str | None = None) -> dict[str, Any]:
    """What ``matches/_actions.html`` is drawn from (``tag``: its ``panel_tag`` when the
    caller has it)."""
    odds_kinds = getattr(get_system(match.system), "odds_kinds", ())  # docs/odds.md
    items = [{"form": form, "template": action_template(form), "section": panel.section(form),
              "odds": form.kind in odds_kinds,
              "key": secrets.token_urlsafe(16),
              "error": error.message if error and error.kind == form.kind else None,
              "error_field": error.field if error and error.kind == form.kind else None,
              "values": error.values if error and error.kind == form.kind else {}}
             for form in panel.forms]
    unplaced = error if error and error.kind not in {form.kind for form in panel.forms} \
        else None
    return {"items": items, "state": state, "seq": match.seq, "can_redo": panel.can_redo,
            # the erase form names the drawings as the board's list does
            "drawing_words": {item["id"]: item["words"] for item in drawings_shown(
                state.get("board") or {}, None)}
            if "map_erase" in {form.kind for form in panel.forms} else {},
            "my_turn": panel.my_turn, "pinned": bool(panel.now),
            "is_gm": access.is_gm, "is_spectator": access.role is Role.SPECTATOR,
            "archived": access.campaign.archived, "finished": match.status == "finished",
            "url": match_url(match.campaign_id, match.id), "error": unplaced,
            "panel_outcome": panel.outcome, "csrf_token": csrf_token,
            # the panel says which it is (``data-basis``): a tab opening a new stream names it
            "panel_tag": tag or panel_tag(match, access, panel, csrf_token=csrf_token,
                                          error=error, state_text=panel_state_text(state))}


# What the action panel (``matches/_actions.html`` and the forms it includes) reads of the
# state; the rest of its context is the panel context's. A roll or a note moves none of it:
# the panel, then, is not rendered again nor sent — not even to a tab back from a dropped
# connection (tests/test_panel_basis.py renders every game's panels from this much alone).
PANEL_STATE_KEYS = ("board", "bodies", "catalogue", "category_t", "content", "fight", "handouts",
                    "name", "owners_choose", "participants", "placed", "profiles", "round",
                    "scenario", "team_order", "teams", "tokens", "window")


# Keys of the state a panel's template asked for and ``PANEL_STATE_KEYS`` leaves out: such a
# read gets nothing from the stream's panel (and the tag does not follow it), a bug the
# suite fails on (tests/conftest.py checks this set after each test).
PANEL_MISSES: set[str] = set()


class PanelState(dict):
    """``panel_state``'s mapping: a read of a key outside ``PANEL_STATE_KEYS`` (a template's
    ``state.key`` or ``state.get("key")``) is noted in ``PANEL_MISSES``, then answers as a
    missing key does."""

    def __missing__(self, key: str) -> Any:
        if key not in PANEL_STATE_KEYS:
            PANEL_MISSES.add(key)
        raise KeyError(key)

    def get(self, key: str, default: Any = None) -> Any:
        if key not in self and key not in PANEL_STATE_KEYS:
            PANEL_MISSES.add(key)
        return super().get(key, default)


def panel_state(state: State) -> dict[str, Any]:
    """What the panel reads of a viewer's state (``PANEL_STATE_KEYS``)."""
    return PanelState({key: state[key] for key in PANEL_STATE_KEYS if key in state})


def panel_state_text(state: State) -> str | None:
    """``panel_state`` written out (``_key``): the part of a ``panel_tag`` that viewers who
    see the state alike share. None when it cannot be written out."""
    key = _key("panel-state", panel_state(state))
    return key and key[1]


def panel_tag(match: Match, access: CampaignAccess, panel: Panel, *, csrf_token: str,
              error: ActionError | None = None, state_text: str | None) -> str | None:
    """A short name for the action panel ``panel_context`` draws from these arguments, the
    same whenever all it is made from is: the forms and where each goes (``panel``), what
    the panel reads of the state (``state_text``, from ``panel_state_text``), the viewer's
    role, the CSRF token, the locale, the match's status and address — all but ``seq``
    (board.js keeps the forms' seq inputs at the state's, ``syncSeqInputs``) and the forms'
    idempotency keys (fresh in each render; a tab's unused keys stay good). The page stream
    writes it after its ``state`` messages' ids, so a tab that reconnects says which panel
    it holds. None when something cannot be written out (the panel is then always sent)."""
    # the Panel's fields, written out by hand: ``_written``'s walk would cost each viewer as
    # much again on every event
    forms = [[form.kind, form.label, form.template, form.choices] for form in panel.forms]
    key = _key("panel", get_locale(), match.system, match.campaign_id, match.id, match.status,
               access.is_gm, access.role, access.campaign.archived, forms, panel.movable,
               panel.can_redo, panel.my_turn, sorted(panel.now), sorted(panel.gm_tools),
               panel.outcome, csrf_token, error)
    if key is None or state_text is None:
        return None
    return _digest(f"{key[1]}{state_text}")


def _digest(text: str) -> str:
    """A tag's short name for what ``text`` writes out in full."""
    return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()


def panel_html(context: Mapping[str, Any]) -> str:
    """The action panel, sent out of band (it replaces ``#action-panel``), drawn from what
    ``panel_state`` keeps of the state only."""
    return fragment("matches/_actions.html",
                    {**context, "oob": True, "state": panel_state(context["state"])})


# — everything a viewer sees now ————————————————————————————————————————————————

@dataclass
class TableView:
    """The match as one member sees it at ``match.seq``."""

    match: Match
    access: CampaignAccess
    actor: Actor
    state: State
    panel: Panel
    portraits: set[int] = field(default_factory=set)
    # who a handout goes to, by name (the GM's list says it)
    readers: dict[int, str] = field(default_factory=dict)

    @classmethod
    def load(cls, db: Session, access: CampaignAccess, match: Match) -> TableView:
        actor = tables.actor_for(db, access)
        state = tables.viewer_state(match, actor)
        readers = matches.names(db=db, user_ids={
            user_id for item in state.get("handouts") or () for user_id in
            item.get("user_ids") or ()}) if actor.is_gm and state.get("handouts") else {}
        return cls(match, access, actor, state, build_panel(db, match, access, actor, state),
                   portrait_ids(db, match.campaign_id), readers)

    def state_context(self) -> dict[str, Any]:
        url = match_url(self.match.campaign_id, self.match.id)
        return state_context(self.state, system_key=self.match.system, seq=self.match.seq,
                             movable=self.panel.movable, portraits=self.portraits,
                             campaign_id=self.match.campaign_id, actor=self.actor,
                             replay_url=url + "/replay",
                             outcome=map_view.outcome_for(tables.system_of(self.match),
                                                          self.match.state, self.actor),
                             map_url=map_picture_url(url, self.state),
                             handouts_url=url + "/handouts", readers=self.readers)

    def panel_context(self, *, csrf_token: str, error: ActionError | None = None,
                      tag: str | None = None) -> dict[str, Any]:
        return panel_context(self.match, self.access, self.state, self.panel,
                             csrf_token=csrf_token, error=error, tag=tag)

    def panel_tag(self, *, csrf_token: str, state_text: str | None) -> str | None:
        return panel_tag(self.match, self.access, self.panel, csrf_token=csrf_token,
                         state_text=state_text)

    def log_context(self, db: Session, *, csrf_token: str,
                    upto: int | None = None) -> dict[str, Any]:
        events = matches.log_events(db=db, match=self.match, actor=self.actor, upto=upto)
        return log_context(db, self.match, self.access, events, csrf_token=csrf_token)

    def page_context(self, db: Session, *, csrf_token: str,
                     error: ActionError | None = None) -> dict[str, Any]:
        state = self.state_context()
        return {"match": self.match, "campaign": self.access.campaign, "access": self.access,
                "url": match_url(self.match.campaign_id, self.match.id),
                "uses_board": tables.system_of(self.match).uses_board,
                **self.log_context(db, csrf_token=csrf_token), **state,
                "board_tag": board_tag(board_key(state)),
                **self.panel_context(csrf_token=csrf_token, error=error)}


# — the live stream ————————————————————————————————————————————————————————————

@dataclass(frozen=True)
class Seat:
    """A member as the page stream renders for them: their role, the characters they own."""

    role: Role
    characters: frozenset[int]


@dataclass(frozen=True)
class TablePage:
    """The match as every page stream of it renders one batch, read once for all of them
    (one session, one ``run_db``) instead of once per viewer. The snapshot, the events
    after ``lo`` (a page at most) and the members are read together, so a role changed
    before an event is seen with that event. ``match`` and ``campaign`` are detached and
    shared: read them, never write them."""

    campaign: Campaign
    match: Match
    events: tuple[dict[str, Any], ...]  # whole: each stream redacts for its viewer
    seats: Mapping[int, Seat]  # members whose account is not disabled
    names: Mapping[int, str]  # everyone the events, the members and the handouts name
    portraits: frozenset[int]
    can_redo: bool

    @property
    def gm_ids(self) -> frozenset[int]:
        return frozenset(user_id for user_id, seat in self.seats.items()
                         if seat.role is Role.GM)


def _columns(model: type) -> list[Any]:
    return [prop.columns[0].label(prop.key) for prop in inspect(model).column_attrs]


# The page's reads, built once, run on the session's connection (Core): the campaign and the
# match are made into plain transient objects, never to be written (as
# ``access.read_member_session`` does); the events stay rows.
_PAGE_CAMPAIGN = select(*_columns(Campaign)).where(Campaign.id == bindparam("campaign_id"),
                                                   Campaign.importing.is_(False))
_PAGE_MATCH = select(*_columns(Match)).where(Match.id == bindparam("match_id"),
                                             Match.campaign_id == bindparam("campaign_id"))
_PAGE_EVENTS = (select(MatchEvent.__table__)
                .where(MatchEvent.match_id == bindparam("match_id"),
                       MatchEvent.seq > bindparam("lo"),
                       # not past the snapshot read just before (PostgreSQL reads each
                       # statement afresh): the state sent after the lines is theirs
                       MatchEvent.seq <= bindparam("seq"))
                .order_by(MatchEvent.seq).limit(tables.LOG_PAGE))
_SEATS = (select(Membership.user_id, Membership.role, User.display_name)
          .join(User, User.id == Membership.user_id)
          .where(Membership.campaign_id == bindparam("campaign_id"),
                 User.disabled_at.is_(None)))
# who owns which character, and which have a portrait, in one read
_CHARACTERS = select(Character.id, Character.owner_id, Character.portrait_id.is_not(None)).where(
    Character.campaign_id == bindparam("campaign_id"))


def read_page(sessionmaker: Callable[[], Session], campaign_id: int, match_id: int,
              lo: int) -> TablePage | None:
    """The ``TablePage`` after event ``lo``; None when the match (or campaign) is gone."""
    ids = {"campaign_id": campaign_id, "match_id": match_id}
    with sessionmaker() as db:
        connection = db.connection()
        found = connection.execute(_PAGE_CAMPAIGN, ids).mappings().first()
        row = connection.execute(_PAGE_MATCH, ids).mappings().first()
        if found is None or row is None:
            return None
        campaign, match = Campaign(**found), Match(**row)
        events = tuple(tables.event_dict(event) for event in connection.execute(
            _PAGE_EVENTS, {**ids, "lo": lo, "seq": match.seq}))  # type: ignore[arg-type]
        roles, names = {}, {}
        for user_id, role, name in connection.execute(_SEATS, ids):
            roles[user_id], names[user_id] = role, name
        owned: dict[int, set[int]] = {}
        portraits = set()
        for character, owner, portrait in connection.execute(_CHARACTERS, ids):
            if owner is not None:
                owned.setdefault(owner, set()).add(character)
            if portrait:
                portraits.add(character)
        readers = {user_id for item in match.state.get("handouts") or ()
                   for user_id in item.get("user_ids") or ()}
        # former members named by a line or a handout (the members' names came with them)
        names |= matches.names(db=db, user_ids=(matches.people_in(events) | readers) - set(names))
        # redo is possible right after an undo: the last event, read already when it is here
        can_redo = events[-1]["kind"] == "rewind" if events and events[-1]["seq"] == match.seq \
            else matches.can_redo(db=db, match=match)
    seats = {user_id: Seat(role, frozenset(owned.get(user_id, ())))
             for user_id, role in roles.items()}
    return TablePage(campaign, match, events, seats, names, frozenset(portraits), can_redo)


class _Clock:
    """``server_now`` for one render, noting whether the render read it: a fragment that
    shows the time (Mecha-Ring's turn timer) is the moment's own."""

    def __init__(self) -> None:
        self.read = False

    def __call__(self) -> Any:
        self.read = True
        return templates.env.globals["server_now"]()


@dataclass(frozen=True)
class StateHtml:
    """The state panel (``matches/_state.html``) as rendered ``at`` (monotonic seconds).
    ``lasting``: the render did not read the clock, so it holds for as long as its context
    does; one that did is lent to another batch's stream (``Viewer.remember``) only within
    the second it was made."""

    html: str
    lasting: bool
    at: float

    @classmethod
    def render(cls, context: dict[str, Any]) -> StateHtml:
        clock = _Clock()
        html = fragment("matches/_state.html", {**context, "server_now": clock})
        return cls(html, not clock.read, time.monotonic())


# What the board (``matches/_board_slot.html`` and what it includes) reads of the state; the
# rest of its context is the state context's. A roll, a note or a counter moves none of it:
# the board, the costliest fragment of the page (its SVG), is then not drawn again nor sent
# (tests/test_board_basis.py renders every game's boards from this much of the state alone).
BOARD_STATE_KEYS = ("board", "order", "round", "tokens", "turn")


def board_basis(context: Mapping[str, Any]) -> dict[str, Any]:
    """All the board is made from: the state context without ``seq`` (the board shows none)
    and with only the state's ``BOARD_STATE_KEYS``."""
    state = context["state"]
    return {**{key: value for key, value in context.items() if key not in ("state", "seq")},
            "state": {key: state[key] for key in BOARD_STATE_KEYS if key in state}}


def board_html(context: Mapping[str, Any]) -> str:
    """The board, sent out of band (it replaces ``#board-slot``'s content)."""
    return fragment("matches/_board_slot.html", {**board_basis(context), "oob": True})


def board_key(context: Mapping[str, Any]) -> tuple[Any, ...] | None:
    """What ``board_html(context)`` is drawn from, written out (``_key``)."""
    return _key("board", get_locale(), board_basis(context))


def board_tag(key: tuple[Any, ...] | None) -> str | None:
    """A short name for the board drawn from ``key`` (``board_key``): written after the
    ``state`` messages' ids beside the panel's, so a tab back from a dropped connection
    says which board it holds, and is not sent it again when it is the one drawn now."""
    return key and _digest(key[1])


# A viewer with more new events than this (a tab back after a while) is rendered in the
# thread pool; fewer, in the event loop, where a render shared with others is made once.
INLINE_EVENTS = 4


class MatchStream(FeedSource):
    """One viewer's stream of a match (the scheme is in the module docstring).

    The new events and the members' roles come from the match's shared feed
    (``app.services.match_feed``): a role changed since connecting ends the stream (a GM
    made player must stop receiving GM-only lines; the browser reconnects with its new
    role). What the page streams of a match render a batch from is read once for all of
    them (``TablePage``); each fragment that viewers see alike — a log line as their role
    sees it, a state panel whose whole context is the same — is rendered once and shared
    (``_shared``), the way the API stream shares its JSON. The action panel is each
    viewer's own (their forms, their CSRF token, fresh idempotency keys), sent only when
    what it is drawn from changed since the panel the tab holds (``panel_tag``: each
    ``state`` message's id names it, so a tab back from a dropped connection says which it
    has; ``panel``, the one it named). The board likewise: sent when what it is drawn from
    changed since the one the tab holds (``board_tag``, named after the panel's in the id;
    ``board``). An undo resends the whole log, read for this viewer with a session of its
    own (``_render``).
    """

    def __init__(self, *, viewer: Viewer, sessionmaker: Callable[[], Session],
                 campaign_id: int, locale: str, csrf_token: str, panel: str | None = None,
                 board: str | None = None, resumed: bool = False) -> None:
        super().__init__(viewer)
        self.sessionmaker = sessionmaker
        self.campaign_id, self.match_id = campaign_id, viewer.match_id
        self.user_id = viewer.actor.user_id
        self.locale, self.csrf_token = locale, csrf_token
        self._connected = False
        self._panel = panel  # the tag of the panel the tab holds; None: not known
        # a page's first connection without a tag: its own panel is current if it missed
        # no event (a page from before the tags)
        self._page_panel = not resumed
        self._board_held = board  # the tag of the board the tab holds; None: not known

    async def items_after(self, after: int, *, fresh: bool) -> list[Item] | None:
        batch = await self.viewer.read(after, fresh=fresh)
        if batch is None:
            return None
        if self._connected and not batch.after(after):
            return []
        page = await self._page(batch)
        if page is None:  # deleted meanwhile: nothing more will come
            return []
        news = [event for event in page.events if event["seq"] > after]
        if any(event["kind"] in CONTROL_KINDS for event in news):
            return await run_in_threadpool(self._render, after)
        if len(news) > INLINE_EVENTS:
            return await run_in_threadpool(self._page_items, batch, page, after, news)
        return self._page_items(batch, page, after, news)

    def _page(self, batch: Batch) -> Awaitable[TablePage | None]:
        """The batch's ``TablePage``, read by the first page stream to ask (shielded: one
        stream leaving must not cancel the others' read)."""
        read = batch.once((TablePage,), lambda: asyncio.ensure_future(run_db(
            self.sessionmaker, read_page, self.sessionmaker, self.campaign_id, self.match_id,
            batch.lo)))
        return asyncio.shield(read)

    def _page_items(self, batch: Batch, page: TablePage, after: int,
                    news: list[dict[str, Any]]) -> list[Item] | None:
        set_locale(self.locale)
        seat = page.seats.get(self.user_id)
        if seat is None or seat.role is not self.viewer.role:
            return None  # gone, disabled, or another role: the browser reconnects
        view = self._view(page, seat)
        events = [tables.redact(event, view.actor) for event in news
                  if tables.exists_for(event, view.actor)]
        items = [self._line(batch, page, view, event) for event in events]
        first = not self._connected
        self._connected = True
        if events or first:
            last = events[-1]["seq"] if events else after
            items.append(self._state_item(batch, view, last, after))
        if news and news[-1]["seq"] > (events[-1]["seq"] if events else after):
            # events that do not exist for this viewer: move past them, send nothing
            items.append(Item(news[-1]["seq"], "", ""))
        return items

    def _view(self, page: TablePage, seat: Seat) -> TableView:
        """``TableView.load`` from the shared page: no read of its own."""
        access = CampaignAccess(campaign=page.campaign, user=User(id=self.user_id),
                                membership=Membership(campaign_id=self.campaign_id,
                                                      user_id=self.user_id, role=seat.role))
        actor = Actor(user_id=self.user_id, is_gm=seat.role is Role.GM,
                      is_spectator=seat.role is Role.SPECTATOR, character_ids=seat.characters)
        state = tables.viewer_state(page.match, actor)
        readers = {user_id: page.names[user_id] for item in state.get("handouts") or ()
                   for user_id in item.get("user_ids") or ()
                   if user_id in page.names} if actor.is_gm else {}
        panel = build_panel(None, page.match, access, actor, state, redo=page.can_redo)
        return TableView(page.match, access, actor, state, panel, set(page.portraits),
                         readers)

    def _line(self, batch: Batch, page: TablePage, view: TableView,
              event: dict[str, Any]) -> Item:
        """The event's log line, rendered once for every viewer who sees the event alike
        (whole or redacted); a GM's copy gets their « Undo to here » form (it carries their
        CSRF token), added to the shared line rather than rendering it again."""
        payload = event["payload"]
        key = _key("log", self.locale, page.match.system, event, sorted(page.gm_ids),
                   page.names.get(event["actor_id"]), page.names.get(payload.get("by")))

        def line() -> Item:
            lines = named_lines([event], page.names)
            context = lines_context(page.match, view.access, lines, page.gm_ids,
                                    csrf_token="", undo=False)
            return Item(event["seq"], "log", fragment("matches/_log_lines.html", context))

        shared = self.viewer.remember(batch, key, line)
        if not (can_undo(view.access) and LogLine(event, [], None).undoable):
            return shared
        undo = fragment("matches/_log_undo.html", {
            "event": event, "url": match_url(page.match.campaign_id, page.match.id),
            "seq": page.match.seq, "csrf_token": self.csrf_token, "journal_keys": True})
        body, end = shared.data.rsplit("</li>", 1)
        return Item(shared.id, "log", f"{body}{undo}\n</li>{end}")

    def _state_item(self, batch: Batch, view: TableView, last: int, after: int) -> Item:
        """The state panel and the board, shared by every viewer of the same role whose
        whole context is the same; then this viewer's action panel when it changed."""
        context = view.state_context()
        key = _key("state", self.locale, view.access.role, context)
        made = self.viewer.remember(batch, key, lambda: StateHtml.render(context))
        if not made.lasting and made.at < time.monotonic() - 1:
            made = StateHtml.render(context)  # lent from an earlier batch: a second later
        board = self._board(batch, context)
        html = made.html + board
        # what the panel reads of the state, written out once for the viewers who see it alike
        state_text = self.viewer.remember(batch, key and ("panel-state", *key),
                                          lambda: panel_state_text(view.state))
        tag = view.panel_tag(csrf_token=self.csrf_token, state_text=state_text)
        if self._panel_news(tag, after, view.match.seq):
            panel = view.panel_context(csrf_token=self.csrf_token, tag=tag)
            return Item(last, "state", html + panel_html(panel), _tags(tag, self._board_held))
        tags = _tags(tag, self._board_held)
        return self.viewer.remember(batch, key and (*key, last, bool(board), tags),
                                    lambda: Item(last, "state", html, tags))

    def _panel_news(self, tag: str | None, after: int, seq: int) -> bool:
        """Whether the ``state`` message carries the panel named ``tag``: only when it is
        not the one the tab holds already (the tab holds it afterwards)."""
        held = self._panel
        if held is None and self._page_panel and after >= seq:
            held = tag  # the page's own, drawn at the seq it connects from
        self._page_panel = False
        self._panel = tag
        return tag is None or tag != held

    def _board(self, batch: Batch, context: dict[str, Any]) -> str:
        """The board when it is not the one the tab holds (``board_tag``: the tab may hold
        a board drawn for another role, or before the events it missed); else nothing, and
        the tab keeps its own."""
        key = board_key(context)
        tag = board_tag(key)
        if tag is not None and tag == self._board_held:
            return ""
        self._board_held = tag
        return self.viewer.remember(batch, key, lambda: board_html(context))

    def _render(self, after: int) -> list[Item]:
        """Everything after ``after`` read and rendered for this viewer alone: when an undo
        or a redo resends the whole log, as this viewer may read it."""
        set_locale(self.locale)
        with self.sessionmaker() as db:
            access = matches.reload_access(db=db, campaign_id=self.campaign_id,
                                           user_id=self.user_id)
            if access is None:
                return []
            try:
                match = tables.get_match(db, access, self.match_id)
            except NotFound:  # deleted meanwhile: nothing more will come
                return []
            view = TableView.load(db, access, match)
            rows = [row for row in tables.rows_after(db, match, after_seq=after)
                    if row.seq <= match.seq]
            events = [tables.redact(tables.event_dict(row), view.actor) for row in rows
                      if tables.exists_for(row, view.actor)]
            items = [self._event_item(db, view, event) for event in events]
            first = not self._connected
            self._connected = True
            if events or first:
                last = events[-1]["seq"] if events else after
                items.append(self._state_item_alone(view, last, after))
            if rows and rows[-1].seq > (events[-1]["seq"] if events else after):
                # events that do not exist for this viewer: move past them, send nothing
                items.append(Item(rows[-1].seq, "", ""))
            return items

    def _event_item(self, db: Session, view: TableView, event: dict[str, Any]) -> Item:
        if event["kind"] in CONTROL_KINDS:
            context = view.log_context(db, csrf_token=self.csrf_token, upto=event["seq"])
            return Item(event["seq"], "logreset", fragment("matches/_log_lines.html", context))
        context = log_context(db, view.match, view.access, [event],
                              csrf_token=self.csrf_token)
        return Item(event["seq"], "log", fragment("matches/_log_lines.html", context))

    def _state_item_alone(self, view: TableView, last: int, after: int) -> Item:
        context = view.state_context()
        html = fragment("matches/_state.html", context) + board_html(context)
        self._board_held = board_tag(board_key(context))
        tag = view.panel_tag(csrf_token=self.csrf_token,
                             state_text=panel_state_text(view.state))
        if self._panel_news(tag, after, view.match.seq):
            html += panel_html(view.panel_context(csrf_token=self.csrf_token, tag=tag))
        return Item(last, "state", html, _tags(tag, self._board_held))


def _tags(panel: str | None, board: str | None) -> str:
    """``Item.tag`` of a ``state`` message: the panel's and the board's, ``3fa0….9b1c…``
    (either may be empty: not known)."""
    return f"{panel or ''}.{board or ''}" if panel or board else ""


def _key(*parts: Any) -> tuple[Any, ...] | None:
    """A render's key: what it is made from, written out in full (JSON, sets sorted,
    dataclasses field by field). Two renders with equal keys are equal — that is what makes
    sharing them safe. None (not shared) when a part cannot be written out."""
    try:
        return (parts[0], json.dumps(parts[1:], sort_keys=True, separators=(",", ":"),
                                     default=_written))
    except (TypeError, ValueError):
        return None


def _written(value: Any) -> Any:
    if isinstance(value, set | frozenset):
        return {"set": sorted(json.dumps(item, sort_keys=True, default=_written)
                              for item in value)}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {"dataclass": type(value).__qualname__,
                "fields": {each.name: getattr(value, each.name)
                           for each in dataclasses.fields(value)}}
    raise TypeError(f"{type(value).__name__} is not written out in a render's key")
