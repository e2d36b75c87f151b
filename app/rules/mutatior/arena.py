"""The arena around the fight: weather, movement, the crowd, leaving the fight, re-rolls.

000_e34df4ff7a8d792c.txt § 1-2 Mouvement, § 3-1 Jeter l'éponge and § 3 Campagne (relances,
météo, événements). Like ``combat``, every function takes a ``Dice``, returns records keeping
every face, and never changes a ``Mutant`` in place. The match layer (later) decides who is in
contact, who triggers what and when; these functions only apply the text's numbers.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import ClassVar

from app.rules.dice import Dice, Modifier, RollRecord
from app.rules.mutatior.body import MOVE_FACTOR, Limb, Mutant
from app.rules.mutatior.combat import (
    DamageReport,
    IllegalMelee,
    PumpRoll,
    _located,
    _natural,
    _roll,
    apply_damage,
    apply_infarctus,
    pump_roll,
)
from app.rules.mutatior.content import rule
from app.rules.purposes import Purpose
from app.rules.system import N_

R_WEATHER = rule("3- Campagne / météo (Jetez 1 dé 6 au premier tour)")
R_MOVE = rule("1-2 Mouvement")
R_EVENTS = rule("3-3 Les paris / événements")
R_SPONGE = rule("3-1 Jeter l'éponge")
R_STOP = rule("3-2 Fin du carnage")
R_REROLLS = rule("3- Campagne / Relances")

ARENA_RADIUS_CM = 30  # § 0- Généralités: a 60 cm sand box
HEAVY_KG = 400  # § météo, pluie: creatures over 400 kg get bogged down
EVENT_RETRY_BONUS = 1  # § événements: "Rajoutez +1 au dé à chaque fois que vous voulez retenter"


class IllegalArena(IllegalMelee):
    """An arena action the text forbids."""

    templates_en: ClassVar[dict[str, str]] = {
        **IllegalMelee.templates_en,
        "sponge_forbidden": "{mutant} was booed back and cannot throw in the sponge",
        "not_withdrawn": "{mutant} has not thrown in the sponge",
        "no_living_limb": "{mutant} has no living limb '{limb}' to give",
        "reroll_spent": "no re-roll left for {mutant}",
        "unknown_event": "unknown crowd event '{event}'",
    }
    templates_fr: ClassVar[dict[str, str]] = {
        **IllegalMelee.templates_fr,
        "sponge_forbidden": "{mutant} a été hué et ne peut plus jeter l'éponge",
        "not_withdrawn": "{mutant} n'a pas jeté l'éponge",
        "no_living_limb": "{mutant} n'a pas de membre vivant « {limb} » à céder",
        "reroll_spent": "plus de relance pour {mutant}",
        "unknown_event": "événement de foule inconnu « {event} »",
    }


def natural_seven(record: RollRecord) -> bool:
    """§ 3-3 événements: any natural 7 on two d6 lets the opponent try a crowd event."""
    return len(record.dice) == 2 and all(d.sides == 6 for d in record.dice) \
        and _natural(record) == 7


# — Météo —

@dataclass(frozen=True)
class Weather:
    face: int
    key: str
    name: str  # French game term, shown as is
    effect: str  # msgid (English) for the table
    resisted_by: str | None = None  # the skill that ignores it


WEATHERS: dict[int, Weather] = {w.face: w for w in (
    Weather(1, "gel", "Gel", N_("Moving twice in a row: on a 1 on 1d6 the creature falls and "
                                "takes 1d6 damage on a random limb."), "resistance_froid"),
    Weather(2, "neige", "Neige", N_("Movement is pump × 1.5 cm instead of × 2."),
            "resistance_froid"),
    Weather(3, "pluie", "Pluie", N_("Creatures over 400 kg get bogged down: −1 to initiative."),
            "milieux_humides"),
    Weather(4, "brume", "Brume", N_("Shots suffer a penalty of 1."), "milieux_humides"),
    Weather(5, "beau_temps", "Beau temps", N_("All is well.")),
    Weather(6, "canicule", "Canicule", N_("It is very hot: +1 to every pump roll.")),
)}


@dataclass(frozen=True)
class WeatherRoll:
    weather: Weather
    record: RollRecord


def roll_weather(dice: Dice) -> WeatherRoll:
    """§ météo: 1d6 on the first turn, for the whole fight."""
    record = _roll(dice, Purpose("weather"), 1)
    weather = WEATHERS[record.total]
    return WeatherRoll(weather, record.with_target(None, weather.name))


def _hinders(weather: Weather, mutant: Mutant, key: str) -> bool:
    return weather.key == key and not (weather.resisted_by and mutant.has(weather.resisted_by))


def pump_modifiers(weather: Weather, mutant: Mutant) -> tuple[Modifier, ...]:
    """Canicule: "+1 à leurs jets de pompe" is +1 on the pump roll's dice, as every "+N" to a
    roll in the text is added to its dice (§ 1-6 "+1 au dé par membre mort"); the pump roll
    succeeds low, so the heat makes it harder ("ont du mal à résister")."""
    return (Modifier(1, "canicule"),) if _hinders(weather, mutant, "canicule") else ()


def initiative_modifiers(weather: Weather, mutant: Mutant) -> tuple[Modifier, ...]:
    """Pluie: "les créatures de plus de 400 kg s'embourbent": −1 to initiative for a creature
    that weighs more than 400 kg *now* — its living organs and its implants (a lost organ is
    biomass gone: the wounded are healed "avec de la biomasse", § 3-2 Soins) — unless used to
    wet places. Weighed at each initiative: a creature wounded below 400 kg gets out of the
    mud."""
    if _hinders(weather, mutant, "pluie") and mutant.live_biomass > HEAVY_KG:
        return (Modifier(-1, "pluie"),)
    return ()


def shot_modifiers(weather: Weather, shooter: Mutant) -> tuple[Modifier, ...]:
    """Brume: −1 to the shooter's die, unless the shooter is used to wet places."""
    return (Modifier(-1, "brume"),) if _hinders(weather, shooter, "brume") else ()


