"""The campaign's chat: to the table, to the GM, to one member; inline rolls; live streams read
as raw bytes.

Gina (GM), Paul and Pia (players), Sam (spectator) and Olga (outsider) share a table. A
whisper must not be in the bytes sent to anyone but its sender and its recipient.
"""

from __future__ import annotations

import json

import pytest
from sqlalchemy import select

from app.models import ChatMessage, Roll
from app.rules.dice import ScriptedDice
from tests.helpers import soup
from tests.test_campaigns import api_login, join, make_table
from tests.test_roll_log_stream import EventReader

CHAT = "/campaigns/{}/chat"


class ChatStreams:
    def __init__(self, client, table) -> None:
        self.client, self.table, self._open = client, table, []

    def open(self, role: str, *, api: bool = False, after: int | None = None) -> EventReader:
        prefix = "/api/v1" if api else ""
        url = prefix + CHAT.format(self.table.campaign_id) + "/stream" + (
            f"?after={after}" if after is not None else "")
        context = self.client.stream("GET", url, headers=dict(self.table.api[role].headers))
        response = context.__enter__()
        self._open.append(context)
        assert response.status_code == 200, response.read()
        return EventReader(response).start()

    def close(self) -> None:
        for context in reversed(self._open):
            context.__exit__(None, None, None)


@pytest.fixture
def table(new_client, web):
    first = new_client()  # owns the broker's loop: see tests/test_roll_log_stream.py
    table = make_table(web, new_client)
    web("pia", display_name="Pia")
    table.api["player2"] = api_login(new_client, "pia")
    table.membership["player2"] = join(table.api["gm"], table.campaign_id,
                                       table.api["player2"], "player")
    table.streams = ChatStreams(first, table)
    yield table
    table.streams.close()


def say(table, role: str, body: str, to: object = "table", status: int = 201, **extra):
    response = table.api[role].post(CHAT.format(table.campaign_id),
                                    json={"body": body, "to": to, **extra})
    assert response.status_code == status, response.text
    return response.json()


def read(table, role: str) -> list[str]:
    response = table.api[role].get(CHAT.format(table.campaign_id))
    assert response.status_code == 200, response.text
    return [message["body"] for message in response.json()["messages"]]


def test_a_whisper_is_read_by_its_sender_and_recipient_only(table):
    pia = table.api["player2"].id
    say(table, "gm", "Bienvenue à tous")
    say(table, "player", "Je fouille le coffre en douce", to="gm")
    say(table, "player", "Pia, couvre-moi", to=pia)
    say(table, "gm", "Paul, tu sens une odeur de soufre", to=table.api["player"].id)

    assert read(table, "gm") == ["Bienvenue à tous", "Je fouille le coffre en douce",
                                 "Paul, tu sens une odeur de soufre"]
    assert read(table, "player") == ["Bienvenue à tous", "Je fouille le coffre en douce",
                                     "Pia, couvre-moi", "Paul, tu sens une odeur de soufre"]
    assert read(table, "player2") == ["Bienvenue à tous", "Pia, couvre-moi"]
    assert read(table, "spectator") == ["Bienvenue à tous"]
    outsider = table.api["outsider"].get(CHAT.format(table.campaign_id))
    assert outsider.status_code == 404


def test_a_whisper_never_reaches_the_others_streams(app, table):
    streams = table.streams
    pia = table.api["player2"].id
    sam = streams.open("spectator", after=0)
    gina = streams.open("gm", after=0)
    paul_html = streams.open("player", after=0)
    pia_json = streams.open("player2", api=True, after=0)

    say(table, "player", "Pia, le garde dort", to=pia)
    say(table, "player", "Je vole sa clé", to="gm")
    app.state.dice = ScriptedDice([(6, 2), (6, 5)])
    say(table, "player", "/r 2d6 # discrétion", to="gm")
    last = say(table, "gm", "La nuit tombe")

    to_pia, night = pia_json.events(2)
    assert (to_pia.event, night.id) == ("chat-message", last["id"])
    assert json.loads(to_pia.data)["body"] == "Pia, le garde dort"
    seen_by_gina = [event.id for event in gina.events(3)]
    seen_by_paul = paul_html.events(4)
    (public,) = sam.events(1)

    assert public.id == last["id"] and "La nuit tombe" in public.data
    assert seen_by_gina[-1] == last["id"]
    assert [event.event for event in seen_by_paul] == ["chat"] * 4
    for raw in (sam.raw, gina.raw):
        assert b"garde dort" not in raw
    for raw in (sam.raw, pia_json.raw):
        assert "clé".encode() not in raw and "discrétion".encode() not in raw
        assert b"2d6" not in raw
    assert "discrétion".encode() in gina.raw
    rolled = seen_by_paul[2]
    faces = [die.find(string=True).strip() for die in rolled.html.select(".die")]  # shown faces
    assert faces == ["2", "5"] and rolled.html.select_one(".total").text == "7"


