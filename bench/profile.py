"""``python -m bench.profile [--seconds S] [--clients N]``: where the action path's CPU goes.

Starts a Tablée server (a subprocess, fresh SQLite, like ``python -m bench``), seats
``clients`` tables through the API, then posts public free rolls flat out (one client per
table) while ``py-spy`` samples every thread of the server. Prints the server CPU per
action, the SQL statements one action runs, and two tables from the samples: the
functions the server was *in* (inclusive, the route's parts) and the ones it was
*executing* (self time). Needs ``py-spy`` (in the ``bench`` extras; sampling another process
needs ptrace rights: root, or ``kernel.yama.ptrace_scope=0``).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

from bench.client import api_client, close_all, connect
from bench.seating import ROLL, seat_tables
from bench.server import new_instance, tablee

# Frames worth naming in the inclusive table: our code and the layers it stands on.
INTERESTING = ("app/", "fastapi/", "starlette/", "sqlalchemy/", "pydantic", "uvicorn/",
               "json", "copy.py", "hmac", "hashlib")


async def _load(url: str, tables, seconds: float) -> int:
    host = urlsplit(url).netloc
    body = json.dumps({"action": ROLL, "seq": None}).encode()
    connections = [await connect(url) for _ in tables]
    done = 0
    stop = time.monotonic() + seconds

    async def client(index: int) -> None:
        nonlocal done
        table = tables[index]
        player = table.actors[1]
        while time.monotonic() < stop:
            status, answer = await connections[index].post(host, f"{table.path}/actions", body,
                                                           player.headers)
            if status != 200:
                raise RuntimeError(f"action refused: {status} {answer[:200]!r}")
            done += 1

    try:
        await asyncio.gather(*(client(index) for index in range(len(tables))))
    finally:
        close_all(connections)
    return done


def _statements(instance, table) -> list[str]:
    """The SQL one action runs, counted in-process on the same database (after the
    server stopped)."""
    from sqlalchemy import event
    from starlette.testclient import TestClient

    from app.main import create_app

    settings = instance.settings()
    app = create_app(settings)
    seen: list[str] = []
    event.listen(app.state.engine, "before_cursor_execute",
                 lambda conn, cursor, statement, *args: seen.append(
                     " ".join(statement.split()[:4])))
    player = table.actors[1]
    with TestClient(app) as client:
        client.post(f"{table.path}/actions", headers=player.headers,
                    json={"action": ROLL, "seq": None})
        seen.clear()
        response = client.post(f"{table.path}/actions", headers=player.headers,
                               json={"action": ROLL, "seq": None})
        assert response.status_code == 200, response.text
    app.state.engine.dispose()
    return list(seen)


def _tables(raw: Path, top: int) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
    inclusive: collections.Counter[str] = collections.Counter()
    own: collections.Counter[str] = collections.Counter()
    total = 0
    for line in raw.read_text().splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():  # a frame name holding a newline
            continue
        count = int(count_text)
        frames = stack.split(";")
        # Threads that only wait (idle pool threads, the selector) are not CPU.
        leaf = frames[-1]
        if any(word in leaf for word in ("wait (threading", "select (selectors", "_worker (",
                                         "run_forever", "acquire", "Runner.run (")):
            continue
        total += count
        own[_short(leaf)] += count
        for name in {_short(frame) for frame in frames
                     if any(part in frame for part in INTERESTING)}:
            inclusive[name] += count
    share = lambda counter: [(name, 100 * n / max(total, 1))  # noqa: E731
                             for name, n in counter.most_common(top)]
    return share(inclusive), share(own)


def _short(frame: str) -> str:
    name, _, where = frame.partition(" (")
    where = where.rstrip(")")
    for marker in ("site-packages/", "/lib/python3"):
        if marker in where:
            where = where.split(marker, 1)[1]
    if "/app/" in where:
        where = "app/" + where.split("/app/", 1)[1]
    return f"{name} ({where.rsplit(':', 1)[0]})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.profile")
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--report", metavar="FILE", help="only summarise py-spy raw samples "
                        "(say, TABLEE_BENCH_PYSPY=FILE python -m bench fanout)")
    args = parser.parse_args(argv)
    if args.report:
        _report(Path(args.report), args.top)
        return 0
    spy = shutil.which("py-spy")
    if spy is None:
        print("py-spy is not installed: pip install py-spy")
        return 2
    with tempfile.TemporaryDirectory(prefix="tablee-profile-") as temp:
        instance = new_instance(Path(temp) / "tablee")
        with tablee(instance) as server:
            async def seat():
                async with api_client(server.url) as client:
                    return await seat_tables(client, args.clients, "p")

            tables = asyncio.run(seat())
            asyncio.run(_load(server.url, tables, 2))  # warm up
            raw = Path(temp) / "samples.txt"
            recorder = subprocess.Popen(
                [spy, "record", "--pid", str(server.process.pid), "--format", "raw",
                 "--rate", "250", "--gil", "--nonblocking", "--output", str(raw),
                 "--duration", str(int(args.seconds))],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            cpu, started = server.cpu_seconds(), time.perf_counter()
            done = asyncio.run(_load(server.url, tables, args.seconds))
            elapsed = time.perf_counter() - started
            cpu = server.cpu_seconds() - cpu
            recorder.wait(timeout=60)
        statements = _statements(instance, tables[0])
        print(f"{done} actions in {elapsed:.1f} s: {done / elapsed:.0f}/s, server CPU "
              f"{cpu * 1000 / max(done, 1):.2f} ms per action (py-spy sampling adds a little)")
        print(f"\nSQL statements per action: {len(statements)}")
        for statement in statements:
            print(f"  {statement}")
        if raw.exists():
            _report(raw, args.top)
        else:
            print("py-spy wrote no samples (ptrace not allowed?)")
    return 0


def _report(raw: Path, top: int) -> None:
    inclusive, own = _tables(raw, top)
    print("\nInclusive (% of the server's busy samples)")
    for name, share in inclusive:
        print(f"  {share:5.1f}%  {name}")
    print("\nSelf time")
    for name, share in own:
        print(f"  {share:5.1f}%  {name}")


if __name__ == "__main__":
    raise SystemExit(main())
