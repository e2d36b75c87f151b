"""A short hunt in two Chromium profiles: Mia (GM) sets up *Le mammouth blessé*, Paul plays
Ourk through one whole turn — the step tracker, a move refused then made, the steps with
nothing to do passing by themselves, the prey's own moves in the log with their dice — and
the GM ends the hunt; each browser sees the other's
actions live. The dice are real: the mammoth starts far from the camp, so nothing depends
on them."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from app.rules.chasse.sheet import blank_sheet
from tests.e2e.table import LIVE, Campaign, act, log_in, open_match, seat_campaign, token

pytestmark = pytest.mark.e2e


def settled(page, kind: str) -> None:
    """Wait until the action panel offers ``kind`` for the state the page shows (the
    state and the panel arrive separately over the live stream)."""
    page.wait_for_function(
        """kind => {
            const form = document.querySelector(`form#action-${kind}`);
            const state = document.querySelector(".table-state");
            return form && state && form.querySelector("input[name=seq]").value
                === state.dataset.seq;
        }""", arg=kind, timeout=10_000)


@pytest.fixture
def tribe(live_server) -> Campaign:
    return seat_campaign(live_server.url, system="chasse", name="La tribu", characters=[
        ("player", {"name": "Ourk", "sheet": {**blank_sheet(), "weapons": ["javelot"]}})])


def test_a_short_hunt_in_the_browser(new_context, tribe):
    gm = log_in(new_context, tribe.gm)
    gm.on("dialog", lambda dialog: dialog.accept())
    player = log_in(new_context, tribe.player)
    url = open_match(gm, tribe, "Le mammouth", ["Ourk"])
    player.goto(url)
    expect(player.locator("#turn")).to_contain_text("Setting up")

    act(gm, "choose_scenario", {"scenario": "mammouth"})
    expect(token(player, "t2")).to_be_visible(timeout=LIVE)
    settled(gm, "begin_hunt")
    act(gm, "begin_hunt")
    expect(player.locator(".steps [aria-current=step]")).to_have_text("Lighting fires",
                                                                      timeout=LIVE)
    settled(player, "next_step")
    act(player, "next_step")
    expect(player.locator(".steps [aria-current=step]")).to_have_text(
        "Hunters move and charge", timeout=LIVE)
    settled(player, "move")

    # Ourk stands at (24, 34): 10" north is beyond his Dmax of 6".
    act(player, "move", {"token": "t1", "x": "24", "y": "24"})
    refusal = player.locator("form#action-move .form-error[role=alert]")
    expect(refusal).to_contain_text(re.compile(r"\d+ in asked for, 6 in left"))  # both said
    settled(player, "move")
    act(player, "move", {"token": "t1", "x": "24", "y": "29"})
    expect(token(gm, "t1")).to_have_attribute("data-y", "29.0", timeout=LIVE)

    # Ourk closes his moves; steps 6, 7 and 10 have nothing for him (the mammoth is far):
    # they pass by themselves, and so does the turn.
    settled(player, "next_step")
    act(player, "next_step")
    expect(gm.locator("#turn")).to_contain_text("Turn 2", timeout=LIVE)
    expect(player.locator(".steps [aria-current=step]")).to_have_text("Lighting fires",
                                                                      timeout=LIVE)
    reaction = gm.locator("#log > li.kind-prey_reacted").last
    expect(reaction).to_contain_text("end-of-turn test", timeout=LIVE)
    expect(reaction).to_contain_text("Blue die")
    expect(reaction.locator(".faces li.die")).to_have_count(2)

    settled(gm, "end_hunt")
    act(gm, "end_hunt")
    expect(player.locator("#turn")).to_contain_text("The hunt is over", timeout=LIVE)
    expect(player.locator(".hunt-result")).to_contain_text("Tribe of Ourk")


WATCH_GLIDES = """() => {
    window.glides = [];
    new MutationObserver((changes) => {
        for (const change of changes) {
            const token = change.target;
            if (token.classList && token.classList.contains("gliding")) {
                const glide = {token: token.dataset.token,
                               transition: getComputedStyle(token).transitionDuration};
                window.glides.push(glide);
                // Where the token is drawn a frame later: on its way, not yet arrived.
                requestAnimationFrame(() => {
                    glide.drawn = new DOMMatrix(getComputedStyle(token).transform).f;
                });
            }
        }
    }).observe(document.body, {subtree: true, attributes: true, attributeFilter: ["class"]});
}"""


def test_moves_glide_on_the_board_unless_the_reader_wants_less_motion(new_context, tribe,
                                                                      tmp_path):
    """A move another browser makes slides the token from where it stood (the trail stays);
    a reader with prefers-reduced-motion sees it jump."""
    gm = log_in(new_context, tribe.gm)
    url = open_match(gm, tribe, "Le mammouth", ["Ourk"])
    act(gm, "choose_scenario", {"scenario": "mammouth"})
    settled(gm, "begin_hunt")
    act(gm, "begin_hunt")
    settled(gm, "next_step")
    act(gm, "next_step")
    settled(gm, "move")
    player = log_in(new_context, tribe.player)
    player.goto(url)
    calm = new_context(locale="en-GB", reduced_motion="reduce").new_page()
    calm.context.add_cookies(player.context.cookies())
    calm.goto(url)
    for page in (player, calm):
        expect(page.locator(".table-state")).to_have_attribute("data-seq", gm.locator(
            ".table-state").get_attribute("data-seq"), timeout=LIVE)
        expect(page.locator("#table")).to_have_attribute("data-live", "true", timeout=LIVE)
        page.evaluate(WATCH_GLIDES)
    act(gm, "move", {"token": "t1", "x": "24", "y": "29"})
    player.wait_for_function("() => window.glides.length > 0 && 'drawn' in window.glides[0]",
                             timeout=LIVE)
    player.screenshot(path=str(tmp_path / "glide.png"))
    glides = player.evaluate("window.glides")
    assert glides[0]["token"] == "t1" and glides[0]["transition"] == "0.8s"
    assert 29 < glides[0]["drawn"] <= 33  # from (24, 33) towards (24, 29)
    expect(token(player, "t1")).not_to_have_class("gliding", timeout=LIVE)
    expect(token(player, "t1")).to_have_attribute("data-y", "29.0")
    expect(token(calm, "t1")).to_have_attribute("data-y", "29.0", timeout=LIVE)
    assert calm.evaluate("window.glides") == []


def test_start_a_hunt_from_a_scenario_in_the_compendium(new_context, tribe):
    """« Lancer une chasse »: from the compendium, the new-match form comes with the scenario
    set and the player's hunter ticked; the match opens on its ground with its prey."""
    gm = log_in(new_context, tribe.gm)
    gm.goto(f"/campaigns/{tribe.id}/compendium")
    row = gm.locator("#compendium-scenario tr", has_text="Le mammouth blessé")
    row.get_by_role("link", name="Start a hunt").click()
    expect(gm.locator(".start-from")).to_contain_text("Le mammouth blessé")
    expect(gm.get_by_label("Ourk")).to_be_checked()
    gm.get_by_role("button", name="Start the match").click()
    expect(gm.locator("h1")).to_have_text("Le mammouth blessé")
    expect(gm.locator("#hunt-title")).to_have_text("Le mammouth blessé")
    expect(token(gm, "t2")).to_be_visible(timeout=LIVE)  # the mammoth, placed at once
    expect(gm.locator("#action-choose_scenario option:checked")).to_have_text(
        "Le mammouth blessé")


