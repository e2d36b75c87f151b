"""The board read at a glance (issue 23), on each board game's demo, at 1366×900 and 390×844:
every token's name in full where there is room and never over another's, every token's
health on it, a dead or out token marked (not by colour alone); a refused move says the
distance asked for; the reach shows while a token is in hand; a tap that moves nothing says
why."""

from __future__ import annotations

import re
from dataclasses import dataclass

import httpx
import pytest
from playwright.sync_api import Page, expect

from app.services.demo import DEMO_PASSWORD, GM_USERNAME, ensure_demo
from tests.e2e.table import LIVE

DESKTOP = {"width": 1366, "height": 900}
PHONE = {"width": 390, "height": 844}
VIEWPORTS = pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])

# What puts one figure of each demo out of the fight or dead (the GM's own tools), and how
# the board must then mark it.
DOWN = {
    "libre": ({"kind": "adjust_hp", "token": "t3", "delta": -99}, "t3", "out"),
    # Grosbaf's one lobe lost: dead (§ 1-5 Dégâts). A sponged mutant leaves the arena.
    "mutatior": ({"kind": "gm_correct", "limb": "m3:tête", "organ": "lobes", "lost": 1}, "m3",
                 "dead"),
    "cyborg": ({"kind": "set_state", "token": "t5", "state": "dead", "on": "1"}, "t5", "dead"),
    "chasse": ({"kind": "correct", "token": "t6", "field": "wounds", "value": 1}, "t6", "dead"),
}

OVERLAPS = """() => {
    const boxes = Array.from(document.querySelectorAll("#board .token .token-label"))
        .map((label) => [label.closest(".token").dataset.token, label.getBoundingClientRect()]);
    const hits = [];
    boxes.forEach(([a, one], i) => boxes.slice(i + 1).forEach(([b, two]) => {
        if (one.left < two.right && two.left < one.right && one.top < two.bottom
            && two.top < one.bottom) hits.push(`${a}/${b}`);
    }));
    return {hits, count: boxes.length,
            empty: boxes.filter(([, box]) => box.width < 1 || box.height < 1).length};
}"""


@dataclass
class Demo:
    campaign: int
    match: int
    headers: dict[str, str]

    @property
    def path(self) -> str:
        return f"/campaigns/{self.campaign}/matches/{self.match}"


@pytest.fixture(scope="module")
def demos(live_server) -> dict[str, Demo]:
    ensure_demo(live_server.app.state.settings)
    found = {}
    with httpx.Client(base_url=live_server.url, timeout=10) as client:
        token = client.post("/api/v1/auth/login", json={
            "username": GM_USERNAME, "password": DEMO_PASSWORD}).json()["token"]
        headers = {"Authorization": f"Bearer {token}"}
        for campaign in client.get("/api/v1/campaigns", headers=headers).json():
            if campaign["name"].startswith("Démo") and campaign["system"] in DOWN:
                matches = client.get(f"/api/v1/campaigns/{campaign['id']}/matches",
                                     headers=headers).json()
                found[campaign["system"]] = Demo(campaign["id"], matches[0]["id"], headers)
    assert set(found) == set(DOWN)
    return found


def gm_at(new_context, viewport, demo: Demo) -> Page:
    page = new_context(locale="fr-FR", viewport=viewport,
                       has_touch=viewport is PHONE).new_page()
    page.goto("/login")
    page.fill("#field-username", GM_USERNAME)
    page.fill("#field-password", DEMO_PASSWORD)
    page.press("#field-password", "Enter")
    expect(page).not_to_have_url(re.compile("/login"))
    page.goto(demo.path)
    expect(page.locator("#table[data-live]")).to_have_count(1)
    return page


def api(live_server, demo: Demo, route: str, body: dict) -> dict:
    with httpx.Client(base_url=live_server.url, timeout=10) as client:
        answer = client.post(f"/api/v1{demo.path}/{route}", json=body, headers=demo.headers)
        assert answer.status_code == 200, answer.text
        return answer.json()


def labels_apart(page: Page) -> None:
    found = page.evaluate(OVERLAPS)
    assert found["count"] == page.locator("#board .token").count() > 0
    assert found["empty"] == 0 and found["hits"] == [], found


