"""Tiamat: an action's exact odds before it is made (issue 27; docs/odds.md § Tiamat).

A pool of D10 keeping the best, each 10 adding a D6 (« Convention des lancers de dés »), is too
many dice for ``exhaust`` (5D10 against 4D10 is ten billion ways), so the figures are built
from the exact ``distribution`` of the very pools the rules will roll, and every total is
judged by the functions that judge the real roll:

- an attack (``attack``, ``combo``) and its answer (``defend``): ``match_actions.exchange``
  gives both précision pools (with préparation, helpers, wounds, states, the GM's and the
  range's modifiers, a surprise's single die) and whether the defence cannot stop it
  (« Imparable », « Inévitable »); the blow lands on a strictly greater précision
  (« Résolution d'une attaque »), a counter-attack on a strictly greater defence; where it
  lands is ``strike_location`` itself run on every face of its D10 (``exhaust``); the
  puissance there is ``strike_power``'s expression, and each of its totals is judged by
  ``strike_damage`` (Endurance + armure, a grave wound from 10, KO, death, a henchman
  down, Ténacité); a lethal blow parried bare-handed by ``parry_damage``;
- a test, a jump, a run over hard ground, breaking free, overcoming fear, the kusarigama's
  throw, the GM's opposed roll: the action's own handler runs once on probe dice, and the
  rolls it records give the expressions (and the modifiers added on top) it throws; a
  test succeeds on a total at least its difficulty, an opposed roll when the initiator's
  total is strictly greater (« en cas d'égalité, le personnage ayant initié l'action
  perd »).

Only the viewer's view is read: a target's standing defence is its player's and the GM's
(``match.view``), so another player's odds are worked out against the défense instinctive
and say so, with the chance against each defence the target may still choose.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from itertools import accumulate
from typing import Any

from app.rules.dice import RollRecord
from app.rules.errors import RulesError
from app.rules.match import Actor, Event, State, copy_state, handler_for
from app.rules.odds import distribution
from app.rules.odds.action import Amount, Chance, Expectation, Odds, Percent, Phrase, exhaust
from app.rules.system import N_
from app.rules.tiamat import match_actions as rules
from app.rules.tiamat.combat import ARMED_PARADES, GRAVE, RULE_ATTACK, damage_expression
from app.rules.tiamat.content import Technique, techniques
from app.rules.tiamat.match import defence_options
from app.rules.tiamat.pools import RULE_OPPOSED, RULE_SIMPLE, Pool
from app.rules.tiamat.turns import folded, refuse_when_decided

ATTACKS = frozenset({"attack", "combo"})
ROLLS = frozenset({"test", "jump", "manoeuvre", "escape", "overcome_fear",
                   "kusarigama_throw", "opposed"})
KINDS = ATTACKS | {"defend"} | ROLLS


def odds(view: State, action: Mapping[str, Any], actor: Actor) -> Odds | None:
    """The odds of the form as it stands, on the viewer's view; None when it names no
    action the rules would take."""
    kind = action.get("kind")
    if kind not in KINDS:
        return None
    try:
        handler_for(rules.HANDLERS, view, action, actor)
        refuse_when_decided(view, kind)
        if kind in ATTACKS:
            return _attack(view, action, actor)
        if kind == "defend":
            return _defend(view, action, actor)
        return _roll(view, action, actor)
    except RulesError:
        return None


# — exact laws of totals ——————————————————————————————————————————————————————————

@dataclass(frozen=True)
class Law:
    """Every total a roll can give with its exact count out of ``denominator``, lowest
    first."""

    counts: tuple[tuple[int, int], ...]
    denominator: int

    def shifted(self, by: int) -> Law:
        return Law(tuple((value + by, count) for value, count in self.counts),
                   self.denominator) if by else self

    def chance(self, test: Callable[[int], bool]) -> Fraction:
        return Fraction(sum(count for value, count in self.counts if test(value)),
                        self.denominator)

    @property
    def mean(self) -> Fraction:
        return Fraction(sum(value * count for value, count in self.counts), self.denominator)


@lru_cache(maxsize=512)
def law_of(expression: str) -> Law:
    """The exact totals of a dice expression (``app.rules.odds.distribution``)."""
    found = distribution(expression)
    return Law(found.counts, found.denominator)


def pool_law(pool: Pool) -> Law:
    """A pool's totals: what it throws, and its named modifiers on top."""
    return law_of(pool.expression).shifted(pool.bonus)


