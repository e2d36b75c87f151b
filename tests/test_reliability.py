"""The table under stress: twenty players clicking at once, and a server killed mid-game.

Both run against real servers — a uvicorn in this process, then ``python -m app serve`` in
another one — on whichever database the suite uses (SQLite, or PostgreSQL through
``TABLEE_TEST_DATABASE_URL``). What must hold: every accepted action is in the log exactly
once, ``seq`` runs 1..N with no gap or duplicate, and folding the log gives the snapshot.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from app.db import make_engine, make_sessionmaker
from app.models import Match, MatchEvent
from app.services import tables
from tests.e2e.conftest import LiveServer
from tests.match_table import Table, close_clients, http_user, live_server, on_server, seat_table
from tests.table_harness import normalised

ROOT = Path(__file__).resolve().parent.parent
CLIENTS = 20


@pytest.fixture
def live(settings) -> Iterator[LiveServer]:
    with live_server(settings) as server:
        yield server


def assert_log_is_consistent(database_url: str, match_id: int) -> list[MatchEvent]:
    """seq is 1..N without gap or duplicate, and fold(log) == snapshot; returns the log."""
    engine = make_engine(database_url)
    try:
        with make_sessionmaker(engine)() as db:
            match = db.get(Match, match_id)
            log = list(db.scalars(select(MatchEvent).where(MatchEvent.match_id == match_id)
                                  .order_by(MatchEvent.seq)))
            assert [event.seq for event in log] == list(range(1, match.seq + 1))
            assert normalised(tables.fold_log(db, match)) == normalised(match.state)
            return log
    finally:
        engine.dispose()


# — twenty clients, one seq ————————————————————————————————————————————————————————

def at_once(table_per_client: list[Table], who: list[str], texts: list[str],
            seq: int | None) -> list[httpx.Response]:
    """Each client posts its note at the same instant (a barrier releases them together)."""
    start = threading.Barrier(len(texts))
    answers: list[httpx.Response | None] = [None] * len(texts)

    def post(n: int) -> None:
        start.wait(timeout=10)
        answers[n] = table_per_client[n].act(who[n], {"kind": "note", "text": texts[n]},
                                             seq=seq)

    threads = [threading.Thread(target=post, args=(n,)) for n in range(len(texts))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert all(answer is not None for answer in answers), "a client got no answer"
    return answers  # type: ignore[return-value]


def test_twenty_clients_acting_at_once_get_one_seq_each(api, live, settings):
    seated = seat_table(api)
    # Each client has its own connection, like twenty browsers; Mia, Paul and Pia share them.
    remotes = [on_server(seated, live.url) for _ in range(CLIENTS)]
    who = [("mia", "paul", "pia")[n % 3] for n in range(CLIENTS)]
    texts = [f"clic-{n}" for n in range(CLIENTS)]
    try:
        # All looked at seq 3: exactly one wins it, the others are told the table moved on.
        first = at_once(remotes, who, texts, seq=3)
        assert sorted(answer.status_code for answer in first) == [200] + [409] * (CLIENTS - 1)
        winner = next(n for n, answer in enumerate(first) if answer.status_code == 200)
        assert first[winner].json()["seq"] == 4
        assert {answer.json()["error"]["details"]["seq"]
                for answer in first if answer.status_code == 409} == {4}
        # The others act again at once, whatever happened since: each gets its own seq.
        losers = [n for n in range(CLIENTS) if n != winner]
        second = at_once([remotes[n] for n in losers], [who[n] for n in losers],
                         [texts[n] for n in losers], seq=None)
        assert {answer.status_code for answer in second} == {200}
    finally:
        for remote in remotes:
            close_clients(remote)

    accepted = {texts[winner]: 4} | {texts[n]: answer.json()["seq"]
                                     for n, answer in zip(losers, second, strict=True)}
    assert sorted(accepted.values()) == list(range(4, 4 + CLIENTS))  # no gap, no duplicate
    log = assert_log_is_consistent(settings.resolved_database_url, seated.match_id)
    notes = {event.payload["text"]: event.seq for event in log if event.kind == "note_added"}
    assert notes == accepted  # each accepted action exactly once, where its answer said


# — a server killed mid-stream ————————————————————————————————————————————————————————

def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class ServerProcess:
    """``python -m app serve`` in its own process, on a database given by URL."""

    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.env = env
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None
        self.url = ""

    def start(self) -> None:
        port = _free_port()
        self.url = f"http://127.0.0.1:{port}"
        with self.log.open("ab") as output:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "app", "serve", "--port", str(port)], cwd=ROOT,
                env=self.env, stdout=output, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            assert self.process.poll() is None, self.log.read_text()
            try:
                if httpx.get(self.url + "/api/v1/systems", timeout=1).status_code == 200:
                    return
            except httpx.TransportError:
                time.sleep(0.05)
        raise AssertionError("the server did not start:\n" + self.log.read_text())

    def kill(self) -> None:
        """SIGKILL: no shutdown, no cleanup, like a power cut for the process."""
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)


@pytest.fixture
def server_env(database_url: str, tmp_path: Path) -> dict[str, str]:
    """The server's environment: this test's database (already migrated, SQLite or
    PostgreSQL), its own data directory, cheap password hashing, the in-process broker."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("TABLEE_")}
    env.update(TABLEE_DATABASE_URL=database_url, TABLEE_DATA_DIR=str(tmp_path / "var"),
               TABLEE_SECRET_KEY="reliability-" + "k" * 40, TABLEE_ARGON2_TIME_COST="1",
               TABLEE_ARGON2_MEMORY_COST="64")
    return env