def movement_factor(weather: Weather, mutant: Mutant) -> float:
    """Neige: pump × 1.5 instead of × 2, unless the mutant resists the cold."""
    return 1.5 if _hinders(weather, mutant, "neige") else MOVE_FACTOR


# — § 1-2 Mouvement —

@dataclass(frozen=True)
class Movement:
    mutant: Mutant  # after the move: an infarctus, Coureur effréné's failure, a fall
    moves: int  # 1, 2 (sprint) or 3 (Coureur effréné)
    distance_cm: float  # the total the mutant may move
    pump_rolls: tuple[PumpRoll, ...] = ()
    fall: RollRecord | None = None  # gel: the 1d6 after moving twice in a row
    fall_location: RollRecord | None = None
    fall_damage: RollRecord | None = None
    fall_report: DamageReport | None = None

    @property
    def natural_sevens(self) -> int:
        return sum(1 for roll in self.pump_rolls if roll.natural_seven)


def move(mutant: Mutant, weather: Weather, dice: Dice, *, sprint: bool = False,
         third: bool = False, pump_mods: Sequence[Modifier] = ()) -> Movement:
    """Pump × 2 cm; a sprint (pump roll) moves as far again; Coureur effréné may try a third
    move on another pump roll, and loses a biomoteur when it fails (§ 2-3).

    An infarctus (natural 12) costs its biomoteur at once. Under gel, a creature that moved
    twice in a row rolls 1d6: on a 1 it falls, 1d6 damage on a random living limb.
    """
    if mutant.dead:
        raise IllegalArena("dead_mutant", mutant=mutant.name)
    step = mutant.movement_cm(movement_factor(weather, mutant))
    mods = (*pump_modifiers(weather, mutant), *pump_mods)
    rolls: list[PumpRoll] = []
    moves = 1
    if sprint:
        mutant, moves = _effort(mutant, dice, mods, rolls, "sprint", moves)
    if third and moves == 2 and mutant.has("coureur_effrene") and not mutant.dead:
        mutant, moves = _effort(mutant, dice, mods, rolls, "coureur effréné", moves)
        if moves == 2:  # the third move failed: it costs a biomoteur
            mutant = apply_infarctus(mutant)
    result = Movement(mutant, moves, step * moves, tuple(rolls))
    if moves >= 2 and _hinders(weather, mutant, "gel") and not mutant.dead:
        result = _frost(result, dice)
    return result


