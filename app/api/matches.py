"""API: matches — create, read (as the caller may see it), the log, actions, undo, live stream.

Every action goes through ``app.services.tables`` in one transaction (DESIGN.md § The one
flow). Send the ``seq`` you were looking at: if the table moved on, the answer is 409 with
the current ``seq`` and ``state`` in ``error.details``. An ``Idempotency-Key`` header makes a
retried POST apply once: the same key and payload answer the first response again
(``replayed``), the same key with another payload answers 422 ``idempotency_key_reused``. A
refusal by the rules is a 422 whose message gives the reason in the caller's language.
"""

from __future__ import annotations

import copy
import json
from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import Body, Header, Path, Query, Request
from pydantic import Field, ValidationError, field_validator
from pydantic_core import PydanticCustomError
from starlette.responses import Response

from app.api.campaigns import MAX_ID, NAME_INPUT_MAX
from app.api.schemas import Model, error_responses, text
from app.db import write_transaction
from app.errors import NotAuthenticated
from app.http import json_body
from app.http.deps import (
    CurrentUser,
    DbSession,
    IdParam,
    MemberAccess,
    SettingsDep,
    TableDice,
    adopt_viewer,
    api_router,
    dice_for,
    known_viewer,
    load_member_viewer,
    verify_csrf,
)
from app.http.deps import Viewer as RequestViewer
from app.http.lean_route import lean_route, path_id
from app.http.streams import (
    EventStreamResponse,
    FeedSource,
    Item,
    event_stream,
    match_watcher,
)
from app.i18n import gettext
from app.models import Match
from app.rules import map_actions, map_view
from app.rules.dice import Dice
from app.rules.match import Actor
from app.rules.outcome import Outcome
from app.services import match_publish, tables
from app.services.access import CampaignAccess, load_campaign_access
from app.services.match_feed import Batch, Viewer, to_json

router = api_router("matches")

BASE = "/campaigns/{campaign_id}/matches"
ONE = BASE + "/{match_id}"
MatchId = Annotated[int, Path(ge=1, le=MAX_ID)]
Seq = Annotated[int, Field(ge=0, le=MAX_ID)]
IDEMPOTENCY_KEY_MAX = 100
IdempotencyKey = Annotated[str | None, Header(
    alias="Idempotency-Key", min_length=1, max_length=IDEMPOTENCY_KEY_MAX,
    description="Any unique string per intended action (a UUID): a retry with the same key "
                "and payload applies once.")]
# An action is a small JSON object; this bounds what the rules are asked to read.
ACTION_MAX_BYTES = 8_192
STREAM_EVENT = "match-event"


# — shapes ————————————————————————————————————————————————————————————————————

class MatchOptions(Model):
    """Board set-up for systems that play on a map (ignored by the others)."""

    width: int | None = Field(default=None, ge=10, le=10_000)
    height: int | None = Field(default=None, ge=10, le=10_000)
    unit: Literal["cm", "in", "sq"] | None = None
    turn_seconds: int | None = Field(
        default=None, ge=0, le=3600,
        description="Seconds for each decision, for games with a turn timer (Mecha-Ring; "
                    "0 or none: no timer; the others ignore it).")
    scenario: str | None = Field(
        default=None, max_length=80,
        description="A scenario to set up at once, for games that start a match from one "
                    "(Chasse préhistorique: a ready scenario's key or the campaign's own, "
                    "``gm-…``; the compendium lists them; the others ignore it).")


class MatchIn(Model):
    name: str = text(max_length=NAME_INPUT_MAX)
    character_ids: list[Annotated[int, Field(ge=1, le=MAX_ID)]] = Field(
        default_factory=list, max_length=100,
        description="Roster characters taking part (ids from the campaign's characters).")
    options: MatchOptions = Field(default_factory=MatchOptions)


class LegalAction(Model):
    kind: str
    label: str = Field(description="In the caller's language.")
    choices: dict[str, Any] = Field(description="What the action's form offers "
                                                "(tokens, visibilities…).")


