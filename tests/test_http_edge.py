"""The HTTP edge: bodies limited while they stream, and every answer — 413 and 500
included — in the documented shape with the security headers."""

from __future__ import annotations

import select
import socket
import tracemalloc
from collections.abc import Iterator

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine

from app.api.schemas import ErrorBody
from app.config import Settings
from app.main import create_app
from app.web.middleware import body_limit
from tests.helpers import soup
from tests.live_server import LiveServer

MiB = 1024 * 1024
HUGE = 200 * MiB


@pytest.fixture
def server(settings) -> Iterator[LiveServer]:
    live = LiveServer(settings)
    live.start()
    yield live
    live.stop()


def _status_and_headers(raw: bytes) -> tuple[int, dict[str, str]]:
    head = raw.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in head[1:] if ": " in line)
    return int(head[0].split()[1]), {key.lower(): value for key, value in headers.items()}


def _read_answer(sock: socket.socket) -> bytes:
    data = b""
    sock.settimeout(5)
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    return data


def stream_chunked(server: LiveServer, path: str, total: int) -> tuple[bytes, int]:
    """POST ``total`` bytes in 64 KiB chunks without a Content-Length; stop as soon as the
    server answers. Returns (the answer's head, bytes sent)."""
    chunk = b"a" * 65536
    frame = b"%x\r\n" % len(chunk) + chunk + b"\r\n"
    sent = 0
    with socket.create_connection(("127.0.0.1", server.port)) as sock:
        sock.sendall(f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     "Content-Type: application/x-www-form-urlencoded\r\n"
                     "Transfer-Encoding: chunked\r\n\r\n".encode())
        while sent < total:
            readable, _, _ = select.select([sock], [], [], 0)
            if readable:
                return _read_answer(sock), sent
            try:
                sock.sendall(frame)
            except (BrokenPipeError, ConnectionResetError):
                break
            sent += len(chunk)
        return _read_answer(sock), sent


def test_a_chunked_body_past_its_limit_is_refused_while_it_streams(server, settings):
    tracemalloc.start()
    try:
        answer, sent = stream_chunked(server, "/login", HUGE)
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    status, headers = _status_and_headers(answer)
    assert status == 413
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    # The server stopped reading near the limit: the client could not push the 200 MB, and
    # the process never held more than a few buffers of it.
    assert sent < settings.max_body_bytes + 16 * MiB
    assert peak < 32 * MiB


def test_a_declared_length_past_the_limit_is_refused_before_reading(server):
    with socket.create_connection(("127.0.0.1", server.port)) as sock:
        sock.sendall(f"POST /api/v1/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     f"Content-Type: application/json\r\nContent-Length: {HUGE}\r\n\r\n"
                     .encode())
        status, headers = _status_and_headers(_read_answer(sock))
    assert status == 413 and headers["x-content-type-options"] == "nosniff"


def test_each_route_has_its_own_limit(settings):
    form = body_limit(settings, "POST", "/login")
    portrait = body_limit(settings, "POST", "/campaigns/3/characters/4/portrait")
    imported = body_limit(settings, "POST", "/api/v1/campaigns/import")
    assert form == settings.max_body_bytes
    assert settings.max_portrait_bytes < portrait < imported
    assert imported > settings.max_import_bytes
    # The same path with another method is an ordinary request.
    assert body_limit(settings, "PUT", "/campaigns/import") == form


def test_a_413_is_the_api_error_or_a_page_in_the_users_language(client):
    too_big = b"x" * (2 * MiB)
    api = client.post("/api/v1/auth/login", content=too_big,
                      headers={"Content-Type": "application/json"})
    assert api.status_code == 413
    assert ErrorBody.model_validate(api.json()).error.code == "too_large"
    page = client.post("/login", content=too_big,
                       headers={"Content-Type": "application/x-www-form-urlencoded",
                                "Accept-Language": "fr"})
    assert page.status_code == 413
    assert "trop volumineuse" in soup(page).select_one('[role="alert"]').text
    assert page.headers["x-frame-options"] == "DENY"


