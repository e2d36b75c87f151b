"""Cyborg Anti-Alien through the real table engine: a whole scripted fight and a chase with
fold(log) == snapshot after every step, rewind and redo, the sheets written back at the end of
the mission; then the JSON API and the table page."""

from __future__ import annotations

import copy

import pytest
from bs4 import BeautifulSoup
from sqlalchemy import select, update

from app.models import Character, User
from app.rules.cyborg.profiles import PROFILES
from app.rules.dice import ScriptedDice
from app.services import tables
from tests.helpers import form_actions, open_match_page
from tests.seating import campaign_access, campaign_with_players, user_ids
from tests.table_harness import Step, assert_rewind_and_redo_round_trip, play

SECRET = "test-secret"


def door_cyborg() -> dict:
    sheet = copy.deepcopy(PROFILES["kenji"].sheet)
    sheet["characteristics"]["force"] = 13  # the seed's armoured-door cyborg
    return sheet


@pytest.fixture
def lab(db, api):
    """A cyborg campaign: GM Mia, Paul plays Kenji, the GM's octopus alien."""
    users = {name: api(name) for name in ("mia", "paul")}
    campaign = campaign_with_players(db, users["mia"].id, [users["paul"].id], name="KCA",
                                     system="cyborg")
    kenji = Character(campaign_id=campaign.id, owner_id=users["paul"].id, name="Kenji",
                      sheet=door_cyborg())
    octopus = Character(campaign_id=campaign.id, owner_id=None, name="Pieuvre",
                        sheet=copy.deepcopy(PROFILES["pieuvre"].sheet))
    db.add_all([kenji, octopus])
    db.commit()
    access = campaign_access(db, {name: user.id for name, user in users.items()}, campaign.id)
    match = tables.create_match(db=db, secret=SECRET, access=access["mia"], name="Labo",
                                character_ids=[kenji.id, octopus.id],
                                options={"width": 40, "height": 30, "unit": "sq"},
                                dice=ScriptedDice([]))
    return access, match, kenji.id, octopus.id, users


def test_a_scripted_fight_and_chase_fold_to_the_snapshot(db, lab):
    access, match, kenji, octopus, _users = lab
    gm, paul = access["mia"], access["paul"]
    play(db, SECRET, match, [
        Step(gm, {"kind": "test", "token": "t1", "characteristic": "force", "malus": 3}, [9]),
        Step(gm, {"kind": "roll_initiative"}),
        Step(paul, {"kind": "attack", "token": "t1", "weapon": "fusil_a_canon_scie",
                    "target": "t2", "shots": 2, "mod_obscurite": "on"}, [23, 80, 40, 55]),
        # Kenji has acted: the aliens' turn comes by itself. The octopus throws itself on
        # Kenji (13, 3): its tentacles need contact. Then round 2, by itself too.
        Step(gm, {"kind": "move", "token": "t2", "x": 14, "y": 3}),
        Step(gm, {"kind": "attack", "token": "t2", "weapon": "tentacules", "target": "t1"},
             [30, 20]),
        Step(gm, {"kind": "add_participant", "profile": "infiltre", "x": 30, "y": 10}),
        Step(gm, {"kind": "start_chase", "pursuer": "t1", "quarry": "t3", "mode": "foot",
                  "distance": "moyenne"}),
        Step(gm, {"kind": "chase_round"}, [5, 18]),
        Step(gm, {"kind": "end_chase"}),
        Step(paul, {"kind": "attack", "token": "t1", "weapon": "tronconneuse",
                    "target": "t2"}, [12, 5, 15]),
    ])
    db.refresh(match)
    state = match.state
    assert "dead" in state["tokens"]["t2"]["states"]
    assert state["tokens"]["t2"]["sante"] == -3
    assert state["tokens"]["t1"]["magazines"]["fusil_a_canon_scie"] == 0
    assert state["chase"] is None
    assert_rewind_and_redo_round_trip(db, gm, match, to_seq=6)
    play(db, SECRET, match, [Step(gm, {"kind": "end_mission"}, [4])])
    db.refresh(match)
    assert match.status == "finished"
    db.expire_all()
    sheet = db.get(Character, kenji).sheet
    assert (sheet["sante"], sheet["sante_max"], sheet["missions"]) == (42, 42, 1)
    assert db.get(Character, octopus).sheet["fate"] == "dead"


def test_the_rolls_are_signed_into_the_campaign_log(db, lab):
    from app.models import Roll

    access, match, *_ = lab
    play(db, SECRET, match, [Step(access["mia"], {"kind": "roll_initiative"}),
                             Step(access["paul"], {"kind": "move", "token": "t1", "x": 26,
                                                   "y": 3}),
                             Step(access["paul"], {"kind": "attack", "token": "t1",
                                                   "weapon": "poing", "target": "t2"},
                                  [23, 80])])
    rolls = db.scalars(select(Roll).where(Roll.match_id == match.id)).all()
    assert [roll.record["total"] for roll in rolls] == [23, 80]


