"""``python -m bench.load``: tables of six playing at once, on one stack or several.

Each simulated table is a match with six members — a GM, four players, a spectator — each
with a stream of the match open, like six browsers: one in two (the GM and two players) the
table page's HTML stream (``GET /campaigns/{cid}/matches/{mid}/stream``: each event a ``log``
line rendered for its viewer, then the ``state`` panel), the others the API's JSON stream.
Four tables in five play ``libre``
(free play): after a think time (exponential, ``--think`` seconds on average) one of the
five actors posts a public roll or a note. One in five plays Cyborg Anti-Alien, whose
rules judge every action: its GM has the cyborg Kenji make Force tests. A sample is the
time from sending the POST to the moment the last of the table's six viewers has the
event (and, apart, to its last API viewer and its last page viewer). Browsers also drop
their stream now and then (``--reconnect`` seconds on average) and come back one second
later with ``Last-Event-ID``, as EventSource does; a reconnection's *resume* time runs from
that request until the browser holds every event its table had when it asked. Every viewer
must end with every event of its table exactly once (missing and doubled events are
counted).

The server runs through ``bench/lagserve.py``, which watches each worker's event loop: its
lag (how late a task asking to wake every 5 ms wakes) and the queues a request may wait in
(the SQLite write turn, the thread pool), printed per run. Server CPU is the process tree's
own CPU time, per action: a figure that a busy machine moves far less than the latencies.

Stacks: ``sqlite`` (one worker, in-process broker), ``pg2`` and ``pg4`` (PostgreSQL +
Redis, 2 or 4 uvicorn workers: ``python -m app serve --workers N``). Tables are seated once
per database and reused by every size (the first ``n`` of them). Loopback only, bounded:
``--duration`` seconds of play per size, a delivery timeout per action.

PostgreSQL: ``TABLEE_BENCH_PG`` (default ``postgresql+psycopg://postgres@127.0.0.1:5432/
tablee_bench_load``; the database is emptied), Redis: ``TABLEE_BENCH_REDIS`` (default
``redis://127.0.0.1:6379/6``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import httpx

from bench.client import (
    OPEN_TIMEOUT,
    Connection,
    StreamError,
    Viewer,
    api_client,
    close_all,
    connect,
    open_viewer,
)
from bench.report import Figure, percentile, summary, table
from bench.seating import CYBORG_TEST, Member, Table, seat_tables
from bench.server import (
    ROOT,
    Instance,
    Server,
    _serving,
    free_port,
    machine_cpu_seconds,
    new_instance,
    raise_open_files,
    serve_command,
    tablee,
    tablee_root,
)

DELIVERY_TIMEOUT = 15.0
RETRY_SECONDS = 1.0  # EventSource's retry, as the server asks (app.http.streams.RETRY_MS)
RETRIES = 8  # an action is tried again this many times (lost connection, 503)
PG_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/tablee_bench_load"
REDIS_URL = "redis://127.0.0.1:6379/6"
PAGE_EVENTS = frozenset((b"log", b"logreset"))  # the page stream's events (not ``state``)
AIM_MS = 100  # p99, action → its table's last viewer (issue 29)
RESUME_AIM_MS = 250  # p99, a reconnection back to where its table is
ACTIONS = ({"kind": "roll", "expression": "1d20+5", "purpose": "load"},
           {"kind": "roll", "expression": "3d6", "purpose": "load"},
           {"kind": "note", "text": "On avance vers la porte nord."})


# -- processes ------------------------------------------------------------------------------

def process_tree(pid: int) -> list[int]:
    """``pid`` and its descendants (uvicorn's workers), from ``/proc``."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    tree, todo = [], [pid]
    while todo:
        current = todo.pop()
        tree.append(current)
        todo += children.get(current, [])
    return tree


def tree_cpu_seconds(pid: int) -> float:
    total = 0.0
    for member in process_tree(pid):
        try:
            fields = Path(f"/proc/{member}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


class ServiceCpu:
    """CPU time of the PostgreSQL backends serving one database and of every Redis server,
    sampled twice a second during a run: they are not in the server's process tree. A
    backend that ends between two samples loses its last half second; the cluster's own
    processes (WAL writer, checkpointer) are shared with other databases and not counted."""

    def __init__(self, database: str) -> None:
        self.database = f" {database} "
        self.first: dict[int, tuple[str, float]] = {}
        self.last: dict[int, float] = {}
        self.started = False

    def sample(self) -> None:
        tick = os.sysconf("SC_CLK_TCK")
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
                if command.startswith("postgres:") and self.database in command:
                    kind = "postgres"
                elif command.startswith("redis-server"):
                    kind = "redis"
                else:
                    continue
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, UnicodeDecodeError):
                continue
            cpu = (int(fields[11]) + int(fields[12])) / tick
            pid = int(entry.name)
            # a process first seen after the first sample began during the run
            self.first.setdefault(pid, (kind, cpu if not self.started else 0.0))
            self.last[pid] = cpu
        self.started = True

    def seconds(self, kind: str) -> float:
        return sum(self.last[pid] - first for pid, (each, first) in self.first.items()
                   if each == kind)

    async def watch(self, until: float) -> None:
        while time.monotonic() < until:
            await asyncio.to_thread(self.sample)
            await asyncio.sleep(0.5)


def tree_rss_mib(pid: int) -> float:
    total = 0
    for member in process_tree(pid):
        try:
            status = Path(f"/proc/{member}/status").read_text().splitlines()
        except OSError:
            continue
        total += next((int(line.split()[1]) for line in status if line.startswith("VmRSS:")),
                      0)
    return total / 1024


# -- stacks ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Stack:
    name: str
    workers: int
    postgres: bool


STACKS = {"sqlite": Stack("SQLite, 1 worker", 1, False),
          "pg2": Stack("PostgreSQL + Redis, 2 workers", 2, True),
          "pg4": Stack("PostgreSQL + Redis, 4 workers", 4, True)}


def _postgres_env(instance: Instance, pg_url: str, redis_url: str) -> dict[str, str]:
    env = instance.env()
    env.update(TABLEE_DATABASE_URL=pg_url, TABLEE_REDIS_URL=redis_url)
    return env


def fresh_postgres(instance: Instance, pg_url: str) -> None:
    """Empty the bench database (created if missing) and migrate it."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    url = make_url(pg_url)
    admin = create_engine(url.set(database="postgres"), isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        exists = connection.scalar(text("SELECT 1 FROM pg_database WHERE datname = :name"),
                                   {"name": url.database})
        if not exists:
            connection.execute(text(f'CREATE DATABASE "{url.database}"'))
    admin.dispose()
    engine = create_engine(url, isolation_level="AUTOCOMMIT")
    with engine.connect() as connection:
        connection.execute(text("DROP SCHEMA public CASCADE"))
        connection.execute(text("CREATE SCHEMA public"))
    engine.dispose()
    env = dict(os.environ, TABLEE_DATABASE_URL=pg_url)
    subprocess.run([sys.executable, "-m", "app", "migrate"], cwd=ROOT, env=env, check=True,
                   stdout=subprocess.DEVNULL)


@contextmanager
def serve(stack: Stack, instance: Instance, pg_url: str, redis_url: str,
          lag_dir: Path | None = None) -> Iterator[Server]:
    if not stack.postgres:
        with tablee(instance, lag_dir=lag_dir) as server:
            yield server
        return
    port = free_port()
    log = instance.data_dir / f"server-{stack.workers}.log"
    env = _postgres_env(instance, pg_url, redis_url)
    if lag_dir is not None:
        env["TABLEE_BENCH_LAG"] = str(lag_dir)
    with _serving(serve_command(port, stack.workers), env, port, log,
                  cwd=tablee_root()) as server:
        _wait_for_workers(server, stack.workers)
        yield server


def _wait_for_workers(server: Server, workers: int, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if len(process_tree(server.process.pid)) > workers \
                and httpx.get(server.url + "/readyz", timeout=2).status_code == 200:
            return
        time.sleep(0.2)


# -- browsers -------------------------------------------------------------------------------

class Browser:
    """One member's tab: its stream, reopened after a drop with ``Last-Event-ID``; keeps
    every event id it received across its connections. ``page``: the table page's HTML
    stream, else the API's."""

    def __init__(self, base_url: str, table_: Table, member: Member, *, page: bool) -> None:
        self.base_url, self.table, self.token, self.page = base_url, table_, member.token, page
        self.path = (f"/campaigns/{table_.campaign_id}/matches/{table_.match_id}/stream"
                     if page else table_.path + "/stream")
        self.start = table_.seq
        self.arrivals: dict[int, float] = {}
        self.doubled = 0
        self.reconnects = 0
        self.failed_opens = 0
        self.resumes: list[float] = []  # ms, each reconnection until it had what it missed
        self._waiters: dict[int, asyncio.Future[float]] = {}
        self.viewer: Viewer | None = None
        self.closing = False
        self._reopening: asyncio.Task[None] | None = None

    def _make(self, request: bytes) -> Viewer:
        browser = self

        class Tab(Viewer):
            counted = PAGE_EVENTS if browser.page else None

            def _arrived(self, seq: int, now: float) -> None:
                browser.arrived(seq, now)

            def connection_lost(self, exc: Exception | None) -> None:
                super().connection_lost(exc)
                browser.lost(self)

        return Tab(request)

    def arrived(self, seq: int, now: float) -> None:
        if seq in self.arrivals:
            self.doubled += 1
            return
        self.arrivals[seq] = now
        waiter = self._waiters.pop(seq, None)
        if waiter is not None and not waiter.done():
            waiter.set_result(now)

    @property
    def reopening(self) -> bool:
        return self._reopening is not None

    @property
    def last(self) -> int:
        return max(self.arrivals, default=self.start)

    async def open(self) -> None:
        if self.arrivals:
            # as EventSource does: the last id received, whole (a page stream's names the
            # action panel the tab holds), else the last event's seq
            held = self.viewer.last_id if self.viewer is not None else None
            resume = held if held and int(held.partition(".")[0]) >= self.last else self.last
            self.viewer = await open_viewer(self.base_url, self.path, self.token,
                                           last_event_id=resume, make=self._make)
        else:
            self.viewer = await open_viewer(self.base_url, self.path, self.token,
                                            after=self.start, make=self._make)

    def lost(self, viewer: Viewer) -> None:
        """The server closed the stream (or we did): come back after the retry delay."""
        if self.closing or viewer is not self.viewer or self._reopening is not None:
            return
        self._reopening = asyncio.ensure_future(self._reopen())

    async def drop(self) -> None:
        """Like a browser tab that loses its network for a moment."""
        if self.viewer is not None and self._reopening is None:
            self.viewer.close()  # connection_lost → lost() → _reopen()

    async def _reopen(self) -> None:
        try:
            while not self.closing:
                await asyncio.sleep(RETRY_SECONDS)
                asked, due = time.perf_counter(), self.table.seq
                try:
                    await self.open()
                except (StreamError, OSError):
                    self.failed_opens += 1
                    continue
                self.reconnects += 1
                await self._resumed(asked, due)
                return
        finally:
            self._reopening = None

    async def _resumed(self, asked: float, due: int) -> None:
        """Record how long the reconnection took to bring back what the table had when the
        browser asked (``due``, the last event acknowledged by then)."""
        if due > self.last:
            try:
                await asyncio.wait_for(self.arrival(due), DELIVERY_TIMEOUT)
            except (TimeoutError, StreamError):
                return  # dropped again, or not delivered in time: counted elsewhere
        self.resumes.append((time.perf_counter() - asked) * 1000)

    async def arrival(self, seq: int) -> float:
        if seq in self.arrivals:
            return self.arrivals[seq]
        waiter = self._waiters.get(seq)
        if waiter is None:
            waiter = self._waiters[seq] = asyncio.get_running_loop().create_future()
        return await waiter

    def close(self) -> None:
        self.closing = True
        if self._reopening is not None:
            self._reopening.cancel()
        if self.viewer is not None:
            self.viewer.close()

    def missing(self, final: int) -> int:
        return sum(1 for seq in range(self.start + 1, final + 1) if seq not in self.arrivals)


async def _first_state(viewer: Viewer) -> None:
    """Wait for a page stream's first message; a server that does not send it at all is a
    failure of the run (not retried: TimeoutError is an OSError)."""
    try:
        await asyncio.wait_for(viewer.first, OPEN_TIMEOUT)
    except TimeoutError:
        raise RuntimeError(f"a table page had no first state within {OPEN_TIMEOUT:.0f} s"
                           ) from None


# -- the server's event loop (bench/lagserve.py) ---------------------------------------------

def read_lag(directory: Path) -> dict[int, dict]:
    """Each worker's running totals, by pid."""
    found = {}
    for path in directory.glob("lag-*.json"):
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        found[data["pid"]] = data
    return found


@dataclass
class Lag:
    """The server's event loops over a run (every worker's ticks together)."""

    ticks: int = 0
    p99_ms: float = float("nan")
    max_ms: float = float("nan")  # the worst second's worst tick
    mean_ms: float = float("nan")
    write_waiting: float = float("nan")  # mean actions waiting for the write turn
    threads_busy: float = float("nan")  # mean threads of the pool at work
    # full collections of the garbage collector (generation 2): how many, their time (ms)
    full_gcs: int = 0
    full_gc_ms: float = 0.0
    full_gc_max_ms: float = 0.0  # the longest since the worker started
    # the middle generation's (1): each walks what the young ones kept since the last one
    middle_gcs: int = 0
    middle_gc_ms: float = 0.0
    young_gcs: int = 0  # the young generation's (0)
    young_gc_ms: float = 0.0

    def text(self) -> str:
        if not self.ticks:
            return "—"
        return f"{self.p99_ms:.0f}/{self.max_ms:.0f}"


def lag_between(before: dict[int, dict], after: dict[int, dict], began: float,
                ended: float) -> Lag:
    edges: tuple[float, ...] = ()
    counts: list[int] = []
    ticks, lag_sum, worst, gauged = 0, 0.0, 0.0, 0
    sums = {"write_waiting": 0, "threads_busy": 0}
    full, middle, young = [0, 0.0, 0.0], [0, 0.0], [0, 0.0]
    for pid, now in after.items():
        if now.get("gc"):  # a served checkout's lagserve from before these figures has none
            was = (before.get(pid) or {}).get("gc") or [[0, 0.0, 0.0]] * 3
            full[0] += now["gc"][2][0] - was[2][0]
            full[1] += now["gc"][2][1] - was[2][1]
            full[2] = max(full[2], now["gc"][2][2])
            middle[0] += now["gc"][1][0] - was[1][0]
            middle[1] += now["gc"][1][1] - was[1][1]
            young[0] += now["gc"][0][0] - was[0][0]
            young[1] += now["gc"][0][1] - was[0][1]
        then = before.get(pid, {"ticks": 0, "lag_counts": [0] * len(now["lag_counts"]),
                                "lag_sum_ms": 0.0, "gauged": 0,
                                "sums": dict.fromkeys(now["sums"], 0)})
        gauged += now["gauged"] - then["gauged"]
        edges = (*now["edges_ms"], float("inf"))
        diff = [a - b for a, b in zip(now["lag_counts"], then["lag_counts"], strict=True)]
        counts = [a + b for a, b in zip(counts or [0] * len(diff), diff, strict=True)]
        ticks += now["ticks"] - then["ticks"]
        lag_sum += now["lag_sum_ms"] - then["lag_sum_ms"]
        for name in sums:
            sums[name] += now["sums"][name] - then["sums"][name]
        worst = max([worst, *(row[1] for row in now["seconds"] if began <= row[0] <= ended + 1)])
    if not ticks:
        return Lag()
    seen, p99 = 0, edges[-1]
    for edge, count in zip(edges, counts, strict=True):
        seen += count
        if seen >= 0.99 * ticks:
            p99 = edge
            break
    gauged = max(gauged, 1)
    return Lag(ticks, p99, worst, lag_sum / ticks, sums["write_waiting"] / gauged,
               sums["threads_busy"] / gauged, full[0], full[1], full[2], middle[0], middle[1],
               young[0], young[1])


# -- one run --------------------------------------------------------------------------------

@dataclass
class Result:
    stack: str
    tables: int
    viewers: int
    duration: float
    pages: int = 0  # viewers on the page's HTML stream (the others on the API's)
    latencies: list[float] = field(default_factory=list)  # every viewer connected
    api_latencies: list[float] = field(default_factory=list)  # the table's last API viewer
    page_latencies: list[float] = field(default_factory=list)  # its last page viewer
    during_reconnect: list[float] = field(default_factory=list)  # one was coming back
    resumes: list[float] = field(default_factory=list)  # ms, reconnection → caught up
    errors: dict[str, int] = field(default_factory=dict)
    retried: dict[str, int] = field(default_factory=dict)  # retried (same key), by kind
    acked: dict[int, list[int]] = field(default_factory=dict)  # match → seqs answered 200
    missing: int = 0
    doubled: int = 0
    reconnects: int = 0
    failed_opens: int = 0
    server_cpu: float = 0.0
    client_cpu: float = 0.0
    server_rss: float = 0.0
    db_cpu: float | None = None  # PostgreSQL backends of the bench's database (ServiceCpu)
    redis_cpu: float | None = None
    open_seconds: float = 0.0
    lag: Lag = field(default_factory=Lag)

    def error(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1

    @property
    def actions(self) -> int:
        return len(self.latencies) + len(self.during_reconnect)

    @property
    def p99(self) -> float:
        return percentile(self.latencies, 0.99)

    def row(self) -> tuple[str, ...]:
        ms = self.latencies
        errors = sum(self.errors.values())
        away = self.during_reconnect
        return (self.stack, str(self.tables), f"{self.viewers - self.pages}+{self.pages}",
                str(self.actions), f"{self.actions / self.duration:.1f}",
                *(f"{percentile(ms, q):.0f}" for q in (0.5, 0.95, 0.99)),
                f"{percentile(self.api_latencies, 0.99):.0f}",
                f"{percentile(self.page_latencies, 0.99):.0f}",
                f"{len(away)}: {percentile(away, 0.99):.0f}" if away else "0",
                f"{len(self.resumes)}: {percentile(self.resumes, 0.99):.0f}"
                if self.resumes else "0",
                str(errors), f"{self.missing}/{self.doubled}",
                f"{self.reconnects}/{self.failed_opens}",
                f"{100 * self.server_cpu / self.duration:.0f}%",
                f"{1000 * self.server_cpu / max(1, self.actions):.1f}", self.lag.text(),
                *(f"{100 * cpu / self.duration:.0f}%" if cpu is not None else "—"
                  for cpu in (self.db_cpu, self.redis_cpu)),
                f"{100 * self.client_cpu / self.duration:.0f}%", f"{self.server_rss:.0f}")


HEADERS = ("stack", "tables", "viewers API+page", "actions", "actions/s", "p50 ms", "p95 ms",
           "p99 ms", "API p99", "page p99", "while reconnecting: n, p99 ms",
           "resumed: n, p99 ms", "errors", "missing/doubled", "reconnects/failed opens",
           "server CPU", "CPU ms/action", "loop lag p99/max ms", "PostgreSQL CPU", "Redis CPU",
           "load gen CPU", "server RSS MiB")


async def play(server: Server, tables: list[Table], stack: Stack, *, duration: float,
               think: float, reconnect: float, seed: int = 0,
               fault: Callable[[], Awaitable[None]] | None = None,
               label: str | None = None, page_every: int = 2,
               lag_dir: Path | None = None, pg_url: str | None = None) -> Result:
    """One run. ``page_every``: one member in that many (the GM first) watches the table
    page's HTML stream, the others the API's (0: all the API's). ``pg_url``: the database
    whose backends' CPU is counted (PostgreSQL stacks)."""
    result = Result(label or stack.name, len(tables), 6 * len(tables), duration)
    browsers = {t.match_id: [Browser(server.url, t, m, page=bool(page_every)
                                     and index % page_every == 0)
                             for index, m in enumerate(t.members)] for t in tables}
    every = [b for group in browsers.values() for b in group]
    result.pages = sum(b.page for b in every)
    opened = time.perf_counter()
    gate = asyncio.Semaphore(32)

    async def open_one(browser: Browser) -> None:
        """Like a browser: a stream that fails to open is tried again a second later. A
        table page's counts as open once it has its first ``state`` (the panel, the board):
        play starts when the server has drawn every page, not while it still draws them."""
        async with gate:
            for _ in range(10):
                try:
                    await browser.open()
                    if browser.page and browser.viewer is not None:
                        await _first_state(browser.viewer)
                    return
                except (StreamError, OSError):
                    browser.failed_opens += 1
                    await asyncio.sleep(RETRY_SECONDS)
            raise StreamError(f"{browser.path}: no stream after 10 tries")

    await asyncio.gather(*(open_one(b) for b in every))
    result.open_seconds = time.perf_counter() - opened
    rng = random.Random(seed)
    poster = Poster(server.url)
    try:
        until = time.monotonic() + duration
        cpu_server, cpu_client = tree_cpu_seconds(server.process.pid), time.process_time()
        lag_before, began = (read_lag(lag_dir) if lag_dir else {}), time.time()
        spy = _spy(server, duration, result)
        services = ServiceCpu(urlsplit(pg_url).path.lstrip("/")) if pg_url else None
        if services is not None:
            services.sample()
            watching = asyncio.ensure_future(services.watch(until))
        started = time.perf_counter()
        progress = asyncio.ensure_future(_progress(result, started, duration))
        try:
            await asyncio.gather(
                *(_table(poster, t, browsers[t.match_id], random.Random(rng.random()), until,
                         think, result) for t in tables),
                *(_drops(b, random.Random(rng.random()), until, reconnect) for b in every),
                *([fault()] if fault is not None else []))
        finally:
            progress.cancel()
        result.duration = time.perf_counter() - started
        result.server_cpu = tree_cpu_seconds(server.process.pid) - cpu_server
        result.client_cpu = time.process_time() - cpu_client
        result.server_rss = tree_rss_mib(server.process.pid)
        if services is not None:
            watching.cancel()
            services.sample()
            result.db_cpu = services.seconds("postgres")
            result.redis_cpu = services.seconds("redis")
        if spy is not None:
            await asyncio.to_thread(spy.wait, 60)
        if lag_dir is not None:
            await asyncio.sleep(1.1)  # the workers' next second's figures
            result.lag = lag_between(lag_before, read_lag(lag_dir), began, time.time())
        await _settle(every)  # the last reconnections catch up
        finals = {t.match_id: t.seq for t in tables}
        for match_id, group in browsers.items():
            for browser in group:
                result.missing += browser.missing(finals[match_id])
                result.doubled += browser.doubled
                result.reconnects += browser.reconnects
                result.failed_opens += browser.failed_opens
                result.resumes += browser.resumes
                browser.close()
    finally:
        poster.close()
    print("\r" + " " * 100 + "\r", end="", flush=True)
    return result


async def _settle(browsers: list[Browser], seconds: float = 20) -> None:
    """Wait until no browser is reconnecting (after a fault they may need a few tries)."""
    await asyncio.sleep(RETRY_SECONDS + 1.5)
    deadline = time.monotonic() + seconds
    while any(b.reopening for b in browsers) and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    await asyncio.sleep(0.5)


async def _progress(result: Result, started: float, duration: float) -> None:
    while True:
        await asyncio.sleep(2)
        ms = result.latencies
        p95 = f"{percentile(ms, 0.95):.0f} ms" if len(ms) > 20 else "…"
        print(f"\r  [{result.stack}, {result.tables} tables] "
              f"{time.perf_counter() - started:4.0f}/{duration:.0f} s, {len(ms)} actions, "
              f"p95 {p95}, errors {sum(result.errors.values())}   ", end="", flush=True)


async def _pause(seconds: float, until: float) -> bool:
    """Sleep ``seconds`` or until ``until``; False when the run is over."""
    await asyncio.sleep(max(0.0, min(seconds, until - time.monotonic())))
    return time.monotonic() < until


async def _table(poster: Poster, table_: Table, browsers: list[Browser],
                 rng: random.Random, until: float, think: float, result: Result) -> None:
    while await _pause(rng.expovariate(1 / think), until):
        if table_.system == "cyborg":  # the GM runs the automated game's tests
            member, action = table_.members[0], CYBORG_TEST
        else:
            member, action = rng.choice(table_.actors), rng.choice(ACTIONS)
        sent = time.perf_counter()
        answer = await _post(poster, table_, member, action, result)
        if answer is None:
            continue
        seq = answer["seq"]
        table_.seq = max(table_.seq, seq)
        result.acked.setdefault(table_.match_id, []).append(seq)
        reconnects = sum(browser.reconnects for browser in browsers)
        reconnecting = any(browser.reopening for browser in browsers)
        try:
            times = await asyncio.wait_for(
                asyncio.gather(*(browser.arrival(seq) for browser in browsers)),
                DELIVERY_TIMEOUT)
        except TimeoutError:
            result.error("not delivered in time")
            continue
        latency = (max(times) - sent) * 1000
        if reconnecting or sum(browser.reconnects for browser in browsers) != reconnects:
            # A viewer was away (the 1 s retry): it gets the event when it is back.
            result.during_reconnect.append(latency)
            continue
        result.latencies.append(latency)
        for page, samples in ((False, result.api_latencies), (True, result.page_latencies)):
            arrived = [at for browser, at in zip(browsers, times, strict=True)
                       if browser.page is page]
            if arrived:
                samples.append((max(arrived) - sent) * 1000)


class Poster:
    """The tables' POSTs, on lean keep-alive connections (``bench.client.Connection``, with
    ``TCP_NODELAY``), one per table: a table posts one action at a time. With httpx the
    load generator spent ~1.3 ms of CPU per POST; at 500 tables it was the generator, not
    the server, that was saturated (docs/benchmarks.md § The load harness, 2026-12-03)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.host = urlsplit(url).netloc
        self._connections: dict[int, Connection] = {}

    async def post(self, table_: Table, body: bytes,
                   headers: dict[str, str]) -> tuple[int, bytes, dict[str, str]]:
        """Status, body and headers; a connection that failed is dropped, the next post
        opens another (to whichever worker accepts it)."""
        connection = self._connections.get(table_.match_id)
        if connection is None or connection.closed:
            connection = await connect(self.url)
            self._connections[table_.match_id] = connection
        try:
            status, answer = await asyncio.wait_for(
                connection.post(self.host, f"{table_.path}/actions", body, headers),
                DELIVERY_TIMEOUT)
        except BaseException:
            del self._connections[table_.match_id]
            connection.close()
            raise
        return status, answer, connection.headers

    def close(self) -> None:
        close_all(self._connections.values())


async def _post(poster: Poster, table_: Table, member: Member,
                action: dict, result: Result) -> dict | None:
    """Post an action; a lost connection or a 503 is retried with the same
    ``Idempotency-Key`` (as a careful client does), so an action that did commit before its
    answer was lost is answered again, never applied twice. The answer, or None: given up
    (an error)."""
    headers = {**member.headers, "Idempotency-Key": uuid.uuid4().hex}
    body = json.dumps({"action": action, "seq": None}).encode()
    for attempt in range(RETRIES + 1):
        try:
            status, answer, answer_headers = await poster.post(table_, body, headers)
        except (StreamError, OSError, TimeoutError) as error:
            kind = type(error).__name__
        else:
            if status == 200:
                return json.loads(answer)
            kind = f"HTTP {status}"
            if status != 503:
                result.error(kind)
                return None
            if "retry-after" not in answer_headers:
                kind += " without Retry-After"
        if attempt < RETRIES:
            result.retried[kind] = result.retried.get(kind, 0) + 1
            await asyncio.sleep(RETRY_SECONDS)
    result.error(kind)
    return None


async def _drops(browser: Browser, rng: random.Random, until: float, every: float) -> None:
    if every <= 0:
        return
    while await _pause(rng.expovariate(1 / every), until):
        await browser.drop()


# -- main -----------------------------------------------------------------------------------

AUTOMATED_EVERY = 5  # one table in five plays Cyborg Anti-Alien (automated rules)


async def _seat(url: str, count: int) -> list[Table]:
    async with api_client(url) as client:
        return await seat_tables(client, count, "l", automated_every=AUTOMATED_EVERY)


def _spy(server: Server, duration: float, result: Result) -> subprocess.Popen | None:
    """py-spy on every thread of the server for the run's play only (not the seating nor
    the streams' opening) when ``TABLEE_BENCH_PYSPY_PLAY`` names a directory: raw samples
    to ``<dir>/<stack>-<tables>.txt``, for ``python -m bench.profile --report FILE``."""
    directory = os.environ.get("TABLEE_BENCH_PYSPY_PLAY")
    if not directory:
        return None
    name = f"{result.stack.split(',')[0].split()[0]}-{result.tables}.txt"
    return subprocess.Popen(["py-spy", "record", "--pid", str(server.process.pid),
                             "--subprocesses", "--format", "raw", "--rate", "100",
                             "--nonblocking", "--duration", str(max(1, int(duration))),
                             "--output", str(Path(directory) / name)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def aims(results: list[Result]) -> list[Figure]:
    """The issue's aims, read on the rows that have them: 500 tables on SQLite with one
    worker (p99 and reconnections), 200 tables on PostgreSQL + Redis with two workers."""
    figures = []
    for result in results:
        where = f"{result.tables} tables, {result.stack}"
        if result.stack == STACKS["sqlite"].name and result.tables == 500:
            figures += [Figure(f"p99 action → last viewer, {where}", result.p99, " ms",
                               AIM_MS),
                        Figure(f"p99 reconnection resumed, {where}",
                               percentile(result.resumes, 0.99), " ms", RESUME_AIM_MS)]
        elif result.stack == STACKS["pg2"].name and result.tables == 200:
            figures.append(Figure(f"p99 action → last viewer, {where}", result.p99, " ms",
                                  AIM_MS))
        else:
            figures.append(Figure(f"p99 action → last viewer, {where}", result.p99, " ms"))
        figures.append(Figure(f"server CPU per action, {where}",
                              1000 * result.server_cpu / max(1, result.actions), " ms"))
    return figures


def _event_loop() -> Callable[..., object]:
    """uvloop's runner when installed: the load generator's own CPU stays low."""
    try:
        import uvloop
    except ImportError:  # pragma: no cover
        return asyncio.run
    return uvloop.run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.load", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="50,200,500", help="tables per run (default "
                        "50,200,500)")
    parser.add_argument("--stacks", default="sqlite,pg2,pg4",
                        help=f"among {', '.join(STACKS)} (default all)")
    parser.add_argument("--duration", type=float, default=20, help="seconds of play per run")
    parser.add_argument("--think", type=float, default=5, help="mean seconds between a "
                        "table's actions")
    parser.add_argument("--reconnect", type=float, default=60, help="mean seconds between a "
                        "browser's drops (0: never)")
    parser.add_argument("--page-every", type=int, default=2, help="one member in N watches "
                        "the table page's HTML stream, the others the API's (0: none; "
                        "default 2)")
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = parser.parse_args(argv)
    # A SIGTERM (a timeout, a kill) unwinds like Ctrl-C: the servers it started stop too.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    sizes = sorted(int(size) for size in args.sizes.split(","))
    stacks = [STACKS[name] for name in args.stacks.split(",")]
    pg_url = os.environ.get("TABLEE_BENCH_PG", PG_URL)
    redis_url = os.environ.get("TABLEE_BENCH_REDIS", REDIS_URL)
    run = _event_loop()
    limit = raise_open_files()
    if limit < 2 * 6 * max(sizes) + 500:
        print(f"warning: only {limit} open files allowed")
    pages = f"one in {args.page_every} on the table page's HTML stream, the others on the " \
        "API's" if args.page_every else "all on the API's stream"
    print(f"Load: tables of 6 (GM, 4 players, a spectator), each member's stream open "
          f"({pages}); an action every {args.think:g} s per table on average; a drop and "
          f"reconnection every {args.reconnect:g} s per browser on average; "
          f"{args.duration:g} s of play per run. Loopback; the load generator runs on the "
          f"same {os.cpu_count()} cores"
          + (f"; server code from {tablee_root()}" if tablee_root() != ROOT else "") + ".")
    busy_before = machine_cpu_seconds()
    time.sleep(1)
    busy = (machine_cpu_seconds() - busy_before) / (os.cpu_count() or 1)
    print(f"CPU used by other work just before: {busy:.0%}"
          f"{' — busy machine: figures are noisy' if busy > 0.1 else ''}")
    results: list[Result] = []
    with tempfile.TemporaryDirectory(prefix="tablee-load-") as temp:
        sqlite_instance = new_instance(Path(temp) / "sqlite")
        pg_instance: Instance | None = None
        seated: dict[bool, list[Table]] = {}
        for stack in stacks:
            instance = sqlite_instance
            if stack.postgres:
                if pg_instance is None:
                    pg_instance = Instance(Path(temp) / "pg", sqlite_instance.secret_key)
                    pg_instance.data_dir.mkdir(parents=True)
                    fresh_postgres(pg_instance, pg_url)
                instance = pg_instance
            lag_dir = Path(temp) / f"lag-{stack.name.split(',')[0].split()[0]}-{stack.workers}"
            lag_dir.mkdir()
            with serve(stack, instance, pg_url, redis_url, lag_dir) as server:
                if stack.postgres not in seated:
                    began = time.perf_counter()
                    seated[stack.postgres] = run(_seat(server.url, max(sizes)))
                    print(f"  seated {max(sizes)} tables ({stack.name.split(',')[0]}) in "
                          f"{time.perf_counter() - began:.0f} s")
                for size in sizes:
                    result = run(play(server, seated[stack.postgres][:size], stack,
                                      duration=args.duration, think=args.think,
                                      reconnect=args.reconnect, page_every=args.page_every,
                                      lag_dir=lag_dir,
                                      pg_url=pg_url if stack.postgres else None))
                    results.append(result)
                    errors = ", ".join(f"{k} ×{n}" for k, n in result.errors.items())
                    lag = result.lag
                    print(f"  {stack.name}, {size} tables: streams opened in "
                          f"{result.open_seconds:.1f} s; p99 {result.p99:.0f} ms; loop lag "
                          f"p99/max {lag.text()} ms; means: {lag.write_waiting:.2f} actions "
                          f"waiting for the write turn, {lag.threads_busy:.2f} threads busy; "
                          f"{lag.full_gcs} full collections ({lag.full_gc_ms:.0f} ms, the "
                          f"longest {lag.full_gc_max_ms:.0f} ms), {lag.middle_gcs} middle "
                          f"ones ({lag.middle_gc_ms:.0f} ms), {lag.young_gcs} young ones "
                          f"({lag.young_gc_ms:.0f} ms)"
                          f"{'; errors: ' + errors if errors else ''}")
    print()
    print(table([result.row() for result in results], HEADERS))
    print()
    print(summary(aims(results)))
    if args.json:
        Path(args.json).write_text(json.dumps([result.__dict__ for result in results],
                                              default=str, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
