"""Browser tests: a real uvicorn server on a free port, driven in Debian's Chromium.

Playwright only drives the browser; it never downloads one (``executable_path``). Without
``/usr/bin/chromium`` every test here is skipped, saying why.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.config import Settings
from app.migrate import upgrade
from tests.live_server import LiveServer

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]

pytestmark = pytest.mark.e2e


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/e2e" in str(item.fspath):
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="session")
def live_server(tmp_path_factory) -> Iterator[LiveServer]:
    data_dir: Path = tmp_path_factory.mktemp("e2e")
    url = f"sqlite:///{data_dir / 'tablee.db'}"
    upgrade(url)
    # Every browser test registers its people from 127.0.0.1: the per-address registration
    # limit (tests/test_rate_limits.py proves it) would stop the session after ten of them.
    settings = Settings(data_dir=data_dir, database_url=url, secret_key="e2e-" + "k" * 40,
                        argon2_time_cost=1, argon2_memory_cost=64,
                        registrations_per_hour=1000)
    server = LiveServer(settings)
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="package")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield instance
        instance.close()


@pytest.fixture
def new_context(browser, live_server):
    """``new_context(locale="fr-FR")``: an independent browser profile (cookies) on the server.

    Every page of every context it makes is listened to: an error in the browser console
    (a script's, a refused inline style's, a failed load's) or an uncaught exception fails
    the test at teardown, listing them. The console of a page people use stays empty."""
    contexts, errors = [], []

    def make(**options):
        context = browser.new_context(base_url=live_server.url, **options)
        context.set_default_timeout(10_000)
        context.on("console", lambda message: _console_error(errors, message))
        context.on("weberror", lambda error: errors.append(
            f"uncaught {error.error} ({error.page.url if error.page else '?'})"))
        contexts.append(context)
        return context

    yield make
    for context in contexts:
        context.close()
    assert not errors, "the browser console showed errors:\n" + "\n".join(errors)


def _console_error(errors: list[str], message) -> None:
    if message.type != "error":
        return
    where = message.location.get("url") or (message.page.url if message.page else "?")
    errors.append(f"{message.text} ({where})")
