"""The map tools a GM expects from the big tables (issue 28), in two browsers — the GM's and a
player's — at 1366×900 and 390×844: the fog of war drawn on the board reveals ground live for
the player, and a figure hidden there never reaches the player's page nor their API answer.
"""

from __future__ import annotations

from urllib.parse import urlparse

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.e2e.table import (
    LIVE,
    Campaign,
    api_user,
    bearer,
    log_in,
    open_match,
    seat_campaign,
)

DESKTOP = {"width": 1366, "height": 900}
PHONE = {"width": 390, "height": 844}
VIEWPORTS = pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
GOBLIN = "Gobelin du puits"


@pytest.fixture
def campaign(live_server) -> Campaign:
    return seat_campaign(live_server.url, system="libre", name="Le couloir sombre",
                         characters=[("player", {"name": "Aldo"})])


def api(live_server, username: str, method: str, path: str, **kwargs) -> httpx.Response:
    with httpx.Client(base_url=live_server.url, timeout=10) as client:
        return client.request(method, f"/api/v1{path}", headers=bearer(client, username),
                              **kwargs)


def api_act(live_server, username: str, path: str, action: dict) -> dict:
    answer = api(live_server, username, "POST", path + "/actions", json={"action": action})
    assert answer.status_code == 200, answer.text
    return answer.json()


def at_size(new_context, username: str, viewport: dict) -> Page:
    page = log_in(new_context, username)
    page.set_viewport_size(viewport)
    return page


def drag_on_board(page: Page, start: tuple[float, float], end: tuple[float, float]) -> None:
    """A pointer dragged between two places of the board, given in the board's unit."""
    corners = page.evaluate("""([a, b]) => {
        const svg = document.getElementById("board");
        const m = svg.getScreenCTM();
        return [a, b].map(([x, y]) => {
            const p = svg.createSVGPoint(); p.x = x; p.y = y;
            const s = p.matrixTransform(m); return [s.x, s.y]; });
    }""", [list(start), list(end)])
    (x0, y0), (x1, y1) = corners
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.mouse.move((x0 + x1) / 2, (y0 + y1) / 2, steps=4)
    page.mouse.move(x1, y1, steps=4)
    page.mouse.up()


def open_tool(page: Page, button: str) -> None:
    """Press a map tool's button in the board's toolbar (the board in view first: on a
    phone the toolbar is above it)."""
    page.locator(button).scroll_into_view_if_needed()
    page.locator(button).click()
    expect(page.locator(button)).to_have_attribute("aria-pressed", "true")


@VIEWPORTS
def test_the_fog_reveals_ground_live_and_a_hidden_figure_never_reaches_the_player(
        new_context, live_server, campaign, viewport):
    gm = at_size(new_context, campaign.gm, viewport)
    url = open_match(gm, campaign, "Le puits", ["Aldo"])
    path = urlparse(url).path
    api_act(live_server, campaign.gm, path, {"kind": "map_fog_reset", "base": "hidden"})
    api_act(live_server, campaign.gm, path, {"kind": "map_fog", "op": "reveal",
                                             "shape": "rect", "x": 0, "y": 0, "w": 60,
                                             "h": 40})
    api_act(live_server, campaign.gm, path, {"kind": "add_token", "name": GOBLIN,
                                             "hp_max": 6, "x": 100, "y": 65})
    player = at_size(new_context, campaign.player, viewport)
    player.goto(url)
    expect(player.locator("#table[data-live]")).to_have_count(1)
    expect(player.locator("#board .fog-layer")).to_have_count(1)
    expect(player.locator('#board .token[data-token="t1"]')).to_have_count(1)
    # The goblin is nowhere in the player's page, nor in their API answer.
    assert GOBLIN not in player.content()
    seen = api(live_server, campaign.player, "GET", path).json()
    assert "t2" not in seen["state"]["tokens"] and GOBLIN not in str(seen)

    # The GM sees it, dimmed in the fog, and reveals its ground with the board's fog tool.
    gm.goto(url)
    expect(gm.locator('#board .token.veil-fog[data-token="t2"]')).to_have_count(1)
    open_tool(gm, "#board-fog")
    drag_on_board(gm, (90, 55), (112, 76))
    expect(player.locator('#board .token[data-token="t2"]')).to_have_count(1, timeout=LIVE)
    expect(gm.locator('#board .token[data-token="t2"]')).not_to_have_class("veil-fog")
    expect(player.locator("#log")).to_contain_text("reveals part of the map")

    # Hidden from the players again: gone from the player's board, live.
    api_act(live_server, campaign.gm, path, {"kind": "map_veil", "token": "t2",
                                             "hidden": True})
    expect(player.locator('#board .token[data-token="t2"]')).to_have_count(0, timeout=LIVE)
    expect(gm.locator('#board .token.veil-veiled[data-token="t2"]')).to_have_count(1)
    assert "t2" not in api(live_server, campaign.player, "GET", path).json()["state"]["tokens"]