def test_an_upload_within_its_own_limit_passes_the_edge(libre_table):
    """A portrait of 1.5 MiB is over the form limit but within the portrait's: the edge lets
    it through, and the image check answers (not a 413)."""
    table = libre_table
    response = table.post(table.gm, f"/campaigns/{table.campaign_id}/characters/{table.aldo}"
                          "/portrait", files={"portrait": ("a.png", b"\x89PNG" + b"0" * (
                              3 * MiB // 2), "image/png")})
    assert response.status_code == 422  # not an image: the check that read it says so


@pytest.fixture
def crashing_client(app) -> Iterator[TestClient]:
    """The app with a page and an API route that fail with an unexpected error."""

    def fail() -> None:
        raise RuntimeError("an unexpected bug")

    app.add_api_route("/boom", fail)
    app.add_api_route("/api/v1/boom", fail)
    with TestClient(app, raise_server_exceptions=False,
                    headers={"Accept-Language": "fr"}) as test_client:
        yield test_client


def test_an_api_500_is_the_documented_json_error_with_the_headers(crashing_client):
    response = crashing_client.get("/api/v1/boom")
    assert response.status_code == 500
    assert ErrorBody.model_validate(response.json()).error.code == "server_error"
    assert "an unexpected bug" not in response.text
    assert response.headers["referrer-policy"] == "same-origin"


def test_a_page_500_is_in_the_sites_style_with_the_headers(crashing_client):
    response = crashing_client.get("/boom")
    assert response.status_code == 500
    page = soup(response)
    assert page.select_one("header nav, nav") is not None  # the site's own layout
    assert "réessayer" in page.select_one('[role="alert"]').text
    assert "an unexpected bug" not in response.text
    assert "script-src 'self'" in response.headers["content-security-policy"]


# — resume positions ———————————————————————————————————————————————————————————————

BAD_POSITIONS = [("Last-Event-ID", "999"), ("Last-Event-ID", "-1"), ("Last-Event-ID", "abc"),
                 ("Last-Event-ID", "1e3"), ("after", "999"), ("after", "٣")]


@pytest.mark.parametrize(("where", "value"), BAD_POSITIONS)
def test_a_resume_position_out_of_range_is_a_4xx_on_every_stream(libre_match, server, where,
                                                                  value):
    """Asked over a real socket: a stream that wrongly accepted the position would answer
    200 and wait (the read times out instead of hanging the suite)."""
    table = libre_match
    streams = [table.url + "/stream", f"/campaigns/{table.campaign_id}/rolls/stream",
               "/api/v1" + table.url + "/stream", f"/campaigns/{table.campaign_id}/chat/stream",
               f"/api/v1/campaigns/{table.campaign_id}/chat/stream"]
    with httpx.Client(base_url=server.url, cookies=dict(table.gm.client.cookies),
                      timeout=5) as gm:
        for path in streams:
            request = gm.build_request(
                "GET", path, params={"after": value} if where == "after" else None,
                headers={"Last-Event-ID": value} if where != "after" else None)
            response = gm.send(request, stream=True)
            response.close()
            assert 400 <= response.status_code < 500, (path, response.status_code)
            assert response.headers["content-type"].startswith(
                "application/json" if path.startswith("/api/") else "text/html"), path


# — caching ——————————————————————————————————————————————————————————————————————————

def test_nothing_that_needs_a_login_may_be_cached(libre_match, client):
    table = libre_match
    gm = table.gm
    campaign = f"/campaigns/{table.campaign_id}"
    for path in (campaign, table.url, f"{campaign}/export", f"/api/v1{campaign}/export",
                 f"/api/v1{campaign}", f"{campaign}/rolls/export.json", "/account"):
        response = gm.client.get(path)
        assert response.status_code == 200, path
        assert response.headers["cache-control"] == "no-store", path
    # Static files are the same for everyone: browsers may keep them.
    assert "no-store" not in client.get("/static/css/tablee.css").headers.get(
        "cache-control", "")


# — a busy database ————————————————————————————————————————————————————————————————————

@pytest.fixture
def impatient(settings) -> Iterator[TestClient]:
    """An app that waits only 200 ms for the database's write lock."""
    app = create_app(Settings(**{**settings.model_dump(), "sqlite_busy_timeout_ms": 200}))
    with TestClient(app, headers={"Accept-Language": "fr"}) as test_client:
        yield test_client
    app.state.engine.dispose()


def test_a_database_locked_past_its_wait_answers_503_then_works_again(impatient, settings):
    client = impatient
    client.post("/api/v1/auth/register", json={"username": "mia", "password": "x" * 12})
    token = client.post("/api/v1/auth/login",
                        json={"username": "mia", "password": "x" * 12}).json()["token"]
    client.headers["Authorization"] = f"Bearer {token}"
    campaign = client.post("/api/v1/campaigns", json={"name": "Verrou", "system": "libre"})
    match = client.post(f"/api/v1/campaigns/{campaign.json()['id']}/matches",
                        json={"name": "Attente"}).json()
    actions = f"/api/v1/campaigns/{campaign.json()['id']}/matches/{match['id']}/actions"
    engine = create_engine(settings.resolved_database_url)
    with engine.connect() as holder:
        # Another writer holds the lock (SQLite: the whole database; PostgreSQL: the match).
        if engine.dialect.name == "sqlite":
            holder.exec_driver_sql("BEGIN IMMEDIATE")
        else:
            holder.exec_driver_sql(f"SELECT id FROM matches WHERE id = {match['id']} FOR UPDATE")
        busy = client.post(actions, json={"action": {"kind": "note", "text": "Allô ?"}})
        holder.rollback()
    engine.dispose()
    assert busy.status_code == 503
    assert busy.headers["retry-after"] == "2"
    assert ErrorBody.model_validate(busy.json()).error.code == "unavailable"
    assert "réessayez" in busy.json()["error"]["message"].lower()
    done = client.post(actions, json={"action": {"kind": "note", "text": "Allô ?"}})
    assert done.status_code == 200
    assert done.json()["seq"] == match["seq"] + 1  # the refused one left nothing behind
