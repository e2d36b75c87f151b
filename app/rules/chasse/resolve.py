"""What every resolution shares: a d6 that leaves its ``RollRecord``, and a scratch state that
folds each event as it is emitted, so a later reaction sees the earlier moves (the ten steps
resolve one figure after the other, seed § Séquence de jeu)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from app.rules import notation
from app.rules.dice import Dice, Modifier
from app.rules.match import Event, State, copy_state


def d6(dice: Dice, purpose: str, *, modifiers: tuple[tuple[int, str], ...] = (),
       target: int | None = None) -> dict[str, Any]:
    """One D6 with its named modifiers, compared with ``target`` when there is one."""
    record = notation.roll("1d6", dice, purpose=purpose)
    mods = tuple(Modifier(value, label) for value, label in modifiers if value)
    if mods:
        record = record.with_modifiers(*mods)
    if target is not None:
        record = record.with_target(target, "success" if record.total >= target else "failure")
    data = record.to_dict()
    return data


class Acc:
    """The events of one decision, folded as they come into a private copy of the state."""

    def __init__(self, state: State, evolve: Callable[[State, Event], State]) -> None:
        self.state = copy_state(state)
        self.events: list[Event] = []
        self._evolve = evolve

    def emit(self, kind: str, payload: dict[str, Any]) -> None:
        event = Event(kind, payload)
        self.events.append(event)
        self.state = self._evolve(self.state, event)

    def add(self, events: list[Event]) -> None:
        """Events another resolution made from this state, folded in (their visibility
        kept)."""
        for event in events:
            self.events.append(event)
            self.state = self._evolve(self.state, event)

    def token(self, token_id: str) -> dict[str, Any]:
        return self.state["tokens"][token_id]