OVERLAPS = """() => {
    const label = document.querySelector("#board .terrain.ground-camp .camp-label");
    const a = label.getBoundingClientRect();
    const hits = [];
    const parts = "#board .token .piece, #board .token .token-label";
    for (const part of document.querySelectorAll(parts)) {
        const b = part.getBoundingClientRect();
        if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) {
            hits.push(part.closest(".token").dataset.name);
        }
    }
    const camp = label.parentNode.querySelector("rect").getBoundingClientRect();
    return {hits, inside: a.left >= camp.left && a.right <= camp.right
                          && a.top >= camp.top && a.bottom <= camp.bottom,
            text: label.firstChild.textContent.trim()};
}"""


@pytest.mark.parametrize(("width", "height"), [(390, 844), (1366, 900)])
def test_the_camp_label_is_not_under_the_hunters_standing_in_the_camp(
        new_context, tribe, width, height):
    """The hunters stand in a row across the middle of the camp (Ourk alone: in its very
    centre); the camp's name sits at one end of it, clear of every figure and its label, at
    the default zoom on a phone and on a desktop."""
    gm = log_in(new_context, tribe.gm)
    gm.set_viewport_size({"width": width, "height": height})
    open_match(gm, tribe, "Le mammouth", ["Ourk"])
    act(gm, "choose_scenario", {"scenario": "mammouth"})
    expect(token(gm, "t2")).to_be_visible(timeout=LIVE)
    expect(gm.locator("#board .camp-label")).to_be_visible()
    seen = gm.evaluate(OVERLAPS)
    assert seen["text"] == "Camp"
    assert seen["hits"] == [], seen
    assert seen["inside"], seen
