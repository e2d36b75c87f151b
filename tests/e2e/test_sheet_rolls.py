"""A click on a sheet rolls the game's own test into the campaign's roll log (issue 23): the
roll shows in the sheet's panel and, live, on the rolls page another browser has open, and in
the journal of the table where the character sits — a secret roll as a secret."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from app.rules.cyborg.profiles import CYBORGS
from app.rules.tiamat.profiles import voyous
from app.rules.tiamat.sheet import jack
from tests.e2e.table import LIVE, log_in, open_match, scripted, seat_campaign

SIZES = {"desktop": {"width": 1366, "height": 900}, "phone": {"width": 390, "height": 844}}


@pytest.mark.parametrize("size", SIZES)
def test_a_skill_clicked_on_a_tiamat_sheet_reaches_the_rolls_page(new_context, live_server,
                                                                   size):
    campaign = seat_campaign(live_server.url, system="tiamat", name="Shanghai",
                             characters=[("player", {"name": "Jack", "sheet": jack()})])
    jack_id = campaign.characters["Jack"]["id"]
    gm = log_in(new_context, campaign.gm)
    gm.goto(f"/campaigns/{campaign.id}/rolls")
    expect(gm.locator("#roll-entries")).to_be_attached()
    player = log_in(new_context, campaign.player)
    player.set_viewport_size(SIZES[size])
    player.goto(f"/campaigns/{campaign.id}/characters/{jack_id}")

    # « Jack essaie de pirater un système … difficile (8) … 3 et 7 … (7+3) = 10 ».
    player.locator("#roll-options > summary").click()
    player.select_option("#roll-option-difficulty", "difficile")
    button = player.get_by_role("button", name="Roll Informatique")
    with scripted(live_server, 3, 7):
        button.click()
        result = player.locator("#roll-result")
        expect(result).to_contain_text("Intelligence + Informatique — Jack")
        expect(result.locator(".total")).to_have_text("10")
    expect(result).to_contain_text("success")
    expect(button).to_be_focused()  # the next roll is one key away
    expect(player.locator("#sheet-rolls")).to_be_in_viewport()

    entry = gm.locator("#roll-entries > li").first
    expect(entry).to_contain_text("Intelligence + Informatique — Jack", timeout=LIVE)
    expect(entry.locator(".total")).to_have_text("10")
    expect(entry.locator(".die")).to_have_count(2)
    player.screenshot(path=f"/tmp/sheet-roll-tiamat-{size}.png")


def test_a_cyborg_weapon_rolls_its_skill_and_a_refused_option_says_why(new_context,
                                                                        live_server):
    campaign = seat_campaign(live_server.url, system="cyborg", name="Labo",
                             characters=[("gm", {"name": "Kenji", "owner_id": None,
                                                 "sheet": CYBORGS[0].sheet})])
    kenji = campaign.characters["Kenji"]["id"]
    gm = log_in(new_context, campaign.gm)
    gm.goto(f"/campaigns/{campaign.id}/characters/{kenji}")
    gm.locator("#roll-options > summary").click()
    gm.fill("#roll-option-modifier", "beaucoup")
    gm.get_by_role("button", name="Roll Tronçonneuse").click()
    field = gm.locator("#roll-option-modifier")
    expect(field).to_have_attribute("aria-invalid", "true")
    expect(gm.locator("#roll-option-modifier-error")).to_contain_text("whole number")
    field.fill("-10")
    with scripted(live_server, 52):
        gm.get_by_role("button", name="Roll Tronçonneuse").click()
        expect(gm.locator("#roll-result .total")).to_have_text("52")
    # Arme blanche 61 %, −10: 51; the 52 fails.
    expect(gm.locator("#roll-result")).to_contain_text("failure")
    expect(gm.locator("#roll-option-modifier")).not_to_have_attribute("aria-invalid", "true")


def show_journal(page) -> None:
    """On a phone the journal is a tab of the table."""
    tab = page.locator("#tab-log")
    if tab.is_visible():
        tab.click()
    expect(page.locator("#log")).to_be_visible()


@pytest.mark.parametrize("size", SIZES)
def test_a_sheet_roll_reaches_the_journal_of_the_table_live(new_context, live_server, size):
    campaign = seat_campaign(live_server.url, system="tiamat", name="Shanghai", characters=[
        ("player", {"name": "Jack", "sheet": jack()}),
        ("gm", {"name": "Voyous", "owner_id": None, "sheet": voyous()})])
    jack_id = campaign.characters["Jack"]["id"]
    sheet_url = f"/campaigns/{campaign.id}/characters/{jack_id}"
    gm = log_in(new_context, campaign.gm)
    gm.set_viewport_size(SIZES[size])
    table_url = open_match(gm, campaign, "Entrepôt n°8", ["Jack", "Voyous"])
    expect(gm.locator("#table[data-live]")).to_have_count(1)
    show_journal(gm)
    player = log_in(new_context, campaign.player)
    player.set_viewport_size(SIZES[size])
    player.goto(sheet_url)

    # The player rolls Informatique from Jack's sheet: the GM's journal has it, live.
    with scripted(live_server, 3, 7):
        player.get_by_role("button", name="Roll Informatique").click()
        expect(player.locator("#roll-result .total")).to_have_text("10")
    line = gm.locator("#log > li.kind-sheet_rolled")
    expect(line).to_have_count(1, timeout=LIVE)
    expect(line).to_contain_text("rolls from a sheet: Intelligence + Informatique — Jack.")
    expect(line.locator(".die-row-total")).to_have_text("= 10")
    expect(line).to_be_in_viewport()
    gm.screenshot(path=f"/tmp/sheet-roll-journal-gm-{size}.png")

    # The GM rolls Jack's Force in secret from the sheet: the player's table says only that.
    player.goto(table_url)
    expect(player.locator("#table[data-live]")).to_have_count(1)
    show_journal(player)
    gm.goto(sheet_url)
    gm.locator("#roll-options > summary").click()
    gm.select_option("#roll-visibility", "gm")
    with scripted(live_server, *[9] * 8):
        gm.get_by_role("button", name="Roll Force").click()
        expect(gm.locator("#roll-result .total")).to_be_visible()
    secret = player.locator("#log > li").last
    expect(secret).to_contain_text("rolled the dice in secret", timeout=LIVE)
    expect(secret.locator(".die-face")).to_have_count(0)
    expect(player.locator("#log > li.kind-sheet_rolled")).to_have_count(1)
    player.screenshot(path=f"/tmp/sheet-roll-journal-player-{size}.png")
