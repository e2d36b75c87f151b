"""Campaign export and import: GM-only export, a lossless round trip, all-or-nothing import."""

from __future__ import annotations

import base64
import copy
import io
import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest
from PIL import Image as PILImage
from sqlalchemy import func, select

from app.db import write_transaction
from app.models import (
    Base,
    Campaign,
    Character,
    Image,
    Match,
    MatchEvent,
    Membership,
    Role,
    Roll,
    User,
)
from app.rules import notation
from app.rules.dice import ScriptedDice
from app.services import characters, rolls, transfer
from app.services.access import load_campaign_access
from tests.conftest import TEST_PASSWORD
from tests.helpers import ApiUser, WebUser, csrf_from, soup

SHEET_ALDO = {"hp": 9, "hp_max": 14, "statuses": "Empoisonné",
              "counters": [{"label": "Flèches", "value": 12}, {"label": "Or", "value": -3}]}
SHEET_BRUNE = {"hp": 18, "hp_max": 18, "statuses": "", "counters": []}
SHEET_GOBELIN = {"hp": 6, "hp_max": 6, "statuses": "", "counters": []}
T0 = datetime(2026, 3, 14, 20, 30, tzinfo=UTC)


def picture(kind: str) -> bytes:
    buffer = io.BytesIO()
    if kind == "PNG":
        PILImage.new("RGBA", (8, 6), (200, 30, 30, 128)).save(buffer, format="PNG")
    else:  # a small "photo": JPEG, kept as JPEG by the portrait cleaner
        image = PILImage.new("RGB", (12, 10))
        image.putdata([(x * 20 % 256, y * 25 % 256, 90) for y in range(10) for x in range(12)])
        image.save(buffer, format="JPEG", quality=80)
    return buffer.getvalue()


@dataclass
class Table:
    gm: ApiUser
    alice: ApiUser
    bruno: ApiUser
    carol: ApiUser
    campaign_id: int


@pytest.fixture
def table(new_client, db, settings) -> Table:
    """Jeanne runs « Les Brumes »: Alice and Bruno play, Carol watches, a match is under way."""
    client = new_client()  # bearer tokens: four people can share one connection
    gm, alice, bruno, carol = (ApiUser(client, name) for name in ("jeanne", "alice", "bruno",
                                                                   "carol"))
    for person in (gm, alice, bruno, carol):
        person.register_and_login(TEST_PASSWORD)
    created = gm.post("/campaigns", json={"name": "Les Brumes d'Ys", "system": "libre",
                                          "description": "Une campagne <b>brumeuse</b>.\n"})
    campaign_id = created.json()["id"]
    with write_transaction(db):
        for player, role in ((alice, Role.PLAYER), (bruno, Role.PLAYER), (carol, Role.SPECTATOR)):
            db.add(Membership(campaign_id=campaign_id, user_id=player.id, role=role))
    access = load_campaign_access(db, db.get(User, gm.id), campaign_id)
    aldo = characters.create_character(db=db, access=access, name="Aldo le Rôdeur",
                                       notes="Cherche sa sœur.\n\nA peur du noir.",
                                       sheet=SHEET_ALDO, owner_id=alice.id)
    brune = characters.create_character(db=db, access=access, name="Brune", sheet=SHEET_BRUNE,
                                        owner_id=bruno.id)
    characters.create_character(db=db, access=access, name="Gobelin", sheet=SHEET_GOBELIN,
                                owner_id=None)
    for character, kind in ((aldo, "PNG"), (brune, "JPEG")):
        characters.set_portrait(db=db, access=access, character_id=character.id,
                                data=picture(kind), max_bytes=settings.max_portrait_bytes)
    _add_match(db, settings.resolved_secret_key, campaign_id,
               {"jeanne": gm.id, "alice": alice.id, "bruno": bruno.id, "Aldo le Rôdeur": aldo.id})
    return Table(gm=gm, alice=alice, bruno=bruno, carol=carol, campaign_id=campaign_id)


