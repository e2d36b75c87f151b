"""The play screen as a group sees it: the board in the first screen, the journal at its newest
entry after many actions, and a live update that never erases what someone is typing nor takes
their focus (issue 10, issue 15's first point). Desktop 1366×900 and phone 390×844."""

from __future__ import annotations

import re

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.e2e.table import LIVE, PASSWORD, Campaign, act, log_in, open_match, seat_campaign

DESKTOP = {"width": 1366, "height": 900}
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def campaign(live_server) -> Campaign:
    return seat_campaign(live_server.url, system="libre", name="La Tablée",
                         characters=[("player", {"name": "Aldo"}),
                                     ("gm", {"name": "Gobelin des cavernes profondes"})])


def api_act(base_url: str, username: str, match_path: str, action: dict) -> None:
    with httpx.Client(base_url=base_url, timeout=10) as client:
        token = client.post("/api/v1/auth/login", json={"username": username,
                                                        "password": PASSWORD}).json()["token"]
        answer = client.post(f"/api/v1{match_path}/actions", json={"action": action},
                             headers={"Authorization": f"Bearer {token}"})
        assert answer.status_code == 200, answer.text


def in_first_screen(page: Page, selector: str) -> None:
    """Wholly inside the viewport with the page scrolled to the top."""
    expect(page.locator("#table[data-live]")).to_have_count(1)  # not mid-swap
    page.evaluate("window.scrollTo(0, 0)")
    box = page.locator(selector).bounding_box()
    size = page.viewport_size
    assert box is not None and box["width"] > size["width"] * 0.5, box
    assert box["y"] >= 0 and box["y"] + box["height"] <= size["height"], (box, size)


def newest_line_visible(page: Page) -> None:
    last = page.locator("#log > li.log-line").last
    expect(last).to_be_in_viewport()
    # Seen in the journal's own scroll box too, not only in the page.
    inside = last.evaluate("""line => { const log = line.closest('#log').getBoundingClientRect();
        const box = line.getBoundingClientRect();
        return box.top >= log.top - 1 && box.bottom <= log.bottom + 1; }""")
    assert inside


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_board_first_and_journal_at_its_newest_after_30_actions(new_context, campaign,
                                                                live_server, viewport):
    gm = log_in(new_context, campaign.gm)
    url = open_match(gm, campaign, "Escarmouche", ["Aldo", "Gobelin des cavernes profondes"])
    player = new_context(locale="fr-FR", viewport=viewport, has_touch=viewport is PHONE).new_page()
    player.goto("/login")
    player.fill("#field-username", campaign.player)
    player.fill("#field-password", PASSWORD)
    player.press("#field-password", "Enter")
    expect(player).not_to_have_url(re.compile("/login"))
    player.goto(url)
    in_first_screen(player, "#board")
    # A long name is whole where there is room (issue 23); the tooltip has it too.
    goblin = player.locator('#board .token[data-name="Gobelin des cavernes profondes"]')
    expect(goblin.locator(".token-label")).to_have_text("Gobelin des cavernes profondes")
    expect(goblin.locator("title")).to_contain_text("Gobelin des cavernes profondes")
    if viewport is PHONE:  # the journal is one tap away
        player.locator("#tab-log").click()
    path = url.split(live_server.url, 1)[-1]
    for number in range(30):
        api_act(live_server.url, campaign.gm, path, {"kind": "note", "text": f"Note {number + 1}"})
    expect(player.locator("#log > li.kind-note_added")).to_have_count(30, timeout=10_000)
    expect(player.locator("#log > li.log-line").last).to_contain_text("Note 30")
    newest_line_visible(player)
    expect(player.locator("#log-news")).to_be_hidden()

    # A reader who scrolled up stays where they are; a button brings the new entries back.
    player.locator("#log").hover()
    player.mouse.wheel(0, -5000)
    player.wait_for_timeout(300)
    assert player.locator("#log").evaluate("log => log.scrollTop") < 50
    api_act(live_server.url, campaign.gm, path, {"kind": "note", "text": "Note 31"})
    expect(player.locator("#log-news")).to_be_visible(timeout=LIVE)
    assert player.locator("#log").evaluate("log => log.scrollTop") < 50
    player.locator("#log-news").click()
    newest_line_visible(player)
    expect(player.locator("#log-news")).to_be_hidden()
    in_first_screen(player, "#board")


