"""Dice expressions for the free roller: ``parse`` → tree → ``roll`` with a ``Dice`` → record.

The grammar (docs/dice.md has the reference and examples)::

    expression := [sign] term (sign term)* ['#' label]
    term       := number | [number] 'd' (number | '%') modifier*
    modifier   := ('kh' | 'kl' | 'dh' | 'dl') [number] | '!' | 't'
                | ('>=' | '>' | '<=' | '<' | '=') number

Whitespace may sit between any two tokens; ``d``, ``k``, ``h``, ``l`` and ``t`` ignore case.
A hand-written scanner keeps error positions exact and parsing cheap; parsed trees are
cached, so rolling a known expression only costs the dice and the record.
"""

from __future__ import annotations

import string
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Literal, NoReturn, cast

from app.rules.dice import MAX_COUNT, MAX_SIDES, Dice, Die, Modifier, RollRecord
from app.rules.errors import NotationError

MAX_DICE = 1000
"""Dice an expression may roll before explosions and criticals; checked before rolling."""
MAX_EXPLOSIONS = 100
"""Extra dice one exploding group may add; past that, a highest face stays as it is."""
MAX_NUMBER = 1_000_000
MAX_LENGTH = 1000

Selector = Literal["kh", "kl", "dh", "dl"]
Comparison = Literal[">=", ">", "<=", "<", "="]

_COMPARE: dict[str, Callable[[int, int], bool]] = {
    ">=": int.__ge__,
    ">": int.__gt__,
    "<=": int.__le__,
    "<": int.__lt__,
    "=": int.__eq__,
}
# Which modifiers a group cannot take together (the Tiamat pool has its own keep rule;
# successes are counted over every die).
_CLASHES = {"t": ("!", "compare"), "!": ("t",), "compare": ("t", "select"), "select": ("compare",)}
_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)  # keeps positions
_DIGITS = frozenset("0123456789")  # str.isdigit() also accepts "²", which int() refuses
_new = tuple.__new__  # builds a Die without NamedTuple's Python-level __new__ (hot path)


@dataclass(frozen=True, slots=True)
class Constant:
    value: int
    sign: int
    position: int

    def __str__(self) -> str:
        return str(self.value)


