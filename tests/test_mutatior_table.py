"""Mutatior through the real engine, the web pages and the JSON API.

Mia is the GM; Paul (Patom) plays Grosbaf, Pia (Yetzar) plays Zetzet: the text's example
fight (000_e34df4ff7a8d792c.txt § Exemple de combat), scripted die by die.
"""

from __future__ import annotations

import copy
import json

import pytest
from sqlalchemy import update

from app.models import Character, Match, User
from app.rules.dice import ScriptedDice
from app.rules.mutatior.samples import grosbaf, scarabator
from app.rules.mutatior.sheet import sheet_of
from app.services import content, tables
from tests.seating import (
    campaign_access,
    grosbaf_against_zetzet,
)
from tests.table_harness import Step, assert_rewind_and_redo_round_trip, play

SECRET = "test-secret"


@pytest.fixture
def arena(db, web, libre_dice):
    people = {name: web(name) for name in ("mia", "paul", "pia")}
    ids, campaign, gros, zet = grosbaf_against_zetzet(db, people)
    db.execute(update(User).values(locale="en"))
    db.commit()
    access = campaign_access(db, ids, campaign.id)
    return {"people": people, "access": access, "campaign": campaign.id,
            "gros": gros.id, "zet": zet.id, "dice": libre_dice}


def open_bout(db, arena, name: str) -> Match:
    """The GM (Mia) opens a match of Grosbaf against Zetzet, no dice scripted."""
    return tables.create_match(db=db, secret=SECRET, access=arena["access"]["mia"], name=name,
                               character_ids=[arena["gros"], arena["zet"]],
                               dice=ScriptedDice([]))


def opening(gm, paul, pia) -> list[Step]:
    """Placement, the fight (beau temps), a first round to close in, the second round."""
    return [
        Step(gm, {"kind": "entrance_prize", "team": f"owner-{paul.user.id}"}, [6, 6]),
        Step(paul, {"kind": "place_bet", "bet": "victory", "stake": 20}),
        Step(paul, {"kind": "move", "token": "m1", "x": 30, "y": 20}),
        Step(pia, {"kind": "move", "token": "m2", "x": 30, "y": 50}),
        Step(gm, {"kind": "start_fight", "uneven": True}, [5, 6, 1]),
        Step(paul, {"kind": "move", "token": "m1", "x": 30, "y": 32}),
        Step(paul, {"kind": "end_turn", "token": "m1"}),
        Step(pia, {"kind": "move", "token": "m2", "x": 30, "y": 36}),
        # Everyone has played: the next round starts by itself (§ 1-1).
        Step(pia, {"kind": "end_turn", "token": "m2"}, [5, 2]),
    ]


def example(paul, pia) -> list[Step]:
    """§ Exemple de combat, as the text tells it."""
    return [
        Step(paul, {"kind": "attack", "limb": "m1:tête", "target": "m2:torse"}, [3, 2]),
        # The pump roll fails: Grosbaf has nothing left to do, his turn ends by itself.
        Step(paul, {"kind": "attack", "limb": "m1:bras gauche", "target": "m2:tête"}, [4, 5]),
        Step(pia, {"kind": "attack", "limb": "m2:tête", "target": "m1:jambe gauche"},
             [4, 3, 1, 1, 1, 3]),
        Step(pia, {"kind": "attack", "limb": "m2:queue", "target": "m1:tête"}, [2, 1]),
        # Grosbaf's counter: pump 2 + 2 ≤ 6, then his right arm on Zetzet's head: 6 + 6 = 12
        # against 5 + 1 = 6: six damage, the head's five muscles and one of its three lobes.
        # Zetzet has attacked: its turn ends, and round 3 starts (Grosbaf 4 + 1, Zetzet 1 + 2).
        Step(paul, {"kind": "attack", "limb": "m1:bras droit", "target": "m2:tête"},
             [2, 2, 6, 1, 4, 1]),
    ]


