"""The contract every game implements (``GameSystem``), and the plain data it speaks.

The platform only needs a system's names and its character sheet; the table engine adds
match set-up, legal actions, ``apply`` and viewer filtering (see ``docs/game-system.md``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from app.rules.dice import Dice
from app.rules.match import ActionForm, Actor, Event, MatchSetup, State

Sheet = dict[str, Any]


def N_(message: str) -> str:
    """Mark a message for translation; the web layer translates it when shown."""
    return message


@dataclass(frozen=True)
class Problem:
    """One broken rule in a sheet: where, what, and which rule says so."""

    field: str
    message: str
    rule: str
    params: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class DemoCharacter:
    name: str
    sheet: Sheet
    notes: str = ""
    # Which demo account plays it; None for a GM's non-player character.
    player: int | None = None


@runtime_checkable
class GameSystem(Protocol):
    key: str
    name_fr: str
    name_en: str
    # The rule text it implements, under shared/seeds/ (None for house systems).
    seed_file: str | None
    uses_board: bool

    def new_sheet(self) -> Sheet:
        """A blank, valid sheet for a new character."""

    def validate_sheet(self, sheet: Sheet) -> list[Problem]:
        """Every problem with ``sheet``; an empty list means it is valid."""

    def derived(self, sheet: Sheet) -> dict[str, Any]:
        """Values computed from the sheet (shown, never stored)."""

    def sheet_from_form(self, form: Mapping[str, str]) -> Sheet:
        """Build a sheet from the edit form's fields (strings); never raises."""

    def demo_characters(self) -> list[DemoCharacter]:
        """Ready characters for the demo campaign."""

    # — the table (docs/game-system.md) —

    def start(self, setup: MatchSetup, dice: Dice) -> list[Event]:
        """The events that open a match (participants placed, anything rolled at set-up)."""

    def legal_actions(self, state: State, actor: Actor) -> list[ActionForm]:
        """What ``actor`` may do now; the page offers only these forms."""

    def decide(self, state: State, action: Mapping[str, Any], actor: Actor,
               dice: Dice) -> list[Event]:
        """Judge an action: the events it causes, or ``IllegalAction`` with the reason.

        The only place dice are rolled; every outcome goes into the events.
        """

    def evolve(self, state: State, event: Event) -> State:
        """Fold one event into the state: pure, no dice (may update ``state`` in place)."""

    def view(self, state: State, viewer: Actor) -> State:
        """What ``viewer`` may see of the state (hidden hands, secret positions…)."""

    def between_matches(self, state: State, sheets: Mapping[int, Sheet]) -> dict[int, Sheet]:
        """When a match ends: the sheets it changes (wounds, experience, money…), by
        character id. Sheets not in the answer are left as they are."""
