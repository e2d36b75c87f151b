"""The table service: one action, one transaction (DESIGN.md § The one flow).

``apply_action`` loads the match snapshot under the write lock, refuses a stale ``seq`` with
409 and the fresh state, lets the system judge the action (``decide``, the only place dice
are rolled), appends the events with consecutive ``seq`` numbers, stores the new snapshot,
records the rolls in the campaign's signed roll log, and commits. Publishing to live viewers
happens after the commit, by the caller.
"""

from __future__ import annotations

import copy
import hashlib
import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import ColumnElement, bindparam, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session
from sqlalchemy.orm.attributes import set_committed_value

from app import telemetry
from app.db import write_transaction
from app.errors import Conflict, NotFound, ValidationFailed
from app.i18n import lazy_gettext as _l
from app.models import ActionRequest, Character, Match, MatchEvent, Role, Roll, utcnow
from app.rules import map_actions, map_view
from app.rules.dice import Dice
from app.rules.match import (
    CONTROL_KINDS,
    JOURNAL_KINDS,
    PLATFORM_KINDS,
    Actor,
    Event,
    IllegalAction,
    MatchSetup,
    ParticipantSetup,
    State,
    fold,
    fold_one,
    seated_characters,
)
from app.rules.registry import get_system
from app.rules.system import GameSystem
from app.services import dice_cap, rolls, validation
from app.services.access import CampaignAccess
from app.services.content import campaign_content
from app.services.validation import rules_message

LOG_PAGE = 100


def clock() -> float:
    """The server's time in seconds, the only time the rules ever read (a game's turn
    timer): injected into ``decide`` for systems with ``uses_clock``; tests replace it."""
    return time.time()


def _decide_kwargs(system: GameSystem) -> dict[str, Any]:
    return {"now": clock()} if getattr(system, "uses_clock", False) else {}


# The action path's statements, built once (building one costs more than running it).
_OWNED = select(Character.id).where(Character.campaign_id == bindparam("campaign_id"),
                                    Character.owner_id == bindparam("user_id"))
_LOCK_MATCH = (select(Match.id, Match.campaign_id, Match.system, Match.state, Match.seq,
                      Match.status)
               .where(Match.id == bindparam("match_id"),
                      Match.campaign_id == bindparam("campaign_id"))
               .with_for_update())
_INSERT_EVENTS = insert(MatchEvent.__table__)
_matches = Match.__table__
_UPDATE_SNAPSHOT = (update(_matches).where(_matches.c.id == bindparam("match_id"))
                    .values(state=bindparam("state"), seq=bindparam("seq"),
                            status=bindparam("status"), updated_at=bindparam("now")))


def actor_for(db: Session, access: CampaignAccess) -> Actor:
    """The rules' view of a member: GM, spectator, and the characters they own."""
    owned = db.connection().execute(_OWNED, {"campaign_id": access.campaign_id,
                                             "user_id": access.user.id}).scalars().all()
    return Actor(user_id=access.user.id, is_gm=access.is_gm,
                 is_spectator=access.role is Role.SPECTATOR, character_ids=frozenset(owned))


def system_of(match: Match) -> GameSystem:
    system = get_system(match.system)
    if system is None:
        raise NotFound()
    return system


def _in_campaign(access: CampaignAccess, match_id: int) -> tuple[ColumnElement[bool], ...]:
    """The match ``match_id``, if it is one of the campaign's (no match of another leaks)."""
    return Match.id == match_id, Match.campaign_id == access.campaign_id


def get_match(db: Session, access: CampaignAccess, match_id: int, *,
              for_update: bool = False) -> Match:
    query = select(Match).where(*_in_campaign(access, match_id))
    if for_update:
        query = query.with_for_update()
    match = db.scalar(query)
    if match is None:
        raise NotFound()
    telemetry.note(game=match.system)  # the request log's and the action metrics' label
    return match


def match_position(db: Session, access: CampaignAccess, match_id: int) -> int:
    """The newest seq of one of the campaign's matches: all a stream needs to open. The
    snapshot (``state``, the largest column, decoded from JSON) stays unread — browsers
    reopen their streams all evening (docs/benchmarks.md § The load harness, 2026-12-03)."""
    row = db.execute(select(Match.seq, Match.system).where(
        *_in_campaign(access, match_id))).first()
    if row is None:
        raise NotFound()
    telemetry.note(game=row.system)
    return row.seq


