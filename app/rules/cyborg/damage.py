"""Damage: the damage-factor table, the d6 location table, and what 0 santé does.

Cyborg § (III) Combats / Calcul des dégâts. A successful attack costs the target the points in
the table's cell (factor letter × the target's resistance), doubled by a master stroke. When
santé reaches 0 or less, the weapon's damage type decides what happens; most types roll the d6
location table, and some then ask for a constitution test (``checks.characteristic_test``: a
"+2" or "+4" is added to the d20, as the armoured-door malus).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from app.rules.cyborg.checks import characteristic_test
from app.rules.cyborg.content import (
    DAMAGE_TYPES,
    FACTORS,
    MAX_RESISTANCE,
    Location,
    damage_table,
    locations,
)
from app.rules.cyborg.content import (
    LIMBS as LIMBS,
)
from app.rules.dice import Dice, RollRecord
from app.rules.notation import roll
from app.rules.purposes import Purpose
from app.rules.system import N_

RULE = "Cyborg § (III) Combats / Calcul des dégâts"
# Skills a cyborg uses with the left hand at −50 % once the right arm is lost (note 1).
LEFT_HAND_SKILLS = ("arme_blanche", "arme_a_feu", "esquive_parade")
MAX_LOCATION_ROLLS = 1000


def damage_points(factor: str, resistance: int, *, master: bool = False) -> int:
    """The table's cell; a resistance above 10 (passengers behind a vehicle's armour, Règles
    § (IV) Poursuites / Tirs) takes nothing; a master stroke doubles the damage."""
    if factor not in FACTORS:
        raise ValueError(f"unknown damage factor {factor!r}")
    if resistance < 0:
        raise ValueError("resistance cannot be negative")
    if resistance > MAX_RESISTANCE:
        return 0
    points = damage_table()[resistance][FACTORS.index(factor)]
    return points * 2 if master else points


def roll_location(
    dice: Dice, lost: Iterable[str] = (), *, purpose: str = Purpose("hit location")
) -> tuple[Location, list[RollRecord]]:
    """1D6 on the location table, rolled again while it names a limb already lost
    (Cyborg § (III) Combats / Remarque)."""
    lost = set(lost)
    records: list[RollRecord] = []
    while len(records) < MAX_LOCATION_ROLLS:
        record = roll("1d6", dice, purpose=purpose)
        location = locations()[record.total]
        if location.limb in lost:
            records.append(record.with_target(None, "re-roll: limb already lost"))
            continue
        records.append(record.with_target(None, location.humanoid))
        return location, records
    raise ValueError("the location dice never left the lost limbs")


@dataclass
class Wound:
    """What a hit that brought santé to 0 or below did, with every roll behind it.

    ``penalties`` are characteristic changes; ``skill_penalties`` are percentage changes to
    skills (the left hand's −50 %); ``notes`` are the text's rules the GM applies later
    (surgery, paralysis until healed…), each an English msgid.
    """

    damage_type: str
    location: int | None = None
    location_name: str | None = None
    dead: bool = False
    unconscious: bool = False
    coma: bool = False
    turns_to_live: int | None = None
    lost_limb: str | None = None
    broken_limb: str | None = None
    cut_in_two: bool = False
    paralysed: bool = False
    penalties: dict[str, int] = field(default_factory=dict)
    skill_penalties: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    records: list[RollRecord] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        data = {key: value for key, value in self.__dict__.items() if key != "records"}
        return {**data, "rolls": [record.to_dict() for record in self.records]}


def wound(
    dice: Dice,
    damage_type: str,
    *,
    constitution: int,
    lost_limbs: Iterable[str] = (),
    humanoid: bool = True,
    localised: bool = True,
    whole_body: bool = False,
    knockout: bool = False,
) -> Wound:
    """The consequence of reaching 0 santé or less.

    ``localised``: for a burn, a laser, acid jet or torch (False: a flame-thrower, a vat of
    acid — death). ``whole_body``: for broyage, the whole target crushed, not a blow (a
    steamroller, a rock fall: "si c'est la cible dans sa totalité qui est écrasée, elle
    meurt") — death, no location rolled. ``knockout``: the weapon is a whip — the victim only
    falls unconscious.
    """
    if damage_type not in DAMAGE_TYPES:
        raise ValueError(f"unknown damage type {damage_type!r}")
    result = Wound(damage_type)
    if knockout:
        result.unconscious = True
        result.notes.append(N_("A whip only knocks out."))
    elif damage_type == "broyage" and whole_body:
        result.dead = True
        result.notes.append(N_("The whole target is crushed: death."))
    elif damage_type in ("explosion", "etouffement", "empoisonnement") or (
        damage_type == "brulure" and not localised
    ):
        result.dead = True
    elif damage_type == "etranglement":
        record = roll("1d6", dice, purpose=Purpose("turns to live"))
        result.records.append(record)
        result.turns_to_live = record.total
        result.notes.append(N_("The airways are crushed: death after the rolled turns."))
    else:
        _located(dice, result, constitution, set(lost_limbs), humanoid)
    return result


def _located(dice: Dice, result: Wound, constitution: int, lost: set[str],
             humanoid: bool) -> None:
    location, records = roll_location(dice, lost)
    result.records += records
    result.location = location.roll
    result.location_name = location.humanoid if humanoid else location.non_humanoid
    if location.note == 0:
        result.dead = True
    elif location.note == 1:
        _limb(dice, result, constitution, location.limb or "")
    elif result.damage_type == "broyage":
        _thorax(dice, result, constitution)
    else:
        _trunk(dice, result, constitution)


def _limb(dice: Dice, result: Wound, constitution: int, limb: str) -> None:
    if result.damage_type == "broyage":
        # Note 1 of broyage: broken, not lost; right arm as a lost one until it heals.
        result.broken_limb = limb
        if limb in ("right_leg", "left_leg"):
            result.penalties = {"rapidite": -4, "dexterite": -2}
        result.notes.append(N_("The limb is broken until it heals (at the end of the mission)."))
    else:
        # Déchirure note 1 (severed); perforation and localised burns: "même conséquence".
        result.lost_limb = limb
        if limb in ("right_leg", "left_leg"):
            result.penalties = {"rapidite": -5, "dexterite": -2}
        test = characteristic_test(dice, constitution,
                                   purpose=Purpose("constitution (unconsciousness)"))
        result.records.append(test.record)
        result.unconscious = not test.success
    if limb == "right_arm":
        result.skill_penalties = {key: -50 for key in LEFT_HAND_SKILLS}
        result.notes.append(N_("Weapons in the left hand: Arme blanche, Arme à feu and "
                            "Esquive/Parade at −50 %."))


def _trunk(dice: Dice, result: Wound, constitution: int) -> None:
    if result.damage_type == "dechirure":
        result.cut_in_two = True
        malus = 4
        result.notes.append(N_("Cut in two: a human dies within hours unless operated on; a "
                            "cyborg is out of action until the end of the mission."))
    else:
        malus = 2
        result.notes.append(N_("Trunk pierced: a human dies within hours unless operated on; a "
                            "cyborg or an alien is paralysed until it recovers santé."))
    test = characteristic_test(dice, constitution, malus,
                               purpose=Purpose("constitution (survival)"))
    result.records.append(test.record)
    result.dead = not test.success
    result.paralysed = result.damage_type != "dechirure" and test.success


def _thorax(dice: Dice, result: Wound, constitution: int) -> None:
    test = characteristic_test(dice, constitution, 2, purpose=Purpose("constitution (chest)"))
    result.records.append(test.record)
    result.dead = not test.success
    if test.success:
        result.coma = True
        result.penalties = {"force": -2, "dexterite": -2}
        result.notes.append(N_("Thorax crushed: coma."))
