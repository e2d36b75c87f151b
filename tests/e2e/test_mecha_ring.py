"""A short Mecha-Ring tournament in two Chromium profiles: Mia hosts (GM) and runs her own
Combatank, Paul runs his. Accounts, campaign and teams come through the JSON API; the
tournament is played through the pages: the set-up on opening (the order rolled at once), then
the host plays the forms the panel offers (climb, attack, part, strike, ready) until the second
round begins, each browser seeing the other's actions live; the host ends the tournament.
The table's dice are real: the script follows whatever the panel offers.
"""

from __future__ import annotations

import os

from playwright.sync_api import expect

from app.rules.dice import SeededDice
from tests.e2e.table import LIVE, act, log_in, open_match, seat_campaign

SHEET = {"robot_name": "", "crew": "", "implants": 0, "tournaments": 0, "wins": 0,
         "titles": 0, "best_points": 0}
ORDER = ("pass_reaction", "close_window", "climb", "decline_boost", "attack", "choose_part",
         "ready", "roll_order")


def test_a_short_tournament_in_the_browser(new_context, live_server):
    campaign = seat_campaign(live_server.url, system="mecha_ring", name="MMMA", characters=[
        ("player", {"name": "Boulon", "sheet": {**SHEET, "implants": 3}}),
        ("gm", {"name": "Rouille", "sheet": SHEET})])
    gm = log_in(new_context, campaign.gm)
    gm.on("dialog", lambda dialog: dialog.accept())
    player = log_in(new_context, campaign.player)
    url = open_match(gm, campaign, "Tournoi", ["Boulon", "Rouille"])
    player.goto(url)
    # the set-up is done: two robots of five cards, Paul sees his own hand only
    expect(player.locator("#participant-t1 .robot-card:not(.missing)")).to_have_count(5)
    expect(player.locator("#participant-t1 .card-in-hand")).to_have_count(5)
    expect(player.locator("#participant-t2 .card-in-hand")).to_have_count(0)
    expect(player.locator("#participant-t2 .hands")).to_contain_text("5 parts in hand")
    expect(gm.locator("#participant-t1 .card-in-hand")).to_have_count(5)

    # the order needs nobody's decision: rolled with the set-up
    expect(gm.locator("#log > li.kind-order_rolled")).to_be_visible(timeout=LIVE)
    expect(gm.locator(".mecha-order li")).to_have_count(2)

    for _ in range(30):
        if gm.locator("#log > li.kind-round_started").count():
            break
        seen = gm.locator("#log > li").count()
        kind = next((kind for kind in ORDER if gm.locator(f"form#action-{kind}").count()),
                    None)
        assert kind is not None, gm.locator("#action-panel").inner_text()
        act(gm, kind)
        expect(gm.locator("#log > li")).not_to_have_count(seen, timeout=LIVE)
    expect(player.locator("#log > li.kind-round_started")).to_be_visible(timeout=LIVE)
    strike = player.locator("#log > li.kind-struck").first
    expect(strike.locator(".log-text")).to_contain_text("against défense")
    expect(player.locator("#turn")).to_contain_text("round 2")

    act(gm, "end_match")
    expect(player.locator("#turn")).to_contain_text("The tournament is over", timeout=LIVE)
    expect(player.locator("#result")).to_contain_text("Winner")
    # the campaign page: the standings and the history, linked to the table
    player.goto(f"/campaigns/{campaign.id}")
    expect(player.locator(".mecha-standings table.standings tbody tr")).to_have_count(2)
    history = player.locator(".mecha-standings .tournaments > li")
    expect(history).to_have_count(1)
    expect(history).to_contain_text("Winner")
    shots = os.environ.get("MECHA_SHOTS")
    if shots:
        for width, height in ((1366, 900), (390, 844)):
            player.set_viewport_size({"width": width, "height": height})
            player.screenshot(path=f"{shots}/campaign-{width}.png", full_page=True)
    history.locator("a").click()
    expect(player).to_have_url(url)