class MatchSummary(Model):
    id: int
    name: str
    system: str
    status: str
    seq: int
    created_at: datetime


class MatchOut(Model):
    id: int
    name: str
    system: str
    status: str
    seq: int = Field(description="The last event's number: send it with your next action.")
    state: dict[str, Any] = Field(description="The state as you may see it.")
    legal_actions: list[LegalAction] = Field(description="What you may do now.")
    outcome: OutcomeOut | None = Field(
        default=None, description="Who won and why, once the game says the match is decided "
        "(``over``: it is finished; otherwise the GM may end it); null while it goes on.")


class OutcomeOut(Model):
    winners: list[str] = Field(description="The winners' names; empty when nobody won.")
    reason: str = Field(description="Why, in your language.")
    over: bool


class EventOut(Model):
    seq: int
    kind: str = Field(description="``hidden`` when you may not see what happened.")
    payload: dict[str, Any]
    actor_id: int | None
    visibility: Literal["public", "gm", "self", "quiet"]
    reverted: bool = Field(description="Undone by the GM (kept in the log, struck through).")
    created_at: datetime | None


class LogOut(Model):
    events: list[EventOut]
    next_after_seq: int = Field(description="Pass it as ``after_seq`` for the next page.")
    has_more: bool


class ActionIn(Model):
    action: dict[str, Any] = Field(
        max_length=50, description="The action: ``kind`` and its fields (see "
                                   "``legal_actions`` and docs/game-system.md).")
    seq: Seq | None = Field(default=None, description="The ``seq`` you were looking at; "
                                                      "null to act whatever happened since.")

    @field_validator("action")
    @classmethod
    def _small(cls, action: dict[str, Any]) -> dict[str, Any]:
        if len(json.dumps(action, default=str)) > ACTION_MAX_BYTES:
            raise PydanticCustomError(  # said in the caller's language (app.http)
                "action_too_large", "an action is at most {max} bytes of JSON",
                {"max": ACTION_MAX_BYTES})
        return action


class RewindIn(Model):
    to_seq: int = Field(ge=1, le=MAX_ID, description="Go back to just after this event.")
    seq: Seq | None = None


class RedoIn(Model):
    seq: Seq | None = None


class ActionOut(Model):
    seq: int
    events: list[EventOut] = Field(description="What your action caused, as you may see it.")
    replayed: bool = Field(description="True when this answers a retried Idempotency-Key.")


# — answers ———————————————————————————————————————————————————————————————————

def _summary(match: Match) -> MatchSummary:
    return MatchSummary(id=match.id, name=match.name, system=match.system,
                        status=match.status, seq=match.seq, created_at=match.created_at)


def _match_out(db: DbSession, access: CampaignAccess, match: Match) -> MatchOut:
    actor = tables.actor_for(db, access)
    # The rules judge on the whole state; only what they offer this actor is sent.
    system = tables.system_of(match)
    forms = map_view.forms_for(system.legal_actions(copy.deepcopy(match.state), actor),
                               match.state, actor)
    state = tables.viewer_state(match, actor)
    if not access.campaign.archived:  # the platform's map tools (app/rules/map_actions.py)
        forms += map_actions.forms(state, actor, system.key)
    return MatchOut(id=match.id, name=match.name, system=match.system, status=match.status,
                    seq=match.seq, state=state,
                    legal_actions=[LegalAction(kind=form.kind, label=gettext(form.label),
                                               choices=dict(form.choices)) for form in forms],
                    outcome=_outcome_out(map_view.outcome_for(system, match.state, actor)))


def _outcome_out(outcome: Outcome | None) -> OutcomeOut | None:
    if outcome is None:
        return None
    return OutcomeOut(winners=list(outcome.winners), over=outcome.over,
                      reason=gettext(outcome.reason, **outcome.params))


def _answer(request: Request, actor: Actor, outcome: tables.ActionOutcome) -> ActionOut:
    """Announce the committed events, then answer with what the caller may see of them."""
    match_publish.publish_outcome(request.app.state.broker, outcome)
    return ActionOut(seq=outcome.seq, replayed=outcome.replayed,
                     events=[EventOut(**tables.redact(event, actor))
                             for event in outcome.events if tables.exists_for(event, actor)])


