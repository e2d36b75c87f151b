"""What a match is to the rules: participants, actors, events, and the fold.

A system turns an action into events (``decide``, the only place dice are rolled) and folds
events into state (``evolve``, pure and dice-free). Because events carry outcomes — every
face, every number — folding a match's log from the start rebuilds its snapshot exactly:
that gives replay, undo, audit and the fold(log) == snapshot test every game runs.
(DESIGN.md § The one flow.)
"""

from __future__ import annotations

import copy
import marshal
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from app.rules import map_state
from app.rules.errors import RulesError

State = dict[str, Any]
Visibility = Literal["public", "gm", "self"]
VISIBILITIES: tuple[Visibility, ...] = ("public", "gm", "self")
# An event may also be ``quiet``: the actor and the GM see it, and for everyone else it does
# not exist — no log line, nothing in their stream (a player's « no reaction » in a window
# tells who was asked). A quiet event carries no rolls and changes nothing others see.
EventVisibility = Literal["public", "gm", "self", "quiet"]

# Events the table engine writes itself; systems never see them in ``evolve``.
CONTROL_KINDS = frozenset({"rewind", "redo", "gm_correction_note"})
# Events the platform writes in a match's log and that change nothing in its state: a roll
# made from the sheet of a character seated at the table (``sheet_rolled``: its payload names
# the character and carries the roll log's signed entries, ``roll_ids``, with their records,
# ``rolls``; app/services/tables.py ``journal_rolls``). The journal shows them.
JOURNAL_KINDS = frozenset({"sheet_rolled"})
# Events the platform writes and folds itself whatever the game (not control events: they
# can be undone): the board's background picture (app/services/board_backgrounds.py), the
# fog of war, hidden figures, drawings, scenes and handouts (app/rules/map_state.py), and
# the journal's own lines (``JOURNAL_KINDS``).
PLATFORM_KINDS = map_state.PLATFORM_KINDS | JOURNAL_KINDS


class IllegalAction(RulesError):
    """The rules refuse an action at the table; each game adds its own reasons."""

    code = "illegal_action"
    templates_en: ClassVar[dict[str, str]] = {
        "illegal_action": "this action is not allowed now",
        "unknown_action": "unknown action '{kind}'",
        "not_your_turn": "it is not your turn",
        "not_allowed": "only the GM or the participant's player may do this",
        "gm_only": "only the GM may do this",
        "spectator": "spectators watch; they do not act",
        "bad_field": "“{label}”: {reason}",
        "unknown_participant": "no participant '{participant}' in this match",
        "match_over": "the match is over",
        "secret_roll_gm_only": "only the GM rolls in secret: choose everyone, or you and "
                               "the GM",
    }
    templates_fr: ClassVar[dict[str, str]] = {
        "illegal_action": "cette action n'est pas permise maintenant",
        "unknown_action": "action inconnue « {kind} »",
        "not_your_turn": "ce n'est pas votre tour",
        "not_allowed": "seuls le MJ ou le joueur de ce participant peuvent faire ceci",
        "gm_only": "seul le MJ peut faire ceci",
        "spectator": "les spectateurs regardent ; ils n'agissent pas",
        "bad_field": "« {label} » : {reason}",
        "unknown_participant": "aucun participant « {participant} » dans ce match",
        "match_over": "le match est terminé",
        "secret_roll_gm_only": "seul le MJ lance en secret : choisissez tout le monde, ou "
                               "vous et le MJ",
    }

    # A choice the form left out reaches the rules as None: say so, never « None ».
    NO_PARTICIPANT: ClassVar[dict[str, str]] = {
        "en": "no participant was chosen: choose one",
        "fr": "aucun participant n'a été choisi : choisissez-en un"}

    def _render(self, templates: dict[str, str], lang: str) -> str:
        if self.code == "unknown_participant" and \
                str(self.fields.get("participant", "")) in ("", "None"):
            return self.NO_PARTICIPANT[lang]
        return super()._render(templates, lang)

    def _format_fields(self, lang: str) -> dict[str, Any]:
        fields = super()._format_fields(lang)
        if self.code == "bad_field":
            fields["label"] = field_label(str(fields.get("field", "")), lang)
            fields["reason"] = _reason_words(fields, lang)
        return fields