def _effort(mutant: Mutant, dice: Dice, mods: Sequence[Modifier], rolls: list[PumpRoll],
            purpose: str, moves: int) -> tuple[Mutant, int]:
    roll = pump_roll(mutant, dice, modifiers=mods, purpose=purpose)
    rolls.append(roll)
    if roll.infarctus:
        mutant = apply_infarctus(mutant)
    return mutant, moves + 1 if roll.success else moves


def _frost(result: Movement, dice: Dice) -> Movement:
    fall = _roll(dice, Purpose("frost"), 1)
    if fall.total != 1:
        return replace(result, fall=fall.with_target(None, "debout"))
    living = result.mutant.living_limbs
    location = _located(dice, len(living), Purpose("limb hit {name}", name=result.mutant.name))
    damage = _roll(dice, Purpose("fall damage"), 1)
    wounded, report = apply_damage(result.mutant, living[location.total - 1].name, damage.total)
    return replace(result, mutant=wounded, fall=fall.with_target(None, "chute"),
                   fall_location=location, fall_damage=damage, fall_report=report)


# — § 3-3 événements (the crowd) —

@dataclass(frozen=True)
class Event:
    key: str
    name: str  # French game term
    difficulty: int
    effect: str  # msgid


EVENTS: dict[str, Event] = {e.key: e for e in (
    Event("jet_de_canette", "Jet de canette", 9,
          N_("A can hits a creature: a shot with a pump of 7, 1d6 damage in the head.")),
    Event("sortie_du_samedi", "Sortie du samedi", 8,
          N_("The crowd comes in numbers: each player gains 2d6 kg, the best roll goes to "
             "the trigger.")),
    Event("huee", "Huée", 10,
          N_("A creature that threw in the sponge goes back in for 2 turns, from its starting "
             "edge, and cannot throw it again.")),
    Event("lancer_de_poulet", "Lancer de poulet", 7,
          N_("A chicken lands on the far edge: it walks 2d6 cm to the centre each turn and "
             "defends with one muscle; the first to kill it gains 3d6 kg.")),
    Event("chute_de_pom_pom_girl", "Chute de pom-pom girl", 10,
          N_("A cheerleader falls in: she climbs out on a 6 each turn and defends with 3 "
             "muscles; killing her gives a point of popularity.")),
    Event("controle_de_police", "Contrôle de police", 9,
          N_("The player aimed at loses 2d6 kg from their bet winnings.")),
    Event("ralenti", "Ralenti", 6,
          N_("A creature that destroyed a limb or killed this turn gains 1 XP.")),
    Event("projecteur", "Projecteur", 6,
          N_("The spotlight dazzles a creature: −4 to its next initiative.")),
)}


@dataclass(frozen=True)
class EventAttempt:
    event: Event
    record: RollRecord  # 2d6 (+1 per earlier failure) against the difficulty
    success: bool


def try_event(key: str, dice: Dice, *, earlier_failures: int = 0) -> EventAttempt:
    """2d6 ≥ the event's difficulty; "Rajoutez +1 au dé à chaque fois que vous voulez retenter
    un événement": +1 on the dice for each earlier failed attempt of this trainer at this
    event in the fight (the text's "+N au dé" always changes the dice, never the difficulty,
    which it names "niveau de difficulté"); a natural 12 always succeeds. The trigger then
    chooses the victim."""
    if key not in EVENTS:
        raise IllegalArena("unknown_event", event=key)
    event = EVENTS[key]
    retries = (Modifier(EVENT_RETRY_BONUS * earlier_failures, Purpose("another attempt")),)
    record = _roll(dice, Purpose("event {event}", event=event.name), 2, retries)
    success = record.total >= event.difficulty or _natural(record) == 12
    return EventAttempt(event, record.with_target(event.difficulty,
                                                  "réussi" if success else "raté"), success)


@dataclass(frozen=True)
class CanHit:
    roll: RollRecord
    hit: bool
    damage: RollRecord | None = None
    mutant: Mutant | None = None
    report: DamageReport | None = None


