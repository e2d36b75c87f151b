"""The instance admin page: who may open it, the account list, disabling and enabling."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from app.models import User, UserSession
from tests.conftest import TEST_PASSWORD

ADMIN_PAGES = [("GET", "/admin"), ("POST", "/admin/backup"),
               ("POST", "/admin/users/1/disable"), ("POST", "/admin/users/1/enable"),
               ("GET", "/admin/backups/tablee-20260101-000000.db")]
ADMIN_API = [("GET", "/admin/users"), ("POST", "/admin/users/1/disable"),
             ("POST", "/admin/users/1/enable"), ("POST", "/admin/backups"),
             ("GET", "/admin/backups")]


def _rows(page) -> dict[str, list[str]]:
    return {row["data-username"]: [cell.get_text(" ", strip=True) for cell in row.select("td")]
            for row in page.select("table.users tbody tr")}


def test_the_first_account_is_the_admin_and_sees_the_link(web):
    admin, player = web("root"), web("player")
    assert admin.page("/campaigns").select_one('nav a[href="/admin"]') is not None
    assert player.page("/campaigns").select_one('nav a[href="/admin"]') is None


@pytest.mark.parametrize(("method", "path"), ADMIN_PAGES)
def test_pages_refuse_non_admins(web, new_client, method, path):
    web("root")
    player = web("player")
    if method == "GET":
        assert player.get(path).status_code == 403
        anonymous = new_client().get(path, follow_redirects=False)
        assert anonymous.status_code == 303 and anonymous.headers["location"].startswith("/login")
    else:
        assert player.post(path).status_code == 403
        anonymous = new_client()
        assert anonymous.post(path, headers={"X-CSRF-Token": "x"}).status_code in (401, 403)


@pytest.mark.parametrize(("method", "path"), ADMIN_API)
def test_api_refuses_anonymous_401_and_non_admins_403(api, new_client, method, path):
    api("root")
    player = api("player")
    assert player.request(method, path).status_code == 403
    assert new_client().request(method, f"/api/v1{path}").status_code == 401


def test_admin_page_lists_every_account(web, api):
    admin = web("root", display_name="Root")
    api("bob")
    page = admin.page("/admin")
    rows = _rows(page)
    assert list(rows) == ["root", "bob"]
    assert rows["root"][:2] == ["root", "Root"] and rows["bob"][:2] == ["bob", "bob"]
    assert page.select_one('tr[data-username="root"] .badge.gm') is not None
    assert page.select_one('tr[data-username="bob"] .badge.gm') is None


def test_admin_disables_and_enables_an_account_from_the_page(web, api, db, new_client):
    admin = web("root")
    bob = api("bob")
    assert bob.get("/me").status_code == 200
    response = admin.post(f"/admin/users/{bob.id}/disable", csrf_path="/admin")
    assert response.status_code == 303
    # bob's session ended at once, and he cannot log in again
    assert bob.get("/me").status_code == 401
    assert new_client().post("/api/v1/auth/login", json={
        "username": "bob", "password": TEST_PASSWORD}).status_code == 401
    page = admin.page("/admin")
    assert page.select_one(f'form[action="/admin/users/{bob.id}/enable"]') is not None
    assert admin.post(f"/admin/users/{bob.id}/enable", csrf_path="/admin").status_code == 303
    assert new_client().post("/api/v1/auth/login", json={
        "username": "bob", "password": TEST_PASSWORD}).status_code == 200
    db.commit()
    assert db.scalar(select(User.disabled_at).where(User.id == bob.id)) is None


def test_an_admin_cannot_disable_themself(web, api, db):
    admin_api = api("root")
    assert admin_api.post(f"/admin/users/{admin_api.id}/disable").status_code == 403
    admin_web = web("other")  # not admin: only the first account is
    assert admin_web.post(f"/admin/users/{admin_api.id}/disable").status_code == 403
    db.commit()
    assert db.scalar(select(User.disabled_at).where(User.id == admin_api.id)) is None
    assert db.scalar(select(UserSession.id).where(UserSession.user_id == admin_api.id))


def test_the_page_offers_no_disable_button_for_oneself(web):
    admin = web("root")
    page = admin.page("/admin")
    own = page.select_one('tr[data-username="root"]')
    assert own.select("form") == []


def test_api_lists_disables_and_enables(api):
    admin, bob = api("root"), api("bob")
    listing = admin.get("/admin/users").json()
    assert [(u["username"], u["is_admin"], u["disabled"]) for u in listing] == [
        ("root", True, False), ("bob", False, False)]
    disabled = admin.post(f"/admin/users/{bob.id}/disable")
    assert disabled.status_code == 200 and disabled.json()["disabled"] is True
    assert bob.get("/me").status_code == 401
    enabled = admin.post(f"/admin/users/{bob.id}/enable")
    assert enabled.json()["disabled"] is False


def test_unknown_account_is_not_found(api):
    admin = api("root")
    assert admin.post("/admin/users/999999/disable").status_code == 404
    assert admin.post("/admin/users/99999999999999/disable").status_code == 422


def test_a_disabled_admin_loses_the_admin_pages(api, db):
    from app.services.accounts import set_disabled

    admin = api("root")
    set_disabled(db=db, user_id=admin.id, disabled=True)
    assert admin.get("/admin/users").status_code == 401
