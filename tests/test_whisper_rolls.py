"""A roll inside a whisper between two members stays between them (issue 22).

The chat promises that a whisper to one member is read by its sender and its recipient only,
the GM included (docs/live.md § Chat). Its ``/r`` roll is a signed entry of the campaign's
roll log like any other; the log shows everyone else — the GM and a third player — only that
Paul rolled in private: no purpose, expression or faces, on the rolls page, in the roll API,
in the raw bytes of the roll log's stream and in its export.

Gina (GM), Paul and Pia (players, whispering), Ugo (a third player), Sam (spectator).
"""

from __future__ import annotations

import pytest

from app.rules.dice import ScriptedDice
from tests.test_campaigns import api_login, join, make_table
from tests.test_roll_log_stream import Streams

SECRET = "crocheter la serrure"


@pytest.fixture
def table(new_client, web):
    first = new_client()  # owns the broker's loop: see tests/test_roll_log_stream.py
    table = make_table(web, new_client)
    for role, name in (("player2", "pia"), ("player3", "ugo")):
        table.web[role] = web(name, display_name=name.capitalize())
        table.api[role] = api_login(new_client, name)
        join(table.api["gm"], table.campaign_id, table.api[role], "player")
    table.streams = Streams(first, table)
    yield table
    table.streams.close()


def _post(table, role: str, body: str, to: object) -> dict:
    response = table.api[role].post(f"/campaigns/{table.campaign_id}/chat",
                                    json={"body": body, "to": to})
    assert response.status_code == 201, response.text
    return response.json()


def _entry(table, role: str, roll_id: int) -> dict:
    response = table.api[role].get(f"/campaigns/{table.campaign_id}/rolls")
    assert response.status_code == 200, response.text
    (entry,) = [entry for entry in response.json()["entries"] if entry["id"] == roll_id]
    return entry


def test_a_roll_in_two_players_whisper_is_theirs_alone(app, table):
    watchers = {role: table.streams.open(role, after=0) for role in ("gm", "player3")}
    app.state.dice = ScriptedDice([(6, 4), (6, 2), (20, 17)])
    whisper = _post(table, "player", f"/r 2d6 # {SECRET}", to=table.api["player2"].id)
    roll_id = whisper["roll"]["id"]
    public = _post(table, "gm", "/r 1d20 # la ronde", to="table")  # ends what the streams read

    for role in ("player", "player2"):  # the two who whisper see it whole
        entry = _entry(table, role, roll_id)
        assert (entry["hidden"], entry["purpose"], entry["total"]) == (False, SECRET, 6)
    export = table.web["player"].get(f"/campaigns/{table.campaign_id}/rolls/export.txt").text
    assert f"For: {SECRET}" in export and "Visible to: the roller and Pia" in export
    seen_by_paul = _entry(table, "player", roll_id)
    for role in ("gm", "player3"):  # the GM and a third player: only that Paul rolled
        hidden = _entry(table, role, roll_id)
        assert (hidden["hidden"], hidden["user_id"]) == (True, table.api["player"].id)
        assert not {"purpose", "purpose_text", "expression", "record", "total"} & set(hidden)
        line = table.web[role].page(f"/campaigns/{table.campaign_id}/rolls").select_one(
            f"#roll-{roll_id}")
        assert "hidden-roll" in line["class"] and SECRET not in line.text
        assert line.select_one(".secret").get_text(strip=True) == (
            f"{seen_by_paul['user_name']} rolled the dice in private.")
        stream = watchers[role]
        assert [event.id for event in stream.events(2)] == [roll_id, public["roll"]["id"]]
        assert SECRET.encode() not in stream.raw and b"2d6" not in stream.raw
        export = table.api[role].get(f"/campaigns/{table.campaign_id}/rolls/export").json()
        assert roll_id not in [entry["id"] for entry in export["entries"]]


def test_the_gm_cannot_correct_a_roll_they_may_not_see(app, table):
    app.state.dice = ScriptedDice([(6, 4), (6, 2)])
    whisper = _post(table, "player", f"/r 2d6 # {SECRET}", to=table.api["player2"].id)
    roll_id = whisper["roll"]["id"]
    answer = table.api["gm"].post(f"/campaigns/{table.campaign_id}/rolls/{roll_id}/corrections",
                                  json={"total": 12, "reason": "relu"})
    assert answer.status_code == 404, answer.text
    assert [entry["id"] for entry in table.api["player2"].get(
        f"/campaigns/{table.campaign_id}/rolls").json()["entries"]] == [roll_id]


def test_a_players_whisper_to_the_gm_still_shows_its_roll_to_the_gm(app, table):
    app.state.dice = ScriptedDice([(6, 4), (6, 2)])
    to_gm = _post(table, "player", f"/r 2d6 # {SECRET}", to="gm")
    entry = _entry(table, "gm", to_gm["roll"]["id"])
    assert (entry["hidden"], entry["purpose"]) == (False, SECRET)
    assert _entry(table, "player3", to_gm["roll"]["id"])["hidden"] is True


def test_the_gms_campaign_file_leaves_out_a_roll_in_two_players_whisper(app, table):
    app.state.dice = ScriptedDice([(6, 4), (6, 2), (20, 17)])
    _post(table, "player", f"/r 2d6 # {SECRET}", to=table.api["player2"].id)
    _post(table, "gm", "/r 1d20 # la ronde", to="table")
    answer = table.api["gm"].get(f"/campaigns/{table.campaign_id}/export")
    assert answer.status_code == 200, answer.text
    assert SECRET not in answer.text
    assert [roll["purpose"] for roll in answer.json()["rolls"]] == ["la ronde"]
