"""What the arena does by itself after each action, and how a fight stands.

000_e34df4ff7a8d792c.txt § 1-1 Initiative ("Lorsque tous les mutants ont joué un nouveau tour
de jeu commence"), § 1-3 Attaque au corps à corps (the second attack, the counter-attack, the
free attacks), § 3-1 Jeter l'éponge and § 3-2 Fin du carnage. After every action ``settle``
adds what needs nobody's click:

- a follow-up (second attack, counter-attack, free attacks owed) with no limb or target left
  for it is let go; one whose mutant has standing orders (« consignes ») is struck or let go
  as they say — the trainer decided in advance instead of at the moment (house, see
  docs/rules-notes.md);
- a turn whose mutant died or left passes; a turn with nothing left to do ends;
- when every mutant has played, the next round starts;
- when at most one team still has a creature in the arena, the fight is decided: the turn
  stops and the GM is offered to end it (``outcome``). A creature booed back in (§ 3-3 Huée)
  or revived by the GM's correction resumes it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.rules.dice import Dice
from app.rules.match import FIELD_LABELS, Actor, Event, IllegalAction, State
from app.rules.mutatior.match_fight import (
    _round_events,
    attack_options,
    decline,
    end_turn,
    shoot_options,
    skill_options,
    skip_free,
    strike,
)
from app.rules.mutatior.match_state import (
    _alive,
    _controlled,
    _refuse,
    _simulate,
    _token,
    fighters,
    mutant,
    team_names,
)
from app.rules.outcome import Outcome
from app.rules.system import N_

# A mutant's standing orders for the strikes it did not choose (a second attack, a
# counter-attack, a free attack): ask its trainer, strike at once, or let them go.
STRIKES = ("ask", "always", "never")
FIELD_LABELS.update({"strike": ("Strikes it did not choose", "Frappes qu'il n'a pas choisies"),
                     "limb": ("Limb", "Membre")})
# However an action ends, what follows by itself is at most this many steps (a round of
# ten mutants, each with its exchanges, is far below).
STEPS_MAX = 200


# — standing orders ————————————————————————————————————————————————————————————————

def orders(state: State, tid: str) -> dict[str, Any]:
    """The mutant's standing orders: ``strike`` (one of ``STRIKES``) and the ``limb`` it
    strikes with first (None: its strongest)."""
    found = (state.get("standing") or {}).get(tid)
    return found if isinstance(found, Mapping) else {"strike": "ask", "limb": None}


def order_limbs(state: State, tid: str) -> list[str]:
    """The limbs a mutant may be told to strike with: its living limbs with muscles, never
    the trunk (§ 1-3: "Le membre tronc ne peut jamais attaquer")."""
    return [limb.name for limb in mutant(state, tid).living_limbs
            if not limb.trunk and limb.live_muscles > 0]


def _decide_orders(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """A trainer gives standing orders to one of its mutants (``token``, or the form's
    ``limb`` "m1:tête", "m1:" for its strongest limb) or, without one, to all its mutants
    still in the arena (each striking with its strongest limb); before or during the fight."""
    strike_order = action.get("strike", "ask")
    if strike_order not in STRIKES:
        raise _refuse("bad_field", field="strike", reason="?")
    ref = action.get("limb") if isinstance(action.get("limb"), str) else ""
    tid, _, limb = ref.partition(":") if ":" in ref else (action.get("token"), "", ref)
    if tid in (None, ""):
        if limb:  # a limb, but whose?
            raise _refuse("bad_field", field="limb", reason="?")
        chosen = [mine for mine in fighters(state) if actor.controls(state["tokens"][mine])]
        if not chosen:
            raise _refuse("no_team")
    else:
        tid = _token(state, {"token": tid})
        _controlled(state, tid, actor)
        if not _alive(state, tid):
            raise _refuse("out_of_arena", mutant=state["tokens"][tid]["name"])
        if limb and limb not in order_limbs(state, tid):
            raise _refuse("bad_field", field="limb", reason="?")
        chosen = [tid]
    return [Event("orders_set", {"token": one, "name": state["tokens"][one]["name"],
                                 "strike": strike_order, "limb": limb or None})
            for one in chosen]


def chosen_strike(state: State, tid: str) -> dict[str, str] | None:
    """The strike its orders make: the ordered limb if it may strike now, else its strongest
    (muscles and implant, § 1-3), at the enemy limb aimed at that defends worst (fewest
    muscles, then least armour: the defence is d6 + the aimed limb's muscles)."""
    limbs, targets = attack_options(state, tid)
    if not limbs:
        return None
    body = mutant(state, tid)
    ordered = orders(state, tid).get("limb")

    def strength(ref: str) -> int:
        limb = body.limb(ref.partition(":")[2])
        return limb.live_muscles + body.attack_bonus(limb)

    def defence(ref: str) -> tuple[int, int]:
        enemy, _, name = ref.partition(":")
        foe = mutant(state, enemy)
        return foe.limb(name).live_muscles, foe.armour(foe.limb(name))

    limb = f"{tid}:{ordered}" if f"{tid}:{ordered}" in limbs else max(limbs, key=strength)
    return {"kind": "attack", "limb": limb, "target": min(targets, key=defence)}


# — how the fight stands ——————————————————————————————————————————————————————————————

def standing_teams(state: State) -> list[str]:
    """The teams that still have a living creature in the arena, in the arena's order."""
    present = {state["tokens"][tid].get("team") for tid in fighters(state)}
    return [team for team in state.get("team_order", []) if team in present]


def decided(state: State) -> bool:
    """§ 3-2 Fin du carnage: the fight is played out when at most one team still has a
    creature in the arena (the others dead, or gone with the sponge, § 3-1)."""
    return state.get("phase") == "fight" and len(state.get("team_order", [])) >= 2 \
        and len(standing_teams(state)) <= 1


def outcome(state: State) -> Outcome | None:
    """Who won and why: a decided fight waits for the GM's « Terminer le combat »; an ended
    one names the winner the GM confirmed, or the two trainers' stop (§ 3-2)."""
    if not state.get("teams"):
        return None
    names = team_names(state)

    def name(team: str) -> str:
        return names[team]["label"] or names[team]["captain"]

    if state.get("phase") == "over":
        results = state.get("results") or {}
        if results.get("both_stop"):
            return Outcome((), N_("Both trainers stopped the fight."), over=True)
        winner = results.get("winner")
        if winner in names:
            return Outcome((name(winner),), N_("The GM ended the fight and named the winner."),
                           over=True)
        return Outcome((), N_("The GM ended the fight without a winner."), over=True)
    if not decided(state):
        return None
    left = standing_teams(state)
    if left:
        return Outcome((name(left[0]),), N_("No other team has a creature left in the arena."))
    return Outcome((), N_("No creature is left standing in the arena."))


# — what follows by itself ————————————————————————————————————————————————————————————

def settle(state: State, events: list[Event], dice: Dice) -> list[Event]:
    """The events that follow ``events`` by themselves (see the module's docstring)."""
    if not events or state.get("phase") != "fight":
        return []
    added: list[Event] = []
    for _ in range(STEPS_MAX):
        following = _next_step(_simulate(state, events + added), dice)
        if not following:
            break
        added += following
    return added


def _next_step(state: State, dice: Dice) -> list[Event]:
    if state.get("phase") != "fight":
        return []
    if decided(state):
        if state.get("decided"):
            return []
        return [Event("fight_decided", {"teams": standing_teams(state)})]
    if state.get("decided"):
        return [Event("fight_resumed", {"teams": standing_teams(state)})]
    return _follow_up(state, dice) or _free_attack(state, dice) or _turn_step(state, dice)


def _follow_up(state: State, dice: Dice) -> list[Event]:
    """A second attack or a counter-attack on offer: let go when nothing may strike, or as
    the mutant's orders say."""
    pending = state.get("pending")
    if not pending:
        return []
    by = pending["by"]
    chosen = chosen_strike(state, by)
    if chosen is None:
        return decline(state, "nothing")
    order = orders(state, by).get("strike")
    if order == "never":
        return decline(state, "orders")
    if order == "always":
        return _ordered_strike(state, chosen, dice)
    return []


def _free_attack(state: State, dice: Dice) -> list[Event]:
    """Free attacks owed (§ 1-2: an enemy leaving the melee): the same, for each mutant owed
    one, in the order they were owed."""
    for tid in dict.fromkeys(entry["by"] for entry in state.get("free_attacks") or []):
        chosen = chosen_strike(state, tid)
        if chosen is None:
            return skip_free(state, tid, "nothing")
        order = orders(state, tid).get("strike")
        if order == "never":
            return skip_free(state, tid, "orders")
        if order == "always":
            return _ordered_strike(state, chosen, dice)
    return []


def _ordered_strike(state: State, chosen: dict[str, str], dice: Dice) -> list[Event]:
    """The strike the orders make, its events marked so (the log says it). Should the
    rules refuse it after all, the trainer is asked instead."""
    try:
        events = strike(state, chosen, dice)
    except IllegalAction:
        return []
    for event in events:
        if event.kind in ("pump_rolled", "follow_up_failed", "attacked"):
            event.payload["auto"] = "orders"
    return events


def _turn_step(state: State, dice: Dice) -> list[Event]:
    """The turn passes when its mutant died or left, or has nothing left to do; with
    everyone played, the next round (§ 1-1). Never while a strike is owed."""
    if state.get("pending") or state.get("free_attacks"):
        return []
    current = state.get("turn")
    if current is None:
        return _round_events(state, dice) if fighters(state) else []
    if not _alive(state, current):
        return end_turn(state, dice, "lost")
    if _nothing_left(state, current):
        return end_turn(state, dice, "nothing")
    return []


def _nothing_left(state: State, tid: str) -> bool:
    """Its attack or shot is done (or it can neither move, sprint, attack nor shoot), and it
    has no turn skill left to use."""
    activation = state.get("activation") or {}
    if skill_options(state, tid):
        return False
    if activation.get("acted"):
        return True
    stuck = activation["allowance"] - activation["moved"] <= 0 and activation["sprinted"]
    return stuck and not attack_options(state, tid)[0] and not shoot_options(state, tid)[0]
