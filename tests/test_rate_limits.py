"""Rate limits that cannot be turned against others: failed logins per account *and* address
with a growing wait, per address across accounts; registrations per address; the client's
address from X-Forwarded-For only behind a trusted proxy; invitation-only registration."""

from __future__ import annotations

from datetime import timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.config import Settings
from app.main import create_app
from app.models import Attempt
from app.services import campaigns, invites
from tests.conftest import TEST_PASSWORD
from tests.helpers import csrf_from, soup


@pytest.fixture
def from_address(app, running_app):
    """``from_address("10.0.0.7")``: an API client whose connection comes from there."""

    def make(address: str, app_=None) -> TestClient:
        client = TestClient(app_ or app, client=(address, 50000),
                            headers={"Accept-Language": "en"})
        client.portal = running_app.portal
        return client

    return make


def login(client: TestClient, username: str, password: str = "wrong password",
          **headers: str):
    return client.post("/api/v1/auth/login", json={"username": username, "password": password},
                       headers=headers)


def go_back(db, seconds: int) -> None:
    """As if every counted attempt happened ``seconds`` earlier."""
    for attempt in db.scalars(select(Attempt)):
        attempt.at -= timedelta(seconds=seconds)
    db.commit()


def test_failures_from_one_address_wait_longer_each_time_and_say_how_long(
        api, from_address, db, settings):
    api("alice")
    attacker = from_address("203.0.113.9")
    for _ in range(settings.login_free_failures):
        assert login(attacker, "alice").status_code == 401
    refused = login(attacker, "alice", TEST_PASSWORD)
    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "rate_limited"
    first_wait = int(refused.headers["retry-after"])
    assert first_wait == 2
    go_back(db, first_wait)
    assert login(attacker, "alice").status_code == 401  # one more try, wrong again
    second_wait = int(login(attacker, "alice").headers["retry-after"])
    assert second_wait == 2 * first_wait
    go_back(db, second_wait)
    assert login(attacker, "alice", TEST_PASSWORD).status_code == 200


def test_failed_logins_elsewhere_never_lock_the_owner_out(api, from_address, settings):
    api("alice")
    attacker = from_address("203.0.113.9")
    for _ in range(settings.login_free_failures + 3):
        login(attacker, "alice")
    assert login(attacker, "alice", TEST_PASSWORD).status_code == 429
    owner = from_address("198.51.100.20")
    assert login(owner, "alice", TEST_PASSWORD).status_code == 200


def test_one_address_spraying_many_accounts_is_slowed_down(api, from_address, settings):
    api("bob")
    sprayer = from_address("203.0.113.50")
    for index in range(settings.login_address_free_failures):
        assert login(sprayer, f"user{index}").status_code == 401
    blocked = login(sprayer, "bob", TEST_PASSWORD)
    assert blocked.status_code == 429 and int(blocked.headers["retry-after"]) >= 1
    assert login(from_address("198.51.100.20"), "bob", TEST_PASSWORD).status_code == 200


def test_the_login_page_says_how_long_to_wait(api, from_address, settings):
    api("alice")
    browser = from_address("203.0.113.9")
    token = csrf_from(browser.get("/login"))
    for _ in range(settings.login_free_failures + 1):
        page = browser.post("/login", data={"username": "alice", "password": "nope nope nope",
                                            "csrf_token": token})
    assert page.status_code == 429 and page.headers["retry-after"] == "2"
    assert "2 seconds" in soup(page).select_one(".form-error").text


def test_forwarded_for_is_ignored_unless_the_proxy_is_trusted(api, from_address, settings):
    """Without TABLEE_TRUSTED_PROXIES, a spoofed X-Forwarded-For changes nothing: rotating it
    does not escape the limit."""
    api("alice")
    attacker = from_address("203.0.113.9")
    for index in range(settings.login_free_failures):
        login(attacker, "alice", **{"X-Forwarded-For": f"192.0.2.{index}"})
    assert login(attacker, "alice", TEST_PASSWORD,
                 **{"X-Forwarded-For": "192.0.2.200"}).status_code == 429


