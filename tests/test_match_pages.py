"""The live table in HTML: the match list, the table page, actions, undo/redo, replay.

Mia is the GM, Paul plays Aldo, Sam watches, Olga is not in the campaign
(tests/match_fixtures.py). The live stream has its own tests: tests/test_match_stream.py.
"""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup
from sqlalchemy import func, select

from app.models import Match, User
from app.services import campaigns
from tests.helpers import soup


@pytest.fixture
def table(libre_table):
    return libre_table


@pytest.fixture
def match(libre_match):
    return libre_match


def log_lines(page: BeautifulSoup) -> list:
    return page.select("#log > li.log-line")


def last_line_text(page: BeautifulSoup) -> str:
    return log_lines(page)[-1].select_one(".log-text").get_text(" ", strip=True)


# — the list and opening a match ———————————————————————————————————————————————————

def test_the_gm_opens_a_match_with_roster_characters(table, db):
    page = table.gm.page(table.matches_url)
    assert page.select_one(".no-matches") is not None
    box = page.select_one(f'#new-match input[name="characters"][value="{table.aldo}"]')
    assert box is not None and box.find_parent("label").get_text(" ", strip=True) \
        .startswith("Aldo")
    response = table.post(table.gm, table.matches_url, {
        "name": "Escarmouche", "characters": [str(table.aldo)], "width": "90",
        "height": "60", "unit": "in"})
    assert response.status_code == 303
    page = table.gm.page(response.headers["location"])
    assert page.select_one("h1").get_text(strip=True) == "Escarmouche"
    assert page.select_one("#participant-t1 .participant-name").get_text(strip=True) == "Aldo"
    assert page.select_one("#participant-t1 .hp-text").get_text(strip=True) == "12 / 12"
    board = page.select_one("svg#board")
    # 90 × 60 inches, drawn with a margin round it for the rulers (its viewBox is wider)
    assert (board["data-width"], board["data-height"], board["data-unit"]) == ("90", "60", "in")
    listed = table.player.page(table.matches_url).select("table.matches a.match-name")
    assert [link.get_text(strip=True) for link in listed] == ["Escarmouche"]


def test_a_bad_board_is_refused_inline_and_creates_nothing(table, db):
    response = table.post(table.gm, table.matches_url, {"name": "X", "width": "5", "height": "60",
                                                 "unit": "cm"})
    assert response.status_code == 422
    assert soup(response).select_one("#width-error[role=alert]") is not None
    assert soup(response).select_one("#field-name")["value"] == "X"
    db.commit()
    assert db.scalar(select(func.count()).select_from(Match)) == 0


def test_only_the_gm_opens_matches(table, db):
    assert table.player.page(table.matches_url).select_one("#new-match") is None
    response = table.post(table.player, table.matches_url, {"name": "Mine", "width": "90",
                                                     "height": "60", "unit": "cm"})
    assert response.status_code == 403
    db.commit()
    assert db.scalar(select(func.count()).select_from(Match)) == 0


# — playing through the forms ——————————————————————————————————————————————————

def test_a_player_rolls_and_the_log_shows_every_die(match):
    match.dice.script(4, 5)
    response = match.act(match.player, kind="roll", expression="2d6+1", purpose="dégâts")
    assert response.status_code == 303 and response.headers["location"] == match.url
    page = match.gm.page(match.url)
    line = log_lines(page)[-1]
    assert line.select_one(".log-text").get_text(" ", strip=True) == "Paul rolls 2d6+1: 10 (dégâts)"
    assert line.select_one("details.dice summary").get_text(strip=True) == \
        "2d6+1: 4, 5 → 9 + 1 = 10"
    faces = [die.select_one(".die-value").get_text(strip=True)
             for die in line.select("details.dice .faces li.die.kept")]
    assert faces == ["4", "5"]
    assert line.select_one(".roll-total").get_text(strip=True) == "10"


def test_kept_and_dropped_dice_are_told_apart(match):
    match.dice.script(1, 6, 3, 5)
    match.act(match.player, kind="roll", expression="4d6kh3")
    line = log_lines(match.player.page(match.url))[-1]
    assert [d.get_text(strip=True) for d in line.select(".die.dropped .die-value")] == ["1"]
    assert len(line.select(".die.kept")) == 3