CONSTANT = re.compile(r"[+-]\d+$")


def record_law(record: Mapping[str, Any]) -> Law:
    """The totals of a roll the rules recorded: its expression, and the modifiers added to
    it beyond the expression's own number (which the record also lists)."""
    expression = record["expression"]
    own = CONSTANT.search(expression)
    added = sum(m["value"] for m in record.get("modifiers") or []) - (
        int(own.group()) if own else 0)
    return law_of(expression).shifted(added)


def beats(first: Law, second: Law) -> tuple[Fraction, Fraction]:
    """(the chance that ``first`` is strictly greater, that ``second`` is)."""
    values = [value for value, _ in second.counts]
    below = [0, *accumulate(count for _, count in second.counts)]
    whole = below[-1]
    greater = lower = 0
    for value, count in first.counts:
        greater += count * below[bisect_left(values, value)]
        lower += count * (whole - below[bisect_right(values, value)])
    out_of = first.denominator * second.denominator
    return Fraction(greater, out_of), Fraction(lower, out_of)


def notation_text(expression: str, bonus: int = 0) -> str:
    """A pool as the rules text writes it: « 3D10 + 1D6 + 2 »."""
    text = re.sub(r"(\d+)d(\d+)t?", r"\1D\2", expression)
    if bonus:
        own = CONSTANT.search(text)
        total = (int(own.group()) if own else 0) + bonus
        text = CONSTANT.sub("", text) + (f"{total:+d}" if total else "")
    return text.replace("+", " + ").replace("-", " − ")


def pool_text(pool: Pool) -> str:
    return notation_text(pool.expression, pool.bonus)


# — a blow that went through ——————————————————————————————————————————————————————

@dataclass
class Blow:
    """What a blow that went through does to its target, exactly: the chance of each
    outcome and the santé lost on average (a group of henchmen: one of them down)."""

    grave: Fraction = Fraction(0)
    ko: Fraction = Fraction(0)
    dead: Fraction = Fraction(0)
    out: Fraction = Fraction(0)
    loss: Fraction = Fraction(0)
    power: str | None = None  # the likeliest location's puissance, as the text writes it
    endurance: int = 0
    armour: int = 0


def blow(striker: Mapping[str, Any], target: Mapping[str, Any], merged: Mapping[str, Any],
         technique: Technique, attributes: Sequence[str], chain: str | None,
         chosen: str | None) -> Blow:
    """Location (``strike_location`` on each face of its die), puissance there
    (``strike_power``), each total judged by ``strike_damage``."""
    where = exhaust(lambda dice: rules.strike_location(dice, target, technique, chain,
                                                        chosen)[0])
    places: dict[str, Fraction] = {}
    for chance, location in where:
        places[location] = places.get(location, Fraction(0)) + chance
    found = Blow()
    for location, chance in sorted(places.items(), key=lambda item: -item[1]):
        expression, _ = rules.strike_power(striker, technique, chain, location)
        law = law_of(expression) if expression else Law(((0, 1),), 1)
        grave = ko = dead = out = loss = 0
        hurt: dict[str, Any] = {}
        for total, count in law.counts:
            record = RollRecord(None, expression or "", (), (), total) if expression else None
            hurt, _ = rules.strike_damage(target, merged, record, location, technique,
                                          attributes)
            grave += count * bool(hurt.get("grave"))
            ko += count * bool(hurt.get("ko"))
            dead += count * bool(hurt.get("dead"))
            out += count * bool(hurt.get("henchman_out"))
            loss += count * hurt["loss"]
        share = chance / law.denominator
        found.grave += grave * share
        found.ko += ko * share
        found.dead += dead * share
        found.out += out * share
        found.loss += loss * share
        if found.power is None:
            found.power = notation_text(expression) if expression else None
            found.endurance, found.armour = hurt.get("endurance", 0), hurt.get("armour", 0)
    return found


# — an attack and its answer ——————————————————————————————————————————————————————

