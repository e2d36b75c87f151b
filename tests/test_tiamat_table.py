"""Tiamat through the real table engine: the Shanghai warehouse fight with fold(log) ==
snapshot after every step, rewind and redo, the sheets written back at the end (furie
lost); then the JSON API (legal forms, a refusal in the user's language) and the HTML pages
(table, sheet, printable sheet)."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup
from sqlalchemy import select, update

from app.models import Character, Match, Roll, User
from app.rules.dice import ScriptedDice
from app.rules.tiamat.profiles import jin, voyous
from app.rules.tiamat.sheet import jack
from app.services import tables
from tests.helpers import form_actions, open_match_page
from tests.seating import campaign_access, campaign_with_players, user_ids
from tests.table_harness import Step, assert_rewind_and_redo_round_trip, play

pytest_plugins = ["tests.match_fixtures"]

SECRET = "test-secret"


@pytest.fixture
def warehouse(db, api):
    """GM Christophe, Nicolas plays Jack; the GM's voyous and Jin Chun-Fung."""
    users = {name: api(name) for name in ("christophe", "nicolas")}
    campaign = campaign_with_players(db, users["christophe"].id, [users["nicolas"].id],
                                     name="Tiamat", system="tiamat")
    hero = Character(campaign_id=campaign.id, owner_id=users["nicolas"].id, name="Jack",
                     sheet=jack())
    thugs = Character(campaign_id=campaign.id, name="Voyous", sheet=voyous())
    boss = Character(campaign_id=campaign.id, name="Jin Chun-Fung", sheet=jin())
    db.add_all([hero, thugs, boss])
    db.commit()
    access = campaign_access(db, {name: user.id for name, user in users.items()}, campaign.id)
    match = tables.create_match(db=db, secret=SECRET, access=access["christophe"],
                                name="Entrepôt n°8", character_ids=[hero.id, thugs.id],
                                options={}, dice=ScriptedDice([]))
    return access, match, hero.id, users


def test_the_warehouse_fight_folds_to_the_snapshot(db, warehouse):
    access, match, hero, _users = warehouse
    gm, nicolas = access["christophe"], access["nicolas"]
    play(db, SECRET, match, [
        Step(gm, {"kind": "roll_initiative"}, [3, 8, 5]),
        Step(nicolas, {"kind": "manoeuvre", "what": "move"}),
        Step(nicolas, {"kind": "attack", "technique": "oi_zuki", "target": "p2"}),
        # Jack has no action left: his turn passes by itself.
        Step(gm, {"kind": "defend", "technique": "instinctive"}, [7, 3, 2, 10, 2, 4, 6]),
        # The voyous' kick ends the round: the next one opens by itself (9, 4 and 5).
        Step(gm, {"kind": "attack", "technique": "coup_de_pied", "target": "p1",
                  "gm_modifier": 1}, [1, 4, 5, 7, 2, 3, 3, 10, 3, 9, 4, 5]),
    ])
    db.refresh(match)
    assert match.state["participants"]["p2"]["down"] == 1
    assert match.state["participants"]["p1"]["sante"] == 17
    assert match.state["participants"]["p1"]["furie"] == 1
    rolls = db.scalars(select(Roll).where(Roll.match_id == match.id)).all()
    assert [roll.record["total"] for roll in rolls][:3] == [8, 5, 9]
    assert_rewind_and_redo_round_trip(db, gm, match, to_seq=5)
    play(db, SECRET, match, [Step(gm, {"kind": "end_match"})])
    db.refresh(match)
    assert match.status == "finished" and match.state["round"] == 2
    db.expire_all()
    sheet = db.get(Character, hero).sheet
    assert (sheet["sante"], sheet["furie"], sheet["energie"]) == (17, 0, 32)


