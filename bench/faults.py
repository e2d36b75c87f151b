"""``python -m bench.faults [worker|redis|postgres ...]``: faults during load, and what held.

Each scenario runs tables of six with their streams open (``bench.load``) on PostgreSQL +
Redis with two workers, breaks something a few seconds in, and checks what the issue asks:

- ``worker``: one worker is killed (SIGKILL). Its browsers reconnect (to the other worker,
  or the one uvicorn starts again) and resume with ``Last-Event-ID``; actions it was
  answering are retried by the client with their ``Idempotency-Key``.
- ``redis``: a private ``redis-server`` (its own port) is stopped for a few seconds, then
  started again. ``/readyz`` says so meanwhile; actions keep working; streams catch up
  from the database when the bus is back.
- ``postgres``: a private PostgreSQL cluster (``initdb``/``pg_ctl`` in a temporary
  directory, its own port — never the shared one) is stopped for a few seconds, then
  started again. Actions answer 503 with ``Retry-After`` meanwhile (retried by the client),
  never a 500; nothing half-applied; everything resumes after.

What every scenario then checks, and prints: no event missing or doubled for any viewer;
each match's log numbered 1..seq without a hole; every acknowledged action in it exactly
once, and no event that no one was answered for (nothing applied twice or half).
Exit status 1 when a check fails.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
from sqlalchemy import create_engine, text

from bench.load import (
    REDIS_URL,
    Result,
    Stack,
    _seat,
    fresh_postgres,
    play,
    process_tree,
    serve,
)
from bench.report import percentile
from bench.seating import Table
from bench.server import Instance, free_port, raise_open_files

TABLES = 12
STACK = Stack("PostgreSQL + Redis, 2 workers", 2, True)


@dataclass
class Check:
    what: str
    ok: bool
    detail: str = ""


# -- private services -------------------------------------------------------------------

@contextmanager
def private_redis() -> Iterator[tuple[str, Callable[[], None], Callable[[], None]]]:
    """A redis-server of our own on a free port: (url, stop, start)."""
    port = free_port()
    command = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
               "--appendonly", "no"]
    process: list[subprocess.Popen[bytes]] = []

    def start() -> None:
        process.append(subprocess.Popen(command, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL))
        _wait_port(port)

    def stop() -> None:
        process[-1].terminate()
        process[-1].wait(timeout=10)

    start()
    try:
        yield f"redis://127.0.0.1:{port}/0", stop, start
    finally:
        if process[-1].poll() is None:
            stop()


@contextmanager
def private_postgres(base: Path) -> Iterator[tuple[str, Callable[[], None], Callable[[], None]]]:
    """A PostgreSQL cluster of our own (initdb in ``base``, run as the postgres user when we
    are root, since PostgreSQL refuses root): (url, stop, start)."""
    data, sockets = base / "pgdata", base / "pgsock"
    sockets.mkdir(parents=True)
    as_postgres = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    if as_postgres:
        shutil.chown(base, "postgres")
        shutil.chown(sockets, "postgres")
    port = free_port()
    subprocess.run([*as_postgres, "initdb", "-D", str(data), "-U", "postgres", "--auth=trust",
                    "--no-sync"], check=True, stdout=subprocess.DEVNULL)
    options = f"-p {port} -k {sockets} -c listen_addresses=127.0.0.1 -c fsync=off"
    log = base / "postgres.log"

    def start() -> None:
        subprocess.run([*as_postgres, "pg_ctl", "-D", str(data), "-o", options, "-l", str(log),
                        "-w", "start"], check=True, stdout=subprocess.DEVNULL)

    def stop() -> None:
        subprocess.run([*as_postgres, "pg_ctl", "-D", str(data), "-m", "fast", "-w", "stop"],
                       check=True, stdout=subprocess.DEVNULL)

    start()
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/tablee", stop, start
    finally:
        subprocess.run([*as_postgres, "pg_ctl", "-D", str(data), "-m", "immediate", "stop"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _wait_port(port: int, seconds: float = 10) -> None:
    import socket

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on port {port}")


def workers_of(pid: int) -> list[int]:
    """uvicorn's worker processes (multiprocessing spawn children)."""
    found = []
    for member in process_tree(pid):
        try:
            command = Path(f"/proc/{member}/cmdline").read_bytes()
        except OSError:
            continue
        if b"spawn_main" in command:
            found.append(member)
    return found


