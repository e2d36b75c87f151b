"""The platform as a person uses it, in Chromium."""

from __future__ import annotations

import itertools

from playwright.sync_api import expect

PASSWORD = "correct horse battery"
_numbers = itertools.count(1)


def register(page, username: str, display_name: str) -> None:
    page.goto("/register")
    page.fill("#field-username", username)
    page.fill("#field-display_name", display_name)
    page.fill("#field-password", PASSWORD)
    page.locator("main form button[type=submit]").click()
    expect(page).to_have_url("/campaigns")


def test_register_create_invite_join_and_see_each_other(new_context):
    n = next(_numbers)
    gm = new_context(locale="en-US", viewport={"width": 390, "height": 844}).new_page()
    register(gm, f"gmuser{n}", "Game Master Gaelle")
    gm.fill("#field-name", "La Tour Noire")
    gm.fill("#field-description", "Une campagne de test")
    gm.select_option("#field-system", "libre")
    gm.get_by_role("button", name="Create the campaign").click()
    expect(gm.locator("h1")).to_have_text("La Tour Noire")
    campaign_url = gm.url

    gm.goto(campaign_url + "/invites")
    gm.select_option("#field-role", "player")
    gm.get_by_role("button", name="Create the link").click()
    link = gm.locator("input.invite-link").first.input_value()
    assert "/invite/" in link

    player = new_context(locale="en-US").new_page()
    player.goto(link)
    player.get_by_role("link", name="Create an account").click()
    player.fill("#field-username", f"player{n}")
    player.fill("#field-display_name", "Player Pierre")
    player.fill("#field-password", PASSWORD)
    player.locator("main form button[type=submit]").click()
    player.get_by_role("button", name="Join the campaign").click()
    expect(player.locator("h1")).to_have_text("La Tour Noire")

    for page in (player, gm):
        page.goto(campaign_url)
        names = page.locator("table.members .member-name")
        expect(names).to_contain_text(["Game Master Gaelle", "Player Pierre"])


def test_an_inline_error_shows_in_the_browser_and_keeps_the_typed_text(new_context):
    n = next(_numbers)
    page = new_context(locale="en-US").new_page()
    page.goto("/register")
    page.fill("#field-username", f"shorty{n}")
    page.fill("#field-password", "short")
    page.locator("main form button[type=submit]").click()
    expect(page.locator("#password-error")).to_be_visible()
    expect(page.locator("#field-username")).to_have_value(f"shorty{n}")


def test_the_interface_is_french_by_default_and_switches_to_english(new_context):
    page = new_context(locale="fr-FR").new_page()
    page.goto("/login")
    expect(page.locator("html")).to_have_attribute("lang", "fr")
    expect(page.locator("h1")).to_have_text("Connexion")
    page.select_option("#language-select", "en")
    page.locator(".language-switch button").click()
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.locator("h1")).to_have_text("Log in")
    page.goto("/register")
    expect(page.locator("html")).to_have_attribute("lang", "en")
