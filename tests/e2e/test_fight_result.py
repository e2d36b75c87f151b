"""A fight that one side can no longer fight says who won, live, to the GM and the player,
on a desktop and on a phone (issue 23, « Fights never end »): decided, the GM is offered to
end it; ended, both read the result beside its replay. Tiamat (no board: its state is a tab
on a phone) and free play (a board)."""

from __future__ import annotations

import re

import httpx
import pytest
from playwright.sync_api import Page, expect

from app.rules.tiamat.profiles import voyous
from app.rules.tiamat.sheet import jack
from tests.e2e.table import (
    LIVE,
    Campaign,
    act,
    bearer,
    log_in,
    open_match,
    seat_campaign,
)

SIZES = {"desktop": {"width": 1366, "height": 900}, "phone": {"width": 390, "height": 844}}

# The banner is in the first screen, or, on a phone, one tap away on a tab that says so.
IN_VIEW = """element => {
  const box = element.getBoundingClientRect();
  return box.width > 0 && box.top >= 0 && box.bottom <= innerHeight;
}"""


def result_in_view(page: Page, size: str, said: str) -> None:
    """``said`` is in the first screen: the state panel's banner, or where a board keeps
    that panel below, the action panel's (on a phone, the tab a table opens on)."""
    expect(page.locator("#outcome")).to_contain_text(said, timeout=LIVE)
    page.evaluate("window.scrollTo(0, 0)")
    shown = page.locator("#outcome:visible, #outcome-now:visible")
    expect(shown.first).to_contain_text(said)
    if not any(shown.nth(i).evaluate(IN_VIEW) for i in range(shown.count())):
        page.screenshot(path=f"/tmp/fight-result-out-{size}.png")
        raise AssertionError(f"the result is out of the first screen ({size})")


def gm_acts(page: Page, kind: str, fields: dict[str, str] | None = None) -> None:
    """The GM acts; on a phone, from the Actions tab."""
    tab = page.locator("#tab-actions")
    if tab.is_visible():
        tab.click()
    act(page, kind, fields)


def seated(new_context, live_server, size: str, system: str,
           characters) -> tuple[Page, Page, Campaign]:
    """The GM and the player of a new campaign, each in a browser of that size."""
    campaign = seat_campaign(live_server.url, system=system, name="Fin", characters=characters)
    gm, player = log_in(new_context, campaign.gm), log_in(new_context, campaign.player)
    for page in (gm, player):
        page.set_viewport_size(SIZES[size])
    return gm, player, campaign


@pytest.mark.parametrize("size", SIZES)
def test_a_decided_tiamat_fight_names_its_winner_then_ends(new_context, live_server, size):
    gm, player, campaign = seated(new_context, live_server, size, "tiamat", [
        ("gm", {"name": "Voyous", "sheet": voyous(), "owner_id": None})])
    with httpx.Client(base_url=live_server.url, timeout=10) as client:
        paul = client.get("/api/v1/me", headers=bearer(client, campaign.player)).json()["id"]
        made = client.post(f"/api/v1/campaigns/{campaign.id}/characters",
                           headers=bearer(client, campaign.gm),
                           json={"name": "Jack", "sheet": jack(), "owner_id": paul})
        assert made.status_code == 201, made.text
    url = open_match(gm, campaign, "Entrepôt n°8", ["Jack", "Voyous"])
    player.goto(url)
    thugs = "p1" if "Voyous" in gm.locator('[data-participant="p1"]').inner_text() else "p2"
    gm_acts(gm, "gm_adjust", {"participant": thugs, "field": "fled", "value": "yes"})
    for page in (gm, player):
        result_in_view(page, size, "The match is decided. Jack wins.")
    end = gm.locator("form#action-end_match")
    expect(end).to_contain_text("Jack wins the fight.")
    gm_acts(gm, "end_match")
    for page in (gm, player):
        result_in_view(page, size, "The match is over. Jack wins.")
        expect(page.locator("#outcome a")).to_have_attribute(
            "href", re.sub(r"^https?://[^/]+", "", url) + "/replay")
    player.screenshot(path=f"/tmp/fight-result-tiamat-{size}.png")


@pytest.mark.parametrize("size", SIZES)
def test_a_decided_free_play_fight_names_its_winner_then_ends(new_context, live_server, size):
    gm, player, campaign = seated(new_context, live_server, size, "libre", [
        ("player", {"name": "Aldo", "sheet": {"hp": 12, "hp_max": 12, "counters": [],
                                              "statuses": ""}}),
        ("gm", {"name": "Gobelin", "owner_id": None,
                "sheet": {"hp": 5, "hp_max": 5, "counters": [], "statuses": ""}})])
    url = open_match(gm, campaign, "Au gué", ["Aldo", "Gobelin"])
    gm.on("dialog", lambda dialog: dialog.accept())  # « End this match? »
    player.goto(url)
    goblin = gm.locator("#board .token", has_text="Gobelin").get_attribute("data-token")
    gm_acts(gm, "adjust_hp", {"token": goblin, "delta": "-5"})
    for page in (gm, player):
        result_in_view(page, size, "The match is decided. Aldo wins.")
    gm_acts(gm, "end_match")
    for page in (gm, player):
        result_in_view(page, size, "The match is over. Aldo wins.")
    player.screenshot(path=f"/tmp/fight-result-libre-{size}.png")
