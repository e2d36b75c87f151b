"""Who may do what, for every route of the pages and the API: one table, checked role × route.

``RULES`` gives each route the least a caller must be:

* ``anyone`` — no account needed;
* ``user`` — logged in;
* ``member`` — a member of the campaign in the path (spectators too);
* ``player`` — a player or the GM;
* ``owner`` — the player who owns the character in the path, or the GM;
* ``gm`` — the campaign's GM;
* ``admin`` — the instance administrator (who is not a member of campaign 1).

Each route is asked by seven people of the world in tests/world.py: anonymous, an outsider
(Olga, GM of another campaign), the admin, the spectator, the other player (Pia, who does
not own character 1), the player (Paul, owner of character 1) and the GM. Expected:
anonymous gets 401 (API), a redirect to the login page (page GET) or 401/403 (page POST);
anyone who is not a member gets 404 for anything of campaign 1 (no hint it exists); a member
below the route's level gets 403; at or above it, anything but 401/403/404 (a success or a
refusal of the request itself: 409, 410, 422…).

Each request is well-formed and, where the caller is allowed, harmless or healed afterwards:
validation answers 422 before a route checks the role, so a malformed request could not show
that the role check is there. Unsafe page requests carry the caller's CSRF token, so the check
reached is the authorisation one. A new route fails ``test_every_route_is_classified`` until
it is added to the table.

Then no IDOR: the outsider, GM of her own campaign, names campaign 1's character, match,
roll, membership or invitation under her campaign's path, and gets 404.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.main import API_PREFIX
from tests.conftest import TEST_PASSWORD
from tests.helpers import app_routes, csrf_from
from tests.world import World, running_world, tiny_png

# "nobody": a page no browser reaches (/metrics without the scrape token): 404 for all.
LEVELS = ("anyone", "user", "member", "player", "owner", "gm", "admin", "nobody")
# What each person is, for campaign 1 and its character 1 (Paul's).
GRANTS = {
    "anonymous": {"anyone"},
    "outsider": {"anyone", "user"},
    "admin": {"anyone", "user", "admin"},
    "spectator": {"anyone", "user", "member"},
    "other_player": {"anyone", "user", "member", "player"},
    "player": {"anyone", "user", "member", "player", "owner"},
    "gm": {"anyone", "user", "member", "player", "owner", "gm"},
}
MEMBERS = {"spectator", "other_player", "player", "gm"}
PEOPLE = tuple(GRANTS)


@dataclass(frozen=True)
class Rule:
    level: str
    # What the request carries: form fields (pages), a JSON body or a file (API).
    form: dict[str, str] = field(default_factory=dict)
    json: Any = None
    files: dict[str, Any] | None = None
    query: dict[str, str] = field(default_factory=dict)
    # Path values other than the defaults (see ``path_values``).
    params: dict[str, str] = field(default_factory=dict)
    # The request ends or replaces the session it is made with: use a session of its own.
    own_session: bool = False
    # A Server-Sent Events stream: only its status is read.
    stream: bool = False


# The GM's own membership: removing it or changing its role is refused (409) to the GM and
# forbidden (403) to everyone else, so the table keeps its members.
GM_MEMBERSHIP = {"membership_id": "{membership.gm}"}
CAMPAIGN = "/campaigns/{campaign_id:int}"
CHARACTERS = "/campaigns/{campaign_id}/characters"
CHARACTER = CHARACTERS + "/{character_id}"
MATCH = "/campaigns/{campaign_id}/matches/{match_id}"
ROLLS = "/campaigns/{campaign_id}/rolls"
API_CAMPAIGN = API_PREFIX + CAMPAIGN
API_CHARACTER = API_PREFIX + CHARACTER
API_MATCH = API_PREFIX + MATCH
API_ROLLS = API_PREFIX + ROLLS
CHAT = "/campaigns/{campaign_id}/chat"
API_CHAT = API_PREFIX + CHAT
ZED = {"username": "zed", "password": TEST_PASSWORD}

RULES: dict[tuple[str, str], Rule] = {
    # — pages: accounts ——————————————————————————————————————————————————————————
    ("GET", "/"): Rule("anyone"),
    ("POST", "/language"): Rule("anyone", form={"locale": "fr", "next": "/"}),
    ("GET", "/docs"): Rule("anyone"),
    ("GET", "/favicon.ico"): Rule("anyone"),
    ("GET", "/healthz"): Rule("anyone"),
    ("GET", "/readyz"): Rule("anyone"),
    ("GET", "/metrics"): Rule("nobody"),
    ("GET", "/games/{key}"): Rule("anyone", params={"key": "libre"}),
    ("GET", "/register"): Rule("anyone"),
    ("POST", "/register"): Rule("anyone"),
    ("GET", "/login"): Rule("anyone"),
    ("POST", "/login"): Rule("anyone", form=ZED, own_session=True),
    ("POST", "/logout"): Rule("anyone", own_session=True),
    ("GET", "/account"): Rule("user"),
    ("POST", "/account"): Rule("user"),
    ("POST", "/account/password"): Rule("user"),
    # — pages: campaigns, members, invitations ————————————————————————————————————
    ("GET", "/campaigns"): Rule("user"),
    ("POST", "/campaigns"): Rule("user"),
    ("GET", CAMPAIGN): Rule("member"),
    ("GET", CAMPAIGN + "/edit"): Rule("gm"),
    ("POST", CAMPAIGN + "/edit"): Rule("gm", form={"name": "Les Ombres", "version": "99999"}),
    ("POST", CAMPAIGN + "/archive"): Rule("gm"),
    ("POST", CAMPAIGN + "/unarchive"): Rule("gm"),
    ("GET", CAMPAIGN + "/delete"): Rule("gm"),
    ("POST", CAMPAIGN + "/delete"): Rule("gm", form={"confirm_name": "not its name"}),
    ("GET", CAMPAIGN + "/members"): Rule("gm"),
    ("POST", CAMPAIGN + "/members/{membership_id}/role"): Rule(
        "gm", form={"role": "player"}, params=GM_MEMBERSHIP),
    ("POST", CAMPAIGN + "/members/{membership_id}/remove"): Rule("gm", params=GM_MEMBERSHIP),
    ("POST", CAMPAIGN + "/gm"): Rule("gm", form={"membership_id": "{membership.gm}"}),
    ("POST", CAMPAIGN + "/leave"): Rule("member"),
    ("GET", CAMPAIGN + "/invites"): Rule("gm"),
    ("POST", CAMPAIGN + "/invites"): Rule("gm"),
    ("POST", CAMPAIGN + "/invites/{invite_id}/revoke"): Rule("gm"),
    ("GET", "/invite/{token}"): Rule("anyone"),
    ("POST", "/invite/{token}"): Rule("user", params={"token": "{used_invite_token}"}),
    # — pages: the roster ————————————————————————————————————————————————————————————
    ("GET", CHARACTERS): Rule("member"),
    ("GET", CHARACTERS + "/new"): Rule("player"),
    ("POST", CHARACTERS): Rule("player"),
    ("POST", CHARACTERS + "/sheet-preview"): Rule("player"),
    ("GET", CHARACTER): Rule("member"),
    ("GET", CHARACTER + "/edit"): Rule("owner"),
    ("POST", CHARACTER + "/edit"): Rule("owner"),
    ("POST", CHARACTER + "/sheet-preview"): Rule("owner"),
    ("POST", CHARACTER + "/rolls"): Rule("owner", form={"roll": "skill:none"}),
    ("POST", CHARACTER + "/transfer"): Rule("gm", form={"owner_id": "{player}"}),
    ("POST", CHARACTER + "/delete"): Rule("owner"),
    ("POST", CHARACTER + "/portrait"): Rule("owner"),
    ("POST", CHARACTER + "/portrait/delete"): Rule("owner"),
    ("GET", CHARACTER + "/portrait"): Rule("member"),
    # — pages: custom content ———————————————————————————————————————————————————————————
    ("GET", CAMPAIGN + "/content"): Rule("member"),
    ("POST", CAMPAIGN + "/content/{kind}"): Rule("gm", form={"name": "", "hp_max": "x"}),
    ("GET", CAMPAIGN + "/content/items/{item_id}/edit"): Rule("gm"),
    ("POST", CAMPAIGN + "/content/items/{item_id}/edit"): Rule("gm", form={"name": ""}),
    ("POST", CAMPAIGN + "/content/items/{item_id}/delete"): Rule("gm"),
    ("POST", CAMPAIGN + "/content/from-match/{match_id}"): Rule("gm", form={"name": "Plan"}),
    ("GET", CHARACTER + "/print"): Rule("member"),
    # — pages: export and import —————————————————————————————————————————————————————
    ("GET", "/campaigns/{campaign_id}/export"): Rule("gm"),
    ("GET", "/campaigns/import"): Rule("user"),
    ("POST", "/campaigns/import"): Rule("user"),
    ("GET", "/campaigns/{campaign_id}/imported"): Rule("gm"),
    ("POST", "/campaigns/{campaign_id}/former-members/invites"): Rule("gm"),
    ("POST", "/campaigns/{campaign_id}/former-members/dismiss"): Rule("gm"),
    # — pages: the instance administration ————————————————————————————————————————————
    ("GET", "/admin"): Rule("admin"),
    ("POST", "/admin/backup"): Rule("admin"),
    ("GET", "/admin/backups/{name}"): Rule("admin"),
    ("POST", "/admin/users/{user_id}/disable"): Rule("admin"),
    ("POST", "/admin/users/{user_id}/enable"): Rule("admin"),
    ("POST", "/admin/registration"): Rule("admin", form={"invitation_only": ""}),
    # — pages: matches —————————————————————————————————————————————————————————————————
    ("GET", "/campaigns/{campaign_id}/matches"): Rule("member"),
    ("POST", "/campaigns/{campaign_id}/matches"): Rule("gm"),
    ("GET", MATCH): Rule("member"),
    ("POST", MATCH + "/actions"): Rule("player", form={"kind": "note", "text": "Psst."}),
    # An action's odds are worked out on the asker's own view: every member may ask.
    ("POST", MATCH + "/odds"): Rule("member", form={"kind": "note", "text": "Psst."}),
    # A simulation runs from the asker's own view (the GM's from the whole state): every
    # member may ask, and sees only their own. The world's free-play match has none (409).
    ("POST", MATCH + "/simulations"): Rule("member", form={"runs": "5"}),
    ("GET", MATCH + "/simulations"): Rule("member"),
    ("POST", MATCH + "/simulations/cancel"): Rule("member"),
    ("POST", MATCH + "/rewind"): Rule("gm"),
    ("POST", MATCH + "/redo"): Rule("gm"),
    ("POST", MATCH + "/background"): Rule("gm", form={"remove": "1"}),
    # A picture under a board (no fog over it) is every member's; the GM's whatever it is.
    ("GET", "/campaigns/{campaign_id}/images/{image_id}"): Rule(
        "member", params={"image_id": "{shown_image}"}),
    ("GET", MATCH + "/map"): Rule("member", params={"match_id": "{shown_match}"}),
    # Handouts: the GM hands one out; a handout to everyone is every member's to read.
    ("POST", MATCH + "/handouts"): Rule("gm", form={"title": "Mot", "text": "Bonjour"},
                                        params={"match_id": "{shown_match}"}),
    ("GET", MATCH + "/handouts/{handout_id}"): Rule("member",
                                                    params={"match_id": "{shown_match}"}),
    ("GET", MATCH + "/handouts/{handout_id}/picture"): Rule(
        "member", params={"match_id": "{shown_match}"}),
    ("GET", MATCH + "/stream"): Rule("member", stream=True),
    ("GET", MATCH + "/replay"): Rule("member"),
    # — pages: the roll log ————————————————————————————————————————————————————————————
    ("GET", ROLLS): Rule("member"),
    ("POST", ROLLS): Rule("player"),
    ("POST", ROLLS + "/{roll_id}/corrections"): Rule(
        "gm", form={"total": "3", "reason": "Le dé était cassé."}),
    ("GET", ROLLS + "/stream"): Rule("member", stream=True),
    ("GET", ROLLS + "/distribution"): Rule("member", query={"expression": "2d6"}),
    ("GET", ROLLS + "/export.json"): Rule("member"),
    ("GET", ROLLS + "/export.txt"): Rule("member"),
    ("GET", "/campaigns/{campaign_id}/compendium"): Rule("member"),
    ("GET", CHAT): Rule("member"),
    ("GET", CHAT + "/panel"): Rule("member"),
    ("POST", CHAT): Rule("member", form={"body": "", "to": "table"}),
    ("GET", CHAT + "/stream"): Rule("member", stream=True),
    # — API: accounts ——————————————————————————————————————————————————————————————————
    ("GET", "/api/v1/systems"): Rule("anyone"),
    ("GET", "/api/v1/dice/distribution"): Rule("user", query={"expression": "2d6"}),
    ("POST", "/api/v1/auth/register"): Rule("anyone", json={"username": "x", "password": "x"}),
    ("POST", "/api/v1/auth/login"): Rule("anyone", json=ZED),
    ("POST", "/api/v1/auth/logout"): Rule("user", own_session=True),
    ("GET", "/api/v1/me"): Rule("user"),
    ("PATCH", "/api/v1/me"): Rule("user", json={}),
    ("POST", "/api/v1/me/password"): Rule("user", json={"current_password": TEST_PASSWORD,
                                                         "new_password": "short"}),
    # — API: campaigns, members, invitations ——————————————————————————————————————————
    ("GET", "/api/v1/campaigns"): Rule("user"),
    ("POST", "/api/v1/campaigns"): Rule("user", json={}),
    ("GET", API_CAMPAIGN): Rule("member"),
    ("GET", API_CAMPAIGN + "/summary"): Rule("member"),
    ("PATCH", API_CAMPAIGN): Rule("gm", json={"version": 99999}),
    ("DELETE", API_CAMPAIGN): Rule("gm", query={"confirm_name": "not its name"}),
    ("POST", API_CAMPAIGN + "/archive"): Rule("gm"),
    ("POST", API_CAMPAIGN + "/unarchive"): Rule("gm"),
    ("GET", API_CAMPAIGN + "/dice-cap"): Rule("gm"),
    ("PUT", API_CAMPAIGN + "/dice-cap"): Rule("gm", json={"dice_cap": None}),
    ("GET", API_CAMPAIGN + "/members"): Rule("member"),
    ("PATCH", API_CAMPAIGN + "/members/{membership_id}"): Rule(
        "gm", json={"role": "player"}, params=GM_MEMBERSHIP),
    ("DELETE", API_CAMPAIGN + "/members/{membership_id}"): Rule("gm", params=GM_MEMBERSHIP),
    ("POST", API_CAMPAIGN + "/gm"): Rule("gm", json={"membership_id": "{membership.gm}"}),
    ("GET", API_CAMPAIGN + "/invites"): Rule("gm"),
    ("POST", API_CAMPAIGN + "/invites"): Rule("gm", json={"role": "spectator"}),
    ("DELETE", API_CAMPAIGN + "/invites/{invite_id}"): Rule("gm"),
    ("GET", "/api/v1/invites/{token}"): Rule("anyone"),
    ("POST", "/api/v1/invites/{token}/accept"): Rule(
        "user", params={"token": "{used_invite_token}"}),
    # — API: the roster ————————————————————————————————————————————————————————————————
    ("GET", API_PREFIX + CHARACTERS): Rule("member"),
    ("POST", API_PREFIX + CHARACTERS): Rule("player", json={"name": "Recrue"}),
    ("GET", API_CHARACTER): Rule("member"),
    ("PATCH", API_CHARACTER): Rule("owner", json={"version": 99999}),
    ("DELETE", API_CHARACTER): Rule("owner"),
    ("POST", API_CHARACTER + "/transfer"): Rule("gm", json={"owner_id": "{player}"}),
    ("GET", API_CHARACTER + "/rolls"): Rule("member"),
    ("POST", API_CHARACTER + "/rolls"): Rule("owner", json={"roll": "skill:none"}),
    ("PUT", API_CHARACTER + "/portrait"): Rule(
        "owner", files={"file": ("aldo.png", tiny_png(), "image/png")}),
    ("DELETE", API_CHARACTER + "/portrait"): Rule("owner"),
    ("GET", API_CHARACTER + "/portrait"): Rule("member"),
    # — API: custom content —————————————————————————————————————————————————————————————
    ("GET", API_CAMPAIGN + "/content"): Rule("member"),
    ("POST", API_CAMPAIGN + "/content/{kind}"): Rule("gm", json={"name": "Orque",
                                                               "data": {"hp_max": -1}}),
    ("PUT", API_CAMPAIGN + "/content/items/{item_id}"): Rule(
        "gm", json={"name": "Gobelin", "data": {"hp_max": 7, "statuses": ""}}),
    ("DELETE", API_CAMPAIGN + "/content/items/{item_id}"): Rule("gm"),
    ("POST", API_CAMPAIGN + "/content/from-match/{match_id}"): Rule("gm", json={"name": "Plan"}),
    # — API: export and import —————————————————————————————————————————————————————————
    ("GET", "/api/v1/campaigns/{campaign_id}/export"): Rule("gm"),
    ("POST", "/api/v1/campaigns/import"): Rule("user", json={}),
    ("GET", "/api/v1/campaigns/{campaign_id}/former-members"): Rule("gm"),
    ("POST", "/api/v1/campaigns/{campaign_id}/former-members/invites"): Rule(
        "gm", json={"usernames": []}),
    ("DELETE", "/api/v1/campaigns/{campaign_id}/former-members"): Rule("gm"),
    # — API: the instance administration ——————————————————————————————————————————————
    ("POST", "/api/v1/admin/backups"): Rule("admin"),
    ("GET", "/api/v1/admin/backups"): Rule("admin"),
    ("GET", "/api/v1/admin/users"): Rule("admin"),
    ("POST", "/api/v1/admin/users/{user_id}/disable"): Rule("admin"),
    ("POST", "/api/v1/admin/users/{user_id}/enable"): Rule("admin"),
    ("GET", "/api/v1/admin/registration"): Rule("admin"),
    ("PUT", "/api/v1/admin/registration"): Rule("admin", json={"invitation_only": False}),
    # — API: matches ———————————————————————————————————————————————————————————————————
    ("GET", "/api/v1/campaigns/{campaign_id}/matches"): Rule("member"),
    ("POST", "/api/v1/campaigns/{campaign_id}/matches"): Rule(
        "gm", json={"name": "Duel", "character_ids": [99999]}),
    ("GET", API_MATCH): Rule("member"),
    ("GET", API_MATCH + "/log"): Rule("member"),
    ("POST", API_MATCH + "/actions"): Rule("player", json={"action": {"kind": "no such"}}),
    ("POST", API_MATCH + "/rewind"): Rule("gm", json={"to_seq": 99999}),
    ("POST", API_MATCH + "/redo"): Rule("gm"),
    ("POST", API_MATCH + "/simulations"): Rule("member", json={"runs": 5}),
    ("GET", API_MATCH + "/simulations"): Rule("member"),
    ("DELETE", API_MATCH + "/simulations"): Rule("member"),
    ("GET", API_MATCH + "/stream"): Rule("member", stream=True),
    ("GET", API_MATCH + "/background"): Rule("member"),
    # A scale per square on a board in cm: refused (422) once the role let the GM through.
    ("PUT", API_MATCH + "/background"): Rule(
        "gm", form={"pixels": "5", "per": "sq"},
        files={"file": ("carte.png", tiny_png(), "image/png")}),
    ("POST", API_MATCH + "/background/switch"): Rule(
        "gm", json={"image_id": 99999, "pixels": 5, "per": "cm"}),
    ("DELETE", API_MATCH + "/background"): Rule("gm"),
    ("GET", API_PREFIX + "/campaigns/{campaign_id}/images/{image_id}"): Rule(
        "member", params={"image_id": "{shown_image}"}),
    ("GET", API_MATCH + "/map"): Rule("member", params={"match_id": "{shown_match}"}),
    # A ping: every member points at the board (spectators too); nothing is kept.
    ("POST", API_MATCH + "/pings"): Rule("member", json={"x": 1, "y": 1}),
    ("GET", API_MATCH + "/handouts"): Rule("member"),
    ("POST", API_MATCH + "/handouts"): Rule(
        "gm", form={"title": "Mot", "text": "Bonjour"},
        files={"file": ("mot.png", tiny_png(), "image/png")}),
    ("GET", API_MATCH + "/handouts/{handout_id}/picture"): Rule(
        "member", params={"match_id": "{shown_match}"}),
    ("GET", API_MATCH + "/pings/stream"): Rule("member", stream=True),
    # — API: the roll log ——————————————————————————————————————————————————————————————
    ("POST", API_ROLLS): Rule("player", json={"expression": "3d"}),
    ("GET", API_ROLLS): Rule("member"),
    ("POST", API_ROLLS + "/{roll_id}/corrections"): Rule(
        "gm", json={"total": 3, "reason": "Le dé était cassé."}),
    ("GET", API_ROLLS + "/export"): Rule("member"),
    ("POST", API_CHAT): Rule("member", json={"body": "/r 3d"}),
    ("GET", API_CHAT): Rule("member"),
    ("GET", API_CHAT + "/stream"): Rule("member", stream=True),
}

# Known bugs: (method, path, person) → what happens instead. Each case stays visible as a
# strict xfail; it turns into a failure the day it is fixed, to be removed from here.
KNOWN_BUGS: dict[tuple[str, str, str], str] = {
}


def path_values(world: World) -> dict[str, str]:
    """The real objects each path parameter names by default."""
    ids = world.ids
    return {"campaign_id": str(ids["campaign"]), "character_id": str(ids["character"]),
            "match_id": str(ids["match"]), "roll_id": str(ids["roll"]),
            "membership_id": str(ids["membership.gm"]),
            # A used-up invitation: revoking it changes nothing anyone relies on.
            "invite_id": str(ids["used_invite"]), "token": ids["invite_token"],
            "name": ids["backup"], "user_id": str(ids["idle_user"]),
            "item_id": str(ids["content_item"]), "kind": "creature",
            "image_id": str(ids["image"]), "handout_id": ids["handout"]}


def _fill(text: str, world: World) -> str:
    """``{membership.gm}``, ``{player}``, ``{used_invite_token}`` → the world's values."""
    if not (text.startswith("{") and text.endswith("}")):
        return text
    key = text[1:-1]
    return str(world.user_id(key)) if key in world.api else str(world.ids[key])


