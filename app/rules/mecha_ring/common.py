"""What Mecha-Ring's action handlers share: the refusal and its reasons in both languages,
an ``Emitter`` that folds each event as it is produced (so a handler reads the state after
its own events), drawing cards, roll records for the roll log, who may act for a seat."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from app.rules.dice import Dice, Die, RollRecord
from app.rules.match import FIELD_LABELS, Actor, Event, IllegalAction, State, copy_state
from app.rules.mecha_ring import match
from app.rules.mecha_ring.robot import draw


class MechaRefusal(IllegalAction):
    """The table refuses a Mecha-Ring action; the reason in both languages."""

    templates_en: ClassVar[dict[str, str]] = {
        **IllegalAction.templates_en,
        "wrong_step": "this is not the moment for that",
        "not_yours": "this is not your Combatank",
        "no_such_card": "that card is not there",
        "not_a_target": "that part cannot be aimed at now",
        "too_poor": "not enough crédits ({cost} needed, {credits} left)",
        "slot_taken": "that place on the robot is not free",
        "wrong_slot": "that card does not fit there",
        "no_energy": "no energy to spend there",
        "first_already": "already first in the order",
        "full_energy": "that part has no energy missing",
        "no_seat": "choose which Combatank",
        "fallen": "this Combatank has fallen",
        "players": "a tournament is played by 2 to 4 Combatanks",
        "deck_too_small": "the deck is too small for {players} Combatanks: at least {torses} "
                          "torses and {parts} parts are needed",
        "window_open": "the table waits for the SFX reactions first",
        "not_asked": "no reaction is awaited from you",
        "not_yet": "the time is not up yet ({seconds} s left)",
        "no_timer": "no turn timer is running",
        "away_waits": "{name} is away: the table waits for them",
        "not_away": "this Combatank's player is here",
    }
    templates_fr: ClassVar[dict[str, str]] = {
        **IllegalAction.templates_fr,
        "wrong_step": "ce n'est pas le moment",
        "not_yours": "ce n'est pas votre Combatank",
        "no_such_card": "cette carte n'est pas là",
        "not_a_target": "ce morceau ne peut pas être visé maintenant",
        "too_poor": "pas assez de crédits ({cost:nécessaire|nécessaires}, "
                    "{credits:restant|restants})",
        "slot_taken": "cette place du robot n'est pas libre",
        "wrong_slot": "cette carte ne va pas à cette place",
        "no_energy": "pas d'énergie à dépenser ici",
        "first_already": "déjà premier dans l'ordre du tour",
        "full_energy": "ce morceau ne manque pas d'énergie",
        "no_seat": "choisissez quel Combatank",
        "fallen": "ce Combatank est tombé",
        "players": "un tournoi se joue à 2, 3 ou 4 Combatanks",
        "deck_too_small": "la pioche est trop petite pour {players} Combatanks : il faut au "
                          "moins {torses} torses et {parts} morceaux",
        "window_open": "la table attend d'abord les réactions SFX",
        "not_asked": "aucune réaction n'est attendue de vous",
        "not_yet": "le temps n'est pas encore écoulé ({seconds} s restantes)",
        "no_timer": "aucun minuteur de tour ne tourne",
        "away_waits": "{name} est absent : la table l'attend",
        "not_away": "le joueur de ce Combatank est là",
    }


# How an error names the fields of the turn timer (``set_timer``, the new-match form).
FIELD_LABELS.update({"seconds": ("Seconds", "Secondes"),
                     "turn_seconds": ("Turn timer", "Minuteur de tour")})


def refuse(code: str, **fields: Any) -> MechaRefusal:
    return MechaRefusal(code, **fields)


class Emitter:
    """Events as a handler produces them, each folded at once into a private copy."""

    def __init__(self, state: State, now: float | None = None) -> None:
        self.state = copy_state(state)
        self.events: list[Event] = []
        self.now = now

    def emit(self, kind: str, payload: dict[str, Any], visibility: str = "public") -> None:
        names = _names(self.state, payload)
        if names:
            payload = {**payload, "names": names}
        if self.now is not None and (self.state.get("timer") or kind == "timer_set" or (
                kind == "tournament_started" and payload.get("timer"))):
            # the server's time of the event: the turn timer counts from it (match._tick)
            payload = {**payload, "at": round(float(self.now), 3)}
        event = Event(kind, payload, visibility)  # type: ignore[arg-type]
        self.events.append(event)
        self.state = match.evolve(self.state, event)


def _names(state: State, payload: Mapping[str, Any]) -> dict[str, str]:
    """The names the log line shows for the seats and cards an event names (the log has no
    state to look them up in)."""
    tokens = state.get("tokens") or {}
    catalogue = state.get("catalogue") or {}
    found: dict[str, str] = {}

    def look(value: Any) -> None:
        if isinstance(value, str):
            if value in tokens:
                found[value] = tokens[value]["name"]
            elif "#" in value:
                key = value.split("#", 1)[0]
                entry = (catalogue.get("parts") or {}).get(key) or \
                    (catalogue.get("sfx") or {}).get(key)
                if entry:
                    found[value] = entry["name"]
        elif isinstance(value, list):
            for item in value:
                look(item)
        elif isinstance(value, Mapping):
            for name, item in value.items():
                look(name)
                look(item)

    for key, value in payload.items():
        if key not in ("rolls", "dice"):
            look(value)
    return found


def draw_card(piles: dict[str, list[str]], dice: Dice, *names: str) -> dict[str, str] | None:
    """One card from the first non-empty pile of ``names`` (``piles`` is a working copy)."""
    for name in names:
        card = draw(dice, piles[name])
        if card is not None:
            return {"card": card, "from": name}
    return None


def record(purpose: str, faces: list[int]) -> dict[str, Any]:
    """A pool of d6 as the roll log signs it."""
    return RollRecord(purpose, f"{len(faces)}d6", tuple(Die(6, face) for face in faces), (),
                      sum(faces)).to_dict()


def private(state: State, actor: Actor | None, seat_id: str) -> str:
    """A draw into a hand: the actor's own (``self``) or the GM's only (``gm``); the seat's
    player sees the card in their hand (``view``) either way."""
    owner = state["tokens"][seat_id].get("owner_id")
    return "self" if actor is not None and owner is not None and actor.user_id == owner \
        else "gm"


def seat_of(state: State, action: Mapping[str, Any], actor: Actor) -> dict[str, Any]:
    """The seat an action is for: ``seat`` when given, else the actor's only seat."""
    wanted = action.get("seat")
    mine = [tid for tid in state["seats"] if actor.controls(state["tokens"][tid])]
    if isinstance(wanted, str) and wanted:
        if wanted not in state["tokens"]:
            raise refuse("unknown_participant", participant=wanted[:40])
        if wanted not in mine:
            raise refuse("not_yours")
        return state["tokens"][wanted]
    if len(mine) != 1:
        raise refuse("no_seat")
    return state["tokens"][mine[0]]


def check_controls(state: State, actor: Actor, seat_id: str | None) -> dict[str, Any]:
    if seat_id is None:
        raise refuse("wrong_step")
    seat = state["tokens"][seat_id]
    if not actor.controls(seat):
        raise refuse("not_your_turn")
    return seat
