"""Cyborg Anti-Alien tests ("épreuves"): characteristic tests, opposed tests, skill tests.

- A characteristic test rolls 1D20, adds the GM's malus, and succeeds when the total does not
  exceed the characteristic (Cyborg § (I) Les caractéristiques: "9 + 3 = 12 < 13 : c'est une
  réussite"). The malus is added to the die, so a positive number makes the test harder; a
  negative one is a bonus.
- A skill test rolls the percentile dice and succeeds on a score at most the skill
  (Cyborg § (III) Combats / Déroulement). The units die of a successful roll showing 0 is a
  master stroke ("coup de maître").
- An opposed test is two characteristic tests; the chase rule says how to read them
  (Cyborg § (IV) Poursuites / Déroulement).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from app.rules.dice import Dice, Modifier, RollRecord
from app.rules.notation import roll
from app.rules.purposes import Purpose

CHARACTERISTIC_RULE = "Cyborg § (I) Les caractéristiques"
SKILL_RULE = "Cyborg § (III) Combats / Déroulement"
OPPOSED_RULE = "Cyborg § (IV) Poursuites / Déroulement"

SUCCESS = "success"
FAILURE = "failure"
MASTER = "master stroke"


@dataclass(frozen=True)
class CharacteristicTest:
    characteristic: int
    record: RollRecord  # 1d20 + malus, its target the characteristic

    @property
    def success(self) -> bool:
        return self.record.outcome == SUCCESS

    @property
    def score(self) -> int:
        return self.record.total


def characteristic_test(
    dice: Dice, characteristic: int, malus: int = 0, *, purpose: str | None = None
) -> CharacteristicTest:
    """1D20 + the GM's malus against ``characteristic``; a tie succeeds (see rules-notes)."""
    record = roll("1d20", dice, purpose=purpose)
    if malus:
        label = Purpose("malus" if malus > 0 else "bonus")  # the English pages say "malus" too
        record = record.with_modifiers(Modifier(malus, label))
    outcome = SUCCESS if record.total <= characteristic else FAILURE
    return CharacteristicTest(characteristic, record.with_target(characteristic, outcome))


@dataclass(frozen=True)
class SkillTest:
    skill: int
    modifiers: tuple[Modifier, ...]
    record: RollRecord  # the d100 face; its target the skill after modifiers

    @property
    def target(self) -> int:
        return self.skill + sum(modifier.value for modifier in self.modifiers)

    @property
    def units(self) -> int:
        """The units die: 0 on 10, 20 … 100 (a 100 is "00" on percentile dice)."""
        return self.record.total % 10

    @property
    def success(self) -> bool:
        return self.record.outcome in (SUCCESS, MASTER)

    @property
    def master(self) -> bool:
        return self.record.outcome == MASTER


def skill_test(
    dice: Dice, skill: int, modifiers: Iterable[Modifier] = (), *, purpose: str | None = None
) -> SkillTest:
    """Percentile dice against ``skill`` plus the situational modifiers (in %, e.g. −15 for
    darkness). They move the target, not the roll, so the units die stays readable."""
    modifiers = tuple(modifiers)
    record = roll("1d100", dice, purpose=purpose)
    test = SkillTest(skill, modifiers, record)
    if record.total > test.target:
        outcome = FAILURE
    else:
        outcome = MASTER if record.total % 10 == 0 else SUCCESS
    return SkillTest(skill, modifiers, record.with_target(test.target, outcome))


@dataclass(frozen=True)
class OpposedTest:
    first: CharacteristicTest
    second: CharacteristicTest
    winner: str | None  # "first", "second", or None when neither gains

    @property
    def records(self) -> tuple[RollRecord, RollRecord]:
        return (self.first.record, self.second.record)


def opposed_test(
    dice: Dice,
    first: int,
    second: int,
    *,
    first_malus: int = 0,
    second_malus: int = 0,
    purposes: tuple[str | None, str | None] = (None, None),
) -> OpposedTest:
    """Both sides test their characteristic, ``first`` rolling first.

    One success against one failure: the success wins. Both succeed: the lower score wins,
    as the chase rule reads ("le score le plus bas l'emporte"). Both fail, or equal scores:
    nobody wins (the distance is kept).
    """
    one = characteristic_test(dice, first, first_malus, purpose=purposes[0])
    two = characteristic_test(dice, second, second_malus, purpose=purposes[1])
    return OpposedTest(one, two, _opposed_winner(one, two))


def _opposed_winner(one: CharacteristicTest, two: CharacteristicTest) -> str | None:
    if one.success != two.success:
        return "first" if one.success else "second"
    if not one.success or one.score == two.score:
        return None
    return "first" if one.score < two.score else "second"
