"""Servers under test, each in a subprocess: Tablée (``python -m app serve``) and the bare
FastAPI baseline (``python -m bench.bare_app``), both one uvicorn worker on SQLite (WAL).

A subprocess, not a thread: the load generator would otherwise share the server's GIL and
every figure would measure both at once.
"""

from __future__ import annotations

import os
import resource
import secrets
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
STARTUP_SECONDS = 120  # two workers importing the app on a busy machine take a while


def raise_open_files() -> int:
    """Raise this process's open-files limit to its hard limit (subprocesses inherit it):
    a thousand SSE streams need a thousand sockets on each side."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else max(soft, 65_536)
    if soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def machine_cpu_seconds() -> float:
    """CPU time all processes of the machine have used (user + nice + system, all cores;
    ``/proc/stat``), comparable with the processes' own user + system times."""
    user, nice, system = (int(v) for v in Path("/proc/stat").read_text().split()[1:4])
    return (user + nice + system) / os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Server:
    """A running server: its URL, its process, and where its output goes."""

    url: str
    port: int
    process: subprocess.Popen[bytes]
    log: Path

    def rss_kib(self) -> int:
        """Resident memory of the server process, in KiB (Linux ``/proc``)."""
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise RuntimeError("no VmRSS in /proc: the memory figure needs Linux")

    def cpu_seconds(self) -> float:
        """User + system CPU time the server process has used (Linux ``/proc``)."""
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def log_size(self) -> int:
        return self.log.stat().st_size

    def errors_since(self, offset: int) -> list[str]:
        """The distinct exceptions the server logged after ``offset``, with their count,
        to explain a failure (the last line of each traceback)."""
        with self.log.open("rb") as log:
            log.seek(offset)
            lines = log.read().decode(errors="replace").splitlines()
        errors = [line for line in lines if line and not line[0].isspace()
                  and ("Error" in line or "Exception" in line)
                  and not line.startswith(("Traceback", "ERROR:", "INFO:"))]
        errors = [line.split(" (Background on this error at:")[0][:240] for line in errors]
        counts = {line: errors.count(line) for line in errors}
        return [f"{line} (×{count})" for line, count in counts.items()]


@dataclass(frozen=True)
class Instance:
    """A throw-away Tablée instance: a temporary data directory and SQLite file."""

    data_dir: Path
    secret_key: str

    @property
    def database_url(self) -> str:
        return f"sqlite:///{self.data_dir / 'tablee.db'}"

    def env(self) -> dict[str, str]:
        env = {key: value for key, value in os.environ.items()
               if not key.startswith("TABLEE_")}  # no Redis, no other database
        env.update(TABLEE_DATABASE_URL=self.database_url, TABLEE_DATA_DIR=str(self.data_dir),
                   TABLEE_SECRET_KEY=self.secret_key,
                   # Cheap password hashing: seating hundreds of users must stay quick.
                   TABLEE_ARGON2_TIME_COST="1", TABLEE_ARGON2_MEMORY_COST="64",
                   # Every bench user registers from 127.0.0.1 (a real instance allows ten
                   # an hour per address).
                   TABLEE_REGISTRATIONS_PER_HOUR="1000000")
        return env

    def settings(self):
        """The same settings, for work done in this process (seeding the long match)."""
        from app.config import Settings

        return Settings(data_dir=self.data_dir, database_url=self.database_url,
                        secret_key=self.secret_key, argon2_time_cost=1,
                        argon2_memory_cost=64)


def new_instance(data_dir: Path) -> Instance:
    """Migrate a fresh database with ``python -m app migrate``."""
    instance = Instance(data_dir, secrets.token_urlsafe(32))
    subprocess.run([sys.executable, "-m", "app", "migrate"], cwd=ROOT, env=instance.env(),
                   check=True, stdout=subprocess.DEVNULL)
    return instance


LAGSERVE = Path(__file__).with_name("lagserve.py")


def serve_command(port: int, workers: int = 1) -> list[str]:
    """``python -m app serve`` on ``port`` — by way of ``bench/lagserve.py``, which also
    watches each worker's event loop when ``TABLEE_BENCH_LAG`` names a directory."""
    return [sys.executable, str(LAGSERVE), "serve", "--host", "127.0.0.1", "--port",
            str(port), *(["--workers", str(workers)] if workers > 1 else [])]


@contextmanager
def tablee(instance: Instance, *, lag_dir: Path | None = None) -> Iterator[Server]:
    """``python -m app serve`` on a free port, for the block's duration; ``lag_dir``: where
    its event loop's figures go (``bench.lagserve``)."""
    port = free_port()
    env = instance.env()
    if lag_dir is not None:
        env["TABLEE_BENCH_LAG"] = str(lag_dir)
    with _serving(serve_command(port), env, port, instance.data_dir / "server.log",
                  cwd=tablee_root()) as server:
        samples = os.environ.get("TABLEE_BENCH_PYSPY")
        if not samples:
            yield server
            return
        # Every thread of the server sampled by py-spy for its whole life, written (raw,
        # "collapsed stacks") when it stops: ``python -m bench.profile --report FILE``.
        spy = subprocess.Popen(["py-spy", "record", "--pid", str(server.process.pid),
                                "--format", "raw", "--rate", "200", "--nonblocking",
                                "--output", samples], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
        try:
            yield server
        finally:
            server.process.terminate()
            try:
                spy.wait(timeout=30)
            except subprocess.TimeoutExpired:
                spy.kill()


def tablee_root() -> Path:
    """Whose code the Tablée server runs: this checkout, or ``TABLEE_BENCH_ROOT`` (another
    checkout of the project, say ``git archive main``, to measure before/after on one
    machine in one sitting: ``python -m app`` finds the ``app`` package of its cwd first)."""
    return Path(os.environ.get("TABLEE_BENCH_ROOT") or ROOT)


@contextmanager
def bare(data_dir: Path) -> Iterator[Server]:
    """The baseline: one FastAPI endpoint doing one SQLite insert, served the same way."""
    port = free_port()
    command = [sys.executable, "-m", "bench.bare_app", "--port", str(port),
               "--database", str(data_dir / "bare.db")]
    with _serving(command, dict(os.environ), port, data_dir / "bare.log") as server:
        yield server


@contextmanager
def _serving(command: list[str], env: dict[str, str], port: int, log: Path, *,
             cwd: Path = ROOT) -> Iterator[Server]:
    with log.open("wb") as output:
        process = subprocess.Popen(command, cwd=cwd, env=env, stdout=output,
                                   stderr=subprocess.STDOUT)
        server = Server(f"http://127.0.0.1:{port}", port, process, log)
        try:
            _wait_until_up(server)
            yield server
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _wait_until_up(server: Server) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            break
        try:
            if httpx.get(server.url + "/healthz", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    tail = server.log.read_text(errors="replace")[-2000:]
    raise RuntimeError(f"the server did not start ({' '.join(server.process.args)}):\n{tail}")
