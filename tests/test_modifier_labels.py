"""A roll's modifiers in the reader's language (issue 10): a label the rules name in words
that are not game terms is a ``Purpose`` (« MJ » / "GM", « aides » / "helpers", « cerveau » /
"brain"); game terms (skills, characteristics as the seed writes them) stay French in both
languages; a label stored before message ids shows as stored. Cyborg characteristic tests say
the characteristic as the seed writes it (« dextérité »), never its key."""

from __future__ import annotations

import json
import re

import pytest
from sqlalchemy import select

from app.db import write_transaction
from app.models import Campaign, Match
from app.rules import notation
from app.rules.dice import Modifier, RollRecord, ScriptedDice
from app.rules.purposes import Purpose
from app.services import demo, rolls
from tests.helpers import csrf_from, soup
from tests.test_words import _login


@pytest.fixture
def demo_tables(settings, app):
    demo.ensure_demo(settings)


def _gm_record() -> RollRecord:
    return notation.roll("1d20", ScriptedDice([4])).with_modifiers(Modifier(-3, Purpose("GM")))


def test_a_named_label_is_stored_in_french_with_its_message_and_said_in_english():
    record = _gm_record()
    data = json.loads(json.dumps(record.to_dict()))
    assert data["modifiers"] == [{"value": -3, "label": "MJ",
                                  "label_message": {"id": "GM", "params": {}}}]
    again = RollRecord.from_dict(data)
    assert again == record and again.to_dict() == data
    assert again.modifiers[0].text("en") == "GM"
    assert again.describe("en") == "1d20: 4 → 4 - GM 3 = 1"
    # as stored (French) when no language is asked, as before
    assert again.describe() == "1d20: 4 → 4 - MJ 3 = 1"
    # A label stored before message ids, or a game term, shows as stored.
    old = {**data, "modifiers": [{"value": -3, "label": "MJ"}]}
    assert RollRecord.from_dict(old).describe("en") == "1d20: 4 → 4 - MJ 3 = 1"
    assert Modifier(2, "Kenjutsu").text("en") == "Kenjutsu"
    assert Modifier(-2, Purpose("GM")).text("en") == "GM"


def _match_url(db, system: str) -> str:
    match = db.scalar(select(Match).join(Campaign).where(Campaign.system == system))
    return f"/campaigns/{match.campaign_id}/matches/{match.id}"


def _act(client, url: str, **fields) -> None:
    done = client.post(url + "/actions", data={"csrf_token": csrf_from(client.get(url)),
                                               **fields}, follow_redirects=False)
    assert done.status_code == 303, done.text


def _rolls(page) -> list[tuple[str, list[str]]]:
    """Each roll under the journal: (what it was for, its modifier lines)."""
    found = []
    for details in page.select("#log .roll-details"):
        purpose = next((dt.find_next_sibling("dd").text for dt in details.select("dt")
                        if dt.text in ("For", "Pour")), "")
        found.append((purpose, [li.text for li in details.select("ul.modifiers li")]))
    return found


def _read(new_client, url: str) -> dict[str, object]:
    """The page as the GM reads it in English, then in French (a language is the member's
    setting: each login sets it)."""
    return {language: soup(_login(new_client, demo.GM_USERNAME, language).get(url))
            for language in ("en", "fr")}


def test_cyborg_tests_name_the_characteristic_and_the_malus_in_the_readers_words(
        db, new_client, demo_tables):
    db.commit()
    url = _match_url(db, "cyborg")
    gm = _login(new_client, demo.GM_USERNAME, "fr")
    page = soup(gm.get(url))
    token = page.select_one("#action-test select[name=token] option")["value"]
    _act(gm, url, kind="test", token=token, characteristic="dexterite", malus="3")
    pages = _read(new_client, url)
    fr, en = _rolls(pages["fr"]), _rolls(pages["en"])
    # « malus » is the English pages' word too ("GM's malus", "1D20 + malus 3")
    assert ("test — dextérité", ["+3 malus"]) in fr
    assert ("test — dextérité", ["+3 malus"]) in en
    for page in pages.values():
        assert "dexterite" not in page.select_one("#log").text


def test_cyborg_shot_lines_put_the_colon_the_french_way(db, new_client, demo_tables):
    """« Vigile (humain) : d100 … » on a French page (a narrow no-break space before the
    colon), « Vigile (humain): d100 … » on an English one."""
    db.commit()
    url = _match_url(db, "cyborg")
    gm = _login(new_client, demo.GM_USERNAME, "fr")
    _act(gm, url, kind="attack", token="t1", weapon="fusil_a_canon_scie", target="t5")
    shots = {language: [li.text for li in page.select("#log li.shot")]
             for language, page in _read(new_client, url).items()}
    assert shots["fr"] and shots["en"]
    assert all("\u202f: " in line.split("d100")[0] for line in shots["fr"]), shots["fr"]
    assert not any(re.search(r"\w;", line) for line in shots["fr"]), shots["fr"]
    assert all("\u202f" not in line and ": " in line for line in shots["en"]), shots["en"]


def test_tiamat_gm_bonus_reads_gm_in_english_and_the_skill_stays_french(
        db, new_client, demo_tables):
    db.commit()
    url = _match_url(db, "tiamat")
    gm = _login(new_client, demo.GM_USERNAME, "fr")
    page = soup(gm.get(url))
    options = [o["value"] for o in page.select("#action-opposed select[name=participant_a] option")]
    _act(gm, url, kind="opposed", participant_a=options[0], characteristic_a="force",
         bonus_a="2", participant_b=options[1], characteristic_b="force")
    said = {language: _rolls(page) for language, page in _read(new_client, url).items()}
    assert any("+2 MJ" in lines for _, lines in said["fr"])
    assert any("+2 GM" in lines for _, lines in said["en"])
    assert not any("MJ" in line for _, lines in said["en"] for line in lines)


