"""Chases: the distance ladder, on foot and in vehicles, accidents, shots between vehicles.

Cyborg § (IV) Poursuites. The distance is courte, moyenne, longue or très longue; each round
moves it by at most one step. On foot both sides test rapidité (``checks.opposed_test``); in
vehicles both test their driving skill, a failure being an accident or, in the GM's milder
variant, a recoverable mistake costing 1D10 structure. Vehicles come from
``data/vehicles.toml``.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any, ClassVar

from app.rules.cyborg.checks import SkillTest, opposed_test, skill_test
from app.rules.cyborg.combat import Attack, Target, attack
from app.rules.cyborg.content import DATA, ContentError, Weapon, check_source, skills
from app.rules.cyborg.damage import damage_points
from app.rules.dice import Dice, Modifier, RollRecord
from app.rules.errors import RulesError
from app.rules.notation import roll
from app.rules.purposes import Purpose
from app.rules.system import N_

RULE = "Cyborg § (IV) Poursuites / Déroulement"
RULE_ACCIDENTS = "Cyborg § (IV) Poursuites / Accidents"
RULE_SHOTS = "Cyborg § (IV) Poursuites / Tirs"

DISTANCES = ("courte", "moyenne", "longue", "tres_longue")
CAUGHT = "rattrape"  # on foot, the pursuer closed a short distance
ALONGSIDE = "cote_a_cote"  # in vehicles, the pursuer closed a short distance
LOST = "seme"  # the quarry widened a very long distance
DRIVER_MALUS = Modifier(-10, "conducteur")
SHOOTER_MOVING = Modifier(-5, "Attaquant dans un véhicule mobile")
TARGET_MOVING = Modifier(-5, "Cible dans véhicule mobile")


class ChaseError(RulesError):
    code = "chase_error"
    templates_en: ClassVar[dict[str, str]] = {
        "chase_error": "the chase rules refuse this",
        "chase_over": "the chase is over ({distance})",
        "unknown_distance": "unknown distance {distance}",
        "not_alongside": "a tour de force needs the vehicles side by side",
        "not_caught_up": "the pursuer rams only once it has closed a short distance",
        "no_structure": "{vehicle} has resistance 0: shots hit its riders",
    }
    templates_fr: ClassVar[dict[str, str]] = {
        "chase_error": "les règles de poursuite refusent ceci",
        "chase_over": "la poursuite est finie ({distance})",
        "unknown_distance": "distance inconnue : {distance}",
        "not_alongside": "un tour de force demande des véhicules côte à côte",
        "not_caught_up": "le poursuivant ne heurte le poursuivi qu'après avoir réduit une "
                         "distance courte",
        "no_structure": "{vehicle} a une résistance de 0 : les tirs touchent ses passagers",
    }


@dataclass(frozen=True)
class Vehicle:
    key: str
    name: str
    medium: str
    skill: str
    resistance: int
    structure: int
    safety: int


@cache
def vehicles() -> dict[str, Vehicle]:
    with (DATA / "vehicles.toml").open("rb") as handle:
        entries = tomllib.load(handle)["vehicle"]
    found = {}
    fields = set(Vehicle.__dataclass_fields__)
    for entry in entries:
        where = f"vehicles.toml {entry.get('key')}"
        check_source(entry, where)
        if entry["skill"] not in skills() or not 0 <= entry["safety"] <= 6:
            raise ContentError(f"{where}: bad skill or safety")
        found[entry["key"]] = Vehicle(**{k: v for k, v in entry.items() if k in fields})
    return found


# — the distance ladder —


def step(distance: str, closer: bool, *, on_foot: bool = True) -> str:
    """One step along the ladder. Closing a short distance catches the quarry on foot and
    puts a vehicle alongside; widening a very long one loses the pursuer (Cyborg § (IV))."""
    if distance == ALONGSIDE:
        return ALONGSIDE if closer else DISTANCES[0]
    if distance not in DISTANCES:
        raise ChaseError("chase_over" if distance in (CAUGHT, LOST) else "unknown_distance",
                         distance=distance)
    index = DISTANCES.index(distance) + (-1 if closer else 1)
    if index < 0:
        return CAUGHT if on_foot else ALONGSIDE
    return LOST if index >= len(DISTANCES) else DISTANCES[index]


@dataclass
class ChaseRound:
    before: str
    distance: str
    winner: str | None  # "pursuer", "quarry" or None (the distance is kept)
    records: list[RollRecord] = field(default_factory=list)


def foot_round(
    dice: Dice,
    distance: str,
    pursuer_rapidite: int,
    quarry_rapidite: int,
    *,
    pursuer_malus: int = 0,
    quarry_malus: int = 0,
) -> ChaseRound:
    """Both test rapidité, the pursuer first: a lone success gains a step; two successes, the
    lower score; two failures or equal scores keep the distance (Cyborg § (IV) Déroulement)."""
    step(distance, True)  # refuses a finished chase before any die is rolled
    test = opposed_test(dice, pursuer_rapidite, quarry_rapidite, first_malus=pursuer_malus,
                        second_malus=quarry_malus,
                        purposes=(Purpose("rapidité (pursuer)"), Purpose("rapidité (quarry)")))
    winner = {"first": "pursuer", "second": "quarry", None: None}[test.winner]
    after = distance if winner is None else step(distance, winner == "pursuer")
    return ChaseRound(distance, after, winner, list(test.records))


# — vehicles —


@dataclass
class Driver:
    skill: int
    structure: int
    modifiers: tuple[Modifier, ...] = ()


@dataclass
class DriveResult:
    test: SkillTest
    accident: bool = False
    structure: int = 0  # after the round
    mistake: RollRecord | None = None  # the 1D10 of a recoverable mistake


@dataclass
class VehicleRound(ChaseRound):
    pursuer: DriveResult | None = None
    quarry: DriveResult | None = None
    notes: list[str] = field(default_factory=list)


def vehicle_round(
    dice: Dice, distance: str, pursuer: Driver, quarry: Driver, *, accidents: bool = True
) -> VehicleRound:
    """Both test their driving skill, the pursuer first (Cyborg § (IV) Déroulement).

    ``accidents``: a failure is an accident (the distance is then kept: the GM decides what
    the wreck means). Otherwise a failure is a recoverable mistake costing 1D10 structure
    (an accident if it reaches 0). Without an accident the better result gains a step: a
    success beats a mistake; between equals the lower d100 wins; equal rolls keep the
    distance.
    """
    step(distance, True, on_foot=False)
    one = _drive(dice, pursuer, accidents, Purpose("conduite (pursuer)"))
    two = _drive(dice, quarry, accidents, Purpose("conduite (quarry)"))
    records = [one.test.record] + ([one.mistake] if one.mistake else [])
    records += [two.test.record] + ([two.mistake] if two.mistake else [])
    result = VehicleRound(distance, distance, None, records, one, two)
    if one.accident or two.accident:
        result.notes.append(N_("Accident: every passenger rolls the vehicle's safety."))
        return result
    result.winner = _better(one.test, two.test)
    if result.winner is not None:
        result.distance = step(distance, result.winner == "pursuer", on_foot=False)
    return result


def _drive(dice: Dice, driver: Driver, accidents: bool, purpose: str) -> DriveResult:
    test = skill_test(dice, driver.skill, driver.modifiers, purpose=purpose)
    if test.success:
        return DriveResult(test, structure=driver.structure)
    return failed_drive(dice, test, driver.structure, accidents=accidents)


def failed_drive(dice: Dice, test: SkillTest, structure: int, *, accidents: bool
                 ) -> DriveResult:
    """What a failed driving test costs, in a chase round, a manoeuvre or a ram: "Un échec
    implique un accident" — unless the GM chose the milder reading ("on peut aussi considérer
    que l'échec ne conduit pas à un accident mais seulement à une fausse manœuvre
    récupérable"): 1D10 structure, an accident only if it reaches 0 (Cyborg § (IV))."""
    if accidents:
        return DriveResult(test, accident=True, structure=structure)
    mistake = roll("1d10", dice, purpose=Purpose("botched manoeuvre (structure)"))
    left = structure - mistake.total
    return DriveResult(test, accident=left <= 0, structure=left, mistake=mistake)