def test_the_json_api_gives_the_state_and_legal_forms(db, lab):
    _access, match, _kenji, _octopus, users = lab
    base = f"/campaigns/{match.campaign_id}/matches/{match.id}"
    paul = users["paul"].get(base).json()
    kinds = {form["kind"] for form in paul["legal_actions"]}
    assert {"move", "test", "note"} <= kinds and "roll_initiative" not in kinds
    assert users["mia"].post(base + "/actions", json={"action": {
        "kind": "roll_initiative"}}).status_code == 200
    paul = users["paul"].get(base).json()
    attack = next(f for f in paul["legal_actions"] if f["kind"] == "attack")
    assert attack["choices"]["tokens"] == ["t1"]
    assert "poing" in dict(attack["choices"]["weapons"]["t1"])
    refused = users["paul"].post(base + "/actions", json={"action": {
        "kind": "attack", "token": "t2", "weapon": "tentacules", "target": "t1"}})
    assert refused.status_code == 422


@pytest.fixture
def lab_page(db, web, libre_dice):
    people = {name: web(name) for name in ("mia", "paul")}
    ids = user_ids(db, people)
    campaign = campaign_with_players(db, ids["mia"], [ids["paul"]], name="KCA",
                                     system="cyborg")
    kenji = Character(campaign_id=campaign.id, owner_id=ids["paul"], name="Kenji",
                      sheet=door_cyborg())
    octopus = Character(campaign_id=campaign.id, name="Pieuvre",
                        sheet=copy.deepcopy(PROFILES["pieuvre"].sheet))
    db.add_all([kenji, octopus])
    db.execute(update(User).values(locale="en"))
    db.commit()
    return people, campaign.id, kenji.id, octopus.id, libre_dice


def open_lab_match(lab_page) -> str:
    """Mia opens "Labo" from the page: Kenji and the octopus on 40 × 30 squares; its URL."""
    people, campaign_id, kenji, octopus, _dice = lab_page
    return open_match_page(people["mia"], campaign_id, "Labo", [kenji, octopus],
                           width="40", height="30", unit="sq")


def test_the_table_page_plays_an_attack(db, lab_page):
    people, *_, dice = lab_page
    mia, paul = people["mia"], people["paul"]
    url = open_lab_match(lab_page)
    page = BeautifulSoup(mia.client.get(url).text, "html.parser")
    assert page.select_one("#action-roll_initiative") is not None
    assert "Pieuvre" in page.select_one(".participants").text
    assert mia.client.post(url + "/actions", data={"csrf_token": mia.csrf(),
                                                   "kind": "roll_initiative"},
                           follow_redirects=False).status_code == 303
    page = BeautifulSoup(paul.client.get(url).text, "html.parser")
    form = page.select_one("#action-attack")
    assert form is not None and form.select_one("input[name=mod_obscurite]") is not None
    # Only Kenji's own weapons; the octopus is far: his shotgun is proposed, not his
    # chainsaw; « Cible » never the attacker.
    offered = [option["value"] for option in form.select("select[name=armed] option")]
    assert offered[0] == "t1:tronconneuse" and "t1:poing" in offered
    assert all(value.startswith("t1:") for value in offered)
    assert form.select_one("select[name=armed] option[selected]")["value"] == \
        "t1:fusil_a_canon_scie"
    assert [o["value"] for o in form.select("select[name=target] option")] == ["t2"]
    assert form.select_one("select[name=target] option[selected]")["value"] == "t2"
    # Kenji walks up to the octopus (27, 3): a fist needs contact.
    assert paul.client.post(url + "/actions", data={
        "csrf_token": paul.csrf(), "kind": "move", "token": "t1", "x": "26", "y": "3"},
        follow_redirects=False).status_code == 303
    dice.script(23, 80)
    done = paul.client.post(url + "/actions", data={
        "csrf_token": paul.csrf(), "kind": "attack", "armed": "t1:poing",
        "target": "t2", "shots": "1"}, follow_redirects=False)
    assert done.status_code == 303, done.text
    page = BeautifulSoup(paul.client.get(url).text, "html.parser")
    log = page.select(".log-line, li.log-entry, #log li")
    text = " ".join(line.text for line in log) or page.text
    assert "attacks with Punch" in text and "damage table D × resistance 3 = 5" in text
    assert "22" in page.select_one(".participants").text or "25" in page.select_one(
        ".participants").text
    paul.post("/account", {"display_name": "Paul", "locale": "fr"})
    french = BeautifulSoup(paul.client.get(url).text, "html.parser")
    assert "attaque avec Coup de poing" in french.text
    assert "tableau des dégâts D × résistance 3 = 5" in french.text


def test_the_sheet_pages_render(db, lab_page):
    people, campaign_id, kenji, _octopus, _dice = lab_page
    paul, mia = people["paul"], people["mia"]
    view = BeautifulSoup(paul.client.get(f"/campaigns/{campaign_id}/characters/{kenji}").text,
                         "html.parser")
    assert view.select_one(".sheet-cyborg") is not None
    assert "Esquive/Parade" in view.text
    edit = BeautifulSoup(paul.client.get(
        f"/campaigns/{campaign_id}/characters/{kenji}/edit").text, "html.parser")
    assert edit.select_one("#sheet-char-force").has_attr("readonly")
    gm_edit = BeautifulSoup(mia.client.get(
        f"/campaigns/{campaign_id}/characters/{kenji}/edit").text, "html.parser")
    assert not gm_edit.select_one("#sheet-char-force").has_attr("readonly")
    printed = paul.client.get(f"/campaigns/{campaign_id}/characters/{kenji}/print")
    assert printed.status_code == 200 and "Programme du cyborg" in printed.text


