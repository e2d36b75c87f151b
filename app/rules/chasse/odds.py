"""Chasse préhistorique: a throw's, a melee round's, a charge's and a fire's odds before
they are tried (issue 27; seed § Tirs, § Bonus et malus au tir, § Les blessures, the combat
paragraphs, § Charge, § Incendie).

Worked out by the rules that resolve the throw: ``decide``'s own handler of a throw runs
once for every way its dice can fall (``exhaust``: the D6 to hit and, on a hit, the
target's D6 save), on the viewer's view of the hunt, and each way's ``shot`` event says what
happened. Only the throw: the steps that pass by themselves after it (the prey's reactions
when the tribe has nothing left to do) throw dice of their own, which are not the throw's.
So the odds count what the throw will count: the weapon's to-hit against the target's class, long
range, a small beast, the GM's modifier waiting for the next roll (public in this game: its
line in the log and its badge on the tracker tell every player), the save or « (*) ».

A melee round is two strikes at once (§ combats: "simultanés"): the leader's, with its
support, its charge and the Pataud's bonus, and the defender's back at it. Each is the
throw's own resolution (``combat.strike``, with the figures ``fights.melee_strikes`` gives
``melee_round``), followed for every way its dice fall; the two are independent, so their
chances multiply, and ``fights.damage`` says what the pair of results leaves (a wound each,
a figure down). Following the whole round at once would take hundreds of runs of the step.

A charge (§ Charge: Dmax + 1D6, declared before measuring) and a fire (§ Allumer un feu:
6, a shaman 3+, +1 per helper) are each one D6: their handlers run six times. A form taken
from the step before (a walk at step 2, a fight at step 6) first closes the steps between,
as ``decide`` does; those throw no die (the prey flee a fire without one).
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from app.rules.chasse import actions, combat, fire, steps
from app.rules.chasse.combat import RULE_MELEE, RULE_SHOT
from app.rules.chasse.fights import damage, melee_strikes
from app.rules.chasse.geometry import distance, o_pos
from app.rules.chasse.match import AHEAD
from app.rules.chasse.resolve import Acc, d6
from app.rules.chasse.state import evolve
from app.rules.errors import RulesError
from app.rules.match import Actor, Event, State
from app.rules.odds.action import Amount, Chance, Expectation, Odds, Percent, Phrase, exhaust
from app.rules.system import N_

KINDS = frozenset({"shoot", "melee", "light_fire", "move"})


def odds(view: State, action: Mapping[str, Any], actor: Actor) -> Odds | None:
    """The action's odds, or None when the form does not name one this viewer may take."""
    kind = action.get("kind")
    if kind not in KINDS:
        return None
    if kind != "shoot":
        try:
            return _OTHERS[kind](view, actions._expand(action), actor)
        except (RulesError, _Rolled):
            return None
    try:
        throw = actions._expand(action)  # the form's « hunter|target|weapon »
        paths = exhaust(lambda dice: _shot(actions._shoot(view, throw, actor, dice)))
    except RulesError:
        return None
    hit = sum((chance for chance, shot in paths if shot["result"]["outcome"] != "miss"),
              Fraction(0))
    wound = sum((chance for chance, shot in paths if shot["result"]["outcome"] == "wound"),
                Fraction(0))
    down = sum((chance for chance, shot in paths if any(d["dead"] for d in shot["damage"])),
               Fraction(0))
    # what the dice need, from a way that hits (a miss never reaches the save)
    shot = next((shot for _, shot in paths if shot["result"]["outcome"] != "miss"),
                paths[0][1])
    name = shot["target_name"]
    chances = (Chance("hit", Phrase(N_("to hit")), hit),
               Chance("wound", Phrase(N_("to wound")), wound),
               Chance("down", Phrase(N_("%(name)s falls"), {"name": name}), down))
    sentence = [Phrase(N_("%(chance)s to hit"), {"chance": Percent(hit)}),
                Phrase(N_("%(chance)s to wound"), {"chance": Percent(wound)})]
    if down:
        sentence.append(Phrase(N_("%(chance)s that %(name)s falls"),
                               {"chance": Percent(down), "name": name}))
    return Odds(chances, (Expectation("wounds", Phrase(N_("wounds on average")),
                                      wound),),
                tuple(sentence), _details(shot, wound), rule=RULE_SHOT)