# What a form calls the fields actions share, so that an error names the field as the page
# does ("Hit points", « Points de vie »), never by its key. A field not listed is named by
# its key with spaces; each game may add its own (``FIELD_LABELS.update``).
FIELD_LABELS: dict[str, tuple[str, str]] = {
    "value": ("Value", "Valeur"), "x": ("x", "x"), "y": ("y", "y"), "malus": ("Malus", "Malus"),
    "text": ("Text", "Texte"), "reason": ("Reason", "Raison"), "label": ("Label", "Libellé"),
    "width": ("Width", "Largeur"), "height": ("Height", "Hauteur"), "w": ("Width", "Largeur"),
    "h": ("Height", "Hauteur"), "name": ("Name", "Nom"),
    "other_malus": ("The other's malus", "Malus de l'autre"),
    "characteristic": ("Characteristic", "Caractéristique"),
    "other_characteristic": ("The other's characteristic", "Caractéristique de l'autre"),
    "what": ("What", "Quoi"), "test": ("Test", "Test"), "statuses": ("Statuses", "États"),
    "state": ("State", "État"), "stake": ("Stake", "Mise"), "skill": ("Skill", "Compétence"),
    "side": ("Side", "Camp"), "shots": ("Shots", "Tirs"),
    "seeker_malus": ("Seeker's malus", "Malus du chercheur"), "purpose": ("Purpose", "But"),
    "poison": ("Poison", "Poison"), "organ": ("Organ", "Organe"), "mode": ("Mode", "Mode"),
    "lost": ("Lost", "Perdus"), "hp": ("Hit points", "Points de vie"),
    "hp_max": ("Maximum hit points", "Points de vie maximum"), "hours": ("Hours", "Heures"),
    "distance": ("Distance", "Distance"), "delta": ("Change", "Variation"),
    "bet": ("Bet", "Pari"), "expression": ("Dice expression", "Expression de dés"),
    "visibility": ("Who sees the roll", "Qui voit le jet"), "field": ("Field", "Champ"),
    "token": ("Token", "Pion"), "target": ("Target", "Cible"), "profile": ("Profile", "Profil"),
    "group": ("Group", "Groupe"), "surprise": ("Surprise", "Surprise"),
    "quarry": ("Quarry", "Proie"), "pursuer": ("Pursuer", "Poursuivant"),
    "whole_body": ("Whole body", "Corps entier"), "winner": ("Winner", "Vainqueur"),
    "first_team": ("First team", "Première équipe"), "tokens": ("Tokens", "Pions"),
    "bettor_team": ("Team bet on", "Équipe pariée"), "category_t": ("Category", "Catégorie"),
}


def field_label(field: str, lang: str) -> str:
    base = field.split(".")[0]
    labels = FIELD_LABELS.get(field) or FIELD_LABELS.get(base)
    if labels is None:
        return field.replace("_", " ").replace(".", " ")
    return labels[1] if lang == "fr" else labels[0]


def _reason_words(fields: Mapping[str, Any], lang: str) -> str:
    """What the field may be, in words: a range, a length, a list, or the reason given."""
    fr = lang == "fr"
    if "low" in fields and "high" in fields:
        return (f"un nombre entier de {fields['low']} à {fields['high']} est attendu" if fr
                else f"expected a whole number from {fields['low']} to {fields['high']}")
    if "max_length" in fields:
        return (f"de 1 à {fields['max_length']} caractères sont attendus" if fr
                else f"expected 1 to {fields['max_length']} characters")
    if fields.get("choices"):
        listed = ", ".join(str(choice) for choice in fields["choices"])[:200]
        return f"attendu : l'un de {listed}" if fr else f"expected one of: {listed}"
    reason = fields.get("reason_fr") if fr else None
    reason = reason or fields.get("reason")
    if reason in (None, "", "?"):
        return ("cette valeur n'est pas l'une de celles proposées" if fr
                else "this value is not one of those offered")
    return str(reason)


def visibilities_for(actor: Actor) -> tuple[Visibility, ...]:
    """Who may be shown a roll this actor makes: only the GM rolls in secret (``gm``), as
    the free roller says (``app.services.rolls.check_visibility``)."""
    return VISIBILITIES if actor.is_gm else tuple(v for v in VISIBILITIES if v != "gm")


def check_visibility(actor: Actor, visibility: object) -> Visibility:
    if visibility not in VISIBILITIES:
        raise IllegalAction("bad_field", field="visibility",
                            reason="choose everyone, the GM, or you and the GM",
                            reason_fr="choisissez tout le monde, le MJ, ou vous et le MJ")
    if visibility not in visibilities_for(actor):
        raise IllegalAction("secret_roll_gm_only")
    return visibility  # type: ignore[return-value]