def _form_fields(form) -> dict[str, str]:
    """What a browser would post for this form, untouched."""
    fields: dict[str, str] = {}
    for field in form.select("input[name], select[name], textarea[name]"):
        name = field["name"]
        if field.name == "select":
            chosen = field.select_one("option[selected]") or field.select_one("option")
            fields[name] = chosen.get("value", "") if chosen else ""
        elif field.get("type") == "checkbox":
            if field.has_attr("checked"):
                fields[name] = field.get("value", "on")
        elif field.name == "textarea":
            fields[name] = field.text
        else:
            fields[name] = field.get("value", "")
    return fields


def test_a_player_spreads_the_credit_and_may_not_touch_the_dice(db, lab_page):
    people, campaign_id, kenji, _octopus, _dice = lab_page
    paul = people["paul"]
    url = f"/campaigns/{campaign_id}/characters/{kenji}"
    page = BeautifulSoup(paul.client.get(url + "/edit").text, "html.parser")
    form = page.select_one("#sheet-char-force").find_parent("form")
    fields = _form_fields(form)
    fields["skill_arme_blanche"] = "15"  # 5 less than before: credit left 5
    saved = paul.client.post(url + "/edit", data=fields, follow_redirects=False)
    assert saved.status_code == 303, saved.text
    db.expire_all()
    assert db.get(Character, kenji).sheet["skills"]["arme_blanche"] == 15
    page = BeautifulSoup(paul.client.get(url + "/edit").text, "html.parser")
    fields = _form_fields(page.select_one("#sheet-char-force").find_parent("form"))
    fields["char_force"] = "18"
    refused = paul.client.post(url + "/edit", data=fields, follow_redirects=False)
    assert refused.status_code == 422
    db.expire_all()
    assert db.get(Character, kenji).sheet["characteristics"]["force"] == 13


def test_the_sheet_form_offers_the_gms_weapons(db, lab_page):
    people, campaign_id, kenji, octopus, _dice = lab_page
    mia, paul = people["mia"], people["paul"]
    content = f"/campaigns/{campaign_id}/content"
    added = mia.post(content + "/weapon_ranged", {
        "name": "Blaster", "damage_type": "brulure", "factor": "L", "magazine": "10",
        "shots_per_turn": "2"}, csrf_path=content)
    assert added.status_code == 303, added.text
    players_form = BeautifulSoup(paul.client.get(
        f"/campaigns/{campaign_id}/characters/{kenji}/edit").text, "html.parser")
    offered = {option["value"]: option.text for option in
               players_form.select("#sheet-weapon-0 optgroup option")}
    assert offered == {"gm:gm-blaster": "Blaster"}
    # The GM arms the alien with it through the same form.
    url = f"/campaigns/{campaign_id}/characters/{octopus}"
    page = BeautifulSoup(mia.client.get(url + "/edit").text, "html.parser")
    fields = _form_fields(page.select_one("#sheet-weapon-0").find_parent("form"))
    slot = len(PROFILES["pieuvre"].sheet["weapons"])
    fields[f"weapon_{slot}"] = "gm:gm-blaster"
    saved = mia.client.post(url + "/edit", data=fields, follow_redirects=False)
    assert saved.status_code == 303, saved.text
    db.expire_all()
    assert db.get(Character, octopus).sheet["weapons"][slot] == "gm:gm-blaster"
    page = BeautifulSoup(mia.client.get(url + "/edit").text, "html.parser")
    assert page.select_one(f"#sheet-weapon-{slot} option[selected]")["value"] == "gm:gm-blaster"


def test_a_gm_weapon_and_vehicle_from_the_content_page_reach_the_table(db, lab):
    _access, _match, _kenji, octopus, users = lab
    mia = users["mia"]
    campaign = _match.campaign_id
    blaster = mia.post(f"/campaigns/{campaign}/content/weapon_ranged", json={
        "name": "Blaster", "data": {"damage_type": "brulure", "factor": "L", "magazine": 10,
                                    "shots_per_turn": 2, "localised_burn": True}})
    assert blaster.status_code == 201, blaster.text
    key = "gm:" + blaster.json()["key"]
    copter = mia.post(f"/campaigns/{campaign}/content/vehicle_air", json={
        "name": "Hélico", "data": {"resistance": 4, "structure": 60, "safety": 3}})
    assert copter.status_code == 201, copter.text
    sheet = copy.deepcopy(PROFILES["pieuvre"].sheet)
    sheet["weapons"].append(key)
    character = mia.get(f"/campaigns/{campaign}/characters/{octopus}").json()
    saved = mia.patch(f"/campaigns/{campaign}/characters/{octopus}", json={
        "sheet": sheet, "version": character["version"]})
    assert saved.status_code == 200, saved.text
    opened = mia.post(f"/campaigns/{campaign}/matches", json={
        "name": "Ciel", "character_ids": [_kenji, octopus],
        "options": {"width": 40, "height": 30, "unit": "sq"}})
    assert opened.status_code == 201, opened.text
    state = opened.json()["state"]
    assert state["custom_weapons"][key]["factor"] == "L"
    assert state["tokens"]["t2"]["magazines"][key] == 10
    gm_forms = {form["kind"]: form for form in mia.get(
        f"/campaigns/{campaign}/matches/{opened.json()['id']}").json()["legal_actions"]}
    vehicles = dict(gm_forms["start_chase"]["choices"]["vehicles"])
    assert vehicles["gm:" + copter.json()["key"]] == "Hélico"