def list_matches(db: Session, access: CampaignAccess) -> list[Match]:
    return list(db.scalars(select(Match).where(Match.campaign_id == access.campaign.id)
                           .order_by(Match.created_at.desc())))


# — creating a match —————————————————————————————————————————————————————————

def create_match(*, db: Session, secret: str, access: CampaignAccess, name: object,
                 character_ids: Sequence[int] = (), options: Mapping[str, Any] | None = None,
                 dice: Dice) -> Match:
    """The GM opens a match of the campaign's system with roster characters."""
    access.require_gm().require_writable()
    if not isinstance(name, str) or not name.strip() or len(name.strip()) > 120:
        raise ValidationFailed(_l("Give the match a name (120 characters at most)."),
                               field="name")
    validation.policed(name.strip(), field="name", required=True)
    validation.no_nul(options, field="options")
    system = get_system(access.campaign.system)
    with write_transaction(db):
        characters = _roster(db, access.campaign.id, character_ids)
        content = campaign_content(db=db, campaign_id=access.campaign.id)
        # Who plays whom, by name: a game may name a side after its player (Mutatior's
        # teams are their trainer's).
        trainers = {str(c.owner_id): c.owner.display_name for c in characters
                    if c.owner_id is not None and c.owner is not None}
        # a game with a turn timer gets the server's clock at the set-up too (``now``)
        setup = MatchSetup(name=name.strip(), options={**(options or {}), "content": content,
                                                       "trainers": trainers,
                                                       **_decide_kwargs(system)},
                           participants=tuple(
            ParticipantSetup(name=c.name, character_id=c.id, owner_id=c.owner_id,
                             sheet=c.sheet) for c in characters))
        events = _judge(lambda: system.start(setup, dice))
        match = Match(campaign_id=access.campaign.id, system=system.key, name=setup.name,
                      state={}, seq=0, status="running")
        db.add(match)
        db.flush()
        _append(db, secret, match, system, events, actor=access.user.id)
    return match


def _roster(db: Session, campaign_id: int, character_ids: Sequence[int]) -> list[Character]:
    wanted = list(dict.fromkeys(character_ids))
    if not wanted:
        return []
    found = {c.id: c for c in db.scalars(select(Character).where(
        Character.campaign_id == campaign_id, Character.id.in_(wanted)))}
    if len(found) != len(wanted):
        raise ValidationFailed(_l("A chosen character is not in this campaign."),
                               field="character_ids")
    return [found[cid] for cid in wanted]


# — acting ——————————————————————————————————————————————————————————————————

@dataclass(frozen=True)
class ActionOutcome:
    match_id: int
    seq: int
    events: list[dict[str, Any]]
    replayed: bool = False
    campaign_id: int | None = None

    @property
    def roll_ids(self) -> list[int]:
        """The roll-log entries these events added (the campaign's log shows them too)."""
        return [rid for event in self.events for rid in event["payload"].get("roll_ids", [])]


class StaleSeq(Conflict):
    code = "stale_seq"

    def __init__(self, seq: int, state: State) -> None:
        super().__init__(_l("The table moved on while you were choosing; here is the "
                            "current state. Try again."), details={"seq": seq, "state": state})


