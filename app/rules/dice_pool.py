"""One dice group thrown: rerolls, explosions, minimum and maximum, keeping and dropping,
success counts and Tiamat's pool (docs/dice.md § Reference).

The operators that change the dice (``rr ro ra e ! mi ma``) apply first, in the order
written; keeping and dropping (``k p d``) then apply to what is left, in the order written;
a success count (``>=8``) comes last. The record lists each die followed by the dice it
caused (a reroll, an explosion), so a chain reads in order: ``6! 6! 3``, ``~1~ 4``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NoReturn

from app.rules.dice import Dice, Die
from app.rules.errors import NotationError

if TYPE_CHECKING:
    from app.rules.dice_tree import DiceGroup

MAX_EXPLOSIONS = 100
"""Extra dice one group's explosions may add; past that, a matching face stays as it is."""
MAX_EXTRA_DICE = 1000
"""Dice rerolls and explosions may add to one expression in all (d20 stops at 1000 too)."""

COMPARE: dict[str, Callable[[int, int], bool]] = {
    ">=": int.__ge__, ">": int.__gt__, "<=": int.__le__, "<": int.__lt__,
    "=": int.__eq__, "!=": int.__ne__,
}
_MATCHES: dict[str, Callable[[int], Callable[[int], bool]]] = {
    ">=": lambda n: n.__le__, ">": lambda n: n.__lt__, "<=": lambda n: n.__ge__,
    "<": lambda n: n.__gt__, "=": lambda n: n.__eq__, "!=": lambda n: n.__ne__,
}
_new = tuple.__new__  # builds a Die without NamedTuple's Python-level __new__ (hot path)


def _never(number: int) -> Callable[[int], bool]:
    return lambda value: False


def refuse(code: str, position: int, found: str | None = None, **fields: object) -> NoReturn:
    """Raise the ``NotationError`` ``code`` at ``position`` (0-based, in the typed text)."""
    raise NotationError(position, (), found, code=code, **fields)


