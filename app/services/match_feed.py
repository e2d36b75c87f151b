"""One database read per match per notification, shared by every stream of that match.

A stream used to subscribe to its match's notifications and read the new events, and its
viewer's membership, from the database for itself: a thousand viewers of one match made a
thousand reads of the same rows for every event. Now each watched match has one ``MatchFeed``
per process: its *pump* task holds the match's only broker subscription, and on each
notification reads — once (``app.db.run_db``) — the new events, the match's seq and every
member's role, then wakes the streams. Each stream filters and redacts that batch for its
own viewer in the event loop (``tables.redact``).

Why sharing is safe: a batch is used by a stream only if it covers what the stream has sent
(``lo <= sent``) — otherwise the stream reads for itself (``pull``) — and every batch was
read after the notification that announced its events, so after their commit. A
(re)connecting stream reads its backlog itself, after the pump has subscribed: nothing
committed meanwhile can fall between the two. Membership is read in the same batch as the
events, so a role removed or changed before an event is seen before that event is sent.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from app.db import run_db
from app.live import Broker
from app.models import Match, MatchEvent, Membership, Role
from app.rules.match import Actor
from app.services import tables
from app.services.match_publish import channel

logger = logging.getLogger(__name__)

SessionFactory = Callable[[], Session]
T = TypeVar("T")


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
    # Each event prepared once per batch, whole or redacted (see ``shared``).
    _shared: dict[tuple[object, ...], Any] = field(default_factory=dict, compare=False)

    def covers(self, sent: int) -> bool:
        """Everything after ``sent`` that this batch knows of is in it."""
        return self.found and self.lo <= sent

    def after(self, seq: int) -> list[dict[str, Any]]:
        return [event for event in self.events if event["seq"] > seq]

    def shared(self, event: dict[str, Any], actor: Actor,
               prepare: Callable[[dict[str, Any]], Any]) -> Any:
        """``prepare(the event as actor may see it)``, made once per batch for each way the
        event can be seen (whole or redacted): every viewer who sees the same thing shares
        it — for a stream, its JSON and its encoded bytes."""
        visible = tables.may_see(event, actor)
        key = (prepare, event["seq"], visible)
        prepared = self._shared.get(key)
        if prepared is None:
            prepared = self._shared[key] = prepare(tables.redact(event, actor))
        return prepared

    def once(self, key: tuple[object, ...], make: Callable[[], Any]) -> Any:
        """``make()``, made once per batch for ``key``: what every stream of one viewer
        makes alike (``streams.FeedSource``: the chunk for an actor from a position)."""
        made = self._shared.get(key)
        if made is None:
            made = self._shared[key] = make()
        return made

    def known(self, key: tuple[object, ...]) -> Any:
        """What ``once`` made for ``key`` in this batch, if it did (else None)."""
        return self._shared.get(key)

    def as_json(self, event: dict[str, Any], actor: Actor) -> str:
        """The event as ``actor`` may see it, in JSON (shared like ``shared``)."""
        return self.shared(event, actor, to_json)


def to_json(event: dict[str, Any]) -> str:
    return json.dumps(event, ensure_ascii=False, separators=(",", ":"))


# The feed's three reads, built once (Core statements on the session's connection: the ORM
# adds nothing to rows that are only read and turned into dicts).
_events = MatchEvent.__table__
_SEQ = select(Match.seq).where(Match.id == bindparam("match_id"),
                               Match.campaign_id == bindparam("campaign_id"))
_EVENTS = (select(_events).where(_events.c.match_id == bindparam("match_id"),
                                 _events.c.seq > bindparam("lo"),
                                 _events.c.seq <= bindparam("seq"))
           .order_by(_events.c.seq).limit(tables.LOG_PAGE))
_ROLES = select(Membership.user_id, Membership.role).where(
    Membership.campaign_id == bindparam("campaign_id"))


def load_batch(sessionmaker: SessionFactory, campaign_id: int, match_id: int,
               after: int | None) -> Batch:
    """Events after ``after`` (``None``: none, from the current seq), the seq, the roles."""
    ids = {"campaign_id": campaign_id, "match_id": match_id}
    with sessionmaker() as db:
        connection = db.connection()
        seq = connection.execute(_SEQ, ids).scalar()
        if seq is None:
            return Batch(after or 0, after or 0, (), {}, complete=True, found=False)
        lo = seq if after is None else after
        rows = connection.execute(_EVENTS, {**ids, "lo": lo, "seq": seq}).all() \
            if seq > lo else []
        roles = dict(connection.execute(_ROLES, ids).all())
    events = tuple(tables.event_dict(row) for row in rows)  # type: ignore[arg-type]
    last = events[-1]["seq"] if events else max(lo, seq)
    return Batch(lo, last, events, roles, complete=last >= seq)


class Served:
    """A stream waiting on a feed whose news the pump writes for it (``serve``), until one
    that it declines, or the feed's end, wakes the stream's task."""

    __slots__ = ("sent", "serve", "viewer", "woken")

    def __init__(self, viewer: Viewer, sent: int,
                 serve: Callable[[Batch, int], int | None]) -> None:
        self.viewer, self.sent, self.serve = viewer, sent, serve
        self.woken: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def take(self, batch: Batch) -> bool:
        """Serve ``batch`` if it can be: False when the stream's task must take it."""
        if self.woken.done():
            return False
        if batch.seq <= self.sent:
            return True  # nothing new for this stream
        if not self.viewer.may_use(batch, self.sent):
            return False
        try:
            reached = self.serve(batch, self.sent)
        except Exception:  # a bug in one stream's rendering must not stop the feed
            logger.exception("live: serving a stream of match %s failed",
                             self.viewer.match_id)
            return False
        if reached is None:
            return False
        self.sent = reached
        self.viewer.used(batch)
        return True

    def wake(self) -> None:
        if not self.woken.done():
            self.woken.set_result(None)