def test_every_event_line_state_panel_and_form_renders():
    """Each event kind's log line, the state panel and every form, at several moments of a
    mission (a template error in a rare branch would break the live table)."""
    from types import SimpleNamespace

    from app.rules.dice import SeededDice
    from app.rules.match import Actor, MatchSetup, ParticipantSetup, apply, fold
    from app.rules.registry import get_system
    from app.web.table_view import action_template, fragment

    system = get_system("cyborg")
    gm, paul = Actor(1, is_gm=True), Actor(7, character_ids=frozenset({10}))
    state = fold(system, system.start(MatchSetup("Labo", (
        ParticipantSetup("Kenji", 10, 7, door_cyborg()),
        ParticipantSetup("Pieuvre", 11, None, PROFILES["pieuvre"].sheet))), SeededDice(1)))
    script = [
        (gm, {"kind": "add_participant", "profile": "vigile", "x": 5, "y": 5}),
        (gm, {"kind": "add_terrain", "label": "Paillasse", "x": 5, "y": 8, "w": 4, "h": 1}),
        (gm, {"kind": "set_group", "token": "t3", "group": "humains"}),
        (gm, {"kind": "add_participant", "profile": "infiltre", "x": 9, "y": 5}),
        (gm, {"kind": "camouflage", "token": "t4", "seekers": ["t1", "t3"]}),
        (gm, {"kind": "test", "token": "t1", "characteristic": "force", "malus": 3}),
        (paul, {"kind": "test", "token": "t1", "test": "skill", "skill": "reperage"}),
        (gm, {"kind": "opposed", "token": "t1", "other": "t2", "characteristic": "rapidite"}),
        (gm, {"kind": "situational", "token": "t1", "value": -15, "label": "obscurité"}),
        (gm, {"kind": "roll_initiative", "surprise": "cyborgs"}),
        (paul, {"kind": "move", "token": "t1", "x": 12, "y": 6}),
        (paul, {"kind": "attack", "token": "t1", "weapon": "lance_grenades", "target": "t2"}),
        (gm, {"kind": "move", "token": "t2", "x": 13, "y": 6}),
        (gm, {"kind": "attack", "token": "t2", "weapon": "tentacules", "target": "t1"}),
        (gm, {"kind": "end_phase"}), (gm, {"kind": "end_phase"}),
        (paul, {"kind": "reload", "token": "t1", "weapon": "lance_grenades"}),
        (gm, {"kind": "correct", "token": "t2", "field": "sante", "value": -2, "reason": "x"}),
        (gm, {"kind": "set_state", "token": "t3", "state": "unconscious", "on": "on"}),
        (gm, {"kind": "poison", "token": "t1", "poison": "colendraline"}),
        (gm, {"kind": "hours", "hours": 3}),
        (gm, {"kind": "antidote", "token": "t1"}),
        (paul, {"kind": "note", "text": "Il était une fois…"}),
        (gm, {"kind": "start_chase", "pursuer": "t1", "quarry": "t2", "mode": "vehicle",
              "distance": "courte", "pursuer_vehicle": "dark_jet_45",
              "quarry_vehicle": "fourgon"}),
        (gm, {"kind": "chase_round"}),
        (paul, {"kind": "shoot_vehicle", "token": "t1", "weapon": "lance_grenades",
                "aim": "structure"}),
        (gm, {"kind": "manoeuvre", "side": "pursuer", "what": "un demi-tour"}),
        (gm, {"kind": "end_chase"}),
        (gm, {"kind": "set_state", "token": "t4", "state": "fled", "on": "on"}),
        (gm, {"kind": "end_fight"}),
        (gm, {"kind": "end_mission"}),
    ]
    dice = SeededDice(4)
    events, kinds = [], set()
    for actor, action in script:
        for viewer in (gm, paul):
            forms = system.legal_actions(state, viewer)
            items = [{"form": form, "template": action_template(form), "key": "k",
                      "error": None, "values": {}} for form in forms]
            html = fragment("matches/_actions.html", {
                "items": items, "state": state, "seq": 1, "can_redo": False,
                "is_gm": viewer.is_gm, "is_spectator": False, "archived": False,
                "finished": False, "url": "/m", "error": None, "csrf_token": "x"})
            assert "action-panel" in html
        html = fragment("matches/_state.html", {"state": state, "seq": 1, "movable": set(),
                                                "system_key": "cyborg",
                                                "scale": {"radius": 1.5, "grid": 10},
                                                "current": None})
        assert "participants" in html
        try:
            new, state = apply(system, state, action, actor, dice)
        except Exception as error:  # a refusal here would leave a branch untested
            raise AssertionError(f"{action['kind']}: {error}") from error
        events += new
    for seq, event in enumerate(events, 1):
        kinds.add(event.kind)
        html = fragment("systems/cyborg/_log_line.html", {
            "event": {"seq": seq, "kind": event.kind, "payload": event.payload},
            "line": SimpleNamespace(who="Mia")})
        assert html.strip() and html.strip() != event.kind, event.kind
    assert len(kinds) >= 23


