"""``python -m bench [--quick] [PART ...]``: run the benchmark and print its figures.

Parts: rolls, odds, simulations, fanout, latency, growth, throughput (all by default, in that
order). Every server part shares one Tablée server (a subprocess) on a fresh SQLite database
in a temporary directory; nothing is asserted, the figures are printed with their aims.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import sqlite3
import sys
import tempfile
import time
from collections.abc import Awaitable
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import httpx

from bench import fanout, growth, latency, odds, rolls, simulations, throughput
from bench.client import api_client
from bench.report import Figure, summary
from bench.seating import Member, Table, register, seat_table, seat_tables
from bench.server import (
    Instance,
    Server,
    bare,
    machine_cpu_seconds,
    new_instance,
    raise_open_files,
    tablee,
)

PARTS = ("rolls", "odds", "simulations", "fanout", "latency", "growth", "throughput")
SERVER_PARTS = frozenset(PARTS) - {"rolls", "odds", "simulations"}


@dataclass(frozen=True)
class Scale:
    """How big a run is; ``--quick`` shrinks the counts, not the shape."""

    tables: int = 50
    solo: int = 100  # actions one at a time in the latency part
    rounds: int = 8  # actions per table when all tables play
    interval: float = 5.0  # mean think time of a table, in seconds
    streams: int = 1_000
    fanout_rounds: int = 5
    growth_samples: int = 150
    requests: int = 3_000
    concurrency: int = 8


QUICK = Scale(tables=20, solo=40, rounds=4, streams=1_000, fanout_rounds=2,
              growth_samples=50, requests=800)


def _machine() -> str:
    cpu = next((line.split(":", 1)[1].strip()
                for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor() or "?")
    return (f"{platform.node()}: {cpu}, {os.cpu_count()} cores, {platform.system()} "
            f"{platform.release()}; Python {platform.python_version()}, SQLite "
            f"{sqlite3.sqlite_version}")


def _busy(seconds: float = 1.0) -> float:
    """The share of the machine's CPU time others used over ``seconds``: a test suite or
    another server on the same two cores makes every figure noisy."""
    before, started = machine_cpu_seconds(), time.perf_counter()
    time.sleep(seconds)
    elapsed = time.perf_counter() - started
    return (machine_cpu_seconds() - before) / (elapsed * (os.cpu_count() or 1))


def _event_loop() -> str:
    try:
        import uvloop
    except ImportError:
        return "asyncio"
    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    return "uvloop"


@dataclass
class Run:
    """What a run produced: figures, and the parts that could not be measured."""

    figures: list[Figure] = field(default_factory=list)
    failures: list[tuple[str, str]] = field(default_factory=list)


@dataclass(frozen=True)
class Bench:
    """The shared pieces of the server parts."""

    run: Run
    client: httpx.AsyncClient
    server: Server
    probe: Member  # a user whose GET /me shows whether the server answers again
    baseline: Server | None = None

    def cpu_seconds(self) -> tuple[float, float, float]:
        """CPU used so far by Tablée's server, by the load generator, and by other work."""
        server = self.server.cpu_seconds()
        own = time.process_time()
        baseline = self.baseline.cpu_seconds() if self.baseline else 0.0
        return server, own, machine_cpu_seconds() - server - own - baseline


async def _part(bench: Bench, name: str, measure: Awaitable[list[Figure]]) -> None:
    """Measure one part; a failure is printed and recorded, and the next part goes on.

    The CPU time each side used is printed too: with two cores, a load generator near a
    full core would be measuring itself, and other work on the machine makes noise.
    """
    run, server = bench.run, bench.server
    log_start = server.log_size()
    cpu_before, wall = bench.cpu_seconds(), time.perf_counter()
    try:
        run.figures += await measure
        wall = time.perf_counter() - wall
        used = [after - before for after, before in zip(bench.cpu_seconds(), cpu_before,
                                                         strict=True)]
        print(f"  ({name}: {wall:.1f} s; CPU: Tablée server {used[0]:.1f} s, load generator "
              f"{used[1]:.1f} s, other work on the machine {max(0, used[2]):.1f} s)\n")
    except Exception as error:  # one broken part must not hide the others
        reason = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
        print(f"{name}: FAILED — {reason}")
        await _recover(bench)  # the server may log why only once its requests time out
        errors = server.errors_since(log_start)
        for line in errors:
            print(f"  server log: {line}")
        print()
        run.failures.append((name, reason + "".join(f"\n    server log: {line}"
                                                    for line in errors)))


