"""Between two fights: experience, biomass gains, prizes, care, new skills and bets.

000_e34df4ff7a8d792c.txt § 3-2 Fin du carnage and § 3-3 Les paris (with § 2-3 Compétences for
Chouchou du public, Greffon and Voleur). A fight's end is described by ``FightResult``; the
functions return new mutants and kilograms, every die in a ``RollRecord``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import ClassVar

from app.rules.dice import Dice, RollRecord
from app.rules.mutatior.body import Limb, Mutant, validate
from app.rules.mutatior.combat import _roll
from app.rules.mutatior.content import ORGAN_WEIGHTS, SKILLS, rule
from app.rules.mutatior.skills import IllegalSkill, move_organs
from app.rules.purposes import Purpose
from app.rules.system import N_, Problem

R_END = rule("3-2 Fin du carnage")
R_BETS = rule("3-3 Les paris")
XP_PER_FIGHT = 1
XP_PER_SKILL = 6
PRIZE_FACTOR = 5
_WEIGHT = {"muscles": ORGAN_WEIGHTS["muscle"], "biomoteurs": ORGAN_WEIGHTS["biomoteur"],
           "lobes": ORGAN_WEIGHTS["lobe"]}


class IllegalCare(IllegalSkill):
    """A care, graft or purchase the text does not allow."""

    templates_en: ClassVar[dict[str, str]] = {
        **IllegalSkill.templates_en,
        "limb_alive": "the limb '{limb}' is not dead",
        "not_enough_xp": "{mutant} needs {need} XP for a new skill",
        "skill_taken": "the skill {skill} is already in the team",
        "new_limb_forbidden": "{mutant} cannot be given a new limb",
        "unknown_skill": "unknown skill '{skill}'",
    }
    templates_fr: ClassVar[dict[str, str]] = {
        **IllegalSkill.templates_fr,
        "limb_alive": "le membre « {limb} » n'est pas mort",
        "not_enough_xp": "{mutant} a besoin de {need} XP pour une nouvelle compétence",
        "skill_taken": "la compétence {skill} est déjà dans l'équipe",
        "new_limb_forbidden": "{mutant} ne peut pas recevoir de nouveau membre",
        "unknown_skill": "compétence inconnue « {skill} »",
    }


# — The fight's end —

@dataclass(frozen=True)
class FightResult:
    """How a fight ended. ``teams``: team → its mutants as they left the arena (the dead with
    their wounds); ``killed_by``: dead mutant → the team that killed it (absent: no killer,
    e.g. a frenzy or an infarctus); ``extra_xp``: Ralenti and the like, by mutant."""

    teams: Mapping[str, Sequence[Mutant]]
    winner: str | None = None
    killed_by: Mapping[str, str] = field(default_factory=dict)
    extra_xp: Mapping[str, int] = field(default_factory=dict)

    def team_of(self, name: str) -> str:
        return next(team for team, mutants in self.teams.items()
                    if any(m.name == name for m in mutants))

    def mutant(self, name: str) -> Mutant:
        return next(m for mutants in self.teams.values() for m in mutants if m.name == name)

    def survivors(self, team: str | None = None) -> tuple[Mutant, ...]:
        """Survivors include the creatures that threw in the sponge."""
        return tuple(m for t, mutants in self.teams.items() if team in (None, t)
                     for m in mutants if not m.dead)


def experience(result: FightResult) -> dict[str, Mutant]:
    """§ 3-2: survivors gain experience; the text gives no amount: 1 XP per fight survived,
    plus ``extra_xp`` (Ralenti). Experience never goes below 0."""
    return {m.name: replace(m, xp=max(0, m.xp + XP_PER_FIGHT + result.extra_xp.get(m.name, 0)))
            for m in result.survivors()}


@dataclass(frozen=True)
class Gain:
    team: str
    kg: int
    why: str  # msgid
    params: Mapping[str, object] = field(default_factory=dict)
    record: RollRecord | None = None


def biomass_gains(result: FightResult, dice: Dice, *,
                  spoils: Mapping[str, Sequence[str]]) -> tuple[Gain, ...]:
    """§ 3-2 Gain de biomasse: each creature killed gives its killers one remaining limb of
    their choice (``spoils``: dead mutant → limbs taken; a surviving Voleur of the killers
    allows one more each); 2d6 kg per survivor; each team gets back its dead's remaining
    biomass, less the limbs the enemy took."""
    gains: list[Gain] = []
    taken: dict[str, set[str]] = {}
    for dead, team in result.killed_by.items():
        corpse = result.mutant(dead)
        allowed = 1 + sum(1 for m in result.survivors(team) if m.has("voleur"))
        living = [name for name in dict.fromkeys(spoils.get(dead, ()))
                  if not corpse.limb(name).dead][:allowed]
        taken[dead] = set(living)
        for name in living:
            gains.append(Gain(team, corpse.limb_biomass(corpse.limb(name)),
                              N_("Limb %(limb)s of %(mutant)s."), {"limb": name, "mutant": dead}))
    for survivor in result.survivors():
        record = _roll(dice, Purpose("biomass {name}", name=survivor.name), 2)
        gains.append(Gain(result.team_of(survivor.name), record.total,
                          N_("%(mutant)s survived."), {"mutant": survivor.name}, record))
    for team, mutants in result.teams.items():
        for corpse in (m for m in mutants if m.dead):
            gone = taken.get(corpse.name, set())
            kg = sum(corpse.limb_biomass(limb) for limb in corpse.limbs
                     if limb.name not in gone)
            gains.append(Gain(team, kg, N_("The remains of %(mutant)s."),
                              {"mutant": corpse.name}))
    return tuple(gains)


def prizes(result: FightResult, dice: Dice) -> tuple[Gain, ...]:
    """Le plus bel éclopé (most organs lost among survivors): 2d6 × 5 kg; La tafiotte (fewest
    lost): 1d6 × 5 kg. A tie between teams: each tied team wins the prize, rolled apart."""
    survivors = result.survivors()
    if not survivors:
        return ()
    gains: list[Gain] = []
    for pick, count, prize in ((max, 2, "Le plus bel éclopé"), (min, 1, "La tafiotte")):
        best = pick(m.lost_organs for m in survivors)
        teams = sorted({result.team_of(m.name) for m in survivors if m.lost_organs == best})
        for team in teams:
            record = _roll(dice, prize, count)
            gains.append(Gain(team, record.total * PRIZE_FACTOR, N_("The prize %(prize)s."),
                              {"prize": prize}, record))
    return tuple(gains)


def chouchou_du_public(result: FightResult, dice: Dice) -> tuple[Gain, ...]:
    """§ 2-3 Chouchou du public: a survivor receives 1d6 kg × its popularity."""
    gains = []
    for mutant in result.survivors():
        if mutant.has("chouchou_du_public"):
            record = _roll(dice, Purpose("crowd favourite {name}", name=mutant.name), 1)
            gains.append(Gain(result.team_of(mutant.name), record.total * mutant.popularity,
                              N_("A gift for %(mutant)s."), {"mutant": mutant.name}, record))
    return tuple(gains)


# — Care between fights (§ 3-2 Soins) —

def _checked(mutant: Mutant) -> Mutant:
    problems = validate(mutant)
    if problems:
        raise IllegalCare("bad_field", field=problems[0].field, reason=problems[0].message)
    return mutant


def heal(mutant: Mutant, limb_name: str) -> tuple[Mutant, int]:
    """Restore a living limb's lost organs; the biomass price is their weight. A dead limb is
    replaced (``replace_dead_limb``), not healed."""
    limb = mutant.limb(limb_name)
    if limb.dead:
        raise IllegalCare("limb_dead", limb=limb_name)
    cost = sum(getattr(limb, f"lost_{organ}") * w for organ, w in _WEIGHT.items())
    healed = replace(limb, lost_muscles=0, lost_biomoteurs=0, lost_lobes=0)
    return mutant.with_limb(healed), cost


def replace_dead_limb(mutant: Mutant, limb_name: str, new: Limb) -> tuple[Mutant, int]:
    """A dead limb may be replaced by a new one (built anew, at its full biomass); the body
    must stay legal. Implants of the dead limb are lost with it."""
    if not mutant.limb(limb_name).dead:
        raise IllegalCare("limb_alive", limb=limb_name)
    new = replace(new, lost_muscles=0, lost_biomoteurs=0, lost_lobes=0)
    limbs = tuple(new if limb.name == limb_name else limb for limb in mutant.limbs)
    return _checked(replace(mutant, limbs=limbs)), mutant.limb_biomass(new, live=False)


def graft(mutant: Mutant, new: Limb, *, survived: bool) -> tuple[Mutant, int]:
    """§ 2-3 Greffon: a mutant with it that survived a fight may get a new limb (one per fight,
    the caller's count); otherwise no limb is ever added (§ 3-2 Soins)."""
    if not (mutant.has("greffon") and survived):
        raise IllegalCare("new_limb_forbidden", mutant=mutant.name)
    return _checked(replace(mutant, limbs=(*mutant.limbs, new))), mutant.limb_biomass(
        new, live=False)


def move_between_fights(mutant: Mutant, organ: str, source: str, target: str) -> Mutant:
    """§ 3-2 Soins: lobes and biomoteurs may be moved to another limb with room, muscles never;
    the body must stay legal (lobes in one limb, biomoteurs in two)."""
    return _checked(move_organs(mutant, organ, source, target))


def recycle(mutant: Mutant) -> int:
    """§ 3-2 Soins: killing one's own mutant gives back all its (remaining) biomass, not its
    experience."""
    return mutant.live_biomass


def learn_skill(mutant: Mutant, skill: str, team: Sequence[Mutant]) -> Mutant:
    """§ 3-2: 6 XP buy a new skill; no two mutants of a team share one (§ 2-3)."""
    if skill not in SKILLS:
        raise IllegalCare("unknown_skill", skill=skill)
    if mutant.xp < XP_PER_SKILL:
        raise IllegalCare("not_enough_xp", mutant=mutant.name, need=XP_PER_SKILL)
    if any(skill in m.skills for m in (*team, mutant)):
        raise IllegalCare("skill_taken", skill=SKILLS[skill].name)
    return replace(mutant, skills=(*mutant.skills, skill), xp=mutant.xp - XP_PER_SKILL)


# — § 3-3 Les paris —

@dataclass(frozen=True)
class Bet:
    """``kind``: "victory" (on one's team), "death" (an enemy creature, named before the
    fight), "secret" (one's own creature) or "spectator" (on a team, by someone watching)."""

    bettor: str
    kind: str
    stake: int
    team: str | None = None  # victory / spectator: the team backed
    mutant: str | None = None  # death / secret: the creature


def check_bet(bet: Bet, result_teams: Mapping[str, Sequence[str]],
              bettor_team: str | None) -> list[Problem]:
    """What is wrong with a bet (before the fight): ``result_teams``: team → creature names."""
    problems = []
    if bet.stake <= 0:
        problems.append(Problem("stake", N_("A bet stakes some biomass."), R_BETS))
    owner = next((t for t, names in result_teams.items() if bet.mutant in names), None)
    if bet.kind == "death" and (owner is None or owner == bettor_team):
        problems.append(Problem("mutant", N_("A death bet names an enemy creature."), R_BETS))
    if bet.kind == "secret" and (owner is None or owner != bettor_team):
        problems.append(Problem("mutant", N_("A secret bet names one of your creatures."),
                                R_BETS))
    if bet.kind in ("victory", "spectator") and bet.team not in result_teams:
        problems.append(Problem("team", N_("Bet on a team of this fight."), R_BETS))
    if bet.kind == "victory" and bet.team != bettor_team:
        problems.append(Problem("team", N_("A player bets on their own victory."), R_BETS))
    if bet.kind not in ("victory", "death", "secret", "spectator"):
        problems.append(Problem("kind", N_("Unknown kind of bet."), R_BETS))
    return problems


def settle_bets(bets: Sequence[Bet], result: FightResult, *,
                owners: Mapping[str, str],
                police: Mapping[str, int] | None = None) -> dict[str, int]:
    """Each bettor's net change in kg (stakes paid to and by the house unless the text names
    another party). ``owners``: team → its player; ``police``: player → the kg a Contrôle de
    police takes off their winnings (never more than they won).

    - victory/spectator: won → +stake; lost → −stake;
    - death: the creature died → +stake × its popularity; it lives → the stake goes to its
      owner;
    - secret: the creature survived → +stake // its popularity (at least 1); died → −stake.
    """
    net: dict[str, int] = {}
    won: dict[str, int] = {}

    def pay(who: str, kg: int) -> None:
        net[who] = net.get(who, 0) + kg
        if kg > 0:
            won[who] = won.get(who, 0) + kg

    for bet in bets:
        if bet.kind in ("victory", "spectator"):
            pay(bet.bettor, bet.stake if result.winner == bet.team else -bet.stake)
            continue
        creature = result.mutant(bet.mutant or "")
        if bet.kind == "death":
            if creature.dead:
                pay(bet.bettor, bet.stake * creature.popularity)
            else:
                pay(bet.bettor, -bet.stake)
                pay(owners[result.team_of(creature.name)], bet.stake)
        elif bet.kind == "secret":
            pay(bet.bettor, -bet.stake if creature.dead
                else bet.stake // max(1, creature.popularity))
    for player, kg in (police or {}).items():
        net[player] = net.get(player, 0) - min(kg, won.get(player, 0))
    return net