@dataclass(frozen=True, slots=True)
class DiceGroup:
    """``count`` dice of ``sides`` faces and what to do with them once thrown."""

    count: int
    sides: int
    sign: int
    position: int
    select: tuple[Selector, int] | None = None
    explode: bool = False
    tiamat: bool = False
    compare: tuple[Comparison, int] | None = None
    percent: bool = False

    def __str__(self) -> str:
        text = f"{self.count}d{'%' if self.percent else self.sides}"
        text += "!" * self.explode + "t" * self.tiamat
        if self.select and not self.tiamat:
            text += f"{self.select[0]}{self.select[1]}"
        if self.compare:
            text += f"{self.compare[0]}{self.compare[1]}"
        return text

    def roll(self, dice: Dice, group: int, out: list[Die]) -> int:
        """Throw the group, append its dice to ``out`` and return what it adds to the total."""
        faces = dice.roll(self.sides, count=self.count)
        if self.tiamat:
            return self._tiamat(faces, dice, group, out)
        if not (self.explode or self.select or self.compare):
            sides, sign = self.sides, self.sign
            out += [
                _new(Die, (sides, v, True, False, False, None, None, group, sign)) for v in faces
            ]
            return sign * sum(faces)
        exploded = self._explode(faces, dice) if self.explode else [False] * len(faces)
        kept = self._kept(faces)
        passed = self._successes(faces)
        sides, count, sign = self.sides, self.count, self.sign
        for i, value in enumerate(faces):
            added = "explosion" if i >= count else None
            flags = (i in kept, exploded[i], False, passed[i], added)
            out.append(_new(Die, (sides, value, *flags, group, sign)))
        if self.compare:
            return sign * passed.count(True)
        return sign * sum(faces[index] for index in kept)

    def bounds(self) -> tuple[int, int]:
        """The smallest and largest value this group can add, before its sign."""
        if self.tiamat:
            return 1, 10 + 6 * self.count  # every d10 a 10, every critical d6 a 6
        most = self.count + (MAX_EXPLOSIONS if self.explode else 0)
        if self.compare:
            return self._success_bounds(most)
        # The least: every die a 1, which never explodes; the most: every die at its
        # highest face, exploding until the cap.
        return self._kept_count(self.count), self._kept_count(most) * self.sides

    def _explode(self, faces: list[int], dice: Dice) -> list[bool]:
        """Roll one more die for each highest face, new dice included, up to the cap.

        Extra dice are rolled in waves after the group's own dice and appended to ``faces``.
        """
        exploded = [False] * len(faces)
        start, budget = 0, MAX_EXPLOSIONS
        while budget:
            wave = [i for i in range(start, len(faces)) if faces[i] == self.sides][:budget]
            if not wave:
                break
            for index in wave:
                exploded[index] = True
            start = len(faces)
            faces += dice.roll(self.sides, count=len(wave))
            exploded += [False] * len(wave)
            budget -= len(wave)
        return exploded

    def _kept(self, faces: list[int]) -> set[int] | range:
        """Indexes of the kept faces; among equal faces the first thrown is kept."""
        if self.select is None:
            return range(len(faces))
        rule, n = self.select
        if rule == "kh" and n == 1:
            return {faces.index(max(faces))}
        high = rule in ("kh", "dl")
        order = sorted(range(len(faces)), key=faces.__getitem__, reverse=high)
        return set(order[: n if rule[0] == "k" else len(faces) - n])

    def _kept_count(self, pool: int) -> int:
        if self.select is None:
            return pool
        rule, n = self.select
        return n if rule[0] == "k" else pool - n

    def _successes(self, faces: list[int]) -> list[bool | None]:
        if self.compare is None:
            return [None] * len(faces)
        operator, threshold = self.compare
        test = _COMPARE[operator]
        return [test(value, threshold) for value in faces]

    def _success_bounds(self, most: int) -> tuple[int, int]:
        assert self.compare is not None
        operator, threshold = self.compare
        test = _COMPARE[operator]
        winning = sum(1 for face in range(1, self.sides + 1) if test(face, threshold))
        least = self.count if winning == self.sides else 0
        if test(self.sides, threshold):
            return least, most  # highest faces succeed and may explode up to the cap
        # Every explosion comes from a failing highest face, so at most `count` succeed.
        return least, self.count if winning else 0

    def _tiamat(self, faces: list[int], dice: Dice, group: int, out: list[Die]) -> int:
        """Tiamat pool: keep the best d10, and each 10 thrown adds a d6 to it.

        004_027408667edfd8d5.txt § Tests et Actions / Convention des lancers de dés /
        « On ne garde qu'un D10 » and « Critique »: « pour chaque 10 obtenu sur les dés, le
        joueur peut lancer un dé à six faces supplémentaire qu'il ajoutera au résultat du
        meilleur D10 ». Every 10 counts, kept or not (its example: 2, 10, 10 → 10 + 3 + 5 =
        18). The text says nothing of a 6 on that d6, so a 6 does not chain. "Peut" is read
        as always rolling: the d6 can only add.
        """
        best = faces.index(max(faces))
        tens = faces.count(10)
        for index, value in enumerate(faces):
            out.append(
                _new(
                    Die,
                    (10, value, index == best, False, value == 10, None, None, group, self.sign),
                )
            )
        bonus = dice.roll(6, count=tens) if tens else []
        out += [
            _new(Die, (6, value, True, False, False, None, "critical", group, self.sign))
            for value in bonus
        ]
        return self.sign * (faces[best] + sum(bonus))


Term = Constant | DiceGroup


