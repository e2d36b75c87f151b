"""The live table's stream: Server-Sent Events rendered per viewer, resumable, closed on leave.

Read raw, message by message, as a browser's EventSource would (tests/match_fixtures.py for
the table).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest
from bs4 import BeautifulSoup
from sqlalchemy import delete, select

from app.models import Membership, Role


@pytest.fixture
def match(libre_match):
    return libre_match


# — the live stream ————————————————————————————————————————————————————————————

@dataclass
class Message:
    id: int | None
    event: str | None
    data: str
    tag: str = ""  # after the id: the action panel and the board a state leaves the tab with

    @property
    def panel(self) -> str:
        return self.tag.split(".")[0]

    @property
    def board(self) -> str:
        return ([*self.tag.split("."), ""])[1]

    @property
    def resume(self) -> str:
        """The Last-Event-ID a browser sends after this message."""
        return f"{self.id}.{self.tag}" if self.tag else str(self.id)

    def html(self) -> BeautifulSoup:
        return BeautifulSoup(self.data, "html.parser")


class Reader:
    """Reads an SSE response message by message, across several ``read`` calls."""

    def __init__(self, response) -> None:
        self.lines = response.iter_lines()

    def read(self, until: Callable[[list[Message]], bool]) -> list[Message]:
        """Messages until ``until(messages)`` holds (or the server ends the stream)."""
        messages: list[Message] = []
        current: dict[str, list[str]] = {}
        for line in self.lines:
            if line == "":
                if "data" in current:
                    ids = current.get("id")
                    seq, _, tag = ids[0].partition(".") if ids else (None, "", "")
                    messages.append(Message(int(seq) if seq is not None else None,
                                            (current.get("event") or [None])[0],
                                            "\n".join(current["data"]), tag))
                    if until(messages):
                        break
                current = {}
                continue
            if line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            current.setdefault(name, []).append(value[1:] if value.startswith(" ") else value)
        return messages


def read_messages(response, until: Callable[[list[Message]], bool]) -> list[Message]:
    return Reader(response).read(until)


def first_state(messages: list[Message]) -> bool:
    return messages[-1].event == "state"


def test_the_stream_sends_the_log_and_this_viewers_state(match, db):
    match.act(match.player, kind="move", token="t1", x="30", y="30")
    last = match.seq(db)
    with match.player.client.stream("GET", match.url + "/stream",
                                    headers={"Last-Event-ID": "0"}) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        messages = read_messages(response, first_state)
    assert [(m.id, m.event) for m in messages] == [(seq, "log") for seq in range(1, last + 1)] \
        + [(last, "state")]
    line = messages[-2].html().select_one("li.log-line")
    assert line["id"] == f"event-{last}" and line.select("form.undo") == []
    state = messages[-1].html()
    assert state.select_one(".table-state")["data-seq"] == str(last)
    assert state.select_one('#board .token[data-token="t1"]')["data-movable"] == "true"


def test_a_players_stream_never_carries_a_gm_only_roll(match, db):
    match.dice.script(17)
    match.act(match.gm, kind="roll", expression="1d20+9000", purpose="trappe secrète",
              visibility="gm")
    with match.player.client.stream("GET", match.url + "/stream",
                                    headers={"Last-Event-ID": "0"}) as response:
        raw_messages = read_messages(response, first_state)
    raw = "\n".join(message.data for message in raw_messages)
    assert "1d20+9000" not in raw and "trappe" not in raw
    hidden = raw_messages[-2].html().select_one("li.log-line")
    assert "kind-hidden" in hidden["class"] and hidden.select("details.dice") == []
    assert "9017" not in hidden.get_text()
    with match.gm.client.stream("GET", match.url + "/stream",
                                headers={"Last-Event-ID": "0"}) as response:
        gm_raw = "\n".join(m.data for m in read_messages(response, first_state))
    assert "1d20+9000" in gm_raw and "trappe secrète" in gm_raw


def test_resuming_sends_only_later_events(match, db):
    match.act(match.gm, kind="note", text="Un.")
    match.act(match.gm, kind="note", text="Deux.")
    last = match.seq(db)
    with match.player.client.stream("GET", match.url + "/stream",
                                    headers={"Last-Event-ID": str(last - 1)}) as response:
        messages = read_messages(response, first_state)
    assert [(m.id, m.event) for m in messages] == [(last, "log"), (last, "state")]
    assert messages[0].html().select_one(".note-text").get_text() == "Deux."
    with match.player.client.stream("GET", match.url + f"/stream?after={last}") as response:
        messages = read_messages(response, first_state)
    assert [(m.id, m.event) for m in messages] == [(last, "state")]


def test_new_events_arrive_live_and_an_undo_resends_the_log(app, match, db):
    last = match.seq(db)
    with match.player.client.stream("GET", match.url + "/stream",
                                    headers={"Last-Event-ID": str(last)}) as response:
        stream = Reader(response)
        stream.read(first_state)
        # While Paul watches, Mia writes a note, then undoes it.
        match.act(match.gm, kind="note", text="En direct.")
        live = stream.read(first_state)
        assert [(m.id, m.event) for m in live] == [(last + 1, "log"), (last + 1, "state")]
        assert match.post(match.gm, match.url + "/rewind", {"to_seq": str(last)}).status_code == 303
        reset = stream.read(first_state)
    assert [(m.id, m.event) for m in reset] == [(last + 2, "logreset"), (last + 2, "state")]
    lines = reset[0].html().select("li.log-line")
    assert [line["id"] for line in lines][-2:] == [f"event-{last + 1}", f"event-{last + 2}"]
    assert "reverted" in lines[-2]["class"]


def test_the_panel_follows_when_the_viewers_forms_change(match, db):
    match.act(match.gm, kind="add_token", name="Gobelin", hp_max="6")
    match.dice.script(14, 9)
    match.act(match.gm, kind="roll_initiative")
    last = match.seq(db)
    with match.player.client.stream("GET", match.url + f"/stream?after={last}") as response:
        stream = Reader(response)
        stream.read(first_state)
        match.act(match.gm, kind="note", text="Rien ne change pour Paul.")
        quiet = stream.read(first_state)
        assert quiet[-1].html().select_one("#action-panel") is None
        match.act(match.gm, kind="next_turn")  # Aldo's turn: Paul may now end it
        turn = stream.read(first_state)
    panel = turn[-1].html().select_one("#action-panel")
    assert panel["hx-swap-oob"] == "true" and panel.select_one("form#action-next_turn")


def test_a_tab_back_is_sent_the_panel_only_when_it_changed(match, db):
    """A tab that reconnects names the panel it holds (its last state's id, or the page's
    own with ``?panel=``): what it missed is sent, and the panel only when it is no longer
    the one drawn now — a note leaves it, Aldo's turn (Paul may end it) changes it."""
    match.act(match.gm, kind="add_token", name="Gobelin", hp_max="6")
    match.dice.script(14, 9)
    match.act(match.gm, kind="roll_initiative")
    last = match.seq(db)
    page = BeautifulSoup(match.player.client.get(match.url).text, "html.parser")
    held = page.select_one("#action-panel")["data-basis"]
    assert f"panel={held}" in page.select_one("#table")["sse-connect"]

    def reconnect(**kwargs) -> Message:
        with match.player.client.stream("GET", match.url + "/stream", **kwargs) as response:
            return read_messages(response, first_state)[-1]

    opened = reconnect(params={"after": str(last), "panel": held})
    assert opened.html().select_one("#action-panel") is None and opened.panel == held
    match.act(match.gm, kind="note", text="Rien ne change pour Paul.")
    quiet = reconnect(headers={"Last-Event-ID": opened.resume})
    assert quiet.id == last + 1 and quiet.panel == held
    assert quiet.html().select_one("#action-panel") is None
    match.act(match.gm, kind="next_turn")  # Aldo's turn: Paul may now end it
    turn = reconnect(headers={"Last-Event-ID": quiet.resume})
    panel = turn.html().select_one("#action-panel")
    assert panel["hx-swap-oob"] == "true" and panel.select_one("form#action-next_turn")
    assert turn.panel != held and panel["data-basis"] == turn.panel
    # A tab that names no panel, or one this server never drew, is sent the panel.
    for resume in (str(turn.id), f"{turn.id}.{'0' * 24}"):
        again = reconnect(headers={"Last-Event-ID": resume})
        assert again.html().select_one("#action-panel")["data-basis"] == turn.panel


