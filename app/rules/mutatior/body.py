"""A mutant's body: limbs full of organs, what it weighs and what it can do.

000_e34df4ff7a8d792c.txt § 2-1 Corps and § 2-2 Organes: a body has 2 to 10 limbs, one of them
the trunk; each limb holds up to 8 organs (muscles, biomoteurs, lobes), the trunk one more
muscle per attached limb. The sums make the brain (lobes), the pump (biomoteurs) and the
muscle mass. Bodies are immutable: a wound is a new ``Mutant`` with more organs ``lost_*``,
so the built figures (and the maximum a regrowth can reach) are never forgotten. A mutant
carries the implant catalogue its limbs are read with (``content.catalogue``: the seed's and
house items plus its campaign's own), so what an implant weighs, arms or protects never depends
on anything but the arguments.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from app.rules.mutatior.content import IMPLANTS, ORGAN_WEIGHTS, SKILLS, Implant, rule
from app.rules.system import N_, Problem

MIN_LIMBS, MAX_LIMBS = 2, 10
ORGANS_PER_LIMB = 8
MAX_DEFENSIVE = 3
MOVE_FACTOR = 2  # cm of movement per pump point (§ 1-2 Mouvement)
CATEGORIES_T = (1, 2, 3)  # weight categories in tonnes (§ 3 Campagne)
TEAM_MIN, TEAM_MAX = 3, 10

R_BODY = rule("2-1 Corps")
R_ORGANS = rule("2-2 Organes")
R_SPECIAL = rule("2-2 Organes / Organes spéciaux")
R_TENTACLE = rule("2-2 Organes / Tentacule et pseudopode")
R_SKILLS = rule("2-3 Compétences")
R_TEAM = rule("3- Campagne (catégories de combat)")


@dataclass(frozen=True)
class Limb:
    """One limb: its built organs, the ones it has lost, and what is grafted on it."""

    name: str
    muscles: int = 0
    biomoteurs: int = 0
    lobes: int = 0
    trunk: bool = False
    tentacle: bool = False
    offensive: str | None = None
    defensive: tuple[str, ...] = ()
    special: str | None = None
    lost_muscles: int = 0
    lost_biomoteurs: int = 0
    lost_lobes: int = 0

    @property
    def live_muscles(self) -> int:
        return self.muscles - self.lost_muscles

    @property
    def live_biomoteurs(self) -> int:
        return self.biomoteurs - self.lost_biomoteurs

    @property
    def live_lobes(self) -> int:
        return self.lobes - self.lost_lobes

    @property
    def organs(self) -> int:
        """Organs as built (what the 8-organ limit counts)."""
        return self.muscles + self.biomoteurs + self.lobes

    @property
    def live_organs(self) -> int:
        return self.live_muscles + self.live_biomoteurs + self.live_lobes

    @property
    def lost_organs(self) -> int:
        return self.lost_muscles + self.lost_biomoteurs + self.lost_lobes

    @property
    def dead(self) -> bool:
        """§ 1-5 Dégâts: a limb emptied of organs is dead (and must be announced)."""
        return self.live_organs <= 0

    def implant_keys(self) -> tuple[str, ...]:
        return tuple(k for k in (self.offensive, *self.defensive, self.special) if k)


def limb_biomass(limb: Limb, catalogue: Mapping[str, Implant] = IMPLANTS, *,
                 live: bool = True) -> int:
    """A limb's weight: its (living, or built) organs and its implants, read in
    ``catalogue``."""
    prefix = "live_" if live else ""
    organs = sum(getattr(limb, f"{prefix}{organ}s") * weight
                 for organ, weight in ORGAN_WEIGHTS.items())
    return organs + sum(found.weight_kg for key in limb.implant_keys()
                        if (found := catalogue.get(key)))


@dataclass(frozen=True)
class Mutant:
    name: str
    limbs: tuple[Limb, ...]
    skills: tuple[str, ...] = ()
    xp: int = 0
    fame: int = 0  # popularity won beyond the skills (a cheerleader killed, § 3-3 événements)
    frenzy_turns: int | None = None  # Lobotomie: turns left to live without lobes (§ 2-3)
    # The implants its limbs name, by key (``content.catalogue``): not part of the body, so
    # two mutants with the same body are equal whatever catalogue read them.
    catalogue: Mapping[str, Implant] = field(default_factory=lambda: IMPLANTS, kw_only=True,
                                             compare=False, repr=False)

    def limb(self, name: str) -> Limb:
        for limb in self.limbs:
            if limb.name == name:
                return limb
        raise KeyError(name)

    def with_limb(self, limb: Limb) -> Mutant:
        """The same mutant with the limb of that name replaced."""
        limbs = tuple(limb if old.name == limb.name else old for old in self.limbs)
        return replace(self, limbs=limbs)

    def has(self, skill: str) -> bool:
        return skill in self.skills

    # — implants (looked up in the mutant's catalogue) —
    def implant(self, key: str | None) -> Implant | None:
        return self.catalogue.get(key) if key else None

    def armour(self, limb: Limb) -> int:
        """§ 1-5 Dégâts, 1: the limb's defensive implants, taken off the damage."""
        return sum(found.armour for key in limb.defensive if (found := self.implant(key)))

    def attack_bonus(self, limb: Limb) -> int:
        """The limb's offensive implant adds to its attack (the horn's +1, § Exemple)."""
        found = self.implant(limb.offensive)
        return found.attack if found else 0

    def limb_biomass(self, limb: Limb, *, live: bool = True) -> int:
        return limb_biomass(limb, self.catalogue, live=live)

    @property
    def trunk(self) -> Limb | None:
        return next((limb for limb in self.limbs if limb.trunk), None)

    @property
    def attached(self) -> int:
        """Limbs attached to the trunk: every limb but the trunk."""
        return sum(1 for limb in self.limbs if not limb.trunk)

    # — built figures (the sheet) —
    @property
    def brain(self) -> int:
        return sum(limb.lobes for limb in self.limbs)

    @property
    def pump(self) -> int:
        return sum(limb.biomoteurs for limb in self.limbs)

    @property
    def muscle_count(self) -> int:
        return sum(limb.muscles for limb in self.limbs)

    @property
    def muscle_mass_kg(self) -> int:
        return self.muscle_count * ORGAN_WEIGHTS["muscle"]

    @property
    def biomass(self) -> int:
        """§ Terminologie: the creature's total weight — organs plus grafted implants — as
        built (the sheet's Biomasse, the team's weight category)."""
        return sum(self.limb_biomass(limb, live=False) for limb in self.limbs)

    @property
    def popularity(self) -> int:
        """§ 3-2 Fin du carnage: popularity is the number of the mutant's skills (plus ``fame``)."""
        return len(self.skills) + self.fame

    # — live figures (during a fight) —
    @property
    def live_brain(self) -> int:
        return sum(limb.live_lobes for limb in self.limbs)

    @property
    def live_pump(self) -> int:
        return sum(limb.live_biomoteurs for limb in self.limbs)

    @property
    def live_muscles(self) -> int:
        return sum(limb.live_muscles for limb in self.limbs)

    @property
    def live_muscle_mass_kg(self) -> int:
        return self.live_muscles * ORGAN_WEIGHTS["muscle"]

    @property
    def live_biomass(self) -> int:
        """What the creature weighs now: its living organs and its implants (a lost organ is
        lost biomass, § 3-2 Soins)."""
        return sum(self.limb_biomass(limb) for limb in self.limbs)

    @property
    def living_limbs(self) -> tuple[Limb, ...]:
        return tuple(limb for limb in self.limbs if not limb.dead)

    @property
    def dead_limbs(self) -> int:
        return sum(1 for limb in self.limbs if limb.dead)

    @property
    def lost_organs(self) -> int:
        return sum(limb.lost_organs for limb in self.limbs)

    def movement_cm(self, factor: float = MOVE_FACTOR) -> float:
        """§ 1-2 Mouvement: pump × 2 cm (× 1.5 in snow); a wounded pump moves less."""
        moved = self.live_pump * factor
        return int(moved) if float(moved).is_integer() else moved

    @cached_property  # a Mutant does not change; a throw asks a body several times
    def death_reasons(self) -> tuple[str, ...]:
        """§ 1-5 Dégâts: dead without biomoteur, muscle or lobe, or with an empty trunk."""
        reasons = []
        if self.live_pump <= 0:
            reasons.append("no_biomoteur")
        if self.live_muscles <= 0:
            reasons.append("no_muscle")
        if self.live_brain <= 0 and not (self.frenzy_turns or 0) > 0:
            reasons.append("no_lobe")  # a lobotomised mutant in frenzy lives on (§ 2-3)
        trunk = self.trunk
        if trunk is None or trunk.dead:
            reasons.append("trunk_empty")
        return tuple(reasons)

    @property
    def dead(self) -> bool:
        return bool(self.death_reasons)


