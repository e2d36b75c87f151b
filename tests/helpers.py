"""People at the keyboard: a browser user (forms + CSRF) and an API user (bearer token)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from bs4 import BeautifulSoup
from fastapi.testclient import TestClient


def soup(response) -> BeautifulSoup:
    return BeautifulSoup(response.text, "html.parser")


def csrf_from(response) -> str:
    field = soup(response).select_one('input[name="csrf_token"]')
    assert field is not None, "the page has no CSRF field"
    return field["value"]


class WebUser:
    """A browser: reads the CSRF token from the page, like a form would."""

    def __init__(self, client: TestClient, username: str) -> None:
        self.client = client
        self.username = username

    def csrf(self, path: str = "/account") -> str:
        return csrf_from(self.client.get(path))

    def register(self, password: str, *, display_name: str = ""):
        token = csrf_from(self.client.get("/register"))
        response = self.client.post("/register", data={
            "username": self.username, "password": password,
            "display_name": display_name or self.username.capitalize(), "csrf_token": token,
        }, follow_redirects=False)
        assert response.status_code == 303, response.text
        return response

    def get(self, path: str, **kwargs):
        return self.client.get(path, **kwargs)

    def page(self, path: str) -> BeautifulSoup:
        response = self.client.get(path)
        assert response.status_code == 200, (path, response.status_code)
        return soup(response)

    def post(self, path: str, data: dict[str, Any] | None = None, *, files=None,
             csrf_path: str = "/account", follow_redirects: bool = False, **kwargs):
        payload = {"csrf_token": self.csrf(csrf_path), **(data or {})}
        return self.client.post(path, data=payload, files=files,
                                follow_redirects=follow_redirects, **kwargs)


def open_match_page(gm: WebUser, campaign_id: int, name: str, characters: Iterable[int],
                    **board: str) -> str:
    """The GM opens a match from the campaign's form (board: width, height, unit); its URL."""
    opened = gm.client.post(f"/campaigns/{campaign_id}/matches", data={
        "csrf_token": gm.csrf(), "name": name, "characters": [str(c) for c in characters],
        **board}, follow_redirects=False)
    assert opened.status_code == 303, opened.text
    return opened.headers["location"]


def form_actions(url: str, dice) -> Callable[..., None]:
    """``act(user, faces=(), **fields)``: script the table's dice (``dice.script``), post the
    action's form to the match at ``url``; the post must succeed (303)."""
    def act(user: WebUser, faces: Iterable[int] = (), **fields: str) -> None:
        dice.script(*faces)
        done = user.client.post(url + "/actions", data={"csrf_token": user.csrf(), **fields},
                                follow_redirects=False)
        assert done.status_code == 303, done.text
    return act


class ApiUser:
    """A script using the JSON API with a bearer token."""

    def __init__(self, client: TestClient, username: str) -> None:
        self.client = client
        self.username = username
        self.headers: dict[str, str] = {}
        self.id: int | None = None

    def register_and_login(self, password: str) -> None:
        response = self.client.post("/api/v1/auth/register", json={
            "username": self.username, "password": password})
        assert response.status_code == 201, response.text
        self.id = response.json()["id"]
        response = self.client.post("/api/v1/auth/login", json={
            "username": self.username, "password": password})
        assert response.status_code == 200, response.text
        self.headers = {"Authorization": f"Bearer {response.json()['token']}"}

    def request(self, method: str, path: str, **kwargs):
        return self.client.request(method, f"/api/v1{path}", headers=self.headers, **kwargs)

    def get(self, path: str, **kwargs):
        return self.request("GET", path, **kwargs)

    def post(self, path: str, **kwargs):
        return self.request("POST", path, **kwargs)

    def patch(self, path: str, **kwargs):
        return self.request("PATCH", path, **kwargs)

    def put(self, path: str, **kwargs):
        return self.request("PUT", path, **kwargs)

    def delete(self, path: str, **kwargs):
        return self.request("DELETE", path, **kwargs)


def app_routes():
    """(method, path, route) for every page and API route, from Tablée's own router lists."""
    from fastapi.routing import APIRoute

    from app.api import routers as api_routers
    from app.web import routers as web_routers

    for router in (*web_routers(), *api_routers()):
        for route in router.routes:
            if isinstance(route, APIRoute):
                for method in sorted(route.methods - {"HEAD"}):
                    yield method, route.path, route


def fill_path(path: str, value: str = "1") -> str:
    """``/campaigns/{campaign_id}`` → ``/campaigns/1``."""
    import re

    return re.sub(r"\{[^}]+\}", value, path)


def asgi_stream(app, path: str, token: str, send, leave, *, query: bytes = b"",
                headers: Iterable[tuple[bytes, bytes]] = ()):
    """An API stream opened as plain ASGI (no socket: the test sees each ``send``), as the
    bearer of ``token``; the client leaves once the ``leave`` event is set."""
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": "GET", "scheme": "http", "path": path, "raw_path": path.encode(),
             "query_string": query, "root_path": "", "client": ("127.0.0.1", 50000),
             "server": ("127.0.0.1", 80),
             "headers": [(b"host", b"test"), (b"authorization", f"Bearer {token}".encode()),
                         *headers]}
    asked = False

    async def receive() -> dict:
        nonlocal asked
        if not asked:
            asked = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await leave.wait()
        return {"type": "http.disconnect"}

    return app(scope, receive, send)