def _add_match(db, secret: str, campaign_id: int, ids: dict[str, int]) -> None:
    """A match whose third event rolled two signed dice, a free roll, and a GM correction."""
    with write_transaction(db):
        free = rolls.record_rolls(db=db, secret=secret, campaign_id=campaign_id,
                                  user_id=ids["bruno"], visibility="self", records=[
                                      notation.roll("2d6+1", ScriptedDice([3, 5]),
                                                    purpose="Fouille").to_dict()])
        match = Match(campaign_id=campaign_id, system="libre", name="Embuscade au gué",
                      status="running", state={"round": 1, "hp": {"Gobelin": 2}}, seq=4)
        db.add_all([match, Match(campaign_id=campaign_id, system="libre", name="Partie vide",
                                 status="finished", state={}, seq=0)])
        db.flush()
        attack = rolls.record_rolls(
            db=db, secret=secret, campaign_id=campaign_id, match_id=match.id,
            user_id=ids["alice"], character_id=ids["Aldo le Rôdeur"], visibility="public",
            records=[notation.roll("1d20", ScriptedDice([17])).to_dict(),
                     notation.roll("1d8", ScriptedDice([4])).to_dict()])
        events = [
            ("start", {"round": 1, "order": ["Aldo", "Gobelin"]}, None, "public", False),
            ("roll", {"dice": "1d20", "roll_ids": [r.id for r in attack]}, ids["alice"],
             "public", False),
            ("roll", {"dice": "2d6", "faces": [1, 1], "hidden": True}, ids["jeanne"], "gm",
             True),
            ("damage", {"target": "Gobelin", "amount": 4, "note": "é ü ✓"}, ids["jeanne"],
             "self", False),
        ]
        for seq, (kind, payload, actor, visibility, reverted) in enumerate(events, start=1):
            db.add(MatchEvent(match_id=match.id, seq=seq, kind=kind, payload=payload,
                              actor_id=actor, visibility=visibility, reverted=reverted,
                              created_at=T0 + timedelta(seconds=seq)))
    gm = db.get(User, ids["jeanne"])
    rolls.correct_roll(db=db, secret=secret, access=load_campaign_access(db, gm, campaign_id),
                       roll_id=free[0].id, total=12, reason="Dé tombé de la table")


def row_counts(db) -> dict[str, int]:
    db.commit()  # end the read snapshot
    return {table.name: db.scalar(select(func.count()).select_from(table))
            for table in Base.metadata.sorted_tables}


def export(user: ApiUser, campaign_id: int) -> dict:
    response = user.get(f"/campaigns/{campaign_id}/export")
    assert response.status_code == 200, response.text
    return response.json()


# --- export -------------------------------------------------------------------------------


def test_export_holds_the_whole_campaign(table, db):
    document = export(table.gm, table.campaign_id)
    assert (document["format"], document["version"]) == ("tablee-campaign", 1)
    assert document["campaign"] == {"name": "Les Brumes d'Ys", "system": "libre",
                                    "description": "Une campagne <b>brumeuse</b>.",
                                    "archived": False}
    assert [(m["username"], m["role"]) for m in document["members"]] == [
        ("jeanne", "gm"), ("alice", "player"), ("bruno", "player"), ("carol", "spectator")]
    aldo, brune, gobelin = document["characters"]
    assert (aldo["name"], aldo["owner"], aldo["sheet"]) == ("Aldo le Rôdeur", "alice", SHEET_ALDO)
    assert aldo["notes"] == "Cherche sa sœur.\n\nA peur du noir."
    assert (brune["owner"], gobelin["owner"], gobelin["portrait"]) == ("bruno", None, None)
    stored = {c.name: c for c in db.scalars(select(Character))}
    for doc in (aldo, brune):
        image = db.get(Image, stored[doc["name"]].portrait_id)
        assert doc["portrait"] == {"content_type": image.content_type,
                                   "data": base64.b64encode(image.data).decode()}
    ambush, empty = document["matches"]
    assert (ambush["name"], ambush["seq"], ambush["status"]) == ("Embuscade au gué", 4, "running")
    assert [(e["seq"], e["kind"], e["actor"], e["visibility"], e["reverted"])
            for e in ambush["events"]] == [(1, "start", None, "public", False),
                                           (2, "roll", "alice", "public", False),
                                           (3, "roll", "jeanne", "gm", True),
                                           (4, "damage", "jeanne", "self", False)]
    assert ambush["events"][3]["payload"] == {"target": "Gobelin", "amount": 4, "note": "é ü ✓"}
    assert datetime.fromisoformat(ambush["events"][0]["created_at"]) == T0 + timedelta(seconds=1)
    assert empty == {"name": "Partie vide", "system": "libre", "status": "finished", "state": {},
                     "seq": 0, "events": []}
    # the roll log: refs 1, 2, 3… ; the event links to its rolls by ref, not by id
    free, attack, damage, correction = document["rolls"]
    assert [r["ref"] for r in document["rolls"]] == [1, 2, 3, 4]
    assert ambush["events"][1]["payload"]["roll_ids"] == [2, 3]
    assert (free["user"], free["match"], free["character"], free["visibility"]) == \
        ("bruno", None, None, "self")
    assert (free["purpose"], free["record"]["total"]) == ("Fouille", 9)
    assert (attack["match"], attack["character"], attack["user"]) == (0, "Aldo le Rôdeur",
                                                                      "alice")
    assert damage["record"]["dice"][0]["value"] == 4
    assert (correction["corrects"], correction["user"], correction["original_user"]) == \
        (1, "jeanne", "bruno")
    assert correction["record"]["total"] == 12 and "original_user_id" not in correction["record"]


