"""Shared fixtures: a fresh database per test, an app, and clients that act like people.

SQLite (default): the migrations run once into a template file that each test copies.
PostgreSQL: set ``TABLEE_TEST_DATABASE_URL``; the migrations run once and each test starts
from emptied tables.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, make_url, text

from app.config import Settings
from app.main import create_app
from app.migrate import upgrade
from app.models import Base
from app.web.table_view import PANEL_MISSES
from tests.helpers import ApiUser, WebUser

# The free-play table most web tests sit at: registered here, before any test module imports
# it, so that pytest rewrites its asserts (a module importing TableDice first broke that).
pytest_plugins = ["tests.match_fixtures"]

POSTGRES_URL = os.environ.get("TABLEE_TEST_DATABASE_URL", "")
# Under ``pytest -n N`` (pytest-xdist) each worker is a process of its own: "gw0", "gw1"…
XDIST_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
TEST_PASSWORD = "correct horse battery"


def _worker_postgres(url: str) -> str:
    """The database this process empties before each test: the one named by the URL, or,
    for an xdist worker, a database of its own beside it (created on first use)."""
    if not XDIST_WORKER:
        return url
    base = make_url(url)
    name = f"{base.database}_{XDIST_WORKER}"
    engine = create_engine(base, isolation_level="AUTOCOMMIT")
    with engine.connect() as connection:
        if connection.scalar(text("SELECT 1 FROM pg_database WHERE datname = :name"),
                             {"name": name}) is None:
            connection.execute(text(f'CREATE DATABASE "{name}"'))
    engine.dispose()
    return base.set(database=name).render_as_string(hide_password=False)


@pytest.fixture(scope="session")
def database_template(tmp_path_factory) -> str:
    """A migrated database: a file to copy (SQLite) or this process's PostgreSQL URL."""
    if POSTGRES_URL:
        url = _worker_postgres(POSTGRES_URL)
        engine = create_engine(url)
        with engine.begin() as connection:
            connection.execute(text("DROP SCHEMA public CASCADE; CREATE SCHEMA public"))
        engine.dispose()
        upgrade(url)
        return url
    path = tmp_path_factory.mktemp("template") / "template.db"
    upgrade(f"sqlite:///{path}")
    return str(path)


def fresh_database(database_template: str, directory: Path) -> str:
    """A database of the test's own: a copy of the template file, or emptied PostgreSQL tables."""
    if POSTGRES_URL:
        engine = create_engine(database_template)
        tables = ", ".join(f'"{table.name}"' for table in Base.metadata.sorted_tables)
        with engine.begin() as connection:
            connection.execute(text(f"TRUNCATE {tables} RESTART IDENTITY CASCADE"))
        engine.dispose()
        return database_template
    target = directory / "tablee.db"
    shutil.copy(database_template, target)
    return f"sqlite:///{target}"


def app_settings(database_url: str, data_dir: Path) -> Settings:
    """A test app's settings: cheap password hashing, and the Redis of the PostgreSQL pass
    under a namespace of this process's own (pub/sub channels are shared by every Redis
    database number, and xdist workers or other runs may share the server)."""
    return Settings(data_dir=data_dir, database_url=database_url,
                    secret_key="test-secret-key-" + "x" * 32,
                    argon2_time_cost=1, argon2_memory_cost=64,
                    redis_url=os.environ.get("TABLEE_TEST_REDIS_URL") or None,
                    redis_namespace=f"tablee-test-{os.getpid()}:")



@pytest.fixture
def database_url(database_template: str, tmp_path: Path) -> str:
    return fresh_database(database_template, tmp_path)


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    return app_settings(database_url, tmp_path / "var")


@pytest.fixture
def app(settings: Settings):
    application = create_app(settings)
    yield application
    application.state.engine.dispose()


@pytest.fixture
def running_app(app) -> Iterator[TestClient]:
    """The app started once (lifespan: the broker) on one event loop for the whole test."""
    with TestClient(app) as owner:
        yield owner


@pytest.fixture
def new_client(app, running_app):
    """Make more independent browsers (each with its own cookies).

    They all run on the loop of ``running_app``, as requests do in one worker: the broker
    (and its Redis connection) belongs to that loop.
    """

    def make(*, language: str = "en") -> TestClient:
        # Tests read English by default; French (the product's default) is tested on its own.
        test_client = TestClient(app, headers={"Accept-Language": language})
        test_client.portal = running_app.portal
        return test_client

    return make


@pytest.fixture
def client(new_client) -> TestClient:
    return new_client()


@pytest.fixture
def db(app):
    session = app.state.sessionmaker()
    yield session
    session.close()


@pytest.fixture
def web(new_client):
    """``web("alice")``: a logged-in browser for a new account named alice."""

    def make(username: str, *, display_name: str = "") -> WebUser:
        user = WebUser(new_client(), username)
        user.register(TEST_PASSWORD, display_name=display_name)
        return user

    return make


@pytest.fixture
def api(new_client):
    """``api("alice")``: an API client holding a bearer token for a new account."""

    def make(username: str) -> ApiUser:
        user = ApiUser(new_client(), username)
        user.register_and_login(TEST_PASSWORD)
        return user

    return make


@pytest.fixture(autouse=True)
def _panels_read_only_their_basis() -> Iterator[None]:
    """No action panel drawn during the test read a key of the state that the live stream's
    panel is not drawn from (``app.web.table_view.PANEL_STATE_KEYS``)."""
    PANEL_MISSES.clear()
    yield
    missed = sorted(PANEL_MISSES)
    PANEL_MISSES.clear()
    assert not missed, f"an action panel read {missed} of the state: add to PANEL_STATE_KEYS"