# What the poster plays, in turn: every kind of change the snapshot must reflect.
def _action(n: int) -> dict[str, Any]:
    return [{"kind": "note", "text": f"note-{n}"},
            {"kind": "roll", "expression": "2d6+1", "purpose": f"roll-{n}"},
            {"kind": "move", "token": "t1", "x": n % 100, "y": (3 * n) % 80},
            {"kind": "adjust_hp", "token": "t2", "delta": -1 if n % 8 == 3 else 1}][n % 4]


@dataclass
class Poster:
    """Posts actions one after another until the server stops answering."""

    table: Table
    acknowledged: list[dict[str, Any]] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    enough: threading.Event = field(default_factory=threading.Event)

    def run(self, wanted: int) -> None:
        n = 0
        while n < 10_000:
            try:
                response = self.table.act("mia", _action(n))
            except httpx.TransportError:
                return  # the server is gone
            if response.status_code != 200:
                self.refused.append(response.text)
                return
            self.acknowledged.append(response.json())
            if len(self.acknowledged) >= wanted:
                self.enough.set()
            n += 1


def test_a_server_killed_mid_stream_restarts_on_a_consistent_log(server_env, tmp_path):
    server = ServerProcess(server_env, tmp_path / "server.log")
    server.start()
    try:
        table = seat_table(partial(http_user, server.url))
        poster = Poster(table)
        thread = threading.Thread(target=poster.run, args=(25,))
        thread.start()
        assert poster.enough.wait(timeout=60), "the actions did not flow"
        server.kill()
        thread.join(timeout=30)
        assert not thread.is_alive() and poster.refused == []
        close_clients(table)

        server.start()
        log = assert_log_is_consistent(server_env["TABLEE_DATABASE_URL"], table.match_id)
        events = {event.seq: event for event in log}
        for answer in poster.acknowledged:  # every acknowledged action, exactly as answered
            for event in answer["events"]:
                assert events[event["seq"]].kind == event["kind"]
                assert events[event["seq"]].payload == event["payload"]
        # At most the one request in flight at the kill committed without an answer.
        assert len(log) - poster.acknowledged[-1]["seq"] in (0, 1)

        after = on_server(table, server.url)
        resumed = after.act("mia", {"kind": "note", "text": "On reprend."})
        assert resumed.status_code == 200, resumed.text
        assert resumed.json()["seq"] == len(log) + 1
        close_clients(after)
        assert_log_is_consistent(server_env["TABLEE_DATABASE_URL"], table.match_id)
    finally:
        server.kill()
