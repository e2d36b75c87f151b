"""Cyborg Anti-Alien: an action's exact odds before it is made (issue 27; docs/odds.md §
Cyborg Anti-Alien).

Cyborg's dice are few and small (a d100 against a skill, a d20 against a characteristic, the
d6 location table), so every figure comes from the rules' own code run over every way the
dice can fall: the action's handler first runs once on probe dice (refusing what the rules
refuse, and recording the skill, the modifiers, the targets of its tests), then the code
that resolves it — the handler itself, or the pure core it calls (``combat.attack``, one
shot: the attack's d100, the Esquive/Parade, the damage table, the wound) — runs once per
way. A d100 is followed by class rather than by face where only its class can matter: at
most the target, above it, and the units die at 0 (« coup de maître ») — each class weighed
by its number of faces, so the figures stay exact; the location d6 of a target who lost a
limb gives only the faces it can end on (« relancer le dé », each then equally likely).

A burst (« rafale ») is each round's own attack, santé carried from one to the next: its
rounds are followed one after the other over every santé the target may have left. A grenade
gives each participant in the blast the chance of its own attack.

Nothing in Cyborg's state is secret (``match.view``); the map's view may hide a figure, and
a form naming it gets no odds, as one naming nobody.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from itertools import pairwise
from typing import Any, TypeVar

from app.rules.cyborg import chases, combat
from app.rules.cyborg.combat import RULE_ATTACK, Target
from app.rules.cyborg.content import FACTORS, locations
from app.rules.cyborg.damage import damage_points
from app.rules.cyborg.match import weapon_of
from app.rules.cyborg.match_actions import _DECIDE
from app.rules.cyborg.match_common import armed, target_for, token_of
from app.rules.dice import Modifier
from app.rules.errors import RulesError
from app.rules.match import Actor, Event, State, copy_state, handler_for
from app.rules.odds.action import (
    MAX_PATHS,
    Amount,
    Chance,
    Expectation,
    Odds,
    Percent,
    Phrase,
    TooManyPaths,
    tally,
)
from app.rules.odds.coarse import exhaust_by
from app.rules.system import N_

T = TypeVar("T")
KINDS = frozenset({"attack", "test", "opposed", "camouflage", "first_aid", "ram", "manoeuvre",
                   "shoot_vehicle", "chase_round"})
RULE_TEST = "Cyborg § (I) Les caractéristiques ; § (III) Combats / Déroulement"
RULE_CHASE = "Cyborg § (IV) Poursuites / Déroulement"

Lumps = Callable[[int, int, Sequence[int]], Sequence[tuple[int, int]] | None]
"""``lumps(sides, index, faces)``: for the ``index``-th die of that size on a path (after
``faces``), its faces as (a face standing for them, how many faces); None: every face."""


def odds(view: State, action: Mapping[str, Any], actor: Actor) -> Odds | None:
    """The odds of the form as it stands, on the viewer's view; None when it names no
    action the rules would take."""
    kind = action.get("kind")
    if kind not in KINDS:
        return None
    try:
        handler = handler_for(_DECIDE, view, action, actor)
        probe = handler(copy_state(view), action, actor, _Probe())
        return WORKS[kind](view, action, actor, probe[0], handler)
    except (RulesError, TooManyPaths):
        return None


# — every way, by class ———————————————————————————————————————————————————————————

class _Probe:
    """Dice that show 1: the one run that checks the action and records its tests."""

    def roll(self, sides: int, *, count: int = 1) -> list[int]:
        return [1] * count


def every_way(run: Callable[[Any], T], lumps: Lumps | None = None, *,
              limit: int = MAX_PATHS) -> list[tuple[Fraction, T]]:
    """``run(dice)`` for every way its dice can fall, each with its exact chance — the shared
    walk (``app.rules.odds.coarse.exhaust_by``), where ``lumps`` may follow a die by classes
    of faces that have the same effect, each weighed by its number of faces."""
    def classes(sides: int, index: int, thrown: Sequence[int]) -> list[tuple[int, Fraction]]:
        faces = (lumps(sides, index, thrown) if lumps else None) or [
            (face, 1) for face in range(1, sides + 1)]
        whole = sum(count for _, count in faces)
        return [(face, Fraction(count, whole)) for face, count in faces]
    return exhaust_by(run, classes=classes, limit=limit)


def shown(chances: Sequence[Chance]) -> tuple[Chance, ...]:
    """The outcomes worth a line: the first (« l'attaque touche », even at 0 %), then those
    that may happen."""
    return tuple(chance for index, chance in enumerate(chances)
                 if index == 0 or chance.probability)


def percent_classes(target: int) -> list[tuple[int, int]]:
    """A d100 against ``target`` by class: at most the target with the units die at 0
    (« coup de maître »), at most the target otherwise, above it."""
    top = max(0, min(100, target))
    masters = top // 10
    found = []
    if top - masters:
        found.append((1, top - masters))
    if masters:
        found.append((10, masters))
    if top < 100:
        found.append((top + 1, 100 - top))
    return found


def threshold_classes(sides: int, thresholds: Sequence[int]) -> list[tuple[int, int]]:
    """A die whose face only counts by whether it reaches each threshold (at most it): one
    class per interval between them."""
    marks = sorted({max(0, min(sides, mark)) for mark in thresholds} | {0, sides})
    return [(low + 1, high - low) for low, high in pairwise(marks)
            if high > low]


# The constitution tests of a wound (Cyborg § (III) Calcul des dégâts): a limb's (no malus),
# the trunk's or the thorax's (+2), a déchirure's trunk (+4).
WOUND_MALUS = (0, 2, 4)


def percent_lumps(*targets: int | None, rest: bool = False) -> Lumps:
    """The ``i``-th d100 of a path against ``targets[i]`` (None: every face); past them, one
    class (``rest``: dice whose face does not matter to the odds asked) or every face."""
    def lumps(sides: int, index: int, _: Sequence[int]) -> Sequence[tuple[int, int]] | None:
        if sides == 100 and index < len(targets) and targets[index] is not None:
            return percent_classes(targets[index])
        if rest and (sides != 100 or index >= len(targets)) and sides != 10:
            return [(1, sides)]
        return None
    return lumps


def _target(test: Mapping[str, Any]) -> int:
    return int(test["target"])


# — an attack ————————————————————————————————————————————————————————————————————————

@dataclass(frozen=True)
class Shot:
    """What one round did, as the odds count it."""

    hit: bool
    master: bool
    damage: int
    sante: int
    wound: bool
    dead: bool
    unbalanced: bool


def shot_ways(resolve: Callable[[Any, Target], combat.Attack], aim: int, target: Target,
              damage_type: str) -> dict[Shot, Fraction]:
    """One attack (``resolve``: ``combat.attack`` or the chase's shot at a rider) over every
    way: the attack's d100 and the Esquive/Parade by class, the location d6 over the faces a
    target with lost limbs can end on, the d20s face by face."""
    lost = {face for face, place in locations().items() if place.limb in target.lost_limbs}
    located = damage_type != "etranglement" and lost

    def lumps(sides: int, index: int, _: Sequence[int]) -> Sequence[tuple[int, int]] | None:
        if sides == 100:
            return percent_classes(aim if index == 0 else target.esquive)
        if sides == 6 and located and index == 0:
            return [(face, 1) for face in range(1, 7) if face not in lost]
        if sides == 20:
            return threshold_classes(20, [target.constitution - malus for malus in WOUND_MALUS])
        return None

    def run(dice: Any) -> Shot:
        found = resolve(dice, target)
        wound = found.wound
        return Shot(found.hit, found.hit and found.attack.master, found.damage if found.hit
                    else 0, found.sante if found.hit else target.sante, wound is not None,
                    bool(wound and wound.dead), found.attacker_unbalanced)
    return tally(every_way(run, lumps))


@dataclass(frozen=True)
class Volley:
    hit: bool = False
    master: bool = False
    wound: bool = False
    dead: bool = False
    unbalanced: bool = False
    damage: int = 0
    hits: int = 0


def volley_ways(resolve: Callable[[Any, Target], combat.Attack], aim: int, target: Target,
                damage_type: str, shots: int = 1) -> dict[Volley, Fraction]:
    """« Le jet d'attaque doit être tiré pour chaque munition »: each round its own attack,
    santé carried to the next (``combat.fire``), followed over every santé left."""
    ways: dict[tuple[int, Volley], Fraction] = {(target.sante, Volley()): Fraction(1)}
    cache: dict[int, dict[Shot, Fraction]] = {}
    for _ in range(shots):
        following: dict[tuple[int, Volley], Fraction] = {}
        for (sante, so_far), chance in ways.items():
            if sante not in cache:
                cache[sante] = shot_ways(resolve, aim, replace(target, sante=sante),
                                         damage_type)
            for shot, share in cache[sante].items():
                after = Volley(so_far.hit or shot.hit, so_far.master or shot.master,
                               so_far.wound or shot.wound, so_far.dead or shot.dead,
                               so_far.unbalanced or shot.unbalanced,
                               so_far.damage + shot.damage, so_far.hits + shot.hit)
                # at 0 santé or below, what a round does no longer depends on how far below
                # (a damaging hit always rolls the wound): one state, the damage kept apart
                key = (max(0, shot.sante), after)
                following[key] = following.get(key, Fraction(0)) + chance * share
        ways = following
    found: dict[Volley, Fraction] = {}
    for (_, volley), chance in ways.items():
        found[volley] = found.get(volley, Fraction(0)) + chance
    return found


def attacking(weapon: Any, percent: int, modifiers: tuple[Modifier, ...],
              whole_body: bool) -> Callable[[Any, Target], combat.Attack]:
    """One attack as ``combat.attack`` (and ``combat.fire``, round by round) makes it."""
    return lambda dice, target: combat.attack(dice, weapon, percent, target, modifiers,
                                              whole_body=whole_body)


def _chance(ways: Mapping[Any, Fraction], test: Callable[[Any], bool]) -> Fraction:
    return sum((chance for key, chance in ways.items() if test(key)), Fraction(0))


def _mean(ways: Mapping[Any, Fraction], value: Callable[[Any], int]) -> Fraction:
    return sum((chance * value(key) for key, chance in ways.items()), Fraction(0))


def _attack(view: State, action: Mapping[str, Any], actor: Actor, probe: Event,
            handler: Any) -> Odds:
    """One blow, one shot or a burst: its hits, master strokes, the santé it takes, the
    wound at 0 santé or below, death; a grenade: each participant in its blast."""
    payload = probe.payload
    attacker = token_of(view, armed(action))
    weapon = weapon_of(view, payload["weapon"], attacker)
    modifiers = tuple(Modifier(m["value"], m.get("label")) for m in payload["modifiers"])
    percent = payload["skill"]
    aim = percent + sum(m.value for m in modifiers)
    if payload.get("area"):
        return _blast(view, payload, weapon, percent, modifiers, aim)
    target_token = view["tokens"][payload["shots"][0]["target"]]
    target = target_for(view, target_token)
    shots = len(payload["shots"])
    ways = volley_ways(attacking(weapon, percent, modifiers, payload["whole_body"]), aim,
                       target, weapon.damage_type, shots)
    melee = weapon.kind == "melee"
    chances = [Chance("hit", Phrase(N_("the attack hits")), _chance(ways, lambda v: v.hit)),
               Chance("master", Phrase(N_("a master stroke (double damage)")),
                      _chance(ways, lambda v: v.master)),
               Chance("wound", Phrase(N_("santé at 0 or below: a wound")),
                      _chance(ways, lambda v: v.wound)),
               Chance("dead", Phrase(N_("%(name)s dies"), {"name": target_token["name"]}),
                      _chance(ways, lambda v: v.dead))]
    if melee:
        chances.append(Chance("unbalanced", Phrase(N_("a defensive master stroke unbalances "
                                                      "the attacker")),
                              _chance(ways, lambda v: v.unbalanced)))
    damage = _mean(ways, lambda v: v.damage)
    expectations = [Expectation("damage", Phrase(N_("santé points lost by %(name)s"),
                                                 {"name": target_token["name"]}), damage)]
    if shots > 1:
        expectations.append(Expectation("hits", Phrase(N_("rounds that hit")),
                                        _mean(ways, lambda v: v.hits)))
    by_key = {chance.key: chance.probability for chance in chances}
    sentence = [Phrase(N_("%(chance)s to hit"), {"chance": Percent(by_key["hit"])})]
    if by_key["hit"]:
        sentence.append(Phrase(N_("%(points)s santé point on average"), {"points": Amount(
            damage)}, plural="%(points)s santé points on average", count="points"))
    if by_key["wound"]:
        sentence.append(Phrase(N_("%(chance)s of a wound (santé at 0 or below)"),
                               {"chance": Percent(by_key["wound"])}))
    if by_key["dead"]:
        sentence.append(Phrase(N_("%(chance)s that %(name)s dies"),
                               {"chance": Percent(by_key["dead"]),
                                "name": target_token["name"]}))
    details = [_aim_words(payload, aim)]
    if target.can_dodge:
        details.append(Phrase(N_("Esquive/Parade of %(name)s: %(target)s %% or less stops "
                                 "it."), {"name": target_token["name"],
                                          "target": target.esquive}))
    else:
        details.append(Phrase(N_("%(name)s cannot dodge this attack."),
                              {"name": target_token["name"]}))
    details.append(_damage_words(weapon, target, target_token["name"]))
    if shots > 1:
        details.append(Phrase(N_("%(shots)s rounds, each its own attack; %(hits)s hit on "
                                 "average."), {"shots": shots, "hits": Amount(
                                     _mean(ways, lambda v: v.hits))}))
    return Odds(shown(chances), tuple(expectations), tuple(sentence), tuple(details),
                rule=RULE_ATTACK)


def _aim_words(payload: Mapping[str, Any], aim: int) -> Phrase:
    """« Arme à feu 55 %, −15 % obscurité : 40 ou moins au D100 ; un 0 aux unités… »."""
    listed = ", ".join(
        (f"{m['value']:+d}".replace("-", "\u2212") + "\u202f% " + str(m.get("label") or ""))
        .strip() for m in payload["modifiers"] if m["value"])
    return Phrase(N_("%(skill)s %(percent)s %%%(modifiers)s: the d100 needs %(aim)s or less; "
                     "a 0 on the units die is a master stroke."),
                  {"skill": payload.get("skill_name") or "", "percent": payload["skill"],
                   "modifiers": f" ({listed})" if listed else "", "aim": max(0, aim)})


def _damage_words(weapon: Any, target: Target, name: str) -> Phrase:
    points = damage_points(weapon.factor, target.resistance) if weapon.factor in FACTORS else 0
    return Phrase(N_("Damage: factor %(factor)s against résistance %(resistance)s, %(points)s "
                     "santé (double on a master stroke); %(name)s has %(sante)s."),
                  {"factor": weapon.factor, "resistance": target.resistance,
                   "points": points, "name": name, "sante": target.sante})


def _blast(view: State, payload: Mapping[str, Any], weapon: Any, percent: int,
           modifiers: tuple[Modifier, ...], aim: int) -> Odds:
    """A grenade or a rocket: one attack roll; each participant in the blast dodges and
    takes the table's damage (§ (III) Calcul des dégâts): each one's chances, as its own
    attack gives them."""
    chances, sentence, expectations = [], [], []
    for tid in payload["area"]["caught"]:
        token = view["tokens"][tid]
        ways = volley_ways(attacking(weapon, percent, modifiers, False), aim,
                           target_for(view, token), weapon.damage_type)
        hit, dead = _chance(ways, lambda v: v.hit), _chance(ways, lambda v: v.dead)
        chances += [Chance(f"hit:{tid}", Phrase(N_("%(name)s is hit"),
                                                {"name": token["name"]}), hit),
                    Chance(f"dead:{tid}", Phrase(N_("%(name)s dies"),
                                                 {"name": token["name"]}), dead)]
        expectations.append(Expectation(f"damage:{tid}", Phrase(
            N_("santé points lost by %(name)s"), {"name": token["name"]}),
            _mean(ways, lambda v: v.damage)))
        sentence.append(Phrase(N_("%(chance)s to hit %(name)s"),
                               {"chance": Percent(hit), "name": token["name"]}))
    details = (_aim_words(payload, aim),
               Phrase(N_("Everyone caught in the blast may dodge, then takes the table's "
                         "damage; at 0 santé an explosion kills.")))
    return Odds(tuple(chances), tuple(expectations), tuple(sentence), details,
                rule=RULE_ATTACK)


# — tests ————————————————————————————————————————————————————————————————————————————

def _test(view: State, action: Mapping[str, Any], actor: Actor, probe: Event,
          handler: Any) -> Odds:
    """A characteristic test (1D20 + malus ≤ the characteristic) or a skill test (d100 ≤
    the skill; a 0 on the units die, a master stroke): the handler over every face."""
    ways = tally(every_way(lambda dice: _keys(handler(view, action, actor, dice)[0])))
    success = _chance(ways, lambda keys: "success" in keys)
    chances = [Chance("success", Phrase(N_("success")), success)]
    payload = probe.payload
    sentence = [Phrase(N_("%(chance)s to succeed"), {"chance": Percent(success)})]
    if payload["test"] == "skill":
        master = _chance(ways, lambda keys: "master" in keys)
        chances.append(Chance("master", Phrase(N_("a master stroke")), master))
        sentence.append(Phrase(N_("%(chance)s of a master stroke"), {"chance": Percent(master)}))
        details = (Phrase(N_("%(what)s: the d100 needs %(target)s or less."),
                          {"what": payload["what"], "target": max(0, payload["target"])}),)
    else:
        details = (Phrase(N_("The d20 plus the malus (%(malus)s) needs %(value)s or less."),
                          {"malus": f"{payload['malus']:+d}", "value": payload["value"]}),)
    return Odds(tuple(chances), (), tuple(sentence), details, rule=RULE_TEST)


def _keys(event: Event) -> frozenset[str]:
    """What a test, an opposed test or a hiding did, as the odds name it."""
    payload = event.payload
    keys = set()
    if event.kind == "tested":
        keys |= {"success"} if payload["success"] else set()
        keys |= {"master"} if payload.get("master") else set()
    elif event.kind == "camouflaged":
        keys |= {"hidden"} if payload["hidden"] else set()
        keys |= {"failed"} if not payload["success"] else set()
    return frozenset(keys)


def _opposed(view: State, action: Mapping[str, Any], actor: Actor, probe: Event,
             handler: Any) -> Odds:
    """Two characteristic tests (§ (I), read as a chase round, § (IV)): a lone success wins;
    two successes, the lower score; else nobody."""
    payload = probe.payload
    ways = tally(every_way(lambda dice: _opposed_key(handler(view, action, actor, dice)[0]),
                           scores(*payload["rolls"])))
    first, second = payload["name"], payload["other_name"]
    chances = (Chance("first", Phrase(N_("%(name)s wins"), {"name": first}),
                      ways.get("first", Fraction(0))),
               Chance("second", Phrase(N_("%(name)s wins"), {"name": second}),
                      ways.get("second", Fraction(0))),
               Chance("none", Phrase(N_("nobody wins")), ways.get("none", Fraction(0))))
    sentence = tuple(Phrase(N_("%(chance)s that %(name)s wins"),
                            {"chance": Percent(c.probability), "name": name})
                     for c, name in zip(chances[:2], (first, second), strict=True))
    return Odds(chances, (), sentence, (Phrase(N_("A lone success wins; two successes, the "
                                                  "lower d20; otherwise nobody.")),),
                rule=RULE_CHASE)


def scores(first: Mapping[str, Any], second: Mapping[str, Any]) -> Lumps:
    """Two characteristic tests read against each other (``checks.opposed_test``): the
    first d20 face by face up to its target (a failure, one class); the second by whether it
    succeeds, and then by its score below, equal to or above the first's."""
    def malus(record: Mapping[str, Any]) -> int:
        return sum(m["value"] for m in record.get("modifiers") or [])

    one, two = malus(first), malus(second)
    top_one = max(0, min(20, first["target"] - one))
    top_two = max(0, min(20, second["target"] - two))

    def lumps(sides: int, index: int, faces: Sequence[int]) -> Sequence[tuple[int, int]] | None:
        if sides != 20 or index > 1:
            return None
        if index == 0:
            return [(face, 1) for face in range(1, top_one + 1)] + (
                [(top_one + 1, 20 - top_one)] if top_one < 20 else [])
        mark = faces[0] + one - two  # the second's face that scores as the first did
        found = []
        below = max(0, min(mark - 1, top_two))
        if below:
            found.append((1, below))
        if 1 <= mark <= top_two:
            found.append((mark, 1))
        low = max(mark + 1, 1)
        if top_two >= low:
            found.append((low, top_two - low + 1))
        if top_two < 20:
            found.append((top_two + 1, 20 - top_two))
        return found
    return lumps


def _opposed_key(event: Event) -> str:
    """Which side the rules say won: the first named, the second, or nobody (by the
    position of the score that won, two participants may share a name)."""
    payload = event.payload
    if payload["winner"] is None:
        return "none"
    first, second = payload["scores"]
    values = payload["values"]
    one, two = first <= values[0], second <= values[1]
    if one != two:
        return "first" if one else "second"
    return "first" if first < second else "second"


def _camouflage(view: State, action: Mapping[str, Any], actor: Actor, probe: Event,
                handler: Any) -> Odds:
    """Camouflage, then each seeker's Repérage: the hider stays hidden while nobody spots
    it. Each d100 by class, against its own target (the probe's records)."""
    payload = probe.payload
    targets = [payload["target"], *(look["target"] for look in payload["looks"])]
    ways = tally(every_way(lambda dice: _keys(handler(view, action, actor, dice)[0]),
                           percent_lumps(*targets)))
    hidden = _chance(ways, lambda keys: "hidden" in keys)
    failed = _chance(ways, lambda keys: "failed" in keys)
    chances = (Chance("hidden", Phrase(N_("stays hidden")), hidden),
               Chance("failed", Phrase(N_("the camouflage fails")), failed))
    names = ", ".join(f"{look['name']} {look['target']} %" for look in payload["looks"])
    details = [Phrase(N_("Camouflage: the d100 needs %(target)s or less."),
                      {"target": max(0, payload["target"])})]
    if names:
        details.append(Phrase(N_("Then each seeker's Repérage spots it on its own roll: "
                                 "%(seekers)s."), {"seekers": names}))
    return Odds(chances, (), (Phrase(N_("%(chance)s to stay hidden"),
                                     {"chance": Percent(hidden)}),), tuple(details),
                rule="Cyborg § (II) Les compétences / Camouflage")


def _first_aid(view: State, action: Mapping[str, Any], actor: Actor, probe: Event,
               handler: Any) -> Odds:
    """Premiers soins: the d100 by class, then the 2D6 santé restored (never above the
    maximum)."""
    payload = probe.payload
    target = payload["skill"]
    ways = tally(every_way(lambda dice: _healed(handler(view, action, actor, dice)[0]),
                           percent_lumps(target)))
    success = _chance(ways, lambda found: found[0])
    healed = _mean(ways, lambda found: found[1])
    return Odds((Chance("success", Phrase(N_("success")), success),),
                (Expectation("healed", Phrase(N_("santé restored")), healed),),
                (Phrase(N_("%(chance)s to succeed"), {"chance": Percent(success)}),
                 Phrase(N_("%(points)s santé point restored on average"),
                        {"points": Amount(healed)},
                        plural="%(points)s santé points restored on average",
                        count="points")),
                (Phrase(N_("Premiers soins: the d100 needs %(target)s or less, then 2D6 "
                           "santé, up to %(name)s's maximum."),
                        {"target": max(0, target), "name": payload["patient_name"]}),),
                rule="Cyborg § (II) Les compétences / Premiers soins")


def _healed(event: Event) -> tuple[bool, int]:
    return bool(event.payload["success"]), int(event.payload["healed"])


# — chases ——————————————————————————————————————————————————————————————————————————

def _wrecks(event: Event) -> frozenset[str]:
    """A chase action's outcome: its test, and whose vehicle crashed."""
    payload = event.payload
    keys = {f"accident:{side}" for side in payload.get("wrecked") or []}
    if payload.get("success") or payload.get("hit"):
        keys.add("success")
    if event.kind == "chase_round":
        keys.add(f"winner:{payload['winner']}")
        if payload["after"] in (chases.CAUGHT, chases.LOST):
            keys.add(f"distance:{payload['after']}")
    return frozenset(keys)


def _driving(view: State, action: Mapping[str, Any], actor: Actor, probe: Event,
             handler: Any) -> Odds:
    """Ram, a manoeuvre, a shot at a vehicle: the test by class, then a failure's accident
    (or the 1D10 of a recoverable mistake); the riders' dice after an accident do not change
    whether it happens, so they are followed as one class."""
    payload = probe.payload
    chase = view["chase"]
    aim = payload["skill"] + (sum(m["value"] for m in payload["modifiers"])
                              if probe.kind == "vehicle_shot" else 0)
    ways = tally(every_way(lambda dice: _wrecks(handler(view, action, actor, dice)[0]),
                           percent_lumps(aim, rest=True)))
    success = _chance(ways, lambda keys: "success" in keys)
    words = {"rammed": N_("%(chance)s to ram the pursued vehicle"),
             "manoeuvre": N_("%(chance)s to succeed"),
             "vehicle_shot": N_("%(chance)s to hit")}[probe.kind]
    chances = [Chance("success", Phrase(N_("success")), success)]
    sentence = [Phrase(words, {"chance": Percent(success)})]
    for side in ("pursuer", "quarry"):
        crash = _chance(ways, lambda keys, side=side: f"accident:{side}" in keys)
        name = chase[side].get("vehicle_name") or view["tokens"][chase[side]["driver"]]["name"]
        chances.append(Chance(f"accident:{side}", Phrase(N_("an accident for %(name)s"),
                                                         {"name": name}), crash))
        if crash:
            sentence.append(Phrase(N_("%(chance)s of an accident for %(name)s"),
                                   {"chance": Percent(crash), "name": name}))
    details = (Phrase(N_("The d100 needs %(target)s or less."), {"target": max(0, aim)}),)
    return Odds(shown(chances), (), tuple(sentence), details, rule=RULE_CHASE)


def _shoot_vehicle(view: State, action: Mapping[str, Any], actor: Actor, probe: Event,
                   handler: Any) -> Odds:
    """At the structure: the d100, the table's damage against the vehicle's resistance, an
    accident at 0. At a rider: an attack through the vehicle's armour, no dodge."""
    payload = probe.payload
    if payload["aim"] == "structure":
        return _driving(view, action, actor, probe, handler)
    shooter = token_of(view, action)
    weapon = weapon_of(view, action.get("weapon"), shooter)
    modifiers = tuple(Modifier(m["value"], m.get("label")) for m in payload["modifiers"])
    aim = payload["skill"] + sum(m.value for m in modifiers)
    token = view["tokens"][payload["shots"][0]["target"]]
    chase = view["chase"]
    other = "quarry" if shooter["id"] in chase["pursuer"]["riders"] else "pursuer"
    vehicle = chases.all_vehicles(view.get("custom_vehicles"))[chase[other]["vehicle"]]
    rider = target_for(view, token)
    ways = volley_ways(lambda dice, target: chases.shoot_passenger(
        dice, weapon, payload["skill"], vehicle, target, modifiers), aim, rider,
        weapon.damage_type)
    target = replace(rider, resistance=rider.resistance + vehicle.resistance)
    hit, dead = _chance(ways, lambda v: v.hit), _chance(ways, lambda v: v.dead)
    damage = _mean(ways, lambda v: v.damage)
    return Odds(shown((Chance("hit", Phrase(N_("the attack hits")), hit),
                 Chance("master", Phrase(N_("a master stroke (double damage)")),
                        _chance(ways, lambda v: v.master)),
                 Chance("wound", Phrase(N_("santé at 0 or below: a wound")),
                        _chance(ways, lambda v: v.wound)),
                 Chance("dead", Phrase(N_("%(name)s dies"), {"name": token["name"]}),
                        dead))),
                (Expectation("damage", Phrase(N_("santé points lost by %(name)s"),
                                              {"name": token["name"]}), damage),),
                (Phrase(N_("%(chance)s to hit"), {"chance": Percent(hit)}),
                 Phrase(N_("%(points)s santé point on average"), {"points": Amount(damage)},
                        plural="%(points)s santé points on average", count="points")),
                (_aim_words(payload, aim), _damage_words(weapon, target, token["name"])),
                rule="Cyborg § (IV) Poursuites / Tirs")


def _chase_round(view: State, action: Mapping[str, Any], actor: Actor, probe: Event,
                 handler: Any) -> Odds:
    """A round of the chase (the handler over every way): on foot, rapidité against
    rapidité, every face of both d20; in vehicles, both driving tests — the pursuer's d100
    face by face where it succeeds, the quarry's by its place against it (« between equals
    the lower d100 wins »), a failure by class — and a failure's accident."""
    chase = view["chase"]
    if chase["mode"] == "foot":
        ways = tally(every_way(lambda dice: _wrecks(handler(view, action, actor, dice)[0]),
                               scores(*probe.payload["rolls"])))
    elif not chase["accidents"]:
        return Odds((), sentence=(Phrase(N_("Recoverable mistakes: these odds are not worked "
                                            "out (too many ways for the dice to fall).")),),
                    rule=RULE_CHASE)
    else:
        # the probe's dice succeed both driving tests: its first two rolls are theirs
        aims = [max(0, min(100, roll["target"])) for roll in probe.payload["rolls"][:2]]
        ways = tally(every_way(lambda dice: _wrecks(handler(view, action, actor, dice)[0]),
                               _drives(*aims)))
    names = {side: view["tokens"][chase[side]["driver"]]["name"]
             for side in ("pursuer", "quarry")}
    gains = {side: _chance(ways, lambda keys, side=side: f"winner:{side}" in keys)
             for side in ("pursuer", "quarry")}
    chances = [Chance(f"winner:{side}", Phrase(N_("%(name)s gains a step"),
                                              {"name": names[side]}), gains[side])
               for side in ("pursuer", "quarry")]
    chances.append(Chance("winner:None", Phrase(N_("the distance is kept")),
                          _chance(ways, lambda keys: "winner:None" in keys)))
    for end, words in ((chases.CAUGHT, N_("the quarry is caught")),
                       (chases.LOST, N_("the quarry gets away"))):
        chances.append(Chance(f"distance:{end}", Phrase(words), _chance(
            ways, lambda keys, end=end: f"distance:{end}" in keys)))
    sentence = [Phrase(N_("%(chance)s that %(name)s gains a step"),
                       {"chance": Percent(gains[side]), "name": names[side]})
                for side in ("pursuer", "quarry")]
    if chase["mode"] == "vehicle":
        for side in ("pursuer", "quarry"):
            crash = _chance(ways, lambda keys, side=side: f"accident:{side}" in keys)
            chances.append(Chance(f"accident:{side}", Phrase(
                N_("an accident for %(name)s"), {"name": names[side]}), crash))
            if crash:
                sentence.append(Phrase(N_("%(chance)s of an accident for %(name)s"),
                                       {"chance": Percent(crash), "name": names[side]}))
    return Odds(shown(chances), (), tuple(sentence),
                (Phrase(N_("Each side tests: a lone success gains a step; two successes, the "
                           "lower roll; otherwise the distance is kept.")),), rule=RULE_CHASE)


def _drives(first: int, second: int) -> Lumps:
    """The two driving d100 of a vehicle round, read as ``chases._better`` reads them: each
    succeeds or fails, and when both succeed the lower wins. Both successes are followed as
    one pair by how they compare — the first shows 2, the second 1, 2 or 3 (lower, equal,
    higher), each weighed by how many pairs of faces compare so — a failure by class; the
    dice of an accident's riders do not change whether it happens: one class each. With a
    target under 2 or 3 the first goes face by face instead."""
    paired = first >= 2 and second >= 3

    def lumps(sides: int, index: int, faces: Sequence[int]) -> Sequence[tuple[int, int]]:
        fail_one = [(first + 1, 100 - first)] if first < 100 else []
        fail_two = [(second + 1, 100 - second)] if second < 100 else []
        if sides == 100 and index == 0:
            if paired:
                return [(2, first), *fail_one]
            return [(face, 1) for face in range(1, first + 1)] + fail_one
        if sides == 100 and index == 1:
            mark = faces[0]
            if mark > first:  # the first failed: only whether the second succeeds counts
                return ([(1, second)] if second else []) + fail_two
            if paired:  # pairs of successes (f, g) over the first's class, by g against f
                lower = sum(min(face - 1, second) for face in range(1, first + 1))
                higher = sum(max(0, second - face) for face in range(1, first + 1))
                equal = min(first, second)
                found = [(1, lower), (2, equal), (3, higher)]
                if second < 100:
                    found.append((second + 1, first * (100 - second)))
                return [(face, count) for face, count in found if count]
            below, above = min(mark - 1, second), max(0, second - mark)
            found = [(1, below)] if below > 0 else []
            if mark <= second:
                found.append((mark, 1))
            if above:
                found.append((mark + 1, above))
            return found + fail_two
        return [(1, sides)]
    return lumps


WORKS: dict[str, Callable[..., Odds]] = {
    "attack": _attack, "test": _test, "opposed": _opposed, "camouflage": _camouflage,
    "first_aid": _first_aid, "ram": _driving, "manoeuvre": _driving,
    "shoot_vehicle": _shoot_vehicle, "chase_round": _chase_round,
}
