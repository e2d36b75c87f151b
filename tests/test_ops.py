"""Operating Tablée (docs/deploy.md): probes, the request id, the JSON request log, metrics."""

from __future__ import annotations

import json
import logging

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.exc import OperationalError

from app.main import create_app
from tests.match_table import seat_table

TOKEN = "scrape-me-" + "s" * 20


def _metric(text: str, name: str, **labels: str) -> float:
    """The value of one sample of the exposition ``text`` (0 when absent)."""
    wanted = name + ("{" + ",".join(f'{k}="{v}"' for k, v in sorted(labels.items())) + "}"
                     if labels else "")
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        sample, _, value = line.rpartition(" ")
        if sample == wanted or (labels and sample.startswith(name + "{")
                                and _same_labels(sample, labels)):
            return float(value)
    return 0.0


def _same_labels(sample: str, labels: dict[str, str]) -> bool:
    inside = sample[sample.index("{") + 1:-1]
    pairs = dict(part.split("=", 1) for part in inside.split(",") if part)
    return {k: v.strip('"') for k, v in pairs.items()} == labels


@pytest.fixture
def scraped(settings):
    settings.metrics_token = TOKEN
    application = create_app(settings)
    with TestClient(application) as owner:
        yield application, owner
    application.state.engine.dispose()


def test_healthz_and_readyz_answer_when_database_and_broker_do(client):
    assert client.get("/healthz").json() == {"status": "ok"}
    ready = client.get("/readyz")
    assert ready.status_code == 200
    assert ready.json() == {"status": "ready", "database": "ok", "broker": "ok"}


def test_readyz_is_503_when_the_database_does_not_answer(app, client, monkeypatch):
    def broken(*args, **kwargs):
        raise OperationalError("SELECT 1", {}, Exception("connection refused"))

    monkeypatch.setattr(app.state.engine, "connect", broken)
    ready = client.get("/readyz")
    assert ready.status_code == 503
    assert ready.json()["database"] == "unavailable"
    assert ready.json()["broker"] == "ok"
    assert ready.headers["retry-after"]


def test_readyz_is_503_when_the_broker_is_gone(app, client, monkeypatch):
    async def unreachable() -> bool:
        return False

    monkeypatch.setattr(app.state.broker, "ping", unreachable)
    ready = client.get("/readyz")
    assert ready.status_code == 503
    assert ready.json() == {"status": "unavailable", "database": "ok",
                            "broker": "unavailable"}


def test_metrics_are_closed_without_a_token(client):
    assert client.get("/metrics").status_code == 404
    assert client.get("/metrics", headers={"Authorization": "Bearer guess"}).status_code == 404


def test_metrics_need_the_configured_token(scraped):
    _app, owner = scraped
    assert owner.get("/metrics").status_code == 404
    assert owner.get("/metrics", headers={"Authorization": "Bearer wrong"}).status_code == 404
    page = owner.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/plain")
    assert "tablee_open_streams" in page.text


def test_actions_are_counted_by_game_and_outcome_with_their_latency(scraped):
    application, owner = scraped

    def make_user(name):
        from tests.helpers import ApiUser

        user = ApiUser(TestClient(application), name)
        user.client.portal = owner.portal
        user.register_and_login("correct horse battery")
        return user

    table = seat_table(make_user)
    assert table.act("paul", {"kind": "move", "token": "t1", "x": 3, "y": 4}).status_code == 200
    assert table.act("paul", {"kind": "move", "token": "t1", "x": 5, "y": 4}).status_code == 200
    assert table.act("paul", {"kind": "move", "token": "t2", "x": 5, "y": 5}).status_code == 422
    assert table.act("sam", {"kind": "note", "text": "hop"}).status_code == 403
    text = owner.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"}).text
    assert _metric(text, "tablee_actions_total", game="libre", outcome="ok") == 2
    assert _metric(text, "tablee_actions_total", game="libre", outcome="refused") == 1
    # Refused before the match is read: the game is not known yet.
    assert _metric(text, "tablee_actions_total", game="unknown", outcome="denied") == 1
    assert _metric(text, "tablee_action_duration_seconds_count", game="libre") == 3
    assert _metric(text, "tablee_http_requests_total", method="POST", status="2xx") >= 2


