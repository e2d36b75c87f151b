"""Campaign export and import: GM-only export, a lossless round trip, all-or-nothing import."""

from __future__ import annotations

import base64
import copy
import functools
import io
import itertools
import json
import threading
import time
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
from app.rules.dice import ScriptedDice
from app.services import characters, chat, rolls, tables, transfer
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
    character_ids: dict[str, int]


@pytest.fixture
def table(new_client, db, settings) -> Table:
    """Jeanne runs « Les Brumes »: Alice and Bruno play, Carol watches, an ambush is under way
    (played through the table engine: initiative, a move, rolls, a wound, an undone note)."""
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
    gobelin = characters.create_character(db=db, access=access, name="Gobelin",
                                          sheet=SHEET_GOBELIN, owner_id=None)
    for character, kind in ((aldo, "PNG"), (brune, "JPEG")):
        characters.set_portrait(db=db, access=access, character_id=character.id,
                                data=picture(kind), max_bytes=settings.max_portrait_bytes)
    ids = {"Aldo le Rôdeur": aldo.id, "Brune": brune.id, "Gobelin": gobelin.id}
    _play_ambush(db, settings.resolved_secret_key, campaign_id,
                 {name: db.get(User, person.id) for name, person in
                  (("jeanne", gm), ("alice", alice), ("bruno", bruno))}, ids)
    return Table(gm=gm, alice=alice, bruno=bruno, carol=carol, campaign_id=campaign_id,
                 character_ids=ids)


def _play_ambush(db, secret: str, campaign_id: int, people: dict[str, User],
                 ids: dict[str, int]) -> None:
    """The ambush at the ford, and an empty finished match; a free roll and its correction."""
    def access(name: str):
        return load_campaign_access(db, people[name], campaign_id)

    match = tables.create_match(db=db, secret=secret, access=access("jeanne"),
                                name="Embuscade au gué", character_ids=list(ids.values()),
                                dice=ScriptedDice([]))

    def play(name: str, action: dict, *faces) -> None:
        tables.apply_action(db=db, secret=secret, access=access(name), match_id=match.id,
                            action=action, expected_seq=None, dice=ScriptedDice(list(faces)))

    play("jeanne", {"kind": "roll_initiative"}, (20, 12), (20, 7), (20, 15))
    play("alice", {"kind": "move", "token": "t1", "x": 40, "y": 30})
    play("alice", {"kind": "roll", "expression": "1d20+5 # tir"}, (20, 17))
    play("jeanne", {"kind": "roll", "expression": "2d6 # embuscade", "visibility": "gm"},
         (6, 1), (6, 1))
    play("jeanne", {"kind": "adjust_hp", "token": "t3", "delta": -4})
    play("bruno", {"kind": "roll", "expression": "1d6 # rien", "visibility": "self"}, (6, 2))
    play("bruno", {"kind": "note", "text": "é ü ✓\nDeux lignes"})
    db.commit()
    tables.rewind(db=db, access=access("jeanne"), match_id=match.id,
                  to_seq=db.get(Match, match.id).seq - 1)  # the note is undone
    empty = tables.create_match(db=db, secret=secret, access=access("jeanne"),
                                name="Partie vide", dice=ScriptedDice([]))
    tables.apply_action(db=db, secret=secret, access=access("jeanne"), match_id=empty.id,
                        action={"kind": "end_match"}, expected_seq=None, dice=ScriptedDice([]))
    free = rolls.free_roll(db=db, secret=secret, access=access("bruno"),
                           expression="2d6+1 # Fouille", visibility="self",
                           dice=ScriptedDice([3, 5]))
    rolls.correct_roll(db=db, secret=secret, access=access("jeanne"), roll_id=free.id,
                       total=12, reason="Dé tombé de la table")
    say = functools.partial(chat.send, db=db, secret=secret)
    say(access=access("alice"), body="On traverse au gué ?", match_id=match.id,
        dice=ScriptedDice([]))
    say(access=access("alice"), body="/r 1d20 # pister", to="gm", dice=ScriptedDice([14]))
    say(access=access("alice"), body="Bruno, rien qu'entre nous", to=people["bruno"].id,
        dice=ScriptedDice([]))
    say(access=access("jeanne"), body="Bruno, tu entends un cri", to=people["bruno"].id,
        dice=ScriptedDice([]))


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
                                    "archived": False, "dice_cap": None}
    assert [(m["username"], m["role"]) for m in document["members"]] == [
        ("jeanne", "gm"), ("alice", "player"), ("bruno", "player"), ("carol", "spectator")]
    aldo, brune, gobelin = document["characters"]
    assert (aldo["name"], aldo["owner"], aldo["sheet"]) == ("Aldo le Rôdeur", "alice", SHEET_ALDO)
    assert aldo["id"] == table.character_ids["Aldo le Rôdeur"]  # what the events name
    assert aldo["notes"] == "Cherche sa sœur.\n\nA peur du noir."
    assert (brune["owner"], gobelin["owner"], gobelin["portrait"]) == ("bruno", None, None)
    stored = {c.name: c for c in db.scalars(select(Character))}
    for doc in (aldo, brune):
        image = db.get(Image, stored[doc["name"]].portrait_id)
        assert doc["portrait"] == {"content_type": image.content_type,
                                   "data": base64.b64encode(image.data).decode()}
    ambush, empty = document["matches"]
    assert (ambush["name"], ambush["seq"], ambush["status"]) == ("Embuscade au gué", 14,
                                                                 "running")
    assert [(e["kind"], e["actor"], e["visibility"], e["reverted"])
            for e in ambush["events"][7:]] == [
        ("token_moved", "alice", "public", False), ("rolled", "alice", "public", False),
        ("rolled", "jeanne", "gm", False), ("hp_changed", "jeanne", "public", False),
        ("rolled", "bruno", "self", False), ("note_added", "bruno", "public", True),
        ("rewind", "jeanne", "public", False)]
    assert ambush["events"][12]["payload"]["text"] == "é ü ✓\nDeux lignes"
    assert ambush["state"]["tokens"]["t3"]["hp"] == 2
    assert (empty["name"], empty["status"], empty["seq"]) == ("Partie vide", "finished", 2)
    # the roll log: refs 1, 2, 3… ; an event links to its rolls by ref, not by id
    assert [r["ref"] for r in document["rolls"]] == list(range(1, 10))  # 9: a chat roll
    assert ambush["events"][8]["payload"]["roll_ids"] == [4]
    attack, free, correction = document["rolls"][3], document["rolls"][6], document["rolls"][7]
    assert (attack["match"], attack["user"], attack["purpose"]) == (0, "alice", "tir")
    assert (free["user"], free["match"], free["visibility"]) == ("bruno", None, "self")
    assert (free["purpose"], free["record"]["total"]) == ("Fouille", 9)
    assert (correction["corrects"], correction["user"], correction["original_user"]) == \
        (7, "jeanne", "bruno")
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


