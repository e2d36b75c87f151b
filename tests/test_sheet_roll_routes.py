"""Rolls from a sheet, through the page and the API (issue 23): the game's own test, signed
into the campaign's roll log with the character, told to its live stream; refusals by their
field; only the character's player and the GM roll."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from app.models import Character, Membership, Role, Roll, User
from app.rules.cyborg.profiles import CYBORGS
from app.rules.tiamat.sheet import jack
from app.services import campaigns
from app.services.rolls import entry_dict, verify
from tests.helpers import soup
from tests.match_fixtures import TableDice
from tests.test_character_creation_rolls import api_login


@pytest.fixture
def table_dice(app):
    dice = TableDice()
    app.state.dice = dice
    yield dice
    app.state.dice = None


@pytest.fixture
def lab(db, web, table_dice):
    """A Cyborg campaign: Mia the GM, Paul plays Kenji, Pia plays too, Sam watches."""
    people = {name: web(name) for name in ("mia", "paul", "pia", "sam")}
    ids = {name: db.scalar(select(User.id).where(User.username_key == name)) for name in people}
    campaign = campaigns.create_campaign(db=db, user=db.get(User, ids["mia"]), name="Labo",
                                         system="cyborg")
    db.add_all([Membership(campaign_id=campaign.id, user_id=ids[name], role=role)
                for name, role in (("paul", Role.PLAYER), ("pia", Role.PLAYER),
                                   ("sam", Role.SPECTATOR))])
    kenji = Character(campaign_id=campaign.id, owner_id=ids["paul"], name="Kenji",
                      sheet=CYBORGS[0].sheet)
    db.add(kenji)
    db.commit()
    return {"people": people, "campaign": campaign.id, "kenji": kenji.id, "dice": table_dice,
            "url": f"/campaigns/{campaign.id}/characters/{kenji.id}"}


def logged(db) -> list[Roll]:
    db.commit()
    return list(db.scalars(select(Roll).order_by(Roll.id)))


def test_a_click_on_a_skill_rolls_it_into_the_log(db, lab, settings):
    paul, url = lab["people"]["paul"], lab["url"]
    page = paul.page(url)
    button = page.select_one('button[name=roll][value="skill:arme_a_feu"]')
    assert button is not None and button["form"] == "sheet-roll-form"
    assert "72 %" in button.find_parent("tr").text
    lab["dice"].script(40)
    rolled = paul.post(url + "/rolls", {"roll": "skill:arme_a_feu"}, csrf_path=url)
    assert rolled.status_code == 303
    (roll,) = logged(db)
    assert rolled.headers["location"] == f"{url}?roll={roll.id}#sheet-rolls"
    assert (roll.character_id, roll.visibility, roll.record["total"], roll.record["target"],
            roll.record["outcome"]) == (lab["kenji"], "public", 40, 72, "master stroke")
    assert verify(settings.resolved_secret_key, entry_dict(roll))
    # Without JavaScript the page shows the roll it just made, and the log has it.
    shown = paul.page(rolled.headers["location"])
    assert "Arme à feu — Kenji" in shown.select_one("#roll-result").text
    assert f"roll-{roll.id}" in str(paul.page(f"/campaigns/{lab['campaign']}/rolls"))


def test_htmx_gets_the_panel_with_the_roll_and_the_options_kept(db, lab):
    paul, url = lab["people"]["paul"], lab["url"]
    lab["dice"].script(11)
    answer = paul.client.post(url + "/rolls", data={
        "csrf_token": paul.csrf(url), "roll": "char:force", "malus": "3",
        "visibility": "self"}, headers={"HX-Request": "true"})
    assert answer.status_code == 200
    panel = soup(answer)
    assert panel.select_one("html") is None  # the panel alone
    assert panel.select_one("#roll-result .total").text == "14"  # 11 + the malus 3
    assert panel.select_one("#roll-options").has_attr("open")
    assert panel.select_one("#roll-option-malus")["value"] == "3"
    (roll,) = logged(db)
    assert (roll.record["total"], roll.record["target"], roll.visibility) == (14, 14, "self")


def test_a_bad_option_is_refused_by_its_field_and_nothing_is_logged(db, lab):
    paul, url = lab["people"]["paul"], lab["url"]
    answer = paul.client.post(url + "/rolls", data={
        "csrf_token": paul.csrf(url), "roll": "skill:conduite", "modifier": "beaucoup"},
        headers={"HX-Request": "true"})
    # htmx swaps a refusal: it comes as 200, the refusal named in a header (middleware).
    assert answer.headers["tablee-refused"] == "422"
    panel = soup(answer)
    field = panel.select_one("#roll-option-modifier")
    assert field["aria-invalid"] == "true"
    message = panel.select_one("#" + field["aria-describedby"])
    assert "whole number" in message.text
    assert panel.select_one("#roll-options").has_attr("open")
    assert logged(db) == []


@pytest.mark.parametrize("who", ["pia", "sam"])
def test_only_the_player_and_the_gm_roll_from_a_sheet(db, lab, who):
    person, url = lab["people"][who], lab["url"]
    assert person.page(url).select_one("button[name=roll]") is None
    refused = person.post(url + "/rolls", {"roll": "skill:conduite"}, csrf_path=url)
    assert refused.status_code == 403
    lab["dice"].script(50)
    gm = lab["people"]["mia"]
    assert gm.post(url + "/rolls", {"roll": "skill:conduite", "visibility": "gm"},
                   csrf_path=url).status_code == 303
    assert [roll.visibility for roll in logged(db)] == ["gm"]


def test_over_the_api_a_sheet_lists_its_rolls_and_rolls_one(db, lab, new_client):
    paul = api_login(new_client, lab["people"]["paul"])
    base = f"/campaigns/{lab['campaign']}/characters/{lab['kenji']}/rolls"
    offered = paul.get(base).json()
    assert {"key": "skill:arme_a_feu", "label": "Arme à feu", "group": "skill",
            "formula": "72 %", "rule": "Cyborg § (III) Combats / Déroulement"} in offered["rolls"]
    assert {option["name"] for option in offered["options"]} == {"modifier", "malus"}
    lab["dice"].script(73)
    made = paul.post(base, json={"roll": "weapon:fusil_a_canon_scie",
                                 "options": {"modifier": 10}})
    assert made.status_code == 201, made.text
    (entry,) = made.json()
    assert (entry["character_id"], entry["total"], entry["record"]["target"],
            entry["record"]["outcome"]) == (lab["kenji"], 73, 82, "success")
    unknown = paul.post(base, json={"roll": "skill:pilotage"})
    assert unknown.status_code == 422
    assert unknown.json()["error"]["field"] == "roll"
    assert len(logged(db)) == 1


def test_a_tiamat_sheet_rolls_characteristic_pools(db, web, table_dice):
    """The page's buttons send the game's own test (« Caractéristique x D10 + Compétence »)."""
    mia = web("mia")
    gm_id = db.scalar(select(User.id).where(User.username_key == "mia"))
    campaign = campaigns.create_campaign(db=db, user=db.get(User, gm_id), name="Shanghai",
                                         system="tiamat")
    jack_row = Character(campaign_id=campaign.id, owner_id=gm_id, name="Jack", sheet=jack())
    db.add(jack_row)
    db.commit()
    url = f"/campaigns/{campaign.id}/characters/{jack_row.id}"
    page = mia.page(url)
    assert page.select_one('button[value="char:intelligence"] .roll-value').text == "2"
    table_dice.script(3, 7)
    assert mia.post(url + "/rolls", {"roll": "skill:informatique", "difficulty": "difficile"},
                    csrf_path=url).status_code == 303
    (roll,) = logged(db)
    assert (roll.expression, roll.record["total"], roll.record["outcome"]) == (
        "2d10t", 10, "success")
