"""The match JSON API: Mia runs a libre skirmish for Paul (Aldo) and Pia (Brune); Sam watches."""

from __future__ import annotations

import pytest

from tests.match_table import Table, seat_table

ALL_ROUTES = [("GET", ""), ("GET", "/log"), ("GET", "/stream"),
              ("POST", "/actions"), ("POST", "/rewind"), ("POST", "/redo")]
BODIES = {"/actions": {"action": {"kind": "note", "text": "Bonjour"}},
          "/rewind": {"to_seq": 1}, "/redo": {}}


@pytest.fixture
def table(api) -> Table:
    return seat_table(api)


def test_the_gm_opens_a_match_on_a_board_of_the_chosen_size(api, table):
    mia = table.users["mia"]
    response = mia.post(f"/campaigns/{table.campaign_id}/matches", json={
        "name": "Duel au pont", "options": {"width": 60, "height": 40, "unit": "in"}})
    assert response.status_code == 201, response.text
    duel = response.json()
    assert (duel["name"], duel["system"], duel["status"]) == ("Duel au pont", "libre",
                                                              "running")
    assert duel["state"]["board"] == {"unit": "in", "width": 60, "height": 40, "terrain": []}
    assert duel["seq"] == 1  # match_started, no participant
    listed = table.users["sam"].get(f"/campaigns/{table.campaign_id}/matches").json()
    assert [m["name"] for m in listed] == ["Duel au pont", "Escarmouche"]


def test_each_member_sees_the_match_and_what_they_may_do_now(table):
    paul = table.match("paul")
    assert [t["name"] for t in paul["state"]["tokens"].values()] == ["Aldo", "Brune"]
    assert paul["seq"] == 3  # started, Aldo, Brune
    moves = {a["kind"]: a for a in paul["legal_actions"]}
    assert moves["move"]["choices"] == {"tokens": ["t1"]}  # only his own character
    assert "add_token" not in moves
    assert "add_token" in {a["kind"] for a in table.match("mia")["legal_actions"]}
    assert table.match("sam")["legal_actions"] == []


def test_players_and_outsiders_get_what_their_role_allows(api, client, table):
    outsider = api("otto")
    for method, suffix in ALL_ROUTES:
        body = BODIES.get(suffix)
        anonymous = client.request(method, f"/api/v1{table.base}{suffix}", json=body)
        assert anonymous.status_code == 401, (method, suffix)
        assert outsider.request(method, table.base + suffix, json=body).status_code == 404
    # Another campaign's match is not found through this campaign either.
    other = outsider.post("/campaigns", json={"name": "Ailleurs", "system": "libre"}).json()
    assert outsider.get(f"/campaigns/{other['id']}/matches/{table.match_id}").status_code == 404

    assert table.act("sam", {"kind": "note", "text": "Allez Aldo !"}).status_code == 403
    assert table.users["sam"].post(f"/campaigns/{table.campaign_id}/matches",
                                   json={"name": "X"}).status_code == 403
    refused = table.act("paul", {"kind": "add_token", "name": "Gobelin"})
    assert refused.status_code == 422
    assert refused.json()["error"]["code"] == "gm_only"
    assert refused.json()["error"]["message"] == "only the GM may do this"
    assert table.users["paul"].post(table.base + "/rewind",
                                    json={"to_seq": 1}).status_code == 403
    assert table.act("mia", {"kind": "add_token", "name": "Gobelin"}).status_code == 200
    assert table.match("mia")["seq"] == 4


def test_a_refusal_gives_the_reason_in_the_players_language(table):
    paul = table.users["paul"]
    assert paul.patch("/me", json={"locale": "en"}).status_code == 200
    refused = table.act("paul", {"kind": "move", "token": "t2", "x": 5, "y": 5})
    assert refused.status_code == 422
    assert refused.json()["error"]["message"] == (
        "only the GM or the participant's player may do this")


def test_an_action_answers_its_events_and_lands_in_the_log(table):
    moved = table.act("paul", {"kind": "move", "token": "t1", "x": 30, "y": 40}, seq=3)
    assert moved.status_code == 200, moved.text
    body = moved.json()
    assert body["seq"] == 4 and body["replayed"] is False
    assert [(e["seq"], e["kind"], e["payload"]["to"]) for e in body["events"]] == [
        (4, "token_moved", [30, 40])]
    assert table.log("pia", after_seq=3)[0]["payload"]["to"] == [30, 40]
    assert table.match("pia")["state"]["tokens"]["t1"]["x"] == 30


def test_a_stale_seq_is_refused_with_the_fresh_state(table):
    assert table.act("mia", {"kind": "note", "text": "Il pleut."}, seq=3).status_code == 200
    stale = table.act("paul", {"kind": "move", "token": "t1", "x": 1, "y": 1}, seq=3)
    assert stale.status_code == 409
    error = stale.json()["error"]
    assert error["code"] == "stale_seq"
    assert error["details"]["seq"] == 4
    assert error["details"]["state"]["tokens"]["t1"]["x"] == 40  # he has not moved
    assert table.match("paul")["seq"] == 4


def test_the_same_idempotency_key_applies_once(table):
    note = {"kind": "note", "text": "Double clic"}
    first = table.act("paul", note, key="click-42")
    again = table.act("paul", note, key="click-42")
    assert first.status_code == again.status_code == 200
    assert again.json()["replayed"] is True and first.json()["replayed"] is False
    assert again.json()["seq"] == first.json()["seq"] == 4
    assert again.json()["events"] == first.json()["events"]
    assert [e["payload"]["text"] for e in table.log("mia") if e["kind"] == "note_added"] == [
        "Double clic"]
    other = table.act("paul", {"kind": "note", "text": "Autre chose"}, key="click-42")
    assert other.status_code == 422
    assert other.json()["error"]["code"] == "idempotency_key_reused"
    assert table.match("mia")["seq"] == 4


