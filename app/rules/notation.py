"""Dice expressions: ``parse`` → tree → ``roll`` with a ``Dice`` → ``RollRecord``.

The free roller, the table's dice field, the chat's ``/r`` and every game's rules roll
through here (docs/dice.md has the reference). ``app.rules.dice_parser`` reads the text into
the tree of ``app.rules.dice_tree`` and checks every limit; ``app.rules.dice_pool`` throws
each dice group. Parsed plans are cached, so rolling a known expression only costs the dice
and the record.

A plain sum of dice groups and numbers (``3d10t+2``, ``2d6-1d4+3``) leaves the record every
roll always left: its dice, each group's sign, its numbers as modifiers. Anything else
(``(1d20+5)*2``, sets, annotations, a comparison of totals) adds ``tree``, the evaluated
expression, so each number of the log is explained (docs/dice.md § Records).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from app.rules.dice import Dice, Modifier, RollRecord, new_record
from app.rules.dice_parser import MAX_DICE, MAX_LENGTH, MAX_NUMBER, MAX_VALUE
from app.rules.dice_parser import parse as _parse
from app.rules.dice_pool import MAX_EXPLOSIONS, MAX_EXTRA_DICE, roll_group
from app.rules.dice_tree import (
    Chain,
    Comparison,
    DiceGroup,
    Expression,
    Node,
    Number,
    Roll,
    Unary,
)

__all__ = [
    "MAX_DICE", "MAX_EXPLOSIONS", "MAX_EXTRA_DICE", "MAX_LENGTH", "MAX_NUMBER", "MAX_VALUE",
    "Expression", "bounds", "parse", "roll",
]

OUTCOMES = ("failure", "success")
"""A comparison of totals' outcome words, as the games store theirs (said in the reader's
language by ``app.services.rolls.outcome_label``)."""


def parse(expr: str) -> Expression:
    """Parse a dice expression, or raise ``NotationError`` saying where and what was expected.

    Limits (dice, sides, length, values, a divisor that could be 0, rerolls that could never
    stop) are checked here, so nothing is rolled for an expression that would be refused.
    """
    return _Plan.of(expr).expression


def roll(expr: str, dice: Dice, *, purpose: str | None = None) -> RollRecord:
    """Roll ``expr`` with ``dice``. ``purpose`` defaults to the expression's ``#`` label.

    A ``dice`` that limits how many dice one roll throws (``reserve``, see ``Dice``) is told
    how many this one asks for first, so a refusal comes before any die is thrown.
    """
    plan = _Plan.of(expr)
    reserve = getattr(dice, "reserve", None)
    if reserve is not None:
        dice = reserve(plan.asked)
    purpose = purpose or plan.expression.label
    if plan.terms is not None:
        return _roll_sum(plan, dice, purpose)
    return _roll_tree(plan, dice, purpose)


def bounds(expr: str | Expression) -> tuple[int, int]:
    """The smallest and largest total ``expr`` can roll.

    Exploding groups reach their largest when every die explodes until the cap
    (``MAX_EXPLOSIONS`` extra dice per group) stops them. With a comparison of totals at the
    top (``1d20+5>=15``), the total is its left side.
    """
    root = (parse(expr) if isinstance(expr, str) else expr).root
    return root.left.bounds() if isinstance(root, Comparison) else root.bounds()


def _roll_sum(plan: _Plan, dice: Dice, purpose: str | None) -> RollRecord:
    out: list = []
    total = plan.constant
    budget = [MAX_EXTRA_DICE]
    for index, (sign, group) in enumerate(plan.terms or ()):
        total += roll_group(group, dice, index, sign, out, budget)
    return new_record(purpose, plan.text, tuple(out), plan.modifiers, total)


def _roll_tree(plan: _Plan, dice: Dice, purpose: str | None) -> RollRecord:
    root = plan.expression.root
    state = Roll(dice)
    if not isinstance(root, Comparison):
        total, tree = root.evaluate(state)
        return new_record(purpose, plan.text, tuple(state.out), (), total, tree=tree)
    # At the top, a comparison keeps the left total and judges it: « 17 ≥ 15, success ».
    total, left = root.left.evaluate(state)
    target, right = root.right.evaluate(state)
    passed = root.holds(total, target)
    tree = {"kind": "compare", "op": root.op, "left": left, "right": right,
            "value": int(passed)}
    return new_record(purpose, plan.text, tuple(state.out), (), total, target,
                      OUTCOMES[passed], tree)


@dataclass(frozen=True, slots=True)
class _Plan:
    """What ``roll`` needs, computed once per distinct expression text.

    ``terms`` is set when the expression is a plain sum (each group with its sign);
    ``modifiers`` and ``constant`` are then its numbers."""

    expression: Expression
    text: str
    asked: int
    terms: tuple[tuple[int, DiceGroup], ...] | None
    modifiers: tuple[Modifier, ...]
    constant: int

    @staticmethod
    @lru_cache(maxsize=4096)
    def of(expr: str) -> _Plan:
        tree = _parse(expr)
        signed = _signed_terms(tree.root)
        if signed is None:
            return _Plan(tree, str(tree), tree.root.asked(), None, (), 0)
        groups = tuple((sign, term) for sign, term in signed if isinstance(term, DiceGroup))
        modifiers = tuple(Modifier(sign * term.value) for sign, term in signed
                          if isinstance(term, Number))
        return _Plan(tree, str(tree), tree.root.asked(), groups, modifiers,
                     sum(modifier.value for modifier in modifiers))


def _signed_terms(root: Node) -> list[tuple[int, DiceGroup | Number]] | None:
    """A plain sum's terms with their signs (``-1d4`` subtracts), or None."""
    operands: tuple[Node, ...] = (root,)
    ops: tuple[str, ...] = ()
    if isinstance(root, Chain):
        if not set(root.ops) <= {"+", "-"}:
            return None
        operands, ops = root.operands, root.ops
    terms: list[tuple[int, DiceGroup | Number]] = []
    for op, operand in zip(("+", *ops), operands, strict=True):
        sign = 1 if op == "+" else -1
        while isinstance(operand, Unary):
            sign = -sign if operand.op == "-" else sign
            operand = operand.operand
        if not isinstance(operand, DiceGroup | Number) or operand.labels:
            return None
        terms.append((sign, operand))
    return terms
