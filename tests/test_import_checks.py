"""A campaign file is checked as each reader will see it (issue 22): every imported match
folds into a state its game accepts at every step, opens for the GM, for each player and for
a member who plays nobody, and its table page renders, before the file is accepted. A
refusal names the first bad field and stores nothing."""

from __future__ import annotations

import copy
import json

import pytest
from sqlalchemy import func, select

from app.models import Base, Campaign, Match, User
from app.rules.match import fold
from app.rules.registry import all_systems, get_system
from app.services import demo, transfer
from app.services.access import load_campaign_access
from app.services.transfer_fold import MISSING, payload_field, value_at
from tests.helpers import soup


@pytest.fixture
def demo_files(settings, db) -> dict[str, dict]:
    """Each game's demo campaign as its GM exports it (a match in progress)."""
    demo.ensure_demo(settings)
    db.commit()
    gm = db.scalar(select(User).where(User.username_key == demo.GM_USERNAME))
    files = {}
    for system in all_systems():
        campaign_id = db.scalar(select(Campaign.id).where(Campaign.system == system.key))
        document = transfer.export_campaign(db=db, access=load_campaign_access(db, gm,
                                                                               campaign_id))
        files[system.key] = document.model_dump(mode="json")
    return files


def row_counts(db) -> dict[str, int]:
    db.commit()  # end the read snapshot
    return {table.name: db.scalar(select(func.count()).select_from(table))
            for table in Base.metadata.sorted_tables}


def refold(match: dict) -> None:
    """The match's snapshot made to agree with its (crafted) log, as an attacker would."""
    system = get_system(match["system"])
    live = [event for event in match["events"] if not event["reverted"]]
    match["state"] = json.loads(json.dumps(fold(system, live)))
    match["seq"] = len(match["events"])


def event_index(match: dict, kind: str) -> int:
    return next(index for index, event in enumerate(match["events"]) if event["kind"] == kind)


def token_with_x_abc(files: dict[str, dict]) -> tuple[dict, str]:
    document = copy.deepcopy(files["libre"])
    match = document["matches"][0]
    index = event_index(match, "token_added")
    match["events"][index]["payload"]["token"]["x"] = "abc"
    match["events"] = [event for event in match["events"] if event["kind"] != "token_moved"
                       or event["payload"]["token"] != "t1"]  # t1 stays where it was put
    for seq, event in enumerate(match["events"], start=1):
        event["seq"] = seq
    refold(match)
    return document, f"matches.0.events.{index}.payload.token.x"


def token_with_statuses_7(files: dict[str, dict]) -> tuple[dict, str]:
    document = copy.deepcopy(files["libre"])
    match = document["matches"][0]
    index = event_index(match, "token_added")
    match["events"][index]["payload"]["token"]["statuses"] = 7
    refold(match)
    return document, f"matches.0.events.{index}.payload.token.statuses"


def orders_of_a_ghost(files: dict[str, dict]) -> tuple[dict, str]:
    """Tiamat: secret orders written for a participant the match does not have."""
    document = copy.deepcopy(files["tiamat"])
    match = document["matches"][0]
    last = match["events"][-1]
    match["events"].append({**last, "seq": last["seq"] + 1, "kind": "orders_written",
                            "visibility": "self", "reverted": False, "payload": {
                                "participant": "p9", "name": "Fantôme", "orders": "Frapper",
                                "rule": "Tiamat", "set": {"orders": {"p9": "Frapper"}}}})
    refold(match)
    return document, f"matches.0.events.{len(match['events']) - 1}.payload.set.orders.p9"


CRAFTED = {"libre token at x 'abc'": token_with_x_abc,
           "libre token with statuses 7": token_with_statuses_7,
           "tiamat orders of a ghost": orders_of_a_ghost}


@pytest.mark.parametrize("craft", CRAFTED.values(), ids=CRAFTED.keys())
def test_a_crafted_match_is_refused_at_its_first_bad_field(demo_files, api, db, craft):
    document, field = craft(demo_files)
    importer = api("zelie")
    before = row_counts(db)
    response = importer.post("/campaigns/import", json=document)
    assert response.status_code == 422, response.text
    assert response.json()["error"]["field"] == field
    assert row_counts(db) == before


def test_the_refusal_is_in_the_users_language_french_by_default(demo_files, api, web):
    document, field = token_with_x_abc(demo_files)
    importer = api("zelie")
    del importer.client.headers["Accept-Language"]  # nothing asked: French
    refused = importer.post("/campaigns/import", json=document).json()["error"]
    assert refused["message"] == ("Après cet événement, l'état du match enfreint les règles du "
                                  "jeu (tokens.t1.x) : Doit être un nombre entier.")
    assert refused["details"] == {"state": "tokens.t1.x"}
    browser = web("xavier")
    response = browser.post("/campaigns/import", csrf_path="/campaigns", files={
        "file": ("x.json", json.dumps(document).encode(), "application/json")})
    assert response.status_code == 422
    assert soup(response).select_one("#file-error").text.strip() == (
        f"{field} — After this event, the match's state breaks the game's rules "
        "(tokens.t1.x): Must be a whole number.")


