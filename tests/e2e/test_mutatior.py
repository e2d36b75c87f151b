"""A short Mutatior fight in two Chromium profiles: Mia (GM, who also runs Zetzet) and Paul
(Grosbaf's trainer). The accounts, the campaign and the mutants come through the JSON API; the
fight is played through the pages: placement, the fight's start (weather, initiative), moving
into contact, an attack, the end of the fight, each browser seeing the other's actions live.
The table's dice are real, so the script follows whoever has the initiative.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from app.rules.mutatior.samples import grosbaf, zetzet
from app.rules.mutatior.sheet import sheet_of
from tests.e2e.table import LIVE, Campaign, act, log_in, seat_campaign, token


@pytest.fixture
def arena(live_server) -> Campaign:
    return seat_campaign(live_server.url, system="mutatior", name="L'arène", characters=[
        ("player", {"name": "Grosbaf", "sheet": sheet_of(grosbaf())}),
        ("gm", {"name": "Zetzet", "sheet": sheet_of(zetzet())})])


def current(page: Page) -> str:
    return page.locator("#turn .current-turn").inner_text().removesuffix("'s turn")


def turn_moved_on(page: Page, who: str) -> None:
    """The turn is no longer ``who``'s on ``page``; else the failure says which seq the state
    on screen is at, and which the journal is at (a state that never came, or a rule)."""
    try:
        expect(page.locator("#turn")).not_to_contain_text(f"{who}'s turn", timeout=LIVE)
    except AssertionError:
        seen = page.evaluate("""() => ({
            state: document.querySelector(".table-state")?.dataset.seq,
            log: Array.from(document.querySelectorAll("#log > li"),
                            (li) => `${li.dataset.seq} ${li.className}`).slice(-4)})""")
        pytest.fail(f"still {who}'s turn: {seen}")


def test_a_short_fight_in_the_browser(new_context, arena):
    gm = log_in(new_context, arena.gm)
    gm.on("dialog", lambda dialog: dialog.accept())
    player = log_in(new_context, arena.player)
    gm.goto(f"/campaigns/{arena.id}/matches")
    gm.fill("#field-name", "Le choc")
    gm.get_by_label("Grosbaf").check()
    gm.get_by_label("Zetzet").check()
    gm.fill("#field-width", "60")
    gm.fill("#field-height", "60")
    gm.get_by_role("button", name="Start the match").click()
    expect(gm.locator("h1")).to_have_text("Le choc")
    player.goto(gm.url)
    expect(player.locator("#participant-m1 .participant-name")).to_have_text("Grosbaf")
    expect(token(player, "m2")).to_be_visible()

    # Placement: 30 cm apart; too close is refused with the rule.
    act(player, "move", {"token": "m1", "x": "30", "y": "40"})
    expect(player.locator("form#action-move .form-error[role=alert]")).to_contain_text("30 cm")
    act(player, "move", {"token": "m1", "x": "30", "y": "20"})
    expect(token(gm, "m1")).to_have_attribute("data-y", "20", timeout=LIVE)
    act(gm, "move", {"token": "m2", "x": "30", "y": "50"})
    expect(token(player, "m2")).to_have_attribute("data-y", "50", timeout=LIVE)

    # The fight: weather and the first initiative.
    act(gm, "start_fight", {"uneven": "on"})  # a duel: the trainers agree
    expect(player.locator("#log > li.kind-fight_started")).to_be_visible(timeout=LIVE)
    expect(player.locator("#turn .round")).to_have_text("Round 1", timeout=LIVE)
    expect(player.locator(".weather")).to_be_visible()

    # Whoever has the initiative walks towards the other (pump × 2 cm, less in the snow) and
    # ends its turn, until one of them stands in contact and attacks.
    pages = {"Grosbaf": player, "Zetzet": gm}
    ids = {"Grosbaf": "m1", "Zetzet": "m2"}
    for _ in range(8):
        expect(gm.locator("#turn .current-turn, form#action-new_round").first) \
            .to_be_visible(timeout=LIVE)
        if not gm.locator("#turn .current-turn").count():
            act(gm, "new_round")
            expect(gm.locator("#turn .current-turn")).to_be_visible(timeout=LIVE)
        who = current(gm)
        page = pages[who]
        expect(page.locator("form#action-end_turn")).to_have_count(1, timeout=LIVE)
        if page.locator("form#action-attack").count():
            break
        me, other = ids[who], ids["Zetzet" if who == "Grosbaf" else "Grosbaf"]
        y, y_other = (float(token(page, tid).get_attribute("data-y")) for tid in (me, other))
        left = float(re.search(r"([0-9.]+) cm", page.locator(
            "form#action-move .help").first.inner_text()).group(1))
        step = min(left, abs(y_other - y) - 4)
        target = round(y + step if y_other > y else y - step)
        seen = gm.locator("#log > li.kind-moved").count()
        act(page, "move", {"token": me, "x": "30", "y": str(target)})
        expect(gm.locator("#log > li.kind-moved")).to_have_count(seen + 1, timeout=LIVE)
        if page.locator("form#action-attack").count():
            break
        ended = gm.locator("#log > li.kind-turn_ended").count()
        act(page, "end_turn")
        expect(gm.locator("#log > li.kind-turn_ended")).to_have_count(ended + 1, timeout=LIVE)
        turn_moved_on(gm, who)
    attacker = pages[current(gm)]
    expect(attacker.locator("form#action-attack")).to_be_visible(timeout=LIVE)
    act(attacker, "attack")
    line = player.locator("#log > li.kind-attacked").first
    expect(line).to_be_visible(timeout=LIVE)
    expect(line.locator(".log-text")).to_contain_text("d6 + muscles each")
    expect(line.locator(".faces li.die")).not_to_have_count(0)
    # d6 each side, and two pump rolls of 2d6 more when the clash is a tie.
    assert line.locator(".faces li.die").count() in (2, 6)

    # The GM ends the fight; XP and biomass are settled, the player sees it live.
    act(gm, "end_fight")
    expect(player.locator("#log > li.kind-fight_ended")).to_be_visible(timeout=LIVE)
    expect(player.locator("#turn")).to_contain_text("The fight is over", timeout=LIVE)
    expect(gm.locator("#action-panel form.action")).to_have_count(0)
