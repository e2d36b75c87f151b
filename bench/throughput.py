"""Actions per second ÷ a bare FastAPI endpoint doing one SQLite insert, same run.

The same load on both servers: ``concurrency`` clients, each on its own keep-alive
connection, sending its next request as soon as the last one is answered, for a fixed
number of requests in all. On Tablée each client is a player of its own table posting a
public free roll (no stream is open: this is the action path alone); on the baseline it
posts one row. The two are measured in pairs, back to back (the baseline, then Tablée),
``PAIRS`` times; the figure is the median of the pairs' ratios. A pair sees the same
moment of a shared machine, so a burst of other work slows both sides of it, and the
median leaves out the pair it caught half-way (best-of-two per server let one such burst
decide: docs/benchmarks.md § Actions per second).

The clients are ``bench.client.Connection``, not httpx: httpx spends more CPU per request
than the bare endpoint does, and on two cores the baseline would measure the load
generator. The CPU each server and the load generator spent per request is printed, to
show that it does not.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from bench.client import Connection, close_all, connect
from bench.report import Figure, table
from bench.seating import ROLL, Table
from bench.server import Server

Request = Callable[[Connection, int], Awaitable[None]]
PAIRS = 5


@dataclass
class Rate:
    """One timed run: requests per second, and CPU per request on each side (ms)."""

    per_second: float
    server_ms: float
    client_ms: float


async def _rate(request: Request, server: Server, total: int, concurrency: int) -> Rate:
    """Requests per second with ``concurrency`` clients; ``request(connection, index)``.

    Each run opens its own connections (uvicorn closes idle keep-alive connections after
    five seconds, and the other server's run may last longer than that).
    """
    connections = [await connect(server.url) for _ in range(concurrency)]
    remaining = total

    async def client_loop(index: int) -> None:
        nonlocal remaining
        while remaining > 0:
            remaining -= 1
            await request(connections[index], index)

    try:
        await asyncio.gather(*(request(connections[index], index)  # warm up
                               for index in range(concurrency)))
        server_cpu, own_cpu = server.cpu_seconds(), time.process_time()
        started = time.perf_counter()
        await asyncio.gather(*(client_loop(index) for index in range(concurrency)))
        elapsed = time.perf_counter() - started
    finally:
        close_all(connections)
    return Rate(total / elapsed, (server.cpu_seconds() - server_cpu) * 1000 / total,
                (time.process_time() - own_cpu) * 1000 / total)


async def run(tables: list[Table], servers: tuple[Server, Server], *, total: int,
              concurrency: int) -> list[Figure]:
    """``servers``: Tablée's and the baseline's."""
    tablee_server, bare_server = servers
    players = [(tables[i % len(tables)], tables[i % len(tables)].actors[1 + i // len(tables)])
               for i in range(concurrency)]
    host = urlsplit(tablee_server.url).netloc
    bare_host = urlsplit(bare_server.url).netloc
    roll = json.dumps({"action": ROLL, "seq": None}).encode()
    row = json.dumps({"text": "1d20+5"}).encode()

    async def action(connection: Connection, index: int) -> None:
        table_, player = players[index]
        status, body = await connection.post(host, f"{table_.path}/actions", roll,
                                             player.headers)
        if status != 200:
            raise RuntimeError(f"action refused: {status} {body[:200]!r}")

    async def insert(connection: Connection, index: int) -> None:
        status, body = await connection.post(bare_host, "/rows", row)
        if status != 201:
            raise RuntimeError(f"bare endpoint: {status} {body[:200]!r}")

    per_run = max(total // PAIRS, concurrency)
    pairs: list[tuple[Rate, Rate]] = []
    for _ in range(PAIRS):
        bare = await _rate(insert, bare_server, per_run, concurrency)
        pairs.append((bare, await _rate(action, tablee_server, per_run, concurrency)))
    ratios = [tablee.per_second / bare.per_second for bare, tablee in pairs]
    print(f"Throughput: {concurrency} concurrent clients, {per_run} requests per run, "
          f"{PAIRS} pairs of runs (the baseline, then Tablée); medians")
    print(table([_row("bare FastAPI + 1 SQLite insert", [bare for bare, _ in pairs]),
                 _row("Tablée action (public roll)", [tablee for _, tablee in pairs])],
                ("server", "requests/s", "runs", "server CPU/request", "client CPU/request")))
    print("Ratio of each pair: " + ", ".join(f"{ratio:.2f}" for ratio in ratios))
    return [Figure("actions/s", statistics.median(t.per_second for _, t in pairs), "/s"),
            Figure("actions/s ÷ bare insert/s (median of pairs)", statistics.median(ratios),
                   "", aim=0.4, direction="min", is_ratio=True)]


def _row(label: str, rates: list[Rate]) -> tuple[str, ...]:
    median = statistics.median
    return (label, f"{median(r.per_second for r in rates):.0f}",
            " / ".join(f"{r.per_second:.0f}" for r in rates),
            f"{median(r.server_ms for r in rates):.2f} ms",
            f"{median(r.client_ms for r in rates):.2f} ms")
