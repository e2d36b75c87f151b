"""The roll log's live stream, read as raw Server-Sent Events bytes.

Gina (GM), Paul (player), Sam (spectator) and Olga (outsider) sit at one table. What a
viewer may not see must not be in the bytes sent to them — not only absent from the page.

Streams are read through the first test client made (``streams`` makes it before anyone
else): the first client entered owns the event loop the broker lives on, an SSE stream must
run on that loop to be woken by its notifications, and that client, closed first, is the one
that shuts the broker down on its own loop (which the Redis broker requires).
"""

from __future__ import annotations

import queue
import threading
from dataclasses import dataclass, field

import pytest
from bs4 import BeautifulSoup

from app.db import write_transaction
from app.models import Match
from app.rules import notation
from app.rules.dice import ScriptedDice
from app.services import rolls
from tests.test_campaigns import Table, make_table

WAIT_SECONDS = 10  # a bound for a broken stream, not a delay: events arrive in milliseconds


@dataclass
class Event:
    id: int
    event: str
    data: str

    @property
    def html(self) -> BeautifulSoup:
        return BeautifulSoup(self.data, "html.parser")


@dataclass
class EventReader:
    """Reads an SSE response on a thread, so a test can wait for an event with a bound."""

    response: object
    raw: bytearray = field(default_factory=bytearray)
    _chunks: queue.Queue = field(default_factory=queue.Queue)
    _pending: str = ""
    ended: bool = False

    def start(self) -> EventReader:
        threading.Thread(target=self._pump, daemon=True).start()
        return self

    def _pump(self) -> None:
        try:
            for chunk in self.response.iter_bytes():
                self._chunks.put(chunk)
        except Exception:  # the test closed the stream under us
            pass
        self._chunks.put(None)

    def next_event(self) -> Event | None:
        """The next event (comments and pings skipped), or None when the stream ended."""
        while True:
            if "\n\n" in self._pending:
                block, self._pending = self._pending.split("\n\n", 1)
                event = _parse(block)
                if event is not None:
                    return event
                continue
            if self.ended:
                return None
            chunk = self._chunks.get(timeout=WAIT_SECONDS)
            if chunk is None:
                self.ended = True
                continue
            self.raw += chunk
            self._pending += chunk.decode().replace("\r\n", "\n")

    def events(self, count: int) -> list[Event]:
        received = [self.next_event() for _ in range(count)]
        assert None not in received, f"the stream ended early: {self.raw!r}"
        return received


def _parse(block: str) -> Event | None:
    fields: dict[str, list[str]] = {}
    for line in block.split("\n"):
        if not line or line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        fields.setdefault(name, []).append(value[1:] if value.startswith(" ") else value)
    if "data" not in fields:
        return None
    return Event(id=int(fields["id"][0]), event=fields.get("event", ["message"])[0],
                 data="\n".join(fields["data"]))


class Streams:
    """Open streams for the table's members and close them all at the end."""

    def __init__(self, client, table: Table) -> None:
        self.client, self.table, self._open = client, table, []

    def open(self, role: str, *, after: int | None = None, last_event_id: int | None = None
             ) -> EventReader:
        headers = dict(self.table.api[role].headers)
        if last_event_id is not None:
            headers["Last-Event-ID"] = str(last_event_id)
        url = f"{self.table.url}/rolls/stream" + (f"?after={after}" if after is not None else "")
        context = self.client.stream("GET", url, headers=headers)
        response = context.__enter__()
        self._open.append(context)
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        return EventReader(response).start()

    def close(self) -> None:
        for context in reversed(self._open):
            context.__exit__(None, None, None)


@pytest.fixture
def streams(new_client, web):
    first = new_client()  # before make_table's clients: see the module docstring
    table = make_table(web, new_client)
    opened = Streams(first, table)
    yield opened
    opened.close()


def api_roll(table: Table, role: str, expression: str, visibility: str = "public") -> int:
    response = table.api[role].post(f"/campaigns/{table.campaign_id}/rolls",
                                    json={"expression": expression, "visibility": visibility})
    assert response.status_code == 201, response.text
    return response.json()["id"]


def faces(event: Event) -> list[str]:
    return [die.contents[0] for die in event.html.select(".die")]