def test_the_example_fight_through_the_engine_folds_and_rewinds(db, arena):
    gm, paul, pia = (arena["access"][name] for name in ("mia", "paul", "pia"))
    match = open_bout(db, arena, "Le choc")
    play(db, SECRET, match, opening(gm, paul, pia) + example(paul, pia))
    db.refresh(match)
    state = match.state
    torse = next(x for x in state["bodies"]["m2"]["limbs"] if x["name"] == "torse")
    head = next(x for x in state["bodies"]["m2"]["limbs"] if x["name"] == "tête")
    assert torse["lost_muscles"] == 3
    assert (head["lost_muscles"], head["lost_lobes"]) == (5, 1)
    assert state["pending"] is None and state["round"] == 3 and state["turn"] == "m1"
    assert state["killed_by"] == {}
    assert_rewind_and_redo_round_trip(db, gm, match, to_seq=match.seq - 3)
    # The end: Grosbaf's team wins, XP and biomass go back to the sheets.
    play(db, SECRET, match, [
        # 2d6 per survivor, the éclopé (Zetzet's team), the tafiotte (Grosbaf's), Chouchou.
        Step(gm, {"kind": "end_fight", "winner": f"owner-{paul.user.id}"},
             [3, 4, 2, 2, 5, 6, 1, 4]),
    ])
    db.refresh(match)
    assert match.status == "finished" and match.state["results"]["winner"] == \
        f"owner-{paul.user.id}"
    db.expire_all()
    gros_sheet = db.get(Character, arena["gros"]).sheet
    zet_sheet = db.get(Character, arena["zet"]).sheet
    assert gros_sheet["xp"] == 1 and zet_sheet["xp"] == 1 and not zet_sheet["dead"]
    assert next(x for x in zet_sheet["limbs"] if x["name"] == "tête")["lost_lobes"] == 1
    page = arena["people"]["pia"].page(f"/campaigns/{arena['campaign']}/matches/{match.id}")
    results = [" ".join(li.get_text(" ", strip=True).split()) for li in page.select("#results li")]
    assert results[0].startswith("Grosbaf: 1 XP") and results[1].startswith("Zetzet: 1 XP")
    assert gros_sheet["reserve_kg"] > 0


def test_a_re_roll_through_the_engine_folds_and_rewinds(db, arena):
    gm, paul, pia = (arena["access"][name] for name in ("mia", "paul", "pia"))
    match = open_bout(db, arena, "Relance")
    pia_team = f"owner-{pia.user.id}"
    play(db, SECRET, match, [
        *opening(gm, paul, pia),
        Step(paul, {"kind": "attack", "limb": "m1:tête", "target": "m2:torse"}, [3, 2]),
        Step(pia, {"kind": "reroll", "team": pia_team}, [1, 6]),
    ])
    db.refresh(match)
    assert match.state["teams"][pia_team]["rerolls"] == 3
    assert_rewind_and_redo_round_trip(db, gm, match, to_seq=match.seq - 2)


def test_a_new_fight_offers_the_60_cm_sand_box(arena):
    page = arena["people"]["mia"].page(f"/campaigns/{arena['campaign']}/matches")
    assert [page.select_one(f"#field-{name}")["value"] for name in ("width", "height")] == [
        "60", "60"]
    assert page.select_one("#field-unit option[selected]")["value"] == "cm"


