"""Action latency at a busy instance: POST → committed → delivered to a table's last viewer.

50 ``libre`` tables, each with 6 members watching the match's API stream (GM, 4 players, a
spectator: 300 SSE connections). A sample is the time from sending the POST of a public
free roll to the moment the last of that table's 6 viewers has the event. Two phases:

- one at a time: actions one after another, going round the tables — the latency of an
  action while 300 streams are open, with no queueing behind other actions;
- all playing: every table plays on its own, acting after a random think time (``interval``
  seconds on average), so the server sees about ``tables / interval`` actions per second,
  each fanned out to 6 streams that re-read the event from the database for their viewer.
"""

from __future__ import annotations

import asyncio
import random
import time

import httpx

from bench.client import StreamError, Viewer, close_all, last_arrival, open_viewers
from bench.report import Figure, percentile, table
from bench.seating import Member, Table, act
from bench.server import Server

DELIVERY_TIMEOUT = 10.0


async def run(client: httpx.AsyncClient, server: Server, tables: list[Table], *,
              rounds: int, interval: float, solo: int) -> list[Figure]:
    specs = [(t.path + "/stream", m.token, t.seq) for t in tables for m in t.members]
    viewers = await open_viewers(specs, server.url)
    by_table = [viewers[i * len(t.members):(i + 1) * len(t.members)]
                for i, t in enumerate(tables)]
    try:
        # One unmeasured action per table: every stream is now subscribed and waiting.
        await asyncio.gather(*(_play(client, t, v, random.Random(0), rounds=1, interval=0)
                               for t, v in zip(tables, by_table, strict=True)))
        alone = await _one_at_a_time(client, tables, by_table, solo)
        started = time.perf_counter()
        results = await asyncio.gather(*(
            _play(client, t, v, random.Random(index), rounds=rounds, interval=interval)
            for index, (t, v) in enumerate(zip(tables, by_table, strict=True))))
        elapsed = time.perf_counter() - started
    finally:
        close_all(viewers)
    busy = Samples()
    for result in results:
        busy.add(result)
    return _report(len(tables), len(viewers), interval, alone, busy, elapsed)


class Samples:
    """Latencies in ms: POST → response, and POST → the last of the table's viewers."""

    def __init__(self) -> None:
        self.posted: list[float] = []
        self.delivered: list[float] = []
        self.lost = 0

    def add(self, other: Samples) -> None:
        self.posted += other.posted
        self.delivered += other.delivered
        self.lost += other.lost

    def row(self, label: str) -> tuple[str, ...]:
        post, last = self.posted, self.delivered
        return (label, f"{len(post)}", f"{percentile(post, .5):.1f}",
                f"{percentile(post, .99):.1f}", f"{percentile(last, .5):.1f}",
                f"{percentile(last, .99):.1f}", f"{max(last, default=float('nan')):.1f}")


async def _action(client: httpx.AsyncClient, table_: Table, viewers: list[Viewer],
                  actor: Member, samples: Samples) -> None:
    sent = time.perf_counter()
    seq = await act(client, table_, actor)
    samples.posted.append((time.perf_counter() - sent) * 1000)
    try:
        samples.delivered.append((await last_arrival(viewers, seq, DELIVERY_TIMEOUT) - sent)
                                 * 1000)
    except (StreamError, TimeoutError):
        samples.lost += 1


async def _one_at_a_time(client: httpx.AsyncClient, tables: list[Table],
                         by_table: list[list[Viewer]], count: int) -> Samples:
    """Actions one after another, going round the tables: latency without queueing."""
    samples = Samples()
    for turn in range(count):
        index = turn % len(tables)
        actors = tables[index].actors
        await _action(client, tables[index], by_table[index],
                      actors[(turn // len(tables)) % len(actors)], samples)
    return samples


async def _play(client: httpx.AsyncClient, table_: Table, viewers: list[Viewer],
                rng: random.Random, *, rounds: int, interval: float) -> Samples:
    """One table's session: ``rounds`` actions, each by the next member who may act."""
    samples = Samples()
    actors = table_.actors
    for turn in range(rounds):
        await asyncio.sleep(rng.uniform(0, 2 * interval))
        await _action(client, table_, viewers, actors[turn % len(actors)], samples)
    return samples


def _report(tables: int, streams: int, interval: float, alone: Samples, busy: Samples,
            elapsed: float) -> list[Figure]:
    per_table = streams // tables
    rate = len(busy.posted) / elapsed
    lost = alone.lost + busy.lost
    print(f"Action latency: {tables} tables × {per_table} viewers = {streams} SSE streams "
          f"open{f'; {lost} actions NOT DELIVERED to every viewer' if lost else ''}")
    print(f"  one at a time: one action after another, round the tables\n"
          f"  all playing: every table acts after a think time of {interval:g} s on average; "
          f"{rate:.0f} actions/s, {rate * per_table:.0f} deliveries/s")
    print(table([alone.row("one at a time"), busy.row("all playing")],
                ("ms", "actions", "POST p50", "POST p99", "last viewer p50",
                 "last viewer p99", "max")))
    label = f"{tables}×{per_table} viewers"
    figures = [
        Figure(f"action latency p50, one at a time ({label})",
               percentile(alone.delivered, .5), " ms"),
        Figure(f"action latency p99, one at a time ({label})",
               percentile(alone.delivered, .99), " ms", aim=50),
        Figure(f"action latency p50, all playing ({rate:.0f} actions/s)",
               percentile(busy.delivered, .5), " ms"),
        Figure(f"action latency p99, all playing ({rate:.0f} actions/s)",
               percentile(busy.delivered, .99), " ms", aim=50),
    ]
    if lost:
        figures.append(Figure("actions not delivered to every viewer", lost, "", aim=0))
    return figures
