"""The tree of a dice expression (docs/dice.md): what ``app.rules.dice_parser`` builds and
``app.rules.notation`` rolls.

Every node prints itself back in the canonical notation — parsing that text gives the same
tree — and knows the smallest and largest value it can take (``bounds``) and how many dice it
asks for (``asked``), both before any die is thrown. Rolling a node gives its value and the
part of the roll record that explains it (``evaluate``); the dice themselves are thrown by
``app.rules.dice_pool``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from app.rules import dice_pool
from app.rules.dice import Dice as DiceSource
from app.rules.dice import Die
from app.rules.dice_pool import (
    COMPARE,
    Operation,
    Selector,
    apply_keeping,
    refuse,
    roll_group,
)

Interval = tuple[int, int]
Part = dict[str, Any]
"""A node as the roll record stores it (``RollRecord.tree``, docs/dice.md § Records)."""


class Roll:
    """What one roll of a tree shares: the dice source, the dice thrown so far, the group
    counter and how many more dice rerolls and explosions may add."""

    __slots__ = ("budget", "dice", "groups", "out")

    def __init__(self, dice: DiceSource) -> None:
        self.dice = dice
        self.out: list[Die] = []
        self.groups = 0
        self.budget = [dice_pool.MAX_EXTRA_DICE]


def _labels_text(labels: tuple[str, ...]) -> str:
    return "".join(f"[{label}]" for label in labels)


def _label(labels: tuple[str, ...]) -> str:
    """The annotations as the record shows them beside their part (empty ones left out)."""
    return " ".join(label for label in labels if label)


def _labelled(part: Part, label: str) -> Part:
    if label:
        part["label"] = label
    return part


@dataclass(frozen=True, slots=True)
class Number:
    value: int
    labels: tuple[str, ...] = ()
    position: int = field(default=0, compare=False)
    part: Part = field(default_factory=dict, init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        self.part.update(_labelled({"kind": "number", "value": self.value}, _label(self.labels)))

    def __str__(self) -> str:
        return f"{self.value}{_labels_text(self.labels)}"

    def bounds(self) -> Interval:
        return self.value, self.value

    def asked(self) -> int:
        return 0

    def evaluate(self, roll: Roll) -> tuple[int, Part]:
        return self.value, dict(self.part)


@dataclass(frozen=True, slots=True)
class DiceGroup:
    """``count`` dice of ``sides`` faces and what happens to them once thrown.

    ``rolling`` (rerolls, explosions, minimum, maximum) apply in the order written, then
    ``keeping`` (keep and drop) in the order written, then ``success`` counts the kept dice
    that pass instead of adding them. ``tiamat`` is Tiamat's pool (``t``)."""

    count: int
    sides: int
    rolling: tuple[Operation, ...] = ()
    keeping: tuple[Operation, ...] = ()
    success: Selector | None = None
    tiamat: bool = False
    percent: bool = False
    labels: tuple[str, ...] = ()
    position: int = field(default=0, compare=False)
    text: str = field(default="", init=False, compare=False)
    label: str = field(default="", init=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "text", self._notation())
        object.__setattr__(self, "label", _label(self.labels))

    def __str__(self) -> str:
        return self.text + _labels_text(self.labels)

    def _notation(self) -> str:
        text = f"{self.count}d{'%' if self.percent else self.sides}" + "t" * self.tiamat
        bang = False  # a group takes one '!': another explosion on the highest face is "e6"
        for op in self.rolling + self.keeping:
            written = op.text(None if bang else self.sides)
            bang |= written == "!"
            text += written
        if self.success is not None:
            success = self.success.text("")
            if text.endswith("!") and success.startswith("="):  # "!=" reads "not equal"
                text = f"{text[:-1]}e{self.sides}"
            text += success
        return text

    @property
    def plain(self) -> bool:
        """Thrown and added, nothing else (the fast path)."""
        return not (self.rolling or self.keeping or self.success or self.tiamat)

    def asked(self) -> int:
        return max(1, self.count) if self.tiamat else self.count

    def bounds(self) -> Interval:
        return dice_pool.group_bounds(self)

    def evaluate(self, roll: Roll) -> tuple[int, Part]:
        """Throw the group as group number ``roll.groups``; its dice join ``roll.out``."""
        group = roll.groups
        roll.groups = group + 1
        value = roll_group(self, roll.dice, group, 1, roll.out, roll.budget)
        part = {"kind": "dice", "group": group, "notation": self.text, "value": value}
        if self.label:
            part["label"] = self.label
        return value, part