def test_the_table_page_offers_only_legal_forms_and_plays_through_them(db, arena):
    mia, paul = arena["people"]["mia"], arena["people"]["paul"]
    base = f"/campaigns/{arena['campaign']}/matches"
    token = mia.csrf()
    response = mia.client.post(base, data={
        "csrf_token": token, "name": "Le choc", "characters": [str(arena["gros"]),
                                                              str(arena["zet"])],
        "width": "60", "height": "60", "unit": "cm"}, follow_redirects=False)
    assert response.status_code == 303, response.text
    url = response.headers["location"]
    page = mia.page(url)
    board = page.select_one("svg#board")
    assert (board["data-width"], board["data-height"]) == ("60", "60")
    assert page.select_one("#participant-m1 .participant-name").get_text(strip=True) == \
        "Grosbaf"
    # A team is named after its trainer (Paul trains Grosbaf), not its first mutant.
    assert page.select_one(".current-placer").get_text(strip=True) == \
        "Paul's team places a figure."
    kinds = {form["data-kind"] for form in page.select("#action-panel form.action")}
    assert {"start_fight", "entrance_prize", "set_arena", "move"} <= kinds
    assert "attack" not in kinds
    player_kinds = {form["data-kind"] for form in paul.page(url).select("#action-panel form")}
    assert "start_fight" not in player_kinds and "place_bet" in player_kinds
    arena["dice"].script(5, 6, 1)
    refused = mia.client.post(url + "/actions", data={"csrf_token": token,
                                                      "kind": "start_fight"})
    assert refused.status_code == 422  # a duel breaks the team rules (3 to 10 mutants)…
    assert "break" in refused.text and "team rules" in refused.text
    response = mia.client.post(url + "/actions", data={"csrf_token": token,  # …agreed to
                                                       "kind": "start_fight", "uneven": "on"})
    assert response.status_code in (200, 303), response.text
    page = mia.page(url)
    log = page.select("#log > li.log-line")
    assert any("Weather (1d6): Beau temps" in line.get_text(" ", strip=True) for line in log)
    assert page.select_one(".weather") is not None
    assert any(form["data-kind"] == "attack" for form in page.select("#action-panel form")) \
        is False  # nobody is in contact yet
    assert "Bookmaker" in page.get_text()
    weights = [line.get_text(" ", strip=True) for line in page.select(".team-weight")]
    assert weights == ["500 kg of 2000 kg", "300 kg of 2000 kg"]
    # The GM overruled the team rules by starting anyway: the warning is gone (issue 10).
    assert page.select_one(".team-problem") is None
    # The spectators record everything: the replay shows the board at each step.
    replay = paul.page(url + "/replay?step=1")
    assert replay.select_one("svg#board") is not None
    assert replay.select_one("#participant-m2 .participant-name").get_text(strip=True) == \
        "Zetzet"


def test_the_character_pages_render_the_builder_and_the_printable_sheet(db, arena):
    paul = arena["people"]["paul"]
    url = f"/campaigns/{arena['campaign']}/characters/{arena['gros']}"
    view = paul.page(url)
    assert "corne" in view.get_text().lower() or "Corne" in view.get_text()
    assert view.select_one('[data-key="biomass"]').get_text(strip=True) == "500 kg"
    edit = paul.page(url + "/edit")
    assert edit.select_one('input[name="limb_0_name"]')["value"] == "tronc"
    assert edit.select_one('input[name="trunk"][value="0"]').has_attr("checked")
    assert edit.select_one('input[name="limb_6_name"]') is not None  # a spare row
    for field in edit.select("input:not([type=hidden])"):
        assert field.get("id") and edit.select_one(f'label[for="{field["id"]}"]'), field
    new = paul.page(f"/campaigns/{arena['campaign']}/characters/new")
    assert new.select_one('input[name="limb_0_name"]')["value"] == "tronc"
    assert new.select_one('input[name="skill_chouchou_du_public"]').has_attr("checked")
    printed = paul.page(url + "/print")
    cells = [cell.get_text(strip=True) for cell in printed.select(".mutatior-card th")]
    assert {"NOM", "Biomasse", "CERVEAU", "POMPE", "COMPETENCE"} <= set(cells)
    # The live panel: a ninth organ in a limb is refused with its rule.
    form = {"csrf_token": paul.csrf(url + "/edit"), "trunk": "0", "limb_0_name": "tronc",
            "limb_0_muscles": "3", "limb_0_biomoteurs": "6", "limb_1_name": "tête",
            "limb_1_muscles": "8", "limb_1_lobes": "1", "skill_coquet": "on"}
    preview = paul.client.post(url + "/sheet-preview", data=form)
    assert preview.status_code == 200
    assert "2-1 Corps" in preview.text
    form["limb_1_muscles"] = "7"
    preview = paul.client.post(url + "/sheet-preview", data=form)
    assert 'data-key="biomass"' in preview.text