@dataclass
class Exchanged:
    """The odds of an attack answered by one defence (None: the défense instinctive)."""

    attacker: dict[str, Any]
    defender: dict[str, Any]
    defence: Technique | None
    attack: Pool
    answer: Pool | None
    auto_fail: str | None
    surprise: bool
    hit: Fraction
    countered: Fraction
    lethal: bool
    on_hit: Blow | None = None
    on_counter: Blow | None = None
    parry_loss: Fraction = Fraction(0)
    parry_dead: Fraction = Fraction(0)
    options: list[tuple[str, Fraction]] = field(default_factory=list)

    @property
    def henchmen(self) -> bool:
        return self.defender["kind"] == "hommes_de_main"

    def chance(self, name: str) -> Fraction:
        """The blow's outcome ``name``, counted over the chance that it lands."""
        blow = self.on_hit
        return self.hit * getattr(blow, name) if blow else Fraction(0)

    def countered_by(self, name: str) -> Fraction:
        blow = self.on_counter
        return self.countered * getattr(blow, name) if blow else Fraction(0)

    @property
    def dead(self) -> Fraction:
        return self.chance("dead") + self.parry_dead

    @property
    def loss(self) -> Fraction:
        return self.chance("loss") + self.parry_loss


def exchanged(state: State, defence: Technique | None, *, deep: bool = True) -> Exchanged:
    """Précision against the answer, then (``deep``) what the blow, the counter-attack or a
    bare-handed parry of a lethal blow does."""
    pending = state["pending"]
    attacker = state["participants"][pending["attacker"]]
    defender = state["participants"][pending["target"]]
    technique = techniques()[pending["technique"]]
    attributes = list(pending["attributes"])
    pools = rules.exchange(state, defence)
    attack = pool_law(pools.attack)
    answer = pool_law(pools.defence) if pools.defence else Law(((0, 1),), 1)
    greater, lower = beats(attack, answer)
    counter = defence is not None and "contre_attaque" in defence.attributes
    if pools.auto_fail:
        hit, countered = Fraction(1), Fraction(0)
    else:
        hit, countered = greater, (lower if counter else Fraction(0))
    found = Exchanged(attacker, defender, defence, pools.attack, pools.defence,
                      pools.auto_fail, pools.surprise, hit, countered,
                      lethal="letale" in attributes)
    if not deep:
        return found
    spent = rules.defence_changes(defender, defence) if defence else {}
    if hit:
        found.on_hit = blow(attacker, defender, {**defender, **spent}, technique, attributes,
                            pending.get("chain"), pending.get("location"))
    if countered and defence is not None:
        striker = {**defender, **spent}
        found.on_counter = blow(striker, attacker, attacker, defence,
                                rules.counter_attributes(striker, defence), None, None)
    missed = 1 - hit - countered
    if (missed and defence is not None and defence.type == "parade" and found.lethal
            and defence.key not in ARMED_PARADES):
        _parried(found, technique, defence, {**defender, **spent}, missed)
    return found


def _parried(found: Exchanged, technique: Technique, defence: Technique,
             merged: Mapping[str, Any], missed: Fraction) -> None:
    """« Dommages létaux »: the lethal blow's puissance against the parry's, each pair of
    totals judged by ``parry_damage``."""
    blow_expression = damage_expression(found.attacker, technique)
    if blow_expression is None:
        return
    parry_expression = damage_expression(found.defender, defence)
    blow_law = law_of(blow_expression)
    parry_law = law_of(parry_expression) if parry_expression else Law(((0, 1),), 1)
    loss = dead = 0
    for attack, count in blow_law.counts:
        for parry, other in parry_law.counts:
            _, lost, died = rules.parry_damage(found.defender, merged, attack, parry)
            if found.henchmen:
                lost = 0
            loss += count * other * lost
            dead += count * other * died
    out_of = blow_law.denominator * parry_law.denominator
    found.parry_loss = missed * Fraction(loss, out_of)
    found.parry_dead = missed * Fraction(dead, out_of)


class _Probe:
    """Dice that show 1: the declaration of an attack rolls nothing that matters to its
    odds (a burst's rounds), a test's handler the rolls whose expressions are read."""

    def roll(self, sides: int, *, count: int = 1) -> list[int]:
        return [1] * count