def url_for(path: str, rule: Rule, world: World) -> str:
    values = {**path_values(world), **{name: _fill(value, world)
                                       for name, value in rule.params.items()}}
    for name, value in values.items():
        path = path.replace(f"{{{name}}}", value).replace(f"{{{name}:int}}", value)
    assert "{" not in path, path
    return path


def _filled(data: Any, world: World) -> Any:
    if isinstance(data, dict):
        return {key: _filled(value, world) for key, value in data.items()}
    if isinstance(data, str):
        filled = _fill(data, world)
        # JSON bodies name people and members by number.
        return int(filled) if filled != data and filled.isdigit() else filled
    return data


# — the people and their browsers ————————————————————————————————————————————————————

class Caller:
    """One person's browser (cookies, CSRF token read from a page) and API token."""

    def __init__(self, world: World, person: str, client: TestClient, bearer: str | None):
        self.world, self.person, self.client, self.bearer = world, person, client, bearer
        self._csrf: str | None = None

    @property
    def csrf(self) -> str:
        if self._csrf is None:
            page = "/login" if self.person == "anonymous" else "/account"
            self._csrf = csrf_from(self.client.get(page))
        return self._csrf

    def send(self, method: str, path: str, rule: Rule):
        url = url_for(path, rule, self.world)
        if path.startswith(API_PREFIX):
            headers = {"Authorization": f"Bearer {self.bearer}"} if self.bearer else {}
            body = {"json": _filled(rule.json, self.world)} if rule.json is not None else {}
            if rule.files:  # multipart: the file and the form's other fields
                body = {"files": rule.files, **({"data": rule.form} if rule.form else {})}
        else:
            headers = {"X-CSRF-Token": self.csrf} if method != "GET" else {}
            body = {"data": _filled(rule.form, self.world)} if rule.form else {}
        if rule.stream:
            with self.client.stream(method, url, headers=headers, params=rule.query,
                                    follow_redirects=False) as answer:
                return answer
        return self.client.request(method, url, headers=headers, params=rule.query,
                                   follow_redirects=False, **body)