def test_export_is_for_the_gm_only(table, api, new_client):
    outsider = api("zoe")
    assert outsider.get(f"/campaigns/{table.campaign_id}/export").status_code == 404
    assert table.alice.get(f"/campaigns/{table.campaign_id}/export").status_code == 403
    assert table.carol.get(f"/campaigns/{table.campaign_id}/export").status_code == 403
    assert new_client().get(f"/api/v1/campaigns/{table.campaign_id}/export").status_code == 401
    assert table.gm.get("/campaigns/999999/export").status_code == 404


def browser_login(new_client, username: str) -> WebUser:
    """A browser for an account created through the API, logged in with the form."""
    browser = WebUser(new_client(), username)
    token = csrf_from(browser.get("/login"))
    response = browser.client.post("/login", data={
        "username": username, "password": TEST_PASSWORD, "csrf_token": token},
        follow_redirects=False)
    assert response.status_code == 303
    return browser


def test_export_page_downloads_a_named_attachment(table, web, new_client):
    browser = browser_login(new_client, "jeanne")
    response = browser.get(f"/campaigns/{table.campaign_id}/export")
    assert response.status_code == 200
    today = datetime.now(UTC).strftime("%Y-%m-%d")
    assert response.headers["content-disposition"] == \
        f'attachment; filename="tablee-les-brumes-d-ys-{today}.json"'
    from_page, from_api = response.json(), export(table.gm, table.campaign_id)
    from_page.pop("exported_at"), from_api.pop("exported_at")
    assert from_page == from_api
    player = web("pierre")
    assert player.get(f"/campaigns/{table.campaign_id}/export").status_code == 404


def test_export_filename_is_plain_ascii():
    campaign = Campaign(name="  Démo — Mécha Ring !! ", system="libre")
    assert transfer.export_filename(campaign, T0) == "tablee-demo-mecha-ring-2026-03-14.json"
    assert transfer.export_filename(Campaign(name="東京", system="libre"), T0) == \
        "tablee-campaign-2026-03-14.json"


# --- round trip ---------------------------------------------------------------------------


def _check_signed_rolls(db, settings, campaign_id: int) -> None:
    """Imported entries verify with this instance's secret and link within the campaign."""
    db.commit()
    imported = db.scalars(select(Roll).where(Roll.campaign_id == campaign_id)).all()
    assert imported and all(rolls.verify(settings.resolved_secret_key, rolls.entry_dict(r))
                            for r in imported)
    ids = {roll.id for roll in imported}
    linked = [event.payload["roll_ids"] for event in db.scalars(
        select(MatchEvent).join(Match).where(Match.campaign_id == campaign_id))
        if "roll_ids" in event.payload]
    assert linked and all(set(links) <= ids for links in linked)
    correction = next(roll for roll in imported if roll.corrects_id)
    assert correction.corrects_id in ids
    assert rolls.owner_id(correction) == db.scalar(select(User.id).where(User.username == "bruno"))