@dataclass(frozen=True, slots=True)
class Expression:
    """A parsed expression: its dice groups, its fixed modifiers and its ``#`` label."""

    terms: tuple[Term, ...]
    label: str | None

    @property
    def groups(self) -> tuple[DiceGroup, ...]:
        return tuple(term for term in self.terms if isinstance(term, DiceGroup))

    @property
    def modifiers(self) -> tuple[Modifier, ...]:
        return tuple(
            Modifier(term.sign * term.value) for term in self.terms if isinstance(term, Constant)
        )

    def __str__(self) -> str:
        text = ""
        for term in self.terms:
            if term.sign < 0:
                text += "-"
            elif text:
                text += "+"
            text += str(term)
        return text


def parse(expr: str) -> Expression:
    """Parse a dice expression, or raise ``NotationError`` saying where and what was expected.

    Limits (dice count, sides, length) are checked here, so nothing is rolled for an
    expression that would be refused.
    """
    return _Plan.of(expr).expression


def roll(expr: str, dice: Dice, *, purpose: str | None = None) -> RollRecord:
    """Roll ``expr`` with ``dice``. ``purpose`` defaults to the expression's ``#`` label."""
    plan = _Plan.of(expr)
    out: list[Die] = []
    total = plan.constant
    for index, group in enumerate(plan.groups):
        total += group.roll(dice, index, out)
    return RollRecord(
        purpose or plan.expression.label, plan.text, tuple(out), plan.modifiers, total
    )


def bounds(expr: str | Expression) -> tuple[int, int]:
    """The smallest and largest total ``expr`` can roll.

    Exploding groups reach their largest when every die shows its highest face until the
    explosion cap (``MAX_EXPLOSIONS`` extra dice per group) stops them.
    """
    tree = parse(expr) if isinstance(expr, str) else expr
    low = high = sum(modifier.value for modifier in tree.modifiers)
    for group in tree.groups:
        least, most = group.bounds()
        if group.sign > 0:
            low, high = low + least, high + most
        else:
            low, high = low - most, high - least
    return low, high


@dataclass(frozen=True, slots=True)
class _Plan:
    """What ``roll`` needs, computed once per distinct expression text."""

    expression: Expression
    text: str
    groups: tuple[DiceGroup, ...]
    modifiers: tuple[Modifier, ...]
    constant: int

    @staticmethod
    @lru_cache(maxsize=4096)
    def of(expr: str) -> _Plan:
        tree = _Parser(expr).expression()
        modifiers = tree.modifiers
        return _Plan(tree, str(tree), tree.groups, modifiers, sum(m.value for m in modifiers))


