"""The exact distribution of a dice expression: its tree (``app.rules.dice_tree``) read
node by node into icepool dice, each group by ``app.rules.odds.groups``.

Every part of a tree throws its own dice, so its parts are independent and combine as
independent dice do: a sum is a convolution, a product pairs every value of one side with
every value of the other, a set keeps and drops among its items' totals as a pool of
different dice does, a comparison is the chance of its sign.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import icepool

from app.rules.dice_parser import parse
from app.rules.dice_pool import COMPARE, apply_keeping
from app.rules.dice_tree import (
    ARITHMETIC,
    Chain,
    Comparison,
    DiceGroup,
    Group,
    Node,
    Number,
    Unary,
)
from app.rules.odds.budget import Budget
from app.rules.odds.convolve import add
from app.rules.odds.distribution import Cut, Distribution
from app.rules.odds.groups import die_of, group_die, kept_ranks


def distribution(expression: str, budget: Budget | None = None) -> Distribution:
    """The exact distribution of ``expression`` (refused as the roller refuses it:
    ``NotationError``; past the budget: ``OddsRefused``)."""
    tree = parse(expression)
    budget = budget or Budget()
    reader = _Reader(budget)
    root = tree.root
    if not isinstance(root, Comparison):
        return _result(str(tree), reader.die(root), reader.cuts)
    # At the top a comparison judges the roll: the total is its left side (docs/dice.md).
    left, right = reader.die(root.left), reader.die(root.right)
    success = _holds(root.op, left, right, budget).probability(1)
    target = root.right.value if isinstance(root.right, Number) else None
    return _result(str(tree), left, reader.cuts, success=success, comparison=root.op,
                   target=target)


def _result(text: str, die: icepool.Die, cuts: list[Cut], **judged) -> Distribution:
    return Distribution(text, tuple(die.items()), die.denominator(), tuple(cuts), **judged)


def _holds(op: str, left: icepool.Die, right: icepool.Die, budget: Budget) -> icepool.Die:
    """1 when ``left op right``, 0 when not."""
    test = COMPARE[op]
    difference = add(left, -right, budget)
    return difference.map(lambda d: int(test(d, 0)))


class _Reader:
    """Reads a tree into dice, within one budget, noting where endless rolls were cut."""

    def __init__(self, budget: Budget) -> None:
        self.budget = budget
        self.cuts: list[Cut] = []

    def die(self, node: Node) -> icepool.Die:
        self.budget.check()
        die = self._READ[type(node)](self, node)
        self.budget.values(len(die))
        return die

    def _number(self, node: Number) -> icepool.Die:
        return icepool.Die([node.value])

    def _dice(self, node: DiceGroup) -> icepool.Die:
        return group_die(node, self.budget, self.cuts)

    def _unary(self, node: Unary) -> icepool.Die:
        die = self.die(node.operand)
        return -die if node.op == "-" else die

    def _chain(self, node: Chain) -> icepool.Die:
        value = self.die(node.operands[0])
        for op, operand in zip(node.ops, node.operands[1:], strict=True):
            value = self._arithmetic(op, value, self.die(operand))
        return value

    def _arithmetic(self, op: str, left: icepool.Die, right: icepool.Die) -> icepool.Die:
        if op == "+":
            return add(left, right, self.budget)
        if op == "-":
            return add(left, -right, self.budget)
        pairs = len(left) * len(right)
        self.budget.spend(pairs * 1.5e-6)
        self.budget.values(min(pairs, self.budget.max_values + 1))
        operate: Callable[[int, int], int] = ARITHMETIC[op]
        return icepool.map(operate, left, right)

    def _group(self, node: Group) -> icepool.Die:
        if not node.is_set:
            return self._dice(node.pool) if node.pool is not None else self.die(node.items[0])
        items = [self.die(item) for item in node.items]
        if not node.keeping:
            total = icepool.Die([0])
            for item in items:
                total = add(total, item, self.budget)
            return total
        if not any(s.by_value for op in node.keeping for s in op.selectors):
            size = sum(len(item) for item in items)
            self.budget.spend(2e-5 * len(items) * size)
            return icepool.Pool(items).keep(kept_ranks(len(items), node.keeping)).sum()
        return self._kept_by_value(node, items)

    def _kept_by_value(self, node: Group, items: list[icepool.Die]) -> icepool.Die:
        """A set kept by value (``(…)k>10``): every set of item totals, kept as rolled."""
        ways = 1
        for item in items:
            ways *= len(item)
        self.budget.states(ways)
        expanded = icepool.Pool(items).expand()
        total = expanded.denominator()
        chances: dict[int, Fraction] = {}
        for values, quantity in expanded.items():
            kept = apply_keeping(values, [True] * len(values), node.keeping)
            value = sum(v for v, keep in zip(values, kept, strict=True) if keep)
            chances[value] = chances.get(value, 0) + Fraction(quantity, total)
        return die_of(chances)

    def _comparison(self, node: Comparison) -> icepool.Die:
        return _holds(node.op, self.die(node.left), self.die(node.right), self.budget)

    _READ = {Number: _number, DiceGroup: _dice, Unary: _unary, Chain: _chain, Group: _group,
             Comparison: _comparison}