# -- checks -------------------------------------------------------------------------------

def common_checks(result: Result, tables: list[Table], starts: dict[int, int],
                  pg_url: str) -> list[Check]:
    checks = [
        Check("every viewer has every event of its table, none twice",
              result.missing == 0 and result.doubled == 0,
              f"{result.viewers} viewers, {result.reconnects} reconnections; "
              f"missing {result.missing}, doubled {result.doubled}"),
        Check("no action lost: every one answered 200 (after retries with its key)",
              not result.errors, _kinds(result.errors) or "no error"),
    ]
    engine = create_engine(pg_url)
    holes, unacked, absent = [], 0, 0
    with engine.connect() as connection:
        for table_ in tables:
            seqs = [row[0] for row in connection.execute(text(
                "SELECT seq FROM match_events WHERE match_id = :m ORDER BY seq"),
                {"m": table_.match_id})]
            last = connection.scalar(text("SELECT seq FROM matches WHERE id = :m"),
                                     {"m": table_.match_id})
            if seqs != list(range(1, last + 1)):
                holes.append(table_.match_id)
            acked = set(result.acked.get(table_.match_id, []))
            played = {seq for seq in seqs if seq > starts[table_.match_id]}
            absent += len(acked - played)
            unacked += len(played - acked)
    engine.dispose()
    checks.append(Check("each match's log is numbered 1..seq, no hole or duplicate",
                        not holes, f"{len(tables)} matches" + (f"; holes in {holes}"
                                                                if holes else "")))
    checks.append(Check("every acknowledged action is in the log once, and nothing else was "
                        "applied (no half or double action)", absent == 0 and unacked == 0,
                        f"{sum(len(set(v)) for v in result.acked.values())} actions "
                        f"acknowledged; absent from the log {absent}, in the log but never "
                        f"acknowledged {unacked}"))
    return checks


def _kinds(counts: dict[str, int]) -> str:
    return ", ".join(f"{kind} ×{count}" for kind, count in counts.items())


# -- scenarios ----------------------------------------------------------------------------

@dataclass
class Context:
    temp: Path
    secret: str
    duration: float
    think: float


async def _readiness(url: str) -> int:
    async with httpx.AsyncClient(timeout=3) as client:
        try:
            return (await client.get(url + "/readyz")).status_code
        except httpx.HTTPError:
            return 0


async def _until_ready(url: str, want: int, seconds: float) -> float | None:
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        if await _readiness(url) == want:
            return time.monotonic() - started
        await asyncio.sleep(0.2)
    return None


def _run(ctx: Context, name: str, pg_url: str, redis_url: str,
         make_fault: Callable[[object, list[Check]], Callable[[], Awaitable[None]]]
         ) -> list[Check]:
    instance = Instance(ctx.temp / name, ctx.secret)
    instance.data_dir.mkdir(parents=True)
    fresh_postgres(instance, pg_url)
    extra: list[Check] = []
    with serve(STACK, instance, pg_url, redis_url) as server:
        tables = asyncio.run(_seat(server.url, TABLES))
        starts = {t.match_id: t.seq for t in tables}
        result = asyncio.run(play(server, tables, STACK, duration=ctx.duration,
                                  think=ctx.think, reconnect=0,
                                  fault=make_fault(server, extra), label=name))
        after = asyncio.run(_readiness(server.url))
        extra.append(Check("ready again at the end (/readyz 200)", after == 200,
                           f"/readyz {after}"))
    checks = extra + common_checks(result, tables, starts, pg_url)
    retried = _kinds(result.retried)
    samples = result.latencies + result.during_reconnect
    print(f"  {len(tables)} tables, {len(samples)} actions, p99 action→last viewer "
          f"{percentile(samples, 0.99):.0f} ms{'; retried: ' + retried if retried else ''}")
    return checks