@dataclass(frozen=True, slots=True)
class Unary:
    op: str  # "+" or "-"
    operand: Node
    position: int = field(default=0, compare=False)

    def __str__(self) -> str:
        return f"{self.op}{self.operand}"

    def bounds(self) -> Interval:
        low, high = self.operand.bounds()
        return (-high, -low) if self.op == "-" else (low, high)

    def asked(self) -> int:
        return self.operand.asked()

    def evaluate(self, roll: Roll) -> tuple[int, Part]:
        value, part = self.operand.evaluate(roll)
        value = -value if self.op == "-" else value
        return value, {"kind": "unary", "op": self.op, "operand": part, "value": value}


def _floor_divide(left: int, right: int) -> int:
    return left // right


ARITHMETIC: dict[str, Callable[[int, int], int]] = {
    "+": int.__add__, "-": int.__sub__, "*": int.__mul__,
    "/": _floor_divide, "//": _floor_divide, "%": int.__mod__,
}
"""A division rounds down, as the rulebooks do (« arrondi à l'inférieur »): ``/`` and ``//``
are the same (docs/dice.md § Arithmetic)."""


@dataclass(frozen=True, slots=True)
class Chain:
    """Operands joined by operators of one precedence level, left to right: ``1d20+5-1d4``
    (``+ -``) or ``2*3//4`` (``* / // %``). One node for a whole chain keeps the tree
    shallow however long a sum is."""

    operands: tuple[Node, ...]
    ops: tuple[str, ...]
    positions: tuple[int, ...] = field(default=(), compare=False)  # of each operator

    def __str__(self) -> str:
        text = str(self.operands[0])
        for op, operand in zip(self.ops, self.operands[1:], strict=True):
            text += f"{op}{operand}"
        return text

    def asked(self) -> int:
        return sum(operand.asked() for operand in self.operands)

    def bounds(self) -> Interval:
        low, high = self.operands[0].bounds()
        for index, (op, operand) in enumerate(zip(self.ops, self.operands[1:], strict=True)):
            right = operand.bounds()
            if op in ("/", "//", "%") and right[0] <= 0 <= right[1]:
                refuse("division_by_zero", self.positions[index], op)
            low, high = _interval(op, (low, high), right)
        return low, high

    def evaluate(self, roll: Roll) -> tuple[int, Part]:
        operands = self.operands
        value, first = operands[0].evaluate(roll)
        terms = [first]
        for index, op in enumerate(self.ops, 1):
            right, part = operands[index].evaluate(roll)
            value = ARITHMETIC[op](value, right)
            terms.append(part)
        return value, {"kind": "chain", "ops": list(self.ops), "terms": terms, "value": value}


def _interval(op: str, left: Interval, right: Interval) -> Interval:
    (a, b), (c, d) = left, right
    if op == "+":
        return a + c, b + d
    if op == "-":
        return a - d, b - c
    if op == "%":  # Python's modulo takes the divisor's sign
        if c > 0:
            return (a, b) if a >= 0 and b < c else (0, d - 1)
        return (c + 1, 0)
    corners = [ARITHMETIC[op](x, y) for x in (a, b) for y in (c, d)]
    return min(corners), max(corners)