def import_file(user: ApiUser, document: dict, **params) -> dict:
    response = user.post("/campaigns/import", json=document, params=params)
    assert response.status_code == 201, response.text
    return response.json()


def ids_mapped(value, mapping: dict[int, int]):
    """``value`` with character ids translated and member ids dropped, as an import does."""
    from app.rules.platform_ids import remap_ids

    return remap_ids(value, mapping)


def test_round_trip_keeps_everything_but_the_links_to_people(table, db, settings):
    first = export(table.gm, table.campaign_id)
    answer = import_file(table.gm, first)
    new_id = answer["campaign_id"]
    assert new_id != table.campaign_id
    second = export(table.gm, new_id)
    mapping = {before["id"]: after["id"] for before, after in
               zip(first["characters"], second["characters"], strict=True)}
    assert len(set(mapping.values()) - set(table.character_ids.values())) == 3  # new rows

    assert (second["format"], second["version"]) == (first["format"], first["version"])
    assert second["campaign"] == first["campaign"]
    # Nobody but the importer is a member; the others came back as a list.
    assert [(m["username"], m["role"]) for m in second["members"]] == [("jeanne", "gm")]
    assert [(m["username"], m["role"], m["characters"]) for m in answer["former_members"]] == [
        ("alice", "player", ["Aldo le Rôdeur"]), ("bruno", "player", ["Brune"]),
        ("carol", "spectator", [])]
    for before, after in zip(first["characters"], second["characters"], strict=True):
        assert {**after, "id": None, "owner": None, "portrait": None} == \
            {**before, "id": None, "owner": None, "portrait": None}
        assert after["owner"] is None  # unowned until someone joins and the GM hands it over
        assert_same_picture(after["portrait"], before["portrait"])
    for before, after in zip(first["matches"], second["matches"], strict=True):
        for key in ("name", "system", "status", "seq"):
            assert after[key] == before[key], (before["name"], key)
        assert after["state"] == ids_mapped(before["state"], mapping)
        for event_before, event_after in zip(before["events"], after["events"], strict=True):
            assert event_after == {**event_before,
                                   "payload": ids_mapped(event_before["payload"], mapping)}
    assert second["rolls"] == first["rolls"]  # who rolled: as the file says
    # A second trip changes nothing more.
    third = export(table.gm, import_file(table.gm, second)["campaign_id"])
    assert {**third, "exported_at": None, "characters": None, "matches": None} == \
        {**second, "exported_at": None, "characters": None, "matches": None}
    assert [m["state"] for m in third["matches"]] == [
        ids_mapped(m["state"], {b["id"]: a["id"] for b, a in
                                zip(second["characters"], third["characters"], strict=True)})
        for m in second["matches"]]