def test_a_live_update_keeps_what_is_typed_and_the_focus(new_context, campaign):
    gm = log_in(new_context, campaign.gm)
    url = open_match(gm, campaign, "Escarmouche", ["Aldo"])
    player = log_in(new_context, campaign.player)
    player.set_viewport_size(DESKTOP)
    player.goto(url)
    expression = player.locator("#roll-expression")
    expression.click()
    expression.type("4d6kh3")
    player.locator("#roll-purpose").fill("Perception")
    expression.focus()
    expression.press("ArrowLeft")  # the caret between "kh" and "3"
    assert expression.evaluate("field => [field.selectionStart, field.selectionEnd]") == [5, 5]

    # Mia acts three times; each changes Paul's table and forms (a new token, the turn).
    act(gm, "add_token", {"name": "Gobelin", "hp_max": "6", "x": "60", "y": "40"})
    expect(player.locator('#board .token[data-token="t2"]')).to_be_visible(timeout=LIVE)
    act(gm, "roll_initiative")
    expect(player.locator("#log > li.kind-initiative_rolled")).to_have_count(2, timeout=LIVE)
    act(gm, "next_turn")
    expect(player.locator("#turn .round")).to_have_text("Round 1", timeout=LIVE)

    expect(expression).to_have_value("4d6kh3")
    expect(player.locator("#roll-purpose")).to_have_value("Perception")
    expect(expression).to_be_focused()
    assert expression.evaluate("field => [field.selectionStart, field.selectionEnd]") == [5, 5]
    # And it still rolls what was typed, from where the caret was.
    expression.press("End")
    expression.press("Enter")
    line = gm.locator("#log > li.kind-rolled").last
    expect(line).to_contain_text("4d6kh3", timeout=LIVE)
    expect(line).to_contain_text("Perception")


def test_zoom_pan_and_a_drag_at_any_zoom(new_context, campaign):
    gm = log_in(new_context, campaign.gm)
    url = open_match(gm, campaign, "Escarmouche", ["Aldo"])
    player = log_in(new_context, campaign.player)
    player.set_viewport_size(DESKTOP)
    player.goto(url)
    expect(player.locator("#table[data-live]")).to_have_count(1)
    aldo = player.locator('#board .token[data-token="t1"]')
    piece = aldo.locator("circle.piece")
    box = piece.bounding_box()
    before = box["width"]
    # The wheel zooms about the pointer: Aldo stays under it.
    player.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2 + 60)
    for _ in range(5):
        player.mouse.wheel(0, -100)
        player.wait_for_timeout(100)
    player.wait_for_timeout(300)
    after = piece.bounding_box()["width"]
    assert after > before * 1.3, (before, after)
    in_view = piece.bounding_box()
    frame = player.locator("#board-frame").bounding_box()
    assert in_view["y"] >= frame["y"], (in_view, frame)
    # The buttons zoom too.
    player.locator("#board-zoom-in").click()
    player.wait_for_timeout(400)
    assert piece.bounding_box()["width"] > after * 1.1
    player.locator("#board-zoom-out").click()
    player.wait_for_timeout(400)
    assert abs(piece.bounding_box()["width"] - after) < 1

    # A drag at this zoom lands where the finger was let go, in the board's own unit.
    radius = float(piece.get_attribute("r"))
    per_unit = after / (2 * radius)
    start_x = int(aldo.get_attribute("data-x"))
    box = piece.bounding_box()
    centre = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    player.mouse.move(*centre)
    player.mouse.down()
    player.mouse.move(centre[0] + 12 * per_unit, centre[1], steps=6)
    player.mouse.up()
    expect(aldo).not_to_have_attribute("data-x", str(start_x), timeout=LIVE)
    landed = int(aldo.get_attribute("data-x"))
    assert abs(landed - (start_x + 12)) <= 1, (start_x, landed)

    # Dragging the empty board pans the view (the token does not move); "Fit" puts it back.
    moved = aldo.locator("circle.piece").bounding_box()
    board = player.locator("#board-frame").bounding_box()
    player.mouse.move(board["x"] + 20, board["y"] + board["height"] - 20)
    player.mouse.down()
    player.mouse.move(board["x"] + 120, board["y"] + board["height"] - 20, steps=5)
    player.mouse.up()
    player.wait_for_timeout(200)
    panned = aldo.locator("circle.piece").bounding_box()
    assert abs(panned["x"] - moved["x"] - 100) < 5, (moved, panned)
    expect(aldo).to_have_attribute("data-x", str(landed))
    player.locator("#board-fit").click()
    player.wait_for_timeout(400)
    assert abs(aldo.locator("circle.piece").bounding_box()["width"] - before) < 1

    # With the ruler on, a drag on the board measures instead of panning.
    player.locator("#board-ruler").click()
    expect(player.locator("#board-ruler")).to_have_attribute("aria-pressed", "true")
    player.mouse.move(board["x"] + 20, board["y"] + 40)
    player.mouse.down()
    player.mouse.move(board["x"] + 220, board["y"] + 40, steps=5)
    expect(player.locator("#ruler")).to_have_class(re.compile("active"))
    expect(player.locator("#ruler text")).to_have_text(re.compile(r"^\d+\.\d "))
    player.mouse.up()