class MatchFeed:
    """A watched match in this process: one subscription, one read per notification."""

    def __init__(self, broker: Broker, sessionmaker: SessionFactory, campaign_id: int,
                 match_id: int) -> None:
        self.broker, self.sessionmaker = broker, sessionmaker
        self.campaign_id, self.match_id = campaign_id, match_id
        self.latest: Batch | None = None
        self.ended = False
        # Streams waiting whose news the pump writes itself (``Viewer.wait_served``).
        self._served: dict[Served, None] = {}
        self._changed = asyncio.Event()
        self._ready = asyncio.Event()
        self._pump = asyncio.create_task(self._run(), name=f"match-feed-{match_id}")

    async def ready(self) -> None:
        """Return once the pump listens: a read made after this misses no notification."""
        await self._ready.wait()

    async def pull(self, after: int) -> Batch:
        """A batch read now for one stream (its backlog, or when it lags behind the pump)."""
        return await run_db(self.sessionmaker, load_batch, self.sessionmaker,
                            self.campaign_id, self.match_id, after)

    async def wait_past(self, seq: int) -> bool:
        """Wait until the pump has a batch past ``seq``; False when the feed ended."""
        while not self.ended:
            if self.latest is not None and self.latest.seq > seq:
                return True
            await self._changed.wait()
        return False

    def stop(self) -> None:
        self._pump.cancel()

    # -- the pump --------------------------------------------------------------------------

    async def _run(self) -> None:
        try:
            while not self.ended:
                async with self.broker.subscribe(channel(self.match_id)) as subscription:
                    await self._publish(await self.pull_after_latest())
                    self._ready.set()
                    async for message in subscription:
                        seq = message.get("seq") if isinstance(message, dict) else None
                        if self.latest is not None and isinstance(seq, int) \
                                and seq <= self.latest.seq:
                            continue  # already read
                        await self._publish(await self.pull_after_latest())
                if not subscription.resumable:  # the broker closed
                    break
        except asyncio.CancelledError:
            raise
        except Exception:  # a failed read: end the streams, browsers reconnect and resume
            logger.exception("live: the feed of match %s failed", self.match_id)
        finally:
            self._end()

    async def pull_after_latest(self) -> Batch:
        batch = await self.pull(self.latest.seq if self.latest is not None else None)
        while not batch.complete and batch.found:  # more than a page arrived at once
            await self._publish(batch)
            batch = await self.pull(batch.seq)
        return batch

    async def _publish(self, batch: Batch) -> None:
        if not batch.found:
            self._end()
            return
        self.latest = batch
        # The waiting streams that can be served at once are, in this one pass: a thousand
        # writes cost less than a thousand tasks woken to make them (docs/live.md).
        declined = [served for served in self._served if not served.take(batch)]
        for served in declined:
            served.wake()
        woken, self._changed = self._changed, asyncio.Event()
        woken.set()
        await asyncio.sleep(0)  # let the woken streams take this batch before the next

    def serve_while_waiting(self, served: Served) -> None:
        self._served[served] = None

    def stop_serving(self, served: Served) -> None:
        self._served.pop(served, None)

    def _end(self) -> None:
        self.ended = True
        self._ready.set()
        self._changed.set()
        for served in list(self._served):
            served.wake()