def assert_same_picture(after: dict | None, before: dict | None) -> None:
    """An imported portrait is re-encoded like an upload: a PNG comes back byte for byte, a
    JPEG as the same picture, a little recompressed."""
    if before is None:
        assert after is None
        return
    assert after["content_type"] == before["content_type"]
    data = [base64.b64decode(picture["data"]) for picture in (after, before)]
    if before["content_type"] == "image/png":
        assert data[0] == data[1]
    pictures = [PILImage.open(io.BytesIO(item)).convert("RGB") for item in data]
    assert pictures[0].size == pictures[1].size
    channels = list(zip(pictures[0].tobytes(), pictures[1].tobytes(), strict=True))
    assert sum(abs(a - b) for a, b in channels) / len(channels) < 4


def test_the_chat_goes_out_as_its_gm_read_it_and_comes_back_for_the_new_gm(table, db):
    """Alice and Bruno's whisper is theirs: the GM's file does not carry it."""
    first = export(table.gm, table.campaign_id)
    roll_ref = next(roll["ref"] for roll in first["rolls"] if roll["purpose"] == "pister")
    assert [(m["user"], m["audience"], m["recipient"], m["body"], m["match"], m["roll"])
            for m in first["chat"]] == [
        ("alice", "table", None, "On traverse au gué ?", 0, None),
        ("alice", "gm", None, "/r 1d20 # pister", None, roll_ref),
        ("jeanne", "member", "bruno", "Bruno, tu entends un cri", None, None)]
    new_id = import_file(table.gm, first)["campaign_id"]
    messages = table.gm.get(f"/campaigns/{new_id}/chat").json()["messages"]
    assert [(m["user_name"], m["audience"], m["to"], m["body"]) for m in messages] == [
        ("alice", "table", None, "On traverse au gué ?"),
        ("alice", "gm", "to the GM", "/r 1d20 # pister"),
        ("jeanne", "gm", "to bruno", "Bruno, tu entends un cri")]
    assert messages[1]["roll"]["total"] == 14 and messages[1]["user_id"] is None


def test_importing_makes_no_existing_account_a_member(table, db):
    """Alice imports Jeanne's campaign: Jeanne, Bruno and Carol (who have accounts here) are
    not members of it, and none of them sees it."""
    new_id = import_file(table.alice, export(table.gm, table.campaign_id))["campaign_id"]
    db.commit()
    members = db.scalars(select(Membership).where(Membership.campaign_id == new_id)).all()
    assert [(m.user_id, m.role) for m in members] == [(table.alice.id, Role.GM)]
    for outsider in (table.gm, table.bruno, table.carol):
        assert outsider.get(f"/campaigns/{new_id}").status_code == 404
        assert new_id not in {c["id"] for c in outsider.get("/campaigns").json()}
    owners = {c.name: c.owner_id for c in db.scalars(
        select(Character).where(Character.campaign_id == new_id))}
    assert owners == {"Aldo le Rôdeur": table.alice.id, "Brune": None, "Gobelin": None}