def test_the_json_api_gives_the_legal_forms_and_refuses_without_change(db, warehouse,
                                                                       libre_dice):
    _access, match, _hero, users = warehouse
    base = f"/campaigns/{match.campaign_id}/matches/{match.id}"
    nicolas = users["nicolas"].get(base).json()
    kinds = {form["kind"] for form in nicolas["legal_actions"]}
    assert "roll_initiative" not in kinds and "attack" not in kinds and "test" in kinds
    libre_dice.script(3, 8, 5)
    assert users["christophe"].post(base + "/actions", json={"action": {
        "kind": "roll_initiative"}}).status_code == 200
    state = users["nicolas"].get(base).json()
    assert state["state"]["order"] == ["p1", "p2"] and state["state"]["turn"] == "p1"
    attack = next(f for f in state["legal_actions"] if f["kind"] == "attack")
    assert "oi_zuki" in attack["choices"]["techniques"]
    assert "nidan_geri" not in attack["choices"]["techniques"]
    assert "visee" not in attack["choices"]["techniques"]  # no gun in hand
    refused = users["nicolas"].post(base + "/actions", json={"action": {
        "kind": "attack", "technique": "nidan_geri", "target": "p2"}})
    assert refused.status_code == 422
    assert "Nidan geri" in refused.text
    assert users["christophe"].get(base).json()["state"] == state["state"]


@pytest.fixture
def warehouse_page(db, web, libre_dice):
    people = {name: web(name) for name in ("christophe", "nicolas")}
    ids = user_ids(db, people)
    campaign = campaign_with_players(db, ids["christophe"], [ids["nicolas"]], name="Tiamat",
                                     system="tiamat")
    hero = Character(campaign_id=campaign.id, owner_id=ids["nicolas"], name="Jack",
                     sheet=jack())
    thugs = Character(campaign_id=campaign.id, name="Voyous", sheet=voyous())
    db.add_all([hero, thugs])
    db.execute(update(User).values(locale="fr"))
    db.commit()
    return people, campaign.id, hero.id, thugs.id, libre_dice


def open_warehouse_match(warehouse_page) -> str:
    """Christophe opens "Entrepôt n°8" from the page, Jack against the thugs; its URL."""
    people, campaign_id, hero, thugs, _dice = warehouse_page
    return open_match_page(people["christophe"], campaign_id, "Entrepôt n°8", [hero, thugs])


def test_the_table_page_plays_the_first_blow_in_french(db, warehouse_page):
    people, *_, dice = warehouse_page
    gm, nicolas = people["christophe"], people["nicolas"]
    url = open_warehouse_match(warehouse_page)
    page = BeautifulSoup(gm.client.get(url).text, "html.parser")
    assert page.select_one("#action-roll_initiative") is not None
    assert "Voyous" in page.select_one(".participants").text
    dice.script(3, 8, 5)
    assert gm.client.post(url + "/actions", data={"csrf_token": gm.csrf(),
                                                  "kind": "roll_initiative"},
                          follow_redirects=False).status_code == 303
    page = BeautifulSoup(nicolas.client.get(url).text, "html.parser")
    form = page.select_one("#action-attack")
    assert form is not None
    options = [o["value"] for o in form.select("select[name=technique] option")]
    assert "oi_zuki" in options and "mae_geri" in options and "age_uke" not in options
    assert nicolas.client.post(url + "/actions", data={
        "csrf_token": nicolas.csrf(), "kind": "attack", "technique": "oi_zuki",
        "target": "p2"}, follow_redirects=False).status_code == 303
    page = BeautifulSoup(gm.client.get(url).text, "html.parser")
    assert page.select_one("#action-defend") is not None
    assert "choisit sa défense" in page.select_one(".participants").text
    dice.script(7, 3, 2, 10, 2, 4, 6)
    assert gm.client.post(url + "/actions", data={
        "csrf_token": gm.csrf(), "kind": "defend", "technique": "instinctive"},
        follow_redirects=False).status_code == 303
    page = BeautifulSoup(nicolas.client.get(url).text, "html.parser")
    text = page.text
    assert "précision 9 contre 2" in text and "Localisation tête" in text
    assert "Un homme de main est hors de combat (KO)" in text
    assert "3 hommes de main debout sur 4" in page.select_one(".participants").text