def _better(one: SkillTest, two: SkillTest) -> str | None:
    if one.success != two.success:
        return "pursuer" if one.success else "quarry"
    if one.record.total == two.record.total:
        return None
    return "pursuer" if one.record.total < two.record.total else "quarry"


def manoeuvre(
    dice: Dice, skill: int, *, tour_de_force: bool = False, alongside: bool = False,
    modifiers: Iterable[Modifier] = (),
) -> SkillTest:
    """A U-turn, tight bend, stunt or tour de force is an action of its own, a driving test
    (Cyborg § (IV) Déroulement). A tour de force needs the vehicles side by side; its success
    is the other vehicle's accident; a failure is the driver's, as any failed chase roll
    (``failed_drive``)."""
    if tour_de_force and not alongside:
        raise ChaseError("not_alongside")
    purpose = Purpose("tour de force" if tour_de_force else "manoeuvre")
    return skill_test(dice, skill, modifiers, purpose=purpose)


def ram(dice: Dice, skill: int, *, caught_up: bool, modifiers: Iterable[Modifier] = ()
        ) -> SkillTest:
    """« Heurter le poursuivi »: "au-delà de courte, le poursuivant peut se placer à côté du
    poursuivi si la voie est assez large, ou bien heurter le poursuivi" (Cyborg § (IV)
    Déroulement; the Dark Jet's leap onto the van in its Ambiance). Only a pursuer that has
    closed a short distance (``caught_up``) rams. The text gives no resolution: house, read
    like the tour de force, the text's other blow between vehicles — a driving test of the
    pursuer, whose success is the pursued vehicle's accident and whose failure is the
    rammer's own failed driving test (``failed_drive``)."""
    if not caught_up:
        raise ChaseError("not_caught_up")
    return skill_test(dice, skill, modifiers, purpose=Purpose("ramming the quarry"))