def test_the_gm_invites_former_members_and_the_imported_table_plays_on(table, db):
    new_id = import_file(table.gm, export(table.gm, table.campaign_id))["campaign_id"]
    base = f"/campaigns/{new_id}/former-members"
    assert [m["username"] for m in table.gm.get(base).json()] == ["alice", "bruno", "carol"]
    assert table.alice.get(base).status_code == 404  # not a member
    invited = table.gm.post(base + "/invites", json={"usernames": ["alice"]})
    assert invited.status_code == 201
    (link,) = invited.json()
    assert (link["username"], link["role"]) == ("alice", "player")
    assert [m["username"] for m in table.gm.get(base).json()] == ["bruno", "carol"]
    assert table.alice.post(f"/invites/{link['token']}/accept").status_code in (200, 201)
    # The GM hands Aldo back; Alice moves him in the imported match, which plays on.
    db.commit()
    aldo = db.scalar(select(Character.id).where(Character.campaign_id == new_id,
                                                Character.name == "Aldo le Rôdeur"))
    assert table.gm.post(f"/campaigns/{new_id}/characters/{aldo}/transfer",
                         json={"owner_id": table.alice.id}).status_code == 200
    ambush = table.alice.get(f"/campaigns/{new_id}/matches").json()[-1]
    assert ambush["name"] == "Embuscade au gué"
    moved = table.alice.post(f"/campaigns/{new_id}/matches/{ambush['id']}/actions", json={
        "action": {"kind": "move", "token": "t1", "x": 50, "y": 40}})
    assert moved.status_code == 200, moved.text
    state = table.alice.get(f"/campaigns/{new_id}/matches/{ambush['id']}").json()["state"]
    assert (state["tokens"]["t1"]["x"], state["tokens"]["t1"]["y"]) == (50, 40)
    refused = table.alice.post(f"/campaigns/{new_id}/matches/{ambush['id']}/actions", json={
        "action": {"kind": "move", "token": "t2", "x": 50, "y": 40}})
    assert refused.status_code == 422  # Brune is nobody's yet
    assert table.gm.delete(base).status_code == 204
    assert table.gm.get(base).json() == []


def test_imported_rolls_and_events_are_marked_and_linked_to_nobody(table, db, settings):
    new_id = import_file(table.gm, export(table.gm, table.campaign_id))["campaign_id"]
    db.commit()
    imported = db.scalars(select(Roll).where(Roll.campaign_id == new_id)
                          .order_by(Roll.id)).all()
    assert imported and all(roll.user_id is None and roll.imported for roll in imported)
    assert [roll.imported["user"] for roll in imported][3] == "alice"
    assert all(rolls.verify(settings.resolved_secret_key, rolls.entry_dict(roll))
               for roll in imported)
    events = db.scalars(select(MatchEvent).join(Match).where(Match.campaign_id == new_id)).all()
    assert events and all(event.actor_id is None for event in events)
    assert {event.imported["actor"] for event in events} == {"jeanne", "alice", "bruno"}
    # The roll log names the file's roller, marked as imported.
    log = table.gm.get(f"/campaigns/{new_id}/rolls").json()
    entry = next(e for e in log["entries"] if e.get("purpose") == "tir")
    assert (entry["user_id"], entry["user_name"], entry["imported"]) == (
        None, "alice", {"user": "alice"})


def test_verify_log_counts_imported_rolls_apart(table, db, settings, tmp_path, capsys):
    from app.__main__ import main

    new_id = import_file(table.gm, export(table.gm, table.campaign_id))["campaign_id"]
    document = table.gm.get(f"/campaigns/{new_id}/rolls/export").json()
    path = tmp_path / "log.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    main(["verify-log", str(path), "--secret", settings.resolved_secret_key])
    assert capsys.readouterr().out.strip() == (
        "0 entries rolled here, 9 imported from a campaign file (not rolled here); "
        "all signatures valid")
    # An imported entry cannot be passed off as one rolled here: the mark is signed.
    document["entries"][3]["imported"] = None
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(SystemExit):
        main(["verify-log", str(path), "--secret", settings.resolved_secret_key])
    assert "1 with an invalid signature" in capsys.readouterr().out


def test_import_can_rename_and_keeps_the_archived_flag(table, db):
    document = export(table.gm, table.campaign_id)
    document["campaign"]["archived"] = True
    new_id = import_file(table.gm, document, name="Les Brumes, saison 2")["campaign_id"]
    again = export(table.gm, new_id)
    assert again["campaign"] == {**document["campaign"], "name": "Les Brumes, saison 2"}


