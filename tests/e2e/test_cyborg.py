"""A short Cyborg Anti-Alien fight in two Chromium profiles: Mia (GM) and Paul (his cyborg).

The accounts, the campaign and Paul's cyborg (rolled by the server) are made through the JSON
API; the fight is played through the pages: initiative, an attack with a modifier box, the
alien's reply, the end of the mission — each browser seeing the other's actions live. The
table's dice are the server's own, so the test checks what happened, never a number.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.table import Campaign, act, log_in, open_match, seat_campaign

LIVE = 2_000


@pytest.fixture
def cyborg_campaign(live_server) -> Campaign:
    campaign = seat_campaign(live_server.url, system="cyborg", name="KCA",
                             characters=[("player", {"name": "Kenji"})])
    assert len(campaign.characters["Kenji"]["sheet"]["drawn"]) == 3  # the server rolled it
    return campaign


def test_two_browsers_play_a_short_cyborg_fight(new_context, cyborg_campaign):
    gm = log_in(new_context, cyborg_campaign.gm)
    player = log_in(new_context, cyborg_campaign.player)
    url = open_match(gm, cyborg_campaign, "Laboratoire", ["Kenji"])
    player.goto(url)
    expect(player.locator("#participant-t1 .participant-name")).to_have_text("Kenji")

    # Mia brings the laboratory's octopus next to Kenji and rolls the groups' initiative.
    act(gm, "add_participant", {"profile": "pieuvre", "x": "20", "y": "3"})
    expect(player.locator("#participant-t2")).to_be_visible(timeout=LIVE)
    act(gm, "roll_initiative")
    expect(player.locator("#log > li.kind-initiative_rolled")).to_have_count(1, timeout=LIVE)
    expect(player.locator("#turn .round")).to_have_text("Round 1")

    # Whichever group won, its members act: the cyborgs first, or the octopus first.
    if gm.locator("#turn .current-turn").inner_text().startswith("aliens"):
        act(gm, "attack", {"token": "t2", "weapon": "tentacules", "target": "t1"})
        expect(player.locator("#log > li.kind-attacked")).to_have_count(1, timeout=LIVE)
        act(gm, "end_phase")
        expect(player.locator("#turn .current-turn")).to_contain_text("cyborgs", timeout=LIVE)

    # Paul shoots with his sawn-off shotgun in the dark: the box adds −15 %.
    card = player.locator("details.action-attack")
    expect(card).to_be_visible(timeout=LIVE)
    card.locator("summary").click() if not card.evaluate("e => e.open") else None
    player.locator("#attack-mod-obscurite").check()
    act(player, "attack", {"token": "t1", "weapon": "fusil_a_canon_scie", "target": "t2",
                           "shots": "2"})
    line = gm.locator("#log > li.kind-attacked").last
    expect(line).to_contain_text("Kenji attacks with Fusil à canon scié", timeout=LIVE)
    expect(line).to_contain_text("Obscurité")
    expect(line.locator("li.shot")).to_have_count(2)
    expect(line.locator("details.dice").first).to_be_attached()
    # His magazine is empty now; the panel offers to reload, not to attack again.
    expect(player.locator("#participant-t1 .magazines")).to_contain_text(
        "Fusil à canon scié 0", timeout=LIVE)
    expect(player.locator("form#action-attack")).to_have_count(0, timeout=LIVE)

    # Mia closes the mission: santé back, + 1D6, one mission more on Kenji's sheet.
    gm.once("dialog", lambda dialog: dialog.accept())
    act(gm, "end_mission")
    expect(player.locator("#log > li.kind-mission_ended")).to_contain_text(
        "mission 1", timeout=LIVE)
    player.goto(f"/campaigns/{cyborg_campaign.id}/characters")
    player.get_by_role("link", name="Kenji", exact=True).click()
    expect(player.locator(".sheet-cyborg")).to_contain_text("1 missions")