def test_a_grenades_blast_is_drawn_on_the_board():
    from bs4 import BeautifulSoup as Soup

    from app.rules.dice import ScriptedDice
    from app.rules.match import Actor, MatchSetup, ParticipantSetup, apply, fold
    from app.rules.registry import get_system
    from app.web.table_view import fragment, state_context

    system = get_system("cyborg")
    gm = Actor(1, is_gm=True)
    state = fold(system, system.start(MatchSetup("Labo", (
        ParticipantSetup("Kenji", 10, 7, door_cyborg()),
        ParticipantSetup("Pieuvre", 11, None, PROFILES["pieuvre"].sheet))), ScriptedDice([])))
    _, state = apply(system, state, {"kind": "roll_initiative"}, gm, ScriptedDice([]))
    target = state["tokens"]["t2"]
    _, state = apply(system, state, {"kind": "attack", "token": "t1", "weapon": "lance_grenades",
                                     "target": "t2"}, gm, ScriptedDice([15, 70]))
    html = fragment("matches/_board_svg.html", state_context(state, system_key="cyborg", seq=0))
    circle = Soup(html, "html.parser").select_one("#board g.area circle")
    assert (float(circle["cx"]), float(circle["cy"]), float(circle["r"])) == (
        target["x"], target["y"], 3)


def test_a_new_match_offers_the_games_board(lab_page):
    people, campaign_id, _kenji, _octopus, _dice = lab_page
    page = BeautifulSoup(people["mia"].client.get(f"/campaigns/{campaign_id}/matches").text,
                         "html.parser")
    assert page.select_one("#field-width")["value"] == "40"
    assert page.select_one("#field-height")["value"] == "30"
    assert page.select_one("#field-unit option[selected]")["value"] == "sq"


# — the rules gaps of issue 9, at the table —


def test_the_texts_wound_crush_chase_and_camouflage_rules_through_the_engine(db, lab):
    """Paralysis ends with santé, a GM's whole-target crush, a failed drive is an accident by
    default (the milder rule ticked), a ram, camouflage against repérage: through the real
    engine, the log folding to the snapshot after every step, rewind and redo exact."""
    access, match, _kenji, _octopus, _users = lab
    gm, paul = access["mia"], access["paul"]
    play(db, SECRET, match, [
        Step(gm, {"kind": "correct", "token": "t2", "field": "sante", "value": 5,
                  "reason": "blessé"}),
        Step(gm, {"kind": "roll_initiative"}),
        # 23 hits, 80 fails to dodge, G × 3 = 8: santé −3; location 5, constitution 5 + 2.
        Step(paul, {"kind": "attack", "token": "t1", "weapon": "fusil_a_canon_scie",
                    "target": "t2"}, [23, 80, 5, 5]),
        Step(paul, {"kind": "end_phase"}),
        Step(gm, {"kind": "end_phase"}),
        # Kenji's first aid: 11, 2D6 = 3 + 4: santé 4, no longer paralysed.
        Step(paul, {"kind": "first_aid", "token": "t1", "patient": "t2"}, [11, 3, 4]),
        Step(gm, {"kind": "add_participant", "profile": "infiltre", "x": 30, "y": 10}),
        # The alien hides (20 ≤ 49); Kenji's Repérage 50 > 35: it stays hidden.
        Step(gm, {"kind": "camouflage", "token": "t3", "seekers": ["t1"]}, [20, 50]),
        # A chase with the text's default: the octopus (no Conduite) fails, an accident;
        # Kenji's 10 is a success; the van's safety die 2 ≤ 3 saves the octopus.
        Step(gm, {"kind": "start_chase", "pursuer": "t1", "quarry": "t2", "mode": "vehicle",
                  "distance": "courte", "pursuer_vehicle": "dark_jet_45",
                  "quarry_vehicle": "fourgon"}),
        Step(gm, {"kind": "chase_round"}, [10, 20, 2]),
        Step(gm, {"kind": "end_chase"}),
        # The milder rule ticked: a mistake (1D10 = 4), Kenji alongside, then rams (30).
        Step(gm, {"kind": "start_chase", "pursuer": "t1", "quarry": "t2", "mode": "vehicle",
                  "distance": "courte", "pursuer_vehicle": "dark_jet_45",
                  "quarry_vehicle": "fourgon", "recoverable": "on"}),
        Step(gm, {"kind": "chase_round"}, [10, 20, 4]),
        Step(paul, {"kind": "ram"}, [30, 3]),
    ])
    db.refresh(match)
    state = match.state
    octopus = state["tokens"]["t2"]
    assert octopus["sante"] == 4 and "paralysed" not in octopus["states"]
    assert "hidden" in state["tokens"]["t3"]["states"]
    assert state["chase"]["quarry"]["wrecked"] and state["chase"]["quarry"]["structure"] == 46
    kinds = [row.kind for row in tables.live_events(db, match)]
    assert {"camouflaged", "first_aid", "rammed"} <= set(kinds)
    assert_rewind_and_redo_round_trip(db, gm, match, to_seq=8)
    # The crush, the GM's call: Kenji at santé 1 under the octopus' tentacles (E × 7 = 2).
    play(db, SECRET, match, [
        Step(gm, {"kind": "end_chase"}),
        Step(gm, {"kind": "correct", "token": "t1", "field": "sante", "value": 1,
                  "reason": "x"}),
        Step(gm, {"kind": "roll_initiative", "surprise": "aliens"}),
        Step(gm, {"kind": "move", "token": "t2", "x": 14, "y": 3}),
        Step(gm, {"kind": "attack", "token": "t2", "weapon": "tentacules", "target": "t1",
                  "whole_body": "on"}, [5, 99]),
    ])
    db.refresh(match)
    assert "dead" in match.state["tokens"]["t1"]["states"]