def undo_before(page: Page, kind: str) -> None:
    """The GM takes the table back to just before the first line of ``kind`` (the journal's
    « Undo to here » on the line before it; on a phone, behind the Log tab)."""
    tab = page.locator("#tab-log")
    if tab.is_visible():
        tab.click()
    first = page.locator(f'#log > li[data-kind="{kind}"]').first
    seq = int(first.get_attribute("data-seq"))
    page.once("dialog", lambda dialog: dialog.accept())
    page.locator(f"#event-{seq - 1} .undo-button").click()


@VIEWPORTS
def test_a_drawing_and_a_template_appear_for_the_other_and_are_undone(
        new_context, live_server, campaign, viewport):
    gm = at_size(new_context, campaign.gm, viewport)
    url = open_match(gm, campaign, "Le plan", ["Aldo"])
    player = at_size(new_context, campaign.player, viewport)
    player.goto(url)
    expect(player.locator("#table[data-live]")).to_have_count(1)

    # The player draws a line on the board: the GM sees it, live.
    open_tool(player, "#board-draw")
    player.locator("#map-toolrow-draw label", has_text="Line").click()
    player.locator("#map-toolrow-draw label", has_text="blue").click()
    drag_on_board(player, (20, 60), (70, 70))
    drawn = gm.locator("#board .drawing.colour-blue polyline")
    expect(drawn).to_have_count(1, timeout=LIVE)
    expect(gm.locator("#board-list")).to_contain_text("Line from 20, 60 to 70, 70 (blue)")

    # The GM lays a cone template from Aldo's place: the player sees it, its size in words.
    open_tool(gm, "#board-template")
    gm.locator("#map-toolrow-template label", has_text="Cone").click()
    drag_on_board(gm, (40.2, 30.3), (70.4, 30.1))
    template = player.locator("#board .template-drawing")
    expect(template).to_have_count(1, timeout=LIVE)
    expect(template.locator(".template-label")).to_have_text("cone 30 cm")
    expect(player.locator("#log")).to_contain_text("places an area template: a cone")

    # Undone like any event: both leave both boards.
    undo_before(gm, "drawing_added")
    expect(player.locator("#board .drawing")).to_have_count(0, timeout=LIVE)
    expect(gm.locator("#board .drawing")).to_have_count(0)


def tap_on_board(page: Page, place: tuple[float, float]) -> None:
    (x, y), = page.evaluate("""([x, y]) => {
        const svg = document.getElementById("board");
        const p = svg.createSVGPoint(); p.x = x; p.y = y;
        const s = p.matrixTransform(svg.getScreenCTM()); return [[s.x, s.y]]; }""", list(place))
    page.mouse.click(x, y)


@VIEWPORTS
def test_a_ping_pulses_on_the_others_board_and_the_board_brings_it_into_view(
        new_context, campaign, viewport):
    gm = at_size(new_context, campaign.gm, viewport)
    url = open_match(gm, campaign, "Le signal", ["Aldo"])
    player = at_size(new_context, campaign.player, viewport)
    player.goto(url)
    expect(player.locator("#table[data-live]")).to_have_count(1)
    expect(gm.locator("#table[data-live]")).to_have_count(1)

    open_tool(gm, "#board-ping")
    tap_on_board(gm, (100, 65))
    pulse = player.locator("#board .ping-pulse")
    expect(pulse).to_have_count(1, timeout=LIVE)
    expect(pulse.locator(".ping-name")).to_have_text(campaign.gm.split("-")[0].capitalize())
    expect(player.locator("#ping-notice")).to_contain_text("points at 100, 65")
    player.locator("#ping-show").click()
    centred = """() => { const svg = document.getElementById("board");
        const p = svg.createSVGPoint(); p.x = 100; p.y = 65;
        const s = p.matrixTransform(svg.getScreenCTM());
        const b = document.getElementById("board-frame").getBoundingClientRect();
        return Math.hypot(s.x - (b.left + b.width / 2), s.y - (b.top + b.height / 2)) < 4; }"""
    player.wait_for_function(centred)

    # By keyboard: the player types a place in the signal's row and sends it.
    open_tool(player, "#board-ping")
    player.locator("#ping-x").fill("20")
    player.locator("#ping-y").fill("30")
    player.locator("#ping-y").press("Enter")
    expect(gm.locator("#ping-notice")).to_contain_text("points at 20, 30", timeout=LIVE)


