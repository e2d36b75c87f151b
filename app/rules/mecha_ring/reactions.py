"""Mecha-Ring's reaction windows (§ Cartes SFX: "peuvent être jouées à tout moment, même quand
c'est le tour de jeu d'un autre joueur"), pure and dice-free.

After a step of play the table pauses only for a player holding a card that can change what
comes next (``relevant``, issue 25): before a strike, the attacker's attack cards and a
sabotage of the part aimed at, the defender's défense cards and a repair of that part; before
an attacker aims, an opponent's jamming card. A player may say « never ask me this fight »
for a card (``muted``). Anything else (crédits, a sure radar on one's own turn, repairs
between rounds) is played from the player's own panel while the table waits for someone
anyway. The window closes when all asked have passed or played, when the host closes it, or
when the turn timer runs out; a house bot decides at once (``bots.reaction``).

Windows opened before this rule (``relevant`` not in the window) still wait, as then, for
every player with a playable card (``playable``), so that old logs fold as they did.

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


def _effect(state: Mapping[str, Any], card_id: str) -> str:
    return state["catalogue"]["sfx"][key_of(card_id)]["effect"]


def _radar_dice(state: Mapping[str, Any], tid: str) -> int:
    parts = state["catalogue"]["parts"]
    return sum(parts[key_of(part["card"])]["radar"]
               for part in state["tokens"][tid]["robot"].values() if part)


def _next_strike(state: Mapping[str, Any]) -> tuple[str, str, str] | None:
    """The strike the table is about to roll: attacker, defender, part aimed at."""
    fight = state.get("fight") or {}
    pending = fight.get("pending") or {}
    if state.get("phase") != "fight" or fight.get("step") != "attack" or \
            pending.get("step") != "window":
        return None
    return fight["order"][fight["attacker"]], pending["defender"], pending["slot"]


def _next_aim(state: Mapping[str, Any]) -> str | None:
    """The attacker about to declare and roll the radar (nothing pending yet)."""
    fight = state.get("fight") or {}
    if state.get("phase") != "fight" or fight.get("step") != "attack" or \
            fight.get("pending") or fight.get("attacker", 0) >= len(fight.get("order", [])):
        return None
    return fight["order"][fight["attacker"]]


def changes_next(state: Mapping[str, Any], tid: str, card_id: str) -> bool:
    """Whether seat ``tid`` playing this card can change the step the table is about to
    resolve (the strike, or the next radar roll)."""
    effect = _effect(state, card_id)
    strike = _next_strike(state)
    if strike is not None:
        attacker, defender, slot = strike
        part = state["tokens"][defender]["robot"].get(slot)
        if tid == attacker:
            return effect == "attack" or (effect == "sabotage" and slot != "torse"
                                          and part is not None and part["energy"] > 1)
        if tid == defender:
            return effect == "defence" or (effect == "repair" and part is not None
                                           and part["energy"] < MAX_ENERGY)
        return False
    aiming = _next_aim(state)
    if aiming is not None and aiming != tid and effect == "jam":
        buffs = state["tokens"][aiming]["buffs"]
        return not buffs["jammed"] and not buffs["sure_radar"] and \
            _radar_dice(state, aiming) > 0
    return False


def relevant(state: Mapping[str, Any], tid: str) -> list[str]:
    """The cards seat ``tid`` could play now that can change the next step, but those its
    player asked not to be asked about this fight."""
    muted = state["tokens"][tid].get("muted") or []
    return [card_id for card_id in playable(state, tid)
            if card_id not in muted and changes_next(state, tid, card_id)]


def may_react(state: Mapping[str, Any], tid: str, window: Mapping[str, Any]) -> bool:
    """Seat ``tid`` is asked in ``window``: not passed yet, a person's seat (bots decide by
    themselves), present, with a card that can change the next step (before this rule: any
    playable card, and not the one whose step opened the window)."""
    seat = state["tokens"][tid]
    if tid in window.get("passed", []) or seat.get("bot") or seat.get("away"):
        return False
    if window.get("relevant"):
        return bool(relevant(state, tid))
    return tid != window.get("by") and bool(playable(state, tid))


def waiting(state: Mapping[str, Any], window: Mapping[str, Any] | None = None) -> list[str]:
    """The seats the open window (or ``window``) waits for."""
    window = window if window is not None else state.get("window")
    if not window or state.get("status") != "running":
        return []
    return [tid for tid in state["seats"] if may_react(state, tid, window)]