def test_a_tab_back_is_sent_the_board_only_when_it_changed(match, db):
    """The board, the costliest fragment, likewise: a tab that reconnects names the board it
    holds (after the panel in its last state's id, or the page's own with ``?board=``); a
    roll missed leaves it, a token moved while the tab was away sends it again."""
    last = match.seq(db)
    page = BeautifulSoup(match.player.client.get(match.url).text, "html.parser")
    connect = page.select_one("#table")["sse-connect"]
    held = connect.partition("board=")[2]
    assert held and "&" not in held

    def reconnect(**kwargs) -> Message:
        with match.player.client.stream("GET", match.url + "/stream", **kwargs) as response:
            return read_messages(response, first_state)[-1]

    opened = reconnect(params={"after": str(last), "board": held})
    assert opened.board == held and 'id="board-slot"' not in opened.data
    match.act(match.gm, kind="roll", expression="1d20")
    rolled = reconnect(headers={"Last-Event-ID": opened.resume})
    assert rolled.board == held and 'id="board-slot"' not in rolled.data
    match.act(match.player, kind="move", token="t1", x="30", y="30")
    moved = reconnect(headers={"Last-Event-ID": rolled.resume})
    assert moved.board != held
    assert moved.html().select_one('#board .token[data-token="t1"]') is not None
    # A tab that names no board (or one from before boards were named) is sent it.
    for resume in (str(moved.id), f"{moved.id}.{moved.panel}"):
        again = reconnect(headers={"Last-Event-ID": resume})
        assert 'id="board-slot"' in again.data and again.board == moved.board


