"""A campaign's custom content (the GM's own creatures, weapons, vehicles…), the dice a game
rolls at character creation, the fields only the GM may change afterwards, and the printable
sheet. Free play's creature profiles stand in for every game's content kinds.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from sqlalchemy import func, select

from app.models import CustomContent, Roll
from app.rules.dice import ScriptedDice
from app.rules.libre.system import LibreSystem
from app.rules.notation import roll as roll_expression
from app.rules.registry import SYSTEMS
from app.rules.system import N_, Problem
from tests.helpers import ApiUser, WebUser, soup


@dataclass
class Table:
    gm: ApiUser
    player: ApiUser
    campaign_id: int

    @property
    def base(self) -> str:
        return f"/campaigns/{self.campaign_id}"


def seat(api) -> Table:
    gm, player = api("gaelle"), api("paul")
    campaign_id = gm.post("/campaigns", json={"name": "Les Brumes", "system": "libre"}).json()["id"]
    invite = gm.post(f"/campaigns/{campaign_id}/invites", json={"role": "player"}).json()
    assert player.post(f"/invites/{invite['token']}/accept").status_code == 200
    return Table(gm, player, campaign_id)


@pytest.fixture
def table(api) -> Table:
    return seat(api)


def add_goblin(table: Table, **data) -> dict:
    response = table.gm.post(table.base + "/content/creature", json={
        "name": "Gobelin des cavernes", "data": {"hp_max": 6, "statuses": "sournois", **data}})
    assert response.status_code == 201, response.text
    return response.json()


# --- the API ------------------------------------------------------------------------------

def test_the_gm_adds_an_item_and_every_member_reads_it_with_its_kind(table):
    item = add_goblin(table)
    assert item["key"] == "gm-gobelin-des-cavernes"
    listed = table.player.get(table.base + "/content").json()
    assert [kind["key"] for kind in listed["kinds"]] == ["creature"]
    assert {field["name"]: field["kind"] for field in listed["kinds"][0]["fields"]} == {
        "hp_max": "int", "statuses": "text"}
    assert listed["items"] == [{"id": item["id"], "kind": "creature",
                                "key": "gm-gobelin-des-cavernes", "name": "Gobelin des cavernes",
                                "data": {"hp_max": 6, "statuses": "sournois"}}]


def test_a_player_cannot_add_content(table, db):
    response = table.player.post(table.base + "/content/creature",
                                 json={"name": "Dragon", "data": {"hp_max": 900}})
    assert response.status_code == 403
    assert db.scalar(select(func.count()).select_from(CustomContent)) == 0


@pytest.mark.parametrize(("data", "field"), [
    ({"hp_max": -1}, "hp_max"),
    ({"hp_max": "beaucoup"}, "hp_max"),
    ({}, "hp_max"),
    ({"hp_max": 5, "armure": 3}, "armure"),
])
def test_bad_fields_are_refused_by_name_and_nothing_is_stored(table, db, data, field):
    response = table.gm.post(table.base + "/content/creature", json={"name": "Orque",
                                                                   "data": data})
    assert response.status_code == 422, response.text
    assert response.json()["error"]["field"] == field
    db.commit()
    assert db.scalar(select(func.count()).select_from(CustomContent)) == 0


def test_an_unknown_kind_is_not_found(table):
    response = table.gm.post(table.base + "/content/vaisseau", json={"name": "X", "data": {}})
    assert response.status_code == 404


def test_keys_stay_unique_and_survive_a_rename(table):
    first, second = add_goblin(table), add_goblin(table)
    assert (first["key"], second["key"]) == ("gm-gobelin-des-cavernes",
                                             "gm-gobelin-des-cavernes-2")
    renamed = table.gm.put(f"{table.base}/content/items/{first['id']}", json={
        "name": "Gobelin chef", "data": {"hp_max": 9, "statuses": ""}}).json()
    assert (renamed["key"], renamed["name"], renamed["data"]["hp_max"]) == (
        "gm-gobelin-des-cavernes", "Gobelin chef", 9)
    assert table.gm.delete(f"{table.base}/content/items/{second['id']}").status_code == 204
    assert [item["name"] for item in table.gm.get(table.base + "/content").json()["items"]] == [
        "Gobelin chef"]


def test_an_archived_campaign_keeps_its_content_as_it_is(table):
    item = add_goblin(table)
    assert table.gm.post(table.base + "/archive").status_code == 200
    assert table.gm.delete(f"{table.base}/content/items/{item['id']}").status_code == 409
    assert len(table.gm.get(table.base + "/content").json()["items"]) == 1


# --- the rules use it -----------------------------------------------------------------------

def test_a_match_copies_the_profiles_it_starts_with(table):
    item = add_goblin(table)
    match = table.gm.post(table.base + "/matches", json={"name": "Embuscade"}).json()
    url = f"{table.base}/matches/{match['id']}"
    # Later edits do not reach a running match: it keeps what it started with.
    table.gm.put(f"{table.base}/content/items/{item['id']}",
                 json={"name": "Gobelin géant", "data": {"hp_max": 40, "statuses": ""}})
    response = table.gm.post(url + "/actions", json={
        "action": {"kind": "add_token", "profile": "gm-gobelin-des-cavernes"}})
    assert response.status_code == 200, response.text
    tokens = table.gm.get(url).json()["state"]["tokens"]
    assert [(t["name"], t["hp"], t["hp_max"], t["statuses"]) for t in tokens.values()] == [
        ("Gobelin des cavernes", 6, 6, "sournois")]
    refused = table.gm.post(url + "/actions", json={
        "action": {"kind": "add_token", "profile": "gm-troll"}})
    assert refused.status_code == 422
    assert refused.json()["error"]["field"] == "profile"


def test_export_and_import_carry_the_content(table):
    add_goblin(table)
    document = table.gm.get(table.base + "/export").json()
    assert document["content"] == [{"kind": "creature", "key": "gm-gobelin-des-cavernes",
                                    "name": "Gobelin des cavernes",
                                    "data": {"hp_max": 6, "statuses": "sournois"}}]
    imported = table.gm.post("/campaigns/import", json=document)
    assert imported.status_code == 201, imported.text
    copy = table.gm.get(f"/campaigns/{imported.json()['campaign_id']}/content").json()
    assert [(i["key"], i["data"]) for i in copy["items"]] == [
        ("gm-gobelin-des-cavernes", {"hp_max": 6, "statuses": "sournois"})]
    document["content"][0]["data"]["hp_max"] = -3
    refused = table.gm.post("/campaigns/import", json=document)
    assert refused.status_code == 422
    assert refused.json()["error"]["field"] == "content.0.data.hp_max"


# --- the pages ------------------------------------------------------------------------------

def test_the_gm_manages_content_in_the_browser(web, api):
    gm = web("gaelle")
    campaign = gm.post("/campaigns", {"name": "Les Brumes", "system": "libre"},
                       csrf_path="/campaigns")
    base = campaign.headers["location"]
    assert gm.page(base).select_one(f'a[href="{base}/content"]') is not None
    page = gm.page(base + "/content")
    form = page.select_one(f'form[action="{base}/content/creature"]')
    assert {label.text for label in form.select("label")} >= {"Name", "Hit points"}

    refused = gm.post(base + "/content/creature", {"name": "Orque", "hp_max": "-2"},
                      csrf_path=base + "/content")
    assert refused.status_code == 422
    shown = soup(refused)
    assert shown.select_one("details.add-item[open]") is not None
    assert shown.select_one("input[name=name]")["value"] == "Orque"
    assert "between 0 and" in shown.select_one(".field.has-error").text

    added = gm.post(base + "/content/creature", {"name": "Orque", "hp_max": "12",
                                                 "statuses": "enragé"},
                    csrf_path=base + "/content")
    assert added.status_code == 303
    row = gm.page(base + "/content").select_one("table.content-items tbody tr")
    assert [cell.text.strip() for cell in row.select("td")][:3] == [
        "Orque (house content, by the GM)", "12", "enragé"]
    item_id = row["id"].removeprefix("item-")
    edit = gm.page(f"{base}/content/items/{item_id}/edit")
    assert edit.select_one("input[name=hp_max]")["value"] == "12"
    gm.post(f"{base}/content/items/{item_id}/edit", {"name": "Orque", "hp_max": "15"},
            csrf_path=base + "/content")
    assert "15" in gm.page(base + "/content").select_one("table.content-items").text
    gm.post(f"{base}/content/items/{item_id}/delete", csrf_path=base + "/content")
    assert gm.page(base + "/content").select_one("table.content-items") is None


# --- dice at creation, and what only the GM may change ---------------------------------------

class RollingLibre(LibreSystem):
    """Free play whose hit points are rolled at creation (2d6 + 4), as in games that roll."""

    rolled_fields = ("hp", "hp_max")

    def roll_sheet(self, dice, chosen):
        record = roll_expression("2d6+4", dice, purpose="Points de vie")
        return {**chosen, "hp": record.total, "hp_max": record.total}, [record]


@pytest.fixture
def rolling(monkeypatch):
    monkeypatch.setitem(SYSTEMS, "libre", RollingLibre())


def test_the_server_rolls_a_new_character_and_logs_the_rolls(rolling, table, db,
                                                              monkeypatch):
    monkeypatch.setattr("app.http.deps.SystemDice", lambda: ScriptedDice([3, 5]))
    # Whatever the player sends for a rolled value, the dice decide it.
    created = table.player.post(table.base + "/characters", json={
        "name": "Aldo", "sheet": {"hp": 99, "hp_max": 99, "counters": [], "statuses": ""}})
    assert created.status_code == 201, created.text
    assert (created.json()["sheet"]["hp"], created.json()["sheet"]["hp_max"]) == (12, 12)
    db.commit()
    roll = db.scalar(select(Roll).where(Roll.campaign_id == table.campaign_id))
    assert (roll.expression, roll.record["total"], roll.character_id, roll.visibility) == (
        "2d6+4", 12, created.json()["id"], "public")
    assert [die["value"] for die in roll.record["dice"]] == [3, 5]


def test_only_the_gm_changes_what_the_dice_gave(rolling, table, monkeypatch):
    monkeypatch.setattr("app.http.deps.SystemDice", lambda: ScriptedDice([3, 5]))
    character = table.player.post(table.base + "/characters", json={"name": "Aldo"}).json()
    url = f"{table.base}/characters/{character['id']}"
    cheat = table.player.patch(url, json={"version": character["version"], "sheet": {
        **character["sheet"], "hp_max": 18, "hp": 18}})
    assert cheat.status_code == 422
    assert {p["field"] for p in cheat.json()["error"]["details"]["problems"]} == {"hp", "hp_max"}
    wound = table.player.patch(url, json={"version": character["version"], "sheet": {
        **character["sheet"], "statuses": "blessé"}})
    assert wound.status_code == 200
    fixed = table.gm.patch(url, json={"version": wound.json()["version"], "sheet": {
        **wound.json()["sheet"], "hp_max": 13, "hp": 13}})
    assert fixed.status_code == 200
    assert fixed.json()["sheet"]["hp_max"] == 13


def test_the_gm_may_type_a_profile_instead_of_rolling(rolling, table):
    created = table.gm.post(table.base + "/characters", json={
        "name": "Xénomorphe", "owner_id": None,
        "sheet": {"hp": 40, "hp_max": 40, "counters": [], "statuses": ""}})
    assert created.json()["sheet"]["hp_max"] == 40


def test_the_new_character_page_says_the_server_rolls(rolling, web, api):
    gm = web("gaelle")
    base = gm.post("/campaigns", {"name": "Les Brumes", "system": "libre"},
                   csrf_path="/campaigns").headers["location"]
    page = gm.page(base + "/characters/new")
    assert page.select_one(".rolled-at-creation") is not None
    assert page.select_one("details.typed-sheet input[name=typed_sheet]") is not None
    created = gm.post(base + "/characters", {"name": "Aldo", "hp": "50", "hp_max": "50"},
                      csrf_path=base + "/characters/new")
    assert created.status_code == 303
    view = gm.page(created.headers["location"])
    # 2d6 + 4 can never make 50: the typed figures were not used.
    assert "50" not in view.select_one("#sheet-title").find_parent("section").text
    # Refused for its name, the form does not judge a sheet nobody typed.
    again = gm.post(base + "/characters", {"name": "Aldo", "hp": "-4"},
                    csrf_path=base + "/characters/new")
    assert again.status_code == 409
    assert soup(again).select_one(".sheet-problems") is None


# --- the printable sheet ------------------------------------------------------------------

def test_the_printable_sheet_shows_the_sheet_without_the_forms(web: WebUser):
    gm = web("gaelle")
    base = gm.post("/campaigns", {"name": "Les Brumes", "system": "libre"},
                   csrf_path="/campaigns").headers["location"]
    created = gm.post(base + "/characters", {"name": "Aldo", "hp": "9", "hp_max": "14",
                                             "statuses": "", "notes": "Rôdeur du Nord"},
                      csrf_path=base + "/characters/new")
    url = created.headers["location"]
    assert gm.page(url).select_one(f'a#print-character[href="{url}/print"]') is not None
    page = gm.page(url + "/print")
    sheet = page.select_one("article.printable-sheet")
    assert sheet.select_one("h1").text == "Aldo"
    assert "Rôdeur du Nord" in sheet.text
    assert "14" in sheet.text and "9" in sheet.text
    assert sheet.select("form") == []


# --- how a sheet may change between matches -------------------------------------------------

class HealingLibre(LibreSystem):
    """Free play where a player may lower hit points but never raise them (healing is the
    GM's), as a game that judges changes between matches would."""

    def validate_change(self, before, after, content):
        if after.get("hp", 0) > before.get("hp", 0):
            return [Problem("hp", N_("Healing is the GM's."), "test")]
        return []


def test_a_game_judges_how_a_player_changes_a_sheet_not_the_gm(monkeypatch, table):
    monkeypatch.setitem(SYSTEMS, "libre", HealingLibre())
    character = table.player.post(table.base + "/characters", json={
        "name": "Aldo", "sheet": {"hp": 5, "hp_max": 10, "counters": [], "statuses": ""}}).json()
    url = f"{table.base}/characters/{character['id']}"
    healed = table.player.patch(url, json={"version": character["version"],
                                           "sheet": {**character["sheet"], "hp": 9}})
    assert healed.status_code == 422
    assert healed.json()["error"]["details"]["problems"][0]["field"] == "hp"
    hurt = table.player.patch(url, json={"version": character["version"],
                                         "sheet": {**character["sheet"], "hp": 3}})
    assert hurt.status_code == 200
    by_gm = table.gm.patch(url, json={"version": hurt.json()["version"],
                                      "sheet": {**character["sheet"], "hp": 10}})
    assert by_gm.status_code == 200 and by_gm.json()["sheet"]["hp"] == 10


def test_the_edit_page_shows_why_a_change_was_refused(monkeypatch, web, db):
    monkeypatch.setitem(SYSTEMS, "libre", HealingLibre())
    gm, paul = web("gaelle"), web("paul")
    base = gm.post("/campaigns", {"name": "Les Brumes", "system": "libre"},
                   csrf_path="/campaigns").headers["location"]
    invite = gm.post(base + "/invites", {"role": "player", "expires_in": "7d", "max_uses": "1"},
                     csrf_path=base + "/invites")
    assert invite.status_code == 303
    link = gm.page(base + "/invites").select_one("input.invite-link, code.invite-link")
    token = (link.get("value") or link.text).rsplit("/", 1)[1]
    assert paul.post(f"/invite/{token}", csrf_path=f"/invite/{token}").status_code == 303
    created = paul.post(base + "/characters", {"name": "Aldo", "hp": "5", "hp_max": "10"},
                        csrf_path=base + "/characters/new")
    url = created.headers["location"]
    form = paul.page(url + "/edit")
    version = form.select_one("input[name=version]")["value"]
    refused = paul.post(url + "/edit", {"name": "Aldo", "version": version, "hp": "9",
                                        "hp_max": "10"}, csrf_path=url + "/edit")
    assert refused.status_code == 422
    page = soup(refused)
    assert "Healing is the GM's." in page.select_one(".sheet-problems").text
