"""The play screen's server side (issue 10): dice drawn as faces, a campaign's cap on the dice
of one roll, tokens coloured per side with short labels. The browser side is in
tests/e2e/test_table_screen.py."""

from __future__ import annotations

import pytest
from sqlalchemy import update

from app.errors import ValidationFailed
from app.models import Campaign, MatchEvent, User
from app.rules.dice import ScriptedDice
from app.services import dice_cap
from app.web.table_view import short_label, side_key, token_looks
from tests.helpers import soup

pytest_plugins = ["tests.match_fixtures"]


@pytest.fixture
def match(libre_match):
    return libre_match


def last_line(page):
    return page.select("#log > li.log-line")[-1]


def events(db) -> int:
    db.commit()
    return db.query(MatchEvent).count()


# — dice you can see ——————————————————————————————————————————————————————————————

def test_a_roll_shows_its_dice_as_faces_kept_and_dropped(match):
    match.dice.script(1, 6, 3, 5)
    match.act(match.player, kind="roll", expression="4d6kh3")
    line = last_line(match.gm.page(match.url))
    row = line.select_one(".die-row")
    faces = row.select("svg.die-face")
    assert [face.select_one("text").get_text() for face in faces] == ["1", "6", "3", "5"]
    assert [("dropped" in face["class"]) for face in faces] == [True, False, False, False]
    assert all(face.select_one("rect") is not None for face in faces)  # a d6 is square
    assert faces[0].select_one("line") is not None  # the dropped one is struck through
    assert row.select_one(".die-row-total").get_text(strip=True) == "= 14"
    assert row["aria-label"] == "4d6kh3: 1, 6, 3, 5 = 14"  # what a screen reader says


def test_an_exploding_die_is_highlighted(match):
    match.dice.script(6, 2)
    match.act(match.player, kind="roll", expression="1d6!")
    faces = last_line(match.gm.page(match.url)).select(".die-row svg.die-face")
    assert [face.select_one("text").get_text() for face in faces] == ["6", "2"]
    assert "exploded" in faces[0]["class"] and "exploded" not in faces[1]["class"]


def test_many_dice_fold_to_their_total_with_the_faces_on_demand(match):
    match.dice.script(*([3] * 20))
    match.act(match.player, kind="roll", expression="20d6")
    line = last_line(match.gm.page(match.url))
    assert line.select_one(".die-row") is None  # not twenty faces in the journal's line
    assert not line.select_one("details.dice").has_attr("open")
    assert line.select_one("details.dice summary").get_text(strip=True) == \
        "20d6: 20 dice, total 60"
    assert len(line.select("details.dice .faces svg.die-face")) == 20


# — the cap on dice per roll ————————————————————————————————————————————————————————

def test_the_default_cap_refuses_a_flood_of_dice_and_stores_nothing(match, db):
    before = events(db)
    response = match.act(match.player, kind="roll", expression="101d6")
    assert response.status_code == 422
    error = soup(response).select_one("form#action-roll .form-error").get_text(strip=True)
    assert error == ("This roll asks for 101 dice; this campaign allows at most 100 dice per "
                     "roll (the GM can change it in the campaign's settings).")
    assert soup(response).select_one("#roll-expression")["value"] == "101d6"  # kept to fix
    assert events(db) == before
    match.dice.script(*([1] * 100))
    assert match.act(match.player, kind="roll", expression="100d6").status_code == 303
    assert events(db) == before + 1