def apply_action(*, db: Session, secret: str, access: CampaignAccess, match_id: int,
                 action: Mapping[str, Any], expected_seq: int | None, dice: Dice,
                 idempotency_key: str | None = None) -> ActionOutcome:
    """Judge and record one action in one transaction; see the module docstring."""
    if not isinstance(action, Mapping) or not isinstance(action.get("kind"), str):
        raise ValidationFailed(_l("An action needs a kind."), field="kind")
    validation.no_nul(action)
    access.require_player_or_gm().require_writable()  # spectators watch
    actor = actor_for(db, access)
    # Read before the write begins: its opening rollback expires the campaign.
    capped_dice = dice_cap.capped(dice, access.campaign)  # "1000d6" refused here
    user_id = actor.user_id
    fingerprint = _fingerprint(action, expected_seq) if idempotency_key else ""
    try:
        with write_transaction(db):
            match = _locked_snapshot(db, access.campaign_id, match_id)
            if idempotency_key:
                previous = _previous_answer(db, match.id, user_id, idempotency_key,
                                            fingerprint)
                if previous is not None:
                    return previous
            system = system_of(match)
            if _stale(db, match, expected_seq, actor):
                raise StaleSeq(match.seq, _seen_by(system, match.state, actor))
            state = copy.deepcopy(match.state)
            events = _judge(lambda: _decide(system, state, action, actor, capped_dice))
            appended = _append(db, secret, match, system, events, actor=user_id,
                               acting=actor)
            outcome = ActionOutcome(match.id, match.seq, appended,
                                    campaign_id=match.campaign_id)
            if idempotency_key:
                db.execute(insert(ActionRequest).values(
                    match_id=match.id, user_id=user_id, key=idempotency_key[:100],
                    payload_hash=fingerprint, created_at=utcnow(),
                    response={"seq": outcome.seq, "events": outcome.events}))
    except IntegrityError:
        # A concurrent request with the same key committed first: answer as it did.
        if idempotency_key:
            previous = _previous_answer(db, match_id, user_id, idempotency_key, fingerprint)
            if previous is not None:
                return previous
        raise
    return outcome


@dataclass
class Snapshot:
    """A match's row as the action path needs it (read with Core, under the write lock)."""

    id: int
    campaign_id: int
    system: str
    state: State
    seq: int
    status: str


def _locked_snapshot(db: Session, campaign_id: int, match_id: int) -> Snapshot:
    row = db.connection().execute(_LOCK_MATCH, {"match_id": match_id,
                                             "campaign_id": campaign_id}).first()
    if row is None:
        raise NotFound()
    telemetry.note(game=row.system)  # the request log's and the action metrics' label
    return Snapshot(*row)


def _decide(system: GameSystem, state: State, action: Mapping[str, Any], actor: Actor,
            dice: Dice) -> list[Event]:
    """The game judges its actions, the platform its map's (``app.rules.map_actions``); a
    player never reaches a figure hidden from them (``map_view.refuse_hidden``)."""
    if map_actions.is_map_action(action):
        return map_actions.decide(state, action, actor, system.key)
    map_view.refuse_hidden(state, action, actor)
    return system.decide(state, action, actor, dice, **_decide_kwargs(system))


