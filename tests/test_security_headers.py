"""Security headers on every response, and the CSP stays strict."""

from __future__ import annotations

import pytest

from app.config import Settings
from app.main import create_app
from tests.helpers import app_routes, fill_path, soup

PATHS = ["/", "/login", "/register", "/docs", "/openapi.json", "/api/v1/systems",
         "/static/css/tablee.css", "/no-such-page", "/api/v1/no-such-thing"]


@pytest.mark.parametrize("path", PATHS)
def test_every_response_carries_the_security_headers(client, path):
    response = client.get(path)
    csp = response.headers["content-security-policy"]
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
    assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["referrer-policy"] == "same-origin"
    assert "strict-transport-security" not in response.headers


def test_hsts_and_host_cookies_behind_https(database_url, tmp_path):
    from fastapi.testclient import TestClient

    settings = Settings(data_dir=tmp_path, database_url=database_url, https=True,
                        secret_key="k" * 40, argon2_time_cost=1, argon2_memory_cost=64)
    with TestClient(create_app(settings), base_url="https://testserver") as client:
        response = client.get("/login")
        assert response.headers["strict-transport-security"].startswith("max-age=")
        cookie = response.headers["set-cookie"]
        assert cookie.startswith("__Host-tablee_anon=") and "Secure" in cookie


def test_a_browser_gets_an_anonymous_cookie_and_an_api_client_none(client, api):
    first_visit = client.get("/login")
    assert "tablee_anon=" in first_visit.headers.get("set-cookie", "")
    alice = api("alice")  # holds a bearer token, and sends no cookie
    alice.client.cookies.clear()
    answer = alice.get("/me")
    assert answer.status_code == 200, answer.text
    assert "set-cookie" not in answer.headers


def test_pages_have_no_inline_scripts_or_styles(client):
    for path in ("/", "/login", "/register", "/docs"):
        page = soup(client.get(path))
        assert all(script.get("src") for script in page.select("script")), path
        assert page.select("[style]") == [] and page.select("style") == [], path
        assert not [tag for tag in page.find_all(True)
                    if any(attr.startswith("on") for attr in tag.attrs)], path


def test_htmx_is_configured_without_eval_or_script_tags(client):
    meta = soup(client.get("/")).select_one('meta[name="htmx-config"]')
    import json

    config = json.loads(meta["content"])
    assert config["allowEval"] is False and config["allowScriptTags"] is False
    assert config["includeIndicatorStyles"] is False


def test_every_unsafe_route_checks_csrf(web):
    """A logged-in browser posting without the token is refused on every unsafe route."""
    alice = web("alice")
    checked = 0
    for method, path, _route in app_routes():
        if method in {"POST", "PUT", "PATCH", "DELETE"}:
            response = alice.client.request(method, fill_path(path), data={"x": "1"})
            assert response.status_code == 403, (method, path, response.status_code)
            assert response.status_code == 403
            checked += 1
    assert checked >= 5
