"""A libre campaign and its match for the table-page tests (tests/test_match_*.py).

Loaded with ``pytest_plugins``, so the fixture names are distinctive: ``libre_table`` (the
campaign), ``libre_match`` (with a match open), ``libre_dice``. Mia is the GM, Paul plays
Aldo, Sam watches, Olga is not in the campaign. The table's dice are scripted per test
(``libre_match.dice.script(4, 5)``); the messages are the English ones.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
from sqlalchemy import select, update

from app.models import Character, Match, Membership, Role, User
from app.rules.dice import ScriptedDice
from app.services import campaigns
from tests.helpers import WebUser


class TableDice:
    """The table's dice for one test: ``dice.script(4, 5)`` before a roll."""

    def __init__(self) -> None:
        self.current = ScriptedDice([])

    def script(self, *faces: int) -> None:
        self.current = ScriptedDice(faces)

    def roll(self, sides: int, *, count: int = 1) -> list[int]:
        return self.current.roll(sides, count=count)


@dataclass
class Table:
    gm: WebUser
    player: WebUser
    spectator: WebUser
    outsider: WebUser
    campaign_id: int
    aldo: int
    dice: TableDice
    url: str = ""
    ids: dict[str, int] = field(default_factory=dict)
    tokens: dict[str, str] = field(default_factory=dict)

    @property
    def matches_url(self) -> str:
        return f"/campaigns/{self.campaign_id}/matches"

    def seq(self, db) -> int:
        """The match's seq now, as committed."""
        db.commit()
        return db.get(Match, int(self.url.rsplit("/", 1)[1])).seq

    def act(self, user: WebUser, **action) -> object:
        """A plain form post of an action (``seq`` left out unless given)."""
        fields = {key: str(value) for key, value in action.items()}
        return self.post(user, self.url + "/actions", fields)

    def post(self, user: WebUser, path: str, data: dict | None = None, **kwargs) -> object:
        """``user.post`` with the session's CSRF token read once (it does not change)."""
        if user.username not in self.tokens:
            self.tokens[user.username] = user.csrf()
        return user.client.post(path, data={"csrf_token": self.tokens[user.username],
                                            **(data or {})}, follow_redirects=False, **kwargs)


@pytest.fixture
def libre_dice(app) -> Iterator[TableDice]:
    table_dice_for_test = TableDice()
    app.state.dice = table_dice_for_test
    yield table_dice_for_test
    app.state.dice = None


@pytest.fixture
def libre_table(db, web, libre_dice) -> Table:
    people = {name: web(name) for name in ("mia", "paul", "sam", "olga")}
    ids = {name: db.scalar(select(User.id).where(User.username_key == name)) for name in people}
    campaign = campaigns.create_campaign(db=db, user=db.get(User, ids["mia"]), name="Table",
                                         system="libre")
    db.add_all([Membership(campaign_id=campaign.id, user_id=ids["paul"], role=Role.PLAYER),
                Membership(campaign_id=campaign.id, user_id=ids["sam"], role=Role.SPECTATOR)])
    aldo = Character(campaign_id=campaign.id, owner_id=ids["paul"], name="Aldo",
                     sheet={"hp": 12, "hp_max": 12, "counters": [], "statuses": ""})
    db.add(aldo)
    db.execute(update(User).values(locale="en"))  # the messages below are the English ones
    db.commit()
    return Table(people["mia"], people["paul"], people["sam"], people["olga"], campaign.id,
                 aldo.id, libre_dice, ids=ids)


@pytest.fixture
def libre_match(libre_table) -> Table:
    """An open match "Escarmouche" with Aldo on a 120 × 80 cm board."""
    response = libre_table.post(libre_table.gm, libre_table.matches_url, {
        "name": "Escarmouche", "characters": [str(libre_table.aldo)], "width": "120",
        "height": "80", "unit": "cm"})
    assert response.status_code == 303, response.text
    libre_table.url = response.headers["location"]
    return libre_table
