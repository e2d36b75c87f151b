"""Exact odds for the pages and the API, worked out off the request (docs/odds.md).

Two uses: the distribution of an expression someone types (the free roller, the table's
dice field, ``GET /api/v1/dice/distribution``) and an action form's odds (a game's
``odds``, on the viewer's view of the match). Both compute in one worker thread, within
the budget of ``app.rules.odds`` (``MAX_SECONDS``): the caller waits at most that long and
is then told the cap, so a heavy expression never holds the server; past a short queue,
a new request is refused at once rather than piled up. Distributions are cached by their
canonical text, since typing asks for the same expressions again and again.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, TypeVar

from sqlalchemy.orm import Session

from app.errors import AppError, ValidationFailed
from app.i18n import lazy_gettext as _l
from app.rules import odds
from app.rules.errors import NotationError
from app.rules.match import Actor, State
from app.rules.notation import parse
from app.rules.odds.action import Odds
from app.rules.system import GameSystem
from app.services import tables, validation
from app.services.access import CampaignAccess
from app.services.rolls import MAX_EXPRESSION, notation_failure
from app.services.validation import rules_message

T = TypeVar("T")
WORKERS = 1
"""One thread: the machine has two cores and the server the other."""
QUEUE = 4
"""Computations waiting or running at once; past that a request is refused at once."""
GRACE = 0.5
"""Seconds waited past the budget before the caller is told the cap (the thread checks the
clock between steps, and stops at the next)."""
MAX_TARGET = 1_000_000_000

_executor = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="odds")
_slots = threading.BoundedSemaphore(QUEUE)


class OddsBusy(AppError):
    status = 503
    code = "odds_busy"

    def __init__(self) -> None:
        super().__init__(_l("The server is already working out other odds; try again in a "
                            "moment."), field="expression", headers={"Retry-After": "1"})


@dataclass(frozen=True)
class Request:
    """A distribution asked for: the expression, and the target to reach when one was
    typed (compared as ``comparison``: ``>=`` reaches it)."""

    expression: str
    target: int | None
    comparison: str


def read_request(expression: object, target: object = "", comparison: object = ">=") -> Request:
    """The fields as typed, checked; each refusal names its field."""
    if not isinstance(expression, str) or not expression.strip():
        raise ValidationFailed(_l("Write a dice expression, for example 2d6+1."),
                               field="expression")
    if len(expression) > MAX_EXPRESSION:
        raise ValidationFailed(_l("A dice expression has at most %(n)s characters.",
                                  n=MAX_EXPRESSION), field="expression")
    validation.policed(expression, field="expression")
    if comparison not in odds.COMPARISONS:
        raise ValidationFailed(_l("Choose how the total meets the target."),
                               field="comparison")
    chosen = None
    text = str(target if target is not None else "").strip()
    if text:
        try:
            chosen = int(text)
        except ValueError:
            chosen = None
        if chosen is None or abs(chosen) > MAX_TARGET:
            raise ValidationFailed(_l("The target is a whole number, such as 15."),
                                   field="target")
    return Request(expression, chosen, str(comparison))


def _checked(expression: str) -> str:
    """The canonical text (the cache's key); a bad expression refused as the roller does."""
    try:
        return str(parse(expression))
    except NotationError as error:
        raise notation_failure(error) from error


@lru_cache(maxsize=512)
def _cached(canonical: str) -> odds.Distribution:
    return odds.distribution(canonical)


def _refusal(error: odds.OddsRefused) -> ValidationFailed:
    return ValidationFailed(rules_message(error), field="expression", code=error.code,
                            details={"reason": error.code, **error.fields})


def _too_long() -> ValidationFailed:
    return _refusal(odds.OddsRefused("odds_too_long", seconds=odds.MAX_SECONDS))


def _submit(work: Callable[[], T]) -> Future[T]:
    if not _slots.acquire(blocking=False):
        raise OddsBusy()
    future = _executor.submit(work)
    future.add_done_callback(lambda _: _slots.release())
    return future


def _unwrap(future: Future[T]) -> T:
    try:
        return future.result(timeout=0)
    except odds.OddsRefused as error:
        raise _refusal(error) from error


async def distribution(request: Request) -> odds.Distribution:
    """The exact distribution of ``request.expression`` (the event loop waits, no thread)."""
    canonical = _checked(request.expression)
    future = _submit(lambda: _cached(canonical))
    try:
        await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(future)),
                               odds.MAX_SECONDS + GRACE)
    except TimeoutError as error:
        raise _too_long() from error
    except odds.OddsRefused as error:
        raise _refusal(error) from error
    return _unwrap(future)


def distribution_now(request: Request) -> odds.Distribution:
    """The same, for a caller already in a thread (the table's dice field)."""
    canonical = _checked(request.expression)
    future = _submit(lambda: _cached(canonical))
    try:
        future.result(timeout=odds.MAX_SECONDS + GRACE)
    except FutureTimeout as error:
        raise _too_long() from error
    except odds.OddsRefused as error:
        raise _refusal(error) from error
    return _unwrap(future)


def action_odds(system: GameSystem, view: State, action: Mapping[str, Any],
                actor: Actor) -> Odds | None:
    """A game's odds for an action form, on ``view`` — the viewer's view of the match,
    never the whole state — or None when the game gives none for this form."""
    game_odds = getattr(system, "odds", None)
    if game_odds is None or action.get("kind") not in getattr(system, "odds_kinds", ()):
        return None
    future = _submit(lambda: game_odds(view, action, actor))
    try:
        return future.result(timeout=odds.MAX_SECONDS + GRACE)
    except FutureTimeout as error:
        raise _too_long() from error
    except odds.OddsRefused as error:
        raise _refusal(error) from error


def match_odds(*, db: Session, access: CampaignAccess, match_id: int,
               action: Mapping[str, Any]) -> Odds | None:
    """The odds of the action a member's form names now: the game's ``odds`` on what this
    member may see of the match (``tables.viewer_state``: the game's view, then the map's),
    never the whole state, so a GM's secret is not in a player's odds."""
    match = tables.get_match(db, access, match_id)
    actor = tables.actor_for(db, access)
    return action_odds(tables.system_of(match), tables.viewer_state(match, actor), action,
                       actor)