def test_mutatior_initiative_brain_reads_brain_in_english(db, new_client, demo_tables):
    """The demo's initiative rolls add the brain (« cerveau », Mutatior § 1-4)."""
    db.commit()
    url = _match_url(db, "mutatior")
    said = {language: _rolls(page) for language, page in _read(new_client, url).items()}
    fr = [line for _, lines in said["fr"] for line in lines]
    en = [line for _, lines in said["en"] for line in lines]
    assert any(line.endswith(" cerveau") for line in fr), fr
    assert any(line.endswith(" brain") for line in en), en
    assert not any("cerveau" in line for line in en)


def test_the_roll_log_says_a_stored_label_in_the_readers_words(
        settings, db, new_client, demo_tables):
    campaign_id = db.scalar(select(Campaign.id).where(Campaign.system == "cyborg"))
    named = _gm_record().to_dict()
    old = {**named, "modifiers": [{"value": -3, "label": "ancien libellé"}]}
    with write_transaction(db):
        rolls.record_rolls(db=db, secret=settings.secret_key, campaign_id=campaign_id,
                           user_id=None, visibility="public", records=[old, named])
    db.commit()
    for language, word in (("en", "GM"), ("fr", "MJ")):
        client = _login(new_client, demo.GM_USERNAME, language)
        shown = [tag.text for tag in soup(client.get(f"/campaigns/{campaign_id}/rolls"))
                 .select(".roll-entry .modifier")]
        assert shown[:2] == [f"−3 {word}", "−3 ancien libellé"], shown  # a true minus sign
        text = client.get(f"/campaigns/{campaign_id}/rolls/export.txt").text
        assert f"−3 ({word})" in text


def test_mecha_ring_draft_line_punctuates_in_the_readers_way(db, new_client, demo_tables):
    """The draft line lists « Écurie : carte (emplacement) ; … »: French spacing (narrow
    no-break space before « : » and « ; ») on a French page, none on an English one."""
    db.commit()
    pages = _read(new_client, _match_url(db, "mecha_ring"))
    lines = {language: [li.text for li in page.select("#log li.kind-drafted")]
             for language, page in pages.items()}
    assert lines["fr"] and lines["en"]
    for line in lines["en"]:
        assert " : " not in line and " ; " not in line and "\u202f" not in line, line
        assert ": " in line and "; " in line
    for line in lines["fr"]:
        assert "\u202f: " in line and "\u202f; " in line, line


def _cyborg_shot_line(language: str, notes: list[str]) -> str:
    """The journal line of a Cyborg attack whose wound carries ``notes``, as a reader of
    ``language`` sees it (drawn by the table's own fragment)."""
    from app.i18n import get_locale, set_locale
    from app.web.table_view import LogLine, fragment

    d100 = {"purpose": "x", "expression": "1d100", "dice": [], "modifiers": [], "total": 51,
            "target": 72, "outcome": "success"}
    wound = {"damage_type": "perforation", "location": 1, "location_name": "bras droit",
             "dead": False, "unconscious": False, "coma": False, "turns_to_live": None,
             "lost_limb": "right_arm", "broken_limb": None, "cut_in_two": False,
             "paralysed": False, "penalties": {}, "skill_penalties": {}, "notes": notes,
             "rolls": []}
    payload = {"attacker": "t1", "attacker_name": "Kenji", "weapon": "fusil_a_canon_scie",
               "weapon_name": "Fusil à canon scié", "damage_type": "perforation", "skill": 72,
               "skill_name": "Arme à feu", "modifiers": [{"value": -5, "label": "MJ",
                                                           "label_message": {"id": "GM",
                                                                             "params": {}}}],
               "round": 1, "in_combat": True, "magazine": 1, "burst": False, "area": None,
               "whole_body": False, "reach": None, "shots": [{
                   "target": "t5", "target_name": "Vigile (humain)", "correction": None,
                   "attack": d100, "defence": {**d100, "total": 21, "target": 20,
                                               "outcome": "failure"},
                   "hit": True, "master": False, "damage": 10, "factor": "G", "resistance": 1,
                   "cell": 10, "sante_before": 10, "sante": 0, "wound": wound,
                   "attacker_unbalanced": False, "notes": []}], "rolls": []}
    line = LogLine({"seq": 7, "kind": "attacked", "payload": payload, "reverted": False,
                    "visibility": "public", "created_at": None, "actor_id": 1}, [], "Mia")
    before = get_locale()
    set_locale(language)
    try:
        html = fragment("matches/_log_lines.html", {
            "lines": [line], "system_key": "cyborg", "url": "/m", "seq": 7,
            "can_undo": False, "gm_ids": set(), "csrf_token": "x"})
    finally:
        set_locale(before)
    return soup_text(html)


def soup_text(html: str) -> str:
    from bs4 import BeautifulSoup

    return re.sub(r"[ \t\n]+", " ", BeautifulSoup(html, "html.parser").get_text(" "))


def test_a_cyborg_wound_note_with_a_percent_sign_draws_in_both_languages():
    """« … Esquive/Parade à −50 % »: a note with a bare "%" used to break the whole match
    page (Jinja's gettext %-formats what it translates); the GM's malus reads « MJ » / "GM"."""
    note = ("Weapons in the left hand: Arme blanche, Arme à feu and "
            "Esquive/Parade at −50 %.")
    english, french = _cyborg_shot_line("en", [note]), _cyborg_shot_line("fr", [note])
    assert note in english and "(GM)" in english and "(MJ)" not in english
    assert "Esquive/Parade à −50 %." in french and "(MJ)" in french
    assert "Vigile (humain)\u202f: d100" in french and "Vigile (humain): d100" in english
