"""The Shanghai warehouse in two Chromium profiles: Mia (GM, who runs the voyous) and Paul
(Jack). The accounts, the campaign and the fighters come through the JSON API; the fight is
played through the pages: initiative, a move, Jack's Oi zuki, the voyous' instinctive
defence, one voyou down, the voyous' kick on Jack — each browser seeing the other's actions
live. The server's dice are scripted (the text's own faces, « Exemple de combat »)."""

from __future__ import annotations

import re

import httpx
from playwright.sync_api import expect

from app.rules.tiamat.profiles import voyous
from app.rules.tiamat.sheet import jack
from tests.e2e.table import act, bearer, log_in, open_match, scripted, seat_campaign

LIVE = 2_000



def test_the_warehouse_fight_in_two_browsers(new_context, live_server):
    campaign = seat_campaign(live_server.url, system="tiamat", name="Tiamat", characters=[
        ("gm", {"name": "Voyous", "sheet": voyous(), "owner_id": None})])
    with httpx.Client(base_url=live_server.url, timeout=10) as client:
        gm_auth, player_auth = bearer(client, campaign.gm), bearer(client, campaign.player)
        paul = client.get("/api/v1/me", headers=player_auth).json()["id"]
        made = client.post(f"/api/v1/campaigns/{campaign.id}/characters", headers=gm_auth,
                           json={"name": "Jack", "sheet": jack(), "owner_id": paul})
        assert made.status_code == 201, made.text
    gm = log_in(new_context, campaign.gm)
    player = log_in(new_context, campaign.player)
    url = open_match(gm, campaign, "Entrepôt n°8", ["Jack", "Voyous"])
    player.goto(url)
    jack_id = "p1" if "Jack" in gm.locator('[data-participant="p1"]').inner_text() else "p2"
    thugs = "p2" if jack_id == "p1" else "p1"
    expect(player.locator(f'[data-participant="{jack_id}"]')).to_contain_text("Santé 26/26")
    # « Munitions »: Jack's 9 mm shows its magazine (house: 15).
    expect(player.locator(f'[data-participant="{jack_id}"]')).to_contain_text(
        "Pistolet 9 mm: munitions 15/15")

    # « Nicolas lance 2 dés et obtient 3 et 8 … Le MJ lance un dé et obtient 5. »
    faces = (3, 8, 5) if jack_id == "p1" else (5, 3, 8)
    with scripted(live_server, *faces):
        act(gm, "roll_initiative")
        expect(player.locator("#turn .current-turn")).to_contain_text("Jack", timeout=LIVE)
    act(player, "manoeuvre", {"what": "move"})
    expect(gm.locator("#log > li.kind-manoeuvred")).to_contain_text("8 m", timeout=LIVE)

    # The Oi zuki: the GM answers for the voyous with their défense instinctive.
    act(player, "attack", {"technique": "oi_zuki", "target": thugs})
    expect(gm.locator("form#action-defend")).to_be_attached(timeout=LIVE)
    expect(player.locator("#pending")).to_contain_text("chooses a defence")
    with scripted(live_server, 7, 3, 2, 10, 2, 4, 6):
        act(gm, "defend", {"technique": "instinctive"})
        line = player.locator("#log > li.kind-attack_resolved")
        expect(line).to_contain_text("précision 9 against 2", timeout=LIVE)
    expect(line).to_contain_text("One henchman is out (KO)")
    expect(player.locator(f'[data-participant="{thugs}"]')).to_contain_text("3 of 4")

    # Jack has no action left: his turn passes by itself. The voyous kick (the text's « +1 »
    # as the GM's modifier); everyone has played: round 2 opens by itself.
    expect(gm.locator(f'form#action-attack [name=target] option[value="{jack_id}"]')
           ).to_have_count(1, timeout=LIVE)
    faces = (9, 1, 5) if jack_id == "p1" else (5, 9, 1)
    with scripted(live_server, 1, 4, 5, 7, 2, 3, 3, 10, 3, *faces):
        act(gm, "attack", {"technique": "coup_de_pied", "target": jack_id,
                           "gm_modifier": "1"})
        expect(player.locator(f'[data-participant="{jack_id}"]')).to_contain_text(
            "Santé 17/26", timeout=LIVE)
        expect(player.locator("#turn .current-turn")).to_contain_text("Jack", timeout=LIVE)
    expect(player.locator("#log > li.kind-attack_resolved").last).to_contain_text(
        "+2D10 for the other henchmen")

    # Round 2: Jack draws his 9 mm and shoots; both browsers see the magazine go down.
    act(player, "manoeuvre", {"what": "draw", "weapon": "pistolet_9mm"})
    expect(gm.locator("#log > li.kind-manoeuvred").last).to_contain_text("Pistolet 9 mm",
                                                                           timeout=LIVE)
    act(player, "attack", {"technique": "visee", "target": thugs})
    expect(gm.locator("#log > li.kind-attack_declared").last).to_contain_text(
        "Pistolet 9 mm: 1 shot, 14 left.", timeout=LIVE)
    expect(gm.locator(f'[data-participant="{jack_id}"]')).to_contain_text(
        "Pistolet 9 mm in hand: munitions 14/15")


def test_the_compendium_at_a_desktop_and_on_a_phone(new_context, live_server, tmp_path):
    """The whole technique list, filtered by art and type through the plain GET form (no
    script), never wider than the screen: a table on a desktop, cards on a phone."""
    campaign = seat_campaign(live_server.url, system="tiamat", name="Tiamat")
    for width, height in ((1366, 900), (390, 844)):
        page = log_in(new_context, campaign.player)
        page.set_viewport_size({"width": width, "height": height})
        page.goto(f"/campaigns/{campaign.id}/compendium")
        expect(page.locator("#compendium-technique tbody tr")).to_have_count(120)
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.screenshot(path=str(tmp_path / f"compendium-{width}.png"))
        page.select_option("select[name=art]", "Ninjutsu")
        page.select_option("select[name=type]", "Esquive")
        page.get_by_role("button", name="Search").click()
        page.wait_for_url(re.compile(r"art=Ninjutsu"))
        rows = page.locator("#compendium-technique tbody tr")
        expect(rows.locator(".entry-name").filter(has_text="Makibishi")).to_have_count(1)
        assert rows.count() < 120
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.screenshot(path=str(tmp_path / f"compendium-{width}-ninjutsu.png"),
                        full_page=width < 400)
