"""The fight's dice: pump roll, initiative, melee, shooting, damage and death.

000_e34df4ff7a8d792c.txt § 1- LES ACTIONS. Every function takes a ``Dice`` and returns a
record keeping every face (``RollRecord``), so a log line can explain the numbers; bodies are
immutable and damage returns a new ``Mutant``. The match layer (later) chooses limbs and
targets, and chains the steps with ``follow_up``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import ClassVar

from app.rules import notation
from app.rules.dice import Dice, Modifier, RollRecord
from app.rules.match import IllegalAction
from app.rules.mutatior.body import Limb, Mutant
from app.rules.purposes import Purpose

ORGAN_ORDER = ("muscles", "biomoteurs", "lobes")  # § 1-5 Dégâts, point 2
MIMETISME_TARGET = 9
ATTACKER, DEFENDER = "attacker", "defender"


class IllegalMelee(IllegalAction):
    """An attack or a shot the text forbids."""

    templates_en: ClassVar[dict[str, str]] = {
        **IllegalAction.templates_en,
        "dead_mutant": "{mutant} is dead and cannot act",
        "trunk_never_attacks": "the trunk never attacks (it may shoot)",
        "limb_dead": "the limb '{limb}' is dead",
        "limb_without_muscle": "the limb '{limb}' has no muscle left and cannot attack",
        "limb_already_attacked": "the limb '{limb}' has already attacked this turn",
        "limb_cannot_shoot": "the limb '{limb}' has no biomoteur to shoot with",
        "unknown_limb": "{mutant} has no limb '{limb}'",
    }
    templates_fr: ClassVar[dict[str, str]] = {
        **IllegalAction.templates_fr,
        "dead_mutant": "{mutant} est mort et ne peut plus agir",
        "trunk_never_attacks": "le tronc n'attaque jamais (il peut tirer)",
        "limb_dead": "le membre « {limb} » est mort",
        "limb_without_muscle": "le membre « {limb} » n'a plus de muscle et ne peut attaquer",
        "limb_already_attacked": "le membre « {limb} » a déjà attaqué ce tour",
        "limb_cannot_shoot": "le membre « {limb} » n'a pas de biomoteur pour tirer",
        "unknown_limb": "{mutant} n'a pas de membre « {limb} »",
    }


def _roll(dice: Dice, purpose: str, count: int, modifiers: Sequence[Modifier] = (),
          target: int | None = None) -> RollRecord:
    mods = tuple(m for m in modifiers if m.value)
    record = notation.roll(f"{count}d6", dice, purpose=purpose)
    return record.with_modifiers(*mods).with_target(target)


def _natural(record: RollRecord) -> int:
    return sum(die.value for die in record.dice)


def _limb(mutant: Mutant, name: str) -> Limb:
    try:
        return mutant.limb(name)
    except KeyError:
        raise IllegalMelee("unknown_limb", mutant=mutant.name, limb=name) from None


# — § 1-6 Jet de pompe —

@dataclass(frozen=True)
class PumpRoll:
    mutant: str
    record: RollRecord  # 2d6 + modifiers against the pump (the record's target)
    success: bool
    infarctus: bool  # a natural 12: one biomoteur lost

    @property
    def natural(self) -> int:
        return _natural(self.record)

    @property
    def natural_seven(self) -> bool:
        """Any natural 7 lets the opponent try a crowd event (§ 3-3, les événements)."""
        return self.natural == 7


def pump_roll(mutant: Mutant, dice: Dice, *, modifiers: Sequence[Modifier] = (),
              purpose: str = Purpose("pump")) -> PumpRoll:
    """2d6 ≤ pump succeeds; a natural 7 always fails; a natural 12 fails with an infarctus.

    +1 per dead limb is added here; weather (canicule +1) and skills (Coquet +2) come in
    ``modifiers``. The infarctus is reported, not applied: see ``apply_infarctus``.
    """
    mods = (Modifier(mutant.dead_limbs, Purpose("dead limbs")), *modifiers)
    record = _roll(dice, purpose, 2, mods, target=mutant.live_pump)
    natural = _natural(record)
    success = natural not in (7, 12) and record.total <= mutant.live_pump
    outcome = ("infarctus" if natural == 12 else "7 naturel" if natural == 7
               else "réussi" if success else "raté")
    return PumpRoll(mutant.name, record.with_target(mutant.live_pump, outcome), success,
                    natural == 12)


def apply_infarctus(mutant: Mutant, limb_name: str | None = None) -> Mutant:
    """Lose one biomoteur: from the named limb, else from the limb holding the most."""
    holders = [limb for limb in mutant.limbs if limb.live_biomoteurs > 0]
    if not holders:
        return mutant
    limb = (_limb(mutant, limb_name) if limb_name
            else max(holders, key=lambda held: held.live_biomoteurs))
    if limb.live_biomoteurs <= 0:
        return mutant
    return mutant.with_limb(replace(limb, lost_biomoteurs=limb.lost_biomoteurs + 1))


# — § 1-1 Initiative —

@dataclass(frozen=True)
class Initiative:
    order: tuple[str, ...]
    rolls: tuple[RollRecord, ...]  # every d6 + brain rolled, re-rolls included, in order


def initiative(mutants: Sequence[Mutant], dice: Dice, *,
               modifiers: Mapping[str, Sequence[Modifier]] | None = None) -> Initiative:
    """d6 + brain, highest first; a tie goes to more (living) limbs, else the die is re-rolled.

    ``modifiers`` by mutant name: projecteur −4, rain −1 over 400 kg…
    """
    modifiers = modifiers or {}
    rolls: list[RollRecord] = []
    living = [mutant for mutant in mutants if not mutant.dead]
    return Initiative(tuple(_order(living, dice, modifiers, rolls, "initiative {name}")),
                      tuple(rolls))


def _order(mutants: list[Mutant], dice: Dice, modifiers: Mapping[str, Sequence[Modifier]],
           rolls: list[RollRecord], purpose: str) -> list[str]:
    scored = []
    for mutant in mutants:
        mods = (Modifier(mutant.live_brain, Purpose("brain")), *modifiers.get(mutant.name, ()))
        record = _roll(dice, Purpose(purpose, name=mutant.name), 1, mods)
        rolls.append(record)
        scored.append((record.total, len(mutant.living_limbs), mutant))
    scored.sort(key=lambda item: (-item[0], -item[1]))
    order: list[str] = []
    index = 0
    while index < len(scored):
        tied = [item for item in scored[index:] if item[:2] == scored[index][:2]]
        if len(tied) == 1:
            order.append(tied[0][2].name)
        else:
            order += _order([item[2] for item in tied], dice, modifiers, rolls,
                            "initiative re-roll {name}")
        index += len(tied)
    return order


# — § 1-3 Attaque au corps à corps —

def check_attack(attacker: Mutant, attack_limb: str, defender: Mutant, target_limb: str,
                 used_limbs: frozenset[str] = frozenset()) -> None:
    """Raise ``IllegalMelee`` when the text forbids this attack (``used_limbs``: this turn's)."""
    for mutant in (attacker, defender):
        if mutant.dead:
            raise IllegalMelee("dead_mutant", mutant=mutant.name)
    limb = _limb(attacker, attack_limb)
    if limb.trunk:
        raise IllegalMelee("trunk_never_attacks")
    if limb.dead:
        raise IllegalMelee("limb_dead", limb=attack_limb)
    if limb.live_muscles <= 0:
        raise IllegalMelee("limb_without_muscle", limb=attack_limb)
    if attack_limb in used_limbs:
        raise IllegalMelee("limb_already_attacked", limb=attack_limb)
    if _limb(defender, target_limb).dead:
        raise IllegalMelee("limb_dead", limb=target_limb)


@dataclass(frozen=True)
class Clash:
    attacker: str
    attack_limb: str
    defender: str
    target_limb: str
    attack: RollRecord
    defence: RollRecord
    winner: str | None  # ATTACKER, DEFENDER or None for a tie

    @property
    def damage(self) -> int:
        """The difference, when the attack wins."""
        return self.attack.total - self.defence.total if self.winner == ATTACKER else 0


def clash(attacker: Mutant, attack_limb: str, defender: Mutant, target_limb: str, dice: Dice,
          *, used_limbs: frozenset[str] = frozenset(), attack_modifiers: Sequence[Modifier] = (),
          defence_modifiers: Sequence[Modifier] = ()) -> Clash:
    """Each side rolls d6 + the muscles of its limb; the attacking limb's implant adds.

    A limb without muscle defends with a bare d6 (§ 1-5). The attacker rolls first.
    """
    check_attack(attacker, attack_limb, defender, target_limb, used_limbs)
    limb, target = attacker.limb(attack_limb), defender.limb(target_limb)
    attack = _roll(dice, Purpose("attack {name} ({limb})", name=attacker.name, limb=attack_limb), 1,
                   (Modifier(limb.live_muscles, "muscles"),
                    Modifier(attacker.attack_bonus(limb), limb.offensive), *attack_modifiers))
    defence = _roll(dice, Purpose("defence {name} ({limb})", name=defender.name, limb=target_limb),
                    1,
                    (Modifier(target.live_muscles, "muscles"), *defence_modifiers))
    winner = (ATTACKER if attack.total > defence.total
              else DEFENDER if defence.total > attack.total else None)
    return Clash(attacker.name, attack_limb, defender.name, target_limb, attack, defence, winner)


@dataclass(frozen=True)
class TieBreak:
    attacker_roll: PumpRoll
    defender_roll: PumpRoll
    winner: str | None


def tie_break(attacker: Mutant, defender: Mutant, dice: Dice, *,
              attacker_modifiers: Sequence[Modifier] = (),
              defender_modifiers: Sequence[Modifier] = ()) -> TieBreak:
    """A tie: both make a pump roll; of two successes the lower 2d6 may attack.

    House: one success alone wins; two failures or equal dice leave the exchange there.
    """
    own = pump_roll(attacker, dice, modifiers=attacker_modifiers, purpose=Purpose("pump (tie)"))
    other = pump_roll(defender, dice, modifiers=defender_modifiers,
                      purpose=Purpose("pump (tie)"))
    return TieBreak(own, other, tie_winner(own, other))


def tie_winner(own: PumpRoll, other: PumpRoll) -> str | None:
    """Who wins a tie by the two pump rolls (the attacker's, the defender's): of two
    successes the lower 2d6; one success alone; none, nobody (the odds judge with it too)."""
    if own.success and other.success:
        return (ATTACKER if own.natural < other.natural
                else DEFENDER if other.natural < own.natural else None)
    return ATTACKER if own.success else DEFENDER if other.success else None


@dataclass(frozen=True)
class FollowUp:
    """What may come after a clash: who attacks next, and whether a pump roll is needed."""

    kind: str | None  # "second_attack", "counter" or None (the exchange is over)
    by: str | None = None
    needs_pump_roll: bool = False
    # The limb that may not attack again and the limb that may not be aimed at.
    not_with: str | None = None
    not_at: str | None = None
    # Obsédé (§ 2-3): the second attack must use this limb on this limb.
    only_with: str | None = None
    only_at: str | None = None


def follow_up(result: Clash, attacker: Mutant, defender: Mutant, *, attack_number: int = 1,
              counter: bool = False, tie: TieBreak | None = None) -> FollowUp:
    """The text's chaining, for the clash just played (by ``attacker`` on ``defender``).

    - a win allows a second attack (pump roll, another limb on another limb), never a third;
    - a defence that wins allows a counter-attack (pump roll, another limb on another organ);
    - a tie goes to ``tie_break``: its winner attacks without another pump roll;
    - house: a counter-attack ends the exchange, whatever it gives.
    """
    if counter or attacker.dead or defender.dead:
        return FollowUp(None)
    if result.winner is None and tie is None:
        raise ValueError("a tied clash needs its tie_break")
    winner = result.winner or (tie.winner if tie else None)
    from_tie = result.winner is None
    if winner == ATTACKER and attack_number < 2:
        return FollowUp("second_attack", attacker.name, not from_tie,
                        not_with=result.attack_limb, not_at=result.target_limb)
    if winner == DEFENDER and _may_counter(defender, attacker):
        return FollowUp("counter", defender.name, not from_tie,
                        not_with=result.target_limb, not_at=result.attack_limb)
    return FollowUp(None)


def _may_counter(defender: Mutant, attacker: Mutant) -> bool:
    if attacker.has("gros_tas") and attacker.live_muscles > defender.live_muscles:
        return False  # § 2-3 Gros tas: the opponent dares not counter-attack
    return not (defender.has("lobotomie") and defender.live_brain <= 0)


# — § 1-4 Attaque à distance —

@dataclass(frozen=True)
class Shot:
    shooter: str
    limb: str
    target: str
    roll: RollRecord  # d6 + the limb's biomoteurs, −1 per dead organ of the shooter
    outcome: str  # "miss", "aimed" (a 6: the shooter chose the limb) or "random"
    target_limb: str | None = None
    location: RollRecord | None = None
    damage: RollRecord | None = None


def shoot(shooter: Mutant, limb_name: str, target: Mutant, dice: Dice, *, aimed_limb: str,
          modifiers: Sequence[Modifier] = ()) -> Shot:
    """Roll d6 + biomoteurs; a modified die of 1 or less misses, 6 or more hits ``aimed_limb``,
    otherwise a random living limb is hit; 1d6 damage. Mimétisme is hit only on a total of 9+.

    ``modifiers`` change the die (brume −1). ``aimed_limb`` is declared before rolling.
    """
    for mutant in (shooter, target):
        if mutant.dead:
            raise IllegalMelee("dead_mutant", mutant=mutant.name)
    limb = _limb(shooter, limb_name)
    if limb.live_biomoteurs <= 0:
        raise IllegalMelee("limb_cannot_shoot", limb=limb_name)
    if _limb(target, aimed_limb).dead:
        raise IllegalMelee("limb_dead", limb=aimed_limb)
    die_mods = (Modifier(-shooter.lost_organs, Purpose("dead organs")), *modifiers)
    record = _roll(dice, Purpose("shot {name} ({limb})", name=shooter.name, limb=limb_name), 1,
                   (Modifier(limb.live_biomoteurs, "biomoteurs"), *die_mods))
    die = _natural(record) + sum(m.value for m in die_mods)
    hidden = target.has("mimetisme") and record.total < MIMETISME_TARGET
    if die <= 1 or hidden:
        reason = "raté (1)" if die <= 1 else f"raté (mimétisme {MIMETISME_TARGET}+)"
        return Shot(shooter.name, limb_name, target.name, record.with_target(None, reason), "miss")
    location = None
    if die >= 6:
        outcome, hit = "aimed", aimed_limb
    else:
        living = target.living_limbs
        location = _located(dice, len(living), Purpose("limb hit {name}", name=target.name))
        outcome, hit = "random", living[location.total - 1].name
    damage = _roll(dice, Purpose("shot damage"), 1)
    return Shot(shooter.name, limb_name, target.name, record.with_target(None, "touché"),
                outcome, hit, location, damage)


def _located(dice: Dice, count: int, purpose: str) -> RollRecord:
    """A random limb among ``count``: one die with that many sides (a d1 for a lone limb)."""
    return notation.roll(f"1d{count}", dice, purpose=purpose)


# — § 1-5 Dégâts —

@dataclass(frozen=True)
class DamageReport:
    mutant: str
    limb: str
    incoming: int
    armour: int
    lost: Mapping[str, int]  # organs lost by kind
    wasted: int  # damage beyond the limb's organs (lost: it does not spread)
    limb_died: bool
    killed: bool
    death_reasons: tuple[str, ...]

    @property
    def applied(self) -> int:
        return sum(self.lost.values())


def apply_damage(mutant: Mutant, limb_name: str, amount: int,
                 order: Sequence[str] = ORGAN_ORDER) -> tuple[Mutant, DamageReport]:
    """Armour first, then the limb's muscles, biomoteurs and lobes (or the owner's ``order``)."""
    if sorted(order) != sorted(ORGAN_ORDER):
        raise ValueError("order must list muscles, biomoteurs and lobes once each")
    limb = _limb(mutant, limb_name)
    armour = mutant.armour(limb)
    remaining = max(0, amount - armour)
    lost: dict[str, int] = {}
    for organ in order:
        take = min(remaining, getattr(limb, f"live_{organ}"))
        lost[organ] = take
        remaining -= take
        limb = replace(limb, **{f"lost_{organ}": getattr(limb, f"lost_{organ}") + take})
    was_dead = mutant.dead
    wounded = mutant.with_limb(limb)
    report = DamageReport(mutant.name, limb_name, amount, armour, lost,
                          remaining, limb.dead and not mutant.limb(limb_name).dead,
                          wounded.dead and not was_dead, wounded.death_reasons)
    return wounded, report


def death_check(mutant: Mutant) -> tuple[str, ...]:
    """Why the mutant is dead (empty when it lives): § 1-5 Dégâts."""
    return mutant.death_reasons



# — § 1-2 Mouvement —

def escape_attacks(mover: Mutant, enemy: Mutant) -> int:
    """Leaving a melee costs one attack per living appendage the enemy has beyond the mover's,
    at least one. An appendage is a limb attached to the trunk (§ Terminologie), so the trunk
    does not count."""
    def appendages(mutant: Mutant) -> int:
        return sum(1 for limb in mutant.living_limbs if not limb.trunk)
    return max(1, appendages(enemy) - appendages(mover))