def test_round_trip_loses_nothing(table, db, settings):
    first = export(table.gm, table.campaign_id)
    response = table.gm.post("/campaigns/import", json=first)
    assert response.status_code == 201, response.text
    assert response.json()["unmatched_members"] == []
    new_id = response.json()["campaign_id"]
    assert new_id != table.campaign_id
    second = export(table.gm, new_id)

    assert set(second) == set(first)
    assert (second["format"], second["version"]) == (first["format"], first["version"])
    assert second["exported_at"] >= first["exported_at"]
    assert second["campaign"] == first["campaign"]
    assert second["members"] == first["members"]
    assert len(second["characters"]) == len(first["characters"]) == 3
    for before, after in zip(first["characters"], second["characters"], strict=True):
        assert set(after) == set(before)
        for key in before:
            assert after[key] == before[key], (before["name"], key)
    assert len(second["matches"]) == len(first["matches"]) == 2
    for before, after in zip(first["matches"], second["matches"], strict=True):
        assert set(after) == set(before)
        for key in ("name", "system", "status", "state", "seq"):
            assert after[key] == before[key], (before["name"], key)
        assert len(after["events"]) == len(before["events"])
        for event_before, event_after in zip(before["events"], after["events"], strict=True):
            assert event_after == event_before
    assert len(second["rolls"]) == len(first["rolls"]) == 4
    for before, after in zip(first["rolls"], second["rolls"], strict=True):
        assert after == before
    _check_signed_rolls(db, settings, new_id)
    # and the copy is a real, separate campaign that its members see
    assert {c["id"] for c in table.alice.get("/campaigns").json()} == {table.campaign_id,
                                                                        new_id}
    db.commit()
    assert db.scalar(select(func.count()).select_from(Character)) == 6


def test_import_can_rename_and_keeps_the_archived_flag(table, db):
    document = export(table.gm, table.campaign_id)
    document["campaign"]["archived"] = True
    response = table.gm.post("/campaigns/import", params={"name": "Les Brumes, saison 2"},
                             json=document)
    assert response.status_code == 201
    again = export(table.gm, response.json()["campaign_id"])
    assert again["campaign"] == {**document["campaign"], "name": "Les Brumes, saison 2"}
    assert again["characters"] == document["characters"]


def test_unknown_members_are_reported_and_their_characters_become_npcs(table, api):
    document = export(table.gm, table.campaign_id)
    for member in document["members"]:
        if member["username"] == "bruno":
            member["username"] = "yannick"
    for character in document["characters"]:
        if character["owner"] == "bruno":
            character["owner"] = "yannick"
    # Alice imports it: she becomes the GM, and Jeanne (the former GM) a player.
    response = table.alice.post("/campaigns/import", json=document)
    assert response.status_code == 201, response.text
    assert response.json()["unmatched_members"] == ["yannick"]
    again = export(table.alice, response.json()["campaign_id"])
    assert [(m["username"], m["role"]) for m in again["members"]] == [
        ("alice", "gm"), ("jeanne", "player"), ("carol", "spectator")]
    owners = {c["name"]: c["owner"] for c in again["characters"]}
    assert owners == {"Aldo le Rôdeur": "alice", "Brune": None, "Gobelin": None}


def test_web_import_shows_who_was_not_found(table, web):
    document = export(table.gm, table.campaign_id)
    document["members"].append({"username": "yannick", "display_name": "Yannick",
                                "role": "player"})
    importer = web("zelie")
    response = importer.post("/campaigns/import", csrf_path="/campaigns",
                             data={"name": ""},
                             files={"file": ("brumes.json", json.dumps(document).encode(),
                                             "application/json")})
    assert response.status_code == 303
    page = importer.page(response.headers["location"])
    assert [li.text for li in page.select("#unmatched li")] == ["yannick"]
    campaign_link = page.select_one("main a.button")["href"]
    assert importer.get(campaign_link).status_code == 200