def test_a_player_against_the_house_bot(new_context, live_server):
    """The host gives their robot to the house bot; Paul alone plays a whole round through his
    forms, the bot answering at once (its moves marked in the log)."""
    campaign = seat_campaign(live_server.url, system="mecha_ring", name="Solo", characters=[
        ("player", {"name": "Boulon", "sheet": {**SHEET, "implants": 3}}),
        ("gm", {"name": "Rouille", "sheet": SHEET})])
    gm = log_in(new_context, campaign.gm)
    player = log_in(new_context, campaign.player)
    url = open_match(gm, campaign, "Solo", ["Boulon", "Rouille"])
    act(gm, "set_bot", {"seat": "t2", "on": "on"})
    expect(gm.locator("#participant-t2 .badge.bot")).to_be_visible(timeout=LIVE)
    player.goto(url)
    expect(player.locator("#log > li.kind-bot_set")).to_be_visible()
    for _ in range(30):
        if player.locator("#log > li.kind-round_started").count():
            break
        seen = player.locator("#log > li").count()
        kind = next((kind for kind in ORDER if player.locator(f"form#action-{kind}").count()),
                    None)
        assert kind is not None, player.locator("#action-panel").inner_text()
        act(player, kind)
        expect(player.locator("#log > li")).not_to_have_count(seen, timeout=LIVE)
    expect(player.locator("#log > li.kind-round_started")).to_be_visible(timeout=LIVE)
    expect(player.locator("#log .bot-move").first).to_be_visible()


def _strike_at_paul(gm, player) -> None:
    """The set-up's dice are seeded: Paul (Boulon) holds a Bouclier ionique, the host's robot
    (first in the order) a Surcharge, which the host cannot pay once their crédits are 0.
    Paul keeps his place; the host attacks him and his head is aimed at (by whoever the
    radar lets choose): the strike is next."""
    act(gm, "correct", {"choice": "t2|credits", "value": "0"})
    expect(gm.locator("#log > li.kind-corrected")).to_be_visible(timeout=LIVE)
    act(player, "climb")
    expect(gm.locator("form#action-attack")).to_be_visible(timeout=LIVE)
    act(gm, "attack", {"target": "t1"})
    expect(gm.locator("form#action-choose_part, form#action-decline_boost").first
           ).to_be_visible(timeout=LIVE)
    if gm.locator("form#action-decline_boost").count():  # the radar failed: Paul chooses
        act(gm, "decline_boost")
    chooser = gm if gm.locator("form#action-choose_part").count() else player
    expect(chooser.locator("form#action-choose_part")).to_be_visible(timeout=LIVE)
    act(chooser, "choose_part", {"slot": "tete"})


def test_a_reaction_window_in_two_browsers(new_context, live_server):
    """The host strikes Paul's head: Paul's Bouclier ionique can change the strike, the
    host's own card cannot be paid: the window asks Paul only, the host's page says the
    table waits for the reactions without naming anyone, and offers to close it; Paul lets
    play go on and both pages move on."""
    campaign = seat_campaign(live_server.url, system="mecha_ring", name="Reactions",
                             characters=[("player", {"name": "Boulon",
                                                     "sheet": {**SHEET, "implants": 3}}),
                                         ("gm", {"name": "Rouille", "sheet": SHEET})])
    shots = os.environ.get("MECHA_SHOTS")  # a folder: screenshots for a look by hand
    gm = log_in(new_context, campaign.gm)
    player = log_in(new_context, campaign.player)
    app = live_server.server.config.app
    app.state.dice = SeededDice(3)
    try:
        url = open_match(gm, campaign, "Réactions", ["Boulon", "Rouille"])
        player.goto(url)
        _strike_at_paul(gm, player)
        expect(player.locator("form#action-pass_reaction")).to_be_visible(timeout=LIVE)
        expect(player.locator("form#action-pass_reaction")).to_contain_text(
            "Bouclier ionique")
        expect(player.locator("#turn .reaction-asked")).to_be_visible()
        expect(gm.locator("#turn .reaction-window")).to_be_visible(timeout=LIVE)
        expect(gm.locator("#turn .reaction-window")).not_to_contain_text("Boulon")
        expect(gm.locator("form#action-close_window")).to_be_visible()
        expect(gm.locator("form#action-pass_reaction")).to_have_count(0)
        if shots:
            for width, height in ((1366, 900), (390, 844)):
                for who, page in (("player", player), ("host", gm)):
                    page.set_viewport_size({"width": width, "height": height})
                    page.screenshot(path=f"{shots}/{who}-window-{width}.png", full_page=True)
            gm.set_viewport_size({"width": 1280, "height": 720})
            player.set_viewport_size({"width": 1280, "height": 720})
        act(player, "pass_reaction")
        expect(gm.locator("#log > li.kind-window_closed")).to_be_visible(timeout=LIVE)
        expect(gm.locator("#log > li.kind-struck")).to_be_visible(timeout=LIVE)
        expect(gm.locator("#turn .reaction-window")).to_have_count(0, timeout=LIVE)
        expect(player.locator("form#action-pass_reaction")).to_have_count(0, timeout=LIVE)
        if shots:
            player.screenshot(path=f"{shots}/player-after.png", full_page=True)
    finally:
        app.state.dice = None


