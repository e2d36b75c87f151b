"""Actions per second ÷ a bare FastAPI endpoint doing one SQLite insert, same run.

The same load on both servers: ``concurrency`` clients, each on its own keep-alive
connection, sending its next request as soon as the last one is answered, for a fixed
number of requests in all. On Tablée each client is a player of its own table posting a
public free roll (no stream is open: this is the action path alone); on the baseline it
posts one row. The two are measured back to back, twice each, alternating, and each keeps
its better run.

The clients are ``bench.client.Connection``, not httpx: httpx spends more CPU per request
than the bare endpoint does, and on two cores the baseline would measure the load
generator. The CPU each server and the load generator spent per request is printed, to
show that it does not.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from bench.client import Connection, close_all, connect
from bench.report import Figure, table
from bench.seating import ROLL, Table
from bench.server import Server

Request = Callable[[Connection, int], Awaitable[None]]


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

    runs: dict[str, list[Rate]] = {"bare": [], "tablee": []}
    for _ in range(2):
        runs["bare"].append(await _rate(insert, bare_server, total // 2, concurrency))
        runs["tablee"].append(await _rate(action, tablee_server, total // 2, concurrency))
    best = {name: max(rates, key=lambda rate: rate.per_second) for name, rates in runs.items()}
    print(f"Throughput: {concurrency} concurrent clients, {total // 2} requests per run, "
          "best of 2 runs each")
    print(table([_row("bare FastAPI + 1 SQLite insert", best["bare"], runs["bare"]),
                 _row("Tablée action (public roll)", best["tablee"], runs["tablee"])],
                ("server", "requests/s", "runs", "server CPU/request", "client CPU/request")))
    ratio = best["tablee"].per_second / best["bare"].per_second
    return [Figure("actions/s", best["tablee"].per_second, "/s"),
            Figure("actions/s ÷ bare insert/s", ratio, "", aim=0.4, direction="min",
                   is_ratio=True)]


def _row(label: str, best: Rate, rates: list[Rate]) -> tuple[str, ...]:
    return (label, f"{best.per_second:.0f}", " / ".join(f"{r.per_second:.0f}" for r in rates),
            f"{best.server_ms:.2f} ms", f"{best.client_ms:.2f} ms")
