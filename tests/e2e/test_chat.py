"""The chat in Chromium: a whisper reaches only its recipient, live, on a desktop and a phone."""

from __future__ import annotations

import itertools

from playwright.sync_api import expect

from tests.e2e.test_platform import register

_numbers = itertools.count(1)
DESKTOP = {"width": 1366, "height": 900}
PHONE = {"width": 390, "height": 844}


def _join(context, link: str, username: str, display_name: str):
    page = context.new_page()
    register(page, username, display_name)
    page.goto(link)
    page.locator("main form button[type=submit]").click()
    expect(page.locator("h1")).to_have_text("La Tour Noire")
    return page


def _say(page, to_label: str, text: str) -> None:
    page.select_option("#chat-to", label=to_label)
    page.fill("#chat-body", text)
    page.locator("#chat-form button[type=submit]").click()
    expect(page.locator("#chat-body")).to_have_value("")  # the form came back empty


def test_a_whisper_reaches_only_its_recipient(new_context):
    n = next(_numbers)
    gm = new_context(locale="fr-FR", viewport=DESKTOP).new_page()
    register(gm, f"mjchat{n}", "Gaëlle")
    gm.fill("#field-name", "La Tour Noire")
    gm.select_option("#field-system", "libre")
    gm.locator("main form button[type=submit]").first.click()
    expect(gm.locator("h1")).to_have_text("La Tour Noire")
    campaign_url = gm.url
    links = []
    for made in (1, 2):  # a link lets one person in
        gm.goto(campaign_url + "/invites")
        gm.select_option("#field-role", "player")
        gm.locator("form[action$='/invites'] button[type=submit]").click()
        expect(gm.locator("input.invite-link")).to_have_count(made)
        shown = [field.input_value() for field in gm.locator("input.invite-link").all()]
        links += [link for link in shown if link not in links][:1]
    assert len(links) == 2
    alice = _join(new_context(locale="fr-FR", viewport=PHONE), links[0], f"alicechat{n}",
                  "Alice")
    bruno = _join(new_context(locale="fr-FR", viewport=DESKTOP), links[1], f"brunochat{n}",
                  "Bruno")

    pages = {"gm": gm, "alice": alice, "bruno": bruno}
    for page in pages.values():
        page.goto(campaign_url + "/chat")
        expect(page.locator("#chat-form")).to_be_visible()
    # Every stream is connected before anyone speaks (the page asks from its last message).
    gm.wait_for_timeout(500)

    _say(gm, "Toute la table", "Bienvenue à la Tour")
    _say(alice, "Le MJ seulement", "Je vole la clé en douce")
    _say(alice, "Bruno seulement", "Bruno, fais diversion")
    _say(alice, "Toute la table", "/r 2d6 # discrétion")

    for page in pages.values():
        expect(page.locator("#chat-messages .chat-rolled .total")).to_have_count(1)
    expect(gm.locator("#chat-messages .chat-body")).to_have_text(
        ["Bienvenue à la Tour", "Je vole la clé en douce"])
    expect(gm.locator(".badge.whisper")).to_have_text(["au MJ"])
    expect(bruno.locator("#chat-messages .chat-body")).to_have_text(
        ["Bienvenue à la Tour", "Bruno, fais diversion"])
    expect(bruno.locator(".badge.whisper")).to_have_text(["à vous"])
    expect(alice.locator("#chat-messages .chat-body")).to_have_text(
        ["Bienvenue à la Tour", "Je vole la clé en douce", "Bruno, fais diversion"])
    assert "clé" not in bruno.content() and "diversion" not in gm.content()

    # Nothing overflows the phone's width; the newest message is in view.
    assert alice.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    expect(alice.locator("#chat-messages li").last).to_be_in_viewport()
    expect(alice.locator(".chat-empty")).to_be_hidden()
    for name, page in pages.items():
        page.screenshot(path=f"/tmp/talk/chat-{name}.png", full_page=True)