def test_away_and_back_and_the_turn_timer_in_two_browsers(new_context, live_server):
    """The host sets a 15 s turn timer and marks Paul away (the table waits): Paul's page
    shows it and offers « I am back »; he comes back. Then Paul, asked whether he climbs,
    does not answer: at zero a page asks the server, which checks its own clock and keeps
    his place, saying so in the log."""
    campaign = seat_campaign(live_server.url, system="mecha_ring", name="Timer",
                             characters=[("player", {"name": "Boulon",
                                                     "sheet": {**SHEET, "implants": 3}}),
                                         ("gm", {"name": "Rouille", "sheet": SHEET})])
    gm = log_in(new_context, campaign.gm)
    player = log_in(new_context, campaign.player)
    app = live_server.server.config.app
    app.state.dice = SeededDice(5)
    try:
        url = open_match(gm, campaign, "Chrono", ["Boulon", "Rouille"])
        player.goto(url)
        act(gm, "away", {"seat": "t1", "mode": "wait"})
        expect(player.locator("#participant-t1 .badge.away")).to_be_visible(timeout=LIVE)
        expect(player.locator("form#action-back")).to_be_visible(timeout=LIVE)
        act(player, "back")
        expect(gm.locator("#log > li.kind-seat_back")).to_be_visible(timeout=LIVE)
        expect(gm.locator("#participant-t1 .badge.away")).to_have_count(0, timeout=LIVE)
        act(gm, "set_timer", {"seconds": "15"})
        expect(player.locator("#turn-timer")).to_be_visible(timeout=LIVE)
        expect(player.locator("#log > li.kind-timed_out")).to_be_visible(timeout=25_000)
        expect(player.locator("#log > li.kind-timed_out")).to_contain_text(
            "they keep their place")
        expect(player.locator("#log > li.kind-climbed")).to_be_visible(timeout=LIVE)
    finally:
        app.state.dice = None


def test_on_a_phone_the_asked_player_is_taken_to_the_actions(new_context, live_server):
    """Paul on a phone (390×844) watches the table's state while the host strikes at him: a
    reaction window asks him, and his page opens the actions tab where its forms are. Opening
    the page while asked lands on the actions too; reading the journal, the actions tab
    carries « Your turn! »."""
    campaign = seat_campaign(live_server.url, system="mecha_ring", name="Phone",
                             characters=[("player", {"name": "Boulon",
                                                     "sheet": {**SHEET, "implants": 3}}),
                                         ("gm", {"name": "Rouille", "sheet": SHEET})])
    shots = os.environ.get("MECHA_SHOTS")
    gm = log_in(new_context, campaign.gm)
    player = log_in(new_context, campaign.player)
    player.set_viewport_size({"width": 390, "height": 844})
    app = live_server.server.config.app
    app.state.dice = SeededDice(3)
    try:
        url = open_match(gm, campaign, "Téléphone", ["Boulon", "Rouille"])
        act(gm, "correct", {"choice": "t2|credits", "value": "0"})
        player.goto(url)
        table = player.locator("#table")
        act(player, "climb")
        expect(gm.locator("form#action-attack")).to_be_visible(timeout=LIVE)
        player.locator("#tab-state").click()
        expect(table).to_have_attribute("data-tab", "state")
        expect(player.locator("#tab-actions .tab-turn")).to_be_hidden()
        act(gm, "attack", {"target": "t1"})
        expect(gm.locator("form#action-choose_part, form#action-decline_boost").first
               ).to_be_visible(timeout=LIVE)
        if gm.locator("form#action-decline_boost").count():
            act(gm, "decline_boost")
            act(player, "choose_part", {"slot": "tete"})
        else:
            act(gm, "choose_part", {"slot": "tete"})
        expect(table).to_have_attribute("data-tab", "actions", timeout=LIVE)
        expect(player.locator("form#action-pass_reaction")).to_be_in_viewport()
        expect(player.locator("#tab-actions")).to_have_attribute("aria-selected", "true")
        if shots:
            player.screenshot(path=f"{shots}/phone-asked-live.png")
        player.reload()
        expect(player.locator("#table")).to_have_attribute("data-tab", "actions")
        expect(player.locator("form#action-pass_reaction")).to_be_visible()
        player.locator("#tab-log").click()
        badge = player.locator("#tab-actions .tab-turn")
        expect(badge).to_be_visible()
        if shots:
            player.screenshot(path=f"{shots}/phone-asked-log.png")
        player.locator("#tab-actions").click()
        act(player, "pass_reaction")
        expect(player.locator("#log > li.kind-window_closed")).to_have_count(1, timeout=LIVE)
        expect(badge).to_be_hidden(timeout=LIVE)
    finally:
        app.state.dice = None
