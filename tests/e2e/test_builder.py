"""The Mutatior builder in Chromium: no two boxes overlap nor spill, on a desktop and a
phone; the derived values follow the new mutant as it is typed."""

from __future__ import annotations

import itertools

import pytest
from playwright.sync_api import expect

from tests.e2e.test_platform import register

_numbers = itertools.count(1)

# Every box of a card, and every card: [left, top, right, bottom] in page pixels.
BOXES = """() => Array.from(document.querySelectorAll('.limb-card')).map(card => {
  const box = r => [r.left + scrollX, r.top + scrollY, r.right + scrollX, r.bottom + scrollY];
  return {card: box(card.getBoundingClientRect()),
          parts: Array.from(card.querySelectorAll('input, select, label, table, legend'))
                 .map(el => box(el.getBoundingClientRect()))};
})"""


def _overlap(a, b) -> bool:
    return a[0] < b[2] - 1 and b[0] < a[2] - 1 and a[1] < b[3] - 1 and b[1] < a[3] - 1


def _inside(inner, outer) -> bool:
    return (inner[0] >= outer[0] - 1 and inner[2] <= outer[2] + 1
            and inner[1] >= outer[1] - 1 and inner[3] <= outer[3] + 1)


@pytest.mark.parametrize("viewport", [{"width": 1366, "height": 900},
                                      {"width": 390, "height": 844}], ids=["desktop", "phone"])
def test_the_limb_cards_never_overlap_and_derived_values_follow_the_typing(new_context,
                                                                          viewport):
    n = next(_numbers)
    page = new_context(locale="fr-FR", viewport=viewport).new_page()
    register(page, f"eleveur{n}{viewport['width']}", "Éleveuse")
    page.fill("#field-name", "Arène")
    page.select_option("#field-system", "mutatior")
    page.locator("main form button[type=submit]").first.click()
    expect(page.locator("h1")).to_have_text("Arène")
    page.goto(page.url + "/characters/new")

    # Each limb folds to one line saying what it holds; unfolded, it holds all its parts.
    cards = page.locator("details.limb-card")
    expect(cards.first.locator("> summary")).to_contain_text("muscles")
    for index in range(cards.count()):
        cards.nth(index).locator("> summary").click()
    cards = page.evaluate(BOXES)
    assert len(cards) >= 2
    for first, second in itertools.combinations(cards, 2):
        assert not _overlap(first["card"], second["card"])
    for card in cards:
        for part in card["parts"]:
            assert _inside(part, card["card"]), (part, card["card"])
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    page.screenshot(path=f"/tmp/talk/builder-new-{viewport['width']}.png", full_page=True)

    # A trunk of 3 muscles and 6 biomoteurs, a head of 8 muscles and a lobe: the panel
    # shows the biomass as soon as the sheet has no problem left.
    page.fill("#field-name", "Grosbaf")
    page.fill("#limb-0-name", "tronc")
    page.check("#limb-0-trunk")
    page.fill("#limb-0-muscles", "3")
    page.fill("#limb-0-biomoteurs", "6")
    page.fill("#limb-1-name", "tête")
    page.fill("#limb-1-muscles", "7")
    page.fill("#limb-1-lobes", "1")
    page.locator("details.sheet-section[data-fields=skills] > summary").click()
    page.check("#skill-coquet")
    expect(page.locator("#derived-panel [data-key='biomass']")).to_be_visible()
