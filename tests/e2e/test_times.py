"""Every time a page shows is in the reader's own time zone (issue 23: the rolls page said UTC,
the table's journal the same hours without saying so): the rolls page, the table's journal,
the chat and the campaign's matches, read from a browser in Auckland (UTC+13 in December)."""

from __future__ import annotations

import re
from datetime import datetime
from zoneinfo import ZoneInfo

import httpx
from playwright.sync_api import Page, expect

from tests.e2e.table import PASSWORD, bearer, open_match, seat_campaign

ZONE = "Pacific/Auckland"


def _log_in(new_context, username: str) -> Page:
    page = new_context(locale="fr-FR", timezone_id=ZONE,
                       viewport={"width": 1366, "height": 900}).new_page()
    page.goto("/login")
    page.fill("#field-username", username)
    page.fill("#field-password", PASSWORD)
    page.locator("main form button[type=submit]").click()
    # Signed in once the page has left /login (the French login page's title is never
    # « Log in »: a wait for that passed at once, and the next page cancelled the login).
    expect(page).not_to_have_url(re.compile("/login"))
    return page


def _shown_in_the_zone(page: Page, selector: str) -> None:
    """Each time there reads the reader's hour and minute, its title names the zone."""
    times = page.locator(selector)
    expect(times.first).to_have_attribute("data-localised", "")
    for element in times.all():
        instant = datetime.fromisoformat(element.get_attribute("datetime"))
        local = instant.astimezone(ZoneInfo(ZONE))
        text = element.text_content()
        assert local.strftime("%H:%M") in text, (text, instant)
        assert instant.strftime("%H:%M UTC") not in text
        assert ZONE in element.get_attribute("title")


def test_every_time_is_in_the_reader_s_time_zone(new_context, live_server):
    campaign = seat_campaign(live_server.url, system="libre", name="Heures",
                             characters=[("player", {"name": "Ondine", "sheet": {
                                 "hp": 10, "hp_max": 10, "counters": []}})])
    with httpx.Client(base_url=live_server.url, timeout=10) as client:
        gm = bearer(client, campaign.gm)
        base = f"/api/v1/campaigns/{campaign.id}"
        assert client.post(f"{base}/rolls", headers=gm,
                           json={"expression": "2d6"}).status_code == 201
        assert client.post(f"{base}/chat", headers=gm,
                           json={"body": "Bonsoir"}).status_code == 201

    page = _log_in(new_context, campaign.gm)
    table = open_match(page, campaign, "Première", ["Ondine"])  # the account reads English
    with httpx.Client(base_url=live_server.url, timeout=10) as client:
        assert client.patch("/api/v1/me", headers=gm, json={"locale": "fr"}).status_code == 200

    page.goto(f"/campaigns/{campaign.id}/rolls")
    _shown_in_the_zone(page, ".roll-entry time")
    assert "UTC+13" in page.locator(".roll-entry time").first.text_content()  # zone said
    page.goto(f"/campaigns/{campaign.id}/chat")
    _shown_in_the_zone(page, ".chat-message time")
    page.goto(table)
    _shown_in_the_zone(page, ".log-line time.log-time")
    page.goto(f"/campaigns/{campaign.id}/matches")
    _shown_in_the_zone(page, "main table time")