def test_an_inline_roll_is_a_signed_roll_whose_visibility_follows_the_message(app, table, db):
    app.state.dice = ScriptedDice([(6, 4), (6, 1), (6, 6), (6, 3), (20, 12), (8, 8)])
    public = say(table, "player", "/r 4d6kh3 # Perception")
    assert public["roll"]["total"] == 13
    assert [die["kept"] for die in public["roll"]["record"]["dice"]] == [True, False, True, True]
    assert public["roll"]["purpose"] == "Perception"
    private = say(table, "player", "/roll 1d20", to="gm")
    secret = say(table, "gm", "/r 1d8 # piège", to=table.api["player"].id)
    db.commit()
    visibilities = {roll.id: roll.visibility for roll in db.scalars(select(Roll))}
    assert visibilities == {public["roll"]["id"]: "public", private["roll"]["id"]: "self",
                            secret["roll"]["id"]: "gm"}
    # The roll log shows the secret roll to Paul only as "the GM rolled in secret"…
    log = table.api["player"].get(f"/campaigns/{table.campaign_id}/rolls").json()["entries"]
    assert {entry["id"]: entry["hidden"] for entry in log}[secret["roll"]["id"]] is True
    # …while the whisper he receives carries the result.
    (message,) = [m for m in table.api["player"].get(CHAT.format(table.campaign_id)).json()[
        "messages"] if m["id"] == secret["id"]]
    assert message["roll"]["total"] == 8


def test_refused_messages_say_why_in_the_readers_language_and_store_nothing(app, table, db):
    app.state.dice = ScriptedDice([])
    bad = say(table, "player", "/r 2d", status=422)
    assert bad["error"]["field"] == "body" and bad["error"]["details"]["position"] == 5
    assert say(table, "spectator", "/r 1d6", status=422)["error"]["code"] == \
        "spectators_do_not_roll"
    assert say(table, "player", "coucou", to=table.api["outsider"].id,
               status=422)["error"]["field"] == "to"
    assert say(table, "player", "moi", to=table.api["player"].id, status=422)["error"][
        "field"] == "to"
    db.commit()
    assert db.scalars(select(ChatMessage)).all() == []
    assert db.scalars(select(Roll)).all() == []

    paul = table.web["player"]
    paul.post("/account", {"display_name": "Paul", "locale": "fr"})
    errors = {}
    for body in ("/r 2d", "   ", "x" * 1001):
        response = paul.post(CHAT.format(table.campaign_id), {"body": body, "to": "table"},
                             headers={"HX-Request": "true"})
        assert (response.status_code, response.headers["Tablee-Refused"]) == (200, "422")
        form = soup(response).select_one("form#chat-form")
        assert form.select_one("#chat-body")["value"] == body  # what was typed stays
        errors[body] = form.select_one("#chat-body-error").text
    assert errors == {"/r 2d": "attendu un nombre de faces ou « % » à la position 2, trouvé "
                               "la fin",
                      "   ": "Écrivez un message.",
                      "x" * 1001: "Un message compte au plus 1000 caractères."}
    db.commit()
    assert db.scalars(select(ChatMessage)).all() == []


def test_spectators_talk_and_the_page_shows_the_panel(table):
    say(table, "spectator", "Allez Paul !")
    page = table.web["spectator"].page(CHAT.format(table.campaign_id))
    messages = page.select("#chat-messages li.chat-message")
    assert [li.select_one(".chat-body").text for li in messages] == ["Allez Paul !"]
    choices = [option["value"] for option in page.select("#chat-to option")]
    assert choices[:2] == ["table", "gm"]
    assert str(table.api["gm"].id) not in choices  # "the GM only" says it
    response = table.web["gm"].post(CHAT.format(table.campaign_id),
                                    {"body": "Silence dans les rangs", "to": "table"})
    assert response.status_code == 303
    assert read(table, "spectator")[-1] == "Silence dans les rangs"


def test_the_play_page_include_loads_the_panel_with_its_match(table):
    """``matches/_chat.html`` needs only ``campaign`` and ``match``: it loads the panel, whose
    form then says at which match a message is said."""
    from types import SimpleNamespace

    from app.web.templating import templates

    html = templates.env.get_template("matches/_chat.html").render(
        campaign=SimpleNamespace(id=table.campaign_id), match=SimpleNamespace(id=7))
    loader = soup(SimpleNamespace(text=html)).select_one("#chat-loader")
    assert loader["hx-get"] == f"/campaigns/{table.campaign_id}/chat/panel?match_id=7"
    assert loader["hx-trigger"] == "load"
    panel = table.web["player"].page(CHAT.format(table.campaign_id) + "/panel?match_id=7")
    assert panel.select_one("#chat-form input[name=match_id]")["value"] == "7"
    assert panel.select_one("[sse-connect]")["sse-connect"].endswith("/chat/stream?after=0")


def test_a_chat_roll_is_explained_like_the_roll_logs(app, table):
    """The chat shows a /r roll as the roll log does: a dropped die struck through, and an
    expression with arithmetic laid out as it was written."""
    app.state.dice = ScriptedDice([(6, 5), (6, 1), (6, 4), (6, 6), (20, 12)])
    say(table, "player", "/r 4d6kh3 # force")
    say(table, "player", "/r (1d20+5)*2")
    page = table.web["gm"].page(CHAT.format(table.campaign_id))
    kept, doubled = page.select(".chat-roll")
    assert [die.find(string=True).strip() for die in kept.select("del.die.dropped")] == ["1"]
    assert kept.select_one(".total").text == "15"
    assert "×" in [operator.text for operator in doubled.select(".roll-tree .operator")]
    assert doubled.select_one(".total").text == "34"