def _shot(events: list[Event]) -> dict[str, Any]:
    return next(event.payload for event in events if event.kind == "shot")


def _details(shot: Mapping[str, Any], wound: Fraction) -> tuple[Phrase, ...]:
    """What the dice need, in the words of the log: the D6 against the weapon's to-hit, the
    modifiers counted, then the save."""
    result = shot["result"]
    details = [Phrase(N_("The D6 to hit needs %(target)s or more."),
                      {"target": result["to_hit"]})]
    modifiers = [(value, label) for value, label in result.get("modifiers", []) if value]
    if modifiers:
        details.append(Phrase(N_("Counted: %(modifiers)s."), {"modifiers": ", ".join(
            f"{value:+d} {label}" for value, label in modifiers)}))
    save = result.get("save")
    if save == 0:
        details.append(Phrase(N_("No save: a hit wounds.")))
    elif save:
        details.append(Phrase(N_("On a hit, a save of %(save)s or more spares the target."),
                              {"save": save}))
    details.append(Phrase(N_("%(wounds)s wound on average."), {"wounds": Amount(wound)},
                          plural="%(wounds)s wounds on average.", count="wounds"))
    return tuple(details)


# — a step taken ahead, and a handler's first die —————————————————————————————————

class _Rolled(BaseException):
    """A die where none was expected (the steps a form closes), or the handler's first die
    (its checks passed)."""


class _NoDie:
    def roll(self, sides: int, *, count: int = 1) -> list[int]:
        raise _Rolled


def _at_step(view: State, step: int) -> State:
    """The view at ``step``: the steps a form taken ahead closes first, as ``decide`` does
    (``actions._side_step``); they throw no die (a walk at step 2 passes step 3, where prey
    flee a fire without one; a fight at step 6 passes nothing)."""
    if AHEAD.get(view.get("step")) != step:
        return view
    acc = Acc(view, evolve)
    steps.advance_to(acc, _NoDie(), step)
    return acc.state


def _checked(handler: Any, state: State, action: Mapping[str, Any], actor: Actor) -> None:
    """The handler's checks, up to its first die (a refusal raises ``RulesError``)."""
    try:
        handler(state, action, actor, _NoDie())
    except _Rolled:
        return


# — a melee round (the combat paragraphs of § Tirs) ————————————————————————————————

def melee_outcomes(view: State, action: Mapping[str, Any], actor: Actor,
                   state: State | None = None) -> dict[tuple[str, str, bool, bool], Fraction]:
    """Every way the round ends: (the leader's strike, the defender's strike back — "miss",
    "grazed" or "wound" —, the defender down, the leader down), with its exact chance.
    ``state``: the view at step 7 when the caller has it already."""
    state = state if state is not None else _at_step(view, 7)
    _checked(actions._melee, state, action, actor)
    figures = _melee_figures(state, action)
    found: dict[tuple[str, str, bool, bool], Fraction] = {}
    leader, target = figures[0]["attacker"]["id"], figures[0]["defender"]["id"]
    sides = [_strikes(spec) for spec in figures]
    for first, (one, chance_one) in sides[0].items():
        for second, (other, chance_other) in sides[1].items():
            hurt = {entry["token"]: entry["dead"] for entry in damage(state, [one, other])}
            key = (first, second, hurt.get(target, False), hurt.get(leader, False))
            found[key] = found.get(key, Fraction(0)) + chance_one * chance_other
    return found