def _viewer(access: CampaignAccess) -> Actor:
    """Who will read the answer. Seeing an event depends on the role and on who acted, not
    on the characters one plays; taken before the write, whose start reloads the membership."""
    return Actor(user_id=access.user.id, is_gm=access.is_gm)


# — routes ————————————————————————————————————————————————————————————————————

# The action route first: the hottest, it is matched before the others.

async def _lean_action(request: Request) -> Response | None:
    """The action route without FastAPI's per-request dependency solving, for a well-formed
    request; anything else (a malformed body, an id or a header out of bounds, a body that is
    not JSON) goes to ``post_action`` as declared, which refuses it (``lean_route``)."""
    await verify_csrf(request, request.app.state.settings)
    campaign_id = path_id(request, "campaign_id", MAX_ID)
    match_id = path_id(request, "match_id", MAX_ID)
    key = request.headers.get("idempotency-key")
    if (campaign_id is None or match_id is None
            or (key is not None and not 1 <= len(key) <= IDEMPOTENCY_KEY_MAX)
            or request.headers.get("content-type", "").partition(";")[0] != "application/json"):
        return None
    data = await json_body.read(request)  # read once: the declared route reuses it
    if isinstance(data, json_body.Unreadable):
        return None
    try:
        body = ActionIn.model_validate(data)
    except ValidationError:
        return None
    return await _act(request, campaign_id, match_id, body, dice_for(request), key)


async def post_action(body: ActionIn, request: Request, campaign_id: IdParam, match_id: MatchId,
                      dice: TableDice, user: CurrentUser,
                      idempotency_key: IdempotencyKey = None) -> Response:
    """Act at the table. 409: the table moved on (``error.details`` has the current ``seq``
    and ``state``). 422: the rules refuse, with the reason; or an Idempotency-Key reused
    for another payload (``idempotency_key_reused``). Spectators watch: 403."""
    # ``user``: an anonymous caller hears 401 before anything about the body, as elsewhere.
    return await _act(request, campaign_id, match_id, body, dice, idempotency_key)


router.add_api_route(ONE + "/actions", post_action, methods=["POST"], response_model=ActionOut,
                     responses=error_responses(404, 409),
                     route_class_override=lean_route(_lean_action))


async def _act(request: Request, campaign_id: int, match_id: int, body: ActionIn, dice: Dice,
               idempotency_key: str | None) -> Response:
    # The hottest route: one write, taken in turn (``WriteQueue``), and one
    # transaction for all of its database work — who is asking, their membership and the
    # campaign in one statement, then the table's write — where the usual dependencies took
    # a hop and a read transaction of their own for the session (docs/benchmarks.md
    # § Actions per second). The answer is written as JSON here (``ActionOut``'s shape,
    # checked by tests/test_match_api.py), not validated again.
    state = request.app.state
    settings = state.settings
    read: list[RequestViewer] = [known] if (known := known_viewer(request)) else []

    def act() -> tuple[Actor, tables.ActionOutcome] | None:
        with state.sessionmaker() as db, write_transaction(db):
            access = None
            if not read:
                viewer, access = load_member_viewer(db, request, settings, campaign_id)
                read.append(viewer)
            user = read[0].user
            if user is None:
                return None  # an expired session's removal commits; then 401
            adopt_viewer(request, read[0])  # the rules' messages in the user's language
            if access is None:
                access = load_campaign_access(db, user, campaign_id)
            access.require_player_or_gm()
            return _viewer(access), tables.apply_action(
                db=db, secret=settings.resolved_secret_key, access=access,
                match_id=match_id, action=body.action, expected_seq=body.seq, dice=dice,
                idempotency_key=idempotency_key)

    try:
        done = await state.write_queue.run(act)
    finally:
        if read:  # a writer thread's language stays in it: the answer needs it here too
            adopt_viewer(request, read[0])
    if done is None:
        raise NotAuthenticated()
    viewer, outcome = done
    match_publish.publish_outcome(state.broker, outcome)
    return Response(json.dumps({
        "seq": outcome.seq,
        "events": [_event_out(tables.redact(event, viewer)) for event in outcome.events],
        "replayed": outcome.replayed}, ensure_ascii=False, separators=(",", ":")),
        media_type="application/json")


