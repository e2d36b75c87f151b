"""Where a player types dice, the help shows the current notation (docs/dice.md, issue 23):
keeping, a target, rerolls, named parts, Tiamat's pool — each example one the parser reads,
in French on a French page (« [tranchant] », not "[slashing]")."""

from __future__ import annotations

import pytest
from sqlalchemy import update

from app.models import User
from app.rules.notation import parse
from tests.helpers import soup

pytest_plugins = ["tests.match_fixtures"]

SHOWN = ["4d6kh3", "1d20+5 >= 15", "2d6rr<3", "1d8 [tranchant] + 2d6 [feu]", "5d10t"]


@pytest.fixture
def french(db, libre_match):
    db.execute(update(User).values(locale="fr"))
    db.commit()
    return libre_match


@pytest.mark.parametrize("where", ["rolls", "table"])
def test_the_dice_fields_show_examples_of_the_current_notation(french, where):
    path = french.url if where == "table" else f"/campaigns/{french.campaign_id}/rolls"
    page = french.player.page(path)
    field = page.select_one("#roll-expression" if where == "table" else "#field-expression")
    assert field["placeholder"].startswith("1d20+5 >= 15")
    parse(field["placeholder"])
    helped = page.select_one("#" + field["aria-describedby"])
    assert helped.text.startswith("Par exemple :")
    examples = [code.text for code in helped.select("code")]
    assert examples[:5] == SHOWN
    for example in examples:
        parse(example)
    if where == "rolls":
        assert examples[5] == "2d6+1 # dégâts" and "à quoi sert le jet" in helped.text


@pytest.mark.parametrize("slot", ["expression-odds-error", "roll-odds-error"])
def test_an_empty_field_opening_the_page_is_refused_nowhere(french, slot):
    """The odds are asked as the page opens, nothing typed yet: no « Écrivez une expression »
    in red under a field the player has not touched."""
    shown = french.player.get(f"/campaigns/{french.campaign_id}/rolls/distribution",
                              params={"expression": "", "slot": slot},
                              headers={"HX-Request": "true"})
    assert shown.status_code == 200
    error = soup(shown).select_one("#" + slot)
    assert error["hx-swap-oob"] == "true" and error.text == ""


def test_what_asks_the_server_inside_an_action_form_swaps_only_itself(french):
    """An element of an action form that asks the server something (the dice field's odds)
    names its own target: else it inherits the form's (the whole action panel), and typing
    an expression replaced the panel — the field itself — with a chart."""
    page = french.player.page(french.url)
    askers = [element for form in page.select("#action-panel form.action")
              for element in form.select("[hx-get], [hx-post]")]
    assert askers, "the dice field asks its odds"
    for element in askers:
        assert element.get("hx-target") not in (None, "", "#action-panel"), element.get("id")