def libre_roll_the_log_cannot_show(files: dict[str, dict]) -> tuple[dict, str]:
    """A roll whose record is no roll: the state only counts it, the log cannot show it."""
    document = copy.deepcopy(files["libre"])
    match = document["matches"][0]
    index = event_index(match, "rolled")
    match["events"][index]["payload"]["rolls"] = [{"total": "beaucoup"}]
    match["events"][index]["payload"].pop("roll_ids", None)
    return document, f"matches.0.events.{index}.payload"


def test_an_event_whose_log_line_cannot_be_shown_is_refused_at_its_event(demo_files, api, db):
    document, field = libre_roll_the_log_cannot_show(demo_files)
    importer = api("zelie")
    before = row_counts(db)
    response = importer.post("/campaigns/import", json=document)
    assert response.status_code == 422, response.text
    assert response.json()["error"]["field"] == field
    assert row_counts(db) == before


def test_a_match_one_seat_cannot_open_is_refused_and_nothing_stays(demo_files, api, app, db):
    """The page check runs from every seat; the spectator's failing is enough."""
    rendered = app.state.import_page_check

    def spectators_page_breaks(session, match, seat):
        if seat.actor.is_spectator:
            raise KeyError("p9")
        rendered(session, match, seat)

    app.state.import_page_check = spectators_page_breaks
    importer = api("zelie")
    before = row_counts(db)
    response = importer.post("/campaigns/import", json=demo_files["tiamat"])
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert (error["field"], error["code"]) == ("matches.0.state", "invalid_state")
    assert error["message"] == ("The match Entrepôt n°8, Shanghai does not open for a "
                                "spectator: its state cannot be shown.")
    assert row_counts(db) == before


def test_every_games_demo_campaign_imports_and_opens_from_every_seat(demo_files, api, app,
                                                                    db):
    """Through the API, as a GM would: each match's page is rendered for the GM, the player
    of each character it seats, a member who plays nobody and a spectator."""
    rendered = app.state.import_page_check
    seen: list[tuple[str, bool, bool, int]] = []

    def recording(session, match, seat):
        rendered(session, match, seat)
        seen.append((match.system, seat.actor.is_gm, seat.actor.is_spectator,
                     len(seat.actor.character_ids)))

    app.state.import_page_check = recording
    importer = api("zelie")
    for key, document in demo_files.items():
        seen.clear()
        response = importer.post("/campaigns/import", json=document)
        assert response.status_code == 201, (key, response.text)
        seated = {character["id"] for character in document["characters"]
                  if f'"character_id": {character["id"]}' in json.dumps(
                      document["matches"][0]["state"])}
        assert seen == [(key, True, False, 0)] + [(key, False, False, 1)] * len(seated) + [
            (key, False, False, 0), (key, False, True, 0)], key
        new_id = response.json()["campaign_id"]
        db.commit()
        match_id = db.scalar(select(Match.id).where(Match.campaign_id == new_id))
        assert importer.get(f"/campaigns/{new_id}/matches/{match_id}").status_code == 200


@pytest.mark.parametrize(("language", "message"), [
    ("fr", "Ce fichier utilise la version 2 du format ; cette instance de Tablée lit la "
           "version 1."),
    ("en", "This file uses format version 2; this Tablée reads version 1.")])
def test_another_format_version_is_refused_naming_the_versions_read(demo_files, api, db,
                                                                    language, message):
    importer = api("zelie")
    importer.client.headers["Accept-Language"] = language
    before = row_counts(db)
    for version in (2, 0, "1", True, None):
        response = importer.post("/campaigns/import",
                                 json={**demo_files["libre"], "version": version})
        assert response.status_code == 422, response.text
        error = response.json()["error"]
        assert error["field"] == "version"
        assert error["message"] == message.replace("version 2", f"version {version}", 1)
    assert row_counts(db) == before


def test_the_upload_form_names_the_versions_read_too(demo_files, web, db):
    browser = web("zelie")
    response = browser.post("/campaigns/import", csrf_path="/campaigns", files={
        "file": ("x.json", json.dumps({**demo_files["libre"], "version": 3}).encode(),
                 "application/json")})
    assert response.status_code == 422
    assert soup(response).select_one("#file-error").text.strip() == (
        "This file uses format version 3; this Tablée reads version 1.")


def test_the_refused_value_is_found_in_the_event_that_brought_it():
    token = {"id": "t1", "name": "Aldo", "x": "abc", "statuses": 7}
    assert payload_field({"token": token}, "tokens.t1.x", "abc") == ".token.x"
    assert payload_field({"participant": "p9", "set": {"orders": {"p9": "Frapper"}}},
                         "orders.p9", "Frapper") == ".set.orders.p9"
    assert payload_field({"from": "t1", "to": "t9", "round": 2}, "turn", "t9") == ".to"
    assert payload_field({"note": "rien"}, "turn", "t9") == ""


def test_a_path_reads_into_objects_and_lists():
    state = {"tokens": {"t1": {"x": 3}}, "order": ["t1"]}
    assert value_at(state, "tokens.t1.x") == 3
    assert value_at(state, "order.0") == "t1"
    assert value_at(state, "tokens.t2.x") is MISSING
