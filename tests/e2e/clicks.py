"""Counting what a round costs people in clicks (issue 23, « Too many clicks »): every form
sent is one click, and so is every folded card or GM-tools section it had to open first.
Moving a figure counts one (a drag on the board; the test types the point instead)."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping

from playwright.sync_api import Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.e2e.table import LIVE, act

IN_STEP = """() => {
    const state = document.querySelector(".table-state");
    const forms = [...document.querySelectorAll("#action-panel form input[name=seq]")];
    return state && !document.querySelector("#action-panel .htmx-request")
        && forms.every((input) => input.value === state.dataset.seq);
}"""


def seq(page: Page) -> int:
    return int(page.locator(".table-state").get_attribute("data-seq") or 0)


def steady(page: Page) -> None:
    """The page's forms belong to the state it shows (both arrive over the live stream)."""
    page.wait_for_function(IN_STEP, timeout=10_000)


def catch_up(page: Page, newest: int) -> None:
    """Wait until ``page`` shows the table at ``newest`` (a secret step of another player
    may leave it one behind: then it waits no longer than the live delay)."""
    with contextlib.suppress(PlaywrightTimeout):
        page.wait_for_function(f"() => Number(document.querySelector('.table-state')"
                               f".dataset.seq) >= {newest}", timeout=LIVE)
    steady(page)


class Clicks:
    """The clicks one person makes, counted as they act through the panel."""

    def __init__(self) -> None:
        self.count = 0
        self.kinds: list[str] = []

    def offered(self, page: Page, kind: str) -> bool:
        return page.locator(f"form#action-{kind}").count() > 0

    def act(self, page: Page, kind: str, fields: Mapping[str, str] | None = None,
            *others: Page) -> None:
        form = page.locator(f"form#action-{kind}")
        tools = page.locator("#action-panel details.action-gm-tools", has=form)
        if tools.count() and not tools.evaluate("element => element.open"):
            self.count += 1
        card = page.locator(f"details.action-{kind}")
        if card.count() and not card.evaluate("element => element.open"):
            self.count += 1
        before = seq(page)
        act(page, kind, dict(fields or {}))
        self.count += 1
        self.kinds.append(kind)
        page.wait_for_function(f"() => Number(document.querySelector('.table-state')"
                               f".dataset.seq) > {before}", timeout=10_000)
        steady(page)
        for other in others:
            catch_up(other, seq(page))
