"""How a tournament stands once it is over (§ Fin du tournoi): the winner, the champion if
there is one, why, and each fight's winner (``app/rules/outcome.py``).

A tournament ends by itself — the fight after someone reached 12 victory points, the last
valid Combatank, or the host — so it is never decided and still open: ``outcome`` is None
until ``tournament_ended``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.rules.outcome import Outcome
from app.rules.system import N_

REASONS = {
    "champion": N_("%(winner)s reached 12 victory points and won the last fight: winner and "
                   "champion"),
    "overtaken": N_("%(winner)s won the last fight with more victory points than %(first)s: "
                    "winner and champion"),
    "no_title": N_("%(winner)s reached 12 victory points first but lost the last fight: "
                   "winner, without the champion's title"),
    "alone": N_("%(winner)s is the only valid Combatank left: winner, without the champion's "
                "title"),
    "host": N_("the host ended the tournament: %(winner)s leads on victory points"),
}


def _name(state: Mapping[str, Any], tid: str | None) -> str:
    seat = (state.get("tokens") or {}).get(tid) if tid else None
    return seat["name"] if seat else "—"


def fight_winners(state: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Each fight fought to its end: its number and the last Combatank standing."""
    return [{"fight": fight["fight"], "winner": _name(state, fight.get("winner"))}
            for fight in state.get("history") or []]


def outcome(state: Mapping[str, Any]) -> Outcome | None:
    result = state.get("result")
    if state.get("status") != "finished" or not result:
        return None
    reason = result.get("reason") if result.get("reason") in REASONS else "host"
    winner = result.get("winner")
    params = {"winner": _name(state, winner), "champion": _name(state, result.get("champion"))
              if result.get("champion") else None,
              "first": _name(state, state.get("first_to_12")),
              "points": {_name(state, tid): value
                         for tid, value in (result.get("points") or {}).items()},
              "fights": fight_winners(state)}
    return Outcome((_name(state, winner),) if winner else (), REASONS[reason], params,
                   over=True)
