"""The skills' fight effects, and the tentacle's grip.

000_e34df4ff7a8d792c.txt § 2-3 Compétences (and § 2-2 Organes / Tentacule et pseudopode).
Already applied elsewhere: Gros tas, Lobotomie's "no counter" (``combat.follow_up``), Mimétisme
(``combat.shoot``), Double cœur, Multi-gélatine and Lobotomie's cap (``body.validate``), Coureur
effréné and Faire pitié (``arena``), Chouchou du public, Greffon and Voleur (``campaign``).
``SKILL_EFFECTS`` maps every skill to the function (or module) that applies it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from app.rules.dice import Dice, Modifier, RollRecord
from app.rules.mutatior.body import ORGANS_PER_LIMB, Limb, Mutant
from app.rules.mutatior.combat import (
    ATTACKER,
    ORGAN_ORDER,
    Clash,
    FollowUp,
    IllegalMelee,
    PumpRoll,
    _roll,
    pump_roll,
)
from app.rules.mutatior.content import SKILLS, rule
from app.rules.purposes import Purpose
from app.rules.wording import is_singular

R_SKILLS = rule("2-3 Compétences")
R_TENTACLE = rule("2-2 Organes / Tentacule et pseudopode")
HEAD_NAMES = ("tête", "tete", "head")


class IllegalSkill(IllegalMelee):
    """A skill used where the text does not allow it."""

    templates_en: ClassVar[dict[str, str]] = {
        **IllegalMelee.templates_en,
        "missing_skill": "{mutant} does not have the skill {skill}",
        "limb_gripped": "the limb '{limb}' is held by a tentacle and cannot attack",
        "no_room": "no room for {count} {organ} in the limb '{limb}'",
        "not_adjacent": "the limbs '{source}' and '{target}' are not connected",
        "nothing_to_move": "the limb '{limb}' holds no {organ} to move",
        "muscles_stay": "muscles cannot be moved",
        "not_a_corpse": "{mutant} is not dead",
    }
    templates_fr: ClassVar[dict[str, str]] = {
        **IllegalMelee.templates_fr,
        "missing_skill": "{mutant} n'a pas la compétence {skill}",
        "limb_gripped": "le membre « {limb} » est tenu par un tentacule et ne peut attaquer",
        "no_room": "pas de place pour {count} {organ} dans le membre « {limb} »",
        "not_adjacent": "les membres « {source} » et « {target} » ne se touchent pas",
        "nothing_to_move": "le membre « {limb} » n'a pas de {organ} à déplacer",
        "muscles_stay": "les muscles ne se déplacent pas",
        "not_a_corpse": "{mutant} n'est pas mort",
    }

    def _format_fields(self, lang: str) -> dict[str, Any]:
        """« 1 lobe », « 3 lobes »: the organ in the form its count wants."""
        fields = super()._format_fields(lang)
        if "count" in fields and is_singular(fields["count"], lang):
            fields["organ"] = str(fields.get("organ", "")).removesuffix("s")
        return fields


def _require(mutant: Mutant, skill: str) -> None:
    if not mutant.has(skill):
        raise IllegalSkill("missing_skill", mutant=mutant.name, skill=SKILLS[skill].name)


# — Afflux sanguin —

@dataclass(frozen=True)
class Surge:
    roll: PumpRoll
    modifier: Modifier | None  # to add to the attack (``clash(attack_modifiers=...)``)


def afflux_sanguin(mutant: Mutant, limb_name: str, dice: Dice,
                   pump_mods: Sequence[Modifier] = ()) -> Surge:
    """§ 2-3 Afflux sanguin: on a successful pump roll the limb attacks with its biomoteurs
    plus its muscles. Rolled before the attack; a failure only costs the roll."""
    _require(mutant, "afflux_sanguin")
    roll = pump_roll(mutant, dice, modifiers=pump_mods, purpose="afflux sanguin")
    limb = mutant.limb(limb_name)
    bonus = Modifier(limb.live_biomoteurs, "afflux sanguin") if roll.success else None
    return Surge(roll, bonus)


# — Moving organs (Cerveau mobile in a fight; lobes and biomoteurs between fights) —

def room_for(mutant: Mutant, limb: Limb, organ: str) -> int:
    """How many more organs of that kind fit (§ 2-1: 8 per limb; the trunk's extra room is
    for muscles only). Lost organs keep their place: a wound is not room."""
    if limb.trunk and organ != "muscles":
        return ORGANS_PER_LIMB - limb.biomoteurs - limb.lobes
    limit = ORGANS_PER_LIMB + (mutant.attached if limb.trunk else 0)
    return limit - limb.organs


def move_organs(mutant: Mutant, organ: str, source: str, target: str) -> Mutant:
    """Move every living organ of that kind from one limb to another, all together.

    Muscles never move (§ 3-2 Soins). The lost ones stay where they were lost, as scars.
    """
    if organ == "muscles":
        raise IllegalSkill("muscles_stay")
    if organ not in ORGAN_ORDER:
        raise ValueError(organ)
    src, dst = mutant.limb(source), mutant.limb(target)
    if dst.dead:
        raise IllegalSkill("limb_dead", limb=target)
    count = getattr(src, f"live_{organ}")
    if count <= 0:
        raise IllegalSkill("nothing_to_move", limb=source, organ=organ)
    if room_for(mutant, dst, organ) < count:
        raise IllegalSkill("no_room", count=count, organ=organ, limb=target)
    src = replace(src, **{organ: getattr(src, organ) - count})
    dst = replace(dst, **{organ: getattr(dst, organ) + count})
    return mutant.with_limb(src).with_limb(dst)


def cerveau_mobile(mutant: Mutant, source: str, target: str) -> Mutant:
    """§ 2-3 Cerveau mobile: once per turn, on its initiative, all the lobes move to a
    connected limb with room. Every appendage hangs on the trunk, so "connected" is the trunk
    and any appendage, either way."""
    _require(mutant, "cerveau_mobile")
    if not (mutant.limb(source).trunk or mutant.limb(target).trunk) or source == target:
        raise IllegalSkill("not_adjacent", source=source, target=target)
    return move_organs(mutant, "lobes", source, target)


# — Regrowth: Gélatine expansive, Régénération, Charognard —

def _regrow(mutant: Mutant, organ: str, limbs: Sequence[Limb], count: int = 1) -> Mutant:
    for limb in limbs:
        if count <= 0:
            break
        lost = getattr(limb, f"lost_{organ}")
        back = min(lost, count)
        if back:
            mutant = mutant.with_limb(replace(limb, **{f"lost_{organ}": lost - back}))
            count -= back
    return mutant


def gelatine_expansive(mutant: Mutant) -> Mutant:
    """§ 2-3 Gélatine expansive: one lost lobe back per turn, on its initiative (in body
    order, in a limb that is not dead: a dead limb grows nothing back)."""
    _require(mutant, "gelatine_expansive")
    return _regrow(mutant, "lobes", mutant.living_limbs)


def regeneration(mutant: Mutant) -> Mutant:
    """§ 2-3 Régénération: one lost muscle back in the trunk per turn, on its activation."""
    _require(mutant, "regeneration")
    trunk = mutant.trunk
    return _regrow(mutant, "muscles", (trunk,)) if trunk else mutant


def charognard(eater: Mutant, corpse: Mutant) -> tuple[Mutant, int]:
    """§ 2-3 Charognard: doing nothing else this turn, it devours a dead mutant and regains one
    lost biomoteur per (living) biomoteur of the corpse, never beyond its built pump.
    Returns the eater and the biomoteurs regained; a corpse is eaten once (the caller's)."""
    _require(eater, "charognard")
    if not corpse.dead:
        raise IllegalSkill("not_a_corpse", mutant=corpse.name)
    before = eater.live_pump
    fed = _regrow(eater, "biomoteurs", eater.limbs, corpse.live_pump)
    return fed, fed.live_pump - before


# — Coquet —

@dataclass(frozen=True)
class Vanity:
    record: RollRecord
    sponge: bool  # it throws in the sponge (``arena.throw_sponge``); otherwise it is angry


# "+2 à tous ses jets de pompe": on its pump rolls' dice from then on, like the heat's "+1 à
# leurs jets de pompe" (a pump roll succeeds low: an angry mutant wastes its breath).
ANGRY = Modifier(2, Purpose("{skill}, angry", skill="coquet"))


def is_head(limb: Limb) -> bool:
    """The head is the limb its owner named so (the text's "touchée à la tête")."""
    return limb.name.strip().casefold().startswith(HEAD_NAMES)


def coquet(mutant: Mutant, dice: Dice) -> Vanity:
    """§ 2-3 Coquet, hit in the head: 1d6; a 6 or more than its brain and it throws in the
    sponge, otherwise it gets angry: +2 on the dice of all its pump rolls (``ANGRY``)."""
    _require(mutant, "coquet")
    record = _roll(dice, f"coquet {mutant.name}", 1)
    sponge = record.total == 6 or record.total > mutant.live_brain
    return Vanity(record.with_target(mutant.live_brain, "éponge" if sponge else "énervé"),
                  sponge)


# — Instinct vicieux —

@dataclass(frozen=True)
class Instinct:
    record: RollRecord
    success: bool
    has_biomoteurs: bool | None  # the answer, when it succeeds


def instinct_vicieux(mutant: Mutant, enemy: Mutant, limb_name: str, dice: Dice) -> Instinct:
    """§ 2-3 Instinct vicieux: on activation 2d6 under its brain (strictly) and the enemy limb
    it sees must say whether it holds biomoteurs (living ones)."""
    _require(mutant, "instinct_vicieux")
    record = _roll(dice, f"instinct vicieux {mutant.name}", 2)
    success = record.total < mutant.live_brain
    answer = enemy.limb(limb_name).live_biomoteurs > 0 if success else None
    return Instinct(record.with_target(mutant.live_brain, "réussi" if success else "raté"),
                    success, answer)


# — Lobotomie —

def lobotomie_frenzy(mutant: Mutant, dice: Dice) -> tuple[Mutant, RollRecord | None]:
    """§ 2-3 Lobotomie: when its lobes are all lost it lives on for 1d6 turns, attacking what
    touches it. Call after damage; a mutant dead of another cause stays dead."""
    if (not mutant.has("lobotomie") or mutant.live_brain > 0 or mutant.frenzy_turns is not None
            or set(mutant.death_reasons) - {"no_lobe"}):
        return mutant, None
    record = _roll(dice, f"lobotomie {mutant.name}", 1)
    return replace(mutant, frenzy_turns=record.total), record


def lobotomie_tick(mutant: Mutant, *, isolated: bool) -> Mutant:
    """One of its turns served; isolated (nothing in contact), it dies at once."""
    if mutant.frenzy_turns is None:
        return mutant
    left = 0 if isolated else max(0, mutant.frenzy_turns - 1)
    return replace(mutant, frenzy_turns=left)


def frenzy_targets(enemies: Sequence[str], friends: Sequence[str]) -> tuple[str, ...]:
    """Whom the frenzied mutant must attack: the enemies in contact first, else its friends."""
    return tuple(enemies) or tuple(friends)


# — Obsédé —

def obsede(step: FollowUp, result: Clash, attacker: Mutant) -> FollowUp:
    """§ 2-3 Obsédé: its second attack in a row must use the same limb on the same limb
    (this overrides "another limb on another limb" and the one-attack-per-limb rule)."""
    if step.kind != "second_attack" or not attacker.has("obsede"):
        return step
    return replace(step, not_with=None, not_at=None, only_with=result.attack_limb,
                   only_at=result.target_limb)


# — Tentacle grip (§ 2-2 Organes / Tentacule et pseudopode) —

@dataclass(frozen=True)
class Grip:
    holder: str
    tentacle: str
    victim: str
    limb: str


def grip(result: Clash, attacker: Mutant) -> Grip | None:
    """A tentacle whose attack succeeds holds the limb it hit: that limb can no longer
    attack."""
    if result.winner != ATTACKER or not attacker.limb(result.attack_limb).tentacle:
        return None
    return Grip(result.attacker, result.attack_limb, result.defender, result.target_limb)


def grip_holds(held: Grip, holder: Mutant, victim: Mutant) -> bool:
    """The grip lasts while both live, the tentacle has muscle and the held limb lives."""
    tentacle = holder.limb(held.tentacle)
    return not (holder.dead or victim.dead or tentacle.live_muscles <= 0
                or victim.limb(held.limb).dead)


def check_not_gripped(grips: Sequence[Grip], mutant: Mutant, limb_name: str) -> None:
    if any(g.victim == mutant.name and g.limb == limb_name for g in grips):
        raise IllegalSkill("limb_gripped", limb=limb_name)


def grip_drain(held: Grip, victim: Mutant) -> Mutant:
    """At each initiative of the tentacle's owner the held limb loses one organ (muscles, then
    biomoteurs, then lobes; armour does not help: it is not a blow)."""
    limb = victim.limb(held.limb)
    for organ in ORGAN_ORDER:
        if getattr(limb, f"live_{organ}") > 0:
            lost = getattr(limb, f"lost_{organ}") + 1
            return victim.with_limb(replace(limb, **{f"lost_{organ}": lost}))
    return victim


SKILL_EFFECTS: dict[str, str] = {
    "afflux_sanguin": "skills.afflux_sanguin",
    "cerveau_mobile": "skills.cerveau_mobile",
    "charognard": "skills.charognard",
    "chouchou_du_public": "campaign.chouchou_du_public",
    "coquet": "skills.coquet",
    "coureur_effrene": "arena.move",
    "double_coeur": "body.validate",
    "faire_pitie": "arena.throw_sponge",
    "gelatine_expansive": "skills.gelatine_expansive",
    "greffon": "campaign.graft",
    "gros_tas": "combat.follow_up",
    "instinct_vicieux": "skills.instinct_vicieux",
    "lobotomie": "skills.lobotomie_frenzy",
    "mimetisme": "combat.shoot",
    "obsede": "skills.obsede",
    "multi_gelatine": "body.validate",
    "regeneration": "skills.regeneration",
    "voleur": "campaign.biomass_gains",
    "resistance_froid": "arena.movement_factor",
    "milieux_humides": "arena.initiative_modifiers",
}