def test_database_errors_are_counted(app, client, monkeypatch):
    from app.services import accounts

    def locked(*args, **kwargs):
        raise OperationalError("INSERT", {}, __import__("sqlite3").OperationalError(
            "database is locked"))

    monkeypatch.setattr(accounts, "register", locked)
    response = client.post("/api/v1/auth/register",
                           json={"username": "zoe", "password": "correct horse battery"})
    assert response.status_code == 503
    sample = app.state.metrics.database_errors.labels("unavailable")
    assert sample._value.get() == 1


def test_every_response_carries_a_request_id_and_keeps_a_well_formed_one(client):
    first = client.get("/healthz").headers["x-request-id"]
    second = client.get("/healthz").headers["x-request-id"]
    assert first and second and first != second
    kept = client.get("/healthz", headers={"X-Request-ID": "proxy-abc-12345"})
    assert kept.headers["x-request-id"] == "proxy-abc-12345"
    replaced = client.get("/healthz", headers={"X-Request-ID": "<script>"})
    assert replaced.headers["x-request-id"] != "<script>"
    assert client.get("/api/v1/nowhere").headers["x-request-id"]


def test_error_pages_show_the_request_id(new_client):
    french = new_client(language="fr")
    page = french.get("/campaigns/999999", follow_redirects=False)
    assert page.status_code == 303  # not logged in: sent to the log-in page
    missing = french.get("/no-such-page")
    assert missing.status_code == 404
    request_id = missing.headers["x-request-id"]
    assert f"Référence à donner à l'administrateur : {request_id}" in missing.text


def test_a_500_page_carries_the_request_id(app, settings, monkeypatch):
    from app.web import pages

    def boom(*args, **kwargs):
        raise RuntimeError("bug")

    monkeypatch.setattr(pages, "render", boom)
    with TestClient(app, raise_server_exceptions=False,
                    headers={"Accept-Language": "en"}) as owner:
        response = owner.get("/docs")
    assert response.status_code == 500
    request_id = response.headers["x-request-id"]
    assert request_id in response.text


def test_one_json_log_line_per_request_with_user_campaign_and_duration(api, caplog):
    caplog.set_level(logging.INFO, logger="tablee.request")
    alice = api("alice")
    created = alice.post("/campaigns", json={"name": "Table", "system": "libre"})
    campaign_id = created.json()["id"]
    caplog.clear()
    response = alice.get(f"/campaigns/{campaign_id}")
    assert response.status_code == 200
    lines = [json.loads(record.getMessage()) for record in caplog.records
             if record.name == "tablee.request"]
    assert len(lines) == 1
    line = lines[0]
    assert line["request_id"] == response.headers["x-request-id"]
    assert line["path"] == f"/api/v1/campaigns/{campaign_id}"
    assert line["status"] == 200
    assert line["campaign"] == campaign_id
    assert isinstance(line["user"], int)
    assert line["duration_ms"] >= 0


def test_probes_are_not_logged_one_line_each(client, caplog):
    caplog.set_level(logging.INFO, logger="tablee.request")
    client.get("/healthz")
    client.get("/readyz")
    assert [r for r in caplog.records if r.name == "tablee.request"] == []


def test_several_workers_are_refused_on_sqlite(monkeypatch, tmp_path, capsys):
    from app.__main__ import main

    monkeypatch.setenv("TABLEE_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("TABLEE_DATABASE_URL", raising=False)
    with pytest.raises(SystemExit) as exited:
        main(["serve", "--workers", "2", "--port", "1"])
    assert exited.value.code == 2
    assert "PostgreSQL" in capsys.readouterr().err


def test_authenticating_gives_the_connection_back_to_the_pool(app, api, settings):
    """A request that waits for a thread after authenticating holds no pooled connection
    (with more such requests than connections, the threads starved)."""
    import asyncio

    from starlette.requests import Request

    from app.http.deps import current_viewer

    alice = api("alice")
    scope = {"type": "http", "method": "GET", "path": "/", "headers": [
        (b"authorization", alice.headers["Authorization"].encode())],
        "query_string": b"", "app": app, "state": {}}
    db = app.state.sessionmaker()
    try:
        viewer = asyncio.run(current_viewer(Request(scope), db, settings))
        assert viewer.user is not None and viewer.user.username == "alice"
        assert not db.in_transaction()
        assert viewer.user.username == "alice"  # still readable: detached, not expired
    finally:
        db.close()
