"""``python -m bench.inproc``: server CPU per action and per fan-out, measured in one process.

Figures that survive a busy machine: the CPU time this process spends (``time.process_time``,
every thread: the event loop and the thread pool) per request, not the wall clock. The
applications are driven as plain ASGI — no sockets, no HTTP parsing: what is measured is
the application's own work, for Tablée's action and for the bare FastAPI + one SQLite insert
endpoint (``bench.bare_app``), alternately (A/B/A/B), with the same concurrency.

    python -m bench.inproc actions            # CPU per action ÷ CPU per bare insert
    python -m bench.inproc actions --profile  # and where it goes (cProfile, cumulative)
    python -m bench.inproc fanout             # CPU per stream per event, 1,000 streams
    python -m bench.inproc statements         # the SQL one action runs
    python -m bench.inproc reconnect          # CPU per stream (re)opened with Last-Event-ID

The fan-out streams are ASGI calls of the stream route whose ``send`` only counts bytes, so
the figure holds everything the server does per stream except the socket write.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import json
import os
import pstats
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from bench.seating import ROLL, Table, seat_tables
from bench.server import new_instance

Call = Callable[[], Awaitable[int]]


def _asgi_post(app, path: str, body: bytes, headers: dict[str, str]) -> Call:
    raw_headers = [(b"host", b"bench"), (b"content-type", b"application/json"),
                   (b"content-length", str(len(body)).encode())]
    raw_headers += [(k.lower().encode(), v.encode()) for k, v in headers.items()]

    async def call() -> int:
        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
                 "method": "POST", "scheme": "http", "path": path, "raw_path": path.encode(),
                 "query_string": b"", "root_path": "", "headers": list(raw_headers),
                 "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 80)}
        sent = False
        status = 0

        async def receive() -> dict[str, Any]:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            await asyncio.Event().wait()
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]

        await app(scope, receive, send)
        return status

    return call


async def _cpu_per_call(calls: list[Call], total: int, expected: int) -> float:
    """CPU ms per call, ``len(calls)`` clients each sending its next call when answered."""
    remaining = total

    async def client(call: Call) -> None:
        nonlocal remaining
        while remaining > 0:
            remaining -= 1
            status = await call()
            if status != expected:
                raise RuntimeError(f"answered {status}, expected {expected}")

    await asyncio.gather(*(call() for call in calls))  # warm up
    started = time.process_time()
    await asyncio.gather(*(client(call) for call in calls))
    return (time.process_time() - started) * 1000 / total


_counting = {"on": False, "calls": 0}


def _count(_frame, event, _arg) -> None:
    if _counting["on"] and event in ("call", "c_call"):
        _counting["calls"] += 1


def install_call_counter() -> None:
    """Count function calls on every thread, this one and those started later (the thread
    pool's): installed before anything starts a thread."""
    threading.setprofile(_count)
    sys.setprofile(_count)


async def _calls_per_call(calls: list[Call], total: int) -> float:
    """Python and C function calls per request, on every thread: a measure of the work
    that the machine's load does not move (unlike its time)."""
    await asyncio.gather(*(call() for call in calls))  # warm up
    _counting.update(on=True, calls=0)
    try:
        done = 0
        while done < total:
            await asyncio.gather(*(call() for call in calls))
            done += len(calls)
    finally:
        _counting["on"] = False
    return _counting["calls"] / done


class Tablee:
    """A Tablée app on a fresh SQLite instance, its lifespan running, with seated tables."""

    def __init__(self, temp: Path) -> None:
        from app.main import create_app

        self.instance = new_instance(temp / "tablee")
        self.app = create_app(self.instance.settings().model_copy(
            update={"registrations_per_hour": 1_000_000}))
        self.client = httpx.AsyncClient(transport=httpx.ASGITransport(app=self.app),
                                        base_url="http://bench")

    async def __aenter__(self) -> Tablee:
        await self.app.state.broker.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.client.aclose()
        await self.app.state.broker.close()
        self.app.state.engine.dispose()

    async def seat(self, count: int, **roles: int) -> list[Table]:
        return await seat_tables(self.client, count, "t", concurrency=1, **roles)

    def action_calls(self, tables: list[Table], action: dict = ROLL) -> list[Call]:
        body = json.dumps({"action": action, "seq": None}).encode()
        return [_asgi_post(self.app, f"{table.path}/actions", body, table.actors[1].headers)
                for table in tables]


def _bare(temp: Path) -> tuple[Any, list[Call]]:
    from bench.bare_app import create_app

    app = create_app(str(temp / "bare.db"))
    body = json.dumps({"text": "1d20+5"}).encode()
    return app, [_asgi_post(app, "/rows", body, {}) for _ in range(8)]


async def actions(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="tablee-inproc-") as temp:
        _app, bare_calls = _bare(Path(temp))
        async with Tablee(Path(temp)) as tablee:
            tables = await tablee.seat(args.clients, players=1, spectators=0)
            calls = tablee.action_calls(tables)
            rows = []
            for _ in range(args.rounds):
                bare_ms = await _cpu_per_call(bare_calls[:args.clients], args.requests, 201)
                tablee_ms = await _cpu_per_call(calls, args.requests, 200)
                rows.append((bare_ms, tablee_ms))
                print(f"  bare insert {bare_ms:.3f} ms   Tablée action {tablee_ms:.3f} ms   "
                      f"ratio (bare ÷ Tablée) {bare_ms / tablee_ms:.3f}", flush=True)
            if rows:
                bare_ms = statistics.median(r[0] for r in rows)
                tablee_ms = statistics.median(r[1] for r in rows)
                print(f"median: bare {bare_ms:.3f} ms, Tablée {tablee_ms:.3f} ms of CPU per "
                      f"request; bare ÷ Tablée = {bare_ms / tablee_ms:.3f} (aim ≥ 0.4)")
            if args.calls:
                print(f"function calls per action (every thread, deterministic): "
                      f"{await _calls_per_call(calls, args.requests):,.0f}; per bare insert: "
                      f"{await _calls_per_call(bare_calls[:args.clients], args.requests):,.0f}")
            if args.pyspy:
                with _sampled(Path(temp) / "samples.txt", args.top):
                    await _cpu_per_call(calls, args.requests * 4, 200)
            if args.profile:
                profiler = cProfile.Profile()
                profiler.enable()
                await _cpu_per_call(calls, args.requests, 200)
                profiler.disable()
                out = io.StringIO()
                stats = pstats.Stats(profiler, stream=out)
                stats.sort_stats(args.sort).print_stats(args.top)
                print(out.getvalue())


@contextmanager
def _sampled(raw: Path, top: int) -> Iterator[None]:
    """py-spy on this very process (every thread holding the GIL) for the block."""
    from bench.profile import _report

    spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    recorder = subprocess.Popen([spy, "record", "--pid", str(os.getpid()), "--format", "raw",
                                 "--rate", "500", "--gil", "--nonblocking", "--output",
                                 str(raw)], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
    time.sleep(1.0)  # let it attach
    try:
        yield
    finally:
        recorder.send_signal(signal.SIGINT)
        recorder.wait(timeout=60)
    _report(raw, top)
    print(f"(samples: {raw})")


async def statements(args: argparse.Namespace) -> None:
    from sqlalchemy import event

    with tempfile.TemporaryDirectory(prefix="tablee-inproc-") as temp:
        async with Tablee(Path(temp)) as tablee:
            tables = await tablee.seat(1, players=1, spectators=0)
            (call,) = tablee.action_calls(tables)
            await call()
            seen: list[str] = []

            def listen(_conn, _cursor, statement, *_args) -> None:
                seen.append(" ".join(statement.split()[:6]))

            event.listen(tablee.app.state.engine, "before_cursor_execute", listen)
            assert await call() == 200
            print(f"SQL statements per action: {len(seen)}")
            for statement in seen:
                print(f"  {statement}")


async def fanout(args: argparse.Namespace) -> None:
    """``args.streams`` streams on one match (its members in turn); the GM rolls; CPU from
    the POST until every stream has the event, per stream."""
    with tempfile.TemporaryDirectory(prefix="tablee-inproc-") as temp:
        async with Tablee(Path(temp)) as tablee:
            (table,) = await tablee.seat(1)
            app = tablee.app
            arrived: list[int] = []
            target = {"seq": 0}
            done = asyncio.Event()
            disconnect = asyncio.Event()

            def stream(member) -> Awaitable[None]:
                path = _stream_path(table, args.page)
                scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
                         "method": "GET", "scheme": "http", "path": path,
                         "raw_path": path.encode(), "query_string": b"", "root_path": "",
                         "headers": [(b"host", b"bench"),
                                     (b"authorization", f"Bearer {member.token}".encode())],
                         "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 80)}
                first = True

                async def receive() -> dict[str, Any]:
                    nonlocal first
                    if first:
                        first = False
                        return {"type": "http.request", "body": b"", "more_body": False}
                    await disconnect.wait()
                    return {"type": "http.disconnect"}

                async def send(message: dict[str, Any]) -> None:
                    body = message.get("body")
                    if body and body.startswith(b"id: "):
                        seq = int(body[4:body.index(b"\r")].split(b".")[0])
                        if seq >= target["seq"] > 0:
                            arrived.append(seq)
                            if len(arrived) >= args.streams:
                                done.set()

                return app(scope, receive, send)

            members = table.members
            opened = app.state.metrics.open_streams._value
            tasks = []
            for i in range(args.streams):  # a few at a time, like browsers arriving
                tasks.append(asyncio.ensure_future(stream(members[i % len(members)])))
                while opened.get() < i + 1 - 8:
                    await asyncio.sleep(0.005)
            while opened.get() < args.streams:
                await asyncio.sleep(0.05)
            await asyncio.sleep(0.5)
            body = json.dumps({"action": ROLL, "seq": None}).encode()
            post = _asgi_post(app, f"{table.path}/actions", body, members[0].headers)
            results = []
            for _ in range(args.rounds):
                arrived.clear()
                done.clear()
                target["seq"] = table.seq + 1
                profiler = cProfile.Profile() if args.profile else None
                started_cpu, started = time.process_time(), time.perf_counter()
                if profiler:
                    profiler.enable()
                _counting.update(on=args.calls, calls=0)
                assert await post() == 200
                table.seq += 1
                await asyncio.wait_for(done.wait(), 60)
                _counting["on"] = False
                if profiler:
                    profiler.disable()
                if args.calls:
                    print(f"  function calls per stream (action included): "
                          f"{_counting['calls'] / args.streams:.1f}")
                cpu = time.process_time() - started_cpu
                wall = time.perf_counter() - started
                results.append(cpu)
                print(f"  round: CPU {cpu * 1000:.1f} ms for {args.streams} streams "
                      f"({cpu * 1e6 / args.streams:.1f} µs a stream, action included); "
                      f"wall {wall * 1000:.1f} ms", flush=True)
                if profiler:
                    out = io.StringIO()
                    pstats.Stats(profiler, stream=out).sort_stats(args.sort).print_stats(
                        args.top)
                    print(out.getvalue())
                await asyncio.sleep(0.2)
            print(f"median CPU per stream per event: "
                  f"{statistics.median(results) * 1e6 / args.streams:.1f} µs")
            disconnect.set()
            await asyncio.gather(*tasks, return_exceptions=True)


def _stream_path(table: Table, page: bool) -> str:
    """The match's API stream, or its table page's HTML stream."""
    if page:
        return f"/campaigns/{table.campaign_id}/matches/{table.match_id}/stream"
    return f"{table.path}/stream"


def _stream_scope(path: str, token: str,
                  last_event_id: int | str | None = None) -> dict[str, Any]:
    headers = [(b"host", b"bench"), (b"authorization", f"Bearer {token}".encode())]
    if last_event_id is not None:
        headers.append((b"last-event-id", str(last_event_id).encode()))
    return {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
            "method": "GET", "scheme": "http", "path": path, "raw_path": path.encode(),
            "query_string": b"", "root_path": "", "headers": headers,
            "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 80)}


async def _reopen(app, path: str, token: str, seq: int,
                  leave: asyncio.Event | None = None, resume: str | None = None) -> None:
    """A browser back after missing the last event: its stream opens with
    ``Last-Event-ID: seq - 1`` (or ``resume``, the id the tab last received, whole),
    receives event ``seq``, and the browser leaves (or stays until ``leave`` is set)."""
    got, asked = asyncio.Event(), False
    marker = f"id: {seq}\r".encode()

    async def receive() -> dict[str, Any]:
        nonlocal asked
        if not asked:
            asked = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await (leave or got).wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        if marker in message.get("body", b""):
            got.set()

    await app(_stream_scope(path, token, resume or seq - 1), receive, send)


async def _last_id(app, path: str, token: str) -> str:
    """The id a tab that opened the stream now last received, whole (its ``state``)."""
    ids: list[str] = []
    done = asyncio.Event()

    async def receive() -> dict[str, Any]:
        if not ids and not done.is_set():
            done.set()
            return {"type": "http.request", "body": b"", "more_body": False}
        await asyncio.sleep(0.2)  # the connecting state is written at once
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        body = message.get("body", b"")
        ids.extend(line[4:].decode() for line in body.split(b"\r\n") if line.startswith(b"id: "))

    await app(_stream_scope(path, token), receive, send)
    return ids[-1]


async def reconnect(args: argparse.Namespace) -> None:
    """CPU and function calls per stream reopened: ``args.clients`` browsers at a time,
    each on a table of its own whose GM keeps watching (so the match's feed is there, as
    when one browser of a table drops and comes back)."""
    with tempfile.TemporaryDirectory(prefix="tablee-inproc-") as temp:
        async with Tablee(Path(temp)) as tablee:
            tables = await tablee.seat(args.clients, players=1, spectators=0)
            held = {}  # the id each player's tab last received before the event it missed
            for table in tables:  # one event for the browsers to have missed
                held[table.match_id] = await _last_id(tablee.app, _stream_path(
                    table, args.page), table.actors[1].token)
                post = tablee.action_calls([table])[0]
                assert await post() == 200
                table.seq += 1
            calls = [lambda t=t: _reopen(tablee.app, _stream_path(t, args.page),
                                         t.actors[1].token, t.seq,
                                         resume=held[t.match_id]) for t in tables]
            leave = asyncio.Event()
            watching = [asyncio.ensure_future(_reopen(tablee.app, _stream_path(t, args.page),
                                                      t.members[0].token, t.seq, leave))
                        for t in tables]
            try:
                await _reopened(args, calls)
            finally:
                leave.set()
                await asyncio.gather(*watching)


async def _reopened(args: argparse.Namespace, calls: list[Call]) -> None:
    async def rounds(total: int) -> float:
        started = time.process_time()
        done = 0
        while done < total:
            await asyncio.gather(*(call() for call in calls))
            done += len(calls)
        return (time.process_time() - started) * 1000 / done

    await rounds(len(calls))  # warm up
    if args.calls:
        _counting.update(on=True, calls=0)
        await rounds(args.requests)
        _counting["on"] = False
        print(f"function calls per reconnection (every thread): "
              f"{_counting['calls'] / args.requests:,.0f}")
        return
    if args.pyspy:
        with _sampled(Path(tempfile.mkdtemp(prefix="tablee-spy-")) / "samples.txt",
                      args.top):
            await rounds(args.requests * 4)
        return
    results = [await rounds(args.requests) for _ in range(args.rounds)]
    for ms in results:
        print(f"  CPU per reconnection: {ms:.3f} ms")
    print(f"median CPU per reconnection: {statistics.median(results):.3f} ms")
    if args.profile:
        profiler = cProfile.Profile()
        profiler.enable()
        await rounds(args.requests)
        profiler.disable()
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats(args.sort).print_stats(args.top)
        print(out.getvalue())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.inproc")
    parser.add_argument("part", choices=("actions", "fanout", "statements", "reconnect"))
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--requests", type=int, default=800)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--streams", type=int, default=1000)
    parser.add_argument("--page", action="store_true",
                        help="fanout, reconnect: the table page's HTML stream, not the API's")
    parser.add_argument("--profile", action="store_true", help="cProfile (the loop's thread)")
    parser.add_argument("--calls", action="store_true",
                        help="also count function calls per request (deterministic)")
    parser.add_argument("--pyspy", action="store_true", help="py-spy, every thread")
    parser.add_argument("--sort", default="tottime")
    parser.add_argument("--top", type=int, default=40)
    args = parser.parse_args(argv)
    if args.calls:
        install_call_counter()
        if args.part == "actions":
            args.rounds = 0  # the counter would weigh on the timings
    try:
        import uvloop
        runner = uvloop.run
    except ImportError:  # pragma: no cover
        runner = asyncio.run
    parts = {"actions": actions, "fanout": fanout, "statements": statements,
             "reconnect": reconnect}
    runner(parts[args.part](args))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