CAN_PUMP = 7


def can_hit(victim: Mutant, head: str, dice: Dice) -> CanHit:
    """Jet de canette: a shot of d6 + 7 (our reading of shooting: a 1 misses, Mimétisme is hit
    on 9+), then 1d6 damage in the head (``head``: the limb the table calls its head)."""
    if victim.limb(head).dead:
        raise IllegalArena("limb_dead", limb=head)
    roll = _roll(dice, Purpose("can"), 1, (Modifier(CAN_PUMP, Purpose("the can's pump")),))
    missed = _natural(roll) <= 1 or (victim.has("mimetisme") and roll.total < 9)
    if missed:
        return CanHit(roll.with_target(None, "raté"), False)
    damage = _roll(dice, Purpose("can damage"), 1)
    wounded, report = apply_damage(victim, head, damage.total)
    return CanHit(roll.with_target(None, "touché"), True, damage, wounded, report)


@dataclass(frozen=True)
class SaturdayCrowd:
    rolls: tuple[RollRecord, RollRecord]
    trigger_kg: int
    other_kg: int


def saturday_crowd(dice: Dice) -> SaturdayCrowd:
    """Sortie du samedi: two 2d6 rolls; the best goes to the trigger, the other to the victim."""
    first, second = (_roll(dice, Purpose("Saturday night out"), 2),
                     _roll(dice, Purpose("Saturday night out"), 2))
    best, other = sorted((first.total, second.total), reverse=True)
    return SaturdayCrowd((first, second), best, other)


@dataclass(frozen=True)
class Booed:
    """Huée: back in for 2 turns from its starting edge, the sponge forbidden meanwhile."""

    mutant: str
    turns_left: int = 2


def boo(mutant: Mutant, *, withdrawn: bool) -> Booed:
    if not withdrawn:
        raise IllegalArena("not_withdrawn", mutant=mutant.name)
    return Booed(mutant.name)


def boo_tick(booed: Booed) -> Booed | None:
    """One turn served; ``None`` when the creature may leave (or throw the sponge) again."""
    return replace(booed, turns_left=booed.turns_left - 1) if booed.turns_left > 1 else None


# The two pieces the crowd throws in: neutral, with a body the melee rules can hit.

def chicken_body() -> Mutant:
    """Lancer de poulet: it defends with one muscle; any damage kills it."""
    return Mutant("poulet", (Limb("poulet", muscles=1, biomoteurs=1, lobes=1, trunk=True),
                             Limb("pattes", muscles=1)))


def cheerleader_body() -> Mutant:
    """Chute de pom-pom girl: she defends with 3 muscles."""
    return Mutant("pom-pom girl", (Limb("pom-pom girl", muscles=3, biomoteurs=1, lobes=1,
                                        trunk=True), Limb("jambes", muscles=3)))


@dataclass(frozen=True)
class Chicken:
    """Signed distance from the arena's centre along its line (negative: its landing side)."""

    position_cm: int = -ARENA_RADIUS_CM
    body: Mutant = field(default_factory=chicken_body)


def chicken_walk(chicken: Chicken, dice: Dice) -> tuple[Chicken, RollRecord]:
    """At the start of each turn it walks 2d6 cm towards the centre; overshooting it, it ends on
    the other side and walks back next turn (it never leaves the arena)."""
    record = _roll(dice, Purpose("chicken"), 2)
    here = chicken.position_cm
    towards = 1 if here < 0 else -1 if here > 0 else 1
    there = max(-ARENA_RADIUS_CM, min(ARENA_RADIUS_CM, here + towards * record.total))
    return replace(chicken, position_cm=there), record


def chicken_prize(dice: Dice) -> RollRecord:
    """The first to kill the chicken gains 3d6 kg of biomass."""
    return _roll(dice, Purpose("chicken prize"), 3)


def cheerleader_climbs(dice: Dice) -> RollRecord:
    """At the start of each turn she tries to climb out: she succeeds on a 6."""
    record = _roll(dice, Purpose("cheerleader climbs back"), 1)
    return record.with_target(6, "sortie" if record.total == 6 else "reste")


