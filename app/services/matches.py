"""Matches as the pages show them: opening one from a form, its log, replay, who is watching.

The table engine (``app.services.tables``) judges and records actions; this module only reads
what the match pages and the live stream need, always through ``tables.redact`` / ``system.view`` so
that a viewer is never handed what they may not see.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.errors import NotFound, ValidationFailed
from app.i18n import lazy_gettext as _l
from app.models import Match, MatchEvent, Membership, Role, User
from app.rules import map_view
from app.rules.dice import Dice
from app.rules.match import Actor, State
from app.rules.registry import get_system
from app.rules.system import SummaryCharacter, SummaryMatch
from app.services import characters, tables
from app.services.access import CampaignAccess, load_campaign_access

BOARD_UNITS = ("cm", "in", "sq")
BOARD_MIN, BOARD_MAX = 10, 10_000
# The match page shows the latest lines; the replay view reaches every event.
LOG_WINDOW = 300


# — opening a match ——————————————————————————————————————————————————————————

def _whole_number(value: object, field: str, low: int, high: int) -> int:
    text = str(value).strip() if value is not None else ""
    if not text.lstrip("-").isdigit() or not low <= int(text) <= high:
        raise ValidationFailed(_l("A whole number from %(low)s to %(high)s.", low=low,
                                  high=high), field=field)
    return int(text)


def board_options(*, width: object, height: object, unit: object) -> dict[str, Any]:
    """The board of a new match, checked before the rules see it."""
    if unit not in BOARD_UNITS:
        raise ValidationFailed(_l("Choose centimetres, inches or squares."), field="unit")
    return {"unit": unit, "width": _whole_number(width, "width", BOARD_MIN, BOARD_MAX),
            "height": _whole_number(height, "height", BOARD_MIN, BOARD_MAX)}


def character_ids(values: Iterable[object]) -> list[int]:
    """Roster checkboxes → ids; the engine checks they belong to the campaign."""
    ids = []
    for value in values:
        text = str(value).strip()
        if not text.isdigit() or not 0 < int(text) < 2**31:
            raise ValidationFailed(_l("A chosen character is not in this campaign."),
                                   field="character_ids")
        ids.append(int(text))
    return ids


TIMER_MAX = 3600


def open_match(*, db: Session, secret: str, access: CampaignAccess, name: object,
               characters: Sequence[object], board: dict[str, object] | None,
               dice: Dice, turn_seconds: object = None, scenario: object = None) -> Match:
    """The GM opens a match with roster characters (and a board when the game uses one, a
    turn timer when it keeps one: ``turn_seconds``, empty or 0 for none)."""
    access.require_gm().require_writable()
    options = board_options(**board) if board is not None else {}
    if turn_seconds not in (None, "") and uses_clock(access):
        options["turn_seconds"] = _whole_number(turn_seconds, "turn_seconds", 0, TIMER_MAX)
    if isinstance(scenario, str) and scenario.strip() and starts_from(access) is not None:
        options["scenario"] = scenario.strip()[:80]  # the rules refuse an unknown one
    return tables.create_match(db=db, secret=secret, access=access, name=name,
                               character_ids=character_ids(characters), options=options,
                               dice=dice)


def starts_from(access: CampaignAccess) -> str | None:
    """The content kind a match of this game may open with (``starts_match_from``: Chasse's
    scenarios), else None."""
    system = get_system(access.campaign.system)
    return getattr(system, "starts_match_from", None) if system else None


def uses_clock(access: CampaignAccess) -> bool:
    """The campaign's game keeps a turn timer on the server's clock (``uses_clock``)."""
    system = get_system(access.campaign.system)
    return bool(system and getattr(system, "uses_clock", False))


def uses_board(access: CampaignAccess) -> bool:
    system = get_system(access.campaign.system)
    return bool(system and system.uses_board)


# — the game's campaign summary ————————————————————————————————————————————————

def campaign_summary(*, db: Session, access: CampaignAccess) -> Any:
    """The game's own panel for the campaign (standings, history…): its optional
    ``campaign_summary`` over the campaign's matches of this game, oldest first, and its
    roster; ``None`` for a game without one. Any member may read it."""
    system = get_system(access.campaign.system)
    summarise = getattr(system, "campaign_summary", None)
    if summarise is None:
        return None
    games = [SummaryMatch(match.id, match.name, match.status, match.state or {})
             for match in reversed(tables.list_matches(db, access))
             if match.system == access.campaign.system]
    roster = [SummaryCharacter(character.id, character.name, character.sheet or {})
              for character in characters.list_characters(db=db,
                                                          campaign_id=access.campaign.id)]
    return summarise(games, roster)


# — reading the log ——————————————————————————————————————————————————————————

def log_events(*, db: Session, match: Match, actor: Actor, upto: int | None = None,
               window: int = LOG_WINDOW) -> list[dict[str, Any]]:
    """The latest ``window`` events up to ``upto``, oldest first, as ``actor`` may see them."""
    query = select(MatchEvent).where(MatchEvent.match_id == match.id)
    if upto is not None:
        query = query.where(MatchEvent.seq <= upto)
    rows = db.scalars(query.order_by(MatchEvent.seq.desc()).limit(window)).all()
    return [tables.redact(tables.event_dict(row), actor) for row in reversed(rows)
            if tables.exists_for(row, actor)]


def event_at(*, db: Session, match: Match, actor: Actor, seq: int) -> dict[str, Any] | None:
    row = db.scalar(select(MatchEvent).where(MatchEvent.match_id == match.id,
                                             MatchEvent.seq == seq))
    return tables.redact(tables.event_dict(row), actor) \
        if row is not None and tables.exists_for(row, actor) else None


def can_redo(*, db: Session, match: Match) -> bool:
    """Redo is possible right after an undo, before anything else happens."""
    last = db.scalar(select(MatchEvent.kind).where(MatchEvent.match_id == match.id)
                     .order_by(MatchEvent.seq.desc()).limit(1))
    return last == "rewind"


def names(*, db: Session, user_ids: Iterable[int | None]) -> dict[int, str]:
    """Display names of the people behind log lines (former members included)."""
    wanted = {user_id for user_id in user_ids if user_id is not None}
    if not wanted:
        return {}
    return dict(db.execute(select(User.id, User.display_name).where(User.id.in_(wanted))).all())


def gm_ids(*, db: Session, campaign_id: int) -> set[int]:
    """Who is GM here: their secret rolls read "the GM rolled in secret"."""
    return set(db.scalars(select(Membership.user_id).where(
        Membership.campaign_id == campaign_id, Membership.role == Role.GM)))


def people_in(events: Iterable[dict[str, Any]]) -> set[int]:
    """Everyone a log line names: who acted and whose secret it is."""
    found: set[int] = set()
    for event in events:
        for user_id in (event.get("actor_id"), event["payload"].get("by")):
            if isinstance(user_id, int):
                found.add(user_id)
    return found


# — replay and live viewers ————————————————————————————————————————————————————

def replay_state(*, db: Session, match: Match, actor: Actor, step: int) -> State:
    """The state after event ``step`` (undone events left out), as ``actor`` may see it."""
    state = tables.fold_log(db, match, upto=step)
    return map_view.view(tables.system_of(match), state, actor)


def reload_access(*, db: Session, campaign_id: int, user_id: int) -> CampaignAccess | None:
    """The member's access now, or None once they left the campaign (or were disabled)."""
    user = db.get(User, user_id)
    if user is None or user.disabled_at is not None:
        return None
    try:
        return load_campaign_access(db, user, campaign_id)
    except NotFound:
        return None