def _attack(view: State, action: Mapping[str, Any], actor: Actor) -> Odds:
    """An attack or a combo: declared on the view by the rules' own ``declare_*``, then
    answered as the rules will answer it at once, or — the target choosing — by its défense
    instinctive, with the chance against each defence it may choose instead."""
    declare = rules.declare_attack if action["kind"] == "attack" else rules.declare_combo
    after = folded(view, declare(copy_state(view), action, actor, _Probe()))
    how, defence = rules.automatic_answer(after)
    found = exchanged(after, defence)
    if how is None:
        found.options = [(techniques()[key].name, exchanged(after, techniques()[key],
                                                             deep=False).hit)
                         for key in defence_options(after)]
    return _words(found, how, striking=True)


def _defend(view: State, action: Mapping[str, Any], actor: Actor) -> Odds:
    defence, _ = rules.chosen_defence(view, action, actor)
    return _words(exchanged(view, defence), "chosen", striking=False)


def _words(found: Exchanged, how: str | None, *, striking: bool) -> Odds:
    """The chances, the sentence in the viewer's words (the attacker's or the target's),
    and what the dice need."""
    name = found.defender["name"]
    chances = [Chance("hit", Phrase(N_("the blow lands")), found.hit)]
    if found.defence is not None and "contre_attaque" in found.defence.attributes:
        chances.append(Chance("countered", Phrase(N_("the counter-attack lands")),
                              found.countered))
    if found.henchmen:
        chances.append(Chance("out", Phrase(N_("a henchman of %(name)s goes down"),
                                            {"name": name}), found.chance("out")))
    else:
        chances += [Chance("grave", Phrase(N_("a grave wound for %(name)s"), {"name": name}),
                           found.chance("grave")),
                    Chance("ko", Phrase(N_("%(name)s is knocked out"), {"name": name}),
                           found.chance("ko"))]
    if found.dead:
        chances.append(Chance("dead", Phrase(N_("%(name)s dies"), {"name": name}), found.dead))
    if found.on_counter is not None:
        chances += _counter_chances(found)
    expectations = [] if found.henchmen else [
        Expectation("sante", Phrase(N_("santé points lost by %(name)s"), {"name": name}),
                    found.loss)]
    if found.on_counter is not None and found.attacker["kind"] != "hommes_de_main":
        expectations.append(Expectation(
            "counter_sante", Phrase(N_("santé points lost by %(name)s"),
                                    {"name": found.attacker["name"]}),
            found.countered_by("loss")))
    return Odds(shown(chances), tuple(expectations), _sentence(found, striking),
                _details(found, how, striking), rule=RULE_ATTACK)


def shown(chances: Sequence[Chance]) -> tuple[Chance, ...]:
    """The outcomes worth a line: the first (« le coup porte », even at 0 %), then those
    that may happen."""
    return tuple(chance for index, chance in enumerate(chances)
                 if index == 0 or chance.probability)


def _counter_chances(found: Exchanged) -> list[Chance]:
    name = found.attacker["name"]
    if found.attacker["kind"] == "hommes_de_main":
        chances = [Chance("counter_out", Phrase(N_("a henchman of %(name)s goes down"),
                                                {"name": name}), found.countered_by("out"))]
    else:
        chances = [Chance("counter_grave", Phrase(N_("a grave wound for %(name)s"),
                                                  {"name": name}),
                          found.countered_by("grave")),
                   Chance("counter_ko", Phrase(N_("%(name)s is knocked out"), {"name": name}),
                          found.countered_by("ko"))]
    if found.countered_by("dead"):
        chances.append(Chance("counter_dead", Phrase(N_("%(name)s dies"), {"name": name}),
                              found.countered_by("dead")))
    return chances


def _points(msgid: str, plural: str, value: Fraction) -> Phrase:
    return Phrase(msgid, {"points": Amount(value)}, plural=plural, count="points")


