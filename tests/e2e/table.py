"""What the browser tests at a table share: seating a campaign through the JSON API (fast),
logging a browser in, and acting through the action panel's forms."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx
from playwright.sync_api import Page, expect

from app.rules.dice import ScriptedDice

PASSWORD = "correct horse battery"
LIVE = 2_000  # ms: what the other browser may take to show an action


@dataclass
class Campaign:
    id: int
    gm: str
    player: str
    # The roster as created, by name (the API's answer: id, sheet…).
    characters: dict[str, dict[str, Any]] = field(default_factory=dict)


def api_user(client: httpx.Client, username: str) -> dict[str, str]:
    """Register ``username`` (English pages) and return its bearer header."""
    response = client.post("/api/v1/auth/register", json={
        "username": username, "password": PASSWORD, "display_name": username.split("-")[0]
        .capitalize(), "locale": "en"})
    assert response.status_code == 201, response.text
    token = client.post("/api/v1/auth/login", json={"username": username,
                                                    "password": PASSWORD}).json()["token"]
    return {"Authorization": f"Bearer {token}"}


def seat_campaign(base_url: str, *, system: str, name: str,
                  characters: Sequence[tuple[str, dict[str, Any]]] = ()) -> Campaign:
    """A GM (mia-…) and a player (paul-…) in a new campaign of ``system``; ``characters``
    are ``("gm" | "player", body)`` pairs posted to the roster by that person."""
    suffix = uuid.uuid4().hex[:8]
    gm, player = f"mia-{suffix}", f"paul-{suffix}"
    with httpx.Client(base_url=base_url, timeout=10) as client:
        auth = {"gm": api_user(client, gm), "player": api_user(client, player)}
        created = client.post("/api/v1/campaigns", headers=auth["gm"],
                              json={"name": name, "system": system}).json()
        invite = client.post(f"/api/v1/campaigns/{created['id']}/invites", headers=auth["gm"],
                             json={"role": "player"}).json()
        accepted = client.post(f"/api/v1/invites/{invite['token']}/accept",
                               headers=auth["player"])
        assert accepted.status_code == 200, accepted.text
        made = {}
        for who, body in characters:
            answer = client.post(f"/api/v1/campaigns/{created['id']}/characters",
                                 headers=auth[who], json=body)
            assert answer.status_code == 201, answer.text
            made[body["name"]] = answer.json()
    return Campaign(created["id"], gm, player, made)


def log_in(new_context, username: str) -> Page:
    page = new_context(locale="en-GB").new_page()
    page.goto("/login")
    page.fill("#field-username", username)
    page.fill("#field-password", PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page).not_to_have_url(re.compile("/login"))
    return page


def open_match(gm: Page, campaign: Campaign, name: str, characters: Sequence[str]) -> str:
    """The GM opens a match with these roster characters; returns its address."""
    gm.goto(f"/campaigns/{campaign.id}/matches")
    gm.fill("#field-name", name)
    for character in characters:
        gm.get_by_label(character).check()
    gm.get_by_role("button", name="Start the match").click()
    expect(gm.locator("h1")).to_have_text(name)
    return gm.url


def token(page: Page, token_id: str):
    return page.locator(f'#board .token[data-token="{token_id}"]')


def act(page: Page, kind: str, fields: dict[str, str] | None = None) -> None:
    """Fill and send one of the action panel's forms (opening the GM's tools and its card
    if folded)."""
    form = page.locator(f"form#action-{kind}")
    expect(form).to_be_attached()
    # the GM's tools and the map's (issue 28) fold their forms
    tools = page.locator("#action-panel details.action-gm-tools, "
                         "#action-panel details.action-map-tools", has=form)
    if tools.count() and not tools.evaluate("element => element.open"):
        tools.locator("> summary").click()
    card = page.locator(f"details.action-{kind}")
    if card.count() and not card.evaluate("element => element.open"):
        card.locator("> summary").click()
    for name, value in (fields or {}).items():
        field = form.locator(f'[name="{name}"]')
        if field.evaluate("element => element.tagName") == "SELECT":
            field.select_option(value)
        elif field.get_attribute("type") == "checkbox":
            field.check()
        else:
            field.fill(value)
    form.locator('button[type="submit"]').click()


def acted(page: Page, kind: str, fields: dict[str, str] | None = None, *,
          seen_by: tuple[Page, ...] = ()) -> None:
    """``act``, then wait until ``page`` and each page of ``seen_by`` show the state it led
    to: a check of the next step's forms would otherwise pass on the state before it (its
    forms agree with it), and the next action be sent for a state that is no longer the
    table's (refused as stale)."""
    before = int(page.locator(".table-state").get_attribute("data-seq"))
    act(page, kind, fields)
    for each in (page, *seen_by):
        each.wait_for_function(
            """seq => Number(document.querySelector(".table-state")?.dataset.seq) > seq""",
            arg=before, timeout=30_000)


@contextmanager
def scripted(live_server, *faces: int) -> Iterator[None]:
    """The server's next rolls show these faces (the table's dice, ``app.state.dice``)."""
    app = live_server.server.config.app
    app.state.dice = ScriptedDice(faces)
    try:
        yield
    finally:
        app.state.dice = None


def bearer(client: httpx.Client, username: str) -> dict[str, str]:
    """Log ``username`` in through the API: its bearer header."""
    answer = client.post("/api/v1/auth/login", json={"username": username,
                                                     "password": PASSWORD})
    return {"Authorization": f"Bearer {answer.json()['token']}"}


@dataclass
class Duel:
    """Two fighters in a match open in two browsers: the GM's and the player's."""

    gm: Page
    player: Page
    url: str
    ids: dict[str, str]  # each fighter's participant id, by name


def seat_duel(new_context, base_url: str, *, system: str, campaign: str, match: str,
              gm_fighter: tuple[str, dict[str, Any]], player_fighter: tuple[str, dict[str, Any]],
              viewport: tuple[int, int] | None = None) -> Duel:
    """A campaign of ``system`` with the GM's fighter (no owner) and the player's, made by
    the GM for them (a sheet past a new character's budget), in a match ``match`` that the
    GM opens and the player joins; ``viewport`` (width, height) for both browsers."""
    (gm_name, gm_sheet), (player_name, player_sheet) = gm_fighter, player_fighter
    seated = seat_campaign(base_url, system=system, name=campaign, characters=[
        ("gm", {"name": gm_name, "sheet": gm_sheet, "owner_id": None})])
    with httpx.Client(base_url=base_url, timeout=10) as client:
        owner = client.get("/api/v1/me", headers=bearer(client, seated.player)).json()["id"]
        made = client.post(f"/api/v1/campaigns/{seated.id}/characters",
                           headers=bearer(client, seated.gm),
                           json={"name": player_name, "sheet": player_sheet, "owner_id": owner})
        assert made.status_code == 201, made.text
    gm, player = log_in(new_context, seated.gm), log_in(new_context, seated.player)
    if viewport:
        for page in (gm, player):
            page.set_viewport_size({"width": viewport[0], "height": viewport[1]})
    url = open_match(gm, seated, match, [player_name, gm_name])
    player.goto(url)
    first = "p1" if player_name in gm.locator('[data-participant="p1"]').inner_text() else "p2"
    return Duel(gm, player, url, {player_name: first, gm_name: "p2" if first == "p1" else "p1"})
