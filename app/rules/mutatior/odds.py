"""Mutatior: an action's odds before it is made (issue 27, docs/odds.md § Mutatior).

000_e34df4ff7a8d792c.txt § 1-3 Attaque au corps à corps (d6 + the limb's muscles against
d6 + the aimed limb's, the tie's pump rolls, the second attack and the counter-attack),
§ 1-4 Attaque à distance, § 1-5 Dégâts, § 1-6 Jet de pompe (2d6 at most the pump, a natural
7 fails, a natural 12 is an infarctus), § 1-2 Mouvement (the sprint), § 2-3 Compétences
(Afflux sanguin, Coquet, Instinct vicieux), § 3-1 Jeter l'éponge, § 3-3 événements.

Worked out by the rules that resolve the action: the very functions ``decide``'s handler
calls (``combat.pump_roll``, ``combat.clash``, ``combat.tie_break``, ``combat.apply_damage``,
``combat.follow_up``, ``skills.afflux_sanguin``, ``match_fight._after_hit``, ``combat.shoot``,
``arena.move``, ``arena.throw_sponge``, ``arena.try_event``…), each run for every way its
dice can fall. A melee attack throws too many dice to follow at once (a pump roll, a
surge, the clash, a tie's two pump rolls, Coquet's die: thousands of ways), but its parts
are independent: each is followed on its own and their chances multiplied. Every 2d6 of
this game is read by its total (§ 1-6: "faire moins ou égal … avec 2 dés 6", a natural 7 or
12 is a total), so a pump roll is followed by its 11 totals (``exhaust_by(totals=True)``).

The view is the viewer's: the GM's modifiers are public in this game (their line in the
log), and nothing of a fight is hidden but the secret bets, which no roll reads.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, NamedTuple

from app.rules.action_fields import flag
from app.rules.dice import Modifier
from app.rules.errors import RulesError
from app.rules.match import Actor, State
from app.rules.mutatior import arena, combat, skills
from app.rules.mutatior.body import Mutant
from app.rules.mutatior.content import rule
from app.rules.mutatior.match import decide
from app.rules.mutatior.match_arena import failures
from app.rules.mutatior.match_fight import _attack_mode
from app.rules.mutatior.match_state import (
    CONTACT_CM,
    _distance,
    _limb_ref,
    _pump_mods,
    _weather,
    damage_order,
    in_contact,
    mutant,
)
from app.rules.odds.action import Amount, Chance, Expectation, Odds, Percent, Phrase, exhaust
from app.rules.odds.coarse import exhaust_by
from app.rules.system import N_

KINDS = frozenset({"attack", "shoot", "sprint", "sponge", "crowd_event", "use_skill",
                   "entrance_prize"})
R_MELEE = rule("1-3 Attaque au corps à corps")
R_SHOT = rule("1-4 Attaque à distance")
R_PUMP = rule("1-6 Jet de pompe")


def odds(view: State, action: Mapping[str, Any], actor: Actor) -> Odds | None:
    """The odds of the action the form names, or None when the rules would not take it."""
    work = _BY_KIND.get(action.get("kind"))  # type: ignore[arg-type]
    if work is None:
        return None
    plain = {key: value for key, value in action.items()
             if value is None or isinstance(value, (str, int, float))}
    try:
        if not _legal(lambda dice: decide(view, plain, actor, dice)):
            return None
        return work(view, plain, actor)
    except RulesError:
        return None


class _Legal(BaseException):
    """The rules reached their first die: every check before it passed."""


class _FirstDie:
    def roll(self, sides: int, *, count: int = 1) -> list[int]:
        raise _Legal


def _legal(run: Callable[[Any], object]) -> bool:
    """Whether ``decide`` takes the action: its handler runs up to its first die (its checks
    come before) and no further; a refusal is a ``RulesError``."""
    try:
        run(_FirstDie())
    except _Legal:
        return True
    except RulesError:
        return False
    return True


def _shown(chances: list[Chance], *always: str) -> tuple[Chance, ...]:
    """The outcomes the panel lists: those that may happen, and the main one always (an
    outcome left out never happens: the tests hold the odds to it)."""
    keep = always or ("pump", "hit")
    return tuple(c for c in chances if c.probability or c.key in keep)


def _sum(found: Mapping[Any, Fraction], test: Callable[[Any], bool]) -> Fraction:
    return sum((chance for key, chance in found.items() if test(key)), Fraction(0))


def _add(found: dict[Hashable, Fraction], key: Hashable, chance: Fraction) -> None:
    if chance:
        found[key] = found.get(key, Fraction(0)) + chance


def _modifiers(mods: tuple[Modifier, ...] | list[Modifier]) -> str:
    return ", ".join(f"{m.value:+d} {m.label}" for m in mods if m.value)


def _bonus(mods: list[Modifier]) -> str:
    """« 7 (muscles) + 1 (corne) »: what a roll adds, as the log names it."""
    parts = [f"{m.value} ({m.label})" if m.value >= 0 else f"− {-m.value} ({m.label})"
             for m in mods if m.value]
    return " + ".join(parts).replace("+ −", "−") or "0"


# — a melee attack (§ 1-3) ————————————————————————————————————————————————————————

class Blow(NamedTuple):
    """What one attack did, as its odds count it (and its ``attacked`` event says)."""

    struck: bool  # the attack took place (a follow-up's pump roll passed, or none needed)
    winner: str | None  # "attacker", "defender" or None (a tie)
    organs: int  # organs the aimed limb lost
    limb_died: bool
    killed: bool  # the defender is dead after it
    follow: str | None  # "second_attack", "counter" or None
    infarctus: bool  # the attacker had one (a pump roll's natural 12)


@dataclass(frozen=True)
class _Setting:
    tid: str
    limb: str
    target: str
    target_limb: str
    mode: str
    pending: Mapping[str, Any] | None
    follows: bool  # a follow-up may come (not a free attack, a mutant aimed at)
    cache: dict[Any, Any] = field(default_factory=dict)  # what follows each wound


def attack_outcomes(view: State, action: Mapping[str, Any]) -> dict[Blow, Fraction]:
    """Every way the attack can end, with its exact chance: the follow-up's pump roll, the
    surge (Afflux sanguin), the clash, then the damage and what follows a win (Coquet's
    die, Lobotomie's), the tie's pump rolls, the counter-attack — as ``_clash_events``."""
    tid, limb = _limb_ref(view, action, "limb")
    target, target_limb = _limb_ref(view, action, "target")
    mode = _attack_mode(view, tid) or "turn"
    pending = view.get("pending") if mode == "pending" else None
    setting = _Setting(tid, limb, target, target_limb, mode, pending,
                       mode != "free" and view["tokens"][target]["kind"] == "mutant")
    attacker = mutant(view, tid)
    found: dict[Blow, Fraction] = {}
    go_on = Fraction(1)
    if pending and pending.get("needs_pump"):
        mods = _pump_mods(view, tid)
        for chance, roll in exhaust_by(lambda dice: combat.pump_roll(
                attacker, dice, modifiers=mods), totals=True):
            if roll.success:
                continue  # a success is never a natural 12: the attacker is unchanged
            _add(found, Blow(False, None, 0, False, False, None, roll.infarctus), chance)
        go_on = 1 - sum(found.values(), Fraction(0))
    for chance, body, mods, infarctus in _surges(view, action, setting, attacker):
        for blow, share in _clash(view, setting, body, mods, infarctus).items():
            _add(found, blow, go_on * chance * share)
    return found


def _surges(view: State, action: Mapping[str, Any], setting: _Setting, attacker: Mutant
            ) -> list[tuple[Fraction, Mutant, list[Modifier], bool]]:
    """The ways § 2-3 Afflux sanguin can go before the clash (its pump roll adds the limb's
    biomoteurs on a success, an infarctus costs one), with the GM's modifier."""
    gm = view["modifiers"].get(setting.tid)
    own = [Modifier(gm["value"], gm["reason"])] if gm else []
    if not (flag(action, "surge") and attacker.has("afflux_sanguin")):
        return [(Fraction(1), attacker, own, False)]
    ways: dict[tuple[Modifier | None, bool], Fraction] = {}
    mods = _pump_mods(view, setting.tid)
    for chance, surge in exhaust_by(lambda dice: skills.afflux_sanguin(
            attacker, setting.limb, dice, mods), totals=True):
        key = (surge.modifier, surge.roll.infarctus)
        ways[key] = ways.get(key, Fraction(0)) + chance
    return [(chance, combat.apply_infarctus(attacker) if infarctus else attacker,
             ([bonus] if bonus else []) + own, infarctus)
            for (bonus, infarctus), chance in ways.items()]


def _clash(view: State, setting: _Setting, attacker: Mutant, mods: list[Modifier],
           infarctus: bool) -> dict[Blow, Fraction]:
    defender = mutant(view, setting.target)
    gm = view["modifiers"].get(setting.target)
    defence = [Modifier(gm["value"], gm["reason"])] if gm else []
    number = 2 if setting.pending and setting.pending["kind"] == "second_attack" else 1
    counter = bool(setting.pending and setting.pending["kind"] == "counter")
    clashes: dict[tuple[str | None, int], tuple[Fraction, combat.Clash]] = {}
    for chance, result in exhaust(lambda dice: combat.clash(
            attacker, setting.limb, defender, setting.target_limb, dice,
            attack_modifiers=mods, defence_modifiers=defence)):
        key = (result.winner, result.damage)
        clashes[key] = (clashes.get(key, (Fraction(0), result))[0] + chance, result)
    found: dict[Blow, Fraction] = {}

    def follow(result: combat.Clash, a: Mutant, d: Mutant,
               tie: combat.TieBreak | None = None) -> str | None:
        if not setting.follows:
            return None
        step = combat.follow_up(result, a, d, attack_number=number, counter=counter, tie=tie)
        return skills.obsede(step, result, a).kind

    ties = None
    for (winner, amount), (chance, result) in clashes.items():
        if winner == combat.ATTACKER:
            hurt, report = combat.apply_damage(defender, setting.target_limb, amount,
                                               damage_order(view, setting.target))
            # Coquet hit on the head, Lobotomie losing its last lobe: their own dice.
            for (sponged, _), (share, after) in _after_hit_ways(
                    view, setting.target, setting.target_limb, hurt, setting.tid,
                    setting.cache).items():
                kind = None if sponged else follow(result, attacker, after)
                _add(found, Blow(True, winner, report.applied, report.limb_died, after.dead,
                                 kind, infarctus), chance * share)
        elif winner == combat.DEFENDER:
            _add(found, Blow(True, winner, 0, False, defender.dead,
                             follow(result, attacker, defender), infarctus), chance)
        else:
            ties = ties or _ties(view, setting, attacker, defender)
            for (_, own, theirs), (share, tie) in ties.items():
                a = combat.apply_infarctus(attacker) if own else attacker
                d = combat.apply_infarctus(defender) if theirs else defender
                _add(found, Blow(True, None, 0, False, d.dead, follow(result, a, d, tie),
                                 infarctus or own), chance * share)
    return found


def _after_hit_ways(view: State, target: str, target_limb: str, hurt: Mutant,
                    attacker: str, cache: dict[Any, Any]
                    ) -> dict[tuple[bool, bool], tuple[Fraction, Mutant]]:
    """What follows a hit, as ``match_fight._after_hit`` throws it, by (sponged, dead), each
    with a body it leaves: Coquet hit on the head rolls its die (``skills.coquet``), and on a
    sponge the mercy roll against the attacker (``arena.throw_sponge``) says which limb it
    cedes; then Lobotomie's die (``skills.lobotomie_frenzy``). Each is followed on its own,
    their chances multiplied (the handler throws them one after the other: hundreds of
    ways for each wound), and the same wound gives the same ways (``cache``)."""
    key = (target_limb, tuple((limb.name, limb.lost_organs) for limb in hurt.limbs))
    if key in cache:
        return cache[key]
    branches: list[tuple[Fraction, Mutant, bool]] = [(Fraction(1), hurt, False)]
    if hurt.has("coquet") and not hurt.dead and skills.is_head(hurt.limb(target_limb)):
        sponge = sum((chance for chance, vanity in exhaust(lambda dice: skills.coquet(
            hurt, dice)) if vanity.sponge), Fraction(0))
        branches = [(1 - sponge, hurt, False)] if sponge < 1 else []
        if sponge:
            contact = _distance(view, target, attacker) <= CONTACT_CM
            enemy = mutant(view, attacker)
            given: dict[str | None, Fraction] = {}
            for chance, mercy in exhaust(lambda dice: arena.throw_sponge(
                    hurt, enemy, dice, in_contact=contact)):
                name = mercy.given.name if mercy.given is not None and \
                    not mercy.given.trunk else None
                given[name] = given.get(name, Fraction(0)) + chance
            for name, chance in given.items():
                body = hurt
                if name is not None:
                    limb = hurt.limb(name)
                    body = hurt.with_limb(replace(limb, lost_muscles=limb.muscles,
                                                  lost_biomoteurs=limb.biomoteurs,
                                                  lost_lobes=limb.lobes))
                branches.append((sponge * chance, body, True))
    found: dict[tuple[bool, bool], tuple[Fraction, Mutant]] = {}
    for chance, body, sponged in branches:
        for share, (frenzied, record) in exhaust(
                lambda dice, body=body: skills.lobotomie_frenzy(body, dice)):
            after = frenzied if record is not None else body
            ways = (sponged, after.dead)
            found[ways] = (found.get(ways, (Fraction(0), after))[0] + chance * share, after)
    cache[key] = found
    return found


def _ties(view: State, setting: _Setting, attacker: Mutant, defender: Mutant
          ) -> dict[tuple[str | None, bool, bool], tuple[Fraction, combat.TieBreak]]:
    """The tie's two pump rolls, by what they decide: the winner and the infarctus (the
    same attacker's body, the same ways: ``setting.cache``)."""
    key = ("tie", tuple((limb.name, limb.lost_organs) for limb in attacker.limbs))
    if key in setting.cache:
        return setting.cache[key]
    # ``combat.tie_break`` is two pump rolls, one each, and ``tie_winner`` on the pair: each
    # roll is followed on its own (11 totals), the pairs judged by ``tie_winner``.
    rolls = [exhaust_by(lambda dice, body=body, mods=mods: combat.pump_roll(
        body, dice, modifiers=mods, purpose="pump (tie)"), totals=True)
        for body, mods in ((attacker, _pump_mods(view, setting.tid)),
                           (defender, _pump_mods(view, setting.target)))]
    found: dict[tuple[str | None, bool, bool], tuple[Fraction, combat.TieBreak]] = {}
    for chance, own in rolls[0]:
        for share, other in rolls[1]:
            tie = combat.TieBreak(own, other, combat.tie_winner(own, other))
            ways = (tie.winner, own.infarctus, other.infarctus)
            found[ways] = (found.get(ways, (Fraction(0), tie))[0] + chance * share, tie)
    setting.cache[key] = found
    return found


def _attack(view: State, action: Mapping[str, Any], actor: Actor) -> Odds:
    found = attack_outcomes(view, action)
    tid, limb = _limb_ref(view, action, "limb")
    target, target_limb = _limb_ref(view, action, "target")
    name = view["tokens"][target]["name"]
    pending = view.get("pending") if _attack_mode(view, tid) == "pending" else None
    pump = pending is not None and bool(pending.get("needs_pump"))
    struck = _sum(found, lambda b: b.struck)
    hit = _sum(found, lambda b: b.winner == combat.ATTACKER)
    tie = _sum(found, lambda b: b.struck and b.winner is None)
    limb_died = _sum(found, lambda b: b.limb_died)
    killed = _sum(found, lambda b: b.killed)
    again = _sum(found, lambda b: b.follow == "second_attack")
    counter = _sum(found, lambda b: b.follow == "counter")
    infarctus = _sum(found, lambda b: b.infarctus)
    organs = sum((chance * b.organs for b, chance in found.items()), Fraction(0))
    chances = ([Chance("pump", Phrase(N_("pump roll passed")), struck)] if pump else []) + [
        Chance("hit", Phrase(N_("to hit")), hit),
        Chance("tie", Phrase(N_("a tie")), tie),
        Chance("limb", Phrase(N_("the limb aimed at destroyed")), limb_died),
        Chance("kill", Phrase(N_("%(name)s dies"), {"name": name}), killed),
        Chance("again", Phrase(N_("another attack")), again),
        Chance("counter", Phrase(N_("a counter-attack")), counter),
        Chance("infarctus", Phrase(N_("an infarctus")), infarctus)]
    sentence = ([Phrase(N_("%(chance)s to pass the pump roll"), {"chance": Percent(struck)})]
                if pump else [])
    sentence += [Phrase(N_("%(chance)s to hit"), {"chance": Percent(hit)}),
                 _organs(organs)]
    if limb_died:
        sentence.append(Phrase(N_("%(chance)s to destroy the limb aimed at"),
                               {"chance": Percent(limb_died)}))
    if killed:
        sentence.append(Phrase(N_("%(chance)s that %(name)s dies"),
                               {"chance": Percent(killed), "name": name}))
    if again:
        sentence.append(Phrase(N_("%(chance)s to attack again"), {"chance": Percent(again)}))
    if counter:
        sentence.append(Phrase(N_("%(chance)s of a counter-attack"),
                               {"chance": Percent(counter)}))
    return Odds(_shown(chances), (Expectation("organs", Phrase(N_("organs lost on average")),
                                             organs),),
                tuple(sentence), _attack_details(view, action, tid, limb, target, target_limb,
                                                 pump, tie, infarctus),
                rule=R_MELEE)


def _organs(organs: Fraction) -> Phrase:
    return Phrase(N_("%(organs)s organ lost on average"), {"organs": Amount(organs)},
                  plural=N_("%(organs)s organs lost on average"), count="organs")


def _attack_details(view: State, action: Mapping[str, Any], tid: str, limb: str, target: str,
                    target_limb: str, pump: bool, tie: Fraction,
                    infarctus: Fraction) -> tuple[Phrase, ...]:
    attacker, defender = mutant(view, tid), mutant(view, target)
    own, aimed = attacker.limb(limb), defender.limb(target_limb)
    gm, gm_defence = view["modifiers"].get(tid), view["modifiers"].get(target)
    attack = [Modifier(own.live_muscles, "muscles"),
              Modifier(attacker.attack_bonus(own), own.offensive or "")]
    if gm:
        attack.append(Modifier(gm["value"], gm["reason"]))
    defence = [Modifier(aimed.live_muscles, "muscles")]
    if gm_defence:
        defence.append(Modifier(gm_defence["value"], gm_defence["reason"]))
    details = []
    if pump:
        details.append(_pump_words(view, tid, attacker))
    if flag(action, "surge") and attacker.has("afflux_sanguin"):
        details.append(Phrase(N_("Afflux sanguin: on a pump roll passed, +%(bonus)s "
                                 "(the limb's biomoteurs)."), {"bonus": own.live_biomoteurs}))
    details.append(Phrase(N_("Attack: 1d6 + %(attack)s; defence: 1d6 + %(defence)s. The "
                             "difference is the damage."),
                          {"attack": _bonus(attack), "defence": _bonus(defence)}))
    armour = defender.armour(aimed)
    if armour:
        details.append(Phrase(N_("The limb aimed at takes %(armour)s damage less (armour)."),
                              {"armour": armour}))
    if tie:
        details.append(Phrase(N_("A tie (%(chance)s): both make a pump roll; of two passed, "
                                 "the lower dice may strike."), {"chance": Percent(tie)}))
    if infarctus:
        details.append(Phrase(N_("%(chance)s of an infarctus (a natural 12 on a pump roll: "
                                 "a biomoteur lost)."), {"chance": Percent(infarctus)}))
    return tuple(details)


def _pump_words(view: State, tid: str, body: Mutant) -> Phrase:
    mods = [Modifier(body.dead_limbs, "membres morts"), *_pump_mods(view, tid)]
    counted = _modifiers(mods)
    if counted:
        return Phrase(N_("The pump roll: 2d6 (%(modifiers)s) at most %(pump)s; a natural 7 "
                         "fails, a natural 12 is an infarctus."),
                      {"modifiers": counted, "pump": body.live_pump})
    return Phrase(N_("The pump roll: 2d6 at most %(pump)s; a natural 7 fails, a natural 12 "
                     "is an infarctus."), {"pump": body.live_pump})


# — a shot (§ 1-4) ——————————————————————————————————————————————————————————————————

class Shot(NamedTuple):
    hit: bool
    aimed: bool  # the limb aimed at (a 6 or more)
    organs: int
    limb_died: bool
    killed: bool


def shot_outcomes(view: State, action: Mapping[str, Any]) -> dict[Shot, Fraction]:
    """d6 + the limb's biomoteurs − the shooter's dead organs (and the weather's, the GM's):
    a 1 or less misses, a 6 hits the limb aimed at, else a random living limb; 1d6 damage
    (``combat.shoot``, as ``_decide_shoot`` calls it), then the wound and what a hit brings
    (Coquet, Lobotomie: ``_after_hit_ways``)."""
    tid, limb = _limb_ref(view, action, "limb")
    target, aimed = _limb_ref(view, action, "target")
    shooter, victim = mutant(view, tid), mutant(view, target)
    mods = _shot_mods(view, tid, shooter)
    order = damage_order(view, target)
    shots: dict[tuple[str, str | None, int], Fraction] = {}
    for chance, shot in exhaust(lambda dice: combat.shoot(
            shooter, limb, victim, dice, aimed_limb=aimed, modifiers=mods)):
        key = (shot.outcome, shot.target_limb, shot.damage.total if shot.damage else 0)
        shots[key] = shots.get(key, Fraction(0)) + chance
    found: dict[Shot, Fraction] = {}
    cache: dict[Any, Any] = {}
    for (outcome, hit_limb, amount), chance in shots.items():
        if hit_limb is None:
            _add(found, Shot(False, False, 0, False, victim.dead), chance)
            continue
        hurt, report = combat.apply_damage(victim, hit_limb, amount, order)
        for (_, dead), (share, _) in _after_hit_ways(view, target, hit_limb, hurt, tid,
                                                     cache).items():
            _add(found, Shot(True, outcome == "aimed", report.applied, report.limb_died,
                             dead), chance * share)
    return found


def _shot_mods(view: State, tid: str, shooter: Mutant) -> list[Modifier]:
    mods = list(arena.shot_modifiers(_weather(view), shooter))
    gm = view["modifiers"].get(tid)
    if gm:
        mods.append(Modifier(gm["value"], gm["reason"]))
    return mods


def _shoot(view: State, action: Mapping[str, Any], actor: Actor) -> Odds:
    found = shot_outcomes(view, action)
    tid, limb = _limb_ref(view, action, "limb")
    target, _ = _limb_ref(view, action, "target")
    name = view["tokens"][target]["name"]
    hit = _sum(found, lambda s: s.hit)
    on_aim = _sum(found, lambda s: s.aimed)
    limb_died = _sum(found, lambda s: s.limb_died)
    killed = _sum(found, lambda s: s.killed)
    organs = sum((chance * s.organs for s, chance in found.items()), Fraction(0))
    sentence = [Phrase(N_("%(chance)s to hit"), {"chance": Percent(hit)}),
                Phrase(N_("%(chance)s on the limb aimed at"), {"chance": Percent(on_aim)}),
                _organs(organs)]
    if limb_died:
        sentence.append(Phrase(N_("%(chance)s to destroy a limb"),
                               {"chance": Percent(limb_died)}))
    if killed:
        sentence.append(Phrase(N_("%(chance)s that %(name)s dies"),
                               {"chance": Percent(killed), "name": name}))
    shooter, victim = mutant(view, tid), mutant(view, target)
    own = shooter.limb(limb)
    mods = [Modifier(own.live_biomoteurs, "biomoteurs"),
            Modifier(-shooter.lost_organs, "organes morts"), *_shot_mods(view, tid, shooter)]
    details = [Phrase(N_("The die: 1d6 + %(bonus)s; 1 or less misses, 6 or more hits the limb "
                         "aimed at, otherwise a random living limb is hit; 1d6 damage."),
                      {"bonus": _bonus(mods)})]
    if victim.has("mimetisme"):
        details.append(Phrase(N_("Mimétisme: hit only on a total of %(total)s or more."),
                              {"total": combat.MIMETISME_TARGET}))
    return Odds(_shown([Chance("hit", Phrase(N_("to hit")), hit),
                        Chance("aimed", Phrase(N_("the limb aimed at hit")), on_aim),
                        Chance("limb", Phrase(N_("a limb destroyed")), limb_died),
                        Chance("kill", Phrase(N_("%(name)s dies"), {"name": name}), killed)]),
                (Expectation("organs", Phrase(N_("organs lost on average")), organs),),
                tuple(sentence), tuple(details), rule=R_SHOT)


# — a sprint (§ 1-2, § 1-6) ————————————————————————————————————————————————————————

class Run(NamedTuple):
    moves: int
    infarctus: bool
    fell: bool


def sprint_outcomes(view: State, action: Mapping[str, Any]) -> dict[Run, Fraction]:
    """``arena.move`` as ``_decide_sprint`` calls it: the pump roll, Coureur effréné's third
    move, gel's fall."""
    tid = str(action.get("token"))
    body = mutant(view, tid)
    third = flag(action, "third") and body.has("coureur_effrene")
    extra = (skills.ANGRY,) if tid in view["angry"] else ()
    found: dict[Run, Fraction] = {}
    for chance, result in exhaust_by(lambda dice: arena.move(
            body, _weather(view), dice, sprint=True, third=third, pump_mods=extra),
            totals=True):
        _add(found, Run(result.moves, any(r.infarctus for r in result.pump_rolls),
                        result.fall_report is not None), chance)
    return found


def _sprint(view: State, action: Mapping[str, Any], actor: Actor) -> Odds:
    found = sprint_outcomes(view, action)
    tid = str(action.get("token"))
    body = mutant(view, tid)
    third = flag(action, "third") and body.has("coureur_effrene")
    twice = _sum(found, lambda r: r.moves >= 2)
    thrice = _sum(found, lambda r: r.moves >= 3)
    infarctus = _sum(found, lambda r: r.infarctus)
    fell = _sum(found, lambda r: r.fell)
    chances = [Chance("sprint", Phrase(N_("to move as far again")), twice)]
    sentence = [Phrase(N_("%(chance)s to move as far again"), {"chance": Percent(twice)})]
    if third:
        chances.append(Chance("third", Phrase(N_("a third move")), thrice))
        sentence.append(Phrase(N_("%(chance)s to move a third time"),
                               {"chance": Percent(thrice)}))
    chances.append(Chance("infarctus", Phrase(N_("an infarctus")), infarctus))
    sentence.append(Phrase(N_("%(chance)s of an infarctus"), {"chance": Percent(infarctus)}))
    if arena._hinders(_weather(view), body, "gel"):
        chances.append(Chance("fall", Phrase(N_("a fall (gel)")), fell))
        sentence.append(Phrase(N_("%(chance)s to fall (gel)"), {"chance": Percent(fell)}))
    mods = [Modifier(body.dead_limbs, "membres morts"),
            *arena.pump_modifiers(_weather(view), body), *(
                (skills.ANGRY,) if tid in view["angry"] else ())]
    details = [_pump_words(view, tid, body) if not _modifiers(mods) else Phrase(
        N_("The pump roll: 2d6 (%(modifiers)s) at most %(pump)s; a natural 7 fails, a natural "
           "12 is an infarctus."), {"modifiers": _modifiers(mods), "pump": body.live_pump})]
    if third:
        details.append(Phrase(N_("Coureur effréné: a second pump roll for the third move; "
                                 "failing it costs a biomoteur.")))
    return Odds(_shown(chances, "sprint"), (), tuple(sentence), tuple(details),
                rule=arena.R_MOVE)


# — the sponge (§ 3-1), the crowd (§ 3-3), Instinct vicieux, the entrance prize ——————

def sponge_outcomes(view: State, action: Mapping[str, Any]) -> dict[bool, Fraction]:
    """Unharmed or not: ``arena.throw_sponge`` against the first enemy in contact, as
    ``_decide_sponge`` calls it."""
    tid = str(action.get("token"))
    body = mutant(view, tid)
    enemy = _sponge_enemy(view, tid)
    give = action.get("give") or None
    booed = arena.Booed(body.name, view["booed"][tid]) if tid in view["booed"] else None
    found: dict[bool, Fraction] = {}
    for chance, result in exhaust(lambda dice: arena.throw_sponge(
            body, mutant(view, enemy) if enemy else body, dice, in_contact=bool(enemy),
            give=give, booed=booed)):
        _add(found, result.unharmed, chance)
    return found


def _sponge_enemy(view: State, tid: str) -> str | None:
    enemies = [other for other in in_contact(view, tid)
               if view["tokens"][other]["kind"] == "mutant"]
    return enemies[0] if enemies else None


def _sponge(view: State, action: Mapping[str, Any], actor: Actor) -> Odds:
    tid = str(action.get("token"))
    unharmed = sponge_outcomes(view, action).get(True, Fraction(0))
    enemy = _sponge_enemy(view, tid)
    body = mutant(view, tid)
    if enemy is None:
        details = (Phrase(N_("Out of contact, the creature simply leaves.")),)
    else:
        other = mutant(view, enemy)
        pity = 2 if body.has("faire_pitie") and body.biomass < other.biomass else 0
        details = (Phrase(N_("%(name)s: 1d6 + %(own)s against %(enemy)s's 1d6 + %(theirs)s "
                             "(lobes): equal or more, it leaves unharmed; less, it cedes a "
                             "limb."), {"name": body.name, "own": body.live_brain + pity,
                                        "enemy": other.name, "theirs": other.live_brain}),)
    return Odds((Chance("unharmed", Phrase(N_("to leave unharmed")), unharmed),), (),
                (Phrase(N_("%(chance)s to leave unharmed"), {"chance": Percent(unharmed)}),),
                details, rule=arena.R_SPONGE)


def crowd_outcomes(view: State, action: Mapping[str, Any]) -> dict[bool, Fraction]:
    """``arena.try_event`` with the team's earlier failures at that event (+1 each)."""
    team, key = str(action.get("team")), str(action.get("event"))
    found: dict[bool, Fraction] = {}
    for chance, attempt in exhaust_by(lambda dice: arena.try_event(
            key, dice, earlier_failures=failures(view, team, key)), totals=True):
        _add(found, attempt.success, chance)
    return found


def _crowd(view: State, action: Mapping[str, Any], actor: Actor) -> Odds:
    team, key = str(action.get("team")), str(action.get("event"))
    success = crowd_outcomes(view, action).get(True, Fraction(0))
    event = arena.EVENTS[key]
    retries = failures(view, team, key)
    words = (Phrase(N_("2d6 + %(retries)s (earlier tries) at least %(difficulty)s; a natural "
                       "12 always succeeds."), {"retries": retries,
                                                "difficulty": event.difficulty})
             if retries else
             Phrase(N_("2d6 at least %(difficulty)s; a natural 12 always succeeds."),
                    {"difficulty": event.difficulty}))
    return Odds((Chance("success", Phrase(N_("to succeed")), success),), (),
                (Phrase(N_("%(chance)s to succeed: %(event)s"),
                        {"chance": Percent(success), "event": event.name}),),
                (words,), rule=arena.R_EVENTS)


def _skill(view: State, action: Mapping[str, Any], actor: Actor) -> Odds | None:
    """Instinct vicieux only: the other turn skills throw no die."""
    if action.get("skill") != "instinct_vicieux":
        return None
    tid = str(action.get("token"))
    enemy, _, limb = str(action.get("limb")).partition(":")
    body = mutant(view, tid)
    found: dict[bool, Fraction] = {}
    for chance, instinct in exhaust_by(lambda dice: skills.instinct_vicieux(
            body, mutant(view, enemy), limb, dice), totals=True):
        _add(found, instinct.success, chance)
    success = found.get(True, Fraction(0))
    return Odds((Chance("success", Phrase(N_("to succeed")), success),), (),
                (Phrase(N_("%(chance)s to learn whether the limb holds biomoteurs"),
                        {"chance": Percent(success)}),),
                (Phrase(N_("2d6 under the brain (%(brain)s)."), {"brain": body.live_brain}),),
                rule=skills.R_SKILLS)


def entrance_outcomes() -> dict[int, Fraction]:
    """The kilograms of the entrance prize: the 2d6 ``_decide_entrance_prize`` rolls."""
    found: dict[int, Fraction] = {}
    for chance, record in exhaust_by(lambda dice: combat._roll(dice, "entrance prize", 2),
                                     totals=True):
        _add(found, record.total, chance)
    return found


def _entrance(view: State, action: Mapping[str, Any], actor: Actor) -> Odds:
    found = entrance_outcomes()
    mean = sum((chance * kg for kg, chance in found.items()), Fraction(0))
    return Odds((), (Expectation("kg", Phrase(N_("kg on average")), mean),),
                (Phrase(N_("%(kg)s kg of biomass on average"), {"kg": Amount(mean)}),),
                (Phrase(N_("2d6 kg: from %(low)s to %(high)s."),
                        {"low": min(found), "high": max(found)}),),
                rule=rule("0- Généralités / Terrain et placement"))


_BY_KIND: dict[str, Callable[[State, Mapping[str, Any], Actor], Odds | None]] = {
    "attack": _attack, "shoot": _shoot, "sprint": _sprint, "sponge": _sponge,
    "crowd_event": _crowd, "use_skill": _skill, "entrance_prize": _entrance}