# — accidents —


@dataclass(frozen=True)
class PassengerHarm:
    saved: bool
    damage: int
    records: tuple[RollRecord, ...]


def accident(dice: Dice, vehicle: Vehicle | str, passengers: int) -> list[PassengerHarm]:
    """Each passenger rolls 1D6: at most the vehicle's safety, no damage; otherwise 1D100 / 4,
    rounded down, off santé — not through the damage table (Cyborg § (IV) Accidents)."""
    vehicle = vehicles()[vehicle] if isinstance(vehicle, str) else vehicle
    harmed = []
    for _ in range(passengers):
        safety = roll("1d6", dice, purpose=Purpose("safety"))
        saved = safety.total <= vehicle.safety
        safety = safety.with_target(vehicle.safety, "saved" if saved else "hurt")
        if saved:
            harmed.append(PassengerHarm(True, 0, (safety,)))
            continue
        damage = roll("1d100", dice, purpose=Purpose("accident (1D100/4)"))
        harmed.append(PassengerHarm(False, damage.total // 4, (safety, damage)))
    return harmed


# — shots between vehicles —


def shot_modifiers(*, driver: bool, shooter_moving: bool = True, target_moving: bool = True
                   ) -> tuple[Modifier, ...]:
    """From a moving vehicle at a moving one: −10 %; the driver −10 % more (Cyborg § (IV) Tirs,
    § (III) Table des malus)."""
    found = []
    if shooter_moving:
        found.append(SHOOTER_MOVING)
    if target_moving:
        found.append(TARGET_MOVING)
    if driver:
        found.append(DRIVER_MALUS)
    return tuple(found)


@dataclass
class StructureShot:
    test: SkillTest
    damage: int
    structure: int
    accident: bool


def shoot_structure(
    dice: Dice, weapon: Weapon, skill: int, vehicle: Vehicle | str, structure: int,
    modifiers: Iterable[Modifier] = (),
) -> StructureShot:
    """A shot at a vehicle: no dodge; the damage table with the vehicle's resistance comes off
    its structure, and 0 is an accident. A resistance-0 vehicle (motorbike…) has no structure
    to aim at: its riders are hit (Cyborg § (IV) Tirs)."""
    vehicle = vehicles()[vehicle] if isinstance(vehicle, str) else vehicle
    if vehicle.resistance == 0:
        raise ChaseError("no_structure", vehicle=vehicle.name)
    test = skill_test(dice, skill, modifiers,
                      purpose=Purpose("shot at {vehicle}", vehicle=vehicle.name))
    damage = damage_points(weapon.factor, vehicle.resistance, master=test.master) \
        if test.success else 0
    left = structure - damage
    return StructureShot(test, damage, left, test.success and left <= 0)


def shoot_passenger(
    dice: Dice, weapon: Weapon, skill: int, vehicle: Vehicle | str, passenger: Target,
    modifiers: Iterable[Modifier] = (),
) -> Attack:
    """A shot at someone inside: the vehicle's resistance adds to theirs (above 10 nothing gets
    through) and there is no dodge (Cyborg § (IV) Tirs)."""
    vehicle = vehicles()[vehicle] if isinstance(vehicle, str) else vehicle
    inside = Target(**{**passenger.__dict__, "can_dodge": False,
                       "resistance": passenger.resistance + vehicle.resistance})
    return attack(dice, weapon, skill, inside, modifiers)


# — the GM's own vehicles (per campaign) —

VEHICLE_SKILL = {"vehicle_ground": "conduite", "vehicle_air": "pilotage"}
VEHICLE_MEDIUM = {"vehicle_ground": "terrestre", "vehicle_air": "aerien"}


def custom_vehicles(content: Mapping[str, Any] | None) -> dict[str, Vehicle]:
    """The GM's ground and air vehicles ("ces deux tableaux ont vocation à être complétés …
    par des véhicules aériens", § (IV) Tableau des véhicules), keyed ``gm:<key>``. Air
    vehicles are flown with Pilotage (§ (II) 13), ground ones driven with Conduite unless the
    GM names a skill."""
    found: dict[str, Vehicle] = {}
    for kind, medium in VEHICLE_MEDIUM.items():
        for item in (content or {}).get(kind, []) or []:
            if not isinstance(item, dict) or not item.get("key"):
                continue
            try:
                resistance = min(10, max(0, int(item.get("resistance", 0))))
                structure = max(1, int(item.get("structure", 1)))
                safety = min(6, max(0, int(item.get("safety", 0))))
            except (TypeError, ValueError):
                continue
            skill = item.get("skill") if item.get("skill") in skills() else VEHICLE_SKILL[kind]
            key = "gm:" + str(item["key"])
            found[key] = Vehicle(key, str(item.get("name") or item["key"]), medium, skill,
                                 resistance, structure, safety)
    return found


def all_vehicles(custom: Mapping[str, Any] | None = None) -> dict[str, Vehicle]:
    """Both printed tables plus the GM's vehicles; ``custom`` is either a campaign's
    ``Content`` or the ``{key: Vehicle fields}`` a match copied at its start."""
    found = dict(vehicles())
    for key, value in (custom or {}).items():
        if isinstance(value, dict) and "medium" in value:
            found[key] = Vehicle(**value)
    if custom and any(kind in custom for kind in VEHICLE_MEDIUM):
        found.update(custom_vehicles(custom))
    return found
