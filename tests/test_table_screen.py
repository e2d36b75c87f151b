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
    assert looks["t2"]["label"] == "Brune…" and looks["t1"]["label"] == "Aldo"
    assert looks["t2"]["portrait"] == 2 and looks["t1"]["portrait"] is None
    # Cyborg: the GM's aliens and humans, grey family, told apart.
    aliens = token_looks({"tokens": {"a": {"name": "Pieuvre", "owner_id": None,
                                           "group": "aliens"},
                                     "h": {"name": "Vigile", "owner_id": None,
                                           "group": "humains"}}})
    assert aliens["a"]["side"] == "side-gm side-gm-0"
    assert aliens["h"]["side"] == "side-gm side-gm-1"


def test_a_short_label_is_cut_between_words_so_its_words_are_in_the_full_name():
    assert short_label("Gobelin des cavernes") == "Gobelin…"  # never ends on a linking word
    assert short_label("Ourk le Pisteur") == "Ourk…"
    assert short_label("Alien à visage humain") == "Alien…"
    assert short_label("Grand Ours brun") == "Grand Ours…"
    assert short_label("Tyrannosaurusrex le grand") == "Tyrannosaurusrex…"  # one long word
    assert short_label("Zetzet") == "Zetzet"


def test_the_board_draws_the_current_token_and_full_names(match):
    page = match.player.page(match.url)
    token = page.select_one('#board .token[data-token="t1"]')
    assert token.select_one("title").get_text() == "Aldo\nhit points 12 / 12"  # and its health
    assert "side-0" in token["class"] and token["id"] == "token-t1"
    assert page.select_one("#board-slot #board") is not None
    assert page.select_one("#table-state #board") is None  # drawn once, in its own slot


# — the GM's map under the board ——————————————————————————————————————————————————

def png(width: int, height: int, colour=(120, 160, 90)) -> bytes:
    from io import BytesIO

    from PIL import Image as PILImage

    out = BytesIO()
    PILImage.new("RGB", (width, height), colour).save(out, "PNG")
    return out.getvalue()


def put_map(match, who, data: bytes | None = None, **fields):
    files = {"picture": ("carte.png", data, "image/png")} if data is not None else None
    return match.post(who, match.url + "/background", {k: str(v) for k, v in fields.items()},
                      files=files)


def board_state(db, match):
    from app.models import Match

    db.commit()
    match_row = db.get(Match, int(match.url.rsplit("/", 1)[1]))
    db.refresh(match_row)
    return match_row.state["board"]


def test_the_gm_puts_a_map_under_the_board_at_a_scale(match, db):
    response = put_map(match, match.gm, png(600, 400), pixels="10", per="cm")
    assert response.status_code == 303, response.text
    background = board_state(db, match)["background"]
    assert background["width"] == 60 and background["height"] == 40  # 600 px at 10 px/cm
    page = match.player.page(match.url)
    image = page.select_one("#board image.board-background")
    assert image["width"] == "60.0" and image["height"] == "40.0"
    served = match.player.client.get(image["href"])
    assert served.status_code == 200 and served.headers["content-type"] == "image/png"
    assert last_line(page).select_one(".log-text").get_text(" ", strip=True) == \
        "Mia puts a map under the board (10 pixels per cm)."
    # In inches on a cm board: 2.54 cm per inch.
    put_map(match, match.gm, png(254, 127), pixels="100", per="in")
    assert board_state(db, match)["background"]["width"] == 6.45  # 254 px = 2.54 in


def test_the_gm_switches_maps_during_play_and_undo_brings_the_old_one_back(match, db):
    put_map(match, match.gm, png(300, 300), pixels="5", per="cm")
    first = board_state(db, match)["background"]["image_id"]
    put_map(match, match.gm, png(200, 100, (10, 10, 10)), pixels="5", per="cm")
    second = board_state(db, match)["background"]["image_id"]
    assert second != first
    form = match.gm.page(match.url).select_one("#map-reuse")
    assert [option["value"] for option in form.select("option")] == [str(first), str(second)]
    assert put_map(match, match.gm, reuse=first, pixels="5", per="cm").status_code == 303
    assert board_state(db, match)["background"]["image_id"] == first
    assert put_map(match, match.gm, remove="1").status_code == 303
    assert "background" not in board_state(db, match)
    seq = match.seq(db)
    match.post(match.gm, match.url + "/rewind", {"to_seq": str(seq - 1)})
    assert board_state(db, match)["background"]["image_id"] == first


