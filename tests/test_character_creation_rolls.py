"""Creating a character in a game that rolls part of its sheet (issue 23): the page's builder
is the sheet the dice complete (Tiamat), every refusal is shown by its field and summed up at
the top, the rolls are signed into the roll log; Cyborg still rolls first. Same over the API."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from sqlalchemy import select

from app.models import Character, Membership, Role, Roll, User
from app.rules.dice import SeededDice
from app.rules.tiamat.sheet import jack
from app.services import campaigns
from app.services.rolls import entry_dict, verify
from tests.conftest import TEST_PASSWORD
from tests.helpers import ApiUser, WebUser, soup
from tests.match_fixtures import TableDice


@dataclass
class Seated:
    gm: WebUser
    player: WebUser
    campaign_id: int
    dice: TableDice

    @property
    def url(self) -> str:
        return f"/campaigns/{self.campaign_id}/characters"


@pytest.fixture
def table_dice(app) -> Iterator[TableDice]:
    dice = TableDice()
    app.state.dice = dice
    yield dice
    app.state.dice = None


def seat(db, web, dice: TableDice, system: str) -> Seated:
    gm, player = web("mia"), web("paul")
    ids = {name: db.scalar(select(User.id).where(User.username_key == name))
           for name in ("mia", "paul")}
    campaign = campaigns.create_campaign(db=db, user=db.get(User, ids["mia"]), name="Shanghai",
                                         system=system)
    db.add(Membership(campaign_id=campaign.id, user_id=ids["paul"], role=Role.PLAYER))
    db.commit()
    return Seated(gm, player, campaign.id, dice)


@pytest.fixture
def tiamat(db, web, table_dice) -> Seated:
    return seat(db, web, table_dice, "tiamat")


# The builder's fields for a karateka (Jack's choices, « Exemple de création »).
KARATEKA = {"kind": "pj", "talent_mode": "random", "char_force": "3", "char_endurance": "2",
            "char_habilete": "2", "char_rapidite": "2", "char_perception": "2",
            "char_intelligence": "2", "char_temperament": "2", "char_volonte": "3",
            "skill_conduite": "6", "skill_informatique": "3", "art_karate": "on",
            "technique_oi_zuki": "on", "technique_mae_geri": "on", "technique_age_uke": "on",
            "technique_gedan_barai": "on", "armour": "blouson_cuir", "sexe": "masculin"}


def rolls_of(db, character_id: int) -> list[Roll]:
    db.commit()
    return list(db.scalars(select(Roll).where(Roll.character_id == character_id)
                           .order_by(Roll.id)))


def test_a_player_builds_a_tiamat_fighter_and_the_dice_give_the_talents(db, tiamat, settings):
    new = tiamat.player.page(tiamat.url + "/new")
    # The builder is on the page, the talents shown as what the dice will decide.
    assert new.select_one("#sheet-char-force") is not None
    assert new.select_one("#sheet-art-karate") is not None
    assert new.select_one(".tiamat-talents .dice-decide") is not None
    tiamat.dice.script(7, 5, 5, 5)  # Transfert d'énergie, Sursaut d'énergie (« Jack »)
    created = tiamat.player.post(tiamat.url, {"name": "Jack", **KARATEKA,
                                              "talent_sixieme_sens": "on"},
                                 csrf_path=tiamat.url + "/new")
    assert created.status_code == 303, soup(created).select_one("#refusal")
    character = db.get(Character, int(created.headers["location"].rsplit("/", 1)[1]))
    # What the player chose is kept; what they ticked for the dice's part is not.
    assert character.sheet["talents"] == ["transfert_d_energie", "sursaut_d_energie"]
    assert character.sheet["arts"] == ["karate"] and character.sheet["skills"]["conduite"] == 6
    rolls = rolls_of(db, character.id)
    assert [roll.record["total"] for roll in rolls] == [7, 5, 5, 5]
    assert all(verify(settings.resolved_secret_key, entry_dict(roll)) for roll in rolls)
    assert {roll.visibility for roll in rolls} == {"public"}


def test_a_refused_fighter_says_why_by_each_field_and_rolls_nothing(db, tiamat):
    """The issue's 422 without a word: no art, and five techniques; nothing is rolled."""
    refused = tiamat.player.post(tiamat.url, {
        "name": "Mei Lin", **{k: v for k, v in KARATEKA.items() if k != "art_karate"},
        "char_force": "4", "technique_mawashi_geri": "on"}, csrf_path=tiamat.url + "/new")
    assert refused.status_code == 422
    page = soup(refused)
    summary = page.select_one("#refusal")
    assert summary is not None and "not created" in summary.text
    by_field = {li["data-field"]: li.text for li in summary.select("li[data-field]")}
    assert "martial art" in by_field["arts"]
    assert "characteristics" in by_field
    for field in ("arts", "characteristics", "techniques"):
        message = page.select_one(f"#problem-{field}")
        assert message is not None and message.text.strip(), field
        # The link in the summary leads to it, and the fields point at it.
        assert summary.select_one(f'a[href="#problem-{field}"]') is not None
        assert page.select_one(f'[aria-describedby~="problem-{field}"]') is not None
        # Its section is open, so the message shows.
        assert message.find_parent("details", class_="sheet-section").has_attr("open")
    # What was typed is shown again, never a roll.
    assert page.select_one("#sheet-char-force")["value"] == "4"
    assert page.select_one("#field-name")["value"] == "Mei Lin"
    db.commit()
    assert db.scalar(select(Roll).where(Roll.campaign_id == tiamat.campaign_id)) is None