def test_the_gm_custom_implant_is_offered_used_and_copied_into_the_match(db, arena):
    gm = arena["access"]["mia"]
    saw = content.add_item(db=db, access=gm, kind="offensive_implant", name="Scie",
                           fields={"attack": "2", "weight_kg": "30"})
    db.commit()
    url = f"/campaigns/{arena['campaign']}/characters/{arena['gros']}"
    edit = arena["people"]["paul"].page(url + "/edit")
    offered = {o["value"]: o.text for o in edit.select("select#limb-0-offensive option")}
    assert "corne" in offered and saw.key in offered
    # Picked by name, with what it gives and weighs; the campaign's own said so.
    assert offered[saw.key] == "Scie (+2 attack, 30 kg) — this campaign's"
    assert not edit.select("input[list]")  # nothing typed as a key
    gros = db.get(Character, arena["gros"])
    sheet = dict(gros.sheet)
    sheet["limbs"] = [dict(limb) for limb in sheet["limbs"]]
    sheet["limbs"][2]["offensive"] = saw.key  # his left arm gets the saw instead of claws
    gros.sheet = sheet
    db.commit()
    match = open_bout(db, arena, "Scie")
    db.refresh(match)
    assert match.state["content"]["offensive_implant"][0]["key"] == saw.key
    weights = tables.system_of(match).view(match.state, tables.actor_for(db, gm))["weights"]
    assert weights[f"owner-{arena['access']['paul'].user.id}"]["kg"] == 500 - 10 + 30
    # The sheet and the printable sheet name the custom implant, as the catalogue's.
    view = arena["people"]["paul"].page(url)
    assert [b.get_text(strip=True) for b in view.select(".badge.implant")] == ["Corne", "Scie"]
    printed = arena["people"]["paul"].page(url + "/print").select(".limbs tbody tr")
    assert "Scie" in printed[2].get_text() and saw.key not in printed[2].get_text()


def test_names_typed_by_players_are_never_live_html(db, arena):
    paul = arena["people"]["paul"]
    evil = "<script>alert(1)</script>"
    gros = db.get(Character, arena["gros"])
    sheet = dict(gros.sheet)
    sheet["limbs"] = [dict(limb) for limb in sheet["limbs"]]
    sheet["limbs"][1]["name"] = "<b>tête</b>"
    sheet["team"] = evil
    gros.sheet, gros.name = sheet, evil
    db.commit()
    match = open_bout(db, arena, evil)
    db.commit()
    for path in (f"/campaigns/{arena['campaign']}/matches/{match.id}",
                 f"/campaigns/{arena['campaign']}/characters/{arena['gros']}",
                 f"/campaigns/{arena['campaign']}/characters/{arena['gros']}/edit",
                 f"/campaigns/{arena['campaign']}/characters/{arena['gros']}/print"):
        response = paul.get(path)
        assert response.status_code == 200, path
        assert "<script>alert(1)" not in response.text and "<b>tête</b>" not in response.text
        assert "&lt;script&gt;" in response.text, path


def test_the_json_api_shows_the_state_and_applies_actions(db, arena):
    match = open_bout(db, arena, "API")
    db.commit()
    client = arena["people"]["paul"].client
    base = f"/api/v1/campaigns/{arena['campaign']}/matches/{match.id}"
    answer = client.get(base)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["state"]["tokens"]["m1"]["name"] == "Grosbaf"
    kinds = {action["kind"] for action in body["legal_actions"]}
    assert "place_bet" in kinds and "start_fight" not in kinds
    response = client.post(base + "/actions", json={"action": {
        "kind": "move", "token": "m1", "x": 30, "y": 40}, "seq": body["seq"]},
        headers={"X-CSRF-Token": arena["people"]["paul"].csrf()})
    assert response.status_code == 422, response.text  # too close to Zetzet
    assert "30 cm" in response.json()["error"]["message"]
    db.expire_all()
    assert db.get(Match, match.id).seq == body["seq"]


def _edit_form(page) -> dict[str, str]:
    """The fields the edit page would post as it stands."""
    form = page.select_one("form.character-form") or page.select_one("form[method=post]")
    fields: dict[str, str] = {}
    for field in form.select("input[name]"):
        if field.get("type") in ("checkbox", "radio") and not field.has_attr("checked"):
            continue
        fields[field["name"]] = field.get("value", "")
    for field in form.select("textarea[name]"):
        fields[field["name"]] = field.text
    for field in form.select("select[name]"):
        chosen = field.select_one("option[selected]")
        fields[field["name"]] = chosen["value"] if chosen else ""
    return fields


