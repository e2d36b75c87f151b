"""Cost growth: action latency on a match with 10,000 events ÷ on a match with 10.

The snapshot (``matches.state`` + ``seq``) is what an action reads, so its cost should not
depend on how long the log is. Two matches of one campaign, each watched by its GM's
stream: a fresh one brought to 10 events, and one whose log is seeded to 10,000 events.
Actions alternate between them (so any drift of the machine hits both alike); the figure
is the ratio of their median POST → delivered latencies.

Seeding 10,000 events through HTTP would take most of the bench's time budget, so they are
written in this process, on the same database file, while the server idles: the rules
judge each action (``system.decide``, a public roll or a note in turn) and ``tables._append``
— the very function ``apply_action`` uses — stores them, with the snapshot and the signed
roll log, a thousand events per transaction.
"""

from __future__ import annotations

import asyncio
import copy
import random
import time

import httpx
from sqlalchemy import select

from app.db import make_engine, make_sessionmaker, write_transaction
from app.models import User
from app.rules.dice import SeededDice
from app.services import tables
from app.services.access import load_campaign_access
from bench.client import close_all, last_arrival, open_viewers
from bench.report import Figure, percentile, table
from bench.seating import ROLL, Table, act, create_match, seat_table
from bench.server import Instance, Server

SHORT, LONG = 10, 10_000
BATCH = 1_000
DELIVERY_TIMEOUT = 10.0


async def prepare(client: httpx.AsyncClient, instance: Instance) -> tuple[Table, Table, float]:
    """The two matches (short, long), and how long seeding the long log took."""
    short = await seat_table(client, "growth", players=0, spectators=0)
    long_id, _ = await create_match(client, short.members[0], short.campaign_id, "Long")
    long = Table(short.campaign_id, long_id, short.members)
    while short.seq < SHORT:
        short.seq = await act(client, short, short.members[0])
    started = time.perf_counter()
    long.seq = await asyncio.to_thread(seed_log, instance, long, LONG)
    return short, long, time.perf_counter() - started


def seed_log(instance: Instance, match: Table, events: int) -> int:
    """Judge and append actions to ``match`` until its log holds ``events`` events."""
    settings = instance.settings()
    engine = make_engine(instance.database_url)
    sessionmaker = make_sessionmaker(engine)
    dice = SeededDice(1)
    actions = [ROLL, {"kind": "note", "text": "Le vent se lève sur la lande."}]
    try:
        while True:
            with sessionmaker() as db:
                user = db.scalar(select(User).where(User.id == match.members[0].id))
                access = load_campaign_access(db, user, match.campaign_id)
                actor = tables.actor_for(db, access)
                with write_transaction(db):
                    row = tables.get_match(db, access, match.match_id, for_update=True)
                    todo = min(BATCH, events - row.seq)
                    if todo <= 0:
                        return row.seq
                    system = tables.system_of(row)
                    state, judged = copy.deepcopy(row.state), []
                    for index in range(todo):
                        new = system.decide(state, actions[index % 2], actor, dice)
                        for event in new:
                            state = system.evolve(state, event)
                        judged += new
                    tables._append(db, settings.resolved_secret_key, row, system, judged,
                                   actor=user.id)
    finally:
        engine.dispose()


async def run(client: httpx.AsyncClient, server: Server, short: Table, long: Table, *,
              samples: int, seeding: float) -> list[Figure]:
    gm = short.members[0]
    # One after the other: this part is about the log's length, not about connecting.
    viewers = await open_viewers([(short.path + "/stream", gm.token, short.seq),
                                  (long.path + "/stream", gm.token, long.seq)], server.url,
                                 concurrency=1)
    results: dict[str, list[float]] = {"short": [], "long": []}
    posts: dict[str, list[float]] = {"short": [], "long": []}
    rng = random.Random(7)
    try:
        for turn in range(samples + 5):
            order = [("short", short, viewers[0]), ("long", long, viewers[1])]
            rng.shuffle(order)
            for name, match, viewer in order:
                sent = time.perf_counter()
                seq = await act(client, match, gm)
                answered = time.perf_counter()
                arrived = await last_arrival([viewer], seq, DELIVERY_TIMEOUT)
                if turn >= 5:  # the first few warm up both paths
                    results[name].append((arrived - sent) * 1000)
                    posts[name].append((answered - sent) * 1000)
    finally:
        close_all(viewers)
    p50 = {name: percentile(values, .5) for name, values in results.items()}
    print(f"Cost growth: {samples} actions on each match, alternating "
          f"(the long log was seeded with {LONG:,} events in {seeding:.1f} s)")
    print(table([(f"{SHORT:,} events", f"{percentile(posts['short'], .5):.1f}",
                  f"{p50['short']:.1f}", f"{percentile(results['short'], .99):.1f}"),
                 (f"{LONG:,} events", f"{percentile(posts['long'], .5):.1f}",
                  f"{p50['long']:.1f}", f"{percentile(results['long'], .99):.1f}")],
                ("match log", "POST p50 ms", "delivered p50 ms", "delivered p99 ms")))
    return [Figure(f"cost growth: p50 at {LONG:,} ÷ at {SHORT} events", p50["long"] / p50["short"],
                   "", aim=1.3, is_ratio=True)]