def derived(mutant: Mutant) -> dict[str, Any]:
    """The sheet's computed boxes (§ Feuilles de mutants)."""
    return {
        "biomass": mutant.biomass,
        "brain": mutant.brain,
        "pump": mutant.pump,
        "muscle_mass_kg": mutant.muscle_mass_kg,
        "initiative_bonus": mutant.brain,
        "movement_cm": mutant.pump * MOVE_FACTOR,
        "popularity": mutant.popularity,
        "xp": mutant.xp,
    }


# — validation —

def validate(mutant: Mutant) -> list[Problem]:
    """Every building rule the mutant breaks, each citing its seed section."""
    problems = _body_problems(mutant)
    for index, limb in enumerate(mutant.limbs):
        problems += _limb_problems(mutant, index, limb)
    problems += _spread_problems(mutant)
    problems += _skill_problems(mutant)
    if mutant.xp < 0:
        problems.append(Problem("xp", N_("Experience cannot be negative."),
                                rule("3-2 Fin du carnage")))
    return problems


def _body_problems(mutant: Mutant) -> list[Problem]:
    problems = []
    if not mutant.name.strip():
        problems.append(Problem("name", N_("A mutant needs a name."), rule("0- Généralités")))
    if not MIN_LIMBS <= len(mutant.limbs) <= MAX_LIMBS:
        problems.append(Problem("limbs", N_("A body has %(low)s to %(high)s limbs."), R_BODY,
                                {"low": MIN_LIMBS, "high": MAX_LIMBS}))
    trunks = sum(1 for limb in mutant.limbs if limb.trunk)
    if trunks != 1:
        problems.append(Problem("limbs", N_("Exactly one limb must be the trunk."), R_BODY,
                                {"count": trunks}))
    names = [limb.name.strip().casefold() for limb in mutant.limbs]
    if len(set(names)) != len(names) or "" in names:
        problems.append(Problem("limbs", N_("Every limb needs its own name."),
                                N_("house rule: a limb is aimed at by its name")))
    return problems