@dataclass(frozen=True, slots=True)
class Selector:
    """Which dice (or set items) an operator acts on: the ``h``ighest or ``l``owest
    ``number`` of them, or those whose value compares so with ``number``."""

    kind: str  # "h", "l", ">", "<", ">=", "<=", "=", "!="
    number: int
    matches: Callable[[int], bool] = field(init=False, compare=False, repr=False)
    """Whether a value passes (a selector by value): ``n.__gt__`` for ``<n``, at C speed."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "matches", _MATCHES.get(self.kind, _never)(self.number))

    @property
    def by_value(self) -> bool:
        return self.kind not in ("h", "l")

    def text(self, op: str) -> str:
        """The canonical spelling after operator ``op`` (``""`` for a success count)."""
        if op == "p" and not self.by_value:
            return f"d{self.kind}{self.number}"  # dh1, dl1 as Roll20 writes them
        if self.kind == "=" and op not in ("", "k"):
            return f"{op}{self.number}"  # ro1, e6, p3, mi2: a bare number is that face
        return f"{op}{self.kind}{self.number}"


@dataclass(frozen=True, slots=True)
class Operation:
    """One operator of a group or set and its selectors: consecutive rerolls or explosions
    join (``ro1ro2``, as in d20); keep and drop chain, each on what the last one kept."""

    op: str  # rr ro ra e mi ma (dice only), k p
    selectors: tuple[Selector, ...]
    matches: Callable[[int], bool] = field(init=False, compare=False, repr=False)
    """Whether a value passes any of the selectors (by value)."""
    by_value: bool = field(init=False, compare=False, repr=False)
    """Every selector picks by value (none by position)."""

    def __post_init__(self) -> None:
        tests = [selector.matches for selector in self.selectors]
        object.__setattr__(self, "matches", tests[0] if len(tests) == 1 else (
            lambda value: any(test(value) for test in tests)))
        object.__setattr__(self, "by_value", all(s.by_value for s in self.selectors))

    def text(self, sides: int | None) -> str:
        if self.op == "e" and self.selectors == (Selector("=", sides or 0),):
            return "!"
        return "".join(selector.text(self.op) for selector in self.selectors)


def select(selector: Selector, candidates: Sequence[int], values: Sequence[int],
           *, first: bool) -> list[int]:
    """The indexes of ``candidates`` that ``selector`` picks. Among equal values ``first``
    picks the earliest thrown (keeping), otherwise the latest (dropping): either way the
    first thrown is the one that stays."""
    if selector.by_value:
        return [i for i in candidates if selector.matches(values[i])]
    if selector.kind == "h":
        key = values.__getitem__ if first else (lambda i: (values[i], i))
        return sorted(candidates, key=key, reverse=True)[: selector.number]
    key = values.__getitem__ if first else (lambda i: (values[i], -i))
    return sorted(candidates, key=key)[: selector.number]


def apply_keeping(values: Sequence[int], kept: list[bool],
                  keeping: Sequence[Operation]) -> list[bool]:
    """``kept`` after each keep (``k``) or drop (``p``) operation, in order."""
    for operation in keeping:
        candidates = [i for i, keep in enumerate(kept) if keep]
        first = operation.op == "k"
        chosen: set[int] = set()
        for selector in operation.selectors:
            chosen.update(select(selector, candidates, values, first=first))
        for i in candidates:
            if (i in chosen) != first:
                kept[i] = False
    return kept


# — Bounds, before any die is thrown —


def group_bounds(group: DiceGroup) -> tuple[int, int]:
    """The smallest and largest value ``group`` can add (docs/dice.md § Totals and bounds)."""
    if group.tiamat:
        return 1, 10 + 6 * max(1, group.count)  # every d10 a 10, every critical d6 a 6
    low, high, most, explodes, only_explosions = _faces_and_counts(group)
    kept_low, kept_high = group.count, most
    for operation in group.keeping:
        kept_low, kept_high = _kept_counts(operation, kept_low, kept_high)
    if group.success is None:
        return kept_low * low, kept_high * high
    passing = _passing(group.success, low, high)
    if passing is False:
        return 0, 0
    if passing is True:
        return kept_low, kept_high
    if explodes and only_explosions and not group.keeping and not any(
            group.success.matches(face) for face in range(1, group.sides + 1)
            if any(op.matches(face) for op in group.rolling)):
        return 0, group.count  # each chain ends on one die that did not explode
    return 0, kept_high


def _faces_and_counts(group: DiceGroup) -> tuple[int, int, int, bool, bool]:
    """The lowest and highest face a die can end on, the most dice the group can hold,
    whether it explodes and whether explosions are its only operators."""
    low, high, most = 1, group.sides, group.count
    explodes, only_explosions = False, True
    for operation in group.rolling:
        if operation.op in ("mi", "ma"):
            only_explosions = False
            n = operation.selectors[0].number
            low, high = (max(low, n), max(high, n)) if operation.op == "mi" else (
                min(low, n), min(high, n))
            continue
        low, high = min(low, 1), max(high, group.sides)  # a fresh die: any face
        explodes |= operation.op == "e"
        only_explosions &= operation.op == "e"
        most += operation.op == "ra" and group.count > 0
    if explodes and group.count:
        most += MAX_EXPLOSIONS
    return low, high, most, explodes, only_explosions


def _kept_counts(operation: Operation, low: int, high: int) -> tuple[int, int]:
    """How many dice stay after ``operation`` when ``low`` to ``high`` were there."""
    if any(selector.by_value for selector in operation.selectors):
        return 0, high
    largest = max(selector.number for selector in operation.selectors)
    total = sum(selector.number for selector in operation.selectors)
    if operation.op == "k":
        return min(low, largest), min(high, total)
    return max(0, low - total), max(0, high - largest)


def _passing(selector: Selector, low: int, high: int) -> bool | None:
    """True if every face from ``low`` to ``high`` passes, False if none does."""
    if selector.kind in (">=", ">"):
        return True if selector.matches(low) else False if not selector.matches(high) else None
    if selector.kind in ("<=", "<"):
        return True if selector.matches(high) else False if not selector.matches(low) else None
    inside = low <= selector.number <= high
    if low == high == selector.number:
        return selector.kind == "="
    if not inside:
        return selector.kind == "!="
    return None


# — Rolling —


def roll_group(group: DiceGroup, dice: Dice, index: int, sign: int, out: list[Die],
               budget: list[int]) -> int:
    """Throw ``group``, append its dice to ``out`` (as group ``index``, ``sign`` 1 or -1)
    and return what it adds to the total. ``budget[0]`` is how many more dice rerolls and
    explosions may add to the expression."""
    if group.tiamat:
        return _tiamat(group, dice, index, sign, out)
    sides = group.sides
    faces = dice.roll(sides, count=group.count) if group.count else []
    if group.plain:
        out += [_new(Die, (sides, v, True, False, False, None, None, index, sign, False, None))
                for v in faces]
        return sign * sum(faces)
    thrown = [[face, True, False, False, None, None, None, None] for face in faces]
    live = thrown[:]
    explosions = [0]  # extra dice the group's explosions added so far
    for operation in group.rolling:
        _ROLLING[operation.op](live, operation, sides, dice, budget, explosions)
    if group.keeping:
        kept = apply_keeping([die[_VALUE] for die in live], [True] * len(live), group.keeping)
        for die, keep in zip(live, kept, strict=True):
            die[_KEPT] = keep
    if group.success is not None:
        matches = group.success.matches
        value = 0
        for die in live:
            if die[_KEPT]:
                die[_SUCCESS] = passed = matches(die[_VALUE])
                value += passed
    else:
        value = sum([die[_VALUE] for die in live if die[_KEPT]])
    _record(thrown, sides, index, sign, out)
    return sign * value


# A die while its group's operators act on it (a list, for speed): its value, whether it
# counts, whether it exploded, whether it was rerolled, the face thrown when mi/ma changed
# it, why it was added, the dice it caused, whether it is a success.
_VALUE, _KEPT, _EXPLODED, _REROLLED, _ROLLED, _ADDED, _CAUSED, _SUCCESS = range(8)


def _added(dice: Dice, sides: int, causes: list[list], budget: list[int], why: str) -> list[list]:
    """One more die for each of ``causes`` (while the budget lasts), each listed after it."""
    if not causes:
        return []
    causes = causes[: budget[0]]
    budget[0] -= len(causes)
    new = []
    for cause, face in zip(causes, dice.roll(sides, count=len(causes)), strict=True):
        die = [face, True, False, False, None, why, None, None]
        if cause[_CAUSED] is None:
            cause[_CAUSED] = [die]
        else:
            cause[_CAUSED].append(die)
        new.append(die)
    return new


def _targets(live: list[list], operation: Operation) -> list[int]:
    """Where in ``live`` the dice ``operation`` picks are, in the order they were thrown."""
    if operation.by_value:
        matches = operation.matches
        return [i for i, die in enumerate(live) if matches(die[_VALUE])]
    values = [die[_VALUE] for die in live]
    chosen: set[int] = set()
    for selector in operation.selectors:
        chosen.update(select(selector, range(len(live)), values, first=True))
    return sorted(chosen)


def _reroll(live: list[list], targets: list[int], sides: int, dice: Dice,
            budget: list[int]) -> list[int]:
    """Throw the dice at ``targets`` again (while the budget lasts): each new die takes the
    old one's place and is listed after it. Returns the places rerolled."""
    targets = targets[: budget[0]]
    if not targets:
        return targets
    budget[0] -= len(targets)
    for i, face in zip(targets, dice.roll(sides, count=len(targets)), strict=True):
        old = live[i]
        old[_REROLLED], old[_KEPT] = True, False
        live[i] = new = [face, True, False, False, None, "reroll", None, None]
        if old[_CAUSED] is None:
            old[_CAUSED] = [new]
        else:
            old[_CAUSED].append(new)
    return targets


