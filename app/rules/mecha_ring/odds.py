"""Mecha-Ring: an attack's odds before it is made (issue 27, docs/odds.md § Mecha-Ring).

002_4824fb48e45db48f.txt § Tour de jeu: the radar ("autant de dés à 6 faces que sa valeur
totale de Radar … un ou plusieurs chiffre(s) impair(s)"), then "autant de dés … que sa
valeur totale d'Attaque" against "la valeur de Défense du morceau de robot visé": a hit
when the attack's sum "dépasse" the défense's, one energy lost "plus un point
supplémentaire par 6 sorti dans le jet d'attaque".

Worked out by the rules that resolve it: the radar by ``actions.radar_roll`` itself,
followed for every way its dice can fall as the rule reads them (odd or even: a d6 is two
classes, ``exhaust_by``); the strike from the distribution of the very dice it throws
(``actions.strike_dice``: Attaque against the aimed part's Défense, with the SFX cards
played and the host's modifier) — the attack's sum with its sixes, the défense's sum —
each class judged by ``robot.Strike`` and the part's energy by ``actions.energy_after``.
A strike of twelve dice against four cannot be followed die by die (6¹⁶ ways); its sums
can.

Only what the viewer's view holds: the hands and the piles are secret (``match.view``),
so a card in an opponent's hand is not in the odds until it is played (then its buff is
public, and counted); the details say so.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from functools import lru_cache
from typing import Any, NamedTuple

from app.rules.errors import RulesError
from app.rules.match import Actor, State, handler_for
from app.rules.mecha_ring.actions import (
    FLOW_KINDS,
    HANDLERS,
    energy_after,
    radar_roll,
    refuse,
    strike_dice,
)
from app.rules.mecha_ring.common import Emitter
from app.rules.mecha_ring.match import current_attacker
from app.rules.mecha_ring.robot import R_TURN, Strike, card, targets
from app.rules.odds.action import Amount, Chance, Expectation, Odds, Percent, Phrase
from app.rules.odds.coarse import exhaust_by
from app.rules.odds.exact import distribution
from app.rules.system import N_

KINDS = frozenset({"attack", "choose_part", "boost_radar"})
SLOT_WORDS = {"tete": "tête", "bras_g": "bras gauche", "bras_d": "bras droit",
              "jambes": "jambes", "torse": "torse"}
HALF = Fraction(1, 2)
PARITY = {6: ((1, HALF), (2, HALF))}  # the radar reads a face as odd or even, no finer


def odds(view: State, action: Mapping[str, Any], actor: Actor) -> Odds | None:
    """The odds of the attack the form names, or None when the rules would not take it (or,
    for a boost that does not name the part aimed at yet, when no strike is decided)."""
    kind = action.get("kind")
    if kind not in KINDS:
        return None
    try:
        after = _judged(view, action, actor)
        if after is None:
            return None
        if kind == "attack":
            return _attack(view, action)
        pending = after["fight"]["pending"]
        if not pending or not pending.get("slot"):
            return None  # a boost without its aim: the part is chosen next (``choose_part``)
        return strike_odds(after, current_attacker(after), pending["defender"],
                           pending["slot"])
    except RulesError:
        return None


class _Legal(BaseException):
    """The handler reached its first die: its checks passed."""


class _FirstDie:
    def roll(self, sides: int, *, count: int = 1) -> list[int]:
        raise _Legal


def _judged(view: State, action: Mapping[str, Any], actor: Actor) -> State | None:
    """The view after the form's own handler (the part chosen, the radar energy spent), or
    the view itself when its first die is reached (the radar roll); a refusal raises. The
    handler only: what ``decide`` settles after it reads the hands, which a view hides."""
    handler = handler_for(HANDLERS, view, action, actor)
    if view.get("window") and action.get("kind") in FLOW_KINDS:
        raise refuse("window_open")
    em = Emitter(view)
    try:
        handler(view, action, actor, _FirstDie(), em)
    except _Legal:
        return view
    return em.state


# — the strike ————————————————————————————————————————————————————————————————————

class Blow(NamedTuple):
    hit: bool
    lost: int  # energy the part loses
    destroyed: bool
    fell: bool  # the torse destroyed: the Combatank falls


@lru_cache(maxsize=64)
def _attack_sums(count: int) -> tuple[tuple[int, int, int], ...]:
    """The ways ``count`` d6 fall as a strike reads them: (sum, sixes, number of ways)."""
    ways = {(0, 0): 1}
    for _ in range(count):
        grown: dict[tuple[int, int], int] = {}
        for (total, sixes), n in ways.items():
            for face in range(1, 7):
                key = (total + face, sixes + (face == 6))
                grown[key] = grown.get(key, 0) + n
        ways = grown
    return tuple((total, sixes, n) for (total, sixes), n in sorted(ways.items()))


def _attack_faces(count: int, total: int, sixes: int) -> tuple[int, ...]:
    """Faces with that sum and that many sixes (the others 1 to 5, as high as they go)."""
    faces, left = [6] * sixes, total - 6 * sixes
    for place in range(count - sixes, 0, -1):
        face = min(5, left - (place - 1))
        faces.append(face)
        left -= face
    return tuple(faces)


def _defence_sums(count: int) -> tuple[tuple[tuple[int, ...], int], ...]:
    """Each sum of the défense dice (faces that make it, its number of ways out of
    ``6 ** count``): the distribution of ``count``d6."""
    if count <= 0:
        return (((), 1),)
    found = []
    for total, ways in distribution(f"{count}d6").counts:
        faces, left = [], total
        for place in range(count, 0, -1):
            face = min(6, left - (place - 1))
            faces.append(face)
            left -= face
        found.append((tuple(faces), ways))
    return tuple(found)


@lru_cache(maxsize=256)
def strike_chances(attack_dice: int, defence_dice: int) -> tuple[tuple[bool, int, Fraction],
                                                                  ...]:
    """(hit, damage, chance) of a strike of ``attack_dice`` against ``defence_dice``: every
    class of the attack (its sum and its sixes) against every sum of the défense, judged by
    ``Strike`` (exact counts of ways, one division at the end)."""
    attack, defence = max(0, attack_dice), max(0, defence_dice)
    guards = _defence_sums(defence)
    found: dict[tuple[bool, int], int] = {}
    for total, sixes, ways in _attack_sums(attack):
        faces = _attack_faces(attack, total, sixes)
        for guard, more in guards:
            result = Strike(faces, guard)
            key = (result.hit, result.damage)
            found[key] = found.get(key, 0) + ways * more
    whole = 6 ** (attack + defence)
    return tuple((hit, damage, Fraction(ways, whole))
                 for (hit, damage), ways in sorted(found.items()))


def strike_outcomes(state: State, tid: str, target: str, slot: str) -> dict[Blow, Fraction]:
    """Every way the strike on that part ends: hit or not, the energy it loses, destroyed,
    the Combatank fallen — as ``actions._resolve`` counts them."""
    attack_dice, defence_dice = strike_dice(state, tid, target, slot)
    energy = state["tokens"][target]["robot"][slot]["energy"]
    found: dict[Blow, Fraction] = {}
    for hit, damage, chance in strike_chances(attack_dice, defence_dice):
        after = energy_after(energy, damage)
        blow = Blow(hit, energy - after, after == 0, after == 0 and slot == "torse")
        found[blow] = found.get(blow, Fraction(0)) + chance
    return found


def _sum(found: Mapping[Blow, Fraction], test) -> Fraction:
    return sum((chance for blow, chance in found.items() if test(blow)), Fraction(0))


def strike_odds(state: State, tid: str, target: str, slot: str) -> Odds:
    found = strike_outcomes(state, tid, target, slot)
    hit = _sum(found, lambda b: b.hit)
    destroyed = _sum(found, lambda b: b.destroyed)
    fell = _sum(found, lambda b: b.fell)
    lost = sum((chance * blow.lost for blow, chance in found.items()), Fraction(0))
    name = state["tokens"][target]["name"]
    sentence = [Phrase(N_("%(chance)s that the attack hits"), {"chance": Percent(hit)}),
                Phrase(N_("%(energy)s energy point lost on average"), {"energy": Amount(lost)},
                       plural=N_("%(energy)s energy points lost on average"), count="energy")]
    chances = [Chance("hit", Phrase(N_("the attack hits")), hit),
               Chance("destroyed", Phrase(N_("the part destroyed")), destroyed)]
    if destroyed:
        sentence.append(Phrase(N_("%(chance)s that the part is destroyed"),
                               {"chance": Percent(destroyed)}))
    if slot == "torse":
        chances.append(Chance("fell", Phrase(N_("%(name)s falls"), {"name": name}), fell))
        if fell:
            sentence.append(Phrase(N_("%(chance)s that %(name)s falls"),
                                   {"chance": Percent(fell), "name": name}))
    # the outcomes that may happen (one left out never does: the tests hold it to that)
    chances = [c for c in chances if c.probability or c.key == "hit"]
    return Odds(tuple(chances), (Expectation("energy", Phrase(N_("energy lost on average")),
                                             lost),),
                tuple(sentence), _strike_details(state, tid, target, slot), rule=R_TURN)


def _strike_details(state: State, tid: str, target: str, slot: str) -> tuple[Phrase, ...]:
    attack_dice, defence_dice = strike_dice(state, tid, target, slot)
    part = state["tokens"][target]["robot"][slot]
    found = card(state["catalogue"]["parts"], part["card"])
    details = [Phrase(N_("%(attack)s attack dice against %(defence)s défense dice (%(part)s, "
                         "%(slot)s): a hit when the attack's sum is higher; 1 energy, plus 1 "
                         "per 6 rolled."),
                      {"attack": max(0, attack_dice), "defence": max(0, defence_dice),
                       "part": found["name"], "slot": SLOT_WORDS.get(slot, slot)}),
               Phrase(N_("The part has %(energy)s energy point left."),
                      {"energy": part["energy"]},
                      plural=N_("The part has %(energy)s energy points left."), count="energy")]
    bonus = state["tokens"][tid]["buffs"]["attack"], state["tokens"][target]["buffs"]["defence"]
    if any(bonus):
        details.append(Phrase(N_("Counted: %(attack)+d attack dice, %(defence)+d défense dice "
                                 "(SFX cards played, the host's modifier)."),
                              {"attack": bonus[0], "defence": bonus[1]}))
    details.append(Phrase(N_("Not counted: the SFX cards still in hand (nobody sees the "
                             "others'); one played before the strike changes it.")))
    return tuple(details)


# — the radar, and what the strike may be ————————————————————————————————————————

def radar_outcomes(state: State, tid: str) -> dict[bool, Fraction]:
    """The radar's success, by ``actions.radar_roll`` for every way its dice fall (odd or
    even, as it reads them)."""
    found: dict[bool, Fraction] = {}
    for chance, (_, _, success, _) in exhaust_by(lambda dice: radar_roll(state, tid, dice),
                                                 classes=PARITY):
        found[success] = found.get(success, Fraction(0)) + chance
    return found


def _attack(view: State, action: Mapping[str, Any]) -> Odds:
    tid = current_attacker(view)
    target = str(action.get("target"))
    radar = radar_outcomes(view, tid).get(True, Fraction(0))
    robot = view["tokens"][target]["robot"]
    by_part = {slot: _sum(strike_outcomes(view, tid, target, slot), lambda b: b.hit)
               for slot in targets(robot)}
    low, high = min(by_part.values()), max(by_part.values())
    best = max(by_part, key=lambda slot: by_part[slot])
    worst = min(by_part, key=lambda slot: by_part[slot])
    name = view["tokens"][target]["name"]
    sentence = [Phrase(N_("%(chance)s that your radar lets you choose the part"),
                       {"chance": Percent(radar)}),
                Phrase(N_("%(low)s to %(high)s to hit, depending on the part"),
                       {"low": Percent(low), "high": Percent(high)})
                if low != high else
                Phrase(N_("%(chance)s to hit"), {"chance": Percent(high)})]
    seat = view["tokens"][tid]
    count = sum(card(view["catalogue"]["parts"], part["card"])["radar"]
                for part in seat["robot"].values() if part)
    details = [Phrase(N_("Radar: %(count)s dice; any odd face lets you choose the part of "
                         "%(name)s aimed at, otherwise %(name)s chooses."),
                      {"count": count, "name": name})]
    if seat["buffs"]["sure_radar"]:
        details.append(Phrase(N_("A sure radar played: it succeeds.")))
    elif seat["buffs"]["jammed"]:
        details.append(Phrase(N_("Your radar is jammed: it fails.")))
    details.append(Phrase(N_("Best aimed: %(best)s (%(high)s to hit); best defended: "
                             "%(worst)s (%(low)s)."),
                          {"best": SLOT_WORDS.get(best, best), "high": Percent(high),
                           "worst": SLOT_WORDS.get(worst, worst), "low": Percent(low)}))
    details.append(Phrase(N_("Not counted: the SFX cards still in hand (nobody sees the "
                             "others'); one played before the strike changes it.")))
    chances = (Chance("radar", Phrase(N_("you choose the part")), radar),
               Chance("best", Phrase(N_("to hit the best aimed part")), high),
               Chance("worst", Phrase(N_("to hit the best defended part")), low))
    return Odds(chances, (), tuple(sentence), tuple(details), rule=R_TURN)
