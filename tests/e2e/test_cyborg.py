"""A short Cyborg Anti-Alien fight in two Chromium profiles: Mia (GM) and Paul (his cyborg).

The accounts, the campaign and Paul's cyborg (rolled by the server) are made through the JSON
API; the fight is played through the pages: initiative, an attack with a modifier box, the
alien's reply, the end of the mission — each browser seeing the other's actions live. The
table's dice are the server's own, so the test checks what happened, never a number.
"""

from __future__ import annotations

import re

import httpx
import pytest
from playwright.sync_api import expect

from app.rules.cyborg.profiles import PROFILES
from tests.e2e.table import Campaign, act, bearer, log_in, open_match, scripted, seat_campaign

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

    # Whichever group won, its members act: the cyborgs first, or the octopus first (then,
    # nobody else of the aliens able to act, the cyborgs' turn comes by itself).
    if gm.locator("#turn .current-turn").inner_text().startswith("aliens"):
        act(gm, "attack", {"armed": "t2:tentacules", "target": "t1", "override": "on"})
        expect(player.locator("#log > li.kind-attacked")).to_have_count(1, timeout=LIVE)
        expect(player.locator("#turn .current-turn")).to_contain_text("cyborgs", timeout=LIVE)

    # Paul shoots with his sawn-off shotgun in the dark: the box adds −15 %.
    card = player.locator("details.action-attack")
    expect(card).to_be_visible(timeout=LIVE)
    card.locator("> summary").click() if not card.evaluate("e => e.open") else None
    card.locator("details.fold > summary").click()  # the modifier tables are folded
    player.locator("#attack-mod-obscurite").check()
    act(player, "attack", {"armed": "t1:fusil_a_canon_scie", "target": "t2", "shots": "2"})
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
    expect(player.locator(".sheet-cyborg")).to_contain_text("1 mission")



def test_hide_ram_and_crush_in_two_browsers(new_context, live_server):
    """The GM's alien hides from Paul's Kenji, Kenji rams the octopus' van, the octopus
    crushes Kenji whole: the forms the rules offer, the dice the server rolls (scripted here),
    the log each browser reads."""
    campaign = seat_campaign(live_server.url, system="cyborg", name="KCA", characters=[
        ("gm", {"name": "Pieuvre", "sheet": PROFILES["pieuvre"].sheet, "owner_id": None})])
    with httpx.Client(base_url=live_server.url, timeout=10) as client:
        gm_auth, player_auth = bearer(client, campaign.gm), bearer(client, campaign.player)
        paul = client.get("/api/v1/me", headers=player_auth).json()["id"]
        made = client.post(f"/api/v1/campaigns/{campaign.id}/characters", headers=gm_auth,
                           json={"name": "Kenji", "sheet": PROFILES["kenji"].sheet,
                                 "owner_id": paul})
        assert made.status_code == 201, made.text
    gm = log_in(new_context, campaign.gm)
    player = log_in(new_context, campaign.player)
    url = open_match(gm, campaign, "Poursuite", ["Kenji", "Pieuvre"])
    player.goto(url)
    expect(player.locator("#participant-t1 .participant-name")).to_have_text("Kenji")
    kenji = "t1" if "Kenji" in gm.locator("#participant-t1").inner_text() else "t2"
    octopus = "t2" if kenji == "t1" else "t1"

    # The alien with a human face hides from Kenji: 20 on its Camouflage, 50 on his Repérage.
    act(gm, "add_participant", {"profile": "infiltre", "x": "20", "y": "5"})
    expect(gm.locator("form#action-camouflage")).to_be_attached(timeout=LIVE)
    with scripted(live_server, 20, 50):
        act(gm, "camouflage", {"token": "t3", f"seeker_{kenji}": "on"})
        expect(player.locator("#log > li.kind-camouflaged")).to_contain_text(
            "stays hidden", timeout=LIVE)
    expect(player.locator("#participant-t3 .statuses")).to_contain_text("hidden")

    # A car chase; the GM ticks the milder rule. Kenji's 10 against the octopus' 20 (no
    # Conduite): a recoverable mistake, and Kenji is within reach of the van.
    act(gm, "start_chase", {"pursuer": kenji, "quarry": octopus, "mode": "vehicle",
                            "distance": "courte", "pursuer_vehicle": "dark_jet_45",
                            "quarry_vehicle": "fourgon", "recoverable": "on"})
    with scripted(live_server, 10, 20, 4):
        act(gm, "chase_round")
        expect(player.locator("form#action-ram")).to_be_attached(timeout=LIVE)
    with scripted(live_server, 30, 3):
        act(player, "ram")
        line = gm.locator("#log > li.kind-rammed")
        expect(line).to_contain_text("Kenji rams Fourgon", timeout=LIVE)
    expect(line).to_contain_text("saved by the safety roll")
    expect(player.locator("section.chase")).to_contain_text("accident")
    expect(player.locator("form#action-ram")).to_have_count(0)

    # The octopus crushes Kenji whole (the GM's box): at santé 1, E × 7 = 2, dead.
    # Each action re-renders the GM's panel live: wait for it before opening the next form.
    act(gm, "end_chase")
    expect(gm.locator("#log > li.kind-chase_ended")).to_have_count(1, timeout=LIVE)
    act(gm, "correct", {"token": kenji, "field": "sante", "value": "1", "reason": "chute"})
    expect(gm.locator("#log > li.kind-corrected")).to_have_count(1, timeout=LIVE)
    act(gm, "roll_initiative", {"surprise": "aliens"})
    expect(gm.locator("#log > li.kind-initiative_rolled")).to_have_count(1, timeout=LIVE)
    expect(player.locator("#action-attack input[name=whole_body]")).to_have_count(0)
    expect(player.locator("#action-attack input[name=override]")).to_have_count(0)
    # Tentacles need contact: from 14 squares the blow is refused, in words, nothing rolled.
    act(gm, "attack", {"armed": f"{octopus}:tentacules", "target": kenji})
    expect(gm.locator("form#action-attack .form-error[role=alert]")).to_contain_text(
        "is 14 squares from Kenji", timeout=LIVE)
    expect(gm.locator("#log > li.kind-attacked")).to_have_count(0)
    # The octopus crawls beside Kenji (the board's first row, y 3).
    kenji_x = 13 if kenji == "t1" else 27
    act(gm, "move", {"token": octopus, "x": str(kenji_x + 1), "y": "3"})
    expect(gm.locator("#log > li.kind-token_moved")).to_have_count(1, timeout=LIVE)
    with scripted(live_server, 5, 99):
        act(gm, "attack", {"armed": f"{octopus}:tentacules", "target": kenji,
                           "whole_body": "on"})
        expect(player.locator("#log > li.kind-attacked").last).to_contain_text(
            "The whole target is crushed: death.", timeout=LIVE)
    expect(player.locator(f"#participant-{kenji}")).to_have_class(re.compile("dead"))
