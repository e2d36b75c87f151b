"""Tiamat's dice (« Tests et Actions § Convention des lancers de dés »): a pool of d10 keeping
the best, each 10 adding a d6 (« Critique »), d6 summed, « Un dé minimum », written
« Caractéristique + XD10 », « + X » or « + XD6 »; difficulties, margins, opposed tests
(the initiator loses ties) and acting as a team (+1D10 a helper).

Every roll goes through ``app.rules.notation`` (``Nd10t``), so the log shows each die."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from app.rules import notation
from app.rules.dice import Dice, Modifier, RollRecord
from app.rules.tiamat.content import Formula

RULE_CONVENTION = "Tiamat § Tests et Actions / Convention des lancers de dés"
RULE_SIMPLE = "Tiamat § Tests et Actions / Jet de dés simple"
RULE_OPPOSED = "Tiamat § Tests et Actions / Jet d'opposition"
RULE_TEAM = "Tiamat § Tests et Actions / Agir en équipe"

DIFFICULTIES = {"facile": 4, "moyennement_facile": 6, "difficile": 8, "tres_difficile": 10,
                "heroique": 15, "surhumaine": 20}
DIFFICULTY_NAMES = {"facile": "facile (4)", "moyennement_facile": "moyennement facile (6)",
                    "difficile": "difficile (8)", "tres_difficile": "très difficile (10)",
                    "heroique": "héroïque (15)", "surhumaine": "surhumaine (20)"}
MAX_POOL = 30


def pool_expression(d10: int, d6: int = 0, flat: int = 0) -> str:
    """The notation of a pool: ``d10`` d10 keeping the best (one die minimum, « Un dé
    minimum »), criticals on each 10, plus ``d6`` d6 summed and ``flat``."""
    expression = f"{max(1, min(MAX_POOL, d10))}d10t"
    if d6 > 0:
        expression += f"+{d6}d6"
    if flat:
        expression += f"{flat:+d}"
    return expression


def pool(dice: Dice, d10: int, *, d6: int = 0, flat: int = 0, purpose: str | None = None,
         labels: tuple[Modifier, ...] = ()) -> RollRecord:
    """Roll ``d10`` d10 keeping the best (one die minimum, « Un dé minimum »), criticals on
    each 10, plus ``d6`` d6 summed and ``flat``; ``labels`` are named fixed modifiers added
    on top (a skill, a range)."""
    record = notation.roll(pool_expression(d10, d6, flat), dice, purpose=purpose)
    return record.with_modifiers(*labels) if labels else record


@dataclass(frozen=True)
class Pool:
    """A pool as the rules will roll it: what ``pool`` throws, and the named modifiers on
    top. The exact odds (``app.rules.tiamat.odds``) read the same pool the roll throws."""

    d10: int
    d6: int = 0
    flat: int = 0
    labels: tuple[Modifier, ...] = ()

    @property
    def expression(self) -> str:
        return pool_expression(self.d10, self.d6, self.flat)

    @property
    def bonus(self) -> int:
        """The named modifiers' sum, added to the total after the dice."""
        return sum(label.value for label in self.labels)

    def roll(self, dice: Dice, purpose: str | None = None) -> RollRecord:
        return pool(dice, self.d10, d6=self.d6, flat=self.flat, purpose=purpose,
                    labels=self.labels)


def d6_sum(dice: Dice, count: int, purpose: str | None = None) -> RollRecord:
    """A roll of d6 only (« On garde tous les D6 »: summed, no critical): a 9 mm's 2D6."""
    return notation.roll(f"{max(1, count)}d6", dice, purpose=purpose)


def formula_pool(formula: Formula, characteristics: Mapping[str, int], *,
                 skills: Mapping[str, int] | None = None, extra_d10: int = 0,
                 extra_d6: int = 0, extra_flat: int = 0,
                 weapon: tuple[int, int, int, bool] | None = None) -> tuple[int, int, int]:
    """How many d10, d6 and what fixed bonus a formula rolls for this fighter.

    ``weapon`` is the weapon's (d10, d6, flat, uses_force) when the formula reads « Puissance
    de l'arme »: Force + the weapon's dice for a contact weapon, the dice alone for a gun
    (« Un tir de pistolet 9mm inflige 2D6 »)."""
    d10 = extra_d10 + formula.d10
    d6 = extra_d6 + formula.d6
    flat = extra_flat + formula.flat
    if formula.char:
        d10 += int(characteristics.get(formula.char, 1))
    if formula.weapon and weapon is not None:
        w10, w6, wflat, uses_force = weapon
        d10 += (int(characteristics.get("force", 1)) if uses_force else 0) + w10
        d6 += w6
        flat += wflat
    for skill in formula.skills:
        flat += int((skills or {}).get(skill, 0))
    return d10, d6, flat


@dataclass(frozen=True)
class Test:
    record: RollRecord
    difficulty: int

    @property
    def success(self) -> bool:
        return self.record.total >= self.difficulty

    @property
    def margin(self) -> int:
        """« Marge de réussite ou d'échec »: positive on a success, negative on a failure."""
        return self.record.total - self.difficulty


def simple_test(dice: Dice, characteristic: int, difficulty: int, *, skill: int = 0,
                skill_name: str | None = None, extra_d10: int = 0, helpers: int = 0,
                purpose: str | None = None) -> Test:
    """« Caractéristique x D10 + Compétence » against a difficulty (success on ≥); each
    helper adds a D10 (« Agir en équipe »)."""
    labels = (Modifier(skill, skill_name),) if skill else ()
    record = pool(dice, characteristic + extra_d10 + helpers, purpose=purpose, labels=labels)
    outcome = "success" if record.total >= difficulty else "failure"
    return Test(record.with_target(difficulty, outcome), difficulty)


def opposed(initiator: RollRecord, opponent: RollRecord) -> bool:
    """« Jet d'opposition »: the best score wins, and « en cas d'égalité, le personnage ayant
    initié l'action perd ». True when the initiator wins."""
    return initiator.total > opponent.total