def _event_out(event: dict[str, Any]) -> dict[str, Any]:
    """``EventOut``'s fields, in its order, its time written as pydantic writes it."""
    created = event.get("created_at")
    if isinstance(created, str) and created.endswith("+00:00"):
        created = created[:-6] + "Z"
    return {"seq": event["seq"], "kind": event["kind"], "payload": event["payload"],
            "actor_id": event["actor_id"], "visibility": event["visibility"],
            "reverted": event["reverted"], "created_at": created}


@router.get(BASE, response_model=list[MatchSummary], responses=error_responses(404))
def list_matches(db: DbSession, access: MemberAccess) -> list[MatchSummary]:
    """The campaign's matches, the newest first (every member)."""
    return [_summary(match) for match in tables.list_matches(db, access)]


@router.post(BASE, status_code=201, response_model=MatchOut,
             responses=error_responses(404, 409))
def create_match(body: MatchIn, db: DbSession, settings: SettingsDep,
                 access: MemberAccess, dice: TableDice) -> MatchOut:
    """Open a match of the campaign's system with roster characters (GM)."""
    match = tables.create_match(db=db, secret=settings.resolved_secret_key, access=access,
                                name=body.name, character_ids=body.character_ids,
                                options=body.options.model_dump(exclude_none=True),
                                dice=dice)
    return _match_out(db, access, match)


@router.get(ONE, response_model=MatchOut, responses=error_responses(404))
def get_match(db: DbSession, access: MemberAccess, match_id: MatchId) -> MatchOut:
    """The match as you may see it, and what you may do now."""
    return _match_out(db, access, tables.get_match(db, access, match_id))


@router.get(ONE + "/log", response_model=LogOut, responses=error_responses(404))
def match_log(db: DbSession, access: MemberAccess, match_id: MatchId,
              after_seq: Annotated[int, Query(ge=0, le=MAX_ID)] = 0,
              limit: Annotated[int, Query(ge=1, le=500)] = tables.LOG_PAGE) -> LogOut:
    """The events after ``after_seq``, oldest first; secret ones you may not see are
    ``hidden`` (their number stays), except ``quiet`` ones, which are not yours to know
    of at all (a player's « no reaction »): ``next_after_seq`` passes them."""
    match = tables.get_match(db, access, match_id)
    actor = tables.actor_for(db, access)
    rows = tables.rows_after(db, match, after_seq=after_seq, limit=limit)
    events = [tables.redact(tables.event_dict(row), actor) for row in rows
              if tables.exists_for(row, actor)]
    last = rows[-1].seq if rows else after_seq
    return LogOut(events=[EventOut(**event) for event in events], next_after_seq=last,
                  has_more=last < match.seq)


@router.post(ONE + "/rewind", response_model=ActionOut, responses=error_responses(404, 409))
def rewind(body: RewindIn, request: Request, db: DbSession, access: MemberAccess,
           match_id: MatchId) -> ActionOut:
    """Undo (GM): back to just after event ``to_seq``. Later events stay in the log,
    marked ``reverted``; a ``rewind`` event records what was undone."""
    viewer = _viewer(access)
    outcome = tables.rewind(db=db, access=access, match_id=match_id, to_seq=body.to_seq,
                            expected_seq=body.seq)
    return _answer(request, viewer, outcome)


@router.post(ONE + "/redo", response_model=ActionOut, responses=error_responses(404, 409))
def redo(request: Request, db: DbSession, access: MemberAccess, match_id: MatchId,
         body: Annotated[RedoIn | None, Body()] = None) -> ActionOut:
    """Redo (GM): restore what the last undo took back, if nothing happened since."""
    viewer = _viewer(access)
    outcome = tables.redo(db=db, access=access, match_id=match_id,
                          expected_seq=body.seq if body else None)
    return _answer(request, viewer, outcome)