def caller(world: World, person: str, *, own_session: bool = False) -> Caller:
    if person == "anonymous":
        return Caller(world, person, world.client(), None)
    if own_session:
        client = world.client()
        token = world.fresh_token(person)
        client.cookies.set(world.app.state.settings.session_cookie_name, token)
        return Caller(world, person, client, token)
    return Caller(world, person, world.web[person].client,
                  world.api[person].headers["Authorization"].removeprefix("Bearer "))


@pytest.fixture(scope="module")
def world(database_template: str, tmp_path_factory) -> Iterator[World]:
    with running_world(database_template, tmp_path_factory.mktemp("permissions")) as seated:
        yield seated


@pytest.fixture(scope="module")
def callers(world: World) -> dict[str, Caller]:
    return {person: caller(world, person) for person in PEOPLE}


# — the tests ————————————————————————————————————————————————————————————————————————

def test_every_route_is_classified():
    """A new route must be given its level here; a removed one must leave the table."""
    routes = {(method, path) for method, path, _route in app_routes()}
    assert sorted(routes - set(RULES)) == [], "routes missing from RULES"
    assert sorted(set(RULES) - routes) == [], "RULES entries for routes that do not exist"
    assert {rule.level for rule in RULES.values()} <= set(LEVELS)


def expectation(person: str, method: str, path: str, rule: Rule) -> str:
    if rule.level == "nobody":
        return "not found"
    if rule.level in GRANTS[person]:
        return "allowed"
    if person == "anonymous":
        return "anonymous"
    if "{campaign_id" in path and person not in MEMBERS:
        return "not found"
    return "forbidden"


