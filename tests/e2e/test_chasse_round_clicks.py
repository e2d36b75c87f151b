"""One round of the demo's hunt in two browsers, clicks counted (issue 23, « Too many
clicks »): *La vallée des sangliers* with the demo's hunters — the GM's tribe (Bronk), which
plays first, and Paul's (Ghâ, Ourk). Each tribe walks its hunters 4" out of the camp; no prey
is within reach of a throw, a fight or a knife. Steps with nothing to do pass by themselves
and the first walk closes step 2, so a tribe's turn costs its walks and one « Étape
suivante » to close them — and Paul's a second one at step 6, where Bronk, of the other
tribe, is in reach of Ghâ's sling (a throw a player may want: the form warns that it would
be at a hunter).

Before (commit 01ec5f4): 13 clicks — per tribe « Étape suivante » at steps 2, 4, 6 and 7
and « Terminer le tour », besides its walks. After: 6. The dice are seeded so the prey's
end-of-turn tests are the same each run."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from app.rules.chasse.sheet import blank_sheet
from app.rules.dice import SeededDice
from tests.e2e.clicks import Clicks, catch_up, steady
from tests.e2e.table import LIVE, act, log_in, open_match, seat_campaign

pytestmark = pytest.mark.e2e

HUNTERS = {"Ourk": ("player", {**blank_sheet(), "weapons": ["javelot", "couteau"]}),
           "Ghâ": ("player", {**blank_sheet(), "shaman": True,
                              "weapons": ["fronde", "couteau"]}),
           "Bronk": ("gm", {**blank_sheet(), "profile": "pataud",
                            "weapons": ["lance", "massue"]})}
WALK = 4  # inches north, out of the camp
CLICKS_MAX = 6  # 3 walks, one « Étape suivante » per tribe, Paul's step 6


def _walk(page, name: str) -> dict[str, str]:
    """The move form's fields that walk ``name`` 4" north (a drag on the board)."""
    token_id = page.locator("form#action-move select[name=token] option",
                            has_text=name).get_attribute("value")
    figure = page.locator(f'#board .token[data-token="{token_id}"]')
    x, y = float(figure.get_attribute("data-x")), float(figure.get_attribute("data-y"))
    return {"token": token_id, "x": str(round(x)), "y": str(round(y - WALK))}


def _tribe_turn(page, other, clicks: Clicks, tribe: str, names: list[str]) -> None:
    """A tribe plays its turn: each hunter walks, then the steps are closed until the
    next tribe plays."""
    expect(page.locator("#turn .current-turn")).to_contain_text(f"Tribe of {tribe}",
                                                                timeout=LIVE)
    steady(page)
    start = page.locator("#turn").inner_text()
    walked: list[str] = []
    for _ in range(20):
        if page.locator("#turn").inner_text() != start:
            return  # the next tribe plays (or the next round began)
        waiting = [name for name in names if name not in walked]
        if waiting and clicks.offered(page, "move"):
            clicks.act(page, "move", _walk(page, waiting[0]), other)
            walked.append(waiting[0])
        elif clicks.offered(page, "next_step"):
            clicks.act(page, "next_step", None, other)
        elif clicks.offered(page, "end_turn"):
            clicks.act(page, "end_turn", None, other)
        else:
            raise AssertionError(page.locator("#action-panel").inner_text())
    raise AssertionError("the turn never ended")


def test_one_round_of_the_demo_hunt_in_few_clicks(new_context, live_server):
    campaign = seat_campaign(live_server.url, system="chasse", name="La vallée", characters=[
        (who, {"name": name, "sheet": sheet}) for name, (who, sheet) in HUNTERS.items()])
    gm = log_in(new_context, campaign.gm)
    player = log_in(new_context, campaign.player)
    app = live_server.server.config.app
    app.state.dice = SeededDice(23)
    try:
        url = open_match(gm, campaign, "La vallée des sangliers", list(HUNTERS))
        act(gm, "choose_scenario", {"scenario": "vallee"})
        steady(gm)
        act(gm, "begin_hunt")
        player.goto(url)
        catch_up(gm, 0)
        expect(gm.locator("#turn .round")).to_contain_text("Turn 1")
        paul, mia = Clicks(), Clicks()
        _tribe_turn(gm, player, mia, "Bronk", ["Bronk"])  # the tribes play in roster order
        _tribe_turn(player, gm, paul, "Ghâ", ["Ghâ", "Ourk"])
        expect(player.locator("#turn .round")).to_contain_text("Turn 2", timeout=LIVE)
    finally:
        app.state.dice = None
    total = paul.count + mia.count
    print(f"one round of the hunt: {total} clicks (Paul {paul.kinds}, GM {mia.kinds})")
    assert total <= CLICKS_MAX, (paul.kinds, mia.kinds)