_STREAM_DOC = (
    "Server-Sent Events, one per log event: ``event: match-event``, ``id:`` its ``seq``, "
    "``data:`` the event as JSON (as in the log, redacted for you). Reconnect with "
    "``Last-Event-ID`` (or ``?after=`` on a first connection) to receive every event after "
    "it, once and in order. The stream ends when you leave the campaign or your role is "
    "lowered. Comments keep the connection alive.")


async def _lean_stream(request: Request) -> Response | None:
    """The stream route without FastAPI's per-request dependency solving: after the
    actions, a browser (re)opening its stream is a table's commonest request (each one comes
    back after every drop), and the dependencies cost it a thread-pool hop and a read
    transaction of their own. Who is asking, their membership and the match are read in one
    transaction here (``streams.match_watcher``). A request it does not take as it is (an
    id or a position that is not a plain number in range) goes to ``match_stream`` as
    declared, which refuses it."""
    campaign_id = path_id(request, "campaign_id", MAX_ID)
    match_id = path_id(request, "match_id", MAX_ID)
    if campaign_id is None or match_id is None or not all(
            _plain_position(value) for value in (request.headers.get("last-event-id"),
                                                 request.query_params.get("after"))):
        return None
    access, newest = await match_watcher(request, campaign_id, match_id)
    return event_stream(request, JsonEvents(_stream_viewer(request, access, match_id)),
                        newest=newest)


def _plain_position(value: str | None) -> bool:
    """Absent, or digits within the ids' range (anything else: FastAPI's 422)."""
    return value is None or (value.isascii() and value.isdigit() and int(value) <= MAX_ID)


def _stream_viewer(request: Request, access: CampaignAccess, match_id: int) -> Viewer:
    return Viewer(request.app.state.match_feeds, campaign_id=access.campaign.id,
                  match_id=match_id, user_id=access.user.id, role=access.role)


def match_stream(request: Request, db: DbSession, access: MemberAccess, match_id: MatchId,
                 after: Annotated[int | None, Query(
                     ge=0, le=MAX_ID, description="Start after this seq (first connection)."
                 )] = None,
                 last_event_id: Annotated[int | None, Header(
                     alias="Last-Event-ID", ge=0, le=MAX_ID,
                     description="Sent by EventSource on reconnection: resume after it.")
                 ] = None) -> EventStreamResponse:
    """The match's events, live, as you may see them (``after`` and ``Last-Event-ID`` are
    read by the stream itself; declared here for the documentation and validation)."""
    newest = tables.match_position(db, access, match_id)
    return event_stream(request, JsonEvents(_stream_viewer(request, access, match_id)),
                        newest=newest, request_session=db)


router.add_api_route(ONE + "/stream", match_stream, methods=["GET"],
                     response_class=EventStreamResponse,
                     responses={200: {"description": _STREAM_DOC, "content": {
                         "text/event-stream": {"schema": {"type": "string"}}}},
                                **error_responses(404)},
                     route_class_override=lean_route(_lean_stream))


class JsonEvents(FeedSource):
    """The API stream's source: each event as JSON, redacted for the viewer in the event
    loop (the read itself is shared by every stream of the match: ``match_feed``)."""

    async def items_after(self, after: int, *, fresh: bool) -> list[Item] | None:
        batch = await self.viewer.read(after, fresh=fresh)
        return None if batch is None else self.at_once(batch, after)

    def at_once(self, batch: Batch, after: int) -> list[Item]:
        actor = self.viewer.actor
        return [batch.shared(event, actor, _stream_item) if tables.exists_for(event, actor)
                else Item(event["seq"], "", "") for event in batch.after(after)]


def _stream_item(event: dict[str, Any]) -> Item:
    """An event as the API stream sends it; made once per batch for all the streams that
    see it the same way, with its encoded bytes (``Item.wire``)."""
    return Item(id=event["seq"], event=STREAM_EVENT, data=to_json(event))