def test_the_sheet_pages_render_in_french(db, warehouse_page):
    people, campaign_id, hero, _thugs, _dice = warehouse_page
    nicolas = people["nicolas"]
    view = BeautifulSoup(nicolas.client.get(
        f"/campaigns/{campaign_id}/characters/{hero}").text, "html.parser")
    sheet = view.select_one(".sheet-tiamat")
    assert sheet is not None
    assert "Oi zuki" in sheet.text and "Habileté +2" in sheet.text
    assert "Vivacité du chat" in sheet.text and "Arbre des prérequis" in sheet.text
    effects = [" ".join(li.stripped_strings) for li in sheet.select(".talent-effects li")]
    assert "Vivacité du chat — se relever ne coûte pas d'action (règle maison)" in effects
    assert len(effects) == 3  # Transfert d'énergie, Sursaut d'énergie, Vivacité du chat
    derived = {value["data-key"]: value.text
               for value in view.select(".sheet-tiamat .derived-value[data-key]")}
    assert derived["sante_max"] == "26" and derived["energie_max"] == "32"
    edit = BeautifulSoup(nicolas.client.get(
        f"/campaigns/{campaign_id}/characters/{hero}/edit").text, "html.parser")
    assert edit.select_one("#sheet-char-force")["value"] == "3"
    assert edit.select_one("input[name=technique_oi_zuki]").has_attr("checked")
    printed = nicolas.client.get(f"/campaigns/{campaign_id}/characters/{hero}/print")
    assert printed.status_code == 200 and "Défense instinctive" in printed.text


def test_the_live_panel_follows_the_characteristics(db, warehouse_page):
    people, campaign_id, hero, _thugs, _dice = warehouse_page
    nicolas = people["nicolas"]
    edit = BeautifulSoup(nicolas.client.get(
        f"/campaigns/{campaign_id}/characters/{hero}/edit").text, "html.parser")
    fields: dict[str, str] = {}
    for field in edit.select("form [name]"):
        if field.name == "select":
            chosen = field.select_one("option[selected]") or field.select_one("option")
            fields[field["name"]] = chosen.get("value", "") if chosen else ""
        elif field.get("type") == "checkbox":
            if field.has_attr("checked"):
                fields[field["name"]] = field.get("value", "on")
        elif field.name == "textarea":
            fields[field["name"]] = field.text
        elif field.get("type") != "submit":
            fields[field["name"]] = field.get("value", "")
    fields.update(char_endurance="3", char_force="2", csrf_token=nicolas.csrf())
    panel = BeautifulSoup(nicolas.client.post(
        f"/campaigns/{campaign_id}/characters/{hero}/sheet-preview", data=fields).text,
        "html.parser")
    derived = {dd["data-key"]: dd.text for dd in panel.select("dd.derived-value")}
    assert derived["sante_max"] == "35"  # 3 x 10 + 2 + 3
    fields.update(char_force="4")  # 20 points now
    panel = nicolas.client.post(f"/campaigns/{campaign_id}/characters/{hero}/sheet-preview",
                                data=fields).text
    text = BeautifulSoup(panel, "html.parser").text
    assert "répartit 18 points" in text and "(20 actuellement)" in text, text


def test_secret_orders_reach_only_their_writer_and_the_gm(db, warehouse_page):
    from tests.test_match_stream import first_state, read_messages

    people, campaign_id, hero, _thugs, dice = warehouse_page
    gm, nicolas = people["christophe"], people["nicolas"]
    twin = jack() | {"kind": "pnj"}
    dante = Character(campaign_id=campaign_id, name="Dante", sheet=twin)
    db.add(dante)
    db.commit()
    url = open_match_page(gm, campaign_id, "Duel", [hero, dante.id])
    dice.script(8, 2, 8, 3)  # 8 and 8, Rapidité 2 and 2: simultaneous
    gm.client.post(url + "/actions", data={"csrf_token": gm.csrf(), "kind": "roll_initiative"})
    page = BeautifulSoup(nicolas.client.get(url).text, "html.parser")
    assert page.select_one("#action-write_orders") is not None
    assert nicolas.client.post(url + "/actions", data={
        "csrf_token": nicolas.csrf(), "kind": "write_orders", "participant": "p1",
        "orders": "Oi zuki puis Mae geri"}, follow_redirects=False).status_code == 303
    assert gm.client.post(url + "/actions", data={
        "csrf_token": gm.csrf(), "kind": "write_orders", "participant": "p2",
        "orders": "Coup de pied sournois"}, follow_redirects=False).status_code == 303
    page = nicolas.client.get(url).text
    assert "Oi zuki puis Mae geri" in page and "sournois" not in page
    api = nicolas.client.get("/api/v1" + url)
    assert api.status_code == 200, api.text
    assert "sournois" not in api.text and api.json()["state"]["orders"]["p2"] == ""
    with nicolas.client.stream("GET", url + "/stream",
                               headers={"Last-Event-ID": "0"}) as response:
        raw = "\n".join(m.data for m in read_messages(response, first_state))
    assert "Oi zuki puis Mae geri" in raw and "sournois" not in raw
    assert "sournois" in gm.client.get(url).text
    gm.client.post(url + "/actions", data={"csrf_token": gm.csrf(), "kind": "reveal_orders"})
    assert "Coup de pied sournois" in nicolas.client.get(url).text