def test_web_import_page_has_an_upload_form(web):
    page = web("zelie").page("/campaigns/import")
    form = page.select_one("form#import-form")
    assert form["enctype"] == "multipart/form-data"
    assert form.select_one('input[type="file"][name="file"]') is not None
    assert form.select_one('label[for="field-file"]') is not None


def test_web_import_error_is_shown_next_to_the_file(web, db):
    importer = web("zelie")
    before = row_counts(db)
    response = importer.post("/campaigns/import", csrf_path="/campaigns",
                             files={"file": ("x.json", b"{not json", "application/json")})
    assert response.status_code == 422
    assert soup(response).select_one("#file-error") is not None
    assert row_counts(db) == before


def test_the_result_page_is_for_members_only(table, api, web):
    other = web("zelie")
    assert other.get(f"/campaigns/{table.campaign_id}/imported").status_code == 404


# --- refusals change nothing --------------------------------------------------------------


def _character(doc: dict, name: str) -> dict:
    return next(c for c in doc["characters"] if c["name"] == name)


def _ambush(doc: dict) -> dict:
    return doc["matches"][0]


BROKEN = {
    "unknown system": lambda d: d["campaign"].update(system="d20-maison"),
    "unknown match system": lambda d: _ambush(d).update(system="nope"),
    "sheet breaks the rules": lambda d: _character(d, "Brune")["sheet"].update(hp=99),
    "sheet with unknown field": lambda d: _character(d, "Gobelin")["sheet"].update(mana=3),
    "gap in the event log": lambda d: _ambush(d)["events"][2].update(seq=7),
    "log shorter than the snapshot": lambda d: _ambush(d).update(seq=9),
    "duplicate character name": lambda d: _character(d, "Gobelin").update(name="Brune"),
    "empty character name": lambda d: _character(d, "Gobelin").update(name="  "),
    "portrait not base64": lambda d: _character(d, "Brune")["portrait"].update(data="%%%"),
    "portrait not an image": lambda d: _character(d, "Brune")["portrait"].update(
        data=base64.b64encode(b"<script>alert(1)</script>").decode()),
    "portrait type lies": lambda d: _character(d, "Aldo le Rôdeur")["portrait"].update(
        content_type="image/jpeg"),
    "portrait type unknown": lambda d: _character(d, "Brune")["portrait"].update(
        content_type="image/svg+xml"),
    "other format": lambda d: d.update(format="foundry-world"),
    "newer version": lambda d: d.update(version=2),
    "unknown key": lambda d: d.update(extra=True),
    "text where a number belongs": lambda d: _ambush(d).update(seq="4"),
    "number where a flag belongs": lambda d: _ambush(d)["events"][0].update(reverted=0),
    "member listed twice": lambda d: d["members"].append(dict(d["members"][1])),
    "impossible username": lambda d: d["members"][1].update(username="a b"),
    "unknown visibility": lambda d: _ambush(d)["events"][0].update(visibility="everyone"),
    "unknown role": lambda d: d["members"][1].update(role="owner"),
    "name too long": lambda d: d["campaign"].update(name="x" * 121),
    "NUL in notes": lambda d: _character(d, "Brune").update(notes="a\x00b"),
    "bad timestamp": lambda d: _ambush(d)["events"][0].update(created_at="yesterday"),
    "roll refs out of order": lambda d: d["rolls"][1].update(ref=5),
    "correction before its roll": lambda d: d["rolls"][3].update(corrects=4),
    "roll in a missing match": lambda d: d["rolls"][1].update(match=7),
    "roll of a missing character": lambda d: d["rolls"][1].update(character="Personne"),
    "record that is not a roll": lambda d: d["rolls"][0].update(record={"total": 3}),
    "record with a die of text": lambda d: d["rolls"][0]["record"]["dice"][0].update(
        value="six"),
    "foreign user id in a record": lambda d: d["rolls"][3]["record"].update(
        original_user_id=1),
    "event links a missing roll": lambda d: _ambush(d)["events"][1]["payload"].update(
        roll_ids=[2, 99]),
    "event links rolls by text": lambda d: _ambush(d)["events"][1]["payload"].update(
        roll_ids="2,3"),
}