def _limb_problems(mutant: Mutant, index: int, limb: Limb) -> list[Problem]:
    where = f"limbs.{index}"
    problems = []
    for organ in ("muscles", "biomoteurs", "lobes"):
        built, lost = getattr(limb, organ), getattr(limb, f"lost_{organ}")
        if built < 0 or lost < 0 or lost > built:
            problems.append(Problem(f"{where}.{organ}",
                                    N_("Organ counts cannot be negative nor lose more than built."),
                                    R_ORGANS))
    if limb.muscles < 1:
        problems.append(Problem(f"{where}.muscles", N_("Every limb must hold muscles."),
                                rule("2-2 Organes / Muscle")))
    problems += _capacity_problems(mutant, where, limb)
    problems += _implant_problems(mutant, where, limb)
    if limb.tentacle:
        problems += _tentacle_problems(where, limb)
    return problems


def _capacity_problems(mutant: Mutant, where: str, limb: Limb) -> list[Problem]:
    if not limb.trunk:
        if limb.organs > ORGANS_PER_LIMB:
            return [Problem(where, N_("A limb holds at most %(n)s organs."), R_BODY,
                            {"n": ORGANS_PER_LIMB})]
        return []
    # The trunk's extra room is for muscles only, one per attached limb.
    limit = ORGANS_PER_LIMB + mutant.attached
    problems = []
    if limb.organs > limit:
        problems.append(Problem(where, N_("The trunk holds at most %(n)s organs "
                                          "(8 plus one muscle per attached limb)."),
                                R_BODY, {"n": limit}))
    if limb.biomoteurs + limb.lobes > ORGANS_PER_LIMB:
        problems.append(Problem(where, N_("Only muscles may go beyond %(n)s organs in the "
                                          "trunk."), R_BODY, {"n": ORGANS_PER_LIMB}))
    return problems


def _implant_problems(mutant: Mutant, where: str, limb: Limb) -> list[Problem]:
    problems = []
    slots = [("offensive", limb.offensive, "offensive"), ("special", limb.special, "special")]
    slots += [("defensive", key, "defensive") for key in limb.defensive]
    for slot, key, kind in slots:
        if key is not None and ((found := mutant.implant(key)) is None or found.kind != kind):
            problems.append(Problem(f"{where}.{slot}", N_("Unknown %(kind)s implant: %(key)s."),
                                    R_SPECIAL, {"kind": kind, "key": key}))
    if len(limb.defensive) > MAX_DEFENSIVE:
        problems.append(Problem(f"{where}.defensive",
                                N_("At most %(n)s defensive implants per limb."), R_SPECIAL,
                                {"n": MAX_DEFENSIVE}))
    if len(set(limb.defensive)) != len(limb.defensive):
        problems.append(Problem(f"{where}.defensive",
                                N_("Never the same defensive implant twice on a limb."),
                                rule("Terminologie / Implants défensifs")))
    return problems


