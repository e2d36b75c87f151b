"""Mecha-Ring's reaction windows (§ Cartes SFX: "peuvent être jouées à tout moment, même quand
c'est le tour de jeu d'un autre joueur"), pure and dice-free.

After each step of play (the order rolled, a climb, a radar roll, the part aimed at, a strike,
a repair, a recharge, a purchase) the table pauses: every player holding an SFX card they can
play now (affordable, with something to aim it at) may play it or pass. The window closes when
all of them have passed or played, when the host closes it, or when the turn timer runs out.
Nobody with nothing playable is waited on; a house bot decides at once (``bots.reaction``).

Who is waited on is worked out from the hands, so it is secret: the state keeps it
(``window.waiting``, recomputed after every event by ``match.evolve``) but ``match.view``
shows a player only whether they themselves are awaited (house, docs/games/mecha_ring.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.rules.mecha_ring.content import MAX_ENERGY, key_of

# The events that end a step of play and open a window (when someone may react).
STEP_KINDS = ("order_rolled", "climbed", "radar_rolled", "part_chosen", "struck", "installed",
              "recharged", "bought")


def _others(state: Mapping[str, Any], tid: str) -> list[str]:
    return [other for other in state["seats"]
            if other != tid and not state["tokens"][other]["out"]]


def sfx_targets(state: Mapping[str, Any], tid: str, effect: str, amount: int = 0
                ) -> list[Any] | None:
    """What a card of ``effect`` may be aimed at now for seat ``tid``: ``None`` when it needs
    no aim, else the list of choices (empty: it cannot be played now). Repair: the seat's own
    parts missing energy; jamming: the opponents; sabotage: ``[opponent, slot]`` of their
    parts above 1 energy, the torse never."""
    seat = state["tokens"][tid]
    if effect == "repair":
        return [slot for slot, part in seat["robot"].items()
                if part is not None and part["energy"] < MAX_ENERGY]
    if effect == "jam":
        return _others(state, tid)
    if effect == "sabotage":
        return [[other, slot] for other in _others(state, tid)
                for slot, part in state["tokens"][other]["robot"].items()
                if slot != "torse" and part is not None and part["energy"] > 1]
    return None


def playable(state: Mapping[str, Any], tid: str) -> list[str]:
    """The SFX cards seat ``tid`` could play now: from the hand (affordable) and in play."""
    seat = state["tokens"][tid]
    if seat["out"] or state.get("phase") not in ("fight", "market"):
        return []
    catalogue = state["catalogue"]["sfx"]
    found = []
    for card_id in seat["sfx_hand"]:
        sfx = catalogue[key_of(card_id)]
        aims = sfx_targets(state, tid, sfx["effect"])
        if sfx["cost"] <= seat["credits"] and (aims is None or aims):
            found.append(card_id)
    for entry in seat["sfx_in_play"]:
        sfx = catalogue[key_of(entry["card"])]
        aims = sfx_targets(state, tid, sfx["effect"])
        if aims is None or aims:
            found.append(entry["card"])
    return found


def may_react(state: Mapping[str, Any], tid: str, window: Mapping[str, Any]) -> bool:
    """Seat ``tid`` is asked in ``window``: not the one whose step opened it, not passed yet,
    a person's seat (bots decide by themselves), present, with a card to play."""
    seat = state["tokens"][tid]
    return (tid != window.get("by") and tid not in window.get("passed", [])
            and not seat.get("bot") and not seat.get("away")
            and bool(playable(state, tid)))


def waiting(state: Mapping[str, Any], window: Mapping[str, Any] | None = None) -> list[str]:
    """The seats the open window (or ``window``) waits for."""
    window = window if window is not None else state.get("window")
    if not window or state.get("status") != "running":
        return []
    return [tid for tid in state["seats"] if may_react(state, tid, window)]