def test_the_gm_corrects_with_the_words_the_page_shows_and_the_log_says_them(
        db, warehouse_page):
    """« à terre », « sonné », « oui » typed as the help says; the log reads them back in
    words (never a_terre, sonne, True); an unknown word is refused in French, nothing
    changed."""
    people, *_, dice = warehouse_page
    gm = people["christophe"]
    url = open_warehouse_match(warehouse_page)
    help_text = BeautifulSoup(gm.client.get(url).text, "html.parser").select_one(
        "#action-gm_adjust").text
    assert "debout ou à terre" in help_text and "a_terre" not in help_text
    act = form_actions(url, dice)
    for field, value in (("posture", "à terre"), ("state", "Sonné"), ("ko", "oui")):
        act(gm, kind="gm_adjust", participant="p1", field=field, value=value, rounds="2")
    text = " ".join(BeautifulSoup(gm.client.get(url).text, "html.parser").stripped_strings)
    assert "Jack, posture debout → à terre." in text
    assert "Jack, états aucun → sonné." in text
    assert "Jack, KO non → oui." in text
    assert not {"a_terre", "sonne", "True", "False"} & set(text.replace(".", " ").split())
    refused = gm.client.post(url + "/actions", data={
        "csrf_token": gm.csrf(), "kind": "gm_adjust", "participant": "p1",
        "field": "posture", "value": "couché"}, follow_redirects=False)
    assert refused.status_code == 422
    assert "« Valeur » : attendu : l'un de debout, à terre" in BeautifulSoup(
        refused.text, "html.parser").text
    after = " ".join(BeautifulSoup(gm.client.get(url).text, "html.parser").stripped_strings)
    assert after.count("Correction du MJ") == 3


def test_an_english_reader_gets_the_special_rules_in_english(db, warehouse_page):
    people, campaign_id, hero, _thugs, _dice = warehouse_page
    nicolas = people["nicolas"]
    db.execute(update(User).values(locale="en"))
    db.commit()
    view = BeautifulSoup(nicolas.client.get(
        f"/campaigns/{campaign_id}/characters/{hero}").text, "html.parser")
    standard = {row.th.contents[0].strip(): row.select_one("td.special").text
                for row in view.select(".tiamat-standard tr.technique")}
    assert standard["Lancer de projectile"] == (
        "Weapon: An object. The longest throw is Force × 2 metres.")
    assert "Aucune" not in view.select_one(".sheet-tiamat dl").text


