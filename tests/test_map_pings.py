"""Pings (issue 28), through the JSON API: a member points at the board and every member
watching the match — spectators too — receives it on the match's ping stream, at once; a
point off the board, or too many at once, sends nothing; nothing reaches the stream of a
member of another campaign, nor is anything written to the match's log.
"""

from __future__ import annotations

import asyncio
import time

import pytest

from tests.helpers import asgi_stream
from tests.match_table import Table, seat_table

BOUND = 10  # seconds: a bound for a broken stream, not a delay


@pytest.fixture
def table(api) -> Table:
    return seat_table(api)


class PingReader:
    """One member's ping stream, read as raw bytes on the app's own loop."""

    def __init__(self, app, running_app, table: Table, who: str, match_path: str) -> None:
        self.body = bytearray()
        self.leave = asyncio.Event()
        self.portal = running_app.portal
        token = table.users[who].headers["Authorization"].removeprefix("Bearer ")

        async def send(message: dict) -> None:
            self.body.extend(message.get("body", b""))

        async def read() -> None:
            await asgi_stream(app, f"/api/v1{match_path}/pings/stream", token, send,
                              self.leave)

        self.done = self.portal.start_task_soon(read)

    def until(self, found: bytes) -> bytes:
        deadline = time.monotonic() + BOUND
        while found not in self.body and time.monotonic() < deadline and not self.done.done():
            time.sleep(0.01)
        return bytes(self.body)

    def close(self) -> None:
        self.portal.call(self.leave.set)
        self.done.result(BOUND)


def ok(response, status: int = 204) -> None:
    assert response.status_code == status, response.text


def listening(app, channel: str, count: int) -> None:
    """Wait until ``count`` streams listen on ``channel`` (each subscribes once connected)."""
    deadline = time.monotonic() + BOUND
    while app.state.broker.subscriber_count(channel) < count and time.monotonic() < deadline:
        time.sleep(0.01)
    assert app.state.broker.subscriber_count(channel) >= count


def test_a_ping_reaches_every_member_watching_and_leaves_no_trace(app, running_app, table):
    readers = {who: PingReader(app, running_app, table, who, table.base)
               for who in ("mia", "pia", "sam")}
    listening(app, f"ping:{table.match_id}", 3)
    seq = table.match("mia")["seq"]
    sent = table.users["paul"].post(table.base + "/pings", json={"x": 42.5, "y": 17})
    assert sent.status_code == 204, sent.text
    try:
        for who, reader in readers.items():
            raw = reader.until(b"event: ping")
            assert b'"x": 42.5' in raw and b'"y": 17.0' in raw, (who, raw)
            assert f'"by": {table.users["paul"].id}'.encode() in raw, (who, raw)
    finally:
        for reader in readers.values():
            reader.close()
    assert table.match("mia")["seq"] == seq  # nothing in the log


def test_a_ping_stays_in_its_match(app, running_app, table, api):
    """A member of another campaign watches their own match: the ping is not theirs."""
    elsewhere = seat_table(lambda name: api(f"x{name}"))
    reader = PingReader(app, running_app, elsewhere, "mia", elsewhere.base)
    mine = PingReader(app, running_app, table, "pia", table.base)
    listening(app, f"ping:{elsewhere.match_id}", 1)
    listening(app, f"ping:{table.match_id}", 1)
    try:
        ok(table.users["paul"].post(table.base + "/pings", json={"x": 1, "y": 2}), 204)
        assert b"event: ping" in mine.until(b"event: ping")
        ok(elsewhere.users["paul"].post(elsewhere.base + "/pings", json={"x": 3, "y": 4}), 204)
        raw = reader.until(b"event: ping")
        assert b'"x": 3.0' in raw and b'"x": 1.0' not in raw
    finally:
        reader.close()
        mine.close()
    # Nor may an outsider open it, or point at it.
    outsider = elsewhere.users["pia"]
    assert outsider.get(table.base + "/pings/stream").status_code == 404
    assert outsider.post(table.base + "/pings", json={"x": 1, "y": 1}).status_code == 404


def test_a_point_off_the_board_or_too_many_send_nothing(table):
    paul = table.users["paul"]
    off = paul.post(table.base + "/pings", json={"x": 121, "y": 5})
    assert off.status_code == 422 and off.json()["error"]["field"] == "x"
    assert paul.post(table.base + "/pings", json={"x": 5, "y": -1}).status_code == 422
    for _ in range(6):
        ok(paul.post(table.base + "/pings", json={"x": 5, "y": 5}), 204)
    flood = paul.post(table.base + "/pings", json={"x": 5, "y": 5})
    assert flood.status_code == 429 and flood.headers["Retry-After"]
    # Another member is not held back by Paul's.
    ok(table.users["sam"].post(table.base + "/pings", json={"x": 5, "y": 5}), 204)