def _reroll_once(live: list[list], operation: Operation, sides: int, dice: Dice,
                 budget: list[int], explosions: list[int]) -> None:
    _reroll(live, _targets(live, operation), sides, dice, budget)


def _reroll_until(live: list[list], operation: Operation, sides: int, dice: Dice,
                  budget: list[int], explosions: list[int]) -> None:
    targets = _targets(live, operation)
    while targets:
        rerolled = _reroll(live, targets, sides, dice, budget)
        targets = [i for i in rerolled if operation.matches(live[i][_VALUE])]


def _reroll_and_add(live: list[list], operation: Operation, sides: int, dice: Dice,
                    budget: list[int], explosions: list[int]) -> None:
    """``ra``: the first die picked throws one more, which adds (d20's "explode once")."""
    targets = _targets(live, operation)[:1]
    live += _added(dice, sides, [live[i] for i in targets], budget, "reroll")


def _explode(live: list[list], operation: Operation, sides: int, dice: Dice,
             budget: list[int], explosions: list[int]) -> None:
    """Each die that matches throws one more, which may explode in turn, wave after wave,
    up to ``MAX_EXPLOSIONS`` extra dice for the group."""
    wave = [die for die in live if operation.matches(die[_VALUE])]
    while wave:
        wave = wave[: MAX_EXPLOSIONS - explosions[0]]
        new = _added(dice, sides, wave, budget, "explosion")
        for die in wave[: len(new)]:
            die[_EXPLODED] = True
        explosions[0] += len(new)
        live += new
        wave = [die for die in new if operation.matches(die[_VALUE])]