def _tentacle_problems(where: str, limb: Limb) -> list[Problem]:
    problems = []
    if limb.trunk:
        problems.append(Problem(f"{where}.tentacle", N_("The trunk cannot be a tentacle."),
                                R_TENTACLE))
    if limb.biomoteurs or limb.lobes:
        problems.append(Problem(f"{where}.tentacle", N_("A tentacle holds only muscles."),
                                R_TENTACLE))
    if limb.special != "ventouses":
        problems.append(Problem(f"{where}.special", N_("A tentacle must carry suckers."),
                                R_TENTACLE))
    return problems


def _spread_problems(mutant: Mutant) -> list[Problem]:
    problems = []
    lobe_limbs = sum(1 for limb in mutant.limbs if limb.lobes > 0)
    lobe_max = 3 if mutant.has("multi_gelatine") else 1
    if lobe_limbs == 0:
        problems.append(Problem("brain", N_("A mutant needs lobes (a brain)."),
                                rule("2-2 Organes / Lobe")))
    elif lobe_limbs > lobe_max and lobe_max == 1:
        problems.append(Problem("brain", N_("Lobes must all be in one limb."),
                                rule("2-2 Organes / Lobe")))
    elif lobe_limbs > lobe_max:
        problems.append(Problem("brain", N_("Lobes may be in at most %(n)s limbs."),
                                rule("2-2 Organes / Lobe"), {"n": lobe_max}))
    pump_limbs = sum(1 for limb in mutant.limbs if limb.biomoteurs > 0)
    pump_max = 3 if mutant.has("double_coeur") else 2
    if pump_limbs == 0:
        problems.append(Problem("pump", N_("A mutant needs biomoteurs (a pump)."),
                                rule("2-2 Organes / Biomoteur")))
    elif pump_limbs > pump_max:
        problems.append(Problem("pump", N_("Biomoteurs may be in at most %(n)s limbs."),
                                rule("2-2 Organes / Biomoteur"), {"n": pump_max}))
    if mutant.has("lobotomie") and mutant.brain > 3:
        problems.append(Problem("brain", N_("A lobotomised mutant has at most 3 lobes."),
                                rule("2-3 Compétences / Lobotomie"), {"n": 3}))
    return problems


def _skill_problems(mutant: Mutant) -> list[Problem]:
    problems = []
    if not mutant.skills:
        problems.append(Problem("skills", N_("Every mutant starts with one skill."), R_SKILLS))
    for key in mutant.skills:
        if key not in SKILLS:
            problems.append(Problem("skills", N_("Unknown skill: %(key)s."), R_SKILLS,
                                    {"key": key}))
    if len(set(mutant.skills)) != len(mutant.skills):
        problems.append(Problem("skills", N_("A skill is taken only once."), R_SKILLS))
    return problems


def validate_team(mutants: Sequence[Mutant], category_t: int) -> list[Problem]:
    """§ 3 Campagne: 3 to 10 mutants within the category's tonnes; § 2-3: no shared skill."""
    problems = []
    if category_t not in CATEGORIES_T:
        problems.append(Problem("category", N_("The categories are 1, 2 and 3 tonnes."), R_TEAM))
    if not TEAM_MIN <= len(mutants) <= TEAM_MAX:
        problems.append(Problem("mutants", N_("A team has %(low)s to %(high)s mutants."), R_TEAM,
                                {"low": TEAM_MIN, "high": TEAM_MAX}))
    total = sum(mutant.biomass for mutant in mutants)
    if total > category_t * 1000:
        problems.append(Problem("mutants", N_("The team weighs %(total)s kg, over %(limit)s kg."),
                                R_TEAM, {"total": total, "limit": category_t * 1000}))
    skills = [skill for mutant in mutants for skill in mutant.skills]
    if len(set(skills)) != len(skills):
        problems.append(Problem("mutants", N_("Two mutants of a team cannot share a skill."),
                                R_SKILLS))
    return problems


def team_biomass(mutants: Iterable[Mutant]) -> int:
    return sum(mutant.biomass for mutant in mutants)


def free_rerolls(own: Iterable[Mutant], other: Iterable[Mutant]) -> int:
    """§ 3 Campagne / Relances: one re-roll per full 50 kg the other team weighs more."""
    return max(0, team_biomass(other) - team_biomass(own)) // 50
