"""The set-up the odds page tests share (tests/test_odds_pages.py,
tests/test_odds_pages_tiamat_cyborg.py, tests/test_odds_games_pages.py): a GM and a player at
a table of one game, everyone reading English, a match opened from the page, and the odds
route asked for a form as it stands."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from bs4 import BeautifulSoup
from sqlalchemy import update

from app.models import Character, User
from app.rules.chasse.sheet import blank_sheet
from tests.helpers import form_actions, open_match_page
from tests.seating import campaign_with_players, user_ids

HTMX = {"HX-Request": "true"}


def english_table(db, web, *, name: str, system: str,
                  characters: Iterable[tuple[str, Mapping[str, Any], bool]]
                  ) -> tuple[dict[str, Any], int, list[int]]:
    """GM Mia and Paul, her player, at a campaign of ``system``; ``characters``: (name,
    sheet, whether Paul plays it). Everyone reads English. The people, the campaign's id and
    the characters' ids, in order."""
    people = {person: web(person) for person in ("mia", "paul")}
    ids = user_ids(db, people)
    campaign = campaign_with_players(db, ids["mia"], [ids["paul"]], name=name, system=system)
    made = [Character(campaign_id=campaign.id, owner_id=ids["paul"] if paul_s else None,
                      name=who, sheet=sheet) for who, sheet, paul_s in characters]
    db.add_all(made)
    db.execute(update(User).values(locale="en"))
    db.commit()
    return people, campaign.id, [character.id for character in made]


def open_match(people: Mapping[str, Any], campaign_id: int, name: str, characters: list[int],
               dice, **board: str) -> tuple[str, Callable[..., None]]:
    """Mia opens the match from the page: its URL, and ``act`` to post forms to it."""
    url = open_match_page(people["mia"], campaign_id, name, characters, **board)
    return url, form_actions(url, dice)


def ask(user, url: str, **fields: str) -> BeautifulSoup:
    """The odds panel's answer for the form with ``fields``, as the page asks for it."""
    shown = user.client.post(url + "/odds", data={"csrf_token": user.csrf(), **fields},
                             headers=HTMX)
    assert shown.status_code == 200, shown.text
    return BeautifulSoup(shown.text, "html.parser")


def valley(db, web, dice) -> tuple[dict[str, Any], str, Callable[..., None]]:
    """Paul's Ourk (javelin) on Mia's 48 × 36 in board "Vallée": the people, its URL, ``act``."""
    people, campaign, characters = english_table(
        db, web, name="Tribu", system="chasse",
        characters=[("Ourk", {**blank_sheet(), "weapons": ["javelot"]}, True)])
    url, act = open_match(people, campaign, "Vallée", characters, dice, width="48",
                          height="36", unit="in")
    return people, url, act
