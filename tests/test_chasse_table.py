"""Chasse préhistorique through the real table engine: a scripted hunt with fold(log) ==
snapshot after every step, rewind and redo, the sheets written back at the end; then the
JSON API (forms, refusals) and the table page in both languages."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup
from sqlalchemy import update

from app.models import Character, User
from app.rules.chasse.sheet import blank_sheet
from app.rules.dice import ScriptedDice
from app.services import tables
from tests.helpers import form_actions, open_match_page
from tests.seating import campaign_access, campaign_with_players, user_ids
from tests.table_harness import Step, assert_rewind_and_redo_round_trip, play

pytest_plugins = ["tests.match_fixtures"]

SECRET = "test-secret"


@pytest.fixture
def hunt(db, api):
    """GM Mia; Paul plays Ourk (javelin and spear); a lone boar in the valley."""
    users = {name: api(name) for name in ("mia", "paul")}
    campaign = campaign_with_players(db, users["mia"].id, [users["paul"].id], name="Tribu",
                                     system="chasse")
    ourk = Character(campaign_id=campaign.id, owner_id=users["paul"].id, name="Ourk",
                     sheet={**blank_sheet(), "weapons": ["javelot", "lance"]})
    db.add(ourk)
    db.commit()
    access = campaign_access(db, {name: user.id for name, user in users.items()}, campaign.id)
    match = tables.create_match(db=db, secret=SECRET, access=access["mia"], name="Chasse",
                                character_ids=[ourk.id], options={}, dice=ScriptedDice([]))
    return access, match, ourk.id, users


def test_a_scripted_hunt_folds_to_the_snapshot(db, hunt):
    access, match, ourk, _users = hunt
    gm, paul = access["mia"], access["paul"]
    # Ourk starts at (24, 34); the boar 7" north, alone.
    play(db, SECRET, match, [
        Step(gm, {"kind": "add_prey", "species": "sanglier", "x": 24, "y": 27}),
        Step(gm, {"kind": "begin_hunt"}),
        Step(paul, {"kind": "next_step"}),                               # 2 → (3) → 4
        Step(paul, {"kind": "move", "token": "t1", "x": 24, "y": 31}),   # 3" from the boar
        # Step 5: a hunter within 3"? 4" away: no. Step 6: throw, 4" = long range (5+).
        Step(paul, {"kind": "next_step"}),
        # The throw hits (6), save 2 < 5. Then nothing is left to do at steps 6 and 7: they
        # pass by themselves. Leaving 7: no contact. Step 8: attacked → blue 6 (agressive,
        # alone) = charge, red 2: 8 + 2 = 10" → contact with Ourk, melee at once with +1:
        # the boar hits on 5 + 1, Ourk's save 6 fails at 3; Ourk strikes back 4 ≥ 4, the
        # boar's save 1. Step 10 has nothing to do: the turn ends, the next one begins.
        Step(paul, {"kind": "shoot", "token": "t1", "target": "t2", "weapon": "javelot"},
             [6, 2, 6, 2, 5, 3, 4, 1]),
    ])
    db.refresh(match)
    state = match.state
    assert (state["round"], state["step"]) == (2, 2)
    boar, hunter = state["tokens"]["t2"], state["tokens"]["t1"]
    assert boar["wounds"] == 2 and hunter["wounds"] == 1
    assert_rewind_and_redo_round_trip(db, gm, match, to_seq=8)
    play(db, SECRET, match, [Step(gm, {"kind": "end_hunt"})])
    db.refresh(match)
    assert match.status == "finished"
    db.expire_all()
    sheet = db.get(Character, ourk).sheet
    assert (sheet["hunts"], sheet["wounds"], sheet["dead"]) == (1, 0, False)


def test_the_json_api_gives_the_forms_and_refuses_illegal_moves(db, hunt):
    _access, match, _ourk, users = hunt
    base = f"/campaigns/{match.campaign_id}/matches/{match.id}"
    kinds = {f["kind"] for f in users["mia"].get(base).json()["legal_actions"]}
    assert {"choose_scenario", "add_prey"} <= kinds and "begin_hunt" not in kinds
    assert users["paul"].post(base + "/actions", json={"action": {
        "kind": "choose_scenario", "scenario": "vallee"}}).status_code == 422
    assert users["mia"].post(base + "/actions", json={"action": {
        "kind": "choose_scenario", "scenario": "vallee"}}).status_code == 200
    assert users["mia"].post(base + "/actions", json={"action": {
        "kind": "begin_hunt"}}).status_code == 200
    paul = users["paul"].get(base).json()
    assert {f["kind"] for f in paul["legal_actions"]} >= {"next_step", "note"}
    assert users["paul"].post(base + "/actions", json={"action": {
        "kind": "next_step"}}).status_code == 200
    seq = users["paul"].get(base).json()["seq"]
    refused = users["paul"].post(base + "/actions", json={"action": {
        "kind": "move", "token": "t1", "x": 24, "y": 10}})
    assert refused.status_code == 422
    assert users["paul"].get(base).json()["seq"] == seq  # nothing stored


@pytest.fixture
def hunt_page(db, web, libre_dice):
    people = {name: web(name) for name in ("mia", "paul")}
    ids = user_ids(db, people)
    campaign = campaign_with_players(db, ids["mia"], [ids["paul"]], name="Tribu",
                                     system="chasse")
    ourk = Character(campaign_id=campaign.id, owner_id=ids["paul"], name="Ourk",
                     sheet={**blank_sheet(), "weapons": ["javelot"]})
    db.add(ourk)
    db.execute(update(User).values(locale="en"))
    db.commit()
    return people, campaign.id, ourk.id, libre_dice


def open_valley_match(hunt_page) -> str:
    """Mia opens "Vallée" from the page: Ourk on a 48 × 36 in board; its URL."""
    people, campaign_id, ourk, _dice = hunt_page
    return open_match_page(people["mia"], campaign_id, "Vallée", [ourk],
                           width="48", height="36", unit="in")


def test_the_table_page_runs_a_hunt(db, hunt_page):
    people, *_, dice = hunt_page
    mia, paul = people["mia"], people["paul"]
    url = open_valley_match(hunt_page)
    page = BeautifulSoup(mia.client.get(url).text, "html.parser")
    assert page.select_one("#action-choose_scenario select[name=scenario]") is not None
    act = form_actions(url, dice)
    act(mia, kind="choose_scenario", scenario="mammouth")
    act(mia, kind="begin_hunt")
    page = BeautifulSoup(paul.client.get(url).text, "html.parser")
    assert page.select_one(".steps [aria-current=step]").text.strip() == "Lighting fires"
    assert page.select_one("#action-light_fire") is not None
    assert "Mammouth" in page.select_one(".participants").text
    act(paul, kind="next_step")
    page = BeautifulSoup(paul.client.get(url).text, "html.parser")
    move = page.select_one("#action-move")
    assert move is not None and move.select_one("input[name=group]") is not None
    assert 'Ourk at (24, 33): 6" left' in move.select_one(".help").text
    paul.post("/account", {"display_name": "Paul", "locale": "fr"})
    french = BeautifulSoup(paul.client.get(url).text, "html.parser")
    assert french.select_one(".steps [aria-current=step]").text.strip() == \
        "Mouvements des chasseurs et charges"
    assert "La chasse commence." in french.text


def test_the_sheet_pages_render(db, hunt_page):
    people, campaign_id, ourk, _dice = hunt_page
    paul = people["paul"]
    view = BeautifulSoup(paul.client.get(f"/campaigns/{campaign_id}/characters/{ourk}").text,
                         "html.parser")
    assert view.select_one(".sheet-chasse .sheet-weapons").text.strip() == "Javelot"
    edit = BeautifulSoup(paul.client.get(
        f"/campaigns/{campaign_id}/characters/{ourk}/edit").text, "html.parser")
    assert edit.select_one("select[name=profile]") is not None
    printed = paul.client.get(f"/campaigns/{campaign_id}/characters/{ourk}/print")
    assert printed.status_code == 200
    card = BeautifulSoup(printed.text, "html.parser").select_one(".print-chasse .weapon-table")
    assert [td.text for td in card.select("tbody tr")[0].select("td")] == [
        '3" / 6"', "4+ / 4+ / 4+", "6+ / 5+ / 4+"]


def test_the_hunt_reads_in_the_readers_words(db, hunt_page):
    """Keys become words (temperament, speed, herd, directions, prey outcomes), fractions
    are written as the reader writes them, and citations name the game and its section."""
    people, campaign_id, _ourk, dice = hunt_page
    mia = people["mia"]
    url = open_valley_match(hunt_page)
    form_actions(url, dice)(mia, kind="choose_scenario", scenario="vallee")

    def read(client):
        page = BeautifulSoup(client.get(url).text, "html.parser")
        badges = [b.text.strip() for b in page.select(".figure-prey .badge.group")]
        cells = [td.text for td in page.select(".reaction-tables tbody tr")[0].select("td")]
        return page, badges, cells

    page, badges, cells = read(mia.client)
    assert "aggressive · fast · sounder (dominant)" in badges
    assert "placid · very fast" in badges
    assert set(cells) <= {"flees", "stays", "attacks", "charges"} and "flees" in cells
    assert "the direction: north, east, south, west, north, south." in page.text
    assert 'Sanglier placed at (25.5, 8.5): M3, aggressive, Dmax 8". Group sounder.' in page.text

    mia.post("/account", {"display_name": "Mia", "locale": "fr"})
    page, badges, cells = read(mia.client)
    assert "agressive · rapide · harde (dominant)" in badges
    assert set(cells) <= {"fuit", "reste", "attaque", "charge"} and "fuit" in cells
    assert "la direction : nord, est, sud, ouest, nord, sud." in page.text
    assert 'Sanglier placé en (25,5, 8,5) : M3, agressive, Dmax 8". Groupe harde.' in page.text
    assert "Tribu d'Ourk" in page.select_one(".sides").text  # « de » elided before a vowel
    content = BeautifulSoup(mia.client.get(f"/campaigns/{campaign_id}/content").text,
                            "html.parser").text
    assert "Chasse préhistorique § Tirs (table absente du texte : règles maison)" in content
    assert ".txt" not in content and "Chasse §" not in content
    compendium = BeautifulSoup(mia.client.get(f"/campaigns/{campaign_id}/compendium").text,
                               "html.parser")
    boar = [cell.text for cell in compendium.select_one(
        "#compendium-prey tbody tr:nth-of-type(4)").select("th, td")]
    assert boar == ["Sanglier", "M3", "agressive", "rapide", '8"', "Défenses"]
    javelin = [cell.text for cell in compendium.select_one(
        "#compendium-weapon tbody tr:nth-of-type(4)").select("th, td")]
    assert javelin == ["Javelot", '3" / 6"', "4+ / 4+ / 4+", "6+ / 5+ / 4+"]


def test_refusals_and_sheet_rules_are_in_the_readers_words():
    from app.i18n import set_locale
    from app.rules.chasse.actions import HuntRefused
    from app.rules.chasse.sheet import validate
    from app.services.characters import describe_problems

    refused = HuntRefused("out_of_range", distance=7.25, long=6)
    assert refused.message_fr() == 'hors de portée (7,25") : à 1" ou moins, ou au-delà de 6"'
    assert refused.message == 'out of range (7.25"): 1" or less, or beyond 6"'
    problems = validate({**blank_sheet(), "weapons": ["javelot", "lance", "massue", "arc"]})
    try:
        set_locale("fr")
        french = describe_problems(problems)
        set_locale("en")
        english = describe_problems(problems)
    finally:
        set_locale("fr")
    assert french[0]["rule"] == "Chasse préhistorique § Tirs (règle maison : trois armes au plus)"
    assert english[0]["rule"] == "Chasse préhistorique § Tirs (house rule: three weapons at most)"


def test_a_prey_charge_reads_its_distances_and_a_solo_hunt_ends_with_its_score(db, hunt_page):
    """The log explains a prey's move (Dmax + red die, each figure's distance); a solo hunt
    ends with a score (not a ranking) and says why it ended."""
    people, *_, dice = hunt_page
    mia, paul = people["mia"], people["paul"]
    url = open_valley_match(hunt_page)

    act = form_actions(url, dice)

    # Ourk at (24, 34), a lone boar 7" north: the same hunt as the scripted one above.
    act(mia, kind="add_prey", species="sanglier", x="24", y="27")
    act(mia, kind="begin_hunt")
    act(paul, kind="next_step")
    act(paul, kind="move", token="t1", x="24", y="31")
    act(paul, kind="next_step")
    # the throw; then at step 8 the boar charges: 8 + 2 = 10"
    act(paul, (6, 2, 6, 2, 5, 3, 4, 1), kind="shoot", token="t1", target="t2",
        weapon="javelot")
    page = BeautifulSoup(mia.client.get(url).text, "html.parser")
    charge = next(" ".join(line.text.split()) for line in page.select(".log-line, #log li")
                  if "Sanglier (attacked, step 8): charges." in line.text)
    assert 'Charge: Dmax 8" + red die 2 = 10".' in charge
    assert '(24, 27) → (24, 30), 3"' in charge  # it stops in contact with Ourk (24, 31)
    act(mia, kind="end_hunt")
    page = BeautifulSoup(mia.client.get(url).text, "html.parser")
    result = page.select_one(".hunt-result")
    assert result.select_one("h3").text == "Score"
    assert result.select_one(".end-reason").text == "The hunt is over: the GM ended it."
