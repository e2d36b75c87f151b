"""Opening a match's API stream: after the actions, the request a table makes most (each
browser comes back after every drop). Its quick path (``app.api.matches._lean_stream``)
reads who is asking, their membership and the match in one statement pair and one hop;
what it declines reaches the declared route, whose validation answers as for any route.
"""

from __future__ import annotations

import asyncio

import pytest

from tests.helpers import asgi_stream
from tests.match_table import Table, seat_table
from tests.test_action_cost import Statements


@pytest.fixture
def table(api) -> Table:
    return seat_table(api)


def _open_once(app, path: str, token: str, after: int):
    """The stream opened as plain ASGI on the app's loop; returns once it sent the event
    after ``after`` (its backlog), then leaves. Gives the status and the body."""
    sent: list[dict] = []
    arrived = asyncio.Event()

    async def send(message: dict) -> None:
        sent.append(message)
        if f"id: {after + 1}\r".encode() in message.get("body", b""):
            arrived.set()

    async def run():
        await asyncio.wait_for(asgi_stream(app, path, token, send, arrived, headers=[
            (b"last-event-id", str(after).encode())]), 10)
        return sent[0]["status"], b"".join(m.get("body", b"") for m in sent[1:])

    return run


def test_a_reopened_stream_reads_who_is_asking_once(app, running_app, table):
    seq = table.act("mia", {"kind": "note", "text": "Le pont craque."}).json()["seq"]
    paul = table.users["paul"]
    token = paul.headers["Authorization"].removeprefix("Bearer ")
    path = f"/api/v1{table.base}/stream"
    with Statements(app.state.engine) as statements:
        status, body = running_app.portal.call(_open_once(app, path, token, seq - 1))
    assert status == 200
    assert b"Le pont craque." in body
    counted = statements.counted()
    assert {key: n for key, n in counted.items() if key[1]} == {
        # Who is asking, their membership and the campaign: one statement; then the match.
        ("SELECT", "user_sessions"): 1, ("SELECT", "matches"): 3,
        # The match feed's first read (its seq and the roles), then the backlog's (the
        # same, and the events after Last-Event-ID).
        ("SELECT", "memberships"): 2, ("SELECT", "match_events"): 1}, statements.seen
    # Browsers reopen their streams all evening: the snapshot, the largest column, stays unread.
    assert not [sql for sql in statements.seen if "matches.state" in sql], statements.seen
    if app.state.engine.dialect.name == "sqlite":  # one read transaction for each of the three
        assert counted[("BEGIN", "")] == 3, statements.seen


@pytest.mark.parametrize(("header", "code"), [("abc", "invalid_input"), ("1e3", "invalid_input"),
                                              ("2147483648", "invalid_input"),
                                              ("999", "bad_resume_position")])
def test_a_position_it_cannot_resume_from_is_refused(table, header, code):
    """Not a plain id: the declared route's schema refuses it; past the end: the stream's
    own check. Either way a 422 at once, never a stream that waits."""
    paul = table.users["paul"]
    answer = paul.client.get(f"/api/v1{table.base}/stream",
                             headers={**paul.headers, "Last-Event-ID": header})
    assert answer.status_code == 422, answer.text
    assert answer.json()["error"]["code"] == code


def test_an_outsider_is_refused_in_the_accounts_language(table, api):
    stranger = api("zoe")
    assert stranger.patch("/me", json={"locale": "fr"}).status_code == 200
    answer = stranger.client.get(f"/api/v1{table.base}/stream",
                                 headers={**stranger.headers, "Accept-Language": "en"})
    assert answer.status_code == 404
    assert answer.json()["error"]["message"] == "Introuvable."
    anonymous = stranger.client.get(f"/api/v1{table.base}/stream")
    assert anonymous.status_code == 401