def test_one_chosen_talent_is_kept_and_nothing_is_rolled(db, tiamat):
    created = tiamat.player.post(tiamat.url, {
        "name": "Ryu", **KARATEKA, "talent_mode": "chosen", "talent_zen": "on"},
        csrf_path=tiamat.url + "/new")
    assert created.status_code == 303
    character = db.get(Character, int(created.headers["location"].rsplit("/", 1)[1]))
    assert character.sheet["talents"] == ["zen"]
    assert rolls_of(db, character.id) == []
    # Two chosen talents are refused by the talents' field.
    two = tiamat.player.post(tiamat.url, {
        "name": "Ken", **KARATEKA, "talent_mode": "chosen", "talent_zen": "on",
        "talent_aura": "on"}, csrf_path=tiamat.url + "/new")
    assert two.status_code == 422
    assert soup(two).select_one("#problem-talents") is not None


def test_the_gm_builds_a_player_character_with_the_dice_or_keeps_a_typed_profile(db, tiamat):
    tiamat.dice.script(10, 4, 1, 1)  # Zen, Agilité du singe
    rolled = tiamat.gm.post(tiamat.url, {"name": "Dante", **KARATEKA},
                            csrf_path=tiamat.url + "/new")
    assert rolled.status_code == 303
    db.commit()
    dante = db.get(Character, int(rolled.headers["location"].rsplit("/", 1)[1]))
    assert dante.sheet["talents"] == ["zen", "agilite_du_singe"]
    typed = tiamat.gm.post(tiamat.url, {"name": "Jin", **KARATEKA, "typed_sheet": "1",
                                        "talent_aura": "on", "talent_zen": "on"},
                           csrf_path=tiamat.url + "/new")
    assert typed.status_code == 303, soup(typed).select_one("#refusal")
    db.commit()
    jin = db.get(Character, int(typed.headers["location"].rsplit("/", 1)[1]))
    assert jin.sheet["talents"] == ["aura", "zen"] and rolls_of(db, jin.id) == []


def api_login(new_client, user: WebUser) -> ApiUser:
    """The same account as a script with a bearer token (its own client: no cookie)."""
    scripted = ApiUser(new_client(), user.username)
    login = scripted.client.post("/api/v1/auth/login", json={"username": user.username,
                                                             "password": TEST_PASSWORD})
    scripted.headers = {"Authorization": f"Bearer {login.json()['token']}"}
    return scripted


def test_over_the_api_a_full_tiamat_sheet_gets_its_talents_rolled(db, tiamat, settings,
                                                                  new_client):
    paul = api_login(new_client, tiamat.player)
    tiamat.dice.script(7, 5, 5, 5)
    sheet = {**jack(), "talents": ["zen"]}  # the player's talents are the dice's
    created = paul.post(f"/campaigns/{tiamat.campaign_id}/characters",
                        json={"name": "Jack", "sheet": sheet})
    assert created.status_code == 201, created.text
    body = created.json()
    assert body["sheet"]["talents"] == ["transfert_d_energie", "sursaut_d_energie"]
    assert body["sheet"]["techniques"] == jack()["techniques"]
    rolls = rolls_of(db, body["id"])
    assert [roll.record["total"] for roll in rolls] == [7, 5, 5, 5]
    assert all(verify(settings.resolved_secret_key, entry_dict(roll)) for roll in rolls)
    # A refused sheet answers every problem and rolls nothing.
    refused = paul.post(f"/campaigns/{tiamat.campaign_id}/characters",
                        json={"name": "Mei", "sheet": {**jack(), "arts": []}})
    assert refused.status_code == 422
    assert "arts" in {p["field"] for p in refused.json()["error"]["details"]["problems"]}
    assert len(rolls_of(db, body["id"])) == 4


def test_cyborg_still_rolls_first_and_the_credit_is_spread_on_the_edit_page(db, web,
                                                                          table_dice):
    cyborg = seat(db, web, table_dice, "cyborg")
    table_dice.current = SeededDice(23)  # ten rolls and more: seeded, not scripted
    page = cyborg.player.page(cyborg.url + "/new")
    assert page.select_one(".rolled-at-creation") is not None
    assert page.select_one("#sheet-char-force") is None  # nothing to choose before the dice
    created = cyborg.player.post(cyborg.url, {"name": "KCA-9"}, csrf_path=cyborg.url + "/new")
    assert created.status_code == 303
    character = db.get(Character, int(created.headers["location"].rsplit("/", 1)[1]))
    assert len(character.sheet["drawn"]) == 3
    assert len(rolls_of(db, character.id)) >= 10  # six characteristics, santé, three draws
    # A refusal (a name already taken) says so by the name, and rolls nothing more.
    before = len(rolls_of(db, character.id))
    again = cyborg.player.post(cyborg.url, {"name": "KCA-9"}, csrf_path=cyborg.url + "/new")
    assert again.status_code == 409
    assert soup(again).select_one("#name-error") is not None
    db.commit()
    assert db.scalar(select(Roll.id).where(Roll.campaign_id == cyborg.campaign_id)
                     .order_by(Roll.id.desc()).limit(1)) == rolls_of(db, character.id)[-1].id
    assert len(rolls_of(db, character.id)) == before
