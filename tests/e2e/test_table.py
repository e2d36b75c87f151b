"""Two people at one live table, in two Chromium profiles: Mia (GM) and Paul (Aldo's player).

The accounts, the campaign, the invitation and Aldo are made through the JSON API (fast); the
match itself is played through the pages, each browser seeing the other's actions live.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass

import httpx
import pytest
from playwright.sync_api import Page, expect

PASSWORD = "correct horse battery"
LIVE = 2_000  # ms: what the other browser may take to show an action


@dataclass
class Campaign:
    id: int
    gm: str
    player: str


def _api_user(client: httpx.Client, username: str) -> dict[str, str]:
    response = client.post("/api/v1/auth/register", json={
        "username": username, "password": PASSWORD, "display_name": username.split("-")[0]
        .capitalize(), "locale": "en"})
    assert response.status_code == 201, response.text
    token = client.post("/api/v1/auth/login", json={"username": username,
                                                    "password": PASSWORD}).json()["token"]
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def campaign(live_server) -> Campaign:
    suffix = uuid.uuid4().hex[:8]
    gm, player = f"mia-{suffix}", f"paul-{suffix}"
    with httpx.Client(base_url=live_server.url, timeout=10) as client:
        gm_auth, player_auth = _api_user(client, gm), _api_user(client, player)
        created = client.post("/api/v1/campaigns", headers=gm_auth,
                              json={"name": "La Tablée", "system": "libre"}).json()
        invite = client.post(f"/api/v1/campaigns/{created['id']}/invites", headers=gm_auth,
                             json={"role": "player"}).json()
        accepted = client.post(f"/api/v1/invites/{invite['token']}/accept", headers=player_auth)
        assert accepted.status_code == 200, accepted.text
        aldo = client.post(f"/api/v1/campaigns/{created['id']}/characters",
                           headers=player_auth, json={"name": "Aldo"})
        assert aldo.status_code == 201, aldo.text
    return Campaign(created["id"], gm, player)


def log_in(new_context, username: str) -> Page:
    page = new_context(locale="en-GB").new_page()
    page.goto("/login")
    page.fill("#field-username", username)
    page.fill("#field-password", PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page).not_to_have_url(re.compile("/login"))
    return page


def open_match(gm: Page, campaign: Campaign) -> str:
    gm.goto(f"/campaigns/{campaign.id}/matches")
    gm.fill("#field-name", "Escarmouche")
    gm.get_by_label("Aldo").check()
    gm.get_by_role("button", name="Start the match").click()
    expect(gm.locator("h1")).to_have_text("Escarmouche")
    return gm.url


def token(page: Page, token_id: str):
    return page.locator(f'#board .token[data-token="{token_id}"]')


def act(page: Page, kind: str, fields: dict[str, str] | None = None) -> None:
    """Fill and send one of the action panel's forms (opening its card if folded)."""
    form = page.locator(f"form#action-{kind}")
    card = page.locator(f"details.action-{kind}")
    if card.count() and not card.evaluate("element => element.open"):
        card.locator("summary").click()
    for name, value in (fields or {}).items():
        field = form.locator(f'[name="{name}"]')
        if field.evaluate("element => element.tagName") == "SELECT":
            field.select_option(value)
        else:
            field.fill(value)
    form.locator('button[type="submit"]').click()


def test_two_browsers_play_a_libre_match_live(new_context, campaign):
    gm = log_in(new_context, campaign.gm)
    player = log_in(new_context, campaign.player)
    url = open_match(gm, campaign)
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
    player.mouse.click(board["x"] + board["width"] * 0.8, board["y"] + board["height"] * 0.25)
    expect(token(gm, "t1")).not_to_have_attribute("data-x", dropped[0], timeout=LIVE)
    tapped = token(gm, "t1").get_attribute("data-x")
    assert 90 <= int(tapped) <= 102

    # Mia undoes back to before the moves, then redoes them.
    first_move = gm.locator("#log > li.kind-token_moved").first
    before_moves = int(first_move.get_attribute("data-seq")) - 1
    gm.locator(f"#event-{before_moves} form.undo button").click()
    expect(player.locator("#log > li.kind-token_moved.reverted")).to_have_count(2,
                                                                              timeout=LIVE)
    expect(token(player, "t1")).to_have_attribute("data-x", start_x, timeout=LIVE)
    gm.locator("#redo").click()
    expect(token(player, "t1")).to_have_attribute("data-x", tapped, timeout=LIVE)
    expect(player.locator("#log > li.kind-token_moved.reverted")).to_have_count(0)

    # The replay steps through it all, event by event.
    gm.get_by_role("link", name="Replay").click()
    expect(gm.locator(".replay-position")).to_have_text(re.compile(r"Event 1 of \d+"))
    gm.locator("#replay-next").click()
    expect(gm.locator(".replay-position")).to_have_text(re.compile(r"Event 2 of \d+"))
    expect(gm.locator("#participant-t1")).to_be_visible()
    gm.locator("#replay-last").click()
    expect(gm.locator(".replay-event .log-line")).to_have_class(re.compile("kind-redo"))