class MatchFeeds:
    """The feeds of one process, one per watched match, stopped when nobody watches."""

    def __init__(self, broker: Broker, sessionmaker: SessionFactory) -> None:
        self.broker, self.sessionmaker = broker, sessionmaker
        self._feeds: dict[int, MatchFeed] = {}
        self._watchers: dict[int, int] = {}

    @asynccontextmanager
    async def watching(self, campaign_id: int, match_id: int) -> AsyncIterator[MatchFeed]:
        feed = self._feeds.get(match_id)
        if feed is None or feed.ended:
            feed = self._feeds[match_id] = MatchFeed(self.broker, self.sessionmaker,
                                                     campaign_id, match_id)
            self._watchers[match_id] = 0
        self._watchers[match_id] += 1
        try:
            await feed.ready()
            yield feed
        finally:
            self._watchers[match_id] -= 1
            if self._watchers[match_id] == 0 and self._feeds.get(match_id) is feed:
                del self._feeds[match_id], self._watchers[match_id]
                feed.stop()

    def watched(self) -> int:
        return len(self._feeds)


class Viewer:
    """One viewer's side of a match feed: who they are, and the batches they may use.

    ``None`` ends the stream: the viewer's role is no longer the one they connected with —
    removed, lowered, or raised: a stream filters for one role, and the browser reconnects
    with the new one — or the match is gone.
    """

    def __init__(self, feeds: MatchFeeds, *, campaign_id: int, match_id: int, user_id: int,
                 role: Role) -> None:
        self.feeds, self.campaign_id, self.match_id = feeds, campaign_id, match_id
        self.role = role
        self.actor = Actor(user_id=user_id, is_gm=role is Role.GM,
                           is_spectator=role is Role.SPECTATOR)
        self.feed: MatchFeed | None = None
        self._used: Batch | None = None  # the last batch ``read`` handed out

    @asynccontextmanager
    async def watching(self) -> AsyncIterator[None]:
        async with self.feeds.watching(self.campaign_id, self.match_id) as feed:
            self.feed = feed
            yield

    async def read(self, sent: int, *, fresh: bool) -> Batch | None:
        """The batch holding what comes after ``sent``: the pump's if it covers it, else
        one read for this viewer (on connecting, or when lagging behind)."""
        assert self.feed is not None, "read inside watching()"
        latest = self.feed.latest
        if fresh or latest is None or not latest.covers(sent):
            latest = await self.feed.pull(sent)
        if not self.allowed(latest):
            return None
        self._used = latest
        return latest

    def allowed(self, batch: Batch) -> bool:
        """The match exists and the viewer still has the role they connected with."""
        return batch.found and batch.roles.get(self.actor.user_id) == self.role

    def may_use(self, batch: Batch, sent: int) -> bool:
        """``batch`` may be sent to this viewer from ``sent`` on, as it is."""
        return batch.covers(sent) and self.allowed(batch)

    def remember(self, batch: Batch, key: tuple[object, ...] | None,
                 make: Callable[[], T]) -> T:
        """``make()``, made once for ``key`` by the streams of this match: kept in ``batch``,
        or lent by the pump's latest batch when that one made it already (a stream that
        reconnects reads a batch of its own). Safe only because a key names everything
        its value is made from — any batch of the match may then lend it. ``None``: made
        for this caller alone."""
        if key is None:
            return make()
        latest = self.feed.latest if self.feed is not None else None
        if latest is not None and latest is not batch:
            found = latest.known(key)
            if found is not None:
                return found
        return batch.once(key, make)

    def used(self, batch: Batch) -> None:
        """``batch`` was sent, written for this viewer while it waited (``caught_up``)."""
        self._used = batch

    def caught_up(self, sent: int) -> bool:
        """``sent`` reached the end of the last batch read, and that batch reached the
        match's seq when it was read: the next news can only come from the pump (a stream
        of a thousand viewers then waits at once instead of reading an empty batch)."""
        used = self._used
        return used is not None and used.complete and sent >= used.seq

    async def wait(self, sent: int) -> bool:
        assert self.feed is not None, "wait inside watching()"
        return await self.feed.wait_past(sent)

    async def wait_served(self, sent: int, serve: Callable[[Batch, int], int | None]
                          ) -> int | None:
        """Wait for news after ``sent`` while the pump writes what it can itself
        (``serve(batch, sent)``: the position written up to, or ``None`` to decline).
        Returns the position reached once the stream's task has something to do — a batch
        declined, or news that came before this wait — and ``None`` when the feed ended."""
        feed = self.feed
        assert feed is not None, "wait inside watching()"
        if feed.ended:
            return None
        latest = feed.latest
        if latest is not None and latest.seq > sent:
            return sent  # news came while the stream was busy: its task reads it
        served = Served(self, sent, serve)
        feed.serve_while_waiting(served)
        try:
            await served.woken
        finally:
            feed.stop_serving(served)
        return None if feed.ended else served.sent
