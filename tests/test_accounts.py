"""Accounts: register, log in, log out, sessions, no enumeration (rate limits:
tests/test_rate_limits.py)."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from app.models import User, UserSession
from tests.conftest import TEST_PASSWORD
from tests.helpers import csrf_from, soup


def test_register_logs_in_and_lands_on_my_campaigns(new_client):
    client = new_client()
    token = csrf_from(client.get("/register"))
    response = client.post("/register", data={"username": "Alice", "password": TEST_PASSWORD,
                                              "display_name": "Alice", "csrf_token": token})
    assert response.status_code == 200
    assert str(response.url).endswith("/campaigns")
    assert soup(client.get("/account")).select_one("main strong").text == "Alice"


def test_login_gives_a_new_session_token_and_logout_ends_it(web, new_client, settings):
    alice = web("alice")
    before = alice.client.cookies.get(settings.session_cookie_name)
    other = new_client()
    token = csrf_from(other.get("/login"))
    other.post("/login", data={"username": "alice", "password": TEST_PASSWORD,
                               "csrf_token": token})
    after = other.cookies.get(settings.session_cookie_name)
    assert before and after and before != after
    response = other.post("/logout", data={"csrf_token": csrf_from(other.get("/account"))})
    assert response.status_code == 200
    assert other.get("/account", follow_redirects=False).status_code == 303
    # the first browser's session is untouched
    assert alice.get("/account").status_code == 200


def test_logout_ends_the_session_on_the_server(web, settings):
    alice = web("alice")
    stolen = alice.client.cookies.get(settings.session_cookie_name)
    alice.post("/logout")
    alice.client.cookies.set(settings.session_cookie_name, stolen)
    assert alice.get("/api/v1/me").status_code == 401


def test_session_cookie_flags(new_client, settings):
    client = new_client()
    token = csrf_from(client.get("/register"))
    response = client.post("/register", data={"username": "bob", "password": TEST_PASSWORD,
                                              "csrf_token": token}, follow_redirects=False)
    cookie = next(value for key, value in response.headers.multi_items()
                  if key == "set-cookie" and value.startswith(settings.session_cookie_name))
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie.replace("Lax", "lax")
    assert len(cookie.split(";")[0].split("=", 1)[1]) >= 22  # ≥ 128 bits, base64


def test_password_length_rules(new_client):
    client = new_client()
    for password, ok in (("short", False), ("x" * 10, True), ("y" * 128, True),
                         ("z" * 129, False)):
        token = csrf_from(client.get("/register"))
        name = f"user{len(password)}"
        response = client.post("/register", data={"username": name, "password": password,
                                                  "csrf_token": token}, follow_redirects=False)
        assert (response.status_code == 303) is ok, (len(password), response.status_code)
        client.cookies.clear()


def test_login_without_csrf_is_refused(new_client, web):
    web("alice")
    client = new_client()
    client.get("/login")
    response = client.post("/login", data={"username": "alice", "password": TEST_PASSWORD})
    assert response.status_code == 403


def test_unknown_user_and_wrong_password_get_the_same_answer(web, new_client):
    web("alice")
    client = new_client()
    answers = []
    for username in ("alice", "nobody"):
        token = csrf_from(client.get("/login"))
        response = client.post("/login", data={"username": username, "password": "wrong" * 3,
                                               "csrf_token": token})
        answers.append((response.status_code, soup(response).select_one(".field-error").text))
    assert answers[0] == answers[1]
    assert answers[0][0] == 401


def test_taken_username_answers_like_any_unusable_name(api, new_client):
    api("alice")
    client = new_client()
    response = client.post("/api/v1/auth/register",
                           json={"username": "ALICE", "password": TEST_PASSWORD})
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "username_unavailable"


def test_idle_session_expires(web, db, settings):
    alice = web("alice")
    for record in db.scalars(select(UserSession)):
        record.last_seen_at -= timedelta(minutes=settings.session_idle_minutes + 1)
    db.commit()
    assert alice.get("/api/v1/me").status_code == 401


def test_disabling_an_account_ends_its_sessions(web, db):
    from app.services.accounts import set_disabled

    alice = web("alice")
    user = db.scalar(select(User).where(User.username == "alice"))
    set_disabled(db=db, user_id=user.id, disabled=True)
    assert alice.get("/api/v1/me").status_code == 401


def test_password_is_rehashed_when_parameters_change(api, db, app):
    api("alice")
    old_hash = db.scalar(select(User.password_hash).where(User.username == "alice"))
    app.state.settings.argon2_time_cost = 2
    response = api("bob").client.post("/api/v1/auth/login",
                                      json={"username": "alice", "password": TEST_PASSWORD})
    assert response.status_code == 200
    db.commit()  # end the read snapshot
    new_hash = db.scalar(select(User.password_hash).where(User.username == "alice"))
    assert new_hash != old_hash and "t=2" in new_hash and new_hash.startswith("$argon2id$")


def test_a_page_that_needs_an_account_sends_to_login_and_back(new_client):
    client = new_client()
    response = client.get("/account?tab=1", follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"] == "/login?next=/account%3Ftab%3D1"
    page = soup(client.get(response.headers["location"]))
    assert page.select_one('main input[name="next"]')["value"] == "/account?tab=1"


def test_next_never_leaves_the_site(new_client, web):
    web("alice")
    client = new_client()
    token = csrf_from(client.get("/login"))
    response = client.post("/login", data={"username": "alice", "password": TEST_PASSWORD,
                                           "next": "//evil.example/x", "csrf_token": token},
                           follow_redirects=False)
    assert response.headers["location"] == "/campaigns"