def test_the_gm_runs_initiative_and_turns(match):
    match.act(match.gm, kind="add_token", name="Gobelin", hp_max="6", x="50", y="40")
    match.dice.script(14, 9)
    match.act(match.gm, kind="roll_initiative")
    match.act(match.gm, kind="next_turn")
    page = match.player.page(match.url)
    order = [item.select_one(".participant-name").get_text(strip=True)
             for item in page.select(".initiative > li")]
    assert order == ["Aldo", "Gobelin"]
    current = page.select_one('.initiative > li[aria-current="true"]')
    assert current["id"] == "participant-t1"
    assert page.select_one("#turn .round").get_text(strip=True) == "Round 1"
    # It is Aldo's turn: his player may end it.
    assert page.select_one("form#action-next_turn") is not None
    token = page.select_one('#board .token[data-token="t2"]')
    assert (token["data-x"], token["data-y"]) == ("50", "40")
    assert token.get("data-movable") is None  # the goblin is not Paul's
    assert page.select_one('#board .token[data-token="t1"]')["data-movable"] == "true"


def test_the_player_moves_his_token(match):
    response = match.act(match.player, kind="move", token="t1", x="33", y="44")
    assert response.status_code == 303
    token = match.gm.page(match.url).select_one('#board .token[data-token="t1"]')
    assert (token["data-x"], token["data-y"]) == ("33", "44")


def test_an_htmx_post_gets_the_fresh_action_panel(match, db):
    page = match.player.page(match.url)
    seq = page.select_one("#action-roll input[name=seq]")["value"]
    key = page.select_one("#action-roll input[name=idempotency_key]")["value"]
    match.dice.script(3)
    response = match.post(match.player, match.url + "/actions", {
        "kind": "roll", "expression": "1d6", "seq": seq, "idempotency_key": key},
        headers={"HX-Request": "true"})
    assert response.status_code == 200
    panel = soup(response).select_one("section#action-panel")
    fresh = str(match.seq(db))
    assert panel.select_one("#action-roll input[name=seq]")["value"] == fresh
    assert panel.select_one("#action-roll input[name=idempotency_key]")["value"] != key


def test_a_double_click_applies_once(match, db):
    before = match.seq(db)
    match.dice.script(6)
    for _ in range(2):
        response = match.act(match.player, kind="roll", expression="1d6", seq=before,
                             idempotency_key="click-17")
        assert response.status_code == 303
    assert match.seq(db) == before + 1


# — refusals ———————————————————————————————————————————————————————————————————

def test_refusals_show_the_reason_and_change_nothing(match, db):
    before = match.seq(db)
    response = match.act(match.player, kind="roll", expression="2d")
    assert response.status_code == 422
    form = soup(response).select_one("form#action-roll")
    assert "expression" in form.select_one(".form-error[role=alert]").get_text()
    assert form.select_one('input[name="expression"]')["value"] == "2d"  # kept
    response = match.act(match.player, kind="add_token", name="Dragon")
    assert response.status_code == 422
    alert = soup(response).select_one("#action-error[role=alert]")
    assert alert.get_text(strip=True) == "only the GM may do this"
    response = match.act(match.player, kind="move", token="t1", x="500", y="0")
    assert response.status_code == 422
    assert soup(response).select_one("form#action-move .form-error[role=alert]") is not None
    assert match.seq(db) == before


def test_a_stale_seq_is_refused_with_the_current_state(match, db):
    page = match.player.page(match.url)
    seq = page.select_one("#action-move input[name=seq]")["value"]
    match.act(match.gm, kind="note", text="Il pleut.")
    response = match.post(match.player, match.url + "/actions", {
        "kind": "move", "token": "t1", "x": "20", "y": "20", "seq": seq},
        headers={"HX-Request": "true"})
    # A refusal shown in place reaches htmx as 200 (no failed load in the console).
    assert (response.status_code, response.headers["Tablee-Refused"]) == (200, "409")
    # The panel goes to the page's own, out of band: the form that sent it may be gone from
    # the page, its panel redrawn by a live update meanwhile (htmx finds no re-target then).
    assert "HX-Retarget" not in response.headers
    assert response.headers["HX-Reswap"] == "none"
    panel = soup(response).select_one("section#action-panel")
    assert panel["hx-swap-oob"] == "true"
    assert panel.select_one("form#action-move .form-error[role=alert]") is not None
    assert panel.select_one("#action-move input[name=seq]")["value"] == \
        str(match.seq(db))
    token = match.gm.page(match.url).select_one('#board .token[data-token="t1"]')
    assert token["data-x"] != "20"


