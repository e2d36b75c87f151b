"""The action panel's order (issue 23): what the table awaits from the viewer pinned at the
top, the GM's own tools folded in one section; a refusal shown in place, by its field, and
never « None »; htmx gets a refusal it shows in place as 200 (the browser logs no failed load).

Mia is the GM, Paul plays Aldo (tests/match_fixtures.py).
"""

from __future__ import annotations

from bs4 import BeautifulSoup

from tests.helpers import soup

# What only the GM of a libre match may do: running the table, never part of a turn.
LIBRE_GM_TOOLS = {"add_token", "set_initiative", "set_board", "add_terrain", "remove_token",
                  "end_match"}
# Before the first round, moving the turn on is the GM's alone too.
TURN_KINDS = {"next_turn", "delay"}


def kinds(section) -> list[str]:
    return [form["data-kind"] for form in section.select("form.action")] if section else []


def first_turn(table) -> None:
    """The GM rolls initiative and opens the first turn (Aldo's: the only one seated)."""
    table.dice.script(4)
    table.act(table.gm, kind="roll_initiative")
    table.act(table.gm, kind="next_turn")


def panel(page: BeautifulSoup):
    return page.select_one("#action-panel")


def test_the_gm_tools_fold_into_one_section_after_the_rest(libre_match):
    page = libre_match.gm.page(libre_match.url)
    tools = panel(page).select_one("details.action-gm-tools")
    assert tools is not None and not tools.has_attr("open")
    assert set(kinds(tools)) == LIBRE_GM_TOOLS | TURN_KINDS
    main = panel(page).select_one(":scope > .action-forms")
    assert "roll" in kinds(main) and not LIBRE_GM_TOOLS & set(kinds(main))
    # Once a round runs, a player may move the turn on too: it is no GM tool any more.
    first_turn(libre_match)
    page = libre_match.gm.page(libre_match.url)
    assert set(kinds(panel(page).select_one("details.action-gm-tools"))) == LIBRE_GM_TOOLS
    assert TURN_KINDS.issubset(kinds(panel(page).select_one(":scope > .action-forms")))
    # A player has no such section: nothing of theirs is a GM tool.
    assert panel(libre_match.player.page(libre_match.url)).select_one(
        "details.action-gm-tools") is None


def test_the_players_turn_pins_what_comes_with_it_at_the_top(libre_match):
    page = libre_match.player.page(libre_match.url)
    assert panel(page).select_one(".action-now") is None  # nobody's turn yet
    first_turn(libre_match)
    page = libre_match.player.page(libre_match.url)
    now = panel(page).select_one(".action-now")
    assert now.select_one(".your-turn").get_text(strip=True) == "Your turn!"
    assert {"move", "next_turn"} <= set(kinds(now))
    # The turn's move comes first; initiative, rolled already, waits below with the rest.
    assert kinds(now)[0] == "move" and "roll_initiative" not in kinds(now)
    assert "roll_initiative" in kinds(panel(page).select_one(":scope > .action-forms"))
    # What anyone may always do (a note, a free roll) stays in the list below.
    assert not {"note", "roll"} & set(kinds(now))
    assert {"note", "roll"} <= set(kinds(panel(page).select_one(":scope > .action-forms")))
    # The phone opens on the actions (the tab) — and the GM is told nothing of Paul's turn.
    assert page.select_one("#table")["data-tab"] == "actions"
    assert panel(libre_match.gm.page(libre_match.url)).select_one(".action-now") is None


def test_a_choice_left_out_is_never_called_none(libre_match):
    response = libre_match.act(libre_match.gm, kind="remove_token")
    error = soup(response).select_one("#action-remove_token-error")
    assert error.get_text(strip=True) == "no participant was chosen: choose one"


def test_a_refusal_quoting_a_value_is_shown_by_the_field_that_sent_it(libre_match):
    response = libre_match.act(libre_match.gm, kind="remove_token", token="t9")
    error = soup(response).select_one("form#action-remove_token .form-error[role=alert]")
    assert error["data-field"] == "token"


def test_htmx_gets_a_refusal_it_shows_in_place_as_200(libre_match):
    fields = {"kind": "roll", "expression": "2d"}
    plain = libre_match.post(libre_match.player, libre_match.url + "/actions", fields)
    assert plain.status_code == 422 and "Tablee-Refused" not in plain.headers
    swapped = libre_match.post(libre_match.player, libre_match.url + "/actions", fields,
                               headers={"HX-Request": "true"})
    assert (swapped.status_code, swapped.headers["Tablee-Refused"]) == (200, "422")
    assert soup(swapped).select_one("form#action-roll .form-error[role=alert]") is not None
    # Nothing else changes its status: an action that passes is a plain 200.
    libre_match.dice.script(3)
    done = libre_match.post(libre_match.player, libre_match.url + "/actions",
                            {"kind": "roll", "expression": "1d6"},
                            headers={"HX-Request": "true"})
    assert done.status_code == 200 and "Tablee-Refused" not in done.headers


def test_a_setting_made_once_for_the_fight_is_not_pinned_with_the_turn():
    """A standing defence or standing orders stay where they are on a player's turn; the
    turn's own moves are pinned (Tiamat's panel pinned « Défense permanente » with them)."""
    from app.rules.match import ActionForm, Actor
    from app.web.table_view import now_kinds

    class Rules:  # a bystander may only write notes
        def legal_actions(self, state, actor: Actor):
            return [ActionForm("note", "Add a note", "")]

    forms = [ActionForm("attack", "Attack", ""), ActionForm("note", "Add a note", ""),
             ActionForm("standing_defence", "Standing defence", "", {"setting": True})]
    assert now_kinds(Rules(), {}, forms, turn=True) == {"attack"}
    assert now_kinds(Rules(), {}, forms, turn=False) == set()


def test_the_gm_s_own_character_s_turn_is_their_turn(db, libre_table):
    """A GM who seats a character of their own (Mecha-Ring's host with a team) is told it
    is their turn and finds its forms pinned, as a player would, and the phone's tabs open
    on the actions."""
    from app.models import Character

    db.get(Character, libre_table.aldo).owner_id = libre_table.ids["mia"]
    db.commit()
    response = libre_table.post(libre_table.gm, libre_table.matches_url, {
        "name": "Seul", "characters": [str(libre_table.aldo)], "width": "120",
        "height": "80", "unit": "cm"})
    libre_table.url = response.headers["location"]
    first_turn(libre_table)
    page = libre_table.gm.page(libre_table.url)
    now = panel(page).select_one(".action-now")
    assert now.select_one(".your-turn").get_text(strip=True) == "Your turn!"
    assert "move" in kinds(now)
    assert page.select_one("#table")["data-tab"] == "actions"