def test_each_viewer_receives_each_roll_drawn_for_them_and_no_secret_face(app, streams):
    table = streams.table
    app.state.dice = ScriptedDice([(20, 17), (6, 3), (6, 4), (6, 5), (6, 1)])
    secret = api_roll(table, "gm", "1d20 # embuscade des gobelins", "gm")
    public = api_roll(table, "player", "2d6 # dégâts")

    sam = streams.open("spectator", after=0)
    hidden, seen = sam.events(2)
    assert [(hidden.id, hidden.event), (seen.id, seen.event)] == [(secret, "roll"),
                                                                  (public, "roll")]
    assert hidden.html.select_one(f"li#roll-{secret}.hidden-roll .secret")
    assert hidden.html.select(".die, .expression, .purpose, .total") == []
    assert faces(seen) == ["3", "4"]
    assert seen.html.select_one(".purpose").text == "dégâts"

    # Live: Paul's next roll reaches Sam as it is made.
    later = api_roll(table, "player", "2d6")
    (live,) = sam.events(1)
    assert live.id == later and faces(live) == ["5", "1"]
    assert b"embuscade" not in sam.raw and b"1d20" not in sam.raw

    gina = streams.open("gm", after=0)
    first, *_ = gina.events(3)
    assert faces(first) == ["17"]
    assert first.html.select_one(".purpose").text == "embuscade des gobelins"


def test_a_private_roll_is_whole_for_its_roller_and_the_gm_only(app, streams):
    table = streams.table
    app.state.dice = ScriptedDice([(100, 42)])
    private = api_roll(table, "player", "1d100 # trésor caché", "self")
    (mine,) = streams.open("player", after=0).events(1)
    (gms,) = streams.open("gm", after=0).events(1)
    sam = streams.open("spectator", after=0)
    (theirs,) = sam.events(1)
    assert faces(mine) == faces(gms) == ["42"]
    assert theirs.id == private
    assert "Paul" in theirs.html.select_one(".hidden-roll .secret").text
    assert theirs.html.select(".die, .expression, .purpose, .total") == []
    assert "trésor".encode() not in sam.raw and b"1d100" not in sam.raw


def test_a_reconnecting_browser_resumes_after_its_last_event_id(app, streams):
    table = streams.table
    app.state.dice = ScriptedDice([1, 2, 3])
    ids = [api_roll(table, "player", "1d6") for _ in range(3)]
    resumed = streams.open("spectator", last_event_id=ids[0])
    assert [event.id for event in resumed.events(2)] == ids[1:]
    # ``?after=`` is the first connection's resume point; the header wins after a drop.
    again = streams.open("spectator", after=ids[2], last_event_id=ids[1])
    assert [event.id for event in again.events(1)] == ids[2:]


def test_match_rolls_recorded_without_a_notification_arrive_with_the_next_one(app, db, settings,
                                                                            streams):
    table = streams.table
    sam = streams.open("spectator")
    match = Match(campaign_id=table.campaign_id, system="libre", name="Escarmouche", state={})
    db.add(match)
    db.commit()
    with write_transaction(db):
        (quiet,) = rolls.record_rolls(
            db=db, secret=settings.secret_key, campaign_id=table.campaign_id,
            user_id=table.api["gm"].id, match_id=match.id, visibility="public",
            records=[notation.roll("1d8 # morsure", ScriptedDice([6])).to_dict()])
    app.state.dice = ScriptedDice([4])
    loud = api_roll(table, "player", "1d6")
    first, second = sam.events(2)
    assert (first.id, second.id) == (quiet.id, loud)
    assert first.html.select_one("li.match-roll a.match-link")["href"].endswith(
        f"/matches/{match.id}")


def test_a_member_whose_role_is_lowered_loses_the_stream_before_the_next_roll(app, streams):
    table = streams.table
    paul = streams.open("player", after=0)
    response = table.api["gm"].patch(
        f"/campaigns/{table.campaign_id}/members/{table.membership['player']}",
        json={"role": "spectator"})
    assert response.status_code == 200, response.text
    app.state.dice = ScriptedDice([6])
    api_roll(table, "gm", "1d6")
    assert paul.next_event() is None
    assert b"roll-" not in paul.raw


def test_outsiders_and_strangers_get_no_stream(streams):
    table = streams.table
    url = f"{table.url}/rolls/stream"
    assert table.api["outsider"].client.get(url, headers=table.api["outsider"].headers
                                            ).status_code == 404
    anonymous = table.anonymous.get(url, follow_redirects=False)
    assert anonymous.status_code == 303 and anonymous.headers["location"].startswith("/login")