def cheerleader_killed(killer: Mutant) -> Mutant:
    """Killing her gives a point of popularity (kept in ``fame``)."""
    return replace(killer, fame=killer.fame + 1)


def police_check(dice: Dice) -> RollRecord:
    """Contrôle de police: 2d6 kg off the victim's bet winnings (``campaign.settle_bets``)."""
    return _roll(dice, Purpose("police check"), 2)


def slow_motion_xp(destroyed_limb: bool, killed: bool) -> int:
    """Ralenti: +1 XP to a creature that destroyed a limb or killed this turn."""
    return 1 if destroyed_limb or killed else 0


SPOTLIGHT = Modifier(-4, "projecteur")  # its next initiative


# — § 3-1 Jeter l'éponge —

@dataclass(frozen=True)
class Sponge:
    """The creature leaves the fight; ``given`` is the limb it cedes when it loses the roll."""

    mutant: Mutant
    rolls: tuple[RollRecord, ...]
    unharmed: bool
    given: Limb | None = None


def throw_sponge(mutant: Mutant, attacker: Mutant, dice: Dice, *, in_contact: bool,
                 give: str | None = None, booed: Booed | None = None) -> Sponge:
    """Each rolls d6 + lobes (attacker first); the creature leaves unharmed on ≥, else it
    cedes a living limb of its choice (``give``) to the enemy. Out of contact it simply leaves.

    Faire pitié: +2 when lighter (biomass) than the attacker. A booed creature cannot.
    """
    if booed is not None and booed.mutant == mutant.name:
        raise IllegalArena("sponge_forbidden", mutant=mutant.name)
    if not in_contact:
        return Sponge(mutant, (), True)
    if give is not None and (give not in {limb.name for limb in mutant.living_limbs}):
        raise IllegalArena("no_living_limb", mutant=mutant.name, limb=give)
    enemy = _roll(dice, Purpose("sponge {name}", name=attacker.name), 1,
                  (Modifier(attacker.live_brain, "lobes"),))
    pity = 2 if mutant.has("faire_pitie") and mutant.biomass < attacker.biomass else 0
    own = _roll(dice, Purpose("sponge {name}", name=mutant.name), 1,
                (Modifier(mutant.live_brain, "lobes"), Modifier(pity, "faire pitié")))
    if own.total >= enemy.total:
        return Sponge(mutant, (enemy, own), True)
    living = mutant.living_limbs
    limb = mutant.limb(give) if give else min(living, key=lambda held: held.live_organs)
    return Sponge(mutant, (enemy, own), False, limb)


# — § 3-2 Fin du carnage: both trainers stop —

def both_stop(living: Iterable[Mutant]) -> tuple[Mutant, ...]:
    """Stopping together costs each creature still alive in the arena 1 XP (never below 0)."""
    return tuple(replace(m, xp=max(0, m.xp - 1)) for m in living if not m.dead)


# — § 3 Campagne / Relances —

@dataclass(frozen=True)
class Rerolls:
    """A team's re-rolls for one fight: free ones (any roll) and bought ones (one creature)."""

    free: int = 0
    bought: frozenset[str] = frozenset()

    def spend(self, mutant: str) -> Rerolls:
        """A creature's own bought re-roll first, else a free one."""
        if mutant in self.bought:
            return replace(self, bought=self.bought - {mutant})
        if self.free > 0:
            return replace(self, free=self.free - 1)
        raise IllegalArena("reroll_spent", mutant=mutant)


def reroll_price(mutant: Mutant) -> int:
    """One bought re-roll per creature costs 10 % of its biomass (rounded up)."""
    return math.ceil(mutant.biomass / 10)


def buy_rerolls(team: Sequence[Mutant], names: Iterable[str]) -> tuple[frozenset[str], int]:
    """The creatures given a re-roll and the price: 10 % each, or 50 kg for the whole team
    when that is cheaper."""
    chosen = frozenset(names)
    unknown = chosen - {m.name for m in team}
    if unknown:
        raise IllegalArena("unknown_participant", participant=sorted(unknown)[0])
    price = sum(reroll_price(m) for m in team if m.name in chosen)
    if len(chosen) == len(team):
        price = min(price, 50)
    return chosen, price

