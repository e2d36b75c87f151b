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
  It also carries the action panel (an htmx out-of-band swap) when the forms this viewer may
  use changed, so a half-typed form is not wiped by someone else's roll;
* on connecting, a ``state`` message with the resume id, so a reconnected tab catches up
  with the state even when it missed no event.

A ``state`` message shares its id with a log line: resuming from that id re-sends neither.
Hidden events are redacted (``tables.redact``) before anything is rendered.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from app.errors import NotFound
from app.http.streams import FeedSource, Item
from app.i18n import set_locale
from app.models import Character, Match, Role
from app.rules.dice import RollRecord
from app.rules.match import CONTROL_KINDS, ActionForm, Actor, State
from app.services import matches, tables
from app.services.access import CampaignAccess
from app.services.match_feed import Viewer
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
    people = matches.names(db=db, user_ids=matches.people_in(events))
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
    return {"lines": log_lines(db, events), "system_key": match.system,
            "url": match_url(match.campaign_id, match.id), "seq": match.seq,
            "can_undo": access.is_gm and not access.campaign.archived,
            "gm_ids": matches.gm_ids(db=db, campaign_id=match.campaign_id),
            "csrf_token": csrf_token}


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


# Where a label sits, in token radii from the token's centre: its text's middle line.
LABEL_BELOW, LABEL_ABOVE = 1.9, -1.7
LABEL_HEIGHT, LABEL_CHAR_WIDTH = 1.0, 0.55  # the text's box, in radii (font: 0.95 radius)


def labels_above(state: State, labels: dict[str, str]) -> set[str]:
    """The tokens whose label goes above them: a label under a token that would touch one
    already placed (two figures side by side) moves up, so two names never overlap; when
    both places are taken, it stays under (the full name is in the tooltip)."""
    tokens = state.get("tokens") or {}
    radius = token_radius(state.get("board") or {})
    placed: list[tuple[float, float, float, float]] = []  # boxes: left, top, right, bottom
    above = set()
    for token_id in state.get("order") or list(tokens):
        token = tokens.get(token_id)
        if token is None:
            continue
        half = len(labels.get(token_id, "")) * LABEL_CHAR_WIDTH * radius / 2
        x, y = float(token.get("x") or 0), float(token.get("y") or 0)
        boxes = [(x - half, y + (offset - LABEL_HEIGHT / 2) * radius,
                  x + half, y + (offset + LABEL_HEIGHT / 2) * radius)
                 for offset in (LABEL_BELOW, LABEL_ABOVE)]
        free = [box for box in boxes if not any(_overlap(box, other) for other in placed)]
        chosen = free[0] if free else boxes[0]
        if chosen is boxes[1]:
            above.add(token_id)
        placed.append(chosen)
    return above


def _overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def token_looks(state: State, portraits: Iterable[int] = ()) -> dict[str, dict[str, Any]]:
    """How each token is drawn: its side's colour class, its short label and whether it
    goes above the token, its portrait's character id (when that character has one)."""
    tokens = state.get("tokens") or {}
    keys = {side_key(token) for token in tokens.values()}
    sides = sorted(key for key in keys if not key.startswith("gm"))
    colour = {side: f"side-{index % SIDE_COLOURS}" for index, side in enumerate(sides)}
    # The GM's creatures apart: grey, and dark shades of their own when they form groups.
    gm_groups = sorted(key for key in keys if key.startswith("gm-"))
    colour.update({key: f"side-gm side-gm-{index % 3}" for index, key in enumerate(gm_groups)})
    colour["gm"] = "side-gm"
    with_portrait = set(portraits)
    looks = {}
    for token_id, token in tokens.items():
        name = str(token.get("name") or token_id)
        short = short_label(name)
        character = token.get("character_id")
        looks[token_id] = {"side": colour[side_key(token)], "label": short,
                           "portrait": character if character in with_portrait else None}
    above = labels_above(state, {token_id: look["label"] for token_id, look in looks.items()})
    for token_id in above:
        looks[token_id]["above"] = True
    return looks


def state_context(state: State, *, system_key: str, seq: int,
                  movable: Iterable[str] = (), portraits: Iterable[int] = (),
                  campaign_id: int | None = None) -> dict[str, Any]:
    board = state.get("board") or {}
    return {"state": state, "seq": seq, "movable": set(movable), "system_key": system_key,
            "scale": BOARD_SCALE.get(board.get("unit", "cm"), BOARD_SCALE["cm"]),
            "radius": token_radius(board),
            "current": (state.get("tokens") or {}).get(state.get("turn") or ""),
            "looks": token_looks(state, portraits), "campaign_id": campaign_id}


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
    """The forms a viewer may use now, each with a fresh idempotency key."""

    forms: list[ActionForm]
    movable: list[str]
    can_redo: bool
    signature: str
    my_turn: bool = False  # a player's own participant is the one to act


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