def _melee_figures(state: State, action: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The two strikes as ``actions._melee`` has ``melee_round`` throw them."""
    hunter = state["tokens"][action["token"]]
    usable = [k for k in hunter["weapons"]
              if (state["catalogue"]["weapons"].get(k) or {}).get("melee")] + ["mains_nues"]
    weapon = action.get("weapon") if action.get("weapon") in usable else usable[0]
    return melee_strikes(state, leader=hunter["id"], defender=action["target"], weapon=weapon,
                         extra=actions._gm_modifier(state))[2]


def _strikes(figures: Mapping[str, Any]) -> dict[str, tuple[dict[str, Any], Fraction]]:
    """One strike's outcomes ("miss", "grazed", "wound"), each with a result that gave it."""
    found: dict[str, tuple[dict[str, Any], Fraction]] = {}
    for chance, result in exhaust(lambda dice: combat.strike(dice, **figures)):
        outcome = result["outcome"]
        found[outcome] = (result, found.get(outcome, (result, Fraction(0)))[1] + chance)
    return found


def _melee(view: State, action: Mapping[str, Any], actor: Actor) -> Odds:
    state = _at_step(view, 7)
    found = melee_outcomes(view, action, actor, state)
    figures = _melee_figures(state, action)
    target, leader = figures[0]["defender"]["name"], figures[0]["attacker"]["name"]
    hit = sum((c for (first, *_), c in found.items() if first != "miss"), Fraction(0))
    wound = sum((c for (first, *_), c in found.items() if first == "wound"), Fraction(0))
    down = sum((c for key, c in found.items() if key[2]), Fraction(0))
    hurt = sum((c for (_, second, *_), c in found.items() if second == "wound"), Fraction(0))
    fallen = sum((c for key, c in found.items() if key[3]), Fraction(0))
    chances = (Chance("hit", Phrase(N_("to hit")), hit),
               Chance("wound", Phrase(N_("to wound")), wound),
               Chance("down", Phrase(N_("%(name)s falls"), {"name": target}), down),
               Chance("hurt", Phrase(N_("%(name)s wounded in return"), {"name": leader}),
                      hurt),
               Chance("fallen", Phrase(N_("%(name)s falls"), {"name": leader}), fallen))
    sentence = [Phrase(N_("%(chance)s to hit"), {"chance": Percent(hit)}),
                Phrase(N_("%(chance)s to wound"), {"chance": Percent(wound)})]
    if down:
        sentence.append(Phrase(N_("%(chance)s that %(name)s falls"),
                               {"chance": Percent(down), "name": target}))
    sentence.append(Phrase(N_("%(chance)s that %(name)s is wounded in return"),
                           {"chance": Percent(hurt), "name": leader}))
    if fallen:
        sentence.append(Phrase(N_("%(chance)s that %(name)s falls"),
                               {"chance": Percent(fallen), "name": leader}))
    details = [*_strike_words(figures[0], N_("%(name)s strikes: the D6 needs %(target)s or "
                                             "more."), wound),
               *_strike_words(figures[1], N_("%(name)s strikes back at the same time: the D6 "
                                             "needs %(target)s or more."), None)]
    # the outcomes that may happen (one left out never does: the tests hold it to that)
    chances = tuple(c for c in chances if c.probability or c.key in ("hit", "wound", "hurt"))
    return Odds(chances, (Expectation("wounds", Phrase(N_("wounds on average")), wound),
                          Expectation("wounds_taken", Phrase(N_("wounds taken on average")),
                                      hurt)),
                tuple(sentence), tuple(details), rule=RULE_MELEE)


def _strike_words(figures: Mapping[str, Any], words: str,
                  wound: Fraction | None) -> list[Phrase]:
    """What one strike's dice need: its to-hit with the modifiers counted, then the save."""
    klass = combat.mass_class(int(figures["defender"]["masse"]))
    weapon = figures["weapon"]
    found = [Phrase(words, {"name": figures["attacker"]["name"],
                            "target": int(weapon["to_hit"][klass])})]
    modifiers = [(value, label) for value, label in figures["modifiers"] if value]
    if modifiers:
        found.append(Phrase(N_("Counted: %(modifiers)s."), {"modifiers": ", ".join(
            f"{value:+d} {label}" for value, label in modifiers)}))
    save = int(weapon["save"][klass])
    if save == 0:
        found.append(Phrase(N_("No save: a hit wounds.")))
    else:
        found.append(Phrase(N_("On a hit, a save of %(save)s or more spares the target."),
                            {"save": save}))
    if wound is not None:
        found.append(Phrase(N_("%(wounds)s wound on average."), {"wounds": Amount(wound)},
                            plural="%(wounds)s wounds on average.", count="wounds"))
    return found


# — lighting a fire (§ Incendie) ——————————————————————————————————————————————————

def fire_outcomes(view: State, action: Mapping[str, Any], actor: Actor) -> dict[bool, Fraction]:
    """Lit or not: ``actions._light_fire`` itself, for each face of its D6."""
    found: dict[bool, Fraction] = {}
    for chance, events in exhaust(lambda dice: actions._light_fire(view, action, actor, dice)):
        lit = events[0].payload["success"]
        found[lit] = found.get(lit, Fraction(0)) + chance
    return found


def _light_fire(view: State, action: Mapping[str, Any], actor: Actor) -> Odds:
    found = fire_outcomes(view, action, actor)
    lit = found.get(True, Fraction(0))
    # the figures of the attempt, as the handler's own event says them (a 6 is thrown)
    payload = actions._light_fire(view, action, actor, _Six())[0].payload
    details = [Phrase(N_("The D6 needs %(target)s or more (a shaman 3+), +%(helpers)s for the "
                         "helpers."), {"target": payload["target"],
                                       "helpers": len(payload["helpers"])})]
    spot = {"x": payload["fire"]["x"], "y": payload["fire"]["y"]}
    near = [shape.get("label") or shape["id"] for shape in view["board"]["terrain"]
            if shape.get("kind") in fire.FLAMMABLE and fire.gap(spot, shape) <= fire.SPREAD]
    catch = sum((chance for chance, roll in exhaust(lambda dice: d6(
        dice, "spread", target=fire.CATCH)) if roll["total"] >= fire.CATCH), Fraction(0))
    if near:
        details.append(Phrase(N_("Lit, at step 1 of your next turn it spreads to each tree "
                                 "or bush within 2\" on a 5 or 6 (%(chance)s): "
                                 "%(elements)s."),
                              {"chance": Percent(catch), "elements": ", ".join(near)}))
    details.append(Phrase(N_("A figure within 1\" of a flame catches fire on a 5 or 6 "
                             "(%(chance)s) at step 1."), {"chance": Percent(catch)}))
    return Odds((Chance("lit", Phrase(N_("the fire lit")), lit),), (),
                (Phrase(N_("%(chance)s to light the fire"), {"chance": Percent(lit)}),),
                tuple(details), rule=fire.RULE)


class _Six:
    def roll(self, sides: int, *, count: int = 1) -> list[int]:
        return [sides] * count


# — a charge (§ Charge) ————————————————————————————————————————————————————————

def charge_outcomes(view: State, action: Mapping[str, Any], actor: Actor
                    ) -> dict[bool, Fraction]:
    """Reaching the target or not: ``actions._move``'s charge, for each face of its D6."""
    state = _at_step(view, 4)
    found: dict[bool, Fraction] = {}
    for chance, events in exhaust(lambda dice: actions._move(state, action, actor, dice)):
        moved = next(event.payload for event in events if event.kind == "hunter_moved")
        success = moved["charge"]["success"]
        found[success] = found.get(success, Fraction(0)) + chance
    return found


def _move(view: State, action: Mapping[str, Any], actor: Actor) -> Odds:
    if action.get("target") in (None, ""):
        hunter = actions._my_hunter(_at_step(view, 4), action, actor, 4)  # one's own, at 4
        if hunter.get("charged") or hunter.get("spent", 0) >= hunter["dmax"]:
            return None  # it has moved all it may: the form's own submit says why
        return Odds((), (), (Phrase(N_("a move without a charge throws no die")),),
                    (Phrase(N_("Choose a target to charge to see your odds of reaching it.")),),
                    rule=actions.RULE_MOVE)
    found = charge_outcomes(view, action, actor)
    reach = found.get(True, Fraction(0))
    state = _at_step(view, 4)
    hunter, target = state["tokens"][action["token"]], state["tokens"][action["target"]]
    span = distance(o_pos(hunter), o_pos(target))
    return Odds((Chance("reach", Phrase(N_("to reach %(name)s"), {"name": target["name"]}),
                        reach),), (),
                (Phrase(N_("%(chance)s to reach %(name)s"),
                        {"chance": Percent(reach), "name": target["name"]}),),
                (Phrase(N_("The charge goes %(dmax)s\" + 1D6 straight at %(name)s, "
                           "%(distance)s\" away (difficult ground and obstacles cost more, a "
                           "figure in the way stops it); in contact, +1 to hit in the first "
                           "round."), {"dmax": hunter["dmax"], "name": target["name"],
                                       "distance": Amount(Fraction(round(span * 10), 10))}),),
                rule=actions.RULE_CHARGE)


_OTHERS = {"melee": _melee, "light_fire": _light_fire, "move": _move}