def test_behind_a_trusted_proxy_the_forwarded_client_is_counted(
        api, from_address, settings, database_url, tmp_path):
    api("alice")
    proxied = Settings(**{**settings.model_dump(), "trusted_proxies": "10.0.0.0/8"})
    app = create_app(proxied)
    proxy = from_address("10.1.2.3", app)
    for _ in range(settings.login_free_failures):
        login(proxy, "alice", **{"X-Forwarded-For": "203.0.113.9"})
    assert login(proxy, "alice", TEST_PASSWORD,
                 **{"X-Forwarded-For": "203.0.113.9"}).status_code == 429
    # Another client behind the same proxy is someone else.
    assert login(proxy, "alice", TEST_PASSWORD,
                 **{"X-Forwarded-For": "198.51.100.20"}).status_code == 200
    app.state.engine.dispose()


def test_registrations_are_limited_per_address(from_address, settings):
    client = from_address("203.0.113.77")
    for index in range(settings.registrations_per_hour):
        response = client.post("/api/v1/auth/register",
                               json={"username": f"newcomer{index}", "password": TEST_PASSWORD})
        assert response.status_code == 201, response.text
    refused = client.post("/api/v1/auth/register",
                          json={"username": "onemore", "password": TEST_PASSWORD})
    assert refused.status_code == 429 and "retry-after" in refused.headers
    other = from_address("198.51.100.20").post(
        "/api/v1/auth/register", json={"username": "onemore", "password": TEST_PASSWORD})
    assert other.status_code == 201


# — invitation only ———————————————————————————————————————————————————————————————

@pytest.fixture
def closed_instance(api, web, db):
    """Mia (the first account: the admin) closes registration and invites to her campaign."""
    mia = api("mia")
    assert mia.put("/admin/registration", json={"invitation_only": True}).json() == {
        "invitation_only": True}
    from app.models import User

    gm = db.query(User).filter_by(username_key="mia").one()
    campaign = campaigns.create_campaign(db=db, user=gm, name="Fermée", system="libre")
    invite = invites.create_invite(db=db, campaign_id=campaign.id, created_by=gm,
                                   role="player")
    return invite.token


def test_an_invitation_only_instance_registers_only_through_a_live_invitation(
        closed_instance, new_client):
    client = new_client()
    refused = client.post("/api/v1/auth/register",
                          json={"username": "stranger", "password": TEST_PASSWORD})
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "invitation_only"
    bad = client.post("/api/v1/auth/register", json={
        "username": "stranger", "password": TEST_PASSWORD, "invite": "not-a-token"})
    assert bad.status_code == 403
    invited = client.post("/api/v1/auth/register", json={
        "username": "guest", "password": TEST_PASSWORD, "invite": closed_instance})
    assert invited.status_code == 201


def test_the_register_page_of_a_closed_instance_says_so_and_opens_for_an_invitation(
        closed_instance, new_client):
    browser = new_client()
    closed = soup(browser.get("/register"))
    assert closed.select_one('form[action="/register"]') is None
    assert "invitation only" in closed.select_one(".notice").text
    page = browser.get(f"/register?next=/invite/{closed_instance}")
    form = soup(page).select_one('form[action="/register"]')
    assert form is not None
    response = browser.post("/register", data={
        "username": "guest", "password": TEST_PASSWORD, "csrf_token": csrf_from(page),
        "next": f"/invite/{closed_instance}"})
    assert response.status_code == 200 and f"/invite/{closed_instance}" in str(response.url)


def test_only_the_admin_changes_registration(api, web):
    api("mia")  # the admin
    other = api("bob")
    assert other.put("/admin/registration", json={"invitation_only": True}).status_code == 403
    page = web("carla")
    assert page.post("/admin/registration", {"invitation_only": "on"}).status_code == 403