def test_a_players_illegal_change_between_fights_is_refused_not_the_gms(db, arena):
    """§ 3-2 Soins, through the API and the builder: back from a fight, Paul may not move a
    muscle of Grosbaf's (422 with the problem and its rule); Mia, the GM, correcting the sheet
    the same way may."""
    character = db.get(Character, arena["gros"])
    character.sheet = sheet_of(grosbaf(), fights=1, reserve_kg=20)
    db.commit()
    paul, mia = arena["people"]["paul"], arena["people"]["mia"]
    api = f"/api/v1/campaigns/{arena['campaign']}/characters/{arena['gros']}"
    current = paul.client.get(api).json()
    moved = copy.deepcopy(current["sheet"])
    moved["limbs"][2]["muscles"], moved["limbs"][3]["muscles"] = 5, 7
    refused = paul.client.patch(api, json={"version": current["version"], "sheet": moved},
                                headers={"X-CSRF-Token": paul.csrf()})
    assert refused.status_code == 422, refused.text
    problems = refused.json()["error"]["details"]["problems"]
    assert [(p["field"], p["rule"]) for p in problems] == [
        ("limbs.2.muscles", "Mutatior § 3-2 Fin du carnage / Soins"),
        ("limbs.3.muscles", "Mutatior § 3-2 Fin du carnage / Soins")]
    # The builder refuses the same save (the sheet stays as it was).
    url = f"/campaigns/{arena['campaign']}/characters/{arena['gros']}/edit"
    form = {**_edit_form(paul.page(url)), "limb_2_muscles": "5", "limb_3_muscles": "7"}
    assert form["fights"] == "1" and form["limb_2_name"] == "bras gauche"
    assert paul.post(url, form).status_code == 422
    db.expire_all()
    assert db.get(Character, arena["gros"]).sheet["limbs"][2]["muscles"] == 6
    by_gm = mia.client.patch(api, json={"version": current["version"], "sheet": moved},
                             headers={"X-CSRF-Token": mia.csrf()})
    assert by_gm.status_code == 200, by_gm.text
    assert [limb["muscles"] for limb in by_gm.json()["sheet"]["limbs"][2:4]] == [5, 7]
    page = paul.page(f"/campaigns/{arena['campaign']}/characters/{arena['gros']}")
    assert page.select_one(".sheet-fights").get_text(strip=True) == "1"


def test_a_player_creates_a_fresh_mutant_but_not_a_veteran(arena):
    """A new mutant comes with no XP, fights or biomass reserve of its own (§ 3-2: they come
    from the fights); the GM may create one that has them (a team joining mid-campaign)."""
    paul, mia = arena["people"]["paul"], arena["people"]["mia"]
    api = f"/api/v1/campaigns/{arena['campaign']}/characters"
    headers = {"X-CSRF-Token": paul.csrf()}
    fresh = paul.client.post(api, json={"name": "Scarabator II",
                                        "sheet": sheet_of(scarabator())}, headers=headers)
    assert fresh.status_code == 201, fresh.text
    veteran = sheet_of(scarabator(), fights=3, reserve_kg=400)
    refused = paul.client.post(api, json={"name": "Scarabator III", "sheet": veteran},
                               headers=headers)
    assert refused.status_code == 422, refused.text
    fields = {p["field"] for p in refused.json()["error"]["details"]["problems"]}
    assert {"fights", "reserve_kg"} <= fields
    by_gm = mia.client.post(api, json={"name": "Scarabator III", "sheet": veteran,
                                       "owner_id": None}, headers={"X-CSRF-Token": mia.csrf()})
    assert by_gm.status_code == 201, by_gm.text


def test_a_team_named_first_in_a_sentence_starts_with_a_capital_in_french():
    """« l'équipe de Grosbaf » inside a sentence, « L'équipe de Grosbaf pose… » at its start."""
    from app.i18n import set_locale
    from app.web.templating import templates

    set_locale("fr")
    try:
        sentence = templates.env.filters["sentence"]
        assert sentence("l'équipe de Grosbaf pose une figurine.") == (
            "L'équipe de Grosbaf pose une figurine.")
        html = templates.env.from_string(
            '{{ _("%(team)s places a figure.", team=_("%(name)s\'s team", name="Grosbaf"))'
            '|sentence }}').render()
        assert html.startswith("L'équipe de Grosbaf"), html
    finally:
        set_locale("en")