def test_the_log_is_paginated_after_a_seq(table):
    for n in range(1, 6):
        assert table.act("mia", {"kind": "note", "text": f"Note {n}"}).status_code == 200
    paul = table.users["paul"]
    first = paul.get(table.base + "/log", params={"limit": 3}).json()
    assert [e["seq"] for e in first["events"]] == [1, 2, 3]
    assert (first["next_after_seq"], first["has_more"]) == (3, True)
    rest = paul.get(table.base + "/log",
                    params={"after_seq": first["next_after_seq"], "limit": 10}).json()
    assert [e["seq"] for e in rest["events"]] == [4, 5, 6, 7, 8]
    assert (rest["next_after_seq"], rest["has_more"]) == (8, False)
    empty = paul.get(table.base + "/log", params={"after_seq": 8}).json()
    assert (empty["events"], empty["next_after_seq"], empty["has_more"]) == ([], 8, False)
    assert paul.get(table.base + "/log", params={"limit": 0}).status_code == 422


def test_hidden_rolls_are_redacted_for_players_in_the_log(table):
    gm_roll = table.act("mia", {"kind": "roll", "expression": "3d7+11", "visibility": "gm",
                                "purpose": "Embuscade des gobelins"})
    pia_roll = table.act("pia", {"kind": "roll", "expression": "2d9", "visibility": "self",
                                 "purpose": "Brune écoute aux portes"})
    assert gm_roll.status_code == pia_roll.status_code == 200
    paul = table.users["paul"].get(table.base + "/log", params={"after_seq": 3})
    assert [e["kind"] for e in paul.json()["events"]] == ["hidden", "hidden"]
    for secret in ("Embuscade", "3d7+11", "Brune écoute", "2d9", '"dice"', '"total"'):
        assert secret not in paul.text
    pia = table.log("pia", after_seq=3)
    assert [e["kind"] for e in pia] == ["hidden", "rolled"]
    assert pia[1]["payload"]["rolls"][0]["purpose"] == "Brune écoute aux portes"
    mia = table.log("mia", after_seq=3)
    assert [e["payload"]["rolls"][0]["expression"] for e in mia] == ["3d7+11", "2d9"]


def test_the_gm_rewinds_and_redoes(table):
    table.act("paul", {"kind": "move", "token": "t1", "x": 30, "y": 40})
    table.act("mia", {"kind": "adjust_hp", "token": "t2", "delta": -4})
    mia = table.users["mia"]
    stale = mia.post(table.base + "/rewind", json={"to_seq": 3, "seq": 4})
    assert stale.status_code == 409 and stale.json()["error"]["details"]["seq"] == 5

    rewound = mia.post(table.base + "/rewind", json={"to_seq": 3, "seq": 5})
    assert rewound.status_code == 200, rewound.text
    assert [(e["seq"], e["kind"]) for e in rewound.json()["events"]] == [(6, "rewind")]
    state = table.match("paul")["state"]
    assert (state["tokens"]["t1"]["x"], state["tokens"]["t2"]["hp"]) == (40, 10)
    assert [e["reverted"] for e in table.log("paul", after_seq=3)] == [True, True, False]

    redone = mia.post(table.base + "/redo", json={"seq": 6})
    assert redone.status_code == 200 and redone.json()["events"][0]["kind"] == "redo"
    state = table.match("paul")["state"]
    assert (state["tokens"]["t1"]["x"], state["tokens"]["t2"]["hp"]) == (30, 6)
    again = mia.post(table.base + "/redo")
    assert again.status_code == 422 and again.json()["error"]["code"] == "nothing_to_redo"


def test_an_archived_campaign_takes_no_more_actions(table):
    assert table.users["mia"].post(f"/campaigns/{table.campaign_id}/archive").status_code == 200
    refused = table.act("paul", {"kind": "note", "text": "Encore ?"})
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "archived"
    assert table.log("paul")[-1]["seq"] == 3


@pytest.mark.parametrize("body", [
    {"action": {"text": "no kind"}},
    {"action": {"kind": "note", "text": "x" * 9_000}},
    {"action": {"kind": "note", "text": "x"}, "seq": -1},
    {"action": "note"},
])
def test_malformed_actions_are_refused_and_change_nothing(table, body):
    response = table.users["paul"].post(table.base + "/actions", json=body)
    assert response.status_code == 422
    assert table.match("mia")["seq"] == 3


def test_the_openapi_documents_the_stream_and_the_idempotency_key(client):
    paths = client.get("/openapi.json").json()["paths"]
    base = "/api/v1/campaigns/{campaign_id}/matches/{match_id}"
    stream = paths[base + "/stream"]["get"]["responses"]["200"]
    assert list(stream["content"]) == ["text/event-stream"]
    headers = [p["name"] for p in paths[base + "/actions"]["post"]["parameters"]
               if p["in"] == "header"]
    assert headers == ["Idempotency-Key"]


def test_a_player_may_not_roll_in_secret_and_is_offered_only_what_he_may_use(table):
    rolls = {a["kind"]: a for a in table.match("paul")["legal_actions"]}["roll"]
    assert rolls["choices"]["visibilities"] == ["public", "self"]
    gm_rolls = {a["kind"]: a for a in table.match("mia")["legal_actions"]}["roll"]
    assert gm_rolls["choices"]["visibilities"] == ["public", "gm", "self"]
    before = table.match("paul")["seq"]
    refused = table.act("paul", {"kind": "roll", "expression": "1d20", "visibility": "gm"})
    assert refused.status_code == 422
    assert refused.json()["error"]["code"] == "secret_roll_gm_only"
    assert table.match("paul")["seq"] == before
