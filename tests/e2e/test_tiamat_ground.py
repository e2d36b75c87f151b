"""A duel on the ground in two browsers, on a desktop and on a phone (issue 24): Ryu (Paul's
ju-jitsuka) throws Jin Chun-Fung (the GM's) to the ground with Projection, holds him there
with Immobilisation — Jin, on the ground, has nothing but his défense instinctive — and Jin
breaks free on his turn (Force / Force). The server's dice are scripted; each step is
looked at in both browsers (screenshots in the test's temporary folder)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from app.rules.tiamat.profiles import jin, ryu
from tests.e2e.table import act, scripted, seat_duel

LIVE = 2_000
SIZES = {"desktop": (1366, 900), "phone": (390, 844)}


def show(page: Page, panel: str) -> None:
    """On a phone the table's panels are tabs: bring the one asked for to the front."""
    tab = page.locator(f"#tab-{panel}")
    if tab.count() and tab.is_visible():
        tab.click()


@pytest.mark.parametrize("size", list(SIZES))
def test_a_throw_a_hold_on_the_ground_and_an_escape(new_context, live_server, tmp_path,
                                                    size):
    duel = seat_duel(new_context, live_server.url, system="tiamat", campaign="Dojo",
                     match="Au dojo", gm_fighter=("Jin", jin()),
                     player_fighter=("Ryu", ryu()), viewport=SIZES[size])
    gm, player = duel.gm, duel.player
    ryu_id, jin_id = duel.ids["Ryu"], duel.ids["Jin"]

    def snap(name: str) -> None:
        for who, page in (("gm", gm), ("player", player)):
            page.screenshot(path=str(tmp_path / f"{size}-{name}-{who}.png"), full_page=True)

    # Ryu 9 (three dice), Jin 1 + 1 (Réflexes du guépard): Ryu first.
    ryu_faces, jin_faces = (9, 1, 1), (1, 1, 1, 1)
    with scripted(live_server, *(ryu_faces + jin_faces if ryu_id == "p1"
                                 else jin_faces + ryu_faces)):
        show(gm, "actions")
        act(gm, "roll_initiative")
        expect(player.locator("#turn .current-turn")).to_contain_text("Ryu", timeout=LIVE)

    # Projection (Force 2): 9 against Jin's défense instinctive 2: Jin is on the ground.
    show(player, "actions")
    act(player, "attack", {"technique": "projection", "target": jin_id})
    show(gm, "actions")
    with scripted(live_server, 9, 1, 2, 1, 5):
        act(gm, "defend", {"technique": "instinctive"})
        show(player, "state")
        expect(player.locator(f'[data-participant="{jin_id}"] .posture')).to_have_text(
            "on the ground", timeout=LIVE)
    snap("knockdown")

    # Immobilisation on the ground: Jin may neither parry nor dodge there — answered at once.
    show(player, "actions")
    with scripted(live_server, 9, 1, 3, 1, 4):
        act(player, "attack", {"technique": "immobilisation", "target": jin_id})
        show(player, "state")
        expect(player.locator(f'[data-participant="{jin_id}"]')).to_contain_text(
            "held by Ryu", timeout=LIVE)
    show(gm, "actions")
    expect(gm.locator("form#action-escape")).to_be_attached(timeout=LIVE)
    expect(gm.locator("form#action-attack")).to_have_count(0)
    snap("hold")

    # Jin breaks free: Force 3 (9) against Ryu's Force 2 (2); everyone has played, round 2.
    with scripted(live_server, 9, 1, 1, 2, 1, 5, 1, 1, 6, 1, 1, 1):
        act(gm, "escape")
        show(player, "state")
        expect(player.locator(f'[data-participant="{jin_id}"]')).not_to_contain_text(
            "held by", timeout=LIVE)
    show(player, "log")
    expect(player.locator("#log > li.kind-escape_tried").last).to_contain_text(
        "Jin breaks free from Ryu.")
    snap("escape")
