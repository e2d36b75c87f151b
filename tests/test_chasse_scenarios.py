"""Chasse préhistorique: a GM's own hunting scenarios as campaign custom content (issue 13):
made in the page or the API, checked by the rules of the ready ones (a refused one changes
nothing), started in a match, saved from a match's ground, shown in the compendium, carried
by export and import."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from app.models import CustomContent
from app.rules.chasse.content import prey_species, scenarios
from app.rules.chasse.scenario import compass, from_item, problems_of
from tests.helpers import soup

GROUND = {"width": 40, "height": 30, "turns": 6, "north": "right", "camp_edge": "left",
          "terrain": "arbre 10 4 6 5 Bois sacré\nriviere; 20; 0; 2; 30; Gué du loup\n"
                     "infranchissable 30 20 5 5",
          "prey": "aurochs 28 10 harde dominant\nAurochs 29,5 11 harde\n"
                  "Mammouth laineux; 34; 4",
          "threat_placide": "fuit fuit fuit reste reste reste attaque charge",
          "idle_directions": "nord nord est est sud ouest"}


def count(db) -> int:
    return db.scalar(select(func.count()).select_from(CustomContent))


@pytest.fixture
def tribe(api):
    gm = api("mia")
    campaign_id = gm.post("/campaigns", json={"name": "Tribu", "system": "chasse"}).json()["id"]
    base = f"/campaigns/{campaign_id}"
    added = gm.post(base + "/content/prey", json={"name": "Mammouth laineux", "data": {
        "masse": 5, "temperament": "placide", "speed": "lourdaud", "weapon": "defenses"}})
    assert added.status_code == 201, added.text
    return gm, base


def add_ground(gm, base, **changes):
    return gm.post(base + "/content/scenario", json={"name": "Le gué des aurochs",
                                                     "data": {**GROUND, **changes}})


def test_the_ready_and_the_gm_scenarios_obey_one_set_of_rules():
    species = prey_species()
    for entry in scenarios().values():
        assert problems_of(entry, species) == []
    entry, problems = from_item({**GROUND, "prey": "aurochs 28 10"}, species)
    assert problems == [] and entry["camp_edge"] == "left"
    # Every broken rule is named at its field, with the line where it is.
    _, problems = from_item({**GROUND, "prey": "aurochs 50 10\ntigre 3 3\naurochs 31 21 x "
                             "dominant\naurochs 32 22 x dominant"}, species)
    assert [(p.field, p.params["line"]) for p in problems] == [("prey", 2)]
    _, problems = from_item({**GROUND, "prey": "aurochs 50 10"}, species)
    assert problems[0].field == "prey" and problems[0].params["x"] == 50
    assert problems[0].params["where"] == 1
    _, problems = from_item({**GROUND, "prey": "aurochs 32 22"}, species)
    assert "impassable" in problems[0].message
    _, problems = from_item({**GROUND, "camp_edge": "", "prey": "aurochs 3 3"}, species)
    assert problems[0].field == "camp_edge"
    _, problems = from_item({**GROUND, "prey": "aurochs 3 3", "idle_outcomes": "reste"},
                            species)
    assert problems[0].field == "idle_outcomes"
    _, problems = from_item({**GROUND, "prey": "aurochs 3 3 a dominant\naurochs 4 4 a "
                             "dominant"}, species)
    assert problems[0].params == {"group": "a", "n": 2}


def test_north_turns_the_compass():
    assert compass({"north": "top"}, "nord") == (0.0, -1.0)
    assert compass({"north": "right"}, "nord") == (1.0, 0.0)
    assert compass({"north": "right"}, "est") == (0.0, 1.0)
    assert compass({"north": "bottom"}, "ouest") == (1.0, 0.0)
    assert compass({}, "sud") == (0.0, 1.0)


def test_the_gm_makes_a_scenario_and_a_hunt_starts_from_it(tribe, db):
    gm, base = tribe
    added = add_ground(gm, base)
    assert added.status_code == 201, added.text
    key = added.json()["key"]
    assert key == "gm-le-gue-des-aurochs"
    kinds = {kind["key"]: kind for kind in gm.get(base + "/content").json()["kinds"]}
    fields = {field["name"]: field for field in kinds["scenario"]["fields"]}
    assert fields["terrain"]["kind"] == "lines" and "arbre 8 10 6 5" in fields["terrain"]["help"]
    # A match opened afterwards offers it and sets it up.
    match = gm.post(base + "/matches", json={"name": "Au gué"}).json()
    url = f"{base}/matches/{match['id']}"
    forms = {f["kind"]: f for f in gm.get(url).json()["legal_actions"]}
    assert [key, "Le gué des aurochs"] in forms["choose_scenario"]["choices"]["scenarios"]
    done = gm.post(url + "/actions", json={"action": {"kind": "choose_scenario",
                                                      "scenario": key}})
    assert done.status_code == 200, done.text
    state = gm.get(url).json()["state"]
    board = state["board"]
    assert (board["width"], board["height"], board["north"]) == (40, 30, "right")
    assert [(s["kind"], s["x"], s["w"]) for s in board["terrain"]][:2] == [
        ("camp", 0, 4), ("arbre", 10, 6)]
    assert state["scenario"] == {"key": key, "name": "Le gué des aurochs", "turns": 6}
    prey = [t for t in state["tokens"].values() if t["kind"] == "prey"]
    assert [(t["species"], t["x"], t["group"], t["dominant"]) for t in prey] == [
        ("aurochs", 28, "harde", True), ("aurochs", 29.5, "harde", False),
        ("gm-mammouth-laineux", 34, "", False)]
    assert state["reactions"]["threat"]["placide"][3] == "reste"
    assert state["reactions"]["idle"]["directions"] == ["nord", "nord", "est", "est", "sud",
                                                        "ouest"]
    # Later edits of the item do not reach the match (it keeps its copy).
    assert count(db) == 2


@pytest.mark.parametrize(("changes", "field"), [
    ({"prey": "aurochs 60 10"}, "prey"),
    ({"prey": "licorne 3 3"}, "prey"),
    ({"terrain": "volcan 1 1 2 2"}, "terrain"),
    ({"terrain": "arbre 38 4 6 5"}, "terrain"),
    ({"camp_edge": ""}, "camp_edge"),
    ({"threat_agressive": "fuit fuit"}, "threat_agressive"),
    ({"width": 400}, "width"),
])
def test_a_broken_scenario_is_refused_and_nothing_changes(tribe, db, changes, field):
    gm, base = tribe
    before = count(db)
    refused = add_ground(gm, base, **changes)
    assert refused.status_code == 422, refused.text
    assert refused.json()["error"]["field"] == field
    assert count(db) == before
    # An edit that breaks a saved scenario is refused too, and the item stays as it was.
    item = add_ground(gm, base).json()
    edited = gm.put(f"{base}/content/items/{item['id']}",
                    json={"name": "Cassé", "data": {**GROUND, **changes}})
    assert edited.status_code == 422
    kept = [i for i in gm.get(base + "/content").json()["items"] if i["id"] == item["id"]]
    assert kept[0]["name"] == "Le gué des aurochs" and kept[0]["data"]["prey"] == GROUND["prey"]


def test_a_match_ground_is_saved_as_a_scenario_and_played_again(tribe):
    gm, base = tribe
    match = gm.post(base + "/matches", json={"name": "Vallée"}).json()
    url = f"{base}/matches/{match['id']}"
    for action in ({"kind": "choose_scenario", "scenario": "steppe"},
                   {"kind": "add_prey", "species": "gm-mammouth-laineux", "x": 5, "y": 5},
                   {"kind": "set_reaction", "table": "idle", "blue": 0, "outcome": "erre"}):
        assert gm.post(url + "/actions", json={"action": action}).status_code == 200
    saved = gm.post(f"{base}/content/from-match/{match['id']}", json={"name": "Ma steppe"})
    assert saved.status_code == 201, saved.text
    data = saved.json()["data"]
    assert (data["width"], data["height"], data["turns"], data["north"]) == (60, 40, 10, "top")
    assert data["terrain"].splitlines()[0] == "camp; 0; 36; 60; 4; Camp"
    assert data["prey"].splitlines()[0] == "renne; 30; 8; troupeau; dominant"
    assert data["prey"].splitlines()[-1] == "gm-mammouth-laineux; 5; 5"
    assert data["idle_outcomes"].split()[0] == "erre"
    # A new match from the saved scenario stands as the first one did.
    again = gm.post(base + "/matches", json={"name": "Encore"}).json()
    url2 = f"{base}/matches/{again['id']}"
    gm.post(url2 + "/actions", json={"action": {"kind": "choose_scenario",
                                                "scenario": saved.json()["key"]}})
    first, second = gm.get(url).json()["state"], gm.get(url2).json()["state"]
    assert second["board"]["terrain"] == first["board"]["terrain"]
    assert second["reactions"] == first["reactions"]
    assert [(t["species"], t["x"], t["y"], t["group"], t["dominant"])
            for t in first["tokens"].values() if t["kind"] == "prey"] == \
        [(t["species"], t["x"], t["y"], t["group"], t["dominant"])
         for t in second["tokens"].values() if t["kind"] == "prey"]


def test_export_and_import_carry_the_scenario(tribe):
    gm, base = tribe
    add_ground(gm, base)
    document = gm.get(base + "/export").json()
    assert [item["kind"] for item in document["content"]] == ["prey", "scenario"]
    # The scenario names the GM's species: it is checked against the imported ones.
    document["content"].reverse()
    imported = gm.post("/campaigns/import", json=document)
    assert imported.status_code == 201, imported.text
    copy = gm.get(f"/campaigns/{imported.json()['campaign_id']}/content").json()
    assert [i["data"] for i in copy["items"] if i["kind"] == "scenario"] == [
        {**GROUND, "idle_outcomes": "", "threat_agressive": ""}]
    document["content"][0]["data"]["prey"] = "aurochs 99 99"
    refused = gm.post("/campaigns/import", json=document)
    assert refused.status_code == 422
    assert refused.json()["error"]["field"] == "content.0.data.prey"


def test_the_gm_writes_a_scenario_in_the_page(web, db):
    gm = web("mia")
    made = gm.post("/campaigns", {"name": "Tribu", "system": "chasse"}, csrf_path="/campaigns")
    base = made.headers["location"]
    page = gm.page(base + "/content")
    form = page.select_one(f'form[action="{base}/content/scenario"]')
    assert form.select_one("textarea[name=terrain]") is not None
    assert form.select_one("textarea[name=prey] ~ .field-help, .field-help") is not None
    fields = {**GROUND, "prey": "aurochs 28 10 harde dominant\nAurochs 29,5 11 harde"}
    refused = gm.post(base + "/content/scenario", {"name": "Gué", **fields,
                                                   "prey": "aurochs 28 99\naurochs 3 3",
                                                   "terrain": "arbre 38 4 6 5"},
                      csrf_path=base + "/content")
    assert refused.status_code == 422
    shown = soup(refused)
    assert shown.select_one("details.add-item[open]") is not None
    # Every broken rule at once, each at its field.
    errors = {error.find_previous("label").text: error.text
              for error in shown.select(".field-error")}
    assert "line 1" in errors["Terrain elements"] and "40 × 30" in errors["Terrain elements"]
    assert "28, 99" in errors["Prey, herds and packs"]
    assert shown.select_one("textarea[name=terrain]").text == "arbre 38 4 6 5"  # as typed
    assert count(db) == 0
    added = gm.post(base + "/content/scenario", {"name": "Gué", **fields},
                    csrf_path=base + "/content")
    assert added.status_code == 303, added.text
    row = gm.page(base + "/content").select_one("#kind-scenario table.content-items tbody tr")
    assert "Gué" in row.text and "3 lines" in row.text
    item_id = row["id"].removeprefix("item-")
    edit = gm.page(f"{base}/content/items/{item_id}/edit")
    assert edit.select_one("textarea[name=prey]").text.startswith("aurochs 28 10")
    compendium = gm.page(base + "/compendium")
    own = compendium.select("#compendium-scenario tr.own")
    assert [row.select_one("th").text.split()[0] for row in own] == ["Gué"]
    assert "2 × Aurochs" in own[0].text


def test_the_gm_saves_the_table_ground_from_the_match_page(web, db):
    gm = web("mia")
    made = gm.post("/campaigns", {"name": "Tribu", "system": "chasse"}, csrf_path="/campaigns")
    base = made.headers["location"]
    opened = gm.client.post(base + "/matches", data={
        "csrf_token": gm.csrf(), "name": "Vallée", "width": "48", "height": "36",
        "unit": "in"}, follow_redirects=False)
    assert opened.status_code == 303, opened.text
    url = opened.headers["location"]
    # An empty ground (no prey, no camp) is refused with the reason, nothing stored.
    page = gm.page(url)
    form = page.select_one("#save-content form")
    assert form["action"] == f"{base}/content/from-match/{url.rsplit('/', 1)[1]}"
    refused = gm.post(form["action"], {"name": "Vide"}, csrf_path=url)
    assert refused.status_code == 422
    assert "The hunters need a camp" in soup(refused).select_one("#table-alert").text
    assert count(db) == 0
    done = gm.client.post(url + "/actions", data={"csrf_token": gm.csrf(),
                                                  "kind": "choose_scenario",
                                                  "scenario": "vallee"},
                          follow_redirects=False)
    assert done.status_code == 303, done.text
    saved = gm.post(form["action"], {"name": "Ma vallée"}, csrf_path=url)
    assert saved.status_code == 303
    assert saved.headers["location"].startswith(f"{base}/content#item-")
    row = gm.page(base + "/content").select_one("#kind-scenario tbody tr")
    assert "Ma vallée" in row.text


def test_a_hunt_opens_with_its_scenario_over_the_api(tribe, db):
    """« Lancer une chasse » over the API: ``options.scenario`` sets the scenario up as the
    match opens (a GM's or a ready one); an unknown one opens nothing."""
    gm, base = tribe
    key = add_ground(gm, base).json()["key"]
    opened = gm.post(base + "/matches", json={"name": "Au gué",
                                              "options": {"scenario": key}})
    assert opened.status_code == 201, opened.text
    state = opened.json()["state"]
    assert state["scenario"]["key"] == key and state["board"]["north"] == "right"
    assert [t["species"] for t in state["tokens"].values() if t["kind"] == "prey"] == [
        "aurochs", "aurochs", "gm-mammouth-laineux"]
    assert state["status"] == "setup"  # the GM may still change the tables, then begin
    log = gm.get(f"{base}/matches/{opened.json()['id']}/log").json()["events"]
    assert [e["kind"] for e in log][:3] == ["match_started", "scenario_set", "prey_added"]
    ready = gm.post(base + "/matches", json={"name": "Vallée",
                                             "options": {"scenario": "vallee"}})
    assert ready.json()["state"]["scenario"]["key"] == "vallee"
    before = len(gm.get(base + "/matches").json())
    refused = gm.post(base + "/matches", json={"name": "?", "options": {"scenario": "nulle"}})
    assert refused.status_code == 422, refused.text
    assert len(gm.get(base + "/matches").json()) == before


def test_start_a_hunt_from_the_content_page_and_the_compendium(web, db):
    gm = web("mia")
    made = gm.post("/campaigns", {"name": "Tribu", "system": "chasse"}, csrf_path="/campaigns")
    base = made.headers["location"]
    gm.post(base + "/content/scenario", {"name": "Gué", **GROUND,
                                         "prey": "aurochs 28 10 harde dominant"},
            csrf_path=base + "/content")
    row = gm.page(base + "/content").select_one("#kind-scenario tbody tr")
    start = row.select_one("a.start-match")
    assert start.text == "Start a hunt"
    assert start["href"] == f"{base}/matches?scenario=gm-gue#new-match"
    links = [a["href"] for a in gm.page(base + "/compendium").select(
        "#compendium-scenario a.start-match")]
    assert f"{base}/matches?scenario=vallee#new-match" in links
    assert f"{base}/matches?scenario=gm-gue#new-match" in links
    assert not gm.page(base + "/compendium").select("#compendium-prey a.start-match")
    form = gm.page(start["href"].split("#")[0]).select_one("form#new-match")
    assert form.select_one("input[name=scenario]")["value"] == "gm-gue"
    assert form.select_one("input[name=name]")["value"] == "Gué"
    assert "Gué" in form.select_one(".start-from").text
    fields = {field["name"]: field.get("value", "") for field in form.select("input")
              if field.get("type") != "checkbox"}
    fields["unit"] = form.select_one("select[name=unit] option[selected]")["value"]
    opened = gm.client.post(base + "/matches", data=fields, follow_redirects=False)
    assert opened.status_code == 303, opened.text
    page = gm.page(opened.headers["location"])
    assert page.select_one("#action-choose_scenario") is not None  # still the GM's to change
    assert page.select_one("#action-choose_scenario option[selected]")["value"] == "gm-gue"
    assert "Gué" in page.text and "Aurochs" in page.text
    # An unknown scenario in the address: the ordinary form.
    plain = gm.page(base + "/matches?scenario=nulle").select_one("form#new-match")
    assert plain.select_one("input[name=scenario]") is None


def test_the_demo_campaign_ships_a_gm_scenario_to_start_a_hunt_from(settings, db, new_client):
    from app.models import Campaign
    from app.services import demo

    demo.ensure_demo(settings)
    db.commit()
    campaign = db.scalar(select(Campaign).where(Campaign.system == "chasse"))
    items = db.scalars(select(CustomContent).where(
        CustomContent.campaign_id == campaign.id)).all()
    assert [(item.kind, item.name) for item in items] == [("scenario", "Le gué des aurochs")]
    content = {"scenario": [{**items[0].data, "key": items[0].key, "name": items[0].name}]}
    assert items[0].key in scenarios(content)  # it passes the checks of the ready ones
    client = new_client(language="fr")
    assert client.post("/login", data={"username": demo.GM_USERNAME,
                                       "password": demo.DEMO_PASSWORD,
                                       "csrf_token": _csrf(client, "/login")}).status_code < 400
    page = soup(client.get(f"/campaigns/{campaign.id}/content"))
    row = page.select_one("#kind-scenario tbody tr")
    assert "Le gué des aurochs" in row.text
    assert row.select_one("a.start-match").text == "Lancer une chasse"
    demo.ensure_demo(settings)  # a second run adds nothing
    db.commit()
    assert count(db) == 1


def _csrf(client, path):
    from tests.helpers import csrf_from

    return csrf_from(client.get(path))


def test_the_gm_changes_the_house_movement_profiles_of_the_campaign(tribe, db):
    """Issue 25: the movement table is missing from the text, so its numbers are house ones
    the GM may change for the campaign, like every other: a Pataud's Dmax and mass, a prey
    speed class's Dmax. A hunt opened afterwards plays them; a speed class has no mass (the
    species has it): refused by its field, nothing stored."""
    gm, base = tribe
    added = gm.post(base + "/content/profile", json={"name": "Pataud lent", "data": {
        "profile": "pataud", "dmax": 4, "masse": 4}})
    assert added.status_code == 201, added.text
    quick = gm.post(base + "/content/profile", json={"name": "Lourdauds vifs", "data": {
        "profile": "lourdaud", "dmax": 7}})
    assert quick.status_code == 201, quick.text
    before = count(db)
    refused = gm.post(base + "/content/profile", json={"name": "Faux", "data": {
        "profile": "rapide", "dmax": 9, "masse": 2}})
    assert refused.status_code == 422 and refused.json()["error"]["field"] == "masse"
    assert count(db) == before
    bronk = gm.post(base + "/characters", json={"name": "Bronk", "sheet": {
        "profile": "pataud", "shaman": False, "weapons": ["lance"], "wounds": 3, "food": 0,
        "hunts": 0, "dead": False}})
    assert bronk.status_code == 201, bronk.text  # M4 here: 3 wounds are not death
    match = gm.post(base + "/matches", json={"name": "Lents", "character_ids": [
        bronk.json()["id"]]}).json()
    url = f"{base}/matches/{match['id']}"
    done = gm.post(url + "/actions", json={"action": {"kind": "add_prey", "species":
                                                      "gm-mammouth-laineux", "x": 5, "y": 5}})
    assert done.status_code == 200, done.text
    tokens = gm.get(url).json()["state"]["tokens"]
    hunter = next(t for t in tokens.values() if t["kind"] == "hunter")
    mammoth = next(t for t in tokens.values() if t["kind"] == "prey")
    assert (hunter["dmax"], hunter["masse"]) == (4, 4) and mammoth["dmax"] == 7