def test_ram_camouflage_and_the_crush_over_the_json_api(db, lab, libre_dice):
    _access, match, _kenji, _octopus, users = lab
    mia, paul = users["mia"], users["paul"]
    base = f"/campaigns/{match.campaign_id}/matches/{match.id}"

    def act(user, action, *faces):
        libre_dice.script(*faces)
        return user.post(base + "/actions", json={"action": action})

    def forms(user):
        return {form["kind"]: form for form in user.get(base).json()["legal_actions"]}

    assert act(mia, {"kind": "add_participant", "profile": "infiltre"}).status_code == 200
    camouflage = forms(mia)["camouflage"]
    assert camouflage["choices"]["tokens"] == ["t3"]
    assert "camouflage" not in forms(paul)  # Kenji has no Camouflage
    done = act(mia, {"kind": "camouflage", "token": "t3", "seekers": ["t1", "t2"]},
               20, 12, 90)
    assert done.status_code == 200, done.text
    assert "hidden" not in mia.get(base).json()["state"]["tokens"]["t3"]["states"]  # spotted
    assert act(mia, {"kind": "start_chase", "pursuer": "t1", "quarry": "t2",
                     "mode": "vehicle", "distance": "courte", "recoverable": "on",
                     "pursuer_vehicle": "dark_jet_45",
                     "quarry_vehicle": "fourgon"}).status_code == 200
    assert "ram" not in forms(paul)
    refused = act(paul, {"kind": "ram"})
    assert refused.status_code == 422 and "short distance" in refused.text
    assert act(mia, {"kind": "chase_round"}, 10, 20, 4).status_code == 200
    ram = forms(paul)["ram"]
    assert ram["choices"]["driver"] == "t1" and ram["choices"]["target"] == "Fourgon"
    rammed = act(paul, {"kind": "ram"}, 30, 5, 36)
    assert rammed.status_code == 200, rammed.text
    chase = mia.get(base).json()["state"]["chase"]
    assert chase["quarry"]["wrecked"]
    assert act(mia, {"kind": "end_chase"}).status_code == 200
    assert act(mia, {"kind": "roll_initiative", "surprise": "cyborgs"}).status_code == 200
    assert forms(mia)["attack"]["choices"]["crush"] is True
    assert forms(paul)["attack"]["choices"]["crush"] is False
    refused = act(paul, {"kind": "attack", "token": "t1", "weapon": "poing", "target": "t2",
                         "whole_body": True})
    assert refused.status_code == 422 and "only the GM" in refused.text


def test_the_table_page_offers_the_forms_and_the_log_explains(db, lab_page):
    people, *_, dice = lab_page
    mia, paul = people["mia"], people["paul"]
    url = open_lab_match(lab_page)

    act = form_actions(url, dice)

    def page(user):
        return BeautifulSoup(user.client.get(url).text, "html.parser")

    chase = page(mia).select_one("#action-start_chase")
    assert chase.select_one("input[name=recoverable]") is not None
    assert chase.select_one("input[name=accidents]") is None
    act(mia, kind="add_participant", profile="infiltre", x="20", y="5")
    form = page(mia).select_one("#action-camouflage")
    assert form.select_one("select[name=token] option[value=t3]") is not None
    assert form.select_one("input[name=seeker_t1]") is not None
    act(mia, (20, 50), kind="camouflage", token="t3", seeker_t1="on")
    log = page(paul).select_one("#log").text
    assert "Camouflage 49 %" in log and "Alien à visage humain stays hidden" in log
    act(mia, kind="start_chase", pursuer="t1", quarry="t2", mode="vehicle", distance="courte",
        pursuer_vehicle="dark_jet_45", quarry_vehicle="fourgon", recoverable="on")
    act(mia, (10, 20, 4), kind="chase_round")
    assert page(paul).select_one("#action-ram") is not None
    act(paul, (30, 3), kind="ram")
    log = page(paul).select_one("#log").text
    assert "rams Fourgon with Voiture Dark Jet 45" in log and "saved by the safety roll" in log
    act(mia, kind="end_chase")
    act(mia, kind="roll_initiative", surprise="cyborgs")
    assert page(mia).select_one("#action-attack input[name=whole_body]") is not None
    assert page(paul).select_one("#action-attack input[name=whole_body]") is None
    act(paul, kind="move", token="t1", x="26", y="3")
    act(paul, (23, 80), kind="attack", token="t1", weapon="poing", target="t2", shots="1")
    assert "house correction: the text prints 2" in page(paul).select_one("#log").text
    paul.post("/account", {"display_name": "Paul", "locale": "fr"})
    french = page(paul).select_one("#log").text
    assert "correction maison : le texte imprime 2" in french
    assert "heurte Fourgon" in french and "reste caché" in french