async def _recover(bench: Bench, seconds: float = 90) -> None:
    """Wait until the server answers a database-backed request quickly again."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            response = await bench.client.get("/api/v1/me", headers=bench.probe.headers,
                                              timeout=2)
            if response.status_code == 200:
                return
        except httpx.HTTPError:
            pass
        await asyncio.sleep(1)


async def _server_parts(run: Run, parts: set[str], scale: Scale, server: Server,
                        bare_server: Server | None, instance: Instance) -> None:
    async with api_client(server.url) as client:
        started = time.perf_counter()
        needed = scale.tables if "latency" in parts else 0
        if "throughput" in parts:
            needed = max(needed, min(scale.concurrency, scale.tables))
        seated: list[Table] = await seat_tables(client, needed, "t") if needed else []
        crowd = await seat_table(client, "crowd") if "fanout" in parts else None
        long_run = await growth.prepare(client, instance) if "growth" in parts else None
        count = len(seated) + (crowd is not None) + (long_run is not None)
        print(f"Set-up ({count} table{'s' * (count != 1)} seated through the API"
              f"{', a 10,000-event log seeded' if long_run else ''}): "
              f"{time.perf_counter() - started:.1f} s\n")
        bench = Bench(run, client, server, await register(client, "benchprobe"), bare_server)
        if bare_server is not None:
            await _part(bench, "throughput", throughput.run(
                seated, (server, bare_server), total=scale.requests,
                concurrency=scale.concurrency))
        if crowd is not None:  # before any other stream: see bench.fanout
            await _part(bench, "fanout", fanout.run(
                client, server, crowd, streams=scale.streams, rounds=scale.fanout_rounds))
        if "latency" in parts:
            await _part(bench, "latency", latency.run(
                client, server, seated, rounds=scale.rounds, interval=scale.interval,
                solo=scale.solo))
        if long_run is not None:
            short, long, seeding = long_run
            await _part(bench, "growth", growth.run(
                client, server, short, long, samples=scale.growth_samples, seeding=seeding))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench",
        description="Run Tablée's benchmark and print its figures (nothing is asserted).")
    parser.add_argument("parts", nargs="*", metavar="PART",
                        help=f"what to run: {', '.join(PARTS)} (default: all)")
    parser.add_argument("--quick", action="store_true",
                        help="a smaller run: fewer tables, actions and requests")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.parts) - set(PARTS))
    if unknown:
        parser.error(f"unknown part {', '.join(unknown)}; choose from {', '.join(PARTS)}")
    parts = set(args.parts or PARTS)
    scale = QUICK if args.quick else Scale()
    loop = _event_loop()
    began = time.perf_counter()
    print(f"Tablée benchmark — {datetime.now().astimezone():%Y-%m-%d %H:%M %Z}"
          f"{' (--quick)' if args.quick else ''}")
    print(f"{_machine()}; load generator: {loop} + httpx")
    print("Server: python -m app serve, one uvicorn worker, SQLite (WAL), in-process broker"
          + (f"; code from {os.environ['TABLEE_BENCH_ROOT']}"
             if os.environ.get("TABLEE_BENCH_ROOT") else ""))
    busy = _busy()
    print(f"CPU used by other work just before the run: {busy:.0%}"
          f"{' — the machine is busy: the figures will be noisy' if busy > 0.1 else ''}\n")
    run = Run()
    if "rolls" in parts:  # before any server: the whole machine for the dice
        own, machine, wall = time.process_time(), machine_cpu_seconds(), time.perf_counter()
        run.figures += rolls.run(quick=args.quick)
        own, machine = time.process_time() - own, machine_cpu_seconds() - machine
        print(f"  (rolls: {time.perf_counter() - wall:.1f} s; CPU: bench {own:.1f} s, "
              f"other work on the machine {max(0.0, machine - own):.1f} s)\n")
    if "odds" in parts:  # exact odds, in this process (docs/odds.md § Speed)
        run.figures += odds.run(quick=args.quick)
        print()
    if "simulations" in parts:  # before any server too: every core for the pool
        run.figures += simulations.run(quick=args.quick)
        print()
    if parts & SERVER_PARTS:
        limit = raise_open_files()
        if "fanout" in parts and limit < scale.streams + 200:
            print(f"warning: only {limit} open files allowed; fan-out may fail")
        with tempfile.TemporaryDirectory(prefix="tablee-bench-") as temp, ExitStack() as stack:
            workdir = Path(temp)
            instance = new_instance(workdir / "tablee")
            server = stack.enter_context(tablee(instance))
            bare_server = stack.enter_context(bare(workdir)) if "throughput" in parts else None
            asyncio.run(_server_parts(run, parts, scale, server, bare_server, instance))
    print(f"Summary ({time.perf_counter() - began:.0f} s in all):")
    print(summary(run.figures))
    for name, reason in run.failures:
        print(f"{name}: NOT MEASURED — {reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