def test_the_gm_sets_the_cap_and_it_speaks_french(match, db):
    edit = f"/campaigns/{match.campaign_id}/edit"
    form = match.gm.page(edit)
    version = form.select_one('input[name="version"]')["value"]
    assert form.select_one("#field-dice_cap")["value"] == ""
    refused = match.post(match.gm, edit, {"name": "Table", "description": "",
                                          "version": version, "dice_cap": "0"})
    assert refused.status_code == 422
    assert soup(refused).select_one("#dice_cap-error").get_text(strip=True) == \
        "The dice per roll is a whole number from 1 to 1000."
    saved = match.post(match.gm, edit, {"name": "Table", "description": "",
                                        "version": version, "dice_cap": "5"})
    assert saved.status_code == 303
    db.commit()
    assert db.get(Campaign, match.campaign_id).dice_cap == 5
    assert match.gm.page(edit).select_one("#field-dice_cap")["value"] == "5"

    db.execute(update(User).where(User.id == match.ids["paul"]).values(locale="fr"))
    db.commit()
    before = events(db)
    match.dice.script(1, 2, 3)  # the first group is thrown, the second goes over the cap
    response = match.act(match.player, kind="roll", expression="3d6+3d6")
    assert response.status_code == 422
    assert soup(response).select_one("form#action-roll .form-error").get_text(strip=True) == (
        "Ce jet demande 6 dés ; cette campagne en permet au plus 5 par jet (le MJ peut "
        "changer cette limite dans les réglages de la campagne).")
    assert events(db) == before
    # The free roll page obeys the same cap.
    free = match.post(match.player, f"/campaigns/{match.campaign_id}/rolls",
                      {"expression": "6d6", "visibility": "public"})
    assert free.status_code == 422
    assert "au plus 5 par jet" in free.text


def test_capped_dice_count_every_throw_of_one_action():
    capped = dice_cap.CappedDice(ScriptedDice([1, 2, 3, 4]), 3)
    assert capped.roll(6, count=2) == [1, 2]
    assert capped.roll(6) == [3]
    with pytest.raises(ValidationFailed, match=r"4 (dice|dés)"):
        capped.roll(6)
    assert dice_cap.cap_of(None) == dice_cap.DEFAULT_DICE_CAP == 100
    assert dice_cap.check_cap(" ") is None and dice_cap.check_cap("250") == 250
    for bad in ("-1", "1001", "2.5", "abc"):
        with pytest.raises(ValidationFailed, match=r"(whole number|nombre entier)"):
            dice_cap.check_cap(bad)


# — tokens ——————————————————————————————————————————————————————————————————————

def test_tokens_take_their_sides_colour_a_short_label_and_a_portrait():
    state = {"tokens": {
        "t1": {"name": "Aldo", "owner_id": 7, "character_id": 1},
        "t2": {"name": "Brune la Forgeronne", "owner_id": 8, "character_id": 2},
        "t3": {"name": "Gobelin", "owner_id": None},
        "t4": {"name": "Zébulon", "owner_id": 7, "team": "owner-7"},
        "t5": {"name": "Écorcheur", "owner_id": None, "team": "Les Rouges"}}}
    looks = token_looks(state, portraits={2})
    assert looks["t3"]["side"] == "side-gm"  # the GM's creatures apart
    assert len({looks[t]["side"] for t in ("t1", "t2", "t5")}) == 3
    assert side_key(state["tokens"]["t4"]) == "team-owner-7"
    assert looks["t2"]["label"] == "Brune la…" and looks["t1"]["label"] == "Aldo"
    assert looks["t2"]["portrait"] == 2 and looks["t1"]["portrait"] is None


def test_a_short_label_is_cut_between_words_so_its_words_are_in_the_full_name():
    assert short_label("Gobelin des cavernes") == "Gobelin des…"
    assert short_label("Tyrannosaurusrex le grand") == "Tyrannosaurusrex…"  # one long word
    assert short_label("Zetzet") == "Zetzet"


def test_the_board_draws_the_current_token_and_full_names(match):
    page = match.player.page(match.url)
    token = page.select_one('#board .token[data-token="t1"]')
    assert token.select_one("title").get_text() == "Aldo"
    assert "side-0" in token["class"] and token["id"] == "token-t1"
    assert page.select_one("#board-slot #board") is not None
    assert page.select_one("#table-state #board") is None  # drawn once, in its own slot