# — a melee blow needs contact (issue 10) —


def test_a_melee_attack_out_of_reach_on_the_page(db, lab_page):
    """Paul (in French) is refused a punch from 14 squares, in words naming the distance, with
    nothing changed; he has no override box; the GM's octopus strikes from afar with the box
    ticked, and the log says the GM allowed it, in both languages."""
    people, *_, dice = lab_page
    mia, paul = people["mia"], people["paul"]
    url = open_lab_match(lab_page)
    paul.post("/account", {"display_name": "Paul", "locale": "fr"})

    def post(user, **fields):
        return user.client.post(url + "/actions", data={"csrf_token": user.csrf(), **fields},
                                follow_redirects=False)

    def page(user):
        return BeautifulSoup(user.client.get(url).text, "html.parser")

    assert post(mia, kind="roll_initiative").status_code == 303  # the cyborgs first
    form = page(paul).select_one("#action-attack")
    assert form.select_one("input[name=override]") is None
    # The octopus is far: the form proposes a firearm, and the reach, a melee weapon's
    # limit, is drawn hidden; the list marks the fist as the melee weapon (table.css).
    chosen = form.select_one("select[name=armed] option[selected]")
    assert chosen["value"] != "t1:poing" and not chosen.has_attr("data-melee")
    assert form.select_one("option[value='t1:poing']").has_attr("data-melee")
    assert form.select_one("#attack-reach-help").find_parent(class_="melee-only").has_attr(
        "hidden")
    assert page(mia).select_one("#action-attack input[name=override]").find_parent(
        class_="melee-only").has_attr("hidden")
    before = copy.deepcopy(_match(db, url).state)
    refused = post(paul, kind="attack", armed="t1:poing", target="t2", shots="1")
    assert refused.status_code == 422
    # The form comes back with the fist chosen: the reach is said.
    shown = BeautifulSoup(refused.text, "html.parser").select_one("#action-attack")
    reach = shown.select_one("#attack-reach-help")
    assert "1,5 case au plus entre les centres" in reach.text
    assert not reach.find_parent(class_="melee-only").has_attr("hidden")
    error = BeautifulSoup(refused.text, "html.parser").text
    assert "Kenji est à 14 cases de Pieuvre : une attaque au corps à corps demande le " \
           "contact, 1,5 case au plus" in error
    db.expire_all()
    assert _match(db, url).state == before
    cheat = post(paul, kind="attack", token="t1", weapon="poing", target="t2", shots="1",
                 override="on")
    assert cheat.status_code == 422 and "seul le MJ autorise" in cheat.text
    assert post(paul, kind="end_phase").status_code == 303
    dice.script(30, 99)  # the tentacles hit, Kenji's parry fails: E × 7 = 2
    done = post(mia, kind="attack", token="t2", weapon="tentacules", target="t1", shots="1",
                override="on")
    assert done.status_code == 303, done.text
    assert "out of reach (14 squares), allowed by the GM" in page(mia).select_one("#log").text
    assert "hors de portée (14 cases), permise par le MJ" in page(paul).select_one("#log").text


def _match(db, url: str):
    from app.models import Match

    return db.get(Match, int(url.rstrip("/").split("/")[-1]))


# — skill 25, the player's choice (issue 10) —


def _chooser(db, campaign_id: int, kenji: int) -> dict:
    """Kenji drew entry 25 (« Au choix du joueur ») and named it Xénobiologie, int + int + vol."""
    character = db.get(Character, kenji)
    sheet = copy.deepcopy(character.sheet)
    sheet["skills"] = {**sheet["skills"], "au_choix": 7}  # conduite's 7 %
    sheet["skills"].pop("conduite")
    sheet["drawn"] = ["premiers_soins", "au_choix", "reperage"]
    sheet["custom_skill"] = {"name": "Xénobiologie",
                             "formula": ["intelligence", "intelligence", "volonte"]}
    character.sheet = sheet
    db.commit()
    return sheet