def _clamp(live: list[list], operation: Operation, sides: int, dice: Dice,
           budget: list[int], explosions: list[int]) -> None:
    """``mi``, ``ma``: a face below the minimum (above the maximum) becomes it."""
    bound = operation.selectors[0].number
    for die in live:
        value = die[_VALUE]
        if value < bound if operation.op == "mi" else value > bound:
            if die[_ROLLED] is None:
                die[_ROLLED] = value
            die[_VALUE] = bound


_ROLLING = {"ro": _reroll_once, "rr": _reroll_until, "ra": _reroll_and_add, "e": _explode,
            "mi": _clamp, "ma": _clamp}


def _record(thrown: list[list], sides: int, group: int, sign: int, out: list[Die]) -> None:
    """Every die in reading order: each one, then the dice it caused."""
    append = out.append
    for die in thrown:
        append(_new(Die, (sides, die[_VALUE], die[_KEPT], die[_EXPLODED], False,
                          die[_SUCCESS], die[_ADDED], group, sign, die[_REROLLED],
                          die[_ROLLED])))
        if die[_CAUSED] is not None:
            stack = die[_CAUSED][::-1]  # a chain may be long: no recursion
            while stack:
                die = stack.pop()
                append(_new(Die, (sides, die[_VALUE], die[_KEPT], die[_EXPLODED], False,
                                  die[_SUCCESS], die[_ADDED], group, sign, die[_REROLLED],
                                  die[_ROLLED])))
                if die[_CAUSED] is not None:
                    stack += die[_CAUSED][::-1]


def _tiamat(group: DiceGroup, dice: Dice, index: int, sign: int, out: list[Die]) -> int:
    """Tiamat pool: keep the best d10, and each 10 thrown adds a d6 to it.

    004_027408667edfd8d5.txt § Tests et Actions / Convention des lancers de dés /
    « On ne garde qu'un D10 » and « Critique »: « pour chaque 10 obtenu sur les dés, le
    joueur peut lancer un dé à six faces supplémentaire qu'il ajoutera au résultat du
    meilleur D10 ». Every 10 counts, kept or not (its example: 2, 10, 10 → 10 + 3 + 5 =
    18). The text says nothing of a 6 on that d6, so a 6 does not chain. "Peut" is read
    as always rolling: the d6 can only add. « Un dé minimum »: « le personnage pourra
    toujours lancer 1D10 », so ``0d10t`` throws one.
    """
    faces = dice.roll(10, count=max(1, group.count))
    best = faces.index(max(faces))
    tens = faces.count(10)
    out += [_new(Die, (10, value, i == best, False, value == 10, None, None, index, sign,
                       False, None)) for i, value in enumerate(faces)]
    bonus = dice.roll(6, count=tens) if tens else []
    out += [_new(Die, (6, value, True, False, False, None, "critical", index, sign, False,
                       None)) for value in bonus]
    return sign * (faces[best] + sum(bonus))
