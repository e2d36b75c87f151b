"""Who can still fight, on which side, and how a fight stands once one side is out
(``outcome``, the ``GameSystem`` member read by the table page and the API).

A fighter is out of the fight (« hors de combat ») when KO or dead (« États § KO »), when a
group of henchmen has every member down (« Beat them all § Points de santé »), or when it
fled (« Le troisième prend la fuite », « Exemple de combat »). Sides: the players' fighters
against the others by default (a player character, or a fighter a player plays, is on the
players' side); the GM may move a fighter to the other side (an ally, a duel between two
player characters). docs/games/tiamat.md § Fights that end."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.rules.outcome import Outcome
from app.rules.system import N_

PLAYERS, OPPONENTS = "joueurs", "adversaires"
SIDES = {PLAYERS: "joueurs", OPPONENTS: "adversaires"}

NOBODY_LEFT = N_("Nobody can fight any more.")
SIDE_OUT = N_("Nobody on the side of %(names)s can fight any more.")
GM_ENDED = N_("The GM ended the fight.")


def active(participant: Mapping[str, Any]) -> bool:
    """Still in the fight: may act and be targeted like a standing fighter."""
    if participant.get("fled"):
        return False
    if participant.get("kind") == "hommes_de_main":
        return participant["down"] < participant["members"]
    return not participant.get("ko") and not participant.get("dead")


def side_of(participant: Mapping[str, Any]) -> str:
    side = participant.get("side")
    if side in SIDES:
        return side
    played = participant.get("kind", "pj") == "pj" or participant.get("owner_id") is not None
    return PLAYERS if played else OPPONENTS


def judge(participants: Mapping[str, Mapping[str, Any]]) -> Outcome | None:
    """Decided when nobody can fight, or when fighters of two sides met and one side alone
    still has someone able to fight: that side wins."""
    if not participants:
        return None
    sides: dict[str, list[Mapping[str, Any]]] = {}
    for fighter in participants.values():
        sides.setdefault(side_of(fighter), []).append(fighter)
    standing = [side for side, fighters in sides.items() if any(map(active, fighters))]
    if not standing:
        return Outcome((), NOBODY_LEFT)
    if len(sides) < 2 or len(standing) > 1:
        return None
    winner = standing[0]
    beaten = [f["name"] for side, fighters in sides.items() if side != winner for f in fighters]
    return Outcome(tuple(f["name"] for f in sides[winner] if active(f)), SIDE_OUT,
                   {"names": ", ".join(beaten)})


def outcome(state: Mapping[str, Any]) -> Outcome | None:
    """The fight as it stands: None while both sides can fight; decided (``over`` False)
    when one cannot, until the GM ends the match; over with the result kept in the state
    (``result``, written when the GM ended it)."""
    participants = state.get("participants") or {}
    if state.get("status") != "finished":
        return judge(participants)
    kept = state.get("result")
    if isinstance(kept, Mapping):
        return Outcome(tuple(kept.get("winners") or ()), str(kept.get("reason") or GM_ENDED),
                       dict(kept.get("params") or {}), over=True)
    decided = judge(participants)  # a match ended before results were kept
    if decided is None:
        return Outcome((), GM_ENDED, over=True)
    return Outcome(decided.winners, decided.reason, decided.params, over=True)


def decided(state: Mapping[str, Any]) -> bool:
    """One side is out and the match still open: nothing is left to play but ending it."""
    return state.get("status") != "finished" and judge(state.get("participants") or {}) \
        is not None
