"""Campaigns: create, my campaigns, overview, edit with versions, archive, delete, roles × routes.

The helpers at the top (``make_table``, ``join``…) are shared with test_members and
test_invites: one GM (Gina), a player (Paul), a spectator (Sam) and an outsider (Olga).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select, text

from app.models import Campaign, Invite, Membership, Role
from app.rules.registry import all_systems
from tests.conftest import TEST_PASSWORD
from tests.helpers import ApiUser, WebUser, csrf_from, soup


def api_login(new_client, username: str) -> ApiUser:
    """An API client for an account that already exists (made by ``web(...)``)."""
    user = ApiUser(new_client(), username)
    response = user.client.post("/api/v1/auth/login",
                                json={"username": username, "password": TEST_PASSWORD})
    assert response.status_code == 200, response.text
    user.headers = {"Authorization": f"Bearer {response.json()['token']}"}
    user.id = response.json()["user"]["id"]
    return user


def create_in_browser(gm: WebUser, name: str = "Les Ombres", system: str = "libre",
                      description: str = "Une campagne.") -> int:
    response = gm.post("/campaigns", {"name": name, "description": description,
                                      "system": system})
    assert response.status_code == 303, response.text
    return int(response.headers["location"].rsplit("/", 1)[1])


def invite(gm: ApiUser, campaign_id: int, role: str = "player", **extra: Any) -> dict:
    response = gm.post(f"/campaigns/{campaign_id}/invites", json={"role": role, **extra})
    assert response.status_code == 201, response.text
    return response.json()


def join(gm: ApiUser, campaign_id: int, member: ApiUser, role: str) -> int:
    """``member`` joins through a fresh link; returns their membership id."""
    token = invite(gm, campaign_id, role)["token"]
    response = member.post(f"/invites/{token}/accept")
    assert response.status_code == 200, response.text
    return response.json()["membership_id"]


def count(db, model) -> int:
    db.commit()  # end the read snapshot
    return db.scalar(select(func.count()).select_from(model))


@dataclass
class Table:
    """A campaign with one person in each role, each with a browser and an API client."""

    campaign_id: int
    web: dict[str, WebUser]
    api: dict[str, ApiUser]
    membership: dict[str, int]
    anonymous: Any

    @property
    def url(self) -> str:
        return f"/campaigns/{self.campaign_id}"


def make_table(web, new_client) -> Table:
    names = {"gm": "gina", "player": "paul", "spectator": "sam", "outsider": "olga"}
    browsers = {role: web(name) for role, name in names.items()}
    apis = {role: api_login(new_client, name) for role, name in names.items()}
    campaign_id = create_in_browser(browsers["gm"])
    membership = {"gm": apis["gm"].get(f"/campaigns/{campaign_id}/members").json()[0]["id"]}
    for role in ("player", "spectator"):
        membership[role] = join(apis["gm"], campaign_id, apis[role], role)
    return Table(campaign_id, browsers, apis, membership, anonymous=new_client())


# --- creating and listing ---------------------------------------------------------------

def test_a_new_campaign_opens_on_its_page_with_me_as_gm(web):
    gina = web("gina", display_name="Gina")
    page = gina.page("/campaigns")
    assert [o["value"] for o in page.select("select#field-system option")] == [
        system.key for system in all_systems()]
    campaign_id = create_in_browser(gina, name="Les Ombres", description="Ligne 1\nLigne 2")
    page = gina.page(f"/campaigns/{campaign_id}")
    assert page.select_one("main h1").text == "Les Ombres"
    assert [p.text for p in page.select(".description p")] == ["Ligne 1", "Ligne 2"]
    assert page.select_one(".system").text == "Free play"
    gina.post("/account", {"display_name": "Gina", "locale": "fr"})
    assert gina.page(f"/campaigns/{campaign_id}").select_one(".system").text == "Jeu libre"
    rows = page.select("table.members tbody tr")
    assert [(row.select_one(".member-name").text, row.select_one(".badge")["class"])
            for row in rows] == [("Gina", ["badge", "role", "gm"])]
    links = {a["href"] for a in page.select("main a")}
    assert {f"/campaigns/{campaign_id}/characters", f"/campaigns/{campaign_id}/export",
            f"/campaigns/{campaign_id}/edit", f"/campaigns/{campaign_id}/invites",
            f"/campaigns/{campaign_id}/members", f"/campaigns/{campaign_id}/delete"} <= links


def test_my_campaigns_lists_my_role_in_each_and_marks_archived_ones(web, new_client):
    gina, paul = web("gina"), web("paul")
    gina_api, paul_api = api_login(new_client, "gina"), api_login(new_client, "paul")
    first = create_in_browser(gina, name="Première")
    second = create_in_browser(gina, name="Seconde")
    mine = create_in_browser(paul, name="La mienne")
    join(gina_api, first, paul_api, "spectator")
    join(gina_api, second, paul_api, "player")
    assert gina_api.post(f"/campaigns/{first}/archive").status_code == 200

    cards = {card.select_one("h2 a").text: card for card in paul.page("/campaigns")
             .select(".campaign-list .campaign")}
    assert set(cards) == {"Première", "Seconde", "La mienne"}
    assert cards["La mienne"].select_one(".badge.role.gm")
    assert cards["Seconde"].select_one(".badge.role.player")
    assert cards["Première"].select_one(".badge.role.spectator")
    assert cards["Première"].select_one(".badge.archived")
    assert not cards["Seconde"].select_one(".badge.archived")
    listed = {c["name"]: (c["role"], c["archived"]) for c in paul_api.get("/campaigns").json()}
    assert listed == {"Première": ("spectator", True), "Seconde": ("player", False),
                      "La mienne": ("gm", False)}
    assert mine != first


def test_an_unknown_system_is_refused_inline_and_nothing_is_created(web, api, db):
    gina = web("gina")
    response = gina.post("/campaigns", {"name": "Typed name", "description": "Typed text",
                                        "system": "donjons"})
    assert response.status_code == 422
    page = soup(response)
    assert page.select_one("#system-error").text
    assert page.select_one("#field-name")["value"] == "Typed name"
    assert page.select_one("#field-description").text == "Typed text"
    response = api("alice").post("/campaigns", json={"name": "X", "system": "donjons"})
    assert response.status_code == 422
    assert response.json()["error"]["field"] == "system"
    assert count(db, Campaign) == 0 and count(db, Membership) == 0


def test_bad_campaign_input_gets_a_clear_error_and_changes_nothing(api, db):
    alice = api("alice")
    for body, field in (
        ({"name": "x" * 121, "system": "libre"}, "name"),  # the service's limit
        ({"name": "x" * 501, "system": "libre"}, "name"),  # the API's input cap
        ({"name": "   ", "system": "libre"}, "name"),
        ({"name": "Ok", "description": "d" * 5001, "system": "libre"}, "description"),
        ({"name": 12, "system": "libre"}, "name"),
        ({"name": "Ok", "system": ["libre"]}, "system"),
        ({"name": "Ok", "system": "libre", "owner": 1}, "owner"),
    ):
        response = alice.post("/campaigns", json=body)
        assert response.status_code == 422, body
        assert response.json()["error"]["field"] == field, body
    assert count(db, Campaign) == 0


# --- editing with versions --------------------------------------------------------------

def test_the_gm_edits_name_and_description(web):
    gina = web("gina")
    campaign_id = create_in_browser(gina)
    form = gina.page(f"/campaigns/{campaign_id}/edit").select_one("form.edit-campaign")
    version = form.select_one('input[name="version"]')["value"]
    response = gina.post(f"/campaigns/{campaign_id}/edit",
                         {"name": "Nouveau nom", "description": "Neuve", "version": version})
    assert response.status_code == 303
    page = gina.page(response.headers["location"])
    assert page.select_one("main h1").text == "Nouveau nom"
    assert page.select_one(".notice")


def test_a_stale_edit_is_refused_showing_theirs_and_keeping_mine(web, db):
    gina = web("gina")
    campaign_id = create_in_browser(gina, name="Original", description="Avant")
    edit = f"/campaigns/{campaign_id}/edit"
    # Two tabs open the form on the same version; the first one saves.
    version = gina.page(edit).select_one('input[name="version"]')["value"]
    assert gina.post(edit, {"name": "Leur nom", "description": "Leur texte",
                            "version": version}).status_code == 303
    response = gina.post(edit, {"name": "Mon nom", "description": "Mon long texte",
                                "version": version})
    assert response.status_code == 409
    page = soup(response)
    assert page.select_one(".conflict .current-name").text == "Leur nom"
    assert page.select_one(".conflict .current-description").text == "Leur texte"
    assert page.select_one("#field-name")["value"] == "Mon nom"
    assert page.select_one("#field-description").text == "Mon long texte"
    db.commit()
    assert db.get(Campaign, campaign_id).name == "Leur nom"
    # Saving again, having seen their version, is a deliberate overwrite and works.
    new_version = page.select_one('input[name="version"]')["value"]
    assert new_version != version
    assert gina.post(edit, {"name": "Mon nom", "description": "Mon long texte",
                            "version": new_version}).status_code == 303


def test_api_patch_needs_the_version_and_answers_409_with_the_current_values(api, db):
    gina = api("gina")
    created = gina.post("/campaigns", json={"name": "A", "system": "libre"}).json()
    url = f"/campaigns/{created['id']}"
    assert gina.patch(url, json={"name": "B"}).status_code == 422  # version is required
    saved = gina.patch(url, json={"name": "B", "version": created["version"]})
    assert saved.status_code == 200
    assert saved.json()["version"] == created["version"] + 1
    stale = gina.patch(url, json={"description": "late", "version": created["version"]})
    assert stale.status_code == 409
    error = stale.json()["error"]
    assert error["code"] == "stale_version"
    assert error["details"]["current"] == {"name": "B", "description": "",
                                           "version": created["version"] + 1}
    db.commit()
    assert db.get(Campaign, created["id"]).description == ""


def test_a_save_racing_past_the_version_check_is_caught_by_the_update(api, db, monkeypatch):
    """Someone commits between our check and our UPDATE: the versioned UPDATE refuses."""
    from app.services import campaigns

    gina = api("gina")
    created = gina.post("/campaigns", json={"name": "A", "system": "libre"}).json()
    original = campaigns.load_for_write

    def load_then_someone_saves(session, campaign_id, **kwargs):
        campaign = original(session, campaign_id, **kwargs)
        session.execute(text("UPDATE campaigns SET name = 'Theirs', version = version + 1 "
                             "WHERE id = :id"), {"id": campaign_id})
        return campaign

    monkeypatch.setattr(campaigns, "load_for_write", load_then_someone_saves)
    response = gina.patch(f"/campaigns/{created['id']}",
                          json={"name": "Mine", "version": created["version"]})
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "stale_version"


# --- archive and delete -----------------------------------------------------------------

def test_an_archived_campaign_is_read_only_until_unarchived(web, new_client, db):
    table = make_table(web, new_client)
    gm, gm_api, url = table.web["gm"], table.api["gm"], table.url
    assert gm.post(f"{url}/archive").status_code == 303
    page = gm.page(url)
    assert page.select_one(".archived-notice") and page.select_one("form.unarchive")
    assert not page.select_one(f'a[href="{url}/edit"]')
    refused = [
        gm.post(f"{url}/edit", {"name": "X", "description": "", "version": "2"}),
        gm.post(f"{url}/invites", {"role": "player", "expires_in": "1d", "max_uses": "1"}),
        gm.post(f"{url}/members/{table.membership['player']}/role", {"role": "spectator"}),
        table.web["player"].post(f"{url}/leave"),
        gm_api.patch(url, json={"name": "X", "version": 2}),
        gm_api.post(f"{url}/invites", json={"role": "player"}),
        gm_api.delete(f"{url}/members/{table.membership['spectator']}"),
        gm_api.post(f"{url}/gm", json={"membership_id": table.membership["player"]}),
    ]
    assert [r.status_code for r in refused] == [409] * len(refused)
    assert refused[-1].json()["error"]["code"] == "archived"
    db.commit()
    assert db.get(Campaign, table.campaign_id).name == "Les Ombres"
    assert count(db, Membership) == 3
    # Only the GM may bring it back; then writing works again.
    assert table.api["player"].post(f"{url}/unarchive").status_code == 403
    assert gm.post(f"{url}/unarchive").status_code == 303
    version = gm_api.get(url).json()["version"]
    assert gm_api.patch(url, json={"name": "Back", "version": version}).status_code == 200


def test_deleting_needs_the_exact_name(web, new_client, db):
    table = make_table(web, new_client)
    gm, url = table.web["gm"], table.url
    assert gm.page(f"{url}/delete").select_one("form.delete-campaign #field-confirm_name")
    response = gm.post(f"{url}/delete", {"confirm_name": "les ombres"})
    assert response.status_code == 409
    page = soup(response)
    assert page.select_one("#confirm_name-error")
    assert page.select_one("#field-confirm_name")["value"] == "les ombres"
    assert count(db, Campaign) == 1 and count(db, Membership) == 3
    response = gm.post(f"{url}/delete", {"confirm_name": "Les Ombres"})
    assert response.status_code == 303 and response.headers["location"] == "/campaigns?deleted=1"
    assert count(db, Campaign) == 0 and count(db, Membership) == 0 and count(db, Invite) == 0
    assert gm.get(url).status_code == 404


def test_api_delete_takes_confirm_name_in_the_query_even_when_archived(api, db):
    gina = api("gina")
    created = gina.post("/campaigns", json={"name": "À effacer", "system": "libre"}).json()
    url = f"/campaigns/{created['id']}"
    gina.post(f"{url}/archive")
    assert gina.delete(url).status_code == 422
    wrong = gina.delete(url, params={"confirm_name": "A effacer"})
    assert wrong.status_code == 409 and wrong.json()["error"]["field"] == "confirm_name"
    assert count(db, Campaign) == 1
    assert gina.delete(url, params={"confirm_name": "À effacer"}).status_code == 204
    assert gina.get(url).status_code == 404
    assert count(db, Campaign) == 0


def test_campaign_text_is_escaped(web):
    gina = web("gina")
    payload = '<script>alert("x")</script><img src=x onerror=alert(1)>'
    campaign_id = create_in_browser(gina, name=payload[:100], description=payload)
    for path in ("/campaigns", f"/campaigns/{campaign_id}", f"/campaigns/{campaign_id}/edit",
                 f"/campaigns/{campaign_id}/delete"):
        page = gina.page(path)
        assert not page.select("main script") and not page.select("main img"), path


# --- who may do what --------------------------------------------------------------------

ROLES = ("anonymous", "outsider", "spectator", "player", "gm")
MEMBERS_ONLY = {"anonymous": "login", "outsider": 404}


def _html_routes(t: Table) -> list[tuple[str, str, dict, dict[str, Any]]]:
    """(method, path, form, expected status per role); GM rows are harmless on purpose."""
    url, gm_mid = t.url, t.membership["gm"]
    invite_id = t.api["gm"].get(f"{url}/invites").json()[0]["id"]
    gm_only_get = {**MEMBERS_ONLY, "spectator": 403, "player": 403, "gm": 200}

    def gm_only_post(gm_status: int) -> dict[str, Any]:
        return {**MEMBERS_ONLY, "spectator": 403, "player": 403, "gm": gm_status}

    return [
        ("GET", "/campaigns", {}, {"anonymous": "login", "outsider": 200, "spectator": 200,
                                   "player": 200, "gm": 200}),
        ("GET", url, {}, {**MEMBERS_ONLY, "spectator": 200, "player": 200, "gm": 200}),
        ("GET", f"{url}/edit", {}, gm_only_get),
        ("POST", f"{url}/edit", {"name": "Renamed", "description": "", "version": "1"},
         gm_only_post(303)),
        ("POST", f"{url}/archive", {}, gm_only_post(303)),
        ("POST", f"{url}/unarchive", {}, gm_only_post(303)),
        ("GET", f"{url}/delete", {}, gm_only_get),
        ("POST", f"{url}/delete", {"confirm_name": "not the name"}, gm_only_post(409)),
        ("GET", f"{url}/members", {}, gm_only_get),
        ("POST", f"{url}/members/{gm_mid}/role", {"role": "player"}, gm_only_post(409)),
        ("POST", f"{url}/members/{gm_mid}/remove", {}, gm_only_post(409)),
        ("POST", f"{url}/gm", {"membership_id": str(gm_mid)}, gm_only_post(409)),
        ("GET", f"{url}/invites", {}, gm_only_get),
        ("POST", f"{url}/invites", {"role": "player", "expires_in": "1d", "max_uses": "1"},
         gm_only_post(303)),
        ("POST", f"{url}/invites/{invite_id}/revoke", {}, gm_only_post(303)),
        ("POST", f"{url}/leave", {}, {**MEMBERS_ONLY, "gm": 409}),
    ]


def _html_status(t: Table, role: str, method: str, path: str, form: dict) -> Any:
    if role == "anonymous":
        client = t.anonymous
        if method == "GET":
            response = client.get(path, follow_redirects=False)
            expected_login = f"/login?next={path.replace('/', '%2F')}"
            if response.status_code == 303 and response.headers["location"] in (
                    expected_login, f"/login?next={path}"):
                return "login"
            return response.status_code
        token = csrf_from(client.get("/login"))
        return client.post(path, data={**form, "csrf_token": token},
                           follow_redirects=False).status_code
    browser = t.web[role]
    if method == "GET":
        return browser.get(path, follow_redirects=False).status_code
    return browser.post(path, form).status_code


def test_html_routes_by_role(web, new_client):
    table = make_table(web, new_client)
    failures = []
    for method, path, form, expected in _html_routes(table):
        for role in ROLES:
            want = expected.get(role, 401 if role == "anonymous" else None)
            if role == "anonymous" and method == "POST":
                want = 401
            got = _html_status(table, role, method, path, form)
            if want is not None and got != want:
                failures.append((method, path, role, want, got))
    assert failures == []


def _api_routes(t: Table) -> list[tuple[str, str, dict | None, dict[str, Any]]]:
    url, gm_mid = t.url, t.membership["gm"]
    invite_id = t.api["gm"].get(f"{url}/invites").json()[0]["id"]
    everyone = {"outsider": 404, "spectator": 200, "player": 200, "gm": 200}

    def gm_only(gm_status: int) -> dict[str, int]:
        return {"outsider": 404, "spectator": 403, "player": 403, "gm": gm_status}

    return [
        ("GET", "/campaigns", None, {**everyone, "outsider": 200}),
        ("GET", url, None, everyone),
        ("PATCH", url, {"name": "Renamed", "version": 0}, gm_only(409)),
        ("DELETE", f"{url}?confirm_name=wrong", None, gm_only(409)),
        ("POST", f"{url}/archive", None, gm_only(200)),
        ("POST", f"{url}/unarchive", None, gm_only(200)),
        ("GET", f"{url}/members", None, everyone),
        ("PATCH", f"{url}/members/{gm_mid}", {"role": "player"}, gm_only(409)),
        ("DELETE", f"{url}/members/{gm_mid}", None, gm_only(409)),
        ("POST", f"{url}/gm", {"membership_id": gm_mid}, gm_only(409)),
        ("GET", f"{url}/invites", None, gm_only(200)),
        ("POST", f"{url}/invites", {"role": "spectator"}, gm_only(201)),
        ("DELETE", f"{url}/invites/{invite_id}", None, gm_only(204)),
    ]


def test_api_routes_by_role(web, new_client):
    table = make_table(web, new_client)
    failures = []
    for method, path, body, expected in _api_routes(table):
        anonymous = table.anonymous.request(method, f"/api/v1{path}", json=body)
        if anonymous.status_code != 401:
            failures.append((method, path, "anonymous", 401, anonymous.status_code))
        for role, want in expected.items():
            got = table.api[role].request(method, path, json=body).status_code
            if got != want:
                failures.append((method, path, role, want, got))
    assert failures == []


def test_another_campaign_is_404_whether_it_exists_or_not(web, new_client):
    table = make_table(web, new_client)
    olga = table.api["outsider"]
    elsewhere = olga.post("/campaigns", json={"name": "Chez Olga", "system": "libre"}).json()
    paul = table.api["player"]
    for campaign_id in (elsewhere["id"], 999_999):
        answers = [paul.get(f"/campaigns/{campaign_id}"),
                   paul.get(f"/campaigns/{campaign_id}/members"),
                   table.web["player"].get(f"/campaigns/{campaign_id}")]
        assert [a.status_code for a in answers] == [404, 404, 404]
    assert paul.get(f"/campaigns/{elsewhere['id']}").json() == \
        paul.get("/campaigns/999999").json()


def test_a_gm_role_in_one_campaign_gives_nothing_in_another(web, new_client, db):
    """IDOR: another campaign's invite and membership ids through my own campaign's URL."""
    table = make_table(web, new_client)
    olga = table.api["outsider"]
    theirs = olga.post("/campaigns", json={"name": "Chez Olga", "system": "libre"}).json()
    their_invite = invite(olga, theirs["id"])
    their_gm = olga.get(f"/campaigns/{theirs['id']}/members").json()[0]["id"]
    gm, url = table.api["gm"], table.url
    answers = [
        gm.delete(f"{url}/invites/{their_invite['id']}"),
        gm.patch(f"{url}/members/{their_gm}", json={"role": "spectator"}),
        gm.delete(f"{url}/members/{their_gm}"),
        gm.post(f"{url}/gm", json={"membership_id": their_gm}),
        table.web["gm"].post(f"{url}/invites/{their_invite['id']}/revoke"),
        table.web["gm"].post(f"{url}/members/{their_gm}/remove"),
    ]
    assert [a.status_code for a in answers] == [404] * len(answers)
    db.commit()
    assert db.get(Invite, their_invite["id"]).revoked_at is None
    assert db.get(Membership, their_gm).role is Role.GM
