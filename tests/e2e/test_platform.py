"""The platform as a person uses it, in Chromium."""

from __future__ import annotations

from playwright.sync_api import expect


def test_the_interface_is_french_by_default_and_switches_to_english(new_context):
    page = new_context(locale="fr-FR").new_page()
    page.goto("/login")
    expect(page.locator("html")).to_have_attribute("lang", "fr")
    page.select_option("#language-select", "en")
    page.get_by_role("button", name="Changer de langue").click()
    expect(page.locator("html")).to_have_attribute("lang", "en")
    page.goto("/register")
    expect(page.locator("html")).to_have_attribute("lang", "en")