def _sentence(found: Exchanged, striking: bool) -> tuple[Phrase, ...]:
    """« 62 % de toucher ; 4,1 points de santé en moyenne ; 9 % de blessure grave », or the
    target's « 38 % d'être touché ; 2,4 points de santé perdus en moyenne »."""
    name = found.defender["name"]
    parts = [Phrase(N_("%(chance)s to hit") if striking else N_("%(chance)s of being hit"),
                    {"chance": Percent(found.hit)})]
    if found.henchmen:
        parts.append(Phrase(N_("%(chance)s that a henchman goes down"),
                            {"chance": Percent(found.chance("out"))}))
    elif found.hit or found.parry_loss:
        parts.append(_points(N_("%(points)s santé point on average"),
                             "%(points)s santé points on average", found.loss)
                     if striking else
                     _points(N_("%(points)s santé point lost on average"),
                             "%(points)s santé points lost on average", found.loss))
    grave = found.chance("grave")
    if grave and not found.henchmen:
        parts.append(Phrase(N_("%(chance)s of a grave wound"), {"chance": Percent(grave)}))
    if found.chance("ko") and not found.henchmen:
        parts.append(Phrase(N_("%(chance)s that %(name)s is knocked out"),
                            {"chance": Percent(found.chance("ko")), "name": name}))
    if found.dead:
        parts.append(Phrase(N_("%(chance)s that %(name)s dies"),
                            {"chance": Percent(found.dead), "name": name}))
    if found.countered:
        parts.append(Phrase(N_("%(chance)s of being countered") if striking
                            else N_("%(chance)s that the counter-attack lands"),
                            {"chance": Percent(found.countered)}))
    return tuple(parts)


def _details(found: Exchanged, how: str | None, striking: bool) -> tuple[Phrase, ...]:
    """What the dice need: the précision pools, what the defence cannot stop, the
    puissance against Endurance + armure, whom the figures assume as the answer."""
    name = found.defender["name"]
    attack = pool_text(found.attack)
    details: list[Phrase] = []
    if found.answer is None:
        details.append(Phrase(N_("Précision %(attack)s; %(name)s is KO and does not defend."),
                              {"attack": attack, "name": name}))
    elif found.defence is None:
        details.append(Phrase(N_("Précision %(attack)s against the défense instinctive of "
                                 "%(name)s, %(defence)s: a tie stops the blow."),
                              {"attack": attack, "defence": pool_text(found.answer),
                               "name": name}))
    else:
        details.append(Phrase(N_("Précision %(attack)s against %(technique)s, %(defence)s: "
                                 "a tie stops the blow."),
                              {"attack": attack, "defence": pool_text(found.answer),
                               "technique": found.defence.name}))
    if found.auto_fail == "imparable":
        details.append(Phrase(N_("Imparable: a parry cannot stop it.")))
    elif found.auto_fail == "inevitable":
        details.append(Phrase(N_("Inévitable: a dodge cannot stop it.")))
    if found.surprise and found.answer is not None:
        details.append(Phrase(N_("Attaque surprise: the defence rolls a single die.")))
    blow = found.on_hit
    if blow is not None and blow.power and not found.henchmen:
        details.append(Phrase(N_("Puissance %(power)s against Endurance %(endurance)s + "
                                 "armour %(armour)s; a loss of %(grave)s or more is a grave "
                                 "wound."),
                              {"power": blow.power, "endurance": blow.endurance,
                               "armour": blow.armour, "grave": GRAVE}))
    elif blow is not None and blow.power:
        details.append(Phrase(N_("Puissance %(power)s against Endurance %(endurance)s + "
                                 "armour %(armour)s: any loss puts a henchman down."),
                              {"power": blow.power, "endurance": blow.endurance,
                               "armour": blow.armour}))
    if found.parry_loss or found.parry_dead:
        details.append(_points(N_("A lethal blow parried bare-handed still hurts: "
                                  "%(points)s santé point on average."),
                               "A lethal blow parried bare-handed still hurts: "
                               "%(points)s santé points on average.", found.parry_loss))
    if found.on_counter is not None:
        details.append(Phrase(
            N_("If the counter-attack lands, %(name)s loses %(points)s santé point on "
               "average."), {"name": found.attacker["name"],
                             "points": Amount(found.on_counter.loss)},
            plural=("If the counter-attack lands, %(name)s loses %(points)s santé points "
                      "on average."), count="points"))
    if how == "standing" and striking:
        details.append(Phrase(N_("%(name)s answers at once with the standing defence."),
                              {"name": name}))
    if how is None and striking:
        details.append(Phrase(N_("Worked out against the défense instinctive of %(name)s; "
                                 "if %(name)s chooses a defence instead:"), {"name": name}))
        details += [Phrase(N_("%(technique)s: %(chance)s to hit."),
                           {"technique": technique, "chance": Percent(chance)})
                    for technique, chance in found.options]
    return tuple(details)


