"""The roster: characters with an owner, notes and a system sheet, in HTML and over the API.

The table for every test: Gaëlle runs "La Tablée" (free play); Pia and Paul play; Sam watches;
Olga is registered but not a member.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from sqlalchemy import event, func, select, text

from app.errors import StaleVersion
from app.models import Campaign, Character, Membership, Role, User, utcnow
from app.services import characters
from app.services.access import load_campaign_access
from app.services.campaigns import create_campaign
from tests.helpers import soup

ROLES = {"gaelle": Role.GM, "pia": Role.PLAYER, "paul": Role.PLAYER, "sam": Role.SPECTATOR,
         "olga": None}


# --- set-up helpers (the campaign/member routes are another module's) ---------------------

@dataclass
class Table:
    campaign_id: int
    people: dict[str, Any]
    ids: dict[str, int] = field(default_factory=dict)

    @property
    def url(self) -> str:
        return f"/campaigns/{self.campaign_id}/characters"

    def __getitem__(self, name: str):
        return self.people[name]


def user_id(db, username: str) -> int:
    db.commit()
    return db.scalar(select(User.id).where(User.username == username))


def add_member(db, campaign_id: int, username: str, role: Role) -> None:
    db.add(Membership(campaign_id=campaign_id, user_id=user_id(db, username), role=role))
    db.commit()


def seat_table(make, db) -> Table:
    people = {name: make(name) for name in ROLES}
    gm = db.scalar(select(User).where(User.username == "gaelle"))
    campaign = create_campaign(db=db, user=gm, name="La Tablée", system="libre")
    for name, role in ROLES.items():
        if role not in (None, Role.GM):
            add_member(db, campaign.id, name, role)
    return Table(campaign.id, people, {name: user_id(db, name) for name in ROLES})


def access_for(db, table: Table, username: str):
    db.commit()
    user = db.get(User, table.ids[username])
    return load_campaign_access(db, user, table.campaign_id)


def add_character(db, table: Table, username: str, name: str, **kwargs) -> int:
    access = access_for(db, table, username)
    return characters.create_character(db=db, access=access, name=name, **kwargs).id


def saved(db, character_id: int) -> Character | None:
    db.commit()
    return db.get(Character, character_id, populate_existing=True)


def archive(db, table: Table) -> None:
    db.commit()
    db.get(Campaign, table.campaign_id).archived_at = utcnow()
    db.commit()


def sheet_form(hp="10", hp_max="10", statuses="", counters=()) -> dict[str, str]:
    fields = {"hp": hp, "hp_max": hp_max, "statuses": statuses}
    for index, (label, value) in enumerate(counters):
        fields[f"counter_label_{index}"] = label
        fields[f"counter_value_{index}"] = value
    return fields


@pytest.fixture
def table(web, db) -> Table:
    return seat_table(web, db)


@pytest.fixture
def api_table(api, db) -> Table:
    return seat_table(api, db)


def roster_rows(page) -> dict[str, str]:
    """{character name: who plays it} as the roster shows it."""
    return {row.select_one(".character-name").text: row.select_one(".owner").text.strip()
            for row in page.select("table.roster tbody tr")}


# --- the roster and creating characters (HTML) -------------------------------------------

def test_a_player_creates_her_character_and_everyone_sees_it(table):
    response = table["pia"].post(table.url, {
        "name": "Aldo le Rôdeur", "notes": "Parle aux corbeaux.",
        **sheet_form(hp="12", hp_max="14", counters=[("Flèches", "12")])})
    assert response.status_code == 303
    page = table["pia"].page(response.headers["location"])
    assert page.select_one("h1").text == "Aldo le Rôdeur"
    assert page.select_one(".sheet-hp").text == "12 / 14"
    assert page.select_one(".derived-value[data-key=hp_percent]").text.strip() == "86 %"
    for viewer in ("gaelle", "paul", "sam"):
        assert roster_rows(table[viewer].page(table.url)) == {"Aldo le Rôdeur": "Pia"}


def test_the_gm_creates_an_npc_and_a_character_for_a_player(table):
    gm = table["gaelle"]
    choices = [option["value"] for option in
               gm.page(table.url + "/new").select("select[name=owner_id] option")]
    assert choices[0] == "" and str(table.ids["paul"]) in choices
    assert str(table.ids["sam"]) not in choices  # spectators own nothing
    assert gm.post(table.url, {"name": "Gobelin", "owner_id": "",
                               **sheet_form()}).status_code == 303
    assert gm.post(table.url, {"name": "Brune", "owner_id": str(table.ids["paul"]),
                               **sheet_form()}).status_code == 303
    assert roster_rows(table["sam"].page(table.url)) == {"Brune": "Paul", "Gobelin": "NPC (GM)"}


def test_a_player_cannot_create_a_character_for_someone_else(table, db):
    response = table["pia"].post(table.url, {"name": "Intrus", "owner_id": str(table.ids["paul"]),
                                             **sheet_form()})
    assert response.status_code == 303  # the owner field is not hers to choose
    db.commit()
    assert db.scalar(select(Character.owner_id).where(Character.name == "Intrus")) \
        == table.ids["pia"]
    assert table["pia"].page(table.url + "/new").select_one("select[name=owner_id]") is None


def test_spectators_read_the_roster_but_cannot_create(table, db):
    add_character(db, table, "pia", "Aldo")
    page = table["sam"].page(table.url)
    assert page.select_one("#new-character") is None
    assert page.select(".edit-link") == []
    assert table["sam"].get(table.url + "/new").status_code == 403
    assert table["sam"].post(table.url, {"name": "X", **sheet_form()}).status_code == 403


def test_a_duplicate_name_is_refused_and_nothing_is_saved(table, db):
    add_character(db, table, "paul", "Aldo")
    response = table["pia"].post(table.url, {"name": "Aldo", "notes": "mes notes",
                                             **sheet_form()})
    assert response.status_code == 409
    page = soup(response)
    assert "already has this name" in page.select_one("#name-error").text
    assert page.select_one("#field-notes").text == "mes notes"  # what she typed is kept
    db.commit()
    assert db.scalar(select(func.count()).select_from(Character)) == 1


def test_sheet_problems_are_listed_next_to_their_fields_and_nothing_is_saved(table, db):
    response = table["pia"].post(table.url, {
        "name": "Aldo", **sheet_form(hp="beaucoup", hp_max="10",
                                     counters=[("Or", "30"), ("", "4")])})
    assert response.status_code == 422
    page = soup(response)
    hp = page.select_one(".sheet-problem[data-field=hp]")
    assert "whole number" in hp.text and "Free play (house rule)" in hp.text
    assert "1 to 40 characters" in page.select_one(".sheet-problem[data-field='counters.1']").text
    assert {item["data-field"] for item in page.select(".sheet-problems li")} == {
        "hp", "counters.1"}
    assert page.select_one("#sheet-hp")["value"] == "beaucoup"  # kept as typed
    assert page.select_one("#sheet-hp")["aria-invalid"] == "true"
    db.commit()
    assert db.scalar(select(func.count()).select_from(Character)) == 0


# --- viewing and editing -----------------------------------------------------------------

def test_the_view_page_shows_notes_sheet_and_derived_values(table, db):
    cid = add_character(db, table, "pia", "Aldo", notes="Ligne 1\nLigne 2",
                        sheet={"hp": 5, "hp_max": 20, "statuses": "Empoisonné",
                               "counters": [{"label": "Flèches", "value": 12}]})
    page = table["sam"].page(f"{table.url}/{cid}")
    assert [line for line in page.select_one(".notes").stripped_strings] == ["Ligne 1",
                                                                              "Ligne 2"]
    assert page.select_one(".sheet-statuses").text == "Empoisonné"
    assert page.select_one(".counters tbody th").text == "Flèches"
    assert page.select_one("meter")["value"] == "25"
    assert page.select_one("#edit-character") is None  # a spectator edits nothing


def test_a_player_edits_her_character(table, db):
    cid = add_character(db, table, "pia", "Aldo")
    form = table["pia"].page(f"{table.url}/{cid}/edit").select_one("form.character-form")
    assert form.select_one("input[name=version]")["value"] == "1"
    response = table["pia"].post(f"{table.url}/{cid}/edit", {
        "name": "Aldo le Sage", "notes": "Retiré", "version": "1",
        **sheet_form(hp="3", hp_max="8", statuses="Fatigué", counters=[("Or", "7")])})
    assert response.status_code == 303
    character = saved(db, cid)
    assert (character.name, character.notes, character.version) == ("Aldo le Sage", "Retiré", 2)
    assert character.sheet == {"hp": 3, "hp_max": 8, "statuses": "Fatigué",
                               "counters": [{"label": "Or", "value": 7}]}


def test_the_edit_form_updates_derived_values_live_without_saving(table, db):
    cid = add_character(db, table, "pia", "Aldo")
    form = table["pia"].page(f"{table.url}/{cid}/edit").select_one("form.character-form")
    # The builder inside the form asks for the preview with the whole form (the form itself
    # is sent by the page's boost).
    live = form.select_one("[hx-post]")
    assert live["hx-post"] == f"{table.url}/{cid}/sheet-preview"
    assert live["hx-trigger"] == "input changed delay:300ms"
    assert (live["hx-target"], live["hx-include"]) == ("#derived-panel", "closest form")
    assert live.select_one("#derived-panel") is not None
    preview = table["pia"].post(f"{table.url}/{cid}/sheet-preview",
                                {"name": "Renommé", "version": "1",
                                 **sheet_form(hp="1", hp_max="4")})
    assert preview.status_code == 200
    panel = soup(preview).select_one("#derived-panel")
    assert panel.select_one("[data-key=hp_percent]").text.strip() == "25 %"
    broken = soup(table["pia"].post(f"{table.url}/{cid}/sheet-preview",
                                    sheet_form(hp="9", hp_max="4")))
    assert broken.select_one("[data-key=hp_percent]") is None
    assert [item["data-field"] for item in broken.select(".sheet-problems li")] == ["hp"]
    character = saved(db, cid)
    assert (character.name, character.version, character.sheet["hp"]) == ("Aldo", 1, 10)


def test_the_preview_needs_the_right_to_edit_and_a_csrf_token(table, db):
    cid = add_character(db, table, "pia", "Aldo")
    url = f"{table.url}/{cid}/sheet-preview"
    assert table["paul"].post(url, sheet_form()).status_code == 403
    assert table["sam"].post(url, sheet_form()).status_code == 403
    assert table["pia"].client.post(url, data=sheet_form()).status_code == 403  # no token


def test_a_stale_save_keeps_what_was_typed_and_shows_the_other_version(table, db):
    cid = add_character(db, table, "pia", "Aldo", notes="Départ")
    edit_url = f"{table.url}/{cid}/edit"
    # Gaëlle saves first, from the same version Pia is looking at.
    assert table["gaelle"].post(edit_url, {"name": "Aldo le Borgne", "notes": "Blessé",
                                           "version": "1", **sheet_form(hp="4")}
                                ).status_code == 303
    response = table["pia"].post(edit_url, {"name": "Aldo le Brave", "notes": "Ma version",
                                            "version": "1",
                                            **sheet_form(hp="9", counters=[("Or", "5")])})
    assert response.status_code == 409
    page = soup(response)
    conflict = page.select_one(".conflict")
    assert conflict.select_one(".conflict-name").text == "Aldo le Borgne"
    assert conflict.select_one(".conflict-notes").text == "Blessé"
    assert conflict.select_one(".sheet-hp").text == "4 / 10"
    form = page.select_one("form.character-form")
    assert form.select_one("#field-name")["value"] == "Aldo le Brave"
    assert form.select_one("#field-notes").text == "Ma version"
    assert form.select_one("#sheet-hp")["value"] == "9"
    assert form.select_one("#counter-label-0")["value"] == "Or"
    assert form.select_one("input[name=version]")["value"] == "2"
    assert saved(db, cid).name == "Aldo le Borgne"
    # Having read Gaëlle's version, Pia saves hers on purpose.
    resent = {field["name"]: field.get("value", "") for field in form.select("input[name]")
              if field["name"] != "csrf_token"}
    resent["notes"] = "Ma version"
    assert table["pia"].post(edit_url, resent).status_code == 303
    assert (saved(db, cid).name, saved(db, cid).version) == ("Aldo le Brave", 3)


def test_a_write_racing_past_the_version_check_is_still_refused(table, db):
    """Another writer commits between our check and our UPDATE (PostgreSQL can do that)."""
    cid = add_character(db, table, "pia", "Aldo")
    access = access_for(db, table, "pia")

    def someone_else_saves(session, _context, _instances):
        session.connection().execute(
            text("UPDATE characters SET version = version + 1, name = 'Autre' WHERE id = :id"),
            {"id": cid})

    event.listen(db, "before_flush", someone_else_saves, once=True)
    with pytest.raises(StaleVersion) as raised:
        characters.update_character(db=db, access=access, character_id=cid, version=1,
                                    name="Aldo le Brave")
    assert raised.value.details["current"]["version"] == 1  # our whole write rolled back
    assert saved(db, cid).name == "Aldo"


def test_other_players_and_spectators_cannot_edit(table, db):
    cid = add_character(db, table, "pia", "Aldo")
    for name in ("paul", "sam"):
        assert table[name].get(f"{table.url}/{cid}/edit").status_code == 403
        response = table[name].post(f"{table.url}/{cid}/edit",
                                    {"name": "Volé", "version": "1", **sheet_form()})
        assert response.status_code == 403
    assert table["gaelle"].get(f"{table.url}/{cid}/edit").status_code == 200
    assert saved(db, cid).name == "Aldo"


def test_the_gm_hands_a_character_over_or_makes_it_an_npc(table, db):
    cid = add_character(db, table, "pia", "Aldo")
    gm = table["gaelle"]
    options = gm.page(f"{table.url}/{cid}").select("form.transfer option")
    assert [o["value"] for o in options if o.has_attr("selected")] == [str(table.ids["pia"])]
    assert gm.post(f"{table.url}/{cid}/transfer",
                   {"owner_id": str(table.ids["paul"])}).status_code == 303
    assert table["pia"].get(f"{table.url}/{cid}/edit").status_code == 403
    assert table["paul"].get(f"{table.url}/{cid}/edit").status_code == 200
    assert gm.post(f"{table.url}/{cid}/transfer", {"owner_id": ""}).status_code == 303
    assert saved(db, cid).owner_id is None
    refused = gm.post(f"{table.url}/{cid}/transfer", {"owner_id": str(table.ids["sam"])})
    assert refused.status_code == 422
    assert soup(refused).select_one("#owner_id-error").text == "Choose a player of this campaign."
    assert table["paul"].post(f"{table.url}/{cid}/transfer",
                              {"owner_id": str(table.ids["paul"])}).status_code == 403
    assert saved(db, cid).owner_id is None


def test_the_owner_or_the_gm_deletes_a_character(table, db):
    mine = add_character(db, table, "pia", "Aldo")
    other = add_character(db, table, "paul", "Brune")
    page = table["pia"].page(f"{table.url}/{mine}")
    assert page.select_one("form.delete-character button")["data-confirm"]
    assert table["pia"].post(f"{table.url}/{other}/delete").status_code == 403
    response = table["pia"].post(f"{table.url}/{mine}/delete")
    assert response.status_code == 303
    assert table["pia"].get(f"{table.url}/{mine}").status_code == 404
    assert table["gaelle"].post(f"{table.url}/{other}/delete").status_code == 303
    assert saved(db, other) is None


def test_an_archived_campaign_is_read_only(table, db):
    cid = add_character(db, table, "pia", "Aldo")
    archive(db, table)
    pia = table["pia"]
    assert pia.page(table.url).select_one("#new-character") is None
    assert pia.page(f"{table.url}/{cid}").select_one("#edit-character") is None
    for path, data in [
        (table.url, {"name": "Neuf", **sheet_form()}),
        (f"{table.url}/{cid}/edit", {"name": "X", "version": "1", **sheet_form()}),
        (f"{table.url}/{cid}/delete", {}),
        (f"{table.url}/{cid}/portrait/delete", {}),
    ]:
        assert pia.post(path, data).status_code == 409, path
    assert table["gaelle"].post(f"{table.url}/{cid}/transfer", {"owner_id": ""}).status_code \
        == 409
    assert saved(db, cid).name == "Aldo"


def test_user_text_is_escaped_everywhere(table, db):
    payload = '<script>alert(1)</script><img src=x onerror=alert(2)>'
    cid = add_character(db, table, "pia", payload, notes=payload,
                        sheet={"hp": 1, "hp_max": 1, "statuses": payload,
                               "counters": [{"label": "<b>x</b>", "value": 1}]})
    for path in (table.url, f"{table.url}/{cid}", f"{table.url}/{cid}/edit"):
        main = table["pia"].page(path).select_one("main")
        assert main.select("script, img[onerror], b") == [], path


# --- permissions, route by route ---------------------------------------------------------

WEB_ROUTES = [
    # (method, path, who may: "member" | "editor" | "gm" | "player")
    ("GET", "", "member"),
    ("GET", "/new", "player"),
    ("GET", "/{cid}", "member"),
    ("GET", "/{cid}/edit", "editor"),
    ("POST", "/{cid}/edit", "editor"),
    ("POST", "/{cid}/sheet-preview", "editor"),
    ("POST", "/{cid}/transfer", "gm"),
    ("POST", "/{cid}/portrait/delete", "editor"),
]
# Pia owns the character; Paul is the other player.
ALLOWED = {"member": {"gaelle", "pia", "paul", "sam"}, "editor": {"gaelle", "pia"},
           "gm": {"gaelle"}, "player": {"gaelle", "pia", "paul"}}


@pytest.mark.parametrize(("method", "path", "right"), WEB_ROUTES)
def test_web_permission_table(table, db, new_client, method, path, right):
    cid = add_character(db, table, "pia", "Aldo")
    url = table.url + path.format(cid=cid)
    data = {"name": "Aldo", "version": "1", "owner_id": str(table.ids["pia"]), **sheet_form()}
    anonymous = new_client()
    answer = anonymous.get(url, follow_redirects=False) if method == "GET" else \
        anonymous.post(url, data=data, follow_redirects=False)
    assert answer.status_code in (303, 401, 403)  # to the login page, or refused
    for name in ROLES:
        person = table[name]
        response = person.get(url) if method == "GET" else person.post(url, data)
        expected = 404 if name == "olga" else (
            "ok" if name in ALLOWED[right] else 403)
        if expected == "ok":
            assert response.status_code in (200, 303), (name, response.status_code)
        else:
            assert response.status_code == expected, (name, response.status_code)


def test_another_campaigns_character_is_not_found(table, db, web):
    cid = add_character(db, table, "pia", "Aldo")
    other = create_campaign(db=db, user=db.get(User, table.ids["olga"]), name="Ailleurs",
                            system="libre")
    olga = table["olga"]
    for path in ("", "/edit", "/portrait"):
        assert olga.get(f"/campaigns/{other.id}/characters/{cid}{path}").status_code == 404
    assert olga.post(f"/campaigns/{other.id}/characters/{cid}/delete").status_code == 404
    assert saved(db, cid) is not None


# --- the service other modules use -------------------------------------------------------

def test_create_character_defaults(table, db):
    npc = characters.create_character(db=db, access=access_for(db, table, "gaelle"),
                                      name="Gobelin", owner_id=None)
    gm_own = characters.create_character(db=db, access=access_for(db, table, "gaelle"),
                                         name="Pré-tiré")
    pia = characters.create_character(db=db, access=access_for(db, table, "gaelle"),
                                      name="Aldo", owner_id=table.ids["pia"],
                                      sheet={"hp": 3, "hp_max": 3, "statuses": "",
                                             "counters": []})
    assert npc.owner_id is None and npc.sheet == {"hp": 10, "hp_max": 10, "counters": [],
                                                  "statuses": ""}
    assert gm_own.owner_id == table.ids["gaelle"]
    assert pia.owner_id == table.ids["pia"]
    listed = characters.list_characters(db=db, campaign_id=table.campaign_id)
    assert [c.name for c in listed] == ["Aldo", "Gobelin", "Pré-tiré"]


# --- the JSON API ------------------------------------------------------------------------

def api_url(table: Table, suffix: str = "") -> str:
    return f"/campaigns/{table.campaign_id}/characters{suffix}"


def test_api_create_read_update(api_table):
    pia = api_table["pia"]
    created = pia.post(api_url(api_table), json={"name": "Aldo", "notes": "Archer"})
    assert created.status_code == 201, created.text
    body = created.json()
    assert body["owner_id"] == pia.id and body["owner_name"] == "pia"
    assert body["sheet"] == {"hp": 10, "hp_max": 10, "counters": [], "statuses": ""}
    assert body["derived"] == {"hp_percent": 100} and body["version"] == 1
    one = api_url(api_table, f"/{body['id']}")
    patched = pia.patch(one, json={"version": 1, "sheet": {**body["sheet"], "hp": 5}})
    assert patched.status_code == 200, patched.text
    assert patched.json()["derived"] == {"hp_percent": 50}
    assert patched.json()["notes"] == "Archer" and patched.json()["version"] == 2
    listed = api_table["sam"].get(api_url(api_table)).json()
    assert [(c["name"], c["version"]) for c in listed] == [("Aldo", 2)]
    assert api_table["sam"].get(one).json()["derived"] == {"hp_percent": 50}


def test_api_patch_needs_the_version_and_refuses_a_stale_one(api_table):
    pia, gm = api_table["pia"], api_table["gaelle"]
    cid = pia.post(api_url(api_table), json={"name": "Aldo"}).json()["id"]
    one = api_url(api_table, f"/{cid}")
    missing = pia.patch(one, json={"name": "Sans version"})
    assert missing.status_code == 422 and missing.json()["error"]["field"] == "version"
    assert gm.patch(one, json={"version": 1, "notes": "Par la MJ"}).status_code == 200
    stale = pia.patch(one, json={"version": 1, "notes": "Par Pia"})
    assert stale.status_code == 409
    error = stale.json()["error"]
    assert error["code"] == "stale_version"
    assert error["details"]["current"]["notes"] == "Par la MJ"
    assert error["details"]["current"]["version"] == 2
    assert pia.get(one).json()["notes"] == "Par la MJ"


def test_api_sheet_problems(api_table):
    pia = api_table["pia"]
    response = pia.post(api_url(api_table), json={"name": "Aldo", "sheet": {
        "hp": 20, "hp_max": 10, "counters": "beaucoup", "statuses": "", "xp": 3}})
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "invalid_sheet" and error["field"] == "sheet.hp"
    assert [(p["field"], p["rule"]) for p in error["details"]["problems"]] == [
        ("hp", "Free play (house rule)"), ("counters", "Free play (house rule)"),
        ("sheet", "Free play (house rule)")]
    assert error["details"]["problems"][2]["message"] == "Unknown fields: xp."
    assert pia.get(api_url(api_table)).json() == []


def test_api_duplicate_name(api_table):
    api_table["pia"].post(api_url(api_table), json={"name": "Aldo"})
    response = api_table["gaelle"].post(api_url(api_table), json={"name": "Aldo",
                                                                 "owner_id": None})
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "duplicate_name"
    assert response.json()["error"]["field"] == "name"


def test_api_owner_rules(api_table):
    gm, pia = api_table["gaelle"], api_table["pia"]
    npc = gm.post(api_url(api_table), json={"name": "Gobelin", "owner_id": None}).json()
    assert npc["owner_id"] is None and npc["owner_name"] is None
    assert pia.post(api_url(api_table), json={"name": "Faux", "owner_id": api_table["paul"].id}
                    ).status_code == 403
    assert pia.post(api_url(api_table), json={"name": "PNJ", "owner_id": None}
                    ).status_code == 403
    assert gm.post(api_url(api_table), json={"name": "Vu", "owner_id": api_table["sam"].id}
                   ).status_code == 422
    moved = gm.post(api_url(api_table, f"/{npc['id']}/transfer"),
                    json={"owner_id": pia.id})
    assert moved.status_code == 200 and moved.json()["owner_name"] == "pia"
    assert pia.post(api_url(api_table, f"/{npc['id']}/transfer"),
                    json={"owner_id": None}).status_code == 403
    assert pia.delete(api_url(api_table, f"/{npc['id']}")).status_code == 204
    assert gm.get(api_url(api_table, f"/{npc['id']}")).status_code == 404


API_ROUTES = [
    ("GET", "", "member"),
    ("POST", "", "player"),
    ("GET", "/{cid}", "member"),
    ("PATCH", "/{cid}", "editor"),
    ("POST", "/{cid}/transfer", "gm"),
    ("DELETE", "/{cid}/portrait", "editor"),
    ("DELETE", "/{cid}", "editor"),
]


@pytest.mark.parametrize(("method", "path", "right"), API_ROUTES)
def test_api_permission_table(api_table, db, new_client, method, path, right):
    cid = add_character(db, api_table, "pia", "Aldo")
    body = {"GET": None, "POST": {"owner_id": None} if "transfer" in path else {"name": "Neuf"},
            "PATCH": {"version": 1, "notes": "x"}, "DELETE": None}[method]
    suffix = path.format(cid=cid)
    anonymous = new_client().request(method, f"/api/v1{api_url(api_table, suffix)}", json=body)
    assert anonymous.status_code == 401
    for name in ("olga", "sam", "paul", "gaelle", "pia"):
        if method == "POST" and path == "":
            body = {"name": f"Neuf de {name}"}
        if method == "PATCH":
            body = {"version": saved(db, cid).version, "notes": f"par {name}"}
        response = api_table[name].request(method, api_url(api_table, suffix), json=body)
        if name == "olga":
            assert response.status_code == 404, name
        elif name in ALLOWED[right]:
            assert response.status_code in (200, 201, 204), (name, response.text)
            if method == "DELETE" and path == "/{cid}":
                break
        else:
            assert response.status_code == 403, (name, response.status_code)


def test_api_archived_campaign_refuses_every_write(api_table, db):
    cid = add_character(db, api_table, "pia", "Aldo")
    archive(db, api_table)
    pia, gm = api_table["pia"], api_table["gaelle"]
    one = api_url(api_table, f"/{cid}")
    for response in (
        pia.post(api_url(api_table), json={"name": "Neuf"}),
        pia.patch(one, json={"version": 1, "notes": "x"}),
        pia.delete(one),
        gm.post(one + "/transfer", json={"owner_id": None}),
        pia.delete(one + "/portrait"),
    ):
        assert response.status_code == 409
        assert response.json()["error"]["code"] == "archived"
    assert pia.get(one).status_code == 200
