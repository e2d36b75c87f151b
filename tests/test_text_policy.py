"""One text policy at every entry point: a text that one refuses, all refuse — pages, the JSON
API, actions at the table, free rolls, imports — with the same clear 422, on SQLite as on
PostgreSQL (where NUL would otherwise break the database call)."""

from __future__ import annotations

import pytest

from tests.helpers import soup

BAD_NAMES = {"control": "Gob\x1b[31melin", "bidi": "Gob\u202enileb", "nul": "Gob\x00elin",
             "invisible": "\u200b\u3164"}


@pytest.mark.parametrize("kind", list(BAD_NAMES))
def test_a_bad_name_is_refused_by_the_page_and_by_the_api(api, web, kind):
    name = BAD_NAMES[kind]
    gina = web("gina")
    page = gina.post("/campaigns", {"name": name, "system": "libre"})
    assert page.status_code == 422
    assert soup(page).select_one("#name-error, .field-error") is not None
    answer = api("hugo").post("/campaigns", json={"name": name, "system": "libre"})
    assert answer.status_code == 422
    assert answer.json()["error"]["field"] == "name"


@pytest.mark.parametrize("text", ["1d20 # \x1b[2Jcoucou", "1d20 # a\u202eb", "1d20 # a\x00b"])
def test_a_roll_purpose_is_refused_like_a_name_everywhere(libre_match, db, text):
    table = libre_match
    before = table.seq(db)
    at_table = table.act(table.player, kind="roll", expression=text)
    assert at_table.status_code == 422
    assert table.seq(db) == before
    free = table.post(table.player, f"/campaigns/{table.campaign_id}/rolls",
                      {"expression": text, "visibility": "public"})
    assert free.status_code == 422
    api = table.player.client.post(f"/api/v1/campaigns/{table.campaign_id}/rolls",
                                   json={"expression": text},
                                   headers={"X-CSRF-Token": table.player.csrf()})
    assert api.status_code == 422


def test_nul_anywhere_in_an_action_or_a_sheet_is_a_clear_422(libre_match, db):
    table = libre_match
    before = table.seq(db)
    api = table.gm.client
    csrf = {"X-CSRF-Token": table.gm.csrf()}
    refused = api.post(f"/api/v1{table.url}/actions", headers=csrf, json={
        "action": {"kind": "note", "text": "ok", "extra": {"deep": "a\x00b"}}})
    assert refused.status_code == 422
    assert refused.json()["error"] == {
        "code": "text_control", "field": "extra.deep",
        "message": refused.json()["error"]["message"]}
    assert table.seq(db) == before
    sheet = api.post(f"/api/v1/campaigns/{table.campaign_id}/characters", headers=csrf, json={
        "name": "Nul", "sheet": {"hp": 3, "hp_max": 3, "statuses": "\x00", "counters": []}})
    assert sheet.status_code == 422
    assert sheet.json()["error"]["details"]["problems"][0]["field"] == "statuses"
