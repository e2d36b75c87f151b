"""A roll's purpose in the reader's language (issue 10): the rules name a purpose by a
message id and parameters (``app.rules.purposes.Purpose``); the pages say it in English or
French; a purpose a player typed, or one stored before message ids, shows as typed; what is
stored and signed stays the French text, and the roll log keeps verifying."""

from __future__ import annotations

import copy
import json
import pickle

import pytest
from sqlalchemy import select

from app.db import write_transaction
from app.models import Campaign, Match, MatchEvent, Roll
from app.rules import notation
from app.rules.chasse.resolve import d6 as chasse_d6
from app.rules.cyborg.damage import roll_location as cyborg_location
from app.rules.dice import RollRecord, ScriptedDice
from app.rules.mutatior.arena import roll_weather
from app.rules.purposes import PURPOSES, Purpose, render
from app.rules.tiamat.combat import roll_location as tiamat_location
from app.rules.tiamat.content import techniques
from app.services import demo, rolls
from tests.helpers import soup
from tests.test_words import _login


def test_a_named_purpose_is_its_french_text_and_says_itself_in_english():
    purpose = Purpose("attack ({weapon})", weapon="Fusil de chasse")
    assert purpose == "attaque (Fusil de chasse)" and isinstance(purpose, str)
    assert purpose.text("en") == "attack (Fusil de chasse)"
    nested = Purpose("{kind} — {attacker} → {defender}", kind=Purpose("melee"),
                     attacker="Grok", defender="Mammouth")
    assert nested == "corps à corps — Grok → Mammouth"
    assert nested.text("en") == "melee — Grok → Mammouth"
    with pytest.raises(KeyError):
        Purpose("no such purpose")
    # Every message says the same things in both languages.
    for key, french in PURPOSES.items():
        assert sorted(_fields(key)) == sorted(_fields(french)), key


def _fields(template: str) -> list[str]:
    import string

    return [name for _, name, _, _ in string.Formatter().parse(template) if name]


def test_a_record_keeps_its_message_through_json_copies_and_pickles():
    record = notation.roll("1d6", ScriptedDice([4]), purpose=Purpose(
        "sponge {name}", name="Zetzet"))
    data = json.loads(json.dumps(record.to_dict()))
    assert data["purpose"] == "éponge Zetzet"  # the text stored and signed, as before
    assert data["purpose_message"] == {"id": "sponge {name}", "params": {"name": "Zetzet"}}
    again = RollRecord.from_dict(data)
    assert again == record and again.to_dict() == data
    assert again.purpose.text("en") == "sponge Zetzet"
    for twin in (copy.deepcopy(record), pickle.loads(pickle.dumps(record))):
        assert twin.to_dict() == data
    # A typed purpose has no message; an unknown or malformed one falls back to the text.
    typed = notation.roll("4d6kh3 # Perception", ScriptedDice([1, 2, 3, 4])).to_dict()
    assert typed["purpose"] == "Perception" and "purpose_message" not in typed
    for message in ({"id": "from a newer version", "params": {}}, {"id": "sponge {name}"},
                    {"id": "sponge {name}", "params": {}}, "sponge", {"id": "sponge {name}",
                    "params": {"name": {"id": "x", "params": {}}}}):
        assert render("éponge Zetzet", message, "en") == "éponge Zetzet"
        assert RollRecord.from_dict({**data, "purpose_message": message}).purpose == (
            "éponge Zetzet")


@pytest.fixture
def demo_tables(settings, app):
    demo.ensure_demo(settings)


def _game_rolls() -> dict[str, tuple[dict, str, str]]:
    """One roll per game, made by that game's rules: record, English, French purpose."""
    _, cyborg = cyborg_location(ScriptedDice([2]))
    tiamat = next(t for t in techniques().values() if not t.puissance.none)
    _, tiamat_record = tiamat_location(ScriptedDice([7]), tiamat, False, None)
    return {
        "cyborg": (cyborg[0].to_dict(), "hit location", "localisation"),
        "tiamat": (tiamat_record.to_dict(), "hit location", "localisation"),
        "chasse": (chasse_d6(ScriptedDice([5]), Purpose("save — {name}", name="Grok"),
                             target=4), "save — Grok", "sauvegarde — Grok"),
        "mutatior": (roll_weather(ScriptedDice([3])).record.to_dict(), "weather", "météo"),
    }