def _cases() -> Iterator[Any]:
    for (method, path), rule in RULES.items():
        for person in PEOPLE:
            marks = []
            bug = KNOWN_BUGS.get((method, path, person))
            if bug:
                marks.append(pytest.mark.xfail(strict=True, reason=f"bug: {bug}"))
            yield pytest.param(method, path, person, id=f"{method} {path} {person}",
                               marks=marks)


@pytest.mark.parametrize(("method", "path", "person"), list(_cases()))
def test_role_and_route(world: World, callers: dict[str, Caller], method: str, path: str,
                        person: str):
    rule = RULES[(method, path)]
    who = caller(world, person, own_session=True) if rule.own_session else callers[person]
    response = who.send(method, path, rule)
    status = response.status_code
    expected = expectation(person, method, path, rule)
    if expected == "allowed" and method != "GET" and status < 400:
        world.heal()  # an allowed request may have archived the campaign, left it…
    where = (method, path, person, status, response.headers.get("location"))
    assert status < 500, where
    if expected == "allowed":
        assert status not in (401, 403, 404), where
    elif expected == "anonymous":
        if path.startswith(API_PREFIX):
            assert status == 401, where
        elif method == "GET":
            assert status == 303 and response.headers["location"].startswith("/login"), where
        else:
            assert status in (401, 403), where
    elif expected == "not found":
        assert status == 404, where
    else:
        assert status == 403, where


# Objects named in the path under a campaign: they must belong to that campaign.
NESTED = ("{character_id}", "{match_id}", "{roll_id}", "{membership_id}", "{invite_id}",
          "{item_id}")


def _nested_routes() -> list[tuple[str, str]]:
    return [(method, path) for method, path in RULES if any(key in path for key in NESTED)]


@pytest.mark.parametrize(("method", "path"), _nested_routes(),
                         ids=[f"{method} {path}" for method, path in _nested_routes()])
def test_another_campaigns_objects_are_not_reached_through_ones_own(
        world: World, callers: dict[str, Caller], method: str, path: str):
    """No IDOR: Olga, GM of campaign 2 (every role check passes there), names campaign 1's
    character, match, roll, membership or invitation under her own campaign: 404."""
    rule = RULES[(method, path)]
    own = Rule(rule.level, form=rule.form, json=rule.json, files=rule.files, query=rule.query,
               params={"campaign_id": str(world.ids["other_campaign"]), **rule.params},
               stream=rule.stream)
    response = callers["outsider"].send(method, path, own)
    if response.status_code < 400:
        world.heal()
    assert response.status_code == 404, (method, path, response.status_code)