# — who sees what ——————————————————————————————————————————————————————————————

def test_spectators_watch_without_forms(match):
    page = match.spectator.page(match.url)
    assert page.select("#action-panel form") == []
    assert page.select_one(".spectator-note") is not None
    assert page.select('#board .token[data-movable]') == []
    assert page.select("#log form.undo") == []
    match.dice.script(4)
    assert match.act(match.spectator, kind="roll", expression="1d6").status_code == 403


def test_visitors_are_asked_to_log_in(match, new_client):
    visitor = new_client()
    response = visitor.get(match.url, follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"] == f"/login?next={match.url}"


def test_a_match_of_another_campaign_is_not_found(match, db):
    other = campaigns.create_campaign(db=db, user=db.get(User, match.ids["olga"]),
                                      name="Ailleurs", system="libre")
    db.commit()
    elsewhere = match.url.replace(f"/campaigns/{match.campaign_id}/",
                                  f"/campaigns/{other.id}/")
    assert match.outsider.get(elsewhere).status_code == 404
    missing = match.url.rsplit("/", 1)[0] + "/999"
    assert match.gm.get(missing).status_code == 404
    for path in ("/actions", "/rewind", "/redo"):
        response = match.post(match.gm, missing + path, {"kind": "note", "text": "?",
                                                         "to_seq": "1"})
        assert response.status_code == 404
        assert soup(response).select_one("h1") is not None


def test_outsiders_find_nothing(match):
    for path in ("", "/replay", "/stream"):
        assert match.outsider.get(match.url + path).status_code == 404
    assert match.outsider.get(match.matches_url).status_code == 404
    assert match.act(match.outsider, kind="note", text="coucou").status_code == 404
    assert match.post(match.outsider, match.url + "/rewind", {"to_seq": "1"}).status_code == 404


def test_a_gm_only_roll_reads_as_a_secret_for_players(match):
    match.dice.script(17)
    match.act(match.gm, kind="roll", expression="1d20+9000", purpose="trappe",
              visibility="gm")
    line = log_lines(match.player.page(match.url))[-1]
    assert "kind-hidden" in line["class"]
    assert line.select_one(".log-text").get_text(strip=True) == "The GM rolled the dice in secret"
    assert line.select("details.dice") == []
    gm_line = log_lines(match.gm.page(match.url))[-1]
    assert gm_line.select_one(".roll-total").get_text(strip=True) == "9017"


def test_a_player_cannot_roll_gm_only_at_the_table_and_is_not_offered_it(match, db):
    def offered(user) -> list[str]:
        return [option["value"] for option in
                match_page(user).select('select[name="visibility"] option')]

    def match_page(user):
        return user.page(match.url)

    assert offered(match.gm) == ["public", "gm", "self"]
    assert offered(match.player) == ["public", "self"]
    before = match.seq(db)
    match.dice.script(17)
    refused = match.act(match.player, kind="roll", expression="1d20", visibility="gm",
                        seq=before)
    assert refused.status_code == 422
    assert "only the GM rolls in secret" in refused.text
    assert match.seq(db) == before
    match.dice.script(17)
    assert match.act(match.player, kind="roll", expression="1d20", visibility="self",
                     seq=before).status_code in (200, 303)
    assert match.seq(db) == before + 1


# — undo and redo ——————————————————————————————————————————————————————————————

def test_the_gm_undoes_to_an_event_then_redoes(match, db):
    match.act(match.player, kind="move", token="t1", x="30", y="30")
    match.act(match.player, kind="move", token="t1", x="60", y="60")
    page = match.gm.page(match.url)
    moves = [line for line in log_lines(page) if line["data-kind"] == "token_moved"]
    assert all(line.select_one("form.undo button") for line in moves)
    to_seq = moves[0]["data-seq"]
    response = match.post(match.gm, match.url + "/rewind", {"to_seq": to_seq})
    assert response.status_code == 303
    page = match.player.page(match.url)
    undone = page.select_one(f"#event-{moves[1]['data-seq']}")
    assert "reverted" in undone["class"] and undone.select_one("del.log-text") is not None
    assert last_line_text(page).startswith("Mia undid everything after #")
    token = page.select_one('#board .token[data-token="t1"]')
    assert (token["data-x"], token["data-y"]) == ("30", "30")
    gm_page = match.gm.page(match.url)
    assert gm_page.select_one("#redo") is not None
    assert match.post(match.gm, match.url + "/redo").status_code == 303
    page = match.player.page(match.url)
    token = page.select_one('#board .token[data-token="t1"]')
    assert (token["data-x"], token["data-y"]) == ("60", "60")
    assert page.select_one(f"#event-{moves[1]['data-seq']}.reverted") is None
    assert match.gm.page(match.url).select_one("#redo") is None


def test_undo_and_redo_are_for_the_gm_only(match, db):
    match.act(match.player, kind="move", token="t1", x="30", y="30")
    assert match.player.page(match.url).select("#log form.undo") == []
    before = match.seq(db)
    assert match.post(match.player, match.url + "/rewind", {"to_seq": "1"}).status_code == 403
    assert match.post(match.player, match.url + "/redo").status_code == 403
    assert match.seq(db) == before


def test_a_refused_undo_says_why(match, db):
    response = match.post(match.gm, match.url + "/rewind", {"to_seq": "2"},
                             headers={"HX-Request": "true"})
    assert (response.status_code, response.headers["Tablee-Refused"]) == (200, "422")
    # out of band: found in the page even if the form that asked was redrawn meanwhile
    assert "HX-Retarget" not in response.headers and response.headers["HX-Reswap"] == "none"
    alert = soup(response).select_one("#table-alert[role=alert][hx-swap-oob=true]")
    assert alert.get_text(strip=True) == "Nothing to undo after that event."


# — replay ————————————————————————————————————————————————————————————————————

def test_replay_steps_through_the_match(match):
    match.act(match.player, kind="move", token="t1", x="30", y="30")
    match.dice.script(2, 2)
    match.act(match.player, kind="roll", expression="2d6")
    first = match.player.page(match.url + "/replay")
    assert first.select_one(".replay-position").get_text(strip=True) == "Event 1 of 4"
    assert first.select_one("#replay-previous")["aria-disabled"] == "true"
    assert first.select(".initiative > li") == []  # only the match has started
    step2 = match.player.page(first.select_one("#replay-next")["href"])
    assert step2.select_one("#participant-t1") is not None
    token = step2.select_one('#board .token[data-token="t1"]')
    assert (token["data-x"], token["data-y"]) == ("60", "10")  # alone: mid top edge
    step3 = match.player.page(step2.select_one("#replay-next")["href"])
    token = step3.select_one('#board .token[data-token="t1"]')
    assert (token["data-x"], token["data-y"]) == ("30", "30")
    last = match.player.page(step3.select_one("#replay-last")["href"])
    assert last.select_one("#replay-next")["aria-disabled"] == "true"
    dice = last.select_one(".replay-event details.dice")
    assert dice.has_attr("open")
    assert [d.get_text(strip=True) for d in dice.select(".die-value")] == ["2", "2"]
    beyond = match.player.page(match.url + "/replay?step=99")
    assert beyond.select_one(".replay-position").get_text(strip=True) == "Event 4 of 4"


def test_replay_keeps_secrets(match):
    match.dice.script(17)
    match.act(match.gm, kind="roll", expression="1d20+9000", visibility="gm")
    page = match.player.page(match.url + "/replay?step=3")
    assert page.select_one(".replay-event .log-line.kind-hidden") is not None
    assert page.select(".replay-event details.dice") == []
    page = match.gm.page(match.url + "/replay?step=3")
    assert page.select_one(".replay-event .roll-total").get_text(strip=True) == "9017"