def _fingerprint(action: Mapping[str, Any], expected_seq: int | None) -> str:
    canonical = json.dumps({"action": action, "seq": expected_seq}, sort_keys=True, default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


def _previous_answer(db: Session, match_id: int, user_id: int, key: str,
                     fingerprint: str) -> ActionOutcome | None:
    seen = db.scalar(select(ActionRequest).where(
        ActionRequest.match_id == match_id, ActionRequest.user_id == user_id,
        ActionRequest.key == key[:100]))
    if seen is None:
        return None
    if seen.payload_hash != fingerprint:
        raise ValidationFailed(_l("This Idempotency-Key was already used for another action."),
                               field="Idempotency-Key", code="idempotency_key_reused")
    return ActionOutcome(match_id, seen.response["seq"], seen.response["events"], replayed=True)


def _judge(decide):
    """Run the rules; a refusal becomes a 422 in the user's language."""
    try:
        return decide()
    except IllegalAction as refusal:
        message = rules_message(refusal)
        raise ValidationFailed(message, code=refusal.code,
                               field=refusal.fields.get("field")) from refusal


def _append(db: Session, secret: str, match: Match | Snapshot, system: GameSystem,
            events: list[Event], *, actor: int | None,
            acting: Actor | None = None) -> list[dict[str, Any]]:
    """Append ``events`` after ``match.seq``, fold them into the snapshot, sign their rolls;
    returns the events as ``event_dict`` gives them. ``acting``: who acted, when a game's
    events may name something hidden on the board (``_secrets_kept``).

    Core statements (one insert for the events, one update of the snapshot, two per roll):
    the ORM's unit of work cost more than the rest of an action. ``match`` (an ORM object or
    a ``Snapshot``) is brought up to date without being marked as changed."""
    if acting is not None and map_view.keeps_secrets_now(match.state):
        events, state = _secrets_kept(system, match.state, events, acting)
    else:
        state = fold(system, events, match.state)
    now = utcnow()
    seq = match.seq
    rows = []
    for event in events:
        payload = copy.deepcopy(event.payload)
        if payload.get("rolls") and "roll_ids" not in payload:  # journal lines: signed
            payload["roll_ids"] = rolls.append_rolls(
                db=db, secret=secret, campaign_id=match.campaign_id, match_id=match.id,
                user_id=actor, records=payload["rolls"], visibility=event.visibility)
        seq += 1
        rows.append({"match_id": match.id, "seq": seq, "kind": event.kind, "payload": payload,
                     "actor_id": actor, "visibility": event.visibility, "reverted": False,
                     "created_at": now})
    core = db.connection()  # the session's transaction, without the ORM's per-statement work
    if rows:
        core.execute(_INSERT_EVENTS, rows)
    was_running = match.status != "finished"
    status = state.get("status", match.status)
    core.execute(_UPDATE_SNAPSHOT, {"match_id": match.id, "state": state, "seq": seq,
                                    "status": status, "now": now})
    for name, value in (("state", state), ("seq", seq), ("status", status)):
        if isinstance(match, Match):
            set_committed_value(match, name, value)
        else:
            setattr(match, name, value)
    if was_running and match.status == "finished":
        _carry_results_to_sheets(db, match, system)
    return [{"seq": row["seq"], "kind": row["kind"], "payload": row["payload"],
             "actor_id": actor, "visibility": row["visibility"], "reverted": False,
             "created_at": now.isoformat()} for row in rows]


def _secrets_kept(system: GameSystem, state: State, events: list[Event],
                  actor: Actor) -> tuple[list[Event], State]:
    """Fold ``events`` one by one: a game's event that names a figure or ground hidden just
    before or after it goes no further than the GM (or its actor and the GM), so that no
    player's log or raw stream carries it (``map_view.event_visibility``). Its rolls are
    signed as seen."""
    current = copy.deepcopy(state)
    before = map_view.secrets_in(current, actor)
    judged = []
    for event in events:
        current = fold_one(system, current, event)
        after = map_view.secrets_in(current, actor)
        if event.kind not in PLATFORM_KINDS:
            event = replace(event, visibility=map_view.event_visibility(event, before, after,
                                                                        actor))
        judged.append(event)
        before = after
    return judged, current


def _carry_results_to_sheets(db: Session, match: Match, system: GameSystem) -> None:
    """The match is over: what it changed goes back to the characters' sheets.

    Only sheets the system still finds valid are written; undoing the end of a match later
    does not take these changes back (the GM edits the sheets).
    """
    characters = {c.id: c for c in db.scalars(select(Character).where(
        Character.campaign_id == match.campaign_id))}
    sheets = {cid: dict(c.sheet) for cid, c in characters.items()}
    content = campaign_content(db=db, campaign_id=match.campaign_id)
    for character_id, sheet in system.between_matches(match.state, sheets).items():
        character = characters.get(character_id)
        if character is not None and not system.validate_sheet(sheet, content):
            character.sheet = sheet


def event_dict(row: MatchEvent) -> dict[str, Any]:
    return {"seq": row.seq, "kind": row.kind, "payload": row.payload, "actor_id": row.actor_id,
            "visibility": row.visibility, "reverted": row.reverted,
            "created_at": row.created_at.isoformat() if row.created_at else None}


# — the journal: rolls made away from the table ——————————————————————————————

def tables_seating(db: Session, campaign_id: int, character_id: int) -> list[Match]:
    """The campaign's running matches that seat ``character_id``, those alone locked for
    writing (inside the caller's write transaction, before it takes roll numbers: an action
    locks its match first, then the campaign's numbers — the same order, so two writers
    never wait on each other)."""
    running = db.execute(select(Match.id, Match.state).where(
        Match.campaign_id == campaign_id, Match.status != "finished"))
    ids = [match_id for match_id, state in running
           if character_id in seated_characters(state or {})]
    if not ids:
        return []
    locked = db.scalars(select(Match).where(Match.id.in_(ids), Match.status != "finished")
                        .order_by(Match.id).with_for_update())
    return [match for match in locked if character_id in seated_characters(match.state or {})]


def journal_rolls(db: Session, secret: str, matches: Sequence[Match], *, character_id: int,
                  name: str, made: Sequence[Roll], actor: int | None) -> list[ActionOutcome]:
    """Rolls already signed into the campaign's roll log (a character's sheet), written in
    the journal of each of ``matches`` (``tables_seating``) as a ``sheet_rolled`` event:
    the entries' ids and records, seen as the rolls are (a roll for the GM only is, to
    everyone else, « rolled the dice in secret »). Inside the caller's transaction; the
    outcomes name no campaign, so publishing them does not announce the rolls again."""
    if not made:
        return []
    visibility = made[0].visibility
    payload = {"character_id": character_id, "name": name,
               "rolls": [dict(roll.record) for roll in made],
               "roll_ids": [roll.id for roll in made]}
    outcomes = []
    for match in matches:
        events = _append(db, secret, match, system_of(match),
                         [Event("sheet_rolled", copy.deepcopy(payload), visibility)],
                         actor=actor)
        outcomes.append(ActionOutcome(match.id, match.seq, events))
    return outcomes


# — undo, redo, replay ————————————————————————————————————————————————————————

def rewind(*, db: Session, access: CampaignAccess, match_id: int, to_seq: int,
           expected_seq: int | None = None) -> ActionOutcome:
    """The GM takes the table back to just after event ``to_seq``.

    Later events stay in the log, marked reverted; a ``rewind`` event records what was undone.
    """
    access.require_gm().require_writable()
    with write_transaction(db):
        match = get_match(db, access, match_id, for_update=True)
        _check_seq(match, expected_seq, access, db)
        undone = db.scalars(select(MatchEvent.seq).where(
            MatchEvent.match_id == match.id, MatchEvent.seq > to_seq,
            MatchEvent.reverted.is_(False), MatchEvent.kind.not_in(CONTROL_KINDS))).all()
        if to_seq < 1 or to_seq >= match.seq or not undone:
            raise ValidationFailed(_l("Nothing to undo after that event."), field="to_seq")
        _set_reverted(db, match.id, undone, True)
        row = _append_control(db, match, "rewind", {"to": to_seq, "seqs": list(undone)},
                              access.user.id)
        _refold(db, match)
        return ActionOutcome(match.id, match.seq, [event_dict(row)])


def redo(*, db: Session, access: CampaignAccess, match_id: int,
         expected_seq: int | None = None) -> ActionOutcome:
    """Restore what the last rewind undid, if nothing was played since."""
    access.require_gm().require_writable()
    with write_transaction(db):
        match = get_match(db, access, match_id, for_update=True)
        _check_seq(match, expected_seq, access, db)
        last = db.scalar(select(MatchEvent).where(MatchEvent.match_id == match.id)
                         .order_by(MatchEvent.seq.desc()).limit(1))
        if last is None or last.kind != "rewind":
            raise ValidationFailed(_l("Redo only follows an undo, before anything else "
                                      "happens."), field="redo", code="nothing_to_redo")
        seqs = list(last.payload["seqs"])
        _set_reverted(db, match.id, seqs, False)
        row = _append_control(db, match, "redo", {"seqs": seqs, "rewind": last.seq},
                              access.user.id)
        _refold(db, match)
        return ActionOutcome(match.id, match.seq, [event_dict(row)])


def _check_seq(match: Match, expected_seq: int | None, access: CampaignAccess,
               db: Session) -> None:
    actor = actor_for(db, access)
    if _stale(db, match, expected_seq, actor):
        raise StaleSeq(match.seq, _seen_by(system_of(match), match.state, actor))


def _set_reverted(db: Session, match_id: int, seqs: Sequence[int], value: bool) -> None:
    db.execute(update(MatchEvent).where(MatchEvent.match_id == match_id,
                                        MatchEvent.seq.in_(list(seqs))).values(reverted=value))


def _append_control(db: Session, match: Match, kind: str, payload: dict,
                    actor: int | None) -> MatchEvent:
    match.seq += 1
    row = MatchEvent(match_id=match.id, seq=match.seq, kind=kind, payload=payload,
                     actor_id=actor, visibility="public")
    db.add(row)
    db.flush()
    return row


def _refold(db: Session, match: Match) -> None:
    match.state = fold_log(db, match)
    match.status = match.state.get("status", match.status)


def live_events(db: Session, match: Match, *, upto: int | None = None) -> list[MatchEvent]:
    query = select(MatchEvent).where(MatchEvent.match_id == match.id,
                                     MatchEvent.reverted.is_(False))
    if upto is not None:
        query = query.where(MatchEvent.seq <= upto)
    return list(db.scalars(query.order_by(MatchEvent.seq)))


def fold_log(db: Session, match: Match, *, upto: int | None = None) -> State:
    """The state rebuilt from the log alone: what the snapshot must always equal."""
    rows = live_events(db, match, upto=upto)
    return fold(system_of(match), [Event(r.kind, r.payload, r.visibility) for r in rows])


# — what a viewer may see ————————————————————————————————————————————————————

def may_see(row: MatchEvent | Mapping[str, Any], actor: Actor) -> bool:
    """Everyone sees a public event; the GM every one; its actor a ``self`` or ``quiet``
    one, and so do the members it names under ``user_ids`` (a handout to chosen players)."""
    # A plain class check (not ``Mapping``'s, an ABC's): a fan-out asks once per stream.
    if isinstance(row, MatchEvent):
        visibility, owner = row.visibility, row.actor_id
    else:
        visibility, owner = row["visibility"], row["actor_id"]
    if visibility == "public" or actor.is_gm:
        return True
    if visibility not in ("self", "quiet"):
        return False
    if owner == actor.user_id:
        return True
    readers = (row.payload if isinstance(row, MatchEvent) else row["payload"]).get("user_ids")
    return isinstance(readers, list) and actor.user_id in readers


def exists_for(row: MatchEvent | Mapping[str, Any], actor: Actor) -> bool:
    """Whether ``actor`` learns of this event at all: a ``quiet`` one they may not see is
    left out of their log, their stream and their API answers (not even « something secret
    happened », nor by whom)."""
    visibility = row.visibility if isinstance(row, MatchEvent) else row["visibility"]
    return visibility != "quiet" or may_see(row, actor)


def _stale(db: Session, match: Match, expected_seq: int | None, actor: Actor) -> bool:
    """The viewer's seq is behind something they could see. Events after it that do not
    exist for them (``quiet``) leave their view current: refusing them would tell them
    something happened."""
    if expected_seq is None or expected_seq == match.seq:
        return False
    if expected_seq > match.seq:
        return True
    rows = db.scalars(select(MatchEvent).where(MatchEvent.match_id == match.id,
                                               MatchEvent.seq > expected_seq))
    # A line the journal alone shows (a roll from a sheet) changes nothing one chose from.
    return any(exists_for(row, actor) and row.kind not in JOURNAL_KINDS for row in rows)


def redact(event: dict[str, Any], actor: Actor) -> dict[str, Any]:
    """An event as ``actor`` may see it: whole, or only that something secret happened."""
    if may_see(event, actor):
        return event
    rolled = bool(event["payload"].get("rolls"))
    return {**event, "kind": "hidden", "payload": {
        "kind": "secret_roll" if rolled else "secret", "by": event["actor_id"],
        "visibility": event["visibility"]}}


def rows_after(db: Session, match: Match, *, after_seq: int = 0,
               limit: int = LOG_PAGE) -> list[MatchEvent]:
    return list(db.scalars(select(MatchEvent).where(MatchEvent.match_id == match.id,
                                                    MatchEvent.seq > after_seq)
                           .order_by(MatchEvent.seq).limit(max(1, min(limit, 500)))))


def events_after(db: Session, match: Match, actor: Actor, *, after_seq: int = 0,
                 limit: int = LOG_PAGE) -> list[dict[str, Any]]:
    return [redact(event_dict(row), actor)
            for row in rows_after(db, match, after_seq=after_seq, limit=limit)
            if exists_for(row, actor)]


def viewer_state(match: Match, actor: Actor) -> State:
    """The match as ``actor`` may see it: the game's ``view``, then the platform's (the
    fog of war, hidden figures, the GM's drawings and scenes, others' handouts)."""
    return _seen_by(system_of(match), match.state, actor)


def _seen_by(system: GameSystem, state: State, actor: Actor) -> State:
    return map_view.view(system, copy.deepcopy(state), actor)

