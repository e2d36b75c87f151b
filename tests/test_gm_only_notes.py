"""A player's note asked « GM only » is refused, never published to everyone (issue 22).

Every game has a ``note`` action. The GM may keep a note for the GM alone (``gm_only``:
visibility ``gm``); a player may not, and used to see their note published to the whole
table without a word. Now it is a 422 saying why, in the player's language, and nothing is
stored. Played over the API on each game's demo match: Alice plays, « mjdemo » is the GM.
"""

from __future__ import annotations

import pytest
from sqlalchemy import select

from app.models import Campaign, Match
from app.services import demo
from tests.helpers import ApiUser, soup
from tests.test_words import _login

GAMES = ["libre", "cyborg", "chasse", "mutatior", "mecha_ring"]
SECRET = "Le trésor est sous l'autel"
REFUSAL = {
    "en": "only the GM may keep a note for the GM alone: a player's note is read by everyone "
          "(to tell the GM alone, whisper to them in the chat)",
    "fr": "seul le MJ peut garder une note pour le MJ seul : la note d'un joueur est lue par "
          "tous (pour ne le dire qu'au MJ, chuchotez-le-lui dans la discussion)",
}


@pytest.fixture
def demo_tables(settings, app):
    demo.ensure_demo(settings)


def _api(new_client, username: str) -> ApiUser:
    user = ApiUser(new_client(), username)
    response = user.client.post("/api/v1/auth/login", json={
        "username": username, "password": demo.DEMO_PASSWORD})
    assert response.status_code == 200, response.text
    user.headers = {"Authorization": f"Bearer {response.json()['token']}"}
    return user


def _demo_match(db, system: str) -> str:
    campaign_id = db.scalar(select(Campaign.id).where(Campaign.system == system))
    match_id = db.scalar(select(Match.id).where(Match.campaign_id == campaign_id)
                         .order_by(Match.id))
    return f"/campaigns/{campaign_id}/matches/{match_id}"


def _note(user: ApiUser, match: str, **fields):
    return user.post(match + "/actions", json={"action": {"kind": "note", **fields}})


@pytest.mark.parametrize("system", GAMES)
def test_a_players_gm_only_note_is_refused_in_their_language_and_nothing_is_stored(
        db, new_client, demo_tables, system):
    match = _demo_match(db, system)
    alice = _api(new_client, "alice")
    seq = alice.get(match).json()["seq"]
    for language in ("en", "fr"):
        assert alice.patch("/me", json={"locale": language}).status_code == 200
        for asked in (True, "on"):  # JSON, or as a form would say it
            refused = _note(alice, match, text=SECRET, gm_only=asked)
            assert refused.status_code == 422, refused.text
            assert refused.json()["error"]["message"] == REFUSAL[language]
    assert alice.get(match).json()["seq"] == seq  # nothing happened at the table
    public = _note(alice, match, text="Je monte la garde", gm_only=False)
    assert public.status_code == 200, public.text
    assert [event["visibility"] for event in public.json()["events"]] == ["public"]


@pytest.mark.parametrize("system", GAMES)
def test_the_gms_gm_only_note_is_for_the_gm_alone(db, new_client, demo_tables, system):
    match = _demo_match(db, system)
    gm, alice = _api(new_client, demo.GM_USERNAME), _api(new_client, "alice")
    answer = _note(gm, match, text=SECRET, gm_only=True)
    assert answer.status_code == 200, answer.text
    (event,) = answer.json()["events"]
    assert (event["kind"], event["visibility"]) == ("note_added", "gm")
    log = alice.get(match + "/log", params={"after_seq": event["seq"] - 1}).json()["events"]
    assert log[0]["seq"] == event["seq"] and log[0]["kind"] == "hidden"
    assert SECRET not in str(log)


@pytest.mark.parametrize("system", GAMES)
def test_only_the_gms_note_form_offers_gm_only(db, new_client, demo_tables, system):
    match = _demo_match(db, system)
    for username, offered in ((demo.GM_USERNAME, True), ("alice", False)):
        page = soup(_login(new_client, username, "en").get(match))
        form = page.select_one("form#action-note")
        assert form is not None, (system, username)
        assert (form.select_one('input[name="gm_only"]') is not None) is offered, (
            system, username)
