"""Tiamat's and Cyborg Anti-Alien's odds on the table page (docs/odds.md § Tiamat, § Cyborg
Anti-Alien): the panel under their forms, figures that follow the form's choices, words in
the reader's language — and a Tiamat player's odds that never count the standing defence
only the GM and its player may know."""

from __future__ import annotations

import copy

import pytest
from bs4 import BeautifulSoup

from app.rules.cyborg.profiles import PROFILES
from app.rules.tiamat.profiles import jin
from app.rules.tiamat.sheet import jack
from tests.odds_pages import ask, english_table, open_match

pytest_plugins = ["tests.match_fixtures"]


def sentence(shown: BeautifulSoup) -> str:
    found = shown.select_one(".odds-sentence")
    return found.text if found else ""


def page(user, url: str) -> BeautifulSoup:
    return BeautifulSoup(user.client.get(url).text, "html.parser")


@pytest.fixture
def dojo(db, web, libre_dice):
    """GM Mia, Paul plays Jack; the GM's Jin Chun-Fung. Jack acts first."""
    people, campaign, characters = english_table(
        db, web, name="Tiamat", system="tiamat",
        characters=[("Jack", jack(), True), ("Jin Chun-Fung", jin(), False)])
    url, act = open_match(people, campaign, "Dojo", characters, libre_dice)
    act(people["mia"], (9, 1, 1, 1, 1, 1), kind="roll_initiative")  # Jack 9, Jin 1
    return people, url, act


def test_tiamat_forms_show_their_odds_and_they_follow_the_technique(dojo):
    people, url, _act = dojo
    paul = people["paul"]
    shown = page(paul, url)
    for kind in ("attack", "test", "manoeuvre", "jump"):
        panel = shown.select_one(f"#action-{kind} .odds-panel")
        assert panel is not None and panel["hx-post"] == url + "/odds", kind
    punch = ask(paul, url, kind="attack", technique="oi_zuki", target="p2")
    kick = ask(paul, url, kind="attack", technique="mae_geri", target="p2")
    assert sentence(punch).startswith("64% to hit; ") and " santé points on average" in sentence(
        punch)
    assert sentence(punch) != sentence(kick)
    assert "Précision 2D10 + 2 against the défense instinctive of Jin Chun-Fung" in punch.text
    assert "the blow lands" in punch.text
    # The sentence and the chances in sight; how they are worked out (the rolls, the other
    # defences) folded under « Details », whose id lets htmx give the focus back.
    folded = punch.select_one("details.odds-more")
    assert folded is not None and not folded.has_attr("open")
    assert folded.select_one("summary")["id"] == "odds-attack-more"
    assert punch.select_one(".odds-sentence").find_parent("details") is None
    assert punch.select_one(".odds-chances").find_parent("details") is None
    assert all(line.find_parent("details") is folded for line in punch.select(".odds-detail"))
    assert "Salto: " in folded.text
    paul.post("/account", {"display_name": "Paul", "locale": "fr"})
    french = ask(paul, url, kind="attack", technique="oi_zuki", target="p2")
    assert french.select_one("details.odds-more > summary").text == "Le détail"
    assert "\u202f% de toucher\u202f; " in sentence(french)
    assert "points de santé en moyenne" in sentence(french)
    assert "contre la défense instinctive de Jin Chun-Fung" in french.text
    test = ask(paul, url, kind="test", participant="p1", characteristic="habilete",
               skill="acrobatie", difficulty="heroique")
    assert sentence(test).endswith("\u202f% de réussir")
    assert "Aucun dé" in sentence(ask(paul, url, kind="manoeuvre", what="prepare"))


def test_a_standing_defence_stays_out_of_a_player_s_odds(dojo):
    """Jin always parries (his standing defence, the GM's to know): the GM's odds of Jack's
    punch count that parry, Paul's the défense instinctive and the choices Jin has."""
    people, url, act = dojo
    mia, paul = people["mia"], people["paul"]
    act(mia, kind="standing_defence", choice="p2:parade_instinctive")
    punch = {"kind": "attack", "technique": "oi_zuki", "target": "p2"}
    gm, player = ask(mia, url, **punch), ask(paul, url, **punch)
    assert "answers at once with the standing defence" in gm.text
    assert "Parade instinctive," in gm.text  # its précision pool, in the first detail
    assert "answers at once" not in player.text and "Parade instinctive," not in player.text
    assert "Worked out against the défense instinctive of Jin Chun-Fung" in player.text
    assert sentence(gm) != sentence(player)


@pytest.fixture
def lab(db, web, libre_dice):
    """GM Mia, Paul plays Kenji; the GM's octopus. The cyborgs act first."""
    people, campaign, characters = english_table(
        db, web, name="KCA", system="cyborg",
        characters=[("Kenji", copy.deepcopy(PROFILES["kenji"].sheet), True),
                    ("Pieuvre", copy.deepcopy(PROFILES["pieuvre"].sheet), False)])
    url, act = open_match(people, campaign, "Labo", characters, libre_dice, width="40",
                          height="30", unit="sq")
    act(people["mia"], kind="roll_initiative", surprise="cyborgs")
    return people, url, act


def test_cyborg_forms_show_their_odds_and_they_follow_the_choices(lab):
    people, url, _act = lab
    paul = people["paul"]
    shown = page(paul, url)
    for kind in ("attack", "test"):
        assert shown.select_one(f"#action-{kind} .odds-panel") is not None, kind
    shot = ask(paul, url, kind="attack", armed="t1:fusil_a_canon_scie", target="t2",
               shots="1")
    dark = ask(paul, url, kind="attack", armed="t1:fusil_a_canon_scie", target="t2",
               shots="1", mod_obscurite="on")
    assert sentence(shot).startswith("50% to hit")  # 72 % against the octopus' 30 % dodge
    assert sentence(dark) != sentence(shot)
    assert "Esquive/Parade of Pieuvre: 30 % or less stops it." in shot.text
    paul.post("/account", {"display_name": "Paul", "locale": "fr"})
    french = ask(paul, url, kind="attack", armed="t1:fusil_a_canon_scie", target="t2",
                 shots="1")
    assert sentence(french).startswith("50\u202f% de toucher\u202f; ")
    assert "il faut 72 ou moins au D100" in french.text
    test = ask(paul, url, kind="test", token="t1", test="skill", skill="reperage")
    assert "de coup de maître" in sentence(test)
    # Out of reach, the chainsaw is refused: no odds, and the panel says to choose.
    assert "Choisissez" in ask(paul, url, kind="attack", armed="t1:tronconneuse",
                               target="t2").text


def test_a_veiled_alien_has_no_odds_for_a_player(lab):
    """The GM veils the octopus (``map_veil``): Paul's odds of shooting it are the same « no
    odds » as for nobody, while the GM's still count it; the page names no odds either."""
    people, url, act = lab
    mia, paul = people["mia"], people["paul"]
    shot = {"kind": "attack", "armed": "t1:fusil_a_canon_scie", "target": "t2", "shots": "1"}
    assert sentence(ask(paul, url, **shot)).startswith("50% to hit")
    act(mia, kind="map_veil", token="t2", hidden="on")
    hidden = ask(paul, url, **shot)
    assert sentence(hidden) == "" and "Choose the action" in hidden.text
    assert "Pieuvre" not in hidden.text
    assert sentence(ask(mia, url, **shot)).startswith("50% to hit")
