"""Tiamat's and Cyborg Anti-Alien's odds in Chromium, on a laptop (1366 × 900) and a phone
(390 × 844): the panel under the attack form says the chances, and they change as the player
changes the technique, the target or a modifier box — live, without reloading the page.

``ODDS_SHOTS=/tmp/odds-tc`` keeps a screenshot of each step there (docs/odds.md)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, expect

from app.rules.tiamat.profiles import jin
from app.rules.tiamat.sheet import jack
from tests.e2e.table import PASSWORD, act, bearer, log_in, open_match, scripted, seat_campaign

LIVE = 5_000
SIZES = {"laptop": {"width": 1366, "height": 900}, "phone": {"width": 390, "height": 844}}


def shot(page: Page, name: str) -> None:
    folder = os.environ.get("ODDS_SHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=False)


def sized_log_in(new_context, username: str, size: str, locale: str = "en-GB") -> Page:
    page = new_context(locale=locale, viewport=SIZES[size]).new_page()
    page.goto("/login")
    page.fill("#field-username", username)
    page.fill("#field-password", PASSWORD)
    page.locator("form button[type=submit]").last.click()
    expect(page).not_to_have_url(re.compile("/login"))
    return page


def odds_of(page: Page, kind: str):
    return page.locator(f"#action-{kind} .odds-body .odds-sentence")


@pytest.mark.parametrize("size", list(SIZES))
def test_tiamat_attack_odds_follow_the_technique(new_context, live_server, size):
    campaign = seat_campaign(live_server.url, system="tiamat", name="Tiamat", characters=[
        ("gm", {"name": "Jin Chun-Fung", "sheet": jin(), "owner_id": None})])
    with httpx.Client(base_url=live_server.url, timeout=10) as client:
        gm_auth, player_auth = bearer(client, campaign.gm), bearer(client, campaign.player)
        paul = client.get("/api/v1/me", headers=player_auth).json()["id"]
        made = client.post(f"/api/v1/campaigns/{campaign.id}/characters", headers=gm_auth,
                           json={"name": "Jack", "sheet": jack(), "owner_id": paul})
        assert made.status_code == 201, made.text
    gm = log_in(new_context, campaign.gm)
    url = open_match(gm, campaign, "Dojo", ["Jack", "Jin Chun-Fung"])
    jack_first = "Jack" in gm.locator('[data-participant="p1"]').inner_text()
    jin_id = "p2" if jack_first else "p1"
    with scripted(live_server, *((9, 9, 1, 1, 1, 1) if jack_first else (1, 1, 1, 1, 9, 9))):
        act(gm, "roll_initiative")
        expect(gm.locator("#turn .current-turn")).to_contain_text("Jack", timeout=LIVE)
    player = sized_log_in(new_context, campaign.player, size)
    player.goto(url)
    form = player.locator("form#action-attack")
    expect(form).to_be_visible(timeout=LIVE)
    sentence = odds_of(player, "attack")
    expect(sentence).to_contain_text("% to hit", timeout=LIVE)
    form.locator("[name=target]").select_option(jin_id)
    form.locator("[name=technique]").select_option("oi_zuki")
    expect(player.locator("#action-attack .odds-body")).to_contain_text(
        "Précision 2D10 + 2 against the défense instinctive of Jin Chun-Fung", timeout=LIVE)
    before = sentence.inner_text()
    shot(player, f"tiamat-{size}-first-screen")
    # How the odds are worked out is folded: the form's button stays on the first screen.
    box = player.locator("#action-attack-submit").bounding_box()
    assert box is not None and box["y"] + box["height"] <= SIZES[size]["height"]
    expect(player.locator("#action-attack .odds-more")).not_to_have_attribute("open", "")
    player.locator("#action-attack .odds-more > summary").click()
    expect(player.locator("#action-attack .odds-detail").first).to_be_visible()
    player.locator("#action-attack .odds-panel").scroll_into_view_if_needed()
    shot(player, f"tiamat-{size}-oi-zuki")
    form.locator("[name=technique]").select_option("mae_geri")
    expect(sentence).not_to_have_text(before, timeout=LIVE)
    expect(player.locator("#action-attack .odds-body")).to_contain_text("Précision",
                                                                        timeout=LIVE)
    # Opened once, the details stay open as the panel is redrawn for the new technique.
    expect(player.locator("#action-attack .odds-more")).to_have_attribute("open", "")
    player.locator("#action-attack .odds-panel").scroll_into_view_if_needed()
    shot(player, f"tiamat-{size}-mae-geri")
    # A test, in the same way: its chance follows the difficulty.
    act_card = player.locator("details.action-test")
    if act_card.count() and not act_card.evaluate("e => e.open"):
        act_card.locator("> summary").click()
    test_form = player.locator("form#action-test")
    test_form.locator("[name=difficulty]").select_option("facile")
    easy = odds_of(player, "test")
    expect(easy).to_contain_text("% to succeed", timeout=LIVE)
    easy_text = easy.inner_text()
    test_form.locator("[name=difficulty]").select_option("heroique")
    expect(easy).not_to_have_text(easy_text, timeout=LIVE)
    player.locator("#action-test .odds-panel").scroll_into_view_if_needed()
    shot(player, f"tiamat-{size}-test")


@pytest.mark.parametrize("size", list(SIZES))
def test_cyborg_attack_odds_follow_the_modifiers_and_the_target(new_context, live_server,
                                                                size):
    campaign = seat_campaign(live_server.url, system="cyborg", name="KCA",
                             characters=[("player", {"name": "Kenji"})])
    gm = log_in(new_context, campaign.gm)
    url = open_match(gm, campaign, "Laboratoire", ["Kenji"])
    act(gm, "add_participant", {"profile": "pieuvre", "x": "20", "y": "3"})
    expect(gm.locator("#participant-t2")).to_be_visible(timeout=LIVE)
    act(gm, "add_participant", {"profile": "vigile", "x": "12", "y": "8"})
    expect(gm.locator("#participant-t3")).to_be_visible(timeout=LIVE)
    act(gm, "roll_initiative", {"surprise": "cyborgs"})
    player = sized_log_in(new_context, campaign.player, size, locale="fr-FR")
    player.goto("/account")  # Paul reads French
    player.locator("#field-locale").select_option("fr")
    player.locator("form[action='/account'] button[type=submit]").click()
    expect(player.locator("p.notice")).to_be_visible()
    player.goto(url)
    card = player.locator("details.action-attack")
    expect(card).to_be_visible(timeout=LIVE)
    if not card.evaluate("e => e.open"):
        card.locator("> summary").click()
    form = player.locator("form#action-attack")
    form.locator("[name=armed]").select_option("t1:fusil_a_canon_scie")
    form.locator("[name=target]").select_option("t2")
    sentence = odds_of(player, "attack")
    expect(sentence).to_contain_text("de toucher", timeout=LIVE)
    plain = sentence.inner_text()
    player.locator("#action-attack .odds-panel").scroll_into_view_if_needed()
    shot(player, f"cyborg-{size}-shotgun")
    card.locator("details.fold > summary").first.click()  # the modifier tables are folded
    player.locator("#attack-mod-obscurite").check()
    expect(sentence).not_to_have_text(plain, timeout=LIVE)
    dark = sentence.inner_text()
    player.locator("#action-attack .odds-panel").scroll_into_view_if_needed()
    shot(player, f"cyborg-{size}-dark")
    form.locator("[name=target]").select_option("t3")
    expect(sentence).not_to_have_text(dark, timeout=LIVE)
    player.locator("#action-attack .odds-panel").scroll_into_view_if_needed()
    shot(player, f"cyborg-{size}-guard")
    # The melee reach is said for a melee weapon only, following the list as it changes.
    reach = player.locator("#attack-reach-help")
    form.locator("[name=armed]").scroll_into_view_if_needed()
    shot(player, f"cyborg-{size}-shotgun-form")
    expect(reach).to_be_hidden()
    form.locator("[name=armed]").select_option("t1:poing")
    expect(reach).to_be_visible()
    expect(reach).to_contain_text("contact")
    shot(player, f"cyborg-{size}-fist-form")
    form.locator("[name=armed]").select_option("t1:fusil_a_canon_scie")
    expect(reach).to_be_hidden()
