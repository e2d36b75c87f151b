"""A spectator asks Mutatior's bookmaker for its odds before the bets, in Chromium: a small
simulation runs with its progress bar and ends on the quote, which stays on screen while the
GM records a spectator's bet live; a larger one is stopped with its button
(docs/odds.md § Simulations and the bookmaker)."""

from __future__ import annotations

import re
import uuid

import httpx
from playwright.sync_api import expect

from app.rules.mutatior.samples import grosbaf, zetzet
from app.rules.mutatior.sheet import sheet_of
from tests.e2e.table import LIVE, api_user, bearer, log_in, open_match, seat_campaign

DONE = 180_000  # ms: fifty fights on a busy two-core machine


def test_a_spectator_reads_the_bookmakers_odds_and_stops_a_simulation(new_context,
                                                                      live_server):
    arena = seat_campaign(live_server.url, system="mutatior", name="L'arène", characters=[
        ("player", {"name": "Grosbaf", "sheet": sheet_of(grosbaf())}),
        ("gm", {"name": "Zetzet", "sheet": sheet_of(zetzet())})])
    sam = f"sam-{uuid.uuid4().hex[:8]}"
    with httpx.Client(base_url=live_server.url, timeout=10) as client:
        watcher = api_user(client, sam)
        invite = client.post(f"/api/v1/campaigns/{arena.id}/invites",
                             headers=bearer(client, arena.gm), json={"role": "spectator"})
        assert client.post(f"/api/v1/invites/{invite.json()['token']}/accept",
                           headers=watcher).status_code == 200
    gm = log_in(new_context, arena.gm)
    url = open_match(gm, arena, "Avant les paris", ["Grosbaf", "Zetzet"])
    gm.close()  # the GM acts through the API from here
    page = log_in(new_context, sam)
    page.goto(url)
    panel = page.locator("#bookmaker #simulation")
    expect(panel.get_by_role("heading", name="Simulated fights")).to_be_visible()

    # A small simulation: its progress, then the bookmaker's quote.
    panel.get_by_label("How many fights").select_option("50")
    panel.get_by_label("Seed (optional)").fill("5")
    panel.get_by_role("button", name="Simulate").click()
    expect(panel.locator("progress#simulation-bar")).to_be_visible()
    expect(panel.get_by_role("button", name="Stop")).to_be_visible()
    expect(panel.locator(".simulation-result[data-status=done]")).to_be_visible(timeout=DONE)
    expect(panel.locator("progress#simulation-bar")).to_have_count(0)
    victory = panel.locator("table[data-section=victory]")
    expect(victory.locator("caption")).to_have_text("Who wins")
    expect(victory.locator("thead")).to_contain_text("Bookmaker's odds")
    expect(victory.locator("tbody tr")).to_have_count(2)
    expect(victory.locator("tbody tr").first.locator(".simulation-quote")).to_have_text(
        re.compile(r"^\d+\.\d\d$|^—$"))
    expect(panel.locator(".simulation-over")).to_contain_text("Over 50 simulated fights")
    quote = victory.inner_text()

    # The GM records a spectator's bet: the state is drawn again live, the quote stays.
    team = page.locator("#table-state section.team").first.get_attribute("data-team")
    with httpx.Client(base_url=live_server.url, timeout=10) as client:
        placed = client.post(f"/api/v1{url.removeprefix(live_server.url)}/actions",
                             headers=bearer(client, arena.gm), json={"action": {
                                 "kind": "place_bet", "bet": "spectator", "stake": 10,
                                 "label": "Sam", "team": team}, "seq": None})
        assert placed.status_code == 200, placed.text
    expect(page.locator("#bookmaker .bets")).to_contain_text("Sam", timeout=LIVE)
    expect(victory).to_have_text(quote)

    # A larger one, stopped with its button.
    panel.get_by_label("How many fights").select_option("1000")
    panel.get_by_role("button", name="Simulate").click()
    expect(panel.locator("progress#simulation-bar")).to_be_visible()
    panel.get_by_role("button", name="Stop").click()
    expect(panel.locator("progress#simulation-bar")).to_have_count(0)
    expect(panel.locator("[role=status]")).to_contain_text("topped before")
    expect(panel.get_by_role("button", name="Simulate")).to_be_visible()
    # no asking again once it stopped (a poll sent before the stop ends, then none)
    expect(panel.locator("div[hx-get]")).to_have_count(0, timeout=LIVE)
    expect(panel.locator(".htmx-request")).to_have_count(0)