def test_a_secret_bet_never_reaches_the_other_trainer(db, arena):
    """§ 3-3 "secrètement": Pia bets on Zetzet; Paul sees neither the bet in the state nor
    its line in the log, over the API and on the table page; the GM sees both."""
    match = open_bout(db, arena, "Paris")
    db.commit()
    pia, paul, mia = (arena["people"][name] for name in ("pia", "paul", "mia"))
    base = f"/api/v1/campaigns/{arena['campaign']}/matches/{match.id}"
    placed = pia.client.post(base + "/actions", json={"action": {
        "kind": "place_bet", "bet": "secret", "stake": 37, "mutant": "m2"}},
        headers={"X-CSRF-Token": pia.csrf()})
    assert placed.status_code == 200, placed.text
    for who, sees in ((paul, False), (mia, True), (pia, True)):
        state = who.client.get(base).json()["state"]
        assert any(bet["stake"] == 37 for bet in state["bets"]) is sees
        log = who.client.get(base + "/log").json()
        assert ('"stake": 37' in json.dumps(log)) is sees
        page = who.client.get(f"/campaigns/{arena['campaign']}/matches/{match.id}").text
        assert ("37 kg" in page) is sees


def test_a_crowd_retry_shows_its_bonus_in_the_form_the_api_and_the_log(db, arena):
    """§ 3-3 "Rajoutez +1 au dé à chaque fois que vous voulez retenter un événement": Pia's
    team failed the spotlight once; at the next natural 7 its form and the API say +1, and the
    retry's log line adds it to the dice."""
    gm, paul, pia = (arena["access"][name] for name in ("mia", "paul", "pia"))
    match = open_bout(db, arena, "Foule")
    team = f"owner-{pia.user.id}"
    play(db, SECRET, match, [
        *opening(gm, paul, pia),
        Step(paul, {"kind": "sprint", "token": "m1"}, [3, 4]),  # a natural 7
        Step(pia, {"kind": "crowd_event", "team": team, "event": "projecteur",
                   "victim": "m1"}, [2, 3]),  # 5 against 6: it fails
        Step(paul, {"kind": "end_turn", "token": "m1"}),
        Step(pia, {"kind": "end_turn", "token": "m2"}, [5, 2]),  # round 3 starts
        Step(paul, {"kind": "sprint", "token": "m1"}, [5, 2]),  # another natural 7
    ])
    people = arena["people"]
    url = f"/campaigns/{arena['campaign']}/matches/{match.id}"
    hint = people["pia"].page(url).select_one("#action-crowd_event .crowd-retries")
    assert hint is not None and "Projecteur (6) +1" in " ".join(hint.text.split())
    api = people["pia"].client.get("/api/v1" + url).json()
    form = next(f for f in api["legal_actions"] if f["kind"] == "crowd_event")
    assert form["choices"]["retries"] == {team: {"projecteur": 1}}
    arena["dice"].script(2, 3)  # 5 + 1 = 6: the retry works
    done = people["pia"].client.post(url + "/actions", data={
        "csrf_token": people["pia"].csrf(), "kind": "crowd_event", "team": team,
        "event": "projecteur", "victim": "m1"}, follow_redirects=False)
    assert done.status_code == 303, done.text
    db.commit()  # end the test's read, to see the page's write
    db.expire_all()
    assert db.get(Match, match.id).state["spotlight"] == ["m1"]
    lines = people["paul"].page(url).select("#log > li.kind-crowd_attempt")
    assert "It works!" in lines[-1].text and "+1 for each earlier failure" in lines[-1].text
    people["paul"].post("/account", {"display_name": "Paul", "locale": "fr"})
    french = people["paul"].page(url).select("#log > li.kind-crowd_attempt")[-1].text
    assert "+1 par échec précédent de l'équipe" in french
