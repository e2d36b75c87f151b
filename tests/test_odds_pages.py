"""Exact odds on the pages and the API (docs/odds.md): the free roller's distribution, the
API's, and an action form's odds panel — which reads only what its viewer may see."""

from __future__ import annotations

import asyncio
from urllib.parse import parse_qs, urlsplit

import pytest
from bs4 import BeautifulSoup

from app.rules.registry import get_system
from tests.helpers import asgi_stream
from tests.odds_pages import ask, valley
from tests.test_campaigns import make_table

pytest_plugins = ["tests.match_fixtures"]
HTMX = {"HX-Request": "true"}


def fragment(response) -> BeautifulSoup:
    assert response.status_code == 200, response.text
    return BeautifulSoup(response.text, "html.parser")


# — the free roller and the API ——————————————————————————————————————————————————————

def test_the_roller_shows_the_distribution_of_what_is_typed(web, new_client):
    table = make_table(web, new_client)
    page = table.web["player"].page(f"{table.url}/rolls")
    panel = page.select_one("#distribution")
    assert panel["hx-get"] == f"{table.url}/rolls/distribution"
    assert "#field-expression" in panel["hx-include"] and "load" in panel["hx-trigger"]
    shown = fragment(table.web["player"].get(f"{table.url}/rolls/distribution", params={
        "expression": "4d6kh3", "target": "12", "comparison": ">="}, headers=HTMX))
    figures = {dt.text: dd.text for dt, dd in zip(shown.select(".odds-figures dt"),
                                                    shown.select(".odds-figures dd"),
                                                    strict=True)}
    # Rounded for display only: 15869/1296 = 12.2446…, 62 % = 803/1296.
    assert figures["Chance that the total is at least (≥) 12"] == "62%"
    assert figures["Mean"] == "12.2" and figures["Standard deviation"] == "2.85"
    assert len(shown.select("svg rect.odds-bar")) == 16
    assert len(shown.select("svg rect.odds-bar.reaches")) == 7  # 12 to 18
    rows = shown.select(".odds-table tbody tr")
    assert [row.th.text for row in rows][:2] == ["3", "4"]
    assert rows[-1].select("td")[0].text == "1.6%"  # 18: 21/1296
    assert shown.select_one("#expression-odds-error").text == ""


def test_a_bad_or_too_large_expression_is_refused_by_the_field(web, new_client):
    table = make_table(web, new_client)
    table.web["player"].post("/account", {"display_name": "Paul", "locale": "fr"})
    shown = fragment(table.web["player"].get(f"{table.url}/rolls/distribution", params={
        "expression": "1d6+x"}, headers=HTMX))
    error = shown.select_one("#expression-odds-error")
    assert error["hx-swap-oob"] == "true" and "position 4" in error.text
    assert "attendu" in error.text and not shown.select("svg")
    shown = fragment(table.web["player"].get(f"{table.url}/rolls/distribution", params={
        "expression": "1000d6"}, headers=HTMX))
    assert "trop long à calculer exactement" in shown.select_one(
        "#expression-odds-error").text
    assert "2 secondes" in shown.text
    shown = fragment(table.web["player"].get(f"{table.url}/rolls/distribution", params={
        "expression": "2d6", "target": "douze"}, headers=HTMX))
    assert "Le seuil est un nombre entier" in shown.select_one(
        "#expression-odds-error").text


def test_the_api_gives_exact_fractions_and_the_cap(web, new_client):
    table = make_table(web, new_client)
    answer = table.api["player"].get("/dice/distribution", params={
        "expression": "1d20+5 >= 15", "target": 20, "comparison": ">="})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["success"] == "11/20" and body["comparison"] == ">=" and body["target"] == 15
    assert body["reach"] == "3/10" and body["mean"] == "31/2"
    assert body["outcomes"][0] == {"value": 6, "chance": "1/20", "probability": 0.05}
    exploding = table.api["player"].get("/dice/distribution", params={"expression": "d6!"})
    (cut,) = exploding.json()["cuts"]
    assert cut["kind"] == "explosion" and cut["depth"] >= 10
    refused = table.api["player"].get("/dice/distribution", params={"expression": "1000d6"})
    assert refused.status_code == 422
    assert refused.json()["error"]["code"] == "odds_too_long"
    assert refused.json()["error"]["field"] == "expression"
    assert refused.json()["error"]["details"]["seconds"] == 2.0
    bad = table.api["player"].get("/dice/distribution", params={"expression": "2d"})
    assert bad.status_code == 422 and bad.json()["error"]["details"]["position"] == 2