def test_the_page_counts_ammunition_ends_states_and_tests_rough_ground(db, warehouse_page):
    """Issue 11 leftovers on the French page: Jack's 9 mm shows its magazine and loses a
    round per shot (« Munitions »), a state set for a while ends by itself with a log line,
    and running in a forest rolls Habileté + Course (« Course »)."""
    people, *_, dice = warehouse_page
    gm, nicolas = people["christophe"], people["nicolas"]
    url = open_warehouse_match(warehouse_page)

    def post(who, **data):
        response = who.client.post(url + "/actions", data={"csrf_token": who.csrf(), **data},
                                   follow_redirects=False)
        assert response.status_code == 303, response.text

    def text(who) -> str:
        return " ".join(BeautifulSoup(who.client.get(url).text,
                                      "html.parser").stripped_strings)

    assert "Pistolet 9 mm : munitions 15/15" in text(nicolas)
    dice.script(3, 8, 5)
    post(gm, kind="roll_initiative")
    post(nicolas, kind="manoeuvre", what="draw", weapon="pistolet_9mm")
    post(nicolas, kind="attack", technique="visee", target="p2")
    dice.script(2, 1, 5)
    post(gm, kind="defend", technique="instinctive")
    page = text(nicolas)
    assert "Pistolet 9 mm : 1 munition tirée, reste 14." in page
    assert "Pistolet 9 mm en main : munitions 14/15" in page
    post(gm, kind="gm_adjust", participant="p1", field="state", value="sonné", rounds="0")
    assert "sonné jusqu'au tour 1" in text(gm)
    dice.script(8, 1, 5)
    post(gm, kind="roll_initiative")
    page = text(nicolas)
    assert "Voyous 5. Fin pour Jack : sonné." in page and "sonné jusqu'au tour" not in page
    dice.script(1, 4)
    post(nicolas, kind="manoeuvre", what="run", terrain="foret")
    assert "Terrain difficile : Habileté + Course 5 contre 6 — tombe à terre." in text(nicolas)


def test_the_log_says_one_hour_and_three_hours_of_rest(db, warehouse_page):
    """« 1 heure de repos », « 3 heures de sommeil »: real plurals, never « heure(s) »."""
    people, *_, dice = warehouse_page
    gm = people["christophe"]
    url = open_warehouse_match(warehouse_page)
    act = form_actions(url, dice)
    for what, amount in (("rest_hours", "1"), ("sleep_hours", "3"), ("calm", "1")):
        act(gm, kind="recover", participant="p1", what=what, amount=amount)
    log = " ".join(BeautifulSoup(gm.client.get(url).text, "html.parser").select_one(
        "#log").stripped_strings)
    assert ": 1 heure de repos." in log and ": 3 heures de sommeil." in log
    assert ": une heure sans combattre." in log


def test_a_held_fighter_is_refused_everything_but_breaking_free_on_the_page_and_the_api(
        db, warehouse_page):
    """« Soumission »: the server refuses the held fighter's attack and move whatever sends
    them — the page's form or the JSON API (cookie and CSRF header) — saying why, and
    nothing changes."""
    from tests.rules.test_tiamat_techniques import fighter

    people, campaign_id, hero, _thugs, dice = warehouse_page
    gm, nicolas = people["christophe"], people["nicolas"]
    wrestler = Character(campaign_id=campaign_id, name="Lutteur", sheet=fighter(
        "immobilisation"))
    db.add(wrestler)
    db.commit()
    url = open_match_page(gm, campaign_id, "Prise", [hero, wrestler.id])
    act = form_actions(url, dice)
    act(gm, (1, 1, 9, 1, 1, 1), kind="roll_initiative")  # the wrestler first
    act(gm, (), kind="attack", technique="immobilisation", target="p1")
    act(nicolas, (9, 1, 1, 1, 2, 5), kind="defend", technique="instinctive")
    act(gm, (), kind="end_turn")
    match_id = int(url.rstrip("/").rsplit("/", 1)[1])
    before = db.get(Match, match_id).seq
    page = nicolas.client.post(url + "/actions", data={
        "csrf_token": nicolas.csrf(), "kind": "attack", "technique": "oi_zuki",
        "target": "p2"}, headers={"HX-Request": "true"})
    assert "Jack est immobilisé : il ne peut que tenter de se libérer" in page.text
    api = nicolas.client.post(f"/api/v1{url}/actions", json={"action": {
        "kind": "manoeuvre", "what": "move"}}, headers={"X-CSRF-Token": nicolas.csrf()})
    assert api.status_code == 422 and "Jack est immobilisé" in api.text
    db.expire_all()
    assert db.get(Match, match_id).seq == before
    forms = BeautifulSoup(nicolas.client.get(url).text, "html.parser")
    assert forms.select_one("#action-escape") is not None
    assert forms.select_one("#action-attack") is None