def test_a_broken_document_is_refused_and_nothing_is_created(table, db):
    """Every case on one table (one set-up): each refusal must leave every table as it was."""
    exported = export(table.gm, table.campaign_id)
    before = row_counts(db)
    for problem, breaks in BROKEN.items():
        document = copy.deepcopy(exported)
        breaks(document)
        response = table.gm.post("/campaigns/import", json=document)
        assert response.status_code == 422, (problem, response.text)
        assert response.json()["error"]["message"], problem
        assert row_counts(db) == before, problem


def test_a_broken_file_is_refused_on_the_page_with_a_clear_message(table, web, db):
    exported = export(table.gm, table.campaign_id)
    importer = web("zelie")
    before = row_counts(db)
    for problem in ("sheet breaks the rules", "newer version", "gap in the event log",
                    "portrait type lies", "unknown key"):
        document = copy.deepcopy(exported)
        BROKEN[problem](document)
        response = importer.post("/campaigns/import", csrf_path="/campaigns", files={
            "file": ("x.json", json.dumps(document).encode(), "application/json")})
        assert response.status_code == 422, problem
        assert soup(response).select_one("#file-error").text.strip(), problem
        assert row_counts(db) == before, problem


def test_a_failure_while_writing_rolls_everything_back(table, db, settings, monkeypatch):
    document = export(table.gm, table.campaign_id)
    before = row_counts(db)

    def explode(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(transfer, "_add_matches", explode)
    with pytest.raises(RuntimeError):
        transfer.import_campaign(db=db, settings=settings, user=db.get(User, table.gm.id),
                                 document=transfer.CampaignExport.model_validate(document))
    assert row_counts(db) == before


def test_too_large_is_refused_with_413(table, app, db, web):
    document = export(table.gm, table.campaign_id)
    importer = web("zelie")
    app.state.settings.max_import_bytes = 1000
    before = row_counts(db)
    assert table.gm.post("/campaigns/import", json=document).status_code == 413
    response = importer.post("/campaigns/import", csrf_path="/campaigns", files={
        "file": ("x.json", json.dumps(document).encode(), "application/json")})
    assert response.status_code == 413
    assert row_counts(db) == before


def test_a_portrait_too_large_for_this_instance_is_refused(table, app, db):
    document = export(table.gm, table.campaign_id)
    app.state.settings.max_portrait_bytes = 100
    before = row_counts(db)
    response = table.gm.post("/campaigns/import", json=document)
    assert response.status_code in (413, 422)
    assert "portrait" in response.json()["error"]["field"]
    assert row_counts(db) == before


def test_import_needs_a_login(new_client, table):
    document = export(table.gm, table.campaign_id)
    assert new_client().post("/api/v1/campaigns/import", json=document).status_code == 401


def test_document_model_is_strict_and_versioned():
    schema = transfer.CampaignExport.model_json_schema()
    assert schema["properties"]["format"]["const"] == "tablee-campaign"
    assert schema["properties"]["version"]["const"] == 1
    assert schema["additionalProperties"] is False


def test_exported_document_validates_against_its_own_model(table):
    document = export(table.gm, table.campaign_id)
    parsed = transfer.CampaignExport.model_validate(copy.deepcopy(document))
    assert parsed.model_dump(mode="json") == document


def minimal_document(**changes) -> dict:
    document = {"format": "tablee-campaign", "version": 1,
                "exported_at": "2026-03-14T20:30:00+00:00",
                "campaign": {"name": "Vide", "description": "", "system": "libre",
                             "archived": False},
                "members": [], "characters": [], "matches": [], "rolls": []}
    return {**document, **changes}


def test_many_unknown_members_are_counted_past_the_first_hundred(web):
    members = [{"username": f"absent{n:03d}", "display_name": "?", "role": "player"}
               for n in range(105)]
    importer = web("zelie")
    response = importer.post("/campaigns/import", csrf_path="/campaigns", files={
        "file": ("x.json", json.dumps(minimal_document(members=members)).encode(),
                 "application/json")})
    assert response.status_code == 303
    page = importer.page(response.headers["location"])
    assert len(page.select("#unmatched li")) == 100
    assert re.findall(r"\d+", page.select_one("#unmatched-more").text) == ["5"]