@dataclass(frozen=True)
class Actor:
    """Who acts or looks: a campaign member, with what they control."""

    user_id: int | None
    is_gm: bool = False
    is_spectator: bool = False
    character_ids: frozenset[int] = frozenset()

    def controls(self, participant: Mapping[str, Any]) -> bool:
        """The GM controls everyone; a player their own characters."""
        if self.is_gm:
            return True
        character_id = participant.get("character_id")
        return (not self.is_spectator and character_id is not None
                and character_id in self.character_ids)


@dataclass(frozen=True)
class Event:
    """A fact that happened. ``visibility``: everyone, the GM only, or the actor + GM
    (``self``: others see that something secret happened; ``quiet``: others see nothing)."""

    kind: str
    payload: dict[str, Any] = field(default_factory=dict)
    visibility: EventVisibility = "public"


@dataclass(frozen=True)
class ParticipantSetup:
    """A roster character (or an unnamed extra) entering a match."""

    name: str
    character_id: int | None = None
    owner_id: int | None = None
    sheet: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class MatchSetup:
    name: str
    participants: tuple[ParticipantSetup, ...] = ()
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ActionForm:
    """One thing an actor may do now: its kind, a label, and the choices its form offers."""

    kind: str
    label: str
    template: str | None = None
    choices: Mapping[str, Any] = field(default_factory=dict)


def copy_state(value: Any) -> Any:
    """``copy.deepcopy(value)``, five times faster on a match's state, which is JSON (dicts,
    lists, strings, numbers): a ``marshal`` round trip copies it in C, shared parts shared as
    deepcopy shares them. Anything ``marshal`` refuses (a subclass of a built-in type, an
    object of the rules) goes to ``copy.deepcopy``. Every ``decide`` copies the state it is
    given and folds its events on copies: this is most of what a throw costs (tests/odds_check
    plays 100,000 of them per action; the simulations many more)."""
    try:
        return marshal.loads(marshal.dumps(value))  # noqa: S302 — our own bytes, just made
    except (ValueError, TypeError):  # not marshallable, or nested too deep for it
        return copy.deepcopy(value)


def seated_characters(state: State) -> frozenset[int]:
    """Every roster character the match seats (its tokens or its participants)."""
    found = set()
    for pool in ("tokens", "participants"):
        figures = state.get(pool)
        for figure in figures.values() if isinstance(figures, Mapping) else ():
            if isinstance(figure, Mapping) and type(figure.get("character_id")) is int:
                found.add(figure["character_id"])
    return frozenset(found)


def handler_for(handlers: Mapping[str, Any], state: State, action: Mapping[str, Any],
                actor: Actor) -> Any:
    """What every game checks before judging an action: a kind it knows, an actor who is not
    a spectator, a match not over. Returns the game's handler for the action's kind."""
    kind = action.get("kind")
    handler = handlers.get(kind) if isinstance(kind, str) else None
    if handler is None:
        raise IllegalAction("unknown_action", kind=str(kind)[:40])
    if actor.is_spectator:
        raise IllegalAction("spectator")
    if state.get("status") == "finished":
        raise IllegalAction("match_over")
    return handler


def fold(system, events: Iterable[Event | Mapping[str, Any]], state: State | None = None) -> State:
    """Fold events into state with ``system.evolve`` (control events skipped).

    ``state`` is never modified: each game's ``evolve`` may work in place on its copy.
    """
    current: State = copy_state(state) if state is not None else {}
    for event in events:
        current = _fold_one(system, current, event)
    return current


def fold_steps(system, events: Iterable[Event]) -> Iterator[State]:
    """The state after each event of a log in turn, folded as ``fold`` does from nothing:
    for checking every step of a long log without copying the state at each. Each step is
    the same state folded on: read it before asking for the next."""
    current: State = {}
    for event in events:
        current = _fold_one(system, current, event)
        yield current


def fold_one(system, current: State, event: Event | Mapping[str, Any]) -> State:
    """``current`` (changed in place, or replaced) with one more event folded in."""
    return _fold_one(system, current, event)


def _fold_one(system, current: State, event: Event | Mapping[str, Any]) -> State:
    if isinstance(event, Mapping):
        event = Event(event["kind"], dict(event.get("payload") or {}),
                      event.get("visibility", "public"))
    if event.kind in CONTROL_KINDS or event.kind in JOURNAL_KINDS:
        return current
    if event.kind in PLATFORM_KINDS:
        map_state.evolve(current, event.kind, event.payload)
        return current
    return system.evolve(current, event)


def apply(system, state: State, action: Mapping[str, Any], actor: Actor, dice) -> tuple[
        list[Event], State]:
    """``system.decide`` then fold: the events an action produced and the state after them."""
    events = system.decide(state, action, actor, dice)
    return events, fold(system, events, state)
