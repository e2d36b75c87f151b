"""The match's live stream for API clients, read as raw Server-Sent Events off a real server.

A real uvicorn serves the app on a free port (SSE streams never end, so an in-memory transport
that buffers whole responses cannot read them). Every read has a timeout: a stream that fails
to deliver, or to end, fails the test within seconds.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest

from app.live import MemoryBroker
from app.services import match_publish
from app.services.tables import ActionOutcome
from tests.e2e.conftest import LiveServer
from tests.match_table import (
    SseReader,
    Table,
    close_clients,
    http_client,
    live_server,
    on_server,
    seat_table,
)

READ_TIMEOUT = httpx.Timeout(5.0)


@pytest.fixture
def live(settings) -> Iterator[LiveServer]:
    with live_server(settings) as server:
        yield server


@pytest.fixture
def table(api, live) -> Iterator[Table]:
    """The table seated in-process, then played on the live server (same database)."""
    remote = on_server(seat_table(api), live.url, timeout=READ_TIMEOUT)
    yield remote
    close_clients(remote)


@contextmanager
def stream(live: LiveServer, table: Table, who: str, *, last_event_id: int | None = None,
           after: int | None = None) -> Iterator[SseReader]:
    headers = dict(table.users[who].headers)
    if last_event_id is not None:
        headers["Last-Event-ID"] = str(last_event_id)
    params = {"after": after} if after is not None else {}
    with (http_client(live.url, READ_TIMEOUT) as client,
          client.stream("GET", f"/api/v1{table.base}/stream", headers=headers,
                        params=params) as response):
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        yield SseReader(response)


def note(table: Table, who: str, text: str) -> int:
    response = table.act(who, {"kind": "note", "text": text})
    assert response.status_code == 200, response.text
    return response.json()["seq"]


def roll(table: Table, who: str, expression: str, visibility: str, purpose: str) -> int:
    response = table.act(who, {"kind": "roll", "expression": expression,
                               "visibility": visibility, "purpose": purpose})
    assert response.status_code == 200, response.text
    return response.json()["seq"]


def test_a_players_stream_never_carries_secret_rolls_he_may_not_see(live, table):
    with stream(live, table, "paul") as paul, stream(live, table, "mia") as mia:
        roll(table, "mia", "3d7+11", "gm", "Embuscade-des-gobelins")  # 4
        roll(table, "pia", "2d9+5", "self", "Brune-ecoute-aux-portes")  # 5
        roll(table, "paul", "1d20", "self", "Aldo-prie-en-silence")  # 6
        last = note(table, "mia", "Fin-du-tour")  # 7
        seen_by_paul = paul.until(last)
        seen_by_mia = mia.until(last)

    assert [e["id"] for e in seen_by_paul] == [1, 2, 3, 4, 5, 6, 7]
    assert {e["event"] for e in seen_by_paul} == {"match-event"}
    assert [e["data"]["kind"] for e in seen_by_paul[3:]] == [
        "hidden", "hidden", "rolled", "note_added"]
    for secret in (b"Embuscade-des-gobelins", b"3d7+11", b"Brune-ecoute-aux-portes", b"2d9+5"):
        assert secret not in paul.raw
    assert b"Aldo-prie-en-silence" in paul.raw  # his own roll
    # The GM sees everything, down to each die.
    for secret in (b"Embuscade-des-gobelins", b"Brune-ecoute-aux-portes"):
        assert secret in mia.raw
    assert len(seen_by_mia[3]["data"]["payload"]["rolls"][0]["dice"]) == 3


def test_a_reconnecting_viewer_gets_every_missed_event_once_and_in_order(live, table):
    with stream(live, table, "paul") as first:
        seen = first.until(note(table, "mia", "Premier"))
    assert [e["id"] for e in seen] == [1, 2, 3, 4]

    missed = [note(table, "mia", text) for text in ("Deuxieme", "Troisieme", "Quatrieme")]
    with stream(live, table, "paul", last_event_id=seen[-1]["id"]) as again:
        resumed = again.until(note(table, "pia", "Cinquieme"))
        resumed += again.until(note(table, "mia", "Sixieme"))
    assert missed == [5, 6, 7]
    assert [e["id"] for e in resumed] == [5, 6, 7, 8, 9]
    assert [e["data"]["payload"]["text"] for e in resumed] == [
        "Deuxieme", "Troisieme", "Quatrieme", "Cinquieme", "Sixieme"]

    with stream(live, table, "sam", after=7) as late:
        assert [e["id"] for e in late.until(9)] == [8, 9]


def test_a_removed_member_loses_the_stream_before_the_next_event(live, table):
    mia = table.users["mia"]
    with stream(live, table, "paul") as paul, stream(live, table, "pia") as pia:
        paul.until(3)
        removed = mia.delete(f"/campaigns/{table.campaign_id}/members/"
                             f"{table.memberships['paul']}")
        assert removed.status_code == 204
        after = note(table, "mia", "Apres-ton-depart")
        assert list(paul.events()) == [] and paul.ended
        assert [e["id"] for e in pia.until(after)][-1] == after  # the others go on
    assert b"Apres-ton-depart" not in paul.raw
    gone = httpx.get(f"{live.url}/api/v1{table.base}/stream", headers=table.users["paul"].headers,
                     timeout=READ_TIMEOUT)
    assert gone.status_code == 404


def test_a_player_made_spectator_loses_the_stream_before_the_next_event(live, table):
    mia = table.users["mia"]
    with stream(live, table, "paul") as paul:
        paul.until(3)
        lowered = mia.patch(f"/campaigns/{table.campaign_id}/members/"
                            f"{table.memberships['paul']}", json={"role": "spectator"})
        assert lowered.status_code == 200
        note(table, "mia", "Tu-regardes-maintenant")
        assert list(paul.events()) == [] and paul.ended
    assert b"Tu-regardes-maintenant" not in paul.raw
    # Reconnecting as a spectator is allowed: a new stream at the new role.
    with stream(live, table, "paul", last_event_id=3) as spectator:
        assert spectator.until(4)[0]["data"]["payload"]["text"] == "Tu-regardes-maintenant"


class RecordingBroker:
    def __init__(self) -> None:
        self.published: list[tuple[str, dict]] = []

    def announce(self, channel: str, message: dict) -> None:
        self.published.append((channel, message))


def test_only_newly_committed_events_are_announced():
    broker = RecordingBroker()
    match_publish.publish_outcome(broker, ActionOutcome(7, 12, [], replayed=False))
    match_publish.publish_outcome(broker, ActionOutcome(7, 12, [], replayed=True))
    assert broker.published == [("match:7", {"kind": "event", "match_id": 7, "seq": 12})]


def test_a_broker_that_is_not_running_never_costs_the_caller_the_answer(caplog):
    match_publish.publish_outcome(MemoryBroker(), ActionOutcome(7, 12, []))
    assert "not announced" in caplog.text


def test_open_streams_are_counted_and_a_closed_one_leaves_the_subscription(live, table):
    import time

    app = live.server.config.app
    gauge = app.state.metrics.open_streams
    channel = match_publish.channel(table.match_id)
    with stream(live, table, "paul") as paul, stream(live, table, "sam") as sam:
        paul.until(3)
        sam.until(3)
        assert gauge._value.get() == 2
    deadline = time.monotonic() + 5  # the server notices the disconnects
    while (gauge._value.get() or app.state.broker.subscriber_count(channel)) \
            and time.monotonic() < deadline:
        time.sleep(0.02)
    assert gauge._value.get() == 0
    assert app.state.broker.subscriber_count(channel) == 0