class _Parser:
    """Recursive descent over one expression; ``pos`` indexes the caller's text."""

    def __init__(self, text: str) -> None:
        if len(text) > MAX_LENGTH:
            raise NotationError(MAX_LENGTH, code="too_long", limit=MAX_LENGTH, value=len(text))
        self.original = text
        self.text = text.translate(_LOWER)
        self.pos = 0
        self.dice = 0

    def expression(self) -> Expression:
        terms: list[Term] = []
        sign = self._sign() or 1
        while True:
            terms.append(self._term(sign))
            next_sign = self._sign()
            if next_sign is None:
                break
            sign = next_sign
        return Expression(tuple(terms), self._label(terms[-1]))

    def _sign(self) -> int | None:
        self._skip_space()
        char = self._peek()
        if char in ("+", "-"):
            self.pos += 1
            return 1 if char == "+" else -1
        return None

    def _label(self, last: Term) -> str | None:
        self._skip_space()
        if self._peek() == "#":
            return self.original[self.pos + 1 :].strip() or None
        if self.pos < len(self.text):
            self._fail(("d" if isinstance(last, Constant) else "modifier", "operator"))
        return None

    def _term(self, sign: int) -> Term:
        self._skip_space()
        start = self.pos
        count = self._number() if self._peek() in _DIGITS else None
        self._skip_space()
        if self._peek() != "d":
            if count is None:
                self._fail(("term",))
            return Constant(count, sign, start)
        self.pos += 1
        return self._dice(1 if count is None else count, sign, start)

    def _dice(self, count: int, sign: int, start: int) -> DiceGroup:
        self._check_range(count, 1, MAX_COUNT, "count", start)
        self.dice += count
        if self.dice > MAX_DICE:
            raise NotationError(start, code="too_many_dice", limit=MAX_DICE, value=self.dice)
        self._skip_space()
        sides_at = self.pos
        percent = self._peek() == "%"
        if percent:
            self.pos += 1
            sides = 100
        elif self._peek() in _DIGITS:
            sides = self._number()
        else:
            self._fail(("sides",))
        self._check_range(sides, 1, MAX_SIDES, "sides", sides_at)
        group = DiceGroup(count, sides, sign, start, percent=percent)
        return self._modifiers(group, sides_at)

    def _modifiers(self, group: DiceGroup, sides_at: int) -> DiceGroup:
        seen: dict[str, tuple[str, int]] = {}  # kind → (text, position) of each modifier
        select: tuple[Selector, int] | None = None
        compare: tuple[Comparison, int] | None = None
        kind: str
        text: str
        while True:
            self._skip_space()
            at, char = self.pos, self._peek()
            if char in ("k", "d"):
                select = self._select(group.count, at)
                kind, text = "select", select[0]
            elif char in ("!", "t"):
                self.pos += 1
                kind = text = char
            elif char in ("<", ">", "="):
                compare = self._comparison()
                kind, text = "compare", compare[0]
            else:
                break
            self._check_conflict(seen, kind, text, at)
            seen[kind] = (text, at)
        group = replace(
            group, select=select, explode="!" in seen, tiamat="t" in seen, compare=compare
        )
        self._check_combination(group, seen, sides_at)
        return group

    def _select(self, count: int, at: int) -> tuple[Selector, int]:
        self.pos += 1
        if self._peek() not in ("h", "l"):
            self._fail(("h_or_l",))
        rule = cast(Selector, self.text[at] + self._peek())
        self.pos += 1
        self._skip_space()
        number_at = self.pos
        n = self._number() if self._peek() in _DIGITS else 1
        if rule[0] == "k":
            self._check_range(n, 1, count, "keep", number_at)
        else:
            self._check_range(n, 0, count - 1, "drop", number_at)
        return rule, n

    def _comparison(self) -> tuple[Comparison, int]:
        operator = self.text[self.pos]
        self.pos += 1
        if operator != "=" and self._peek() == "=":
            operator += "="
            self.pos += 1
        self._skip_space()
        if self._peek() not in _DIGITS:
            self._fail(("number",))
        return cast(Comparison, operator), self._number()

    def _check_conflict(
        self, seen: dict[str, tuple[str, int]], kind: str, text: str, at: int
    ) -> None:
        if kind in seen and seen[kind][0] == text:
            raise NotationError(at, (), text, code="modifier_repeated")
        for other in (kind, *_CLASHES[kind]):
            if other in seen:
                raise NotationError(at, (), text, code="modifier_conflict", other=seen[other][0])

    def _check_combination(
        self, group: DiceGroup, seen: dict[str, tuple[str, int]], sides_at: int
    ) -> None:
        if group.tiamat:
            if group.sides != 10:
                raise NotationError(
                    seen["t"][1], (), "t", code="tiamat_needs_d10", sides=group.sides
                )
            if group.select not in (None, ("kh", 1)):
                text, at = seen["select"]
                raise NotationError(at, (), text, code="modifier_conflict", other="t")
        if group.explode and group.sides < 2:  # a d1 would explode for ever
            self._check_range(group.sides, 2, MAX_SIDES, "sides", sides_at)

    def _check_range(self, value: int, low: int, high: int, what: str, at: int) -> None:
        if not low <= value <= high:
            raise NotationError(
                at, code="notation_range", what=what, low=low, high=high, value=value
            )

    def _number(self) -> int:
        start = self.pos
        while self._peek() in _DIGITS:
            self.pos += 1
        value = int(self.text[start : self.pos])
        self._check_range(value, 0, MAX_NUMBER, "number", start)
        return value

    def _peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def _skip_space(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def _fail(self, expected: tuple[str, ...]) -> NoReturn:
        found = self.text[self.pos] if self.pos < len(self.text) else None
        raise NotationError(self.pos, expected, found and self.original[self.pos])