# — tests and opposed rolls ————————————————————————————————————————————————————————

NO_DICE = Phrase(N_("No dice: nothing is left to chance."))


def _roll(view: State, action: Mapping[str, Any], actor: Actor) -> Odds:
    """A test or an opposed roll: its handler runs once on probe dice (refusing what the
    rules refuse), and the rolls it records are worked out exactly."""
    events = rules.HANDLERS[action["kind"]](copy_state(view), action, actor, _Probe())
    event = events[-1]
    rolls = event.payload.get("rolls") or []
    if not rolls:
        return Odds((), sentence=(NO_DICE,), rule=event.payload.get("rule", ""))
    if len(rolls) == 1:
        return _test(event, rolls[0])
    return _opposed(event, rolls[0], rolls[1])


SUCCESS_WORDS: dict[str, tuple[str, str]] = {
    # event kind → (the outcome's words, the sentence's)
    "tested": (N_("success"), N_("%(chance)s to succeed")),
    "jumped": (N_("the jump succeeds"), N_("%(chance)s to make the jump")),
    "manoeuvred": (N_("keeps on its feet"), N_("%(chance)s to keep on its feet")),
}


def _test(event: Event, record: Mapping[str, Any]) -> Odds:
    """« Jet de dés simple »: a total at least the difficulty succeeds."""
    law = record_law(record)
    target = record["target"]
    success = law.chance(lambda total: total >= target)
    label, words = SUCCESS_WORDS.get(event.kind, SUCCESS_WORDS["tested"])
    return Odds((Chance("success", Phrase(label), success),),
                (Expectation("total", Phrase(N_("total on average")), law.mean),),
                (Phrase(words, {"chance": Percent(success)}),),
                (Phrase(N_("%(pool)s against a difficulty of %(target)s: %(mean)s on "
                           "average."), {"pool": notation_text(record["expression"],
                                                               _added(record)),
                                         "target": target, "mean": Amount(law.mean)}),),
                rule=RULE_SIMPLE)


def _added(record: Mapping[str, Any]) -> int:
    own = CONSTANT.search(record["expression"])
    return sum(m["value"] for m in record.get("modifiers") or []) - (
        int(own.group()) if own else 0)


OPPOSED_WORDS: dict[str, tuple[str, str]] = {
    "escape_tried": (N_("breaks free"), N_("%(chance)s to break free")),
    "fear_fought": (N_("overcomes the fear"), N_("%(chance)s to overcome the fear")),
    "kusarigama_thrown": (N_("the target goes down"), N_("%(chance)s to throw the target "
                                                         "down")),
    "opposed_rolled": (N_("the initiator wins"), N_("%(chance)s that the initiator wins")),
}


def _opposed(event: Event, mine: Mapping[str, Any], theirs: Mapping[str, Any]) -> Odds:
    """« Jet d'opposition »: the initiator (the first roll) wins on a strictly greater
    total. Breaking free on the last try: a failure is a KO."""
    first, second = record_law(mine), record_law(theirs)
    wins, _ = beats(first, second)
    label, words = OPPOSED_WORDS[event.kind]
    chances = [Chance("success", Phrase(label), wins)]
    sentence = [Phrase(words, {"chance": Percent(wins)})]
    if event.kind == "escape_tried" and event.payload["tries_left"] <= 0 and not (
            event.payload.get("dead")):  # « … autant de tentatives que sa Force, puis KO »
        name = event.payload["name"]
        chances.append(Chance("ko", Phrase(N_("%(name)s is knocked out"), {"name": name}),
                              1 - wins))
        sentence.append(Phrase(N_("%(chance)s that %(name)s is knocked out"),
                               {"chance": Percent(1 - wins), "name": name}))
    details = (Phrase(N_("%(first)s against %(second)s: a tie goes to the one who resists."),
                      {"first": notation_text(mine["expression"], _added(mine)),
                       "second": notation_text(theirs["expression"], _added(theirs))}),)
    return Odds(tuple(chances), (), tuple(sentence), details,
                rule=event.payload.get("rule") or RULE_OPPOSED)