def worker_kill(ctx: Context, pg_url: str) -> list[Check]:
    def make_fault(server, extra: list[Check]):
        async def fault() -> None:
            await asyncio.sleep(ctx.duration / 3)
            workers = workers_of(server.process.pid)
            victim = workers[0]
            os.kill(victim, signal.SIGKILL)
            extra.append(Check("a worker was killed (SIGKILL) during load", True,
                               f"pid {victim} of {workers}"))
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                now = [pid for pid in workers_of(server.process.pid) if pid != victim]
                if len(now) >= len(workers):
                    break
                await asyncio.sleep(0.2)
            extra.append(Check("uvicorn started a worker in its place",
                               len(now) >= len(workers), f"workers now {now}"))
        return fault

    return _run(ctx, "worker killed", pg_url, _shared_redis(), make_fault)


def _shared_redis() -> str:
    return os.environ.get("TABLEE_BENCH_REDIS", REDIS_URL)


def _service_outage(ctx: Context, service: str, stop, start):
    """The fault of a restart scenario: a third of the way in, stop ``service``; check that
    /readyz says so, start it again, check that /readyz comes back."""
    def make_fault(server, extra: list[Check]):
        async def fault() -> None:
            await asyncio.sleep(ctx.duration / 3)
            await asyncio.to_thread(stop)
            noticed = await _until_ready(server.url, 503, 10)
            extra.append(Check(f"/readyz answers 503 while {service} is down",
                               noticed is not None,
                               f"after {noticed:.1f} s" if noticed is not None else "never"))
            await asyncio.sleep(3)
            await asyncio.to_thread(start)
            back = await _until_ready(server.url, 200, 30)
            extra.append(Check(f"/readyz answers 200 once {service} is back", back is not None,
                               f"after {back:.1f} s" if back is not None else "never"))
        return fault
    return make_fault


def redis_restart(ctx: Context, pg_url: str) -> list[Check]:
    with private_redis() as (redis_url, stop, start):
        return _run(ctx, "Redis restarted", pg_url, redis_url,
                    _service_outage(ctx, "Redis", stop, start))


def postgres_restart(ctx: Context) -> list[Check]:
    base = ctx.temp / "private-pg"
    base.mkdir()
    with private_postgres(base) as (pg_url, stop, start):
        make_fault = _service_outage(ctx, "PostgreSQL", stop, start)
        checks = _run(ctx, "PostgreSQL restarted", pg_url, _shared_redis(), make_fault)
        log = (base / "postgres.log").read_text(errors="replace")
        checks.append(Check("PostgreSQL was really stopped and started again",
                            "database system is shut down" in log
                            and log.count("database system is ready") >= 2,
                            "from the cluster's log"))
        return checks


SCENARIOS = {"worker": worker_kill, "redis": redis_restart, "postgres": postgres_restart}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.faults", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("scenarios", nargs="*", metavar="SCENARIO",
                        help=f"among {', '.join(SCENARIOS)} (default: all)")
    parser.add_argument("--duration", type=float, default=18)
    parser.add_argument("--think", type=float, default=1.5)
    args = parser.parse_args(argv)
    # A SIGTERM (a timeout, a kill) unwinds like Ctrl-C: the servers it started stop too.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    chosen = args.scenarios or list(SCENARIOS)
    pg_url = os.environ.get("TABLEE_BENCH_PG",
                            "postgresql+psycopg://postgres@127.0.0.1:5432/tablee_bench_faults")
    raise_open_files()
    failed = 0
    with tempfile.TemporaryDirectory(prefix="tablee-faults-") as temp:
        os.chmod(temp, 0o755)
        import secrets

        ctx = Context(Path(temp), secrets.token_urlsafe(32), args.duration, args.think)
        for name in chosen:
            print(f"== fault: {name}")
            scenario = SCENARIOS[name]
            checks = scenario(ctx) if name == "postgres" else scenario(ctx, pg_url)
            for check in checks:
                failed += not check.ok
                print(f"  [{'ok' if check.ok else 'FAILED'}] {check.what}: {check.detail}")
            print()
    print("all fault checks passed" if not failed else f"{failed} fault check(s) FAILED")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
