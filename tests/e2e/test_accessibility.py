"""axe-core over every page a demo GM can reach, on a desktop and on a phone (issue 15).

The crawl starts at the home page of the demo instance (a campaign and a match in progress per
game) and follows the site's own links, so a new game's pages are checked as soon as its demo
campaign exists. Only WCAG 2.1 A/AA rules count; the vendored API documentation page is left
out (Swagger UI is not ours to fix).
"""

from __future__ import annotations

import re
from urllib.parse import urldefrag, urlparse

import pytest
from playwright.sync_api import Page, expect

from app.services.demo import ensure_demo

# Served from the site itself: the pages' Content-Security-Policy allows only 'self' scripts.
AXE = "/static/vendor/axe-core-4.14.1/axe.min.js"
WCAG_21_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
VIEWPORTS = {"desktop": {"width": 1366, "height": 900}, "phone": {"width": 390, "height": 844}}
# Pages that act when opened, or are not HTML pages of ours.
SKIPPED = re.compile(r"^/(logout|docs|static/|api/|healthz|readyz|metrics)|/export|\.json$|/stream")
# Two addresses that differ only by the id of a roster row or a roll show the same template:
# one of each per campaign is enough (the campaign id stays, so every game is visited).
SAME_TEMPLATE = re.compile(r"/(characters|rolls|events|invites|members|content)/\d+")
MAX_PAGES = 160


def _shape(path: str) -> str:
    """The template an address shows: ids of rows in a list and query strings (a replay's
    step) do not change it."""
    return SAME_TEMPLATE.sub(lambda m: f"/{m.group(1)}/N", path.split("?")[0])


def _links(page: Page) -> list[str]:
    hrefs = page.eval_on_selector_all("a[href]", "links => links.map(a => a.href)")
    found = []
    for href in hrefs:
        url = urlparse(urldefrag(href).url)
        if url.hostname == "127.0.0.1" and not SKIPPED.search(url.path):
            found.append(url.path + (f"?{url.query}" if url.query else ""))
    return found


def _violations(page: Page) -> list[str]:
    page.add_script_tag(url=AXE)
    # Only the violations are read: axe then details no passing or uncertain node (half
    # the crawl's time went into those).
    result = page.evaluate(
        "tags => axe.run(document, {runOnly: {type: 'tag', values: tags},"
        " resultTypes: ['violations']})", WCAG_21_AA)
    return [f"{v['id']} ({v['impact']}): {v['help']} — "
            + "; ".join(node["target"][0] for node in v["nodes"][:3])
            for v in result["violations"]]


@pytest.fixture(scope="module")
def demo(live_server):
    ensure_demo(live_server.app.state.settings)


def _check(page: Page, path: str, problems: dict[str, list[str]]) -> bool:
    """Open ``path``; False when it is not one of our HTML pages."""
    response = page.goto(path)
    if response is None or response.status >= 400 or "text/html" not in (
            response.headers.get("content-type", "")):
        return False
    if found := _violations(page):
        problems[path] = found
    return True


def _log_in_demo_gm(page: Page) -> None:
    page.goto("/login")
    page.fill("#field-username", "mjdemo")
    page.fill("#field-password", "tablee-demo-2026")
    page.locator("main form button[type=submit]").click()
    expect(page).not_to_have_url(re.compile("/login"))


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=list(VIEWPORTS))
def test_no_wcag_21_aa_violation_on_any_page(new_context, demo, viewport):
    page = new_context(locale="fr-FR", viewport=VIEWPORTS[viewport]).new_page()
    problems: dict[str, list[str]] = {}
    for path in ("/", "/login", "/register"):  # what a visitor sees before logging in
        assert _check(page, path, problems), path
    _log_in_demo_gm(page)
    queue, seen_shapes, visited = ["/"], set(), 0
    while queue and visited < MAX_PAGES:
        path = queue.pop(0)
        if _shape(path) in seen_shapes:
            continue
        seen_shapes.add(_shape(path))
        if _check(page, path, problems):
            visited += 1
            queue.extend(_links(page))
    assert visited > 20, f"the crawl reached only {visited} pages"
    assert not problems, "\n".join(f"{path}:\n  " + "\n  ".join(found)
                                   for path, found in problems.items())


def test_pages_reflow_at_320_css_pixels(new_context, demo):
    """WCAG 1.4.10: at 320 px no page scrolls sideways (a wide table may scroll in its box)."""
    page = new_context(locale="fr-FR", viewport={"width": 320, "height": 640}).new_page()
    _log_in_demo_gm(page)
    queue, seen_shapes, too_wide = ["/"], set(), {}
    while queue and len(seen_shapes) < MAX_PAGES:
        path = queue.pop(0)
        if _shape(path) in seen_shapes:
            continue
        seen_shapes.add(_shape(path))
        response = page.goto(path)
        if response is None or "text/html" not in response.headers.get("content-type", ""):
            continue
        width = page.evaluate("document.documentElement.scrollWidth")
        if width > 321:
            too_wide[path] = width
        queue.extend(_links(page))
    assert len(seen_shapes) > 20
    assert not too_wide, too_wide
