"""Two people at one live table, in two Chromium profiles: Mia (GM) and Paul (Aldo's player).

The accounts, the campaign, the invitation and Aldo are made through the JSON API (fast); the
match itself is played through the pages, each browser seeing the other's actions live.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.table import LIVE, Campaign, act, log_in, open_match, seat_campaign, token


@pytest.fixture
def campaign(live_server) -> Campaign:
    return seat_campaign(live_server.url, system="libre", name="La Tablée",
                         characters=[("player", {"name": "Aldo"})])


def test_two_browsers_play_a_libre_match_live(new_context, campaign):
    gm = log_in(new_context, campaign.gm)
    player = log_in(new_context, campaign.player)
    url = open_match(gm, campaign, "Escarmouche", ["Aldo"])
    player.goto(url)
    expect(player.locator("#participant-t1 .participant-name")).to_have_text("Aldo")

    # Paul rolls; Mia sees the line, its dice one click away.
    act(player, "roll", {"expression": "2d6+1", "purpose": "dégâts"})
    line = gm.locator("#log > li.kind-rolled").last
    expect(line).to_be_visible(timeout=LIVE)
    expect(line.locator(".log-text")).to_contain_text("rolls 2d6+1")
    line.locator("details.dice summary").click()
    expect(line.locator(".faces li.die")).to_have_count(2)

    # Mia brings a goblin, rolls initiative for everyone and starts the round.
    act(gm, "add_token", {"name": "Gobelin", "hp_max": "6", "x": "60", "y": "40"})
    expect(token(player, "t2")).to_be_visible(timeout=LIVE)
    act(gm, "roll_initiative")
    expect(player.locator("#log > li.kind-initiative_rolled")).to_have_count(2, timeout=LIVE)
    act(gm, "set_initiative", {"token": "t1", "value": "30"})  # Aldo goes first
    expect(player.locator("#participant-t1 .initiative-value")).to_have_text("30", timeout=LIVE)
    act(gm, "next_turn")
    expect(player.locator("#turn .round")).to_have_text("Round 1", timeout=LIVE)
    expect(player.locator('.initiative > li[aria-current="true"]')).to_have_id("participant-t1")

    # His turn: Paul's panel now offers to end it, and his forms follow the table's seq.
    act(player, "roll", {"expression": "2d"})
    expect(player.locator("form#action-roll .form-error[role=alert]")).to_contain_text(
        "expression")
    act(player, "next_turn")
    expect(gm.locator("#turn .current-turn")).to_have_text("Gobelin's turn", timeout=LIVE)
    expect(player.locator("#turn .current-turn")).to_have_text("Gobelin's turn", timeout=LIVE)

    # Paul drags Aldo across the board; Mia's board shows him where he was dropped.
    aldo = token(player, "t1")
    start_x = aldo.get_attribute("data-x")
    player.locator("#board").scroll_into_view_if_needed()
    box = aldo.locator("circle.piece").bounding_box()
    board = player.locator("#board").bounding_box()
    start = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    player.mouse.move(*start)
    player.mouse.down()
    player.mouse.move(board["x"] + board["width"] * 0.4, board["y"] + board["height"] * 0.5,
                      steps=8)
    player.mouse.up()
    expect(player.locator("#board-alert")).to_be_empty()
    expect(aldo).not_to_have_attribute("data-x", start_x, timeout=LIVE)
    dropped = (aldo.get_attribute("data-x"), aldo.get_attribute("data-y"))
    assert 40 <= int(dropped[0]) <= 56 and 36 <= int(dropped[1]) <= 44
    expect(token(gm, "t1")).to_have_attribute("data-x", dropped[0], timeout=LIVE)
    expect(token(gm, "t1")).to_have_attribute("data-y", dropped[1])

    # A drag that ends after the table moved on is refused with the reason; Aldo stays put.
    box = aldo.locator("circle.piece").bounding_box()
    player.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    player.mouse.down()
    player.mouse.move(board["x"] + board["width"] * 0.6, board["y"] + board["height"] * 0.7,
                      steps=4)
    act(gm, "note", {"text": "Un corbeau passe."})
    expect(player.locator("#log > li.kind-note_added")).to_have_count(1, timeout=LIVE)
    player.mouse.up()
    expect(player.locator("#board-alert")).to_contain_text("moved on", timeout=LIVE)
    expect(aldo).to_have_attribute("data-x", dropped[0])
    expect(token(gm, "t1")).to_have_attribute("data-x", dropped[0])

    # On a phone: tap Aldo, then tap where he goes.
    token(player, "t1").locator("circle.piece").click()
    expect(token(player, "t1")).to_have_attribute("aria-pressed", "true")
    where = (board["x"] + board["width"] * 0.8, board["y"] + board["height"] * 0.25)
    aimed = player.evaluate("""([x, y]) => { const svg = document.getElementById("board");
        return Math.round(new DOMPoint(x, y).matrixTransform(svg.getScreenCTM().inverse()).x);
    }""", list(where))  # the board's own unit under the tap (its rulers' margin included)
    player.mouse.click(*where)
    expect(token(gm, "t1")).to_have_attribute("data-x", str(aimed), timeout=LIVE)

    # Mia undoes back to before the moves, then redoes them.
    first_move = gm.locator("#log > li.kind-token_moved").first
    before_moves = int(first_move.get_attribute("data-seq")) - 1
    later = gm.locator("#log > li.log-line").evaluate_all(
        f"lines => lines.filter(line => Number(line.dataset.seq) > {before_moves}).length")
    asked = []
    gm.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    gm.locator(f"#event-{before_moves} form.undo button").click()  # asked, then called off
    assert asked == [f"Take back {later} events (everything after #{before_moves})?"]
    expect(player.locator("#log > li.kind-token_moved")).to_have_count(2)
    expect(gm.locator("#log > li.reverted")).to_have_count(0)
    gm.once("dialog", lambda dialog: dialog.accept())
    gm.locator(f"#event-{before_moves} form.undo button").click()
    expect(player.locator("#log > li.kind-token_moved.reverted")).to_have_count(2,
                                                                              timeout=LIVE)
    expect(token(player, "t1")).to_have_attribute("data-x", start_x, timeout=LIVE)
    gm.locator("#redo").click()
    expect(token(player, "t1")).to_have_attribute("data-x", str(aimed), timeout=LIVE)
    expect(player.locator("#log > li.kind-token_moved.reverted")).to_have_count(0)

    # The replay steps through it all, event by event.
    gm.get_by_role("link", name="Replay").click()
    expect(gm.locator(".replay-position")).to_have_text(re.compile(r"Event 1 of \d+"))
    gm.locator("#replay-next").click()
    expect(gm.locator(".replay-position")).to_have_text(re.compile(r"Event 2 of \d+"))
    expect(gm.locator("#participant-t1")).to_be_visible()
    gm.locator("#replay-last").click()
    expect(gm.locator(".replay-event .log-line")).to_have_class(re.compile("kind-redo"))
