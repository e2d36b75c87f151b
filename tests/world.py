"""One seated campaign, built once per test module, for the cross-cutting suites.

The schemathesis, XSS and permission suites each ask hundreds of questions of the same
world; building it per test would cost minutes. ``running_world`` starts an app on its own
copy of the migrated template database and seats, through the public API and pages:

* root (user 1) — the instance admin, member of nothing here;
* Gina — GM of campaign 1 "Les Ombres" (libre); Paul and Pia — players; Sam — spectator;
* Olga — outsider: GM of her own campaign 2, not a member of campaign 1;
* Zed — an account nobody uses, for the admin's disable/enable routes.

Campaign 1 holds Paul's Aldo (character 1, with a portrait), Pia's Brune (2), the NPC
Gobelin (3), match 1 with Aldo and Brune, Paul's roll 1, the GM's creature profile 1, the
used-up invitations that seated everyone (1–3) and a live multi-use one (4). Every id is
small, so generated ids hit real objects. Every person has a browser (``web``) and an API
client (``api``).
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.testclient import TestClient
from PIL import Image
from sqlalchemy import insert, select, update

from app import auth
from app.db import write_transaction
from app.main import create_app
from app.models import Base, User
from app.services import backup
from tests.conftest import POSTGRES_URL, TEST_PASSWORD, app_settings, fresh_database
from tests.helpers import ApiUser, WebUser

# Registration order fixes the user ids: root is 1 (the first account is the admin).
PEOPLE = {"admin": "root", "gm": "gina", "player": "paul", "other_player": "pia",
          "spectator": "sam", "outsider": "olga", "idle": "zed"}


# The rows a request may legitimately change or delete when it is allowed to; ``heal`` puts
# them back (parents first, for the foreign keys). Rows added since are left alone.
SEATING = (Base.metadata.tables["users"], Base.metadata.tables["user_sessions"],
           Base.metadata.tables["campaigns"], Base.metadata.tables["memberships"],
           Base.metadata.tables["invites"], Base.metadata.tables["images"],
           Base.metadata.tables["characters"], Base.metadata.tables["custom_content"])


@dataclass
class World:
    app: FastAPI
    owner: TestClient
    web: dict[str, WebUser]
    api: dict[str, ApiUser]
    ids: dict[str, Any] = field(default_factory=dict)
    _seating: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    def client(self) -> TestClient:
        """Another browser, on the loop that owns the broker (see tests/conftest.py)."""
        new = TestClient(self.app)
        new.portal = self.owner.portal
        return new

    def user_id(self, role: str) -> int:
        user_id = self.api[role].id
        assert user_id is not None
        return user_id

    def fresh_token(self, role: str) -> str:
        """A new session for ``role``, for a request that ends the session it came with."""
        with self.app.state.sessionmaker() as db, write_transaction(db):
            user = db.get(User, self.user_id(role))
            assert user is not None
            return auth.start_session(db, user)

    def remember_seating(self) -> None:
        with self.app.state.engine.connect() as connection:
            self._seating = {table.name: [dict(row._mapping) for row in
                                          connection.execute(select(table))]
                             for table in SEATING}

    def heal(self) -> None:
        """Put the seating back as it was first remembered: an allowed request may archive
        the campaign, hand the GM role over, remove a member, delete or hand over a
        character, revoke the live invitation, disable an account or end a session. Ids stay
        the same, so the requests that follow still hit real objects."""
        with self.app.state.engine.begin() as connection:
            for table in SEATING:
                current = {row.id: dict(row._mapping)
                           for row in connection.execute(select(table))}
                for row in self._seating[table.name]:
                    if row["id"] not in current:
                        connection.execute(insert(table).values(**row))
                    elif current[row["id"]] != row:
                        connection.execute(update(table).where(table.c.id == row["id"])
                                           .values(**row))


def tiny_png() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), (120, 40, 40)).save(buffer, "PNG")
    return buffer.getvalue()


def _ok(response, status: int = 200) -> Any:
    assert response.status_code == status, (response.request.url, response.text)
    return response.json() if response.content else None


def _backup(world: World) -> str:
    """A backup the admin can download. PostgreSQL is backed up with pg_dump (409): the
    folder then gets a file named as the app names its own."""
    response = world.api["admin"].post("/admin/backups")
    if response.status_code == 409 and POSTGRES_URL:
        folder = backup.backup_dir(world.app.state.settings)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "tablee-20260101-120000.db").write_bytes(b"SQLite format 3\x00")
        return "tablee-20260101-120000.db"
    return Path(_ok(response, 201)["path"]).name


@contextmanager
def running_world(database_template: str, directory: Path) -> Iterator[World]:
    settings = app_settings(fresh_database(database_template, directory), directory / "var")
    app = create_app(settings)
    with TestClient(app) as owner:
        world = World(app=app, owner=owner, web={}, api={})
        _seat(world)
        world.remember_seating()
        yield world
    app.state.engine.dispose()


def _seat(world: World) -> None:
    for role, name in PEOPLE.items():
        browser = WebUser(world.client(), name)
        browser.register(TEST_PASSWORD, display_name=name.capitalize())
        script = ApiUser(world.client(), name)
        token = _ok(script.client.post("/api/v1/auth/login",
                                       json={"username": name, "password": TEST_PASSWORD}))
        script.headers = {"Authorization": f"Bearer {token['token']}"}
        script.id = token["user"]["id"]
        world.web[role], world.api[role] = browser, script
    gm, ids = world.api["gm"], world.ids
    ids["campaign"] = _ok(gm.post("/campaigns", json={"name": "Les Ombres",
                                                      "system": "libre"}), 201)["id"]
    base = f"/campaigns/{ids['campaign']}"
    ids["membership.gm"] = _ok(gm.get(base + "/members"))[0]["id"]
    for role, joins_as in (("player", "player"), ("other_player", "player"),
                           ("spectator", "spectator")):
        invite = _ok(gm.post(base + "/invites", json={"role": joins_as}), 201)
        ids.setdefault("used_invite_token", invite["token"])
        ids.setdefault("used_invite", invite["id"])
        accepted = _ok(world.api[role].post(f"/invites/{invite['token']}/accept"))
        ids[f"membership.{role}"] = accepted["membership_id"]
    live = _ok(gm.post(base + "/invites", json={"role": "spectator", "max_uses": None}), 201)
    ids["invite"], ids["invite_token"] = live["id"], live["token"]
    ids["other_campaign"] = _ok(world.api["outsider"].post(
        "/campaigns", json={"name": "Ailleurs", "system": "libre"}), 201)["id"]
    ids["character"] = _ok(world.api["player"].post(base + "/characters",
                                                    json={"name": "Aldo"}), 201)["id"]
    ids["other_character"] = _ok(world.api["other_player"].post(
        base + "/characters", json={"name": "Brune"}), 201)["id"]
    ids["npc"] = _ok(gm.post(base + "/characters", json={"name": "Gobelin",
                                                         "owner_id": None}), 201)["id"]
    _ok(world.api["player"].put(f"{base}/characters/{ids['character']}/portrait",
                                files={"file": ("aldo.png", tiny_png(), "image/png")}))
    ids["match"] = _ok(gm.post(base + "/matches", json={
        "name": "Escarmouche",
        "character_ids": [ids["character"], ids["other_character"]]}), 201)["id"]
    # A map under the match's board (the GM's page form): its picture is served to members.
    web_gm = world.web["gm"]
    match_path = f"/campaigns/{ids['campaign']}/matches/{ids['match']}"
    mapped = web_gm.client.post(match_path + "/background", data={
        "csrf_token": web_gm.csrf(), "pixels": "10", "per": "cm"},
        files={"picture": ("map.png", tiny_png(), "image/png")}, follow_redirects=False)
    assert mapped.status_code == 303, mapped.text
    ids["image"] = _ok(gm.get(f"{base}/matches/{ids['match']}"))["state"]["board"][
        "background"]["image_id"]
    # A second match whose map no test takes away: a player sees a picture only while it lies
    # under a board (with no fog over it), and the first match's map is removed by its test.
    ids["shown_match"] = _ok(gm.post(base + "/matches", json={"name": "La carte"}), 201)["id"]
    shown_path = f"/campaigns/{ids['campaign']}/matches/{ids['shown_match']}"
    mapped = web_gm.client.post(shown_path + "/background", data={
        "csrf_token": web_gm.csrf(), "pixels": "10", "per": "cm"},
        files={"picture": ("map.png", tiny_png(), "image/png")}, follow_redirects=False)
    assert mapped.status_code == 303, mapped.text
    ids["shown_image"] = _ok(gm.get(f"{base}/matches/{ids['shown_match']}"))["state"][
        "board"]["background"]["image_id"]
    # A handout to everyone there, with a picture (its page and picture are every member's).
    _ok(gm.post(f"{base}/matches/{ids['shown_match']}/handouts",
                data={"title": "Carte", "text": "Au nord."},
                files={"file": ("carte.png", tiny_png(), "image/png")}))
    ids["handout"] = "h1"
    ids["roll"] = _ok(world.api["player"].post(base + "/rolls", json={"expression": "1d6"}),
                      201)["id"]
    ids["content_item"] = _ok(gm.post(base + "/content/creature", json={
        "name": "Gobelin", "data": {"hp_max": 6, "statuses": "sournois"}}), 201)["id"]
    ids["backup"] = _backup(world)
    ids["idle_user"] = world.user_id("idle")