def test_skill_25_shows_on_the_sheet_the_printable_sheet_and_the_test_list(db, lab_page):
    from app.rules.cyborg.sheet import derived, validate

    people, campaign_id, kenji, _octopus, dice = lab_page
    paul = people["paul"]
    sheet = _chooser(db, campaign_id, kenji)
    assert validate(sheet) == []
    chars = sheet["characteristics"]
    total = 2 * chars["intelligence"] + chars["volonte"] + 7
    assert next(line["total"] for line in derived(sheet)["skills"]
                if line["key"] == "au_choix") == total
    # The sheet.
    view = BeautifulSoup(paul.client.get(f"/campaigns/{campaign_id}/characters/{kenji}").text,
                         "html.parser")
    row = view.select_one("table.derived-skills tr[data-skill=au_choix]")
    assert row is not None and "Xénobiologie" in row.text and f"{total} %" in row.text
    assert row.select_one(".skill-formula").text == "skill 25: int + int + vol"
    # The edit form names it (Paul drew it): the name and the three characteristics.
    edit = BeautifulSoup(paul.client.get(
        f"/campaigns/{campaign_id}/characters/{kenji}/edit").text, "html.parser")
    assert edit.select_one("fieldset.custom-skill #sheet-custom-name")["value"] == "Xénobiologie"
    assert edit.select_one("label[for=sheet-skill-au_choix]").text == "Xénobiologie"
    # The printable sheet.
    printed = BeautifulSoup(paul.client.get(
        f"/campaigns/{campaign_id}/characters/{kenji}/print").text, "html.parser")
    line = next(tr for tr in printed.select(".print-skills tr") if "Xénobiologie" in tr.text)
    assert f"{total} %" in line.text
    assert "skill 25: int + int + vol" in line.text
    # The chainsaw's damage type as the text writes it, never its key.
    for page in (printed, view):
        armament = page.select_one(".print-armament, table.weapons").text
        assert "déchirure" in armament and "dechirure" not in armament
    # The table's test list, and a test rolled on it against the player's formula.
    url = open_lab_match(lab_page)
    page = BeautifulSoup(paul.client.get(url).text, "html.parser")
    options = {o["value"]: o.text for o in page.select("#action-test select[name=skill] option")}
    assert options["au_choix"].startswith("Xénobiologie")
    dice.script(total)
    done = paul.client.post(url + "/actions", data={
        "csrf_token": paul.csrf(), "kind": "test", "token": "t1", "test": "skill",
        "skill": "au_choix"}, follow_redirects=False)
    assert done.status_code == 303, done.text
    log = BeautifulSoup(paul.client.get(url).text, "html.parser").select_one("#log").text
    assert f"Xénobiologie {total} %" in log and "success" in log


def test_a_cyborg_without_skill_25_is_told_so_and_keeps_its_name_on_save(db, lab_page):
    """Entry 25 comes with the draw: a cyborg that did not draw it has nothing to name (the
    page says so, in French), and saving the sheet keeps the stored name and formula."""
    people, campaign_id, kenji, _octopus, _dice = lab_page
    paul = people["paul"]
    paul.post("/account", {"display_name": "Paul", "locale": "fr"})
    url = f"/campaigns/{campaign_id}/characters/{kenji}"
    page = BeautifulSoup(paul.client.get(url + "/edit").text, "html.parser")
    assert page.select_one("fieldset.custom-skill") is None
    assert "ce cyborg ne l'a pas tirée" in page.select_one(".custom-skill-absent").text
    before = db.get(Character, kenji).sheet["custom_skill"]
    saved = paul.client.post(url + "/edit", data=_form_fields(
        page.select_one("#sheet-char-force").find_parent("form")), follow_redirects=False)
    assert saved.status_code == 303, saved.text
    db.expire_all()
    assert db.get(Character, kenji).sheet["custom_skill"] == before
    view = BeautifulSoup(paul.client.get(url).text, "html.parser")
    assert view.select_one("table.derived-skills tr[data-skill=au_choix]") is None


def test_a_human_joining_reads_in_french():
    """« Vigile (humain, humains) entre en jeu », not the kind's key « human »."""
    from types import SimpleNamespace

    from app.i18n import get_locale, set_locale
    from app.rules.dice import ScriptedDice
    from app.rules.match import Actor, MatchSetup, apply, fold
    from app.rules.registry import get_system
    from app.web.table_view import fragment

    system = get_system("cyborg")
    state = fold(system, system.start(MatchSetup("Labo", ()), ScriptedDice([])))
    events, _ = apply(system, state, {"kind": "add_participant", "profile": "vigile"},
                      Actor(1, is_gm=True), ScriptedDice([]))
    before = get_locale()
    set_locale("fr")
    try:
        html = fragment("systems/cyborg/_log_line.html", {
            "event": {"seq": 1, "kind": events[0].kind, "payload": events[0].payload},
            "line": SimpleNamespace(who="Mia")})
    finally:
        set_locale(before)
    assert "(humain, humains)" in html and "human," not in html


@pytest.mark.parametrize("locale", ["fr", "en"])
def test_each_weapon_cell_names_its_column_for_the_phone_cards(db, lab_page, locale):
    """On a phone the armament is one card per weapon (tablee.css): each value cell carries
    its column's header (data-label), in the reader's language."""
    people, campaign_id, kenji, _octopus, _dice = lab_page
    db.execute(update(User).values(locale=locale))
    db.commit()
    view = BeautifulSoup(people["paul"].client.get(
        f"/campaigns/{campaign_id}/characters/{kenji}").text, "html.parser")
    table = view.select_one(".sheet-cyborg table.weapons")
    headers = [th.text for th in table.select("thead th")]
    assert headers[1] == ("Type de dommage" if locale == "fr" else "Damage type")
    rows = table.select("tbody tr")
    assert rows
    for row in rows:
        assert row.select_one("th[scope=row]").text
        assert [td["data-label"] for td in row.select("td")] == headers[1:]