def build_panel(db: Session, match: Match, access: CampaignAccess, actor: Actor,
                state: State) -> Panel:
    system = tables.system_of(match)
    writable = not access.campaign.archived
    forms = system.legal_actions(state, actor) if writable else []
    can_redo = writable and access.is_gm and matches.can_redo(db=db, match=match)
    names = sorted((tid, token.get("name")) for tid, token in (state.get("tokens") or {}).items())
    terrain = [shape.get("id") for shape in (state.get("board") or {}).get("terrain", [])]
    current = whose_turn(state)
    # a form may say the table awaits this player outside any turn (``awaited`` in its
    # choices: Mecha-Ring's reaction window)
    my_turn = bool(forms) and not actor.is_gm and (
        (current is not None and actor.controls(current))
        or any(form.choices.get("awaited") for form in forms))
    signature = json.dumps([[form.kind, form.choices] for form in forms] + [can_redo, names,
                                                                             terrain, my_turn],
                           sort_keys=True, default=str)
    return Panel(forms, movable_tokens(forms), can_redo, signature, my_turn)


def panel_context(match: Match, access: CampaignAccess, state: State, panel: Panel, *,
                  csrf_token: str, error: ActionError | None = None) -> dict[str, Any]:
    items = [{"form": form, "template": action_template(form),
              "key": secrets.token_urlsafe(16),
              "error": error.message if error and error.kind == form.kind else None,
              "error_field": error.field if error and error.kind == form.kind else None,
              "values": error.values if error and error.kind == form.kind else {}}
             for form in panel.forms]
    unplaced = error if error and error.kind not in {form.kind for form in panel.forms} \
        else None
    return {"items": items, "state": state, "seq": match.seq, "can_redo": panel.can_redo,
            "my_turn": panel.my_turn,
            "is_gm": access.is_gm, "is_spectator": access.role is Role.SPECTATOR,
            "archived": access.campaign.archived, "finished": match.status == "finished",
            "url": match_url(match.campaign_id, match.id), "error": unplaced,
            "csrf_token": csrf_token}


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

    @classmethod
    def load(cls, db: Session, access: CampaignAccess, match: Match) -> TableView:
        actor = tables.actor_for(db, access)
        state = tables.viewer_state(match, actor)
        return cls(match, access, actor, state, build_panel(db, match, access, actor, state),
                   portrait_ids(db, match.campaign_id))

    def state_context(self) -> dict[str, Any]:
        return state_context(self.state, system_key=self.match.system, seq=self.match.seq,
                             movable=self.panel.movable, portraits=self.portraits,
                             campaign_id=self.match.campaign_id)

    def panel_context(self, *, csrf_token: str,
                      error: ActionError | None = None) -> dict[str, Any]:
        return panel_context(self.match, self.access, self.state, self.panel,
                             csrf_token=csrf_token, error=error)

    def log_context(self, db: Session, *, csrf_token: str,
                    upto: int | None = None) -> dict[str, Any]:
        events = matches.log_events(db=db, match=self.match, actor=self.actor, upto=upto)
        return log_context(db, self.match, self.access, events, csrf_token=csrf_token)

    def page_context(self, db: Session, *, csrf_token: str,
                     error: ActionError | None = None) -> dict[str, Any]:
        return {"match": self.match, "campaign": self.access.campaign, "access": self.access,
                "url": match_url(self.match.campaign_id, self.match.id),
                "uses_board": tables.system_of(self.match).uses_board,
                **self.log_context(db, csrf_token=csrf_token), **self.state_context(),
                **self.panel_context(csrf_token=csrf_token, error=error)}


# — the live stream ————————————————————————————————————————————————————————————

class MatchStream(FeedSource):
    """One viewer's stream of a match (the scheme is in the module docstring).

    The new events and the members' roles come from the match's shared feed
    (``app.services.match_feed``): a role changed since connecting ends the stream (a GM
    made player must stop receiving GM-only lines; the browser reconnects with its new
    role). Each batch is then rendered for this viewer with a session of its own, since the
    stream outlives the request that opened it.
    """

    def __init__(self, *, viewer: Viewer, sessionmaker: Callable[[], Session],
                 campaign_id: int, locale: str, csrf_token: str) -> None:
        super().__init__(viewer)
        self.sessionmaker = sessionmaker
        self.campaign_id, self.match_id = campaign_id, viewer.match_id
        self.user_id = viewer.actor.user_id
        self.locale, self.csrf_token = locale, csrf_token
        self._connected = False
        self._signature: str | None = None

    async def items_after(self, after: int, *, fresh: bool) -> list[Item] | None:
        batch = await self.viewer.read(after, fresh=fresh)
        if batch is None:
            return None
        if self._connected and not batch.after(after):
            return []
        return await run_in_threadpool(self._render, after)

    def _render(self, after: int) -> list[Item]:
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
                items.append(Item(last, "state", self._state_html(view, after)))
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

    def _state_html(self, view: TableView, after: int) -> str:
        context = view.state_context()
        html = fragment("matches/_state.html", context)
        html += fragment("matches/_board_slot.html", {**context, "oob": True})
        # On connecting, the page's own panel is current unless the tab missed events.
        changed = view.panel.signature != self._signature
        if changed and (self._signature is not None or after < view.match.seq):
            html += fragment("matches/_actions.html",
                             {**view.panel_context(csrf_token=self.csrf_token), "oob": True})
        self._signature = view.panel.signature
        return html
