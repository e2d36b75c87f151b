"""How a hunt ends and who won it (seed § introduction: "L'objectif est simple : survivre
et ramener à manger").

A hunt is **decided** when nothing is left to play for: every hunter is out (dead or burnt),
or every prey is dead, fled or burnt with no meat left on a carcass and none carried (the
last meat is brought back). Then nobody is asked to play on and the GM ends it. It **ends by
itself** at the close of a tribe's turn when the scenario's turns are played or every hunter
went home (house, ``ending``). The winners are the tribes that brought back the most food
(then fewer dead); none when nothing was brought back.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.rules.chasse.geometry import inside, o_pos
from app.rules.chasse.state import alive, carcasses, hunters, prey
from app.rules.match import State
from app.rules.outcome import Outcome
from app.rules.system import N_

# Why a hunt ended, as the table says it (the same words as the result under the tribes).
REASONS = {"turns": N_("the scenario's turns are played"),
           "no_prey": N_("nothing is left to hunt or carry"),
           "no_hunters": N_("no hunter is left standing"),
           "back_at_camp": N_("every hunter is back at camp"),
           "gm": N_("the GM ended it")}


def decided(state: Mapping[str, Any]) -> str | None:
    """Why nothing is left to play for in a running hunt, or None."""
    if state.get("status") != "running":
        return None
    if not hunters(state):  # type: ignore[arg-type]
        return "no_hunters"
    if not prey(state) and not carcasses(state) and not any(  # type: ignore[arg-type]
            h.get("carried") for h in hunters(state)):  # type: ignore[arg-type]
        return "no_prey"
    return None


def ending(state: State, round_number: int) -> str | None:
    """Why the hunt ends as a tribe's turn closes, or None: the scenario's turns are played,
    nothing is left to play for, or — from the third turn on — every hunter stands in the
    camp with nothing to carry (the tribes went home; house)."""
    turns = (state.get("scenario") or {}).get("turns")
    if turns and round_number > turns:
        return "turns"
    reason = decided(state)
    if reason:
        return reason
    camps = [s for s in state["board"]["terrain"] if s.get("kind") == "camp"]
    if camps and round_number > 2 and all(
            not h.get("carried") and any(inside(o_pos(h), c) for c in camps)
            for h in hunters(state)):
        return "back_at_camp"
    return None


def scores(state: Mapping[str, Any]) -> dict[str, Any]:
    """Food brought back per side (the solo score is the first line), the ranking, the
    wounded and the dead (seed: "survivre et ramener à manger")."""
    table = []
    for side in state["sides"]:
        mine = [t for t in state["tokens"].values() if t["kind"] == "hunter"
                and t["side"] == side["id"]]
        table.append({"side": side["id"], "name": side["name"], "food": side["food"],
                      "dead": [t["name"] for t in mine if t["state"] in ("dead", "burnt")],
                      "wounded": [t["name"] for t in mine if alive(t) and t["wounds"]]})
    ranking = sorted(table, key=lambda row: (-row["food"], len(row["dead"]), row["side"]))
    return {"sides": table, "ranking": [row["side"] for row in ranking]}


def _winners(result: Mapping[str, Any]) -> tuple[str, ...]:
    """The tribes first in the ranking (ties share it); nobody when no food came back."""
    rows = {row["side"]: row for row in result.get("sides", [])}
    ranked = [rows[side] for side in result.get("ranking", []) if side in rows]
    if not ranked or ranked[0]["food"] <= 0:
        return ()
    best = (ranked[0]["food"], len(ranked[0]["dead"]))
    return tuple(row["name"] for row in ranked if (row["food"], len(row["dead"])) == best)


def outcome(state: Mapping[str, Any]) -> Outcome | None:
    """The hunt's outcome (``app/rules/outcome.py``): over once ended, decided while nothing
    is left to play for, else None."""
    if state.get("status") == "finished" and state.get("result"):
        result = state["result"]
        reason = result.get("reason") or "gm"
        return Outcome(_winners(result), REASONS.get(reason, REASONS["gm"]), {}, over=True)
    reason = decided(state)
    if reason is None:
        return None
    return Outcome(_winners(scores(state)), REASONS[reason], {}, over=False)