# — an action form's odds: Chasse's throw ———————————————————————————————————————————

@pytest.fixture
def throw_ready(db, web, libre_dice):
    """Paul's Ourk (javelin) at step 6, a boar 5" away (long range): a throw to make."""
    people, url, act = valley(db, web, libre_dice)
    act(people["mia"], kind="add_prey", species="sanglier", x="24", y="28")
    act(people["mia"], kind="begin_hunt")
    act(people["paul"], kind="next_step")
    act(people["paul"], kind="move", token="t1", x="24", y="33")
    act(people["paul"], kind="next_step")
    return people, url, act


def ask_odds(user, url: str, **fields: str) -> BeautifulSoup:
    return ask(user, url, **{"kind": "shoot", **fields})


def test_the_throw_form_shows_its_odds_and_they_follow_the_choice(throw_ready):
    people, url, act = throw_ready
    paul = people["paul"]
    page = BeautifulSoup(paul.client.get(url).text, "html.parser")
    panel = page.select_one("#action-shoot .odds-panel")
    assert panel["hx-post"] == url + "/odds" and "change from:closest form" in panel[
        "hx-trigger"]
    assert panel.select_one(".odds-body").text.strip() == ""  # asked for once shown
    shown = ask_odds(paul, url, shot="t1|t2|javelot")
    assert shown.select_one(".odds-sentence").text == "33% to hit; 22% to wound"
    assert "The D6 to hit needs 4 or more." in shown.text and "-1 portée longue" in shown.text
    paul.post("/account", {"display_name": "Paul", "locale": "fr"})
    french = ask_odds(paul, url, shot="t1|t2|javelot")
    assert french.select_one(".odds-sentence").text == \
        "33\u202f% de toucher\u202f; 22\u202f% de blesser"
    # The GM's modifier is public in Chasse (its line in the log, its badge): counted.
    act(people["mia"], kind="gm_modifier", value="1", label="vent")
    assert ask_odds(paul, url, shot="t1|t2|javelot").select_one(
        ".odds-sentence").text.startswith("50\u202f% de toucher")
    # A choice the rules would refuse has no odds, and says so without an error.
    assert "Choisissez l'action" in ask_odds(paul, url, shot="t1|t9|javelot").text


def read_page_stream(app, running_app, url: str, token: str, last: int) -> bytes:
    body = bytearray()
    arrived = asyncio.Event()

    async def send(message: dict) -> None:
        body.extend(message.get("body", b""))
        if f"id: {last}\r\n".encode() in body:
            arrived.set()

    async def read() -> None:
        await asyncio.wait_for(asgi_stream(app, url + "/stream", token, send, arrived,
                                           query=b"after=0"), 30)
    running_app.portal.call(read)
    return bytes(body)


def test_a_gm_only_modifier_is_not_in_a_player_s_odds(throw_ready, monkeypatch, app,
                                                      running_app, db):
    """Odds read the viewer's view, never the whole state: were the GM's modifier hidden
    from the players (a game whose view keeps it from them), the GM's odds count it and
    the player's do not — on the page, and the raw stream carries no odds at all."""
    people, url, act = throw_ready
    chasse = get_system("chasse")
    seen = chasse.view
    monkeypatch.setattr(chasse, "view", lambda state, viewer: seen(state, viewer)
                        if viewer.is_gm else {**seen(state, viewer), "modifier": None})
    act(people["mia"], kind="gm_modifier", value="2", label="secret du MJ")
    player = ask_odds(people["paul"], url, shot="t1|t2|javelot")
    gm = ask_odds(people["mia"], url, shot="t1|t2|javelot")
    assert player.select_one(".odds-sentence").text.startswith("33% to hit")
    assert gm.select_one(".odds-sentence").text.startswith("67% to hit")
    assert "secret du MJ" in gm.text and "secret du MJ" not in player.text
    assert "+2" not in player.text
    page = BeautifulSoup(people["paul"].client.get(url).text, "html.parser")
    assert page.select_one("#action-shoot .odds-body").text.strip() == ""
    token = people["paul"].client.cookies.get("tablee_session")
    assert token
    stream = urlsplit(page.select_one("#table")["sse-connect"])
    last = int(parse_qs(stream.query)["after"][0])  # the page may add its panel's tag
    raw = read_page_stream(app, running_app, url, token, last)
    assert b"odds-panel" not in raw or b"% to hit" not in raw
    assert b"67%" not in raw and b"to hit" not in raw