def test_a_bad_map_is_refused_in_words_and_changes_nothing(match, db):
    before = events(db)
    assert put_map(match, match.player, png(10, 10), pixels="5", per="cm").status_code == 403
    cases = [
        (dict(data=png(10, 10), pixels="0", per="cm"), "The scale is a number of pixels"),
        (dict(data=png(10, 10), pixels="abc", per="cm"), "The scale is a number of pixels"),
        (dict(data=png(10, 10), pixels="5", per="parsec"), "Choose the scale's unit"),
        (dict(data=png(10, 10), pixels="5", per="sq"), "give the scale per square only"),
        (dict(data=b"not a picture", pixels="5", per="cm"), "This is not a PNG, JPEG"),
        (dict(pixels="5", per="cm"), "Choose a picture to upload"),
        (dict(reuse="999", pixels="5", per="cm"), "Choose a picture to upload"),
    ]
    for fields, message in cases:
        response = put_map(match, match.gm, fields.pop("data", None), **fields)
        assert response.status_code == 422, (fields, response.status_code)
        assert message in soup(response).select_one("#table-alert").get_text(strip=True)
    assert events(db) == before
    assert "background" not in board_state(db, match)


def test_map_pictures_are_for_the_campaigns_members_only(match, db):
    put_map(match, match.gm, png(50, 50), pixels="5", per="cm")
    image_id = board_state(db, match)["background"]["image_id"]
    url = f"/campaigns/{match.campaign_id}/images/{image_id}"
    assert match.spectator.client.get(url).status_code == 200
    assert match.outsider.client.get(url).status_code == 404
    # An image id no match of this campaign used (a portrait, say) is not served here.
    assert match.player.client.get(
        f"/campaigns/{match.campaign_id}/images/{image_id + 1}").status_code == 404


def test_a_map_survives_export_and_re_import_under_a_new_picture_id(match, db):
    import json

    put_map(match, match.gm, png(120, 80, (200, 30, 30)), pixels="2", per="cm")
    put_map(match, match.gm, png(60, 60), pixels="1", per="cm")
    put_map(match, match.gm, remove="1")
    exported = match.gm.client.get(f"/campaigns/{match.campaign_id}/export")
    assert exported.status_code == 200
    document = exported.json()
    assert len(document["images"]) == 2
    first_image = document["images"][0]["id"]
    # The GM takes the last map away: the undo brings the second back, after the trip too.
    imported = match.post(match.gm, "/campaigns/import", {}, files={
        "file": ("tablee.json", json.dumps(document).encode(), "application/json")})
    assert imported.status_code == 303, imported.text
    new_campaign = int(imported.headers["location"].split("/")[2])
    again = match.gm.client.get(f"/campaigns/{new_campaign}/export").json()
    pictures = {picture["id"]: picture for picture in again["images"]}
    assert len(pictures) == 2 and first_image not in pictures
    events = [e for e in again["matches"][0]["events"] if e["kind"] == "board_background"]
    assert [e["payload"].get("image_id") for e in events][2] is None
    assert {e["payload"]["image_id"] for e in events[:2]} == set(pictures)
    # The pictures are served in the new campaign, and are the same pictures.
    first_there = events[0]["payload"]["image_id"]
    served = match.gm.client.get(f"/campaigns/{new_campaign}/images/{first_there}")
    assert served.status_code == 200 and served.content.startswith(b"\x89PNG")

    # A file whose map names a picture it does not carry is refused, and creates nothing.
    broken = dict(document, images=document["images"][1:])
    refused = match.post(match.gm, "/campaigns/import", {}, files={
        "file": ("tablee.json", json.dumps(broken).encode(), "application/json")})
    assert refused.status_code == 422
    assert "names a picture the file does not carry" in refused.text
