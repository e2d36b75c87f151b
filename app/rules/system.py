"""The contract every game implements (``GameSystem``), and the plain data it speaks.

The platform only needs a system's names and its character sheet; the table engine adds
match set-up, legal actions, ``apply`` and viewer filtering (see ``docs/game-system.md``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

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