def test_a_token_moves_by_keyboard_alone_and_escape_puts_it_back(new_context, campaign):
    """Issue 15: Tab to one's token, Enter picks it up, arrows carry it a square at a time
    while the ruler and a status line say where, Enter puts it down (the same move a drag
    sends), Escape puts it back; the board lists every figure with its place."""
    gm = log_in(new_context, campaign.gm)
    url = open_match(gm, campaign, "Escarmouche", ["Aldo", "Gobelin des cavernes profondes"])
    player = log_in(new_context, campaign.player)
    player.set_viewport_size(DESKTOP)
    player.goto(url)
    expect(player.locator("#table[data-live]")).to_have_count(1)
    expect(player.locator("#board-list li")).to_have_count(2)
    expect(player.locator("#board-list")).to_contain_text("Gobelin des cavernes profondes at")
    aldo = player.locator('#board .token[data-token="t1"]')
    start_x, start_y = int(aldo.get_attribute("data-x")), int(aldo.get_attribute("data-y"))
    step = float(player.locator("#board").get_attribute("data-step"))

    aldo.focus()
    player.keyboard.press("Enter")
    player.keyboard.press("ArrowRight")
    player.keyboard.press("ArrowRight")
    expect(player.locator("#board-status")).to_contain_text(f"{start_x + 2 * step:g}, {start_y}")
    expect(player.locator("#ruler")).to_have_class(re.compile("active"))
    player.keyboard.press("Escape")  # put back: nothing sent
    expect(aldo).to_have_attribute("transform", f"translate({start_x} {start_y})")

    aldo.focus()
    player.keyboard.press("Enter")
    player.keyboard.press("ArrowDown")
    player.keyboard.press("Enter")
    expect(aldo).to_have_attribute("data-y", f"{start_y + step:g}", timeout=LIVE)
    expect(gm.locator("#log > li.kind-token_moved").last).to_contain_text("Aldo", timeout=LIVE)
    expect(player.locator('#board .token[data-token="t1"]')).to_be_focused()


def test_a_refused_action_marks_the_field_it_names(new_context, campaign):
    """Issue 15: the error of a refused action is linked to its field (aria-invalid,
    aria-describedby), whatever the game's form looks like."""
    gm = log_in(new_context, campaign.gm)
    open_match(gm, campaign, "Escarmouche", ["Aldo"])
    # Past the browser's own check (max=), as an old browser or a script would send it.
    gm.locator("#action-add_token").evaluate("form => { form.noValidate = true; }")
    act(gm, "add_token", {"name": "Géant", "hp_max": "10", "x": "100000", "y": "10"})
    error = gm.locator("#action-add_token-error")
    expect(error).to_be_visible(timeout=LIVE)
    field = gm.locator('#action-add_token [name="x"]')
    expect(field).to_have_attribute("aria-invalid", "true")
    expect(field).to_have_attribute("aria-describedby", re.compile("action-add_token-error"))
    expect(gm.locator('#action-add_token [name="name"]')).not_to_have_attribute(
        "aria-invalid", "true")