@pytest.mark.parametrize("system", list(DOWN))
@VIEWPORTS
def test_names_apart_health_on_every_token_and_the_fallen_marked(
        new_context, live_server, demos, system, viewport):
    demo = demos[system]
    page = gm_at(new_context, viewport, demo)
    labels_apart(page)
    tokens = page.locator("#board .token")
    for index in range(tokens.count()):
        token = tokens.nth(index)
        expect(token.locator(".health")).to_have_count(1)  # the ring, on every token
        expect(token.locator(".health-track")).to_be_visible()
        # Its state is said in words too: the tooltip and the accessible name.
        assert " — " in token.get_attribute("aria-label")
    # The names are whole where there is room: no demo figure needs cutting.
    assert page.locator("#board .token-label.short").count() == 0

    action, token_id, condition = DOWN[system]
    before = page.locator("#table-state [data-seq]").first.get_attribute("data-seq")
    api(live_server, demo, "actions", {"action": action})
    try:
        fallen = page.locator(f'#board .token[data-token="{token_id}"]')
        expect(fallen).to_have_class(re.compile(rf"\bis-{condition}\b"), timeout=LIVE)
        expect(fallen.locator(f".badge-{condition}")).to_be_visible()  # not colour alone
        words = "mort" if condition == "dead" else r"sorti|hors de combat"
        expect(fallen).to_have_attribute("aria-label", re.compile(words))
        if condition == "dead":
            expect(fallen.locator(".dead-cross")).to_be_visible()
        labels_apart(page)
    finally:  # the demo stays as it was for the other tests
        api(live_server, demo, "rewind", {"to_seq": int(before)})


@VIEWPORTS
def test_a_refused_move_says_the_distance_asked_for_and_the_reach_shows(
        new_context, live_server, demos, viewport):
    """Mutatior's demo: Zetzet, whose turn it is, has a few cm left; carried three squares of
    10 cm by keyboard, the reach circle shows what is left and the refusal says both."""
    page = gm_at(new_context, viewport, demos["mutatior"])
    zetzet = page.locator('#board .token[data-token="m4"]')
    left = float(zetzet.get_attribute("data-reach"))
    zetzet.focus()
    page.keyboard.press("Enter")
    reach = page.locator("#reach")
    expect(reach).to_have_class(re.compile(r"\bactive\b"))
    assert float(reach.get_attribute("r")) == left
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    expect(page.locator("#ruler")).to_have_class(re.compile(r"\bbeyond\b"))
    page.keyboard.press("Enter")
    allowed = f"{left:g}".replace(".", ",")
    expect(page.locator("#board-alert")).to_have_text(
        f"Zetzet ne peut pas aller si loin : le déplacement demandé fait 30 cm, il lui reste "
        f"{allowed} cm ce tour", timeout=LIVE)
    expect(reach).not_to_have_class(re.compile(r"\bactive\b"))


def test_a_tap_that_moves_nothing_says_why(new_context, live_server, demos):
    """On a phone: a tap on one's own figure that cannot move now says why; a tap on the
    board with nothing in hand says what to do."""
    page = gm_at(new_context, PHONE, demos["mutatior"])
    piece = page.locator('#board .token[data-token="m1"] .piece').bounding_box()
    page.touchscreen.tap(piece["x"] + piece["width"] / 2, piece["y"] + piece["height"] / 2)
    note = page.locator("#board-note")
    expect(note).to_contain_text("Scarabator — cerveau")
    expect(note).to_contain_text("C'est au tour de Zetzet : Scarabator se déplace à son propre "
                                 "tour.")
    board = page.locator("#board").bounding_box()
    page.touchscreen.tap(board["x"] + board["width"] * 0.9, board["y"] + board["height"] * 0.5)
    expect(note).to_have_text("Choisissez d'abord une de vos figurines (touchez-la ou cliquez "
                              "dessus), puis l'endroit où elle va.")


def test_rulers_number_the_board_s_edges(new_context, demos):
    page = gm_at(new_context, DESKTOP, demos["chasse"])
    numbers = page.locator("#board .rulers text:not(.ruler-unit)").evaluate_all(
        "texts => texts.map((text) => text.textContent)")
    across, down = numbers[:9], numbers[9:]  # a 48 × 36 inch board, every 5 inches
    assert across == ["5", "10", "15", "20", "25", "30", "35", "40", "45"]
    assert down == ["5", "10", "15", "20", "25", "30", "35"]
    expect(page.locator("#board .rulers .ruler-unit")).to_have_text("po")
