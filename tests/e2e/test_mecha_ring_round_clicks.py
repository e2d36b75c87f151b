"""One round of a Mecha-Ring fight in two browsers, clicks counted (issue 23, « Too many
clicks »; issue 25, reaction windows): Paul against the host's two robots played by the house
bot, then Paul against the host in person. Each person plays what the panel awaits from them
— keep their place, attack, choose the part, get ready — and, when the table asks them to
react, lets play go on. The set-up's dice are seeded.

Before (commit 01ec5f4): 13 clicks for Paul against the two bots (ten « Pas de réaction »,
after every step), 14 for the round of two (four of them). After: 6 and 9 — the order rolls
itself, a robot with nothing to repair is ready by itself, Paul is asked to react only when a
bot is about to strike him (his Blindage réactif can change that strike), and an attacker
whose radar failed answers first whether it spends radar energy (« Garder mon énergie »: the
text's order, where the defender used to race it)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from app.rules.dice import SeededDice
from tests.e2e.clicks import Clicks, catch_up, steady
from tests.e2e.table import LIVE, act, log_in, open_match, seat_campaign

pytestmark = pytest.mark.e2e

SHEET = {"robot_name": "", "crew": "", "implants": 0, "tournaments": 0, "wins": 0,
         "titles": 0, "best_points": 0}
# What a person answers, first found first: the flow of a round.
FLOW = ("pass_reaction", "climb", "decline_boost", "attack", "choose_part", "ready",
        "roll_order")
SOLO_MAX = 6
DUO_MAX = 9


def _round(pages: list, clicks: list[Clicks], watcher) -> None:
    """Play until round 2 begins: each time, the first page with a step of the flow acts."""
    for _ in range(60):
        if watcher.locator("#log > li.kind-round_started, #log > li.kind-fight_ended").count():
            return
        for page in pages:
            steady(page)
        for page, counted in zip(pages, clicks, strict=True):
            kind = next((kind for kind in FLOW if counted.offered(page, kind)), None)
            if kind is not None:
                counted.act(page, kind, None, *[other for other in pages if other is not page])
                break
        else:
            raise AssertionError(" / ".join(page.locator("#action-panel").inner_text()
                                            for page in pages))
    raise AssertionError("the round never ended")


@pytest.fixture
def seeded(live_server):
    app = live_server.server.config.app
    app.state.dice = SeededDice(5)
    yield
    app.state.dice = None


def test_a_round_against_two_house_bots_in_few_clicks(new_context, live_server, seeded):
    campaign = seat_campaign(live_server.url, system="mecha_ring", name="Solo", characters=[
        ("player", {"name": "Boulon", "sheet": {**SHEET, "implants": 3}}),
        ("gm", {"name": "Rouille", "sheet": SHEET}), ("gm", {"name": "Acier", "sheet": SHEET})])
    gm = log_in(new_context, campaign.gm)
    player = log_in(new_context, campaign.player)
    url = open_match(gm, campaign, "Solo", ["Boulon", "Rouille", "Acier"])
    for name in ("Rouille", "Acier"):
        seat = gm.locator(".mecha-robot", has=gm.locator("h3", has_text=name)) \
            .get_attribute("data-token")
        act(gm, "set_bot", {"seat": seat, "on": "on"})
        expect(gm.locator(f"#participant-{seat} .badge.bot")).to_be_visible(timeout=LIVE)
    player.goto(url)
    catch_up(player, 0)
    paul = Clicks()
    _round([player], [paul], player)
    print(f"a round against two bots: {paul.count} clicks ({paul.kinds})")
    assert paul.count <= SOLO_MAX, paul.kinds


def test_a_round_of_two_players_in_few_clicks(new_context, live_server, seeded):
    campaign = seat_campaign(live_server.url, system="mecha_ring", name="Duo", characters=[
        ("player", {"name": "Boulon", "sheet": {**SHEET, "implants": 3}}),
        ("gm", {"name": "Rouille", "sheet": SHEET})])
    gm = log_in(new_context, campaign.gm)
    player = log_in(new_context, campaign.player)
    url = open_match(gm, campaign, "Duo", ["Boulon", "Rouille"])
    player.goto(url)
    catch_up(player, 0)
    paul, mia = Clicks(), Clicks()
    _round([player, gm], [paul, mia], gm)
    total = paul.count + mia.count
    print(f"a round of two: {total} clicks (Paul {paul.kinds}, host {mia.kinds})")
    assert total <= DUO_MAX, (paul.kinds, mia.kinds)