@dataclass(frozen=True, slots=True)
class Group:
    """``( … )``: parentheses around one expression, or a set ``(a, b, …)`` whose items keep
    and drop like dice (``(1d20+5, 1d20+3)kh1``). ``comma`` says a set was written (a
    trailing comma makes ``(1d6,)`` a set of one)."""

    items: tuple[Node, ...]
    keeping: tuple[Operation, ...] = ()
    comma: bool = False
    labels: tuple[str, ...] = ()
    position: int = field(default=0, compare=False)
    label: str = field(default="", init=False, compare=False)
    pool: DiceGroup | None = field(default=None, init=False, compare=False)
    """``(4d6)kh3`` keeps and drops among the dice, as d20 reads it: that is ``4d6kh3``."""
    is_set: bool = field(default=False, init=False, compare=False)
    """A set (``(a, b)``, ``(a,)``, ``(1d20+5)kh1``), not parentheses around one value."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "label", _label(self.labels))
        object.__setattr__(self, "pool", _dice_inside(self) if self.keeping else None)
        object.__setattr__(self, "is_set", self.comma or len(self.items) != 1 or bool(
            self.keeping and self.pool is None))

    def __str__(self) -> str:
        inside = ", ".join(str(item) for item in self.items)
        if self.comma and len(self.items) == 1:
            inside += ","
        keeping = "".join(op.text(None) for op in self.keeping)
        return f"({inside}){keeping}{_labels_text(self.labels)}"

    def asked(self) -> int:
        return sum(item.asked() for item in self.items)

    def bounds(self) -> Interval:
        if self.pool is not None:
            return self.pool.bounds()
        ranges = [item.bounds() for item in self.items]
        if not self.keeping:
            return sum(low for low, _ in ranges), sum(high for _, high in ranges)
        if any(selector.by_value for op in self.keeping for selector in op.selectors):
            # An item is kept or counts 0: each adds between min(0, low) and max(0, high).
            return (sum(min(0, low) for low, _ in ranges),
                    sum(max(0, high) for _, high in ranges))
        # Keeping by position adds order statistics, which grow with every item.
        return (_kept_sum([low for low, _ in ranges], self.keeping),
                _kept_sum([high for _, high in ranges], self.keeping))

    def evaluate(self, roll: Roll) -> tuple[int, Part]:
        if not self.is_set:
            value, inner = (self.pool or self.items[0]).evaluate(roll)
            return value, _labelled({"kind": "parens", "inner": inner, "value": value},
                                    self.label)
        values, parts = [], []
        for item in self.items:
            value, part = item.evaluate(roll)
            values.append(value)
            parts.append(part)
        kept = apply_keeping(values, [True] * len(values), self.keeping)
        value = sum(v for v, keep in zip(values, kept, strict=True) if keep)
        part = {"kind": "set", "items": parts, "kept": kept,
                "operations": "".join(op.text(None) for op in self.keeping), "value": value}
        return value, _labelled(part, self.label)


def _dice_inside(node: Node) -> DiceGroup | None:
    """The dice group that parentheses (one inside another) hold, with the keep and drop
    operators written after each closing parenthesis; None if they hold anything else."""
    if isinstance(node, DiceGroup):
        return None if node.tiamat or node.success is not None else node
    if not isinstance(node, Group) or node.comma or len(node.items) != 1:
        return None
    inner = _dice_inside(node.items[0])
    return None if inner is None else replace(inner, keeping=inner.keeping + node.keeping)


def _kept_sum(values: list[int], keeping: tuple[Operation, ...]) -> int:
    kept = apply_keeping(values, [True] * len(values), keeping)
    return sum(value for value, keep in zip(values, kept, strict=True) if keep)


@dataclass(frozen=True, slots=True)
class Comparison:
    """``left op right`` between totals: 1 when true, 0 when false. At the top of an
    expression it becomes the roll's target instead (``notation.roll``)."""

    left: Node
    op: str
    right: Node
    position: int = field(default=0, compare=False)

    def __str__(self) -> str:
        left = str(self.left)
        space = " " if left.endswith("!") else ""  # "!=" reads "not equal"
        return f"{left}{space}{self.op}{self.right}"

    def asked(self) -> int:
        return self.left.asked() + self.right.asked()

    def bounds(self) -> Interval:
        self.left.bounds(), self.right.bounds()  # checks both sides
        return 0, 1

    def holds(self, left: int, right: int) -> bool:
        return COMPARE[self.op](left, right)

    def evaluate(self, roll: Roll) -> tuple[int, Part]:
        left, left_part = self.left.evaluate(roll)
        right, right_part = self.right.evaluate(roll)
        value = int(self.holds(left, right))
        return value, {"kind": "compare", "op": self.op, "left": left_part,
                       "right": right_part, "value": value}


Node = Number | DiceGroup | Unary | Chain | Group | Comparison


@dataclass(frozen=True, slots=True)
class Expression:
    """A parsed expression: its tree and its ``#`` label (the roll's purpose)."""

    root: Node
    label: str | None = None

    def __str__(self) -> str:
        return str(self.root)

    @property
    def groups(self) -> tuple[DiceGroup, ...]:
        """Every dice group, in the order they are thrown."""
        found: list[DiceGroup] = []
        _collect_groups(self.root, found)
        return tuple(found)


def _collect_groups(node: Node, found: list[DiceGroup]) -> None:
    if isinstance(node, DiceGroup):
        found.append(node)
    elif isinstance(node, Unary):
        _collect_groups(node.operand, found)
    elif isinstance(node, Chain | Group):
        for child in node.operands if isinstance(node, Chain) else node.items:
            _collect_groups(child, found)
    elif isinstance(node, Comparison):
        _collect_groups(node.left, found)
        _collect_groups(node.right, found)
