"""Combat: initiative, attacks and Esquive/Parade, punches, bursts and magazines.

Cyborg § (III) Combats. An attack is a skill test (``checks.skill_test``) against the weapon's
skill moved by the modifier tables (``data/combat.toml``); a hit lets the target roll
Esquive/Parade; a hit that is not dodged costs the damage table's cell (``damage.py``), doubled
by the offensive master stroke; santé at 0 or less rolls the wound. Every die is a
``RollRecord`` in the result, in rolling order.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any, ClassVar

from app.rules.cyborg.checks import SkillTest, skill_test
from app.rules.cyborg.content import DATA, ContentError, Weapon, check_source, weapons
from app.rules.cyborg.damage import Wound, damage_points, wound
from app.rules.cyborg.sheet import punch_factor
from app.rules.dice import Dice, Modifier, RollRecord
from app.rules.errors import RulesError
from app.rules.notation import roll
from app.rules.purposes import Purpose
from app.rules.system import N_

RULE_INITIATIVE = "Cyborg § (III) Combats / Déroulement"
RULE_ATTACK = "Cyborg § (III) Combats / Déroulement"
RULE_MODIFIERS = "Cyborg § (III) Combats / Table des malus"
RULE_BURST = "Cyborg § (III) Combats / Catalogue des armes (armes automatiques)"
BURST_FROM = 3  # "tirer plus de 2 munitions par tour est un tir en rafale"
MAX_TIE_ROLLS = 1000


class CombatError(RulesError):
    """An action the combat rules refuse (a caller's mistake, shown to the player)."""

    code = "combat_error"
    templates_en: ClassVar[dict[str, str]] = {
        "combat_error": "the combat rules refuse this",
        "unknown_modifier": "unknown modifier {key}",
        "modifier_not_here": "{key} is not a modifier for this attack",
        "milder_than_printed": "{key} is at least {value} %",
        "too_many_shots": "{weapon} fires {limit:shot|shots} a turn at most",
        "magazine_empty": "only {left:round|rounds} left in the magazine",
        "no_shots": "at least one shot",
        "no_groups": "initiative needs at least one group",
    }
    templates_fr: ClassVar[dict[str, str]] = {
        "combat_error": "les règles de combat refusent ceci",
        "unknown_modifier": "modificateur inconnu : {key}",
        "modifier_not_here": "{key} ne s'applique pas à cette attaque",
        "milder_than_printed": "{key} vaut au moins {value} %",
        "too_many_shots": "{weapon} tire au plus {limit:coup|coups} par tour",
        "magazine_empty": "il ne reste que {left:munition|munitions} dans le chargeur",
        "no_shots": "au moins un tir",
        "no_groups": "l'initiative demande au moins un groupe",
    }


# — initiative —


@dataclass(frozen=True)
class Initiative:
    order: tuple[str, ...]  # group names, the first to act first
    totals: dict[str, int]  # summed rapidité of each group
    surprise: str | None
    records: tuple[RollRecord, ...]  # tie-breaks only


def initiative(
    dice: Dice, groups: Mapping[str, Iterable[int]], *, surprise: str | None = None
) -> Initiative:
    """Each group adds its members' rapidité; the highest acts first, unless a group attacks
    by surprise, which then acts first (Cyborg § (III) Combats / Déroulement).

    The text has no tie rule: tied groups each roll 1D20, the highest first, rolling again
    while still tied (docs/rules-notes.md).
    """
    totals = {name: sum(values) for name, values in groups.items()}
    if not totals:
        raise CombatError("no_groups")
    if surprise is not None and surprise not in totals:
        raise ValueError(f"unknown group {surprise!r}")
    records: list[RollRecord] = []
    ranked: list[str] = []
    for value in sorted(set(totals.values()), reverse=True):
        tied = [name for name in totals if totals[name] == value]
        ranked += _break_tie(dice, tied, records)
    if surprise is not None:
        ranked.remove(surprise)
        ranked.insert(0, surprise)
    return Initiative(tuple(ranked), totals, surprise, tuple(records))


def _break_tie(dice: Dice, tied: list[str], records: list[RollRecord], depth: int = 0
               ) -> list[str]:
    if len(tied) == 1:
        return tied
    if depth >= MAX_TIE_ROLLS:
        raise ValueError("the tie-break never ended")
    rolls = {name: roll("1d20", dice, purpose=f"initiative ({name})") for name in tied}
    records += rolls.values()
    ordered: list[str] = []
    for face in sorted({record.total for record in rolls.values()}, reverse=True):
        # Groups still tied on the die roll again among themselves, in their new rank.
        same = [name for name in tied if rolls[name].total == face]
        ordered += _break_tie(dice, same, records, depth + 1)
    return ordered


# — modifiers —


@dataclass(frozen=True)
class ModifierEntry:
    key: str
    table: str  # "melee" or "ranged"
    label: str
    value: int
    at_least: bool = False


@cache
def modifier_table() -> dict[str, ModifierEntry]:
    with (DATA / "combat.toml").open("rb") as handle:
        entries = tomllib.load(handle)["modifier"]
    found = {}
    for entry in entries:
        check_source(entry, f"combat.toml {entry.get('key')}")
        if entry["table"] not in ("melee", "ranged"):
            raise ContentError(f"combat.toml {entry['key']}: table must be melee or ranged")
        found[entry["key"]] = ModifierEntry(entry["key"], entry["table"], entry["label"],
                                            entry["value"], entry.get("at_least", False))
    return found


def attack_modifiers(kind: str, chosen: Mapping[str, int | None]) -> tuple[Modifier, ...]:
    """The GM's checked modifiers as ``Modifier``s (Cyborg § (III) Combats / Table des malus).

    ``chosen`` maps a key to ``None`` (the printed value) or a harsher value for the "(ou
    plus)" entries. A ranged attack may take melee entries; a melee attack only melee ones.
    The burst bonus is the burst rule's, not the GM's.
    """
    found = []
    for key, value in chosen.items():
        entry = modifier_table().get(key)
        if entry is None:
            raise CombatError("unknown_modifier", key=key)
        if (kind == "melee" and entry.table != "melee") or key == "rafale":
            raise CombatError("modifier_not_here", key=key)
        if value is None or value == entry.value:
            value = entry.value
        elif not entry.at_least or value > entry.value:
            raise CombatError("milder_than_printed", key=key, value=entry.value)
        found.append(Modifier(value, entry.label))
    return tuple(found)


# — reach —

RULE_REACH = "Cyborg § (III) Combats / Déroulement (combat au corps à corps)"
# A melee blow is a "combat au corps à corps": the fighters touch. The text gives no distance
# (house, docs/rules-notes.md): between the two figures' centres, on a board of squares (a
# square is a metre) the eight squares around — 1.5 squares reach the diagonal (1.41), not
# two squares away —; on a board in centimetres two 25–30 mm bases touching (3 cm); in
# inches 1". The GM may allow a blow from further (a whip, a long pole, a leap).
MELEE_REACH = {"sq": 1.5, "cm": 3.0, "in": 1.0}


def melee_reach(unit: str) -> float:
    """How far a melee attack reaches, in the board's unit (squares when unknown)."""
    return MELEE_REACH.get(unit, MELEE_REACH["sq"])


def in_reach(distance: float, unit: str) -> bool:
    """A melee attack reaches a target ``distance`` board units away (centre to centre)."""
    return distance <= melee_reach(unit) + 1e-9


# — attacks —


def punch(force: int) -> Weapon:
    """A fist: Arme blanche, broyage, factor by force (Cyborg § (III) Combats / Déroulement)."""
    return Weapon(key="poing", name="Poing", kind="melee", skill="arme_blanche",
                  damage_type="broyage", factor=punch_factor(force))


@dataclass
class Target:
    """What the defender brings to an attack. ``can_dodge`` is False for a melee attacker
    unbalanced by a defensive master stroke last turn, or when the rules forbid a dodge
    (shots between vehicles)."""

    esquive: int
    resistance: int
    sante: int
    constitution: int
    can_dodge: bool = True
    lost_limbs: tuple[str, ...] = ()
    humanoid: bool = True


@dataclass
class Attack:
    weapon: str
    attack: SkillTest
    defence: SkillTest | None = None
    damage: int = 0
    sante: int = 0  # the target's santé after the attack
    wound: Wound | None = None
    attacker_unbalanced: bool = False  # no Esquive/Parade for the attacker next turn
    notes: list[str] = field(default_factory=list)

    @property
    def hit(self) -> bool:
        return self.attack.success and not (self.defence and self.defence.success)

    @property
    def records(self) -> list[RollRecord]:
        found = [self.attack.record]
        if self.defence is not None:
            found.append(self.defence.record)
        return found + (self.wound.records if self.wound else [])

    def to_dict(self) -> dict[str, Any]:
        return {"weapon": self.weapon, "hit": self.hit, "damage": self.damage,
                "sante": self.sante, "attacker_unbalanced": self.attacker_unbalanced,
                "wound": self.wound.to_dict() if self.wound else None, "notes": self.notes,
                "rolls": [record.to_dict() for record in self.records]}


def attack(
    dice: Dice,
    weapon: Weapon,
    skill: int,
    target: Target,
    modifiers: Iterable[Modifier] = (),
    *,
    whole_body: bool = False,
) -> Attack:
    """One attack, its dodge, its damage (Cyborg § (III) Combats / Déroulement).

    The d100 at most the skill (after modifiers) hits; the target then rolls Esquive/Parade
    the same way and a success stops the attack. A hit's units die at 0 doubles the damage
    (coup de maître); a successful dodge's units die at 0 unbalances a *melee* attacker, who
    cannot dodge next turn (coup de maître défensif). ``whole_body``: a broyage that crushes
    the whole target (or the weapon's ``crushes``) kills at 0 santé.
    """
    test = skill_test(dice, skill, modifiers,
                      purpose=Purpose("attack ({weapon})", weapon=weapon.name))
    result = Attack(weapon.key, test, sante=target.sante)
    if not test.success:
        return result
    if target.can_dodge:
        result.defence = skill_test(dice, target.esquive, purpose=Purpose("dodge/parry"))
        if result.defence.success:
            if result.defence.master and weapon.kind == "melee":
                result.attacker_unbalanced = True
                result.notes.append(N_("Defensive master stroke: the attacker cannot dodge "
                                       "next turn."))
            return result
    if test.master:
        result.notes.append(N_("Master stroke: double damage."))
    _damage(dice, result, weapon, target, whole_body or weapon.crushes)
    return result


def _damage(dice: Dice, result: Attack, weapon: Weapon, target: Target,
            whole_body: bool) -> None:
    """Santé 0 or less after a damaging hit rolls the wound — every time, as the text's
    re-localisation of an amputee implies (docs/rules-notes.md)."""
    result.damage = damage_points(weapon.factor, target.resistance, master=result.attack.master)
    result.sante = target.sante - result.damage
    if result.damage and result.sante <= 0:
        result.wound = wound(dice, weapon.damage_type, constitution=target.constitution,
                             lost_limbs=target.lost_limbs, humanoid=target.humanoid,
                             localised=weapon.localised_burn, knockout=weapon.knockout,
                             whole_body=whole_body)


# — firing: magazines and bursts —


@dataclass
class Volley:
    weapon: str
    burst: bool
    shots: list[Attack]
    magazine: int | None  # rounds left; None for weapons without a magazine

    @property
    def records(self) -> list[RollRecord]:
        return [record for shot in self.shots for record in shot.records]

    @property
    def sante(self) -> int | None:
        return self.shots[-1].sante if self.shots else None


def fire(
    dice: Dice,
    weapon: Weapon | str,
    skill: int,
    target: Target,
    *,
    shots: int = 1,
    loaded: int | None = None,
    modifiers: Iterable[Modifier] = (),
    whole_body: bool = False,
) -> Volley:
    """Fire ``shots`` rounds this turn (Cyborg § (III) Combats / Catalogue des armes).

    At most the weapon's shots per turn ("c/t") and the rounds ``loaded`` (the magazine is
    full when not given). An automatic weapon (5 a turn) firing 3 or more fires a burst: +5 %
    on each round, and each round is its own attack roll ("le jet d'attaque doit être tiré
    pour chaque munition"), its own dodge and its own damage, santé carried from one to the
    next.
    """
    weapon = weapons()[weapon] if isinstance(weapon, str) else weapon
    limit = weapon.shots_per_turn or 1
    if shots < 1:
        raise CombatError("no_shots")
    if shots > limit:
        raise CombatError("too_many_shots", weapon=weapon.name, limit=limit)
    left = weapon.magazine if loaded is None else loaded
    if left is not None and shots > left:
        raise CombatError("magazine_empty", left=left)
    burst = weapon.automatic and shots >= BURST_FROM
    bonus = (Modifier(modifier_table()["rafale"].value, modifier_table()["rafale"].label),)
    modifiers = tuple(modifiers) + (bonus if burst else ())
    volley = Volley(weapon.key, burst, [], None if left is None else left - shots)
    sante = target.sante
    for _ in range(shots):
        shot_target = Target(**{**target.__dict__, "sante": sante})
        shot = attack(dice, weapon, skill, shot_target, modifiers, whole_body=whole_body)
        volley.shots.append(shot)
        sante = shot.sante
    return volley


def reload(weapon: Weapon | str) -> int | None:
    """A full magazine (None: the weapon has none). Reloading is one action of the turn."""
    weapon = weapons()[weapon] if isinstance(weapon, str) else weapon
    return weapon.magazine