def test_the_roll_log_says_each_games_purposes_in_the_readers_language(
        settings, db, new_client, demo_tables):
    ids = dict(db.execute(select(Campaign.system, Campaign.id)).all())
    made = _game_rolls()
    with write_transaction(db):
        for system, (record, _, _) in made.items():
            rolls.record_rolls(db=db, secret=settings.secret_key, campaign_id=ids[system],
                               user_id=None, visibility="public", records=[record])
        # A player's own words and a roll stored before message ids: as typed.
        typed = notation.roll("4d6kh3 # Perception", ScriptedDice([1, 2, 3, 4])).to_dict()
        old = {**made["cyborg"][0], "purpose": "tours à vivre"}
        old.pop("purpose_message")
        rolls.record_rolls(db=db, secret=settings.secret_key, campaign_id=ids["cyborg"],
                           user_id=None, visibility="public", records=[typed, old])
    db.commit()
    # Two members, as a language is a member's setting: the GM reads English, Alice French.
    readers = {"en": _login(new_client, demo.GM_USERNAME, "en"),
               "fr": _login(new_client, "alice", "fr")}
    for system, (_, english, french) in made.items():
        for language, expected in (("en", english), ("fr", french)):
            page = soup(readers[language].get(f"/campaigns/{ids[system]}/rolls"))
            purposes = [tag.text for tag in page.select(".roll-entry .purpose")]
            assert expected in purposes, (system, language, purposes)
            assert (french if language == "en" else english) not in purposes or (
                english == french)
    for language in ("en", "fr"):
        page = soup(readers[language].get(f"/campaigns/{ids['cyborg']}/rolls"))
        purposes = [tag.text for tag in page.select(".roll-entry .purpose")]
        assert purposes[:2] == ["tours à vivre", "Perception"]
    # The API gives the signed text and the reader's words beside it.
    for language, expected in (("en", "hit location"), ("fr", "localisation")):
        entries = readers[language].get(f"/api/v1/campaigns/{ids['tiamat']}/rolls").json()[
            "entries"]
        assert (entries[0]["purpose"], entries[0]["purpose_text"]) == ("localisation", expected)
    # The export in words says it in the reader's language too; the signatures still hold.
    text = readers["en"].get(f"/campaigns/{ids['mutatior']}/rolls/export.txt").text
    assert "For: weather" in text
    document = readers["en"].get(f"/campaigns/{ids['cyborg']}/rolls/export.json").json()
    check = rolls.check_log(settings.secret_key, document)
    assert check.tampered == [] and check.rolled_here >= 3
    stored = db.scalar(select(Roll).where(Roll.campaign_id == ids["tiamat"])
                       .order_by(Roll.id.desc()))
    assert stored.purpose == "localisation"  # the stored text is the rules' French
    assert stored.record["purpose_message"] == {"id": "hit location", "params": {}}
    stored.record = {**stored.record, "purpose_message": {"id": "weather", "params": {}}}
    assert not rolls.verify(settings.secret_key, rolls.entry_dict(stored))  # it is signed
    db.rollback()


@pytest.mark.parametrize("system", ["mutatior", "mecha_ring"])
def test_the_journal_says_the_demo_matchs_purposes_in_the_readers_language(
        settings, db, new_client, demo_tables, system):
    """The demo tables roll through the rules (Mutatior's weather and initiative,
    Mecha-Ring's movement): the dice under each journal line say why, in the reader's words."""
    db.commit()
    match = db.scalar(select(Match).join(Campaign).where(Campaign.system == system))
    named = [roll for event in db.scalars(select(MatchEvent).where(
        MatchEvent.match_id == match.id)) for roll in event.payload.get("rolls") or ()
        if isinstance(roll, dict) and "purpose_message" in roll]
    named = [roll for roll in named
             if render(roll["purpose"], roll["purpose_message"], "en") != roll["purpose"]]
    assert named
    for language, member in (("en", demo.GM_USERNAME), ("fr", "alice")):
        page = soup(_login(new_client, member, language).get(
            f"/campaigns/{match.campaign_id}/matches/{match.id}"))
        shown = {dd.text for dt in page.select(".roll-details dt") if dt.text in ("For", "Pour")
                 for dd in [dt.find_next_sibling("dd")]}
        for roll in named:
            said = render(roll["purpose"], roll["purpose_message"], language)
            assert said in shown, (language, said, shown)
            if language == "en":
                assert roll["purpose"] not in shown
