"""How a match stands once it is decided: who won and why, in words.

A system that can tell defines ``outcome(state) -> Outcome | None`` (optional member of the
``GameSystem`` contract, ``docs/game-system.md``). ``None``: the fight goes on. An
``Outcome`` with ``over=False`` means one side can no longer fight but the match is still
open: the table says who won and offers the GM the game's own way to end it (its
``end_match`` form, marked awaited for the GM). ``over=True``: the match is finished and the
table shows the result beside its replay.

It reads the state only (pure, no dice), so it answers the same for every viewer who sees
that state; a game keeps out of it what some viewer's ``view`` hides.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Outcome:
    # The winners' names as the table shows them (a side, a team, fighters); empty when
    # nobody won (everyone fell, a draw, the GM stopped it).
    winners: tuple[str, ...]
    # Why, as an English msgid marked with ``N_`` and its parameters (translated when shown):
    # « %(side)s can no longer fight ».
    reason: str
    params: Mapping[str, Any] = field(default_factory=dict)
    over: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"winners": list(self.winners), "reason": self.reason,
                "params": dict(self.params), "over": self.over}


def outcome_of(system: object, state: Mapping[str, Any]) -> Outcome | None:
    """The system's judgement of ``state``, or None when it has none to give."""
    judge = getattr(system, "outcome", None)
    return judge(state) if judge is not None and state else None
