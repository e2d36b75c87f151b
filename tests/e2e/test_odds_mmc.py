"""Mutatior's, Mecha-Ring's and Chasse's odds in Chromium, on a laptop (1366 × 900) and a
phone (390 × 844): the panel under the form says the chances, and they change as the player
changes the limb aimed at, the part chosen, the weapon or the charge's target — live,
without reloading the page.

``ODDS_SHOTS=/tmp/odds-mmc`` keeps a screenshot of each step there (docs/odds.md)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from app.rules.chasse.sheet import blank_sheet
from app.rules.dice import SeededDice
from app.rules.mecha_ring.odds import SLOT_WORDS
from app.rules.mutatior.samples import grosbaf, zetzet
from app.rules.mutatior.sheet import sheet_of
from tests.e2e.table import (
    PASSWORD,
    act,
    acted,
    log_in,
    open_match,
    scripted,
    seat_campaign,
    token,
)

pytestmark = pytest.mark.e2e
LIVE = 5_000
SIZES = {"laptop": {"width": 1366, "height": 900}, "phone": {"width": 390, "height": 844}}
SHEET = {"robot_name": "", "crew": "", "implants": 0, "tournaments": 0, "wins": 0,
         "titles": 0, "best_points": 0}


def shot(page: Page, name: str) -> None:
    folder = os.environ.get("ODDS_SHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=False)


def sized_log_in(new_context, username: str, size: str) -> Page:
    page = new_context(locale="en-GB", viewport=SIZES[size]).new_page()
    page.goto("/login")
    page.fill("#field-username", username)
    page.fill("#field-password", PASSWORD)
    page.locator("form button[type=submit]").last.click()
    expect(page).not_to_have_url(re.compile("/login"))
    return page


def sentence(page: Page, kind: str):
    return page.locator(f"#action-{kind} .odds-body .odds-sentence")


def opened(page: Page, kind: str):
    """The form of ``kind``, its card unfolded (on a phone, the Actions tab shown)."""
    tab = page.locator("#tab-actions")
    if tab.is_visible() and tab.get_attribute("aria-selected") != "true":
        tab.click()
    card = page.locator(f"details.action-{kind}")
    if card.count() and not card.evaluate("e => e.open"):
        card.locator("> summary").click()
    return page.locator(f"form#action-{kind}")


def settled(page: Page, kind: str) -> None:
    """The action panel offers ``kind`` for the state the page shows; else the test fails
    saying what the page offered, and for which state (a step of the rules that never comes
    is told from a live update that never came)."""
    try:
        page.wait_for_function(
            """kind => {
                const form = document.querySelector(`form#action-${kind}`);
                const state = document.querySelector(".table-state");
                return form && state && form.querySelector("input[name=seq]").value
                    === state.dataset.seq;
            }""", arg=kind, timeout=30_000)  # a step of the rules, slow on a busy machine
    except PlaywrightTimeout:
        seen = page.evaluate("""() => ({
            forms: Array.from(document.querySelectorAll("form.action"),
                               (f) => `${f.dataset.kind}@${f.querySelector("[name=seq]")?.value}`),
            state: document.querySelector(".table-state")?.dataset.seq,
            turn: document.querySelector("#turn")?.textContent.trim(),
            log: Array.from(document.querySelectorAll("#log > li"),
                            (li) => li.textContent.trim().slice(0, 80)).slice(-6)})""")
        pytest.fail(f"the panel never offered {kind!r}: {seen}")


def look(page: Page, kind: str, name: str) -> None:
    page.locator(f"#action-{kind} .odds-panel").scroll_into_view_if_needed()
    shot(page, name)


@pytest.mark.parametrize("size", list(SIZES))
def test_mutatior_attack_odds_follow_the_limb_aimed_at(new_context, live_server, size):
    arena = seat_campaign(live_server.url, system="mutatior", name="L'arène", characters=[
        ("player", {"name": "Grosbaf", "sheet": sheet_of(grosbaf())}),
        ("gm", {"name": "Zetzet", "sheet": sheet_of(zetzet())})])
    gm = log_in(new_context, arena.gm)
    gm.on("dialog", lambda dialog: dialog.accept())
    gm.goto(f"/campaigns/{arena.id}/matches")
    gm.fill("#field-name", "Le choc")
    gm.get_by_label("Grosbaf").check()
    gm.get_by_label("Zetzet").check()
    gm.fill("#field-width", "60")
    gm.fill("#field-height", "60")
    gm.get_by_role("button", name="Start the match").click()
    expect(gm.locator("h1")).to_have_text("Le choc")
    url = gm.url
    player = sized_log_in(new_context, arena.player, size)
    player.goto(url)
    # The text's example: placed 30 cm apart, beau temps, Grosbaf first (6 + 1 against 1 + 3),
    # each closes in; round 2 (5 + 1 against 2 + 3): Grosbaf in contact, his turn.
    act(player, "move", {"token": "m1", "x": "30", "y": "20"})
    expect(token(gm, "m1")).to_have_attribute("data-y", "20", timeout=LIVE)
    settled(gm, "move")
    act(gm, "move", {"token": "m2", "x": "30", "y": "50"})
    expect(token(player, "m2")).to_have_attribute("data-y", "50", timeout=LIVE)
    settled(gm, "start_fight")
    with scripted(live_server, 5, 6, 1):
        act(gm, "start_fight", {"uneven": "on"})
        expect(player.locator("#turn .current-turn")).to_contain_text("Grosbaf",
                                                                      timeout=LIVE)
    settled(player, "move")
    act(player, "move", {"token": "m1", "x": "30", "y": "32"})
    expect(token(gm, "m1")).to_have_attribute("data-y", "32", timeout=LIVE)
    settled(player, "end_turn")
    act(player, "end_turn")
    expect(gm.locator("#turn .current-turn")).to_contain_text("Zetzet", timeout=LIVE)
    settled(gm, "move")
    act(gm, "move", {"token": "m2", "x": "30", "y": "36"})
    expect(token(player, "m2")).to_have_attribute("data-y", "36", timeout=LIVE)
    settled(gm, "end_turn")
    with scripted(live_server, 5, 2):
        act(gm, "end_turn")
        expect(player.locator("#turn .round")).to_have_text("Round 2", timeout=LIVE)
    expect(player.locator("#turn .current-turn")).to_contain_text("Grosbaf", timeout=LIVE)
    settled(player, "attack")
    form = opened(player, "attack")
    form.locator("[name=limb]").select_option("m1:tête")
    form.locator("[name=target]").select_option("m2:torse")
    odds = sentence(player, "attack")
    expect(odds).to_have_text("72% to hit; 2.28 organs lost on average; 76% to attack again; "
                              "21% of a counter-attack", timeout=LIVE)
    look(player, "attack", f"mutatior-{size}-torso")
    form.locator("[name=target]").select_option("m2:tête")  # 5 muscles: easier
    expect(odds).to_contain_text("83% to hit", timeout=LIVE)
    expect(player.locator("#action-attack .odds-body")).to_contain_text(
        "defence: 1d6 + 5 (muscles)")
    look(player, "attack", f"mutatior-{size}-head")
    form.locator("[name=limb]").select_option("m1:bras droit")  # no horn: 6 muscles
    expect(odds).not_to_contain_text("83% to hit", timeout=LIVE)
    look(player, "attack", f"mutatior-{size}-arm")
    sprint = opened(player, "sprint")
    expect(sentence(player, "sprint")).to_have_text(
        "42% to move as far again; 2.8% of an infarctus", timeout=LIVE)
    sprint.scroll_into_view_if_needed()
    look(player, "sprint", f"mutatior-{size}-sprint")


@pytest.mark.parametrize("size", list(SIZES))
def test_mecha_ring_strike_odds_follow_the_part_chosen(new_context, live_server, size):
    campaign = seat_campaign(live_server.url, system="mecha_ring", name="MMMA", characters=[
        ("player", {"name": "Boulon", "sheet": {**SHEET, "implants": 3}}),
        ("gm", {"name": "Rouille", "sheet": SHEET})])
    gm = log_in(new_context, campaign.gm)
    gm.set_default_timeout(30_000)  # the set-up deals every card: slow on a busy machine
    live_server.server.config.app.state.dice = SeededDice(11)  # the draft and the order
    try:
        url = open_match(gm, campaign, "Tournoi", ["Boulon", "Rouille"])
    finally:
        live_server.server.config.app.state.dice = None
    expect(gm.locator("#log > li.kind-order_rolled")).to_be_visible(timeout=LIVE)
    # Whoever is last keeps their place (on a laptop); then the first attacks, seen at this
    # size: Paul plays Boulon, the host plays Rouille.
    paul = log_in(new_context, campaign.player)
    paul.goto(url)
    for page in (gm, paul):
        if page.locator("form#action-climb").count():
            seen = page.locator("#log > li").count()
            act(page, "climb")
            expect(page.locator("#log > li")).not_to_have_count(seen, timeout=LIVE)
    expect(gm.locator("#log > li.kind-climbed")).to_have_count(1, timeout=LIVE)
    gm.reload()
    attacker = campaign.gm if gm.locator("form#action-attack").count() else campaign.player
    first = sized_log_in(new_context, attacker, size)
    first.goto(url)
    settled(first, "attack")
    opened(first, "attack")
    expect(sentence(first, "attack")).to_contain_text(
        "that your radar lets you choose the part", timeout=LIVE)
    expect(first.locator("#action-attack .odds-body")).to_contain_text(
        "Not counted: the SFX cards still in hand")
    look(first, "attack", f"mecha-{size}-radar")
    with scripted(live_server, *([1] * 12)):  # every radar die odd: the attacker chooses
        act(first, "attack")
        settled(first, "choose_part")
    form = opened(first, "choose_part")
    odds = sentence(first, "choose_part")
    options = form.locator("[name=slot] option")
    slots = [options.nth(i).get_attribute("value") for i in range(options.count())]
    seen = set()
    for slot in slots:
        form.locator("[name=slot]").select_option(slot)
        expect(first.locator("#action-choose_part .odds-body")).to_contain_text(
            f", {SLOT_WORDS[slot]}):", timeout=LIVE)
        expect(odds).to_contain_text("that the attack hits")
        seen.add(odds.inner_text())
        look(first, "choose_part", f"mecha-{size}-{slot}")
    assert len(seen) > 1  # the parts' défense differ: so do the odds


@pytest.mark.parametrize("size", list(SIZES))
def test_chasse_charge_and_melee_odds_follow_the_choice(new_context, live_server, size):
    tribe = seat_campaign(live_server.url, system="chasse", name="La tribu", characters=[
        ("player", {"name": "Ourk", "sheet": {**blank_sheet(),
                                              "weapons": ["javelot", "couteau"]}})])
    gm = log_in(new_context, tribe.gm)
    gm.on("dialog", lambda dialog: dialog.accept())
    url = open_match(gm, tribe, "Le sanglier", ["Ourk"])
    settled(gm, "add_prey")
    act(gm, "add_prey", {"species": "sanglier", "x": "24", "y": "24"})
    settled(gm, "begin_hunt")
    act(gm, "begin_hunt")
    for field, value in (("x", "24"), ("y", "34")):  # Ourk 10" south of the boar
        settled(gm, "correct")
        act(gm, "correct", {"token": "t1", "field": field, "value": value, "reason": "test"})
    player = sized_log_in(new_context, tribe.player, size)
    player.goto(url)
    # Step 2: Ourk is 10" from the boar: a charge of 6" + 1D6 reaches it on 3+.
    settled(player, "move")
    move = opened(player, "move")
    odds = sentence(player, "move")
    move.locator("[name=target]").select_option("t2")
    expect(odds).to_have_text("67% to reach Sanglier", timeout=LIVE)
    look(player, "move", f"chasse-{size}-charge")
    move.locator("[name=target]").select_option("")
    expect(odds).to_have_text("A move without a charge throws no die", timeout=LIVE)
    fire = opened(player, "light_fire")
    fire.locator("[name=x]").fill("24")
    fire.locator("[name=y]").fill("33")
    expect(sentence(player, "light_fire")).to_have_text("17% to light the fire",
                                                        timeout=LIVE)
    look(player, "light_fire", f"chasse-{size}-fire")
    # The GM puts Ourk 1" from the boar at step 6: the melee may be fought at once.
    settled(player, "next_step")
    acted(player, "next_step", seen_by=(gm,))  # step 4
    settled(gm, "correct")
    acted(gm, "correct", {"token": "t1", "field": "y", "value": "29", "reason": "test"},
          seen_by=(player,))
    settled(player, "next_step")
    acted(player, "next_step", seen_by=(gm,))  # 5 (the boar 5" away: no reaction), then 6
    settled(player, "shoot")
    settled(gm, "correct")
    acted(gm, "correct", {"token": "t1", "field": "y", "value": "25", "reason": "test"},
          seen_by=(player,))
    settled(player, "melee")
    melee = opened(player, "melee")
    odds = sentence(player, "melee")
    melee.locator("[name=fight]").select_option("t1|t2|couteau")
    expect(odds).to_contain_text("50% to hit; 25% to wound", timeout=LIVE)
    look(player, "melee", f"chasse-{size}-knife")
    melee.locator("[name=fight]").select_option("t1|t2|mains_nues")
    expect(odds).to_contain_text("33% to hit; 11% to wound", timeout=LIVE)
    look(player, "melee", f"chasse-{size}-fists")