def test_web_import_lists_the_people_named_and_makes_their_links(table, web):
    document = export(table.gm, table.campaign_id)
    importer = web("zelie")
    response = importer.post("/campaigns/import", csrf_path="/campaigns",
                             data={"name": ""},
                             files={"file": ("brumes.json", json.dumps(document).encode(),
                                             "application/json")})
    assert response.status_code == 303
    result = response.headers["location"]
    page = importer.page(result)
    named = [box["value"] for box in page.select('#former-members input[name="username"]')]
    assert named == ["jeanne", "alice", "bruno", "carol"]  # the former GM comes as a player
    assert "Aldo le Rôdeur" in page.select_one("#former-members").text
    campaign_id = result.split("/")[2]
    made = importer.post(f"/campaigns/{campaign_id}/former-members/invites",
                         data={"username": ["alice", "bruno"]}, csrf_path=result)
    links = soup(made).select("#invited li")
    assert [li["data-username"] for li in links] == ["alice", "bruno"]
    assert all("/invite/" in li.select_one("input")["value"] for li in links)
    remaining = importer.page(result)
    assert [box["value"] for box in remaining.select(
        '#former-members input[name="username"]')] == ["jeanne", "carol"]


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
    "snapshot disagrees with the log": lambda d: _ambush(d)["state"]["tokens"]["t3"].update(
        hp=6),
    "status disagrees with the log": lambda d: _ambush(d).update(status="finished"),
    "event the game cannot read": lambda d: _ambush(d)["events"][7]["payload"].pop("to"),
    "NUL inside an event": lambda d: _ambush(d)["events"][12]["payload"].update(text="a\x00b"),
    "NUL inside a sheet": lambda d: _character(d, "Brune")["sheet"].update(statuses="\x00"),
    "direction override in a name": lambda d: _character(d, "Gobelin").update(
        name="Gob\u202enileb"),
    "control character in a purpose": lambda d: d["rolls"][0].update(purpose="a\x1b[31mb"),
    "chat at a missing match": lambda d: d["chat"][0].update(match=5),
    "chat names a missing roll": lambda d: d["chat"][1].update(roll=99),
    "chat with a bad username": lambda d: d["chat"][2].update(recipient="a b"),
    "empty chat message": lambda d: d["chat"][0].update(body=" "),
    "two characters with one id": lambda d: _character(d, "Gobelin").update(
        id=_character(d, "Brune")["id"]),
}


@pytest.mark.parametrize(("problem", "field"), [
    ("snapshot disagrees with the log", "matches.0.state.tokens.t3.hp"),
    ("status disagrees with the log", "matches.0.status"),
    ("event the game cannot read", "matches.0.events.7.payload"),
    ("NUL inside an event", "matches.0.events.12.payload.text"),
    ("direction override in a name", "characters.2.name"),
])
def test_a_refusal_names_the_first_bad_field(table, problem, field):
    document = export(table.gm, table.campaign_id)
    BROKEN[problem](document)
    response = table.gm.post("/campaigns/import", json=document)
    assert response.status_code == 422
    assert response.json()["error"]["field"] == field


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


def test_a_large_import_does_not_stop_other_tables_from_playing(table, db, app, settings):
    """While the largest file this instance accepts is imported, another campaign's table
    keeps writing: the import goes in short transactions, so writes interleave with it."""
    document = export(table.gm, table.campaign_id)
    template = document["rolls"][6]  # Bruno's free roll
    extra = [{**template, "ref": ref, "created_at": template["created_at"]}
             for ref in range(len(document["rolls"]) + 1, len(document["rolls"]) + 4001)]
    document["rolls"] = document["rolls"] + extra
    raw = json.dumps(document).encode()
    settings.max_import_bytes = len(raw)  # this file is the largest allowed
    parsed = transfer.parse_document(raw, settings)
    importer = db.get(User, table.gm.id)
    writes: list[tuple[float, float]] = []
    failures: list[BaseException] = []
    importing = threading.Event()
    done = threading.Event()

    def other_table() -> None:
        with app.state.sessionmaker() as session:
            access = load_campaign_access(session, session.get(User, table.bruno.id),
                                          table.campaign_id)
            importing.wait(10)
            while not done.is_set():
                started = time.monotonic()
                try:
                    rolls.free_roll(db=session, secret=settings.resolved_secret_key,
                                    access=access, expression="1d6 # pendant l'import",
                                    dice=ScriptedDice([4]))
                except BaseException as error:
                    failures.append(error)
                    return
                writes.append((started, time.monotonic()))

    writer = threading.Thread(target=other_table)
    writer.start()
    with app.state.sessionmaker() as session:
        importing.set()
        began = time.monotonic()
        result = transfer.import_campaign(db=session, settings=settings, user=importer,
                                          document=parsed)
        ended = time.monotonic()
    done.set()
    writer.join(30)
    assert failures == []
    during = [write for write in writes if began < write[1] < ended]
    assert len(during) >= 3, f"{len(during)} writes finished during the import"
    # No long stall: one transaction holding the lock for the whole roll log would leave
    # the other table waiting for most of the import (a ratio, not a speed target).
    finished = [began] + [end for _start, end in during] + [ended]
    longest_wait = max(later - earlier for earlier, later in itertools.pairwise(finished))
    assert longest_wait < (ended - began) / 2
    db.commit()
    assert db.scalar(select(func.count()).select_from(Roll).where(
        Roll.campaign_id == result.campaign.id)) == len(document["rolls"])


