"""The Cyborg sheet on a phone (issue 10): the skills table shows its "Total" column inside
its box at 390×844, in French and in English; on a desktop nothing scrolls. The armament is
one card per weapon on a phone, and stays a table on a desktop."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.table import PASSWORD, Campaign, seat_campaign


@pytest.fixture
def cyborg_campaign(live_server) -> Campaign:
    return seat_campaign(live_server.url, system="cyborg", name="KCA",
                         characters=[("player", {"name": "Kenji"})])


@pytest.mark.parametrize(("width", "height"), [(390, 844), (1366, 900)])
@pytest.mark.parametrize("locale", ["fr-FR", "en-GB"])
def test_the_skills_table_shows_its_total_inside_its_box(
        new_context, cyborg_campaign, width, height, locale):
    page = new_context(locale=locale, viewport={"width": width, "height": height}).new_page()
    page.goto("/login")
    page.fill("#field-username", cyborg_campaign.player)
    page.fill("#field-password", PASSWORD)
    page.locator("form.stack button[type=submit]").click()
    expect(page).not_to_have_url(re.compile("/login"))
    kenji = cyborg_campaign.characters["Kenji"]["id"]
    page.goto(f"/campaigns/{cyborg_campaign.id}/characters/{kenji}")
    table = page.locator("table.derived-skills")
    expect(table).to_be_visible()
    box = table.locator("xpath=..").bounding_box()
    total = table.locator("thead th").last.bounding_box()
    cell = table.locator("tbody td.derived-value strong").first.bounding_box()
    assert box and total and cell
    for column in (total, cell):
        assert column["x"] + column["width"] <= box["x"] + box["width"] + 0.5, (column, box)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    # the "%" stays beside its number
    assert cell["height"] < 2 * 24, cell


CARDS = """table => {
    const wrap = table.parentNode;
    const cells = [...table.querySelectorAll("tbody td")];
    return {display: getComputedStyle(table).display,
            head: table.querySelector("thead").getBoundingClientRect().width,
            overflow: wrap.scrollWidth - wrap.clientWidth,
            rows: table.querySelectorAll("tbody tr").length,
            labels: cells.map(td => getComputedStyle(td, "::before").content),
            right: Math.max(...cells.map(td => td.getBoundingClientRect().right)),
            box: wrap.getBoundingClientRect().right};
}"""


@pytest.mark.parametrize(("width", "height"), [(390, 844), (1366, 900)])
@pytest.mark.parametrize("language", ["fr", "en"])
def test_the_armament_is_one_card_per_weapon_on_a_phone(
        new_context, cyborg_campaign, width, height, language):
    page = new_context(locale="fr-FR", viewport={"width": width, "height": height}).new_page()
    page.goto("/login")
    page.fill("#field-username", cyborg_campaign.player)
    page.fill("#field-password", PASSWORD)
    page.locator("form.stack button[type=submit]").click()
    expect(page).not_to_have_url(re.compile("/login"))
    if language == "fr":  # the test accounts speak English
        page.goto("/account")
        page.select_option("#field-locale", "fr")
        page.locator("#field-locale").locator("xpath=ancestor::form").locator(
            "button[type=submit]").click()
        expect(page.locator("html")).to_have_attribute("lang", re.compile("^fr"))
    kenji = cyborg_campaign.characters["Kenji"]["id"]
    page.goto(f"/campaigns/{cyborg_campaign.id}/characters/{kenji}")
    table = page.locator(".sheet-cyborg table.weapons")
    expect(table).to_be_visible()
    seen = table.evaluate(CARDS)
    assert seen["rows"] >= 2, seen
    assert seen["overflow"] <= 0, seen  # nothing to scroll sideways
    assert seen["right"] <= seen["box"] + 0.5, seen
    if width < 600:
        assert seen["display"] == "block" and seen["head"] <= 1, seen
        label = "Type de dommage : " if language == "fr" else "Damage type: "
        assert seen["labels"][0] == f'"{label}"', seen
    else:
        assert seen["display"] == "table" and seen["head"] > 100, seen
        assert set(seen["labels"]) == {"none"}, seen
    assert page.evaluate("document.documentElement.scrollWidth") <= width
