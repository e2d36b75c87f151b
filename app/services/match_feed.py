"""One database read per match per notification, shared by every stream of that match.

A stream used to read its match's new events, and its viewer's membership, from the
database for itself: a thousand viewers of one match made a thousand reads of the same rows
for every event. A ``MatchFeed`` reads them once — the events after a seq, the match's seq,
and every member's role, in one session, *after* the notification that announced them —
and hands the same batch to every stream that asks for what it covers. Each stream then
filters and redacts the batch for its own viewer in the event loop (``tables.redact``).

Why sharing is safe: a batch is only served to a stream whose wanted range it covers
(``lo <= after`` and ``seq >= wanted``, ``wanted`` being the seq the notification named), so
what a stream receives was read after the commit it was told about — the same guarantee as
reading for itself. A (re)connecting stream asks with ``fresh=True`` and always reads: its
backlog must not come from a batch read before it arrived. Membership is read in the same
batch, so a role removed or changed before an event is seen before that event is sent.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from app import tables
from app.models import Match, MatchEvent, Membership, Role
from app.rules.match import Actor

SessionFactory = Callable[[], Session]


@dataclass(frozen=True)
class Batch:
    """The match's events in ``(lo, seq]`` (at most a page: ``complete`` says whether they
    reach the match's current seq), and the campaign's members' roles, read together."""

    lo: int
    seq: int
    events: tuple[dict[str, Any], ...]
    roles: Mapping[int, Role]
    complete: bool
    found: bool = True

    # Each event serialised once per batch, whole or redacted (see ``as_json``).
    _json: dict[tuple[int, bool], str] = field(default_factory=dict, compare=False)

    def covers(self, after: int, wanted: int) -> bool:
        # An incomplete page covers nothing past its end: the rest must be read.
        return (self.found and self.lo <= after and self.seq >= wanted
                and (self.complete or after < self.seq))

    def after(self, seq: int) -> list[dict[str, Any]]:
        return [event for event in self.events if event["seq"] > seq]

    def as_json(self, event: dict[str, Any], actor: Actor) -> str:
        """The event as ``actor`` may see it, in JSON; every viewer who sees the same thing
        shares one serialisation."""
        visible = tables.may_see(event, actor)
        cached = self._json.get((event["seq"], visible))
        if cached is None:
            cached = json.dumps(tables.redact(event, actor), ensure_ascii=False,
                                separators=(",", ":"))
            self._json[(event["seq"], visible)] = cached
        return cached


@dataclass
class MatchFeed:
    sessionmaker: SessionFactory
    campaign_id: int
    match_id: int
    _latest: Batch | None = None
    _reading: dict[int, asyncio.Future[Batch]] = field(default_factory=dict)

    async def read(self, after: int, *, wanted: int = 0, fresh: bool = False) -> Batch:
        """A batch holding the events after ``after``, read after seq ``wanted`` committed.

        Concurrent callers with the same ``after`` share one read.
        """
        latest = self._latest
        if not fresh and latest is not None and latest.covers(after, wanted):
            return latest
        pending = self._reading.get(after)
        if pending is None or fresh:
            pending = asyncio.ensure_future(run_in_threadpool(self._load, after))
            if not fresh:
                self._reading[after] = pending
                pending.add_done_callback(lambda _done: self._reading.pop(after, None))
        batch = await asyncio.shield(pending)
        if batch.found and (self._latest is None or batch.seq >= self._latest.seq):
            self._latest = batch
        return batch

    def _load(self, after: int) -> Batch:
        with self.sessionmaker() as db:
            seq = db.scalar(select(Match.seq).where(Match.id == self.match_id,
                                                    Match.campaign_id == self.campaign_id))
            if seq is None:
                return Batch(after, after, (), {}, complete=True, found=False)
            rows = db.scalars(select(MatchEvent).where(
                MatchEvent.match_id == self.match_id, MatchEvent.seq > after,
                MatchEvent.seq <= seq).order_by(MatchEvent.seq).limit(tables.LOG_PAGE)).all()
            roles = dict(db.execute(select(Membership.user_id, Membership.role).where(
                Membership.campaign_id == self.campaign_id)).all())
        events = tuple(tables.event_dict(row) for row in rows)
        last = events[-1]["seq"] if events else seq
        return Batch(after, last, events, roles, complete=last >= seq)


class MatchFeeds:
    """The feeds of one process, one per watched match, dropped when nobody watches."""

    def __init__(self, sessionmaker: SessionFactory) -> None:
        self.sessionmaker = sessionmaker
        self._feeds: dict[int, MatchFeed] = {}
        self._watchers: dict[int, int] = {}

    def watch(self, campaign_id: int, match_id: int) -> MatchFeed:
        feed = self._feeds.get(match_id)
        if feed is None:
            feed = self._feeds[match_id] = MatchFeed(self.sessionmaker, campaign_id, match_id)
        self._watchers[match_id] = self._watchers.get(match_id, 0) + 1
        return feed

    def leave(self, match_id: int) -> None:
        left = self._watchers.get(match_id, 0) - 1
        if left > 0:
            self._watchers[match_id] = left
        else:
            self._watchers.pop(match_id, None)
            self._feeds.pop(match_id, None)

    def watched(self) -> int:
        return len(self._feeds)


class Viewer:
    """One viewer's side of a match feed: who they are, and the events they may see.

    The stream ends (``None``) when the viewer's role is no longer the one they connected
    with — removed, lowered, or raised: a stream filters for one role, and the browser
    reconnects with the new one — or when the match is gone.
    """

    def __init__(self, feeds: MatchFeeds, *, campaign_id: int, match_id: int, user_id: int,
                 role: Role) -> None:
        self._feeds, self.match_id = feeds, match_id
        self.feed = feeds.watch(campaign_id, match_id)
        self.role = role
        self.actor = Actor(user_id=user_id, is_gm=role is Role.GM,
                           is_spectator=role is Role.SPECTATOR)

    async def read(self, after: int, *, wanted: int, fresh: bool) -> Batch | None:
        batch = await self.feed.read(after, wanted=wanted, fresh=fresh)
        if not batch.found or batch.roles.get(self.actor.user_id) != self.role:
            return None
        return batch

    def close(self) -> None:
        self._feeds.leave(self.match_id)