def test_an_unfinished_import_is_invisible_then_purged(table, db):
    """A server stopped in the middle of an import leaves a hidden campaign: nobody sees it,
    and the next import deletes it once it is an hour old."""
    gm = db.get(User, table.gm.id)
    with write_transaction(db):
        stale = Campaign(name="À moitié", system="libre", importing=True,
                         created_at=datetime.now(UTC) - timedelta(hours=2))
        fresh = Campaign(name="En cours", system="libre", importing=True)
        db.add_all([stale, fresh])
        db.flush()
        db.add_all([Membership(campaign_id=stale.id, user_id=gm.id, role=Role.GM),
                    Membership(campaign_id=fresh.id, user_id=gm.id, role=Role.GM)])
    stale_id, fresh_id = stale.id, fresh.id
    assert table.gm.get(f"/campaigns/{stale_id}").status_code == 404
    assert {stale_id, fresh_id}.isdisjoint(c["id"] for c in table.gm.get("/campaigns").json())
    import_file(table.gm, export(table.gm, table.campaign_id))
    db.commit()
    remaining = set(db.scalars(select(Campaign.id).where(Campaign.importing.is_(True))))
    assert remaining == {fresh_id}  # the fresh one may still be being written


def test_every_games_demo_campaign_goes_out_and_comes_back_playable(settings, db):
    """Each registered game's demo campaign (a match in progress) exported and imported: the
    rebuilt states are the originals with their character ids pointed at the new rows."""
    from app.rules.registry import all_systems
    from app.services import demo

    demo.ensure_demo(settings)
    db.commit()
    gm = db.scalar(select(User).where(User.username_key == demo.GM_USERNAME))
    for system in all_systems():
        campaign_id = db.scalar(select(Campaign.id).where(Campaign.system == system.key))
        first = transfer.export_campaign(db=db, access=load_campaign_access(db, gm, campaign_id))
        result = transfer.import_campaign(db=db, settings=settings, user=gm, document=first)
        again = transfer.export_campaign(db=db, access=load_campaign_access(
            db, gm, result.campaign.id))
        mapping = {before.id: after.id for before, after in
                   zip(first.characters, again.characters, strict=True)}
        assert [m.state for m in again.matches] == [ids_mapped(m.state, mapping)
                                                    for m in first.matches], system.key
        for match in db.scalars(select(Match).where(Match.campaign_id == result.campaign.id)):
            assert match.state == tables.fold_log(db, match), system.key


def test_the_dice_cap_goes_out_and_comes_back(table, db):
    """The GM's cap on dice per roll travels with the campaign; a file without one (written
    before the cap existed) gives the default; a cap out of range refuses the file."""
    assert table.gm.put(f"/campaigns/{table.campaign_id}/dice-cap",
                        json={"dice_cap": 12}).status_code == 200
    document = export(table.gm, table.campaign_id)
    assert document["campaign"]["dice_cap"] == 12
    new_id = import_file(table.gm, document)["campaign_id"]
    db.commit()
    assert db.get(Campaign, new_id).dice_cap == 12
    assert table.gm.get(f"/campaigns/{new_id}/dice-cap").json()["dice_cap"] == 12
    assert export(table.gm, new_id)["campaign"] == document["campaign"]

    older = copy.deepcopy(document)
    del older["campaign"]["dice_cap"]
    old_id = import_file(table.gm, older)["campaign_id"]
    db.commit()  # a fresh look at what the import wrote
    assert db.get(Campaign, old_id).dice_cap is None
    assert table.gm.get(f"/campaigns/{old_id}/dice-cap").json() == {
        "dice_cap": 100, "is_default": True, "default": 100, "maximum": 1000}

    before = row_counts(db)
    for bad in (0, 1001, "12", 2.5, True):
        broken = copy.deepcopy(document)
        broken["campaign"]["dice_cap"] = bad
        response = table.gm.post("/campaigns/import", json=broken)
        assert response.status_code == 422, (bad, response.text)
        assert response.json()["error"]["field"] == "campaign.dice_cap"
        assert row_counts(db) == before