def test_a_panel_changed_by_the_missed_events_is_sent_on_reconnecting(match, db):
    """Only the events a tab missed tell what it holds: a token added while the GM's tab was
    away (their forms name the tokens) sends their panel again with the missed line."""
    last = match.seq(db)
    with match.gm.client.stream("GET", match.url + f"/stream?after={last}") as response:
        opened = read_messages(response, first_state)[-1]
    match.act(match.gm, kind="add_token", name="Gobelin", hp_max="6")
    with match.gm.client.stream("GET", match.url + "/stream",
                                    headers={"Last-Event-ID": opened.resume}) as response:
        missed = read_messages(response, first_state)
    assert [(m.id, m.event) for m in missed] == [(last + 1, "log"), (last + 1, "state")]
    panel = missed[-1].html().select_one("#action-panel")
    assert panel is not None and panel["data-basis"] == missed[-1].panel != opened.panel
    assert "Gobelin" in panel.select_one("form#action-remove_token").get_text()


def test_leaving_the_campaign_ends_the_stream(app, match, db):
    with match.player.client.stream("GET", match.url + "/stream") as response:
        stream = Reader(response)
        stream.read(first_state)
        db.execute(delete(Membership).where(Membership.user_id == match.ids["paul"]))
        db.commit()
        match.act(match.gm, kind="note", text="Paul ne lira pas ceci.")
        after = stream.read(lambda messages: False)  # until the server ends it
    assert after == []


def test_a_lowered_role_ends_the_stream(app, match, db):
    with match.player.client.stream("GET", match.url + "/stream") as response:
        stream = Reader(response)
        stream.read(first_state)
        membership = db.scalar(select(Membership).where(
            Membership.user_id == match.ids["paul"]))
        membership.role = Role.SPECTATOR
        db.commit()
        match.act(match.gm, kind="note", text="Paul regarde désormais.")
        assert stream.read(lambda messages: False) == []