def another_player(live_server, campaign: Campaign) -> int:
    """A second player in the campaign (through the API); their account's id."""
    name = f"pia-{campaign.player.split('-')[1]}"
    with httpx.Client(base_url=live_server.url, timeout=10) as client:
        pia = api_user(client, name)
        invite = client.post(f"/api/v1/campaigns/{campaign.id}/invites",
                             headers=bearer(client, campaign.gm), json={"role": "player"}).json()
        assert client.post(f"/api/v1/invites/{invite['token']}/accept",
                           headers=pia).status_code == 200
        return client.get("/api/v1/me", headers=pia).json()["id"]


@VIEWPORTS
def test_a_handout_reaches_only_its_readers(new_context, live_server, campaign, viewport):
    pia = another_player(live_server, campaign)
    gm = at_size(new_context, campaign.gm, viewport)
    url = open_match(gm, campaign, "La lettre", ["Aldo"])
    path = urlparse(url).path
    player = at_size(new_context, campaign.player, viewport)
    player.goto(url)
    expect(player.locator("#table[data-live]")).to_have_count(1)

    # To Pia alone: nowhere in Paul's page, nor in his API answers.
    shared = api(live_server, campaign.gm, "POST", path + "/handouts",
                 data={"title": "Pour Pia seule", "text": "Le mot de passe est « ortie ».",
                       "to": [str(pia)]})
    assert shared.status_code == 200, shared.text
    # To Paul, by the GM's form on the page: it appears on his table, live, and opens there.
    gm.goto(url)
    gm.locator("#handout-share > summary").click()
    gm.fill("#handout-title", "Carte du moulin")
    gm.fill("#handout-text", "Le moulin est au nord du gué.")
    gm.locator('.handout-to input[value="everyone"]').uncheck()
    gm.locator(".handout-to label", has_text=campaign.player.split("-")[0].capitalize()).click()
    gm.locator("#handout-send").click()
    expect(gm.locator(".handout-list")).to_contain_text("Carte du moulin")
    tab = player.locator("#tab-state")
    if tab.is_visible():
        tab.click()
    link = player.locator("a.handout-link", has_text="Carte du moulin")
    expect(link).to_have_count(1, timeout=LIVE)
    link.click()
    dialog = player.locator("#handout-dialog")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("Le moulin est au nord du gué.")
    player.keyboard.press("Escape")
    expect(dialog).not_to_be_visible()
    assert "Pour Pia seule" not in player.content()
    seen = api(live_server, campaign.player, "GET", path + "/handouts").json()
    assert [item["title"] for item in seen] == ["Carte du moulin"]
    assert "Pour Pia seule" not in str(api(live_server, campaign.player, "GET",
                                           path + "/log").json())


@VIEWPORTS
def test_the_players_screen_follows_the_table_to_another_scene(new_context, live_server,
                                                                campaign, viewport):
    gm = at_size(new_context, campaign.gm, viewport)
    url = open_match(gm, campaign, "Le voyage", ["Aldo"])
    path = urlparse(url).path
    api_act(live_server, campaign.gm, path, {"kind": "add_token", "name": GOBLIN,
                                             "hp_max": 6, "x": 100, "y": 65})
    player = at_size(new_context, campaign.player, viewport)
    player.goto(url)
    expect(player.locator('#board .token[data-token="t2"]')).to_have_count(1)

    # The GM prepares the cave in secret, then takes the table there with Aldo alone.
    gm.goto(url)
    act_form = gm.locator("#action-panel details.action-map-tools")
    act_form.locator("> summary").click()
    gm.locator("details.action-map_scene_add > summary").click()
    gm.fill("#map_scene_add-current", "Le gué")
    gm.fill("#map_scene_add-name", "La grotte")
    gm.locator("#action-map_scene_add-submit").click()
    expect(player.locator("#scene-caption")).to_have_text("Scene: Le gué", timeout=LIVE)
    assert "La grotte" not in player.content()
    gm.locator("details.action-map_scene_show > summary").click()
    gm.locator("#map_scene_show-along-t2").uncheck()
    gm.locator("#action-map_scene_show-submit").click()
    expect(player.locator("#scene-caption")).to_have_text("Scene: La grotte", timeout=LIVE)
    expect(player.locator('#board .token[data-token="t2"]')).to_have_count(0)
    expect(player.locator('#board .token[data-token="t1"]')).to_have_count(1)
    expect(player.locator("#log")).to_contain_text("takes the table to « La grotte »")
    expect(gm.locator('#board .token[data-token="t2"]')).to_have_count(0)  # waits at the ford
