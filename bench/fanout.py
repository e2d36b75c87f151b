"""Fan-out: one event to 1,000 SSE subscribers of one worker, and memory per connection.

1,000 streams watch one ``libre`` match, shared among its 6 members (GM, 4 players, a
spectator). The GM posts a public roll; the figure is the time from sending the POST until
the last stream has the event (the median of a few rounds; each round's first arrival is
printed too). Memory: the server's resident set before and after opening the streams,
÷ their number. Python rarely gives memory back, so this is measured first, before any
other stream existed (``python -m bench`` runs this part before the latency one).
"""

from __future__ import annotations

import asyncio
import statistics
import time

import httpx

from bench.client import close_all, last_arrival, open_viewers
from bench.report import Figure, table
from bench.seating import Table, act
from bench.server import Server

SETTLE_SECONDS = 0.5
DELIVERY_TIMEOUT = 60.0


async def run(client: httpx.AsyncClient, server: Server, table_: Table, *, streams: int,
              rounds: int) -> list[Figure]:
    gm = table_.members[0]
    path = table_.path + "/stream"
    await _warm_up(client, server, table_)
    await asyncio.sleep(SETTLE_SECONDS)
    before = server.rss_kib()
    opened = time.perf_counter()
    specs = [(path, table_.members[i % len(table_.members)].token, table_.seq)
             for i in range(streams)]
    viewers = await open_viewers(specs, server.url, concurrency=64)
    opening = time.perf_counter() - opened
    try:
        # One unmeasured event: every stream has subscribed and gone back to waiting.
        await last_arrival(viewers, await act(client, table_, gm), DELIVERY_TIMEOUT)
        await asyncio.sleep(SETTLE_SECONDS)
        after = server.rss_kib()
        rows, lasts, cpu = [], [], []
        for _ in range(rounds):
            cpu_before = server.cpu_seconds()
            sent = time.perf_counter()
            seq = await act(client, table_, gm)
            answered = time.perf_counter()
            times = await asyncio.wait_for(
                asyncio.gather(*(viewer.arrival(seq) for viewer in viewers)), DELIVERY_TIMEOUT)
            last = max(times) - sent
            lasts.append(last * 1000)
            cpu.append((server.cpu_seconds() - cpu_before) * 1000)
            rows.append((seq, f"{(answered - sent) * 1000:.1f}",
                         f"{(min(times) - sent) * 1000:.1f}", f"{last * 1000:.1f}",
                         f"{cpu[-1]:.1f}"))
            await asyncio.sleep(SETTLE_SECONDS)
    finally:
        close_all(viewers)
    per_stream = (after - before) / streams
    print(f"Fan-out: {streams} SSE streams on one match (opened in {opening:.1f} s); "
          f"server RSS {before / 1024:.1f} MiB → {after / 1024:.1f} MiB")
    print(table(rows, ("seq", "POST → response ms", "first viewer ms", "last viewer ms",
                       "server CPU ms")))
    # CPU time is what a busy machine disturbs least: the server's CPU for one action and
    # its fan-out, ÷ the streams, is the per-stream cost to compare before/after.
    print(f"Server CPU per stream per event (median): "
          f"{statistics.median(cpu) * 1000 / streams:.1f} µs")
    return [Figure(f"fan-out: 1 event → {streams} subscribers, last (median)",
                   statistics.median(lasts), " ms", aim=50),
            Figure("fan-out: server CPU per stream per event", statistics.median(cpu) * 1000
                   / streams, " µs"),
            Figure("memory per SSE connection", per_stream, " KiB", aim=100)]


async def _warm_up(client: httpx.AsyncClient, server: Server, table_: Table) -> None:
    """Open, feed and close a few streams, so the baseline includes what the first stream
    loads once (imports, pools), not what each one costs."""
    viewers = await open_viewers([(table_.path + "/stream", m.token, table_.seq)
                                  for m in table_.members], server.url)
    try:
        for _ in range(3):
            await last_arrival(viewers, await act(client, table_, table_.members[0]),
                               DELIVERY_TIMEOUT)
    finally:
        close_all(viewers)
    table_.seq = await act(client, table_, table_.members[0])