def test_the_turn_coming_to_a_player_is_announced(new_context, campaign):
    """Issue 15: « À vous de jouer » is said (a status region outside the redrawn panel)
    when the turn comes to the player's own token, and shown in the panel."""
    gm = log_in(new_context, campaign.gm)
    url = open_match(gm, campaign, "Escarmouche", ["Aldo"])
    player = log_in(new_context, campaign.player)
    player.set_viewport_size(DESKTOP)
    player.goto(url)
    expect(player.locator("#table[data-live]")).to_have_count(1)
    expect(player.locator("#turn-status")).to_have_text("")
    act(gm, "roll_initiative")
    # The GM's panel is redrawn after each action: the next form is the fresh one.
    expect(gm.locator("#log > li.kind-initiative_rolled")).to_have_count(1, timeout=LIVE)
    act(gm, "next_turn")
    expect(player.locator("#turn-status")).to_have_text("Your turn!", timeout=LIVE)
    expect(player.locator("#action-panel .your-turn")).to_be_visible()
    expect(gm.locator("#action-panel .your-turn")).to_have_count(0)  # the GM is told nothing


def test_an_undo_updates_the_journal_in_place(new_context, campaign):
    """Issue 15: an undo strikes the taken-back lines through where they are, so a screen
    reader's log hears only what changed (the lines before it stay the same elements)."""
    gm = log_in(new_context, campaign.gm)
    url = open_match(gm, campaign, "Escarmouche", ["Aldo"])
    player = log_in(new_context, campaign.player)
    player.goto(url)
    expect(player.locator("#table[data-live]")).to_have_count(1)
    act(gm, "roll_initiative")
    expect(gm.locator("#log > li.kind-initiative_rolled")).to_have_count(1, timeout=LIVE)
    act(gm, "next_turn")
    expect(player.locator("#log > li.log-line")).to_have_count(4, timeout=LIVE)
    first = player.locator("#log > li.log-line").first
    first.evaluate("line => { line.dataset.seen = 'before the undo'; }")

    gm.on("dialog", lambda dialog: dialog.accept())  # « Annuler 1 événement ? »
    gm.locator("#log > li.log-line").nth(1).locator("button.undo-button").click()
    expect(player.locator("#log > li.log-line.reverted").first).to_be_attached(timeout=LIVE)
    expect(first).not_to_have_class(re.compile("reverted"))
    expect(first).to_have_attribute("data-seen", "before the undo")  # not redrawn


# The page's requests to the actions route wait until the test lets them go (an XHR held in
# the page, as a slow network would hold it); the odds of the same form pass.
HOLD_ACTIONS = """
const open = XMLHttpRequest.prototype.open;
const send = XMLHttpRequest.prototype.send;
const held = [];
XMLHttpRequest.prototype.open = function (method, url, ...rest) {
  this.heldUrl = String(url);
  return open.call(this, method, url, ...rest);
};
XMLHttpRequest.prototype.send = function (body) {
  if (this.heldUrl.endsWith("/actions")) held.push(() => send.call(this, body));
  else send.call(this, body);
};
window.heldActions = () => held.length;
window.releaseActions = () => held.splice(0).forEach((go) => go());
"""


def test_a_refusal_for_a_form_a_live_update_replaced_lands_in_the_panel(new_context, campaign):
    """Paul sends a roll; before it reaches the server, Mia's action redraws his panel live
    (the form he sent is no longer in the page), so the server refuses the roll as stale.
    The refusal still lands in his panel, by the roll form, and his console stays clean
    (htmx looked for the panel from the form gone: « Invalid re-target #action-panel »)."""
    gm = log_in(new_context, campaign.gm)
    url = open_match(gm, campaign, "Escarmouche", ["Aldo"])
    player = log_in(new_context, campaign.player)
    player.add_init_script(HOLD_ACTIONS)
    player.goto(url)
    expect(player.locator("#table[data-live]")).to_have_count(1)
    act(player, "roll", {"expression": "1d6"})
    assert player.evaluate("window.heldActions()") == 1
    sent = player.locator("form#action-roll")
    sent.evaluate("form => { form.dataset.sent = 'true'; }")

    act(gm, "add_token", {"name": "Gobelin", "hp_max": "6", "x": "60", "y": "40"})
    expect(player.locator('#board .token[data-token="t2"]')).to_be_visible(timeout=LIVE)
    expect(player.locator("form#action-roll[data-sent]")).to_have_count(0)  # redrawn
    player.evaluate("window.releaseActions()")

    error = player.locator("#action-panel form#action-roll .form-error[role=alert]")
    expect(error).to_contain_text("The table moved on", timeout=LIVE)
    expect(gm.locator("#log > li.kind-rolled")).to_have_count(0)
