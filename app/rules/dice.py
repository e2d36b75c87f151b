"""Where dice come from, and what a roll leaves behind.

A rule never draws randomness itself: it takes a ``Dice``. ``SystemDice`` is fair and
unpredictable (the table), ``SeededDice`` repeats itself (simulations), ``ScriptedDice`` hands
out the faces a test wrote down and fails loudly when the rules ask for something else.

Every roll ends as a ``RollRecord`` that keeps every face and why it counted or not, so a log
line explains itself and can be replayed without rolling again.
"""

from __future__ import annotations

import random  # the only module of app.rules allowed to: everything else takes a Dice
import secrets
import sys
from array import array
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple, Protocol, runtime_checkable

from app.rules.errors import DiceError, ScriptedDiceError
from app.rules.purposes import Purpose

MAX_SIDES = 1000
MAX_COUNT = 1000

_SPAN = 1 << 32  # each face is drawn from 32 random bits
_WORD = "I" if array("I").itemsize == 4 else "L"


@runtime_checkable
class Dice(Protocol):
    """A source of die faces: ``count`` faces of a die with ``sides`` sides, each in 1..sides.

    A source may also limit the dice of one roll (``app.services.dice_cap``): it then has
    ``reserve(count) -> Dice``, which ``app.rules.notation.roll`` calls with the dice an
    expression asks for before throwing any, and rolls with the source it returns."""

    def roll(self, sides: int, *, count: int = 1) -> list[int]: ...


def _check_request(sides: int, count: int) -> None:
    if not 1 <= sides <= MAX_SIDES or not 0 <= count <= MAX_COUNT:
        raise DiceError(sides=sides, count=count)


class _RandomDice:
    """Faces from a ``random.Random``-like generator, unbiased, one draw per call.

    Each face takes 32 random bits; a draw at or above the largest multiple of ``sides`` is
    rejected (probability < sides / 2**32) so every face is exactly equally likely. Drawing
    all the bytes at once matters for ``SystemDice``: one system call per group, not per die.
    """

    __slots__ = ("_randbytes",)

    def __init__(self, generator: random.Random) -> None:
        self._randbytes = generator.randbytes

    def roll(self, sides: int, *, count: int = 1) -> list[int]:
        if count == 1 and 1 <= sides <= MAX_SIDES:  # one die: the face array() would read
            word = int.from_bytes(self._randbytes(4), sys.byteorder)
            if word < _SPAN - _SPAN % sides:
                return [word % sides + 1]
        _check_request(sides, count)
        limit = _SPAN - _SPAN % sides
        words = array(_WORD, self._randbytes(4 * count))
        faces = [word % sides + 1 for word in words if word < limit]
        while len(faces) < count:
            faces += self.roll(sides, count=count - len(faces))
        return faces


class SystemDice(_RandomDice):
    """Fair, unpredictable dice from the operating system (``secrets.SystemRandom``)."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__(secrets.SystemRandom())


class SeededDice(_RandomDice):
    """Repeatable dice for simulations: the same seed gives the same faces."""

    __slots__ = ("seed",)

    def __init__(self, seed: int | str | bytes) -> None:
        super().__init__(random.Random(seed))  # noqa: S311 — reproducible on purpose
        self.seed = seed


ScriptEntry = int | tuple[int, int]
"""A scripted face: ``4`` (any die that can show a 4) or ``(10, 4)`` (a d10 showing 4)."""


class ScriptedDice:
    """Hands out the faces a test wrote down, in order, and fails loudly on any surprise.

    An entry is a face (``4``) or a die and its face (``(10, 4)``: "a d10 showing 4"). It
    fails when a face cannot come from the die the rules roll, when a ``(sides, face)`` entry
    meets a die of another size, and when the rules ask for more dice than scripted.
    """

    def __init__(self, faces: Iterable[ScriptEntry]) -> None:
        self._script: list[ScriptEntry] = list(faces)
        self._next = 0

    @property
    def remaining(self) -> tuple[ScriptEntry, ...]:
        """The entries not rolled yet."""
        return tuple(self._script[self._next :])

    def roll(self, sides: int, *, count: int = 1) -> list[int]:
        _check_request(sides, count)
        return [self._take(sides) for _ in range(count)]

    def assert_exhausted(self) -> None:
        """Fail when the rules rolled fewer dice than the test scripted."""
        if self.remaining:
            left = self.remaining
            raise ScriptedDiceError("script_not_exhausted", remaining=len(left), faces=list(left))

    def _take(self, sides: int) -> int:
        if self._next >= len(self._script):
            raise ScriptedDiceError("script_exhausted", sides=sides, size=len(self._script))
        entry, index = self._script[self._next], self._next + 1
        face = entry
        if isinstance(entry, tuple):
            scripted_sides, face = entry
            if scripted_sides != sides:
                raise ScriptedDiceError(
                    "script_wrong_die", index=index, scripted_sides=scripted_sides, sides=sides
                )
        if not isinstance(face, int) or not 1 <= face <= sides:
            raise ScriptedDiceError("script_mismatch", index=index, face=face, sides=sides)
        self._next += 1
        return face


class Die(NamedTuple):
    """One face in a roll and what happened to it.

    ``group`` is the index of the dice group in its expression and ``sign`` whether that
    group adds (1) or subtracts (-1). ``success`` is ``None`` unless the group counts
    successes (and for a die that does not count). ``added`` says why a die joined after the
    first throw: ``"explosion"`` (the die before it exploded), ``"reroll"`` (it rerolls the
    die before it) or ``"critical"`` (a Tiamat critical d6). ``rerolled``: this face was
    thrown again and no longer counts. ``rolled``: the face thrown, when a minimum or a
    maximum (``mi``, ``ma``) changed it into ``value``. A record lists each die followed by
    the dice it caused.
    """

    sides: int
    value: int
    kept: bool = True
    exploded: bool = False
    critical: bool = False
    success: bool | None = None
    added: str | None = None
    group: int = 0
    sign: int = 1
    rerolled: bool = False
    rolled: int | None = None

    @property
    def dropped(self) -> bool:
        return not self.kept

    def to_dict(self) -> dict[str, Any]:
        """The die as JSON; ``rerolled`` and ``rolled`` only when they say something, so a
        record reads as it always did when no die was rerolled or changed."""
        data = self._asdict()
        if not self.rerolled:
            del data["rerolled"]
        if self.rolled is None:
            del data["rolled"]
        return data


class Modifier(NamedTuple):
    """A fixed number added to a roll, with what it stands for when a rule names it.

    A label the rules name in words that are not game terms is a ``Purpose`` (« MJ » is
    ``Purpose("GM")``), said in the reader's language like a roll's purpose; a game term
    (a skill, a characteristic as the seed writes it) or the GM's own words stay a ``str``."""

    value: int
    label: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """``{"value", "label"}``, plus ``label_message`` when the rules named the label."""
        data: dict[str, Any] = {"value": self.value,
                                "label": None if self.label is None else str(self.label)}
        if isinstance(self.label, Purpose):
            data["label_message"] = self.label.message()
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Modifier:
        return cls(data["value"], _purpose(data.get("label"), data.get("label_message")))

    def text(self, language: str | None = None) -> str | None:
        """The label in ``language`` (French, as stored, when None)."""
        if isinstance(self.label, Purpose) and language is not None:
            return self.label.text(language)
        return None if self.label is None else str(self.label)


@dataclass(frozen=True, slots=True)
class RollRecord:
    """Everything one roll did: why, what was rolled, every face, the total, the verdict.

    ``tree`` is the evaluated expression when it is more than a sum of dice groups and
    numbers (``(1d20+5)*2``, a set, an annotation, a comparison of totals): nested parts,
    each with its ``value`` (docs/dice.md § Records). None for a plain sum, whose groups
    (``Die.group``, ``Die.sign``) and ``modifiers`` already explain the total."""

    purpose: str | None
    expression: str
    dice: tuple[Die, ...]
    modifiers: tuple[Modifier, ...]
    total: int
    target: int | None = None
    outcome: str | None = None
    tree: Mapping[str, Any] | None = field(default=None, hash=False)

    @property
    def kept(self) -> tuple[Die, ...]:
        return tuple(die for die in self.dice if die.kept)

    @property
    def dropped(self) -> tuple[Die, ...]:
        return tuple(die for die in self.dice if not die.kept)

    def with_modifiers(self, *modifiers: Modifier) -> RollRecord:
        """The same roll with more fixed bonuses or maluses (e.g. a skill) in its total."""
        extra = sum(modifier.value for modifier in modifiers)
        return replace(self, modifiers=self.modifiers + modifiers, total=self.total + extra)

    def with_target(self, target: int | None, outcome: str | None = None) -> RollRecord:
        return replace(self, target=target, outcome=outcome)

    def describe(self, language: str | None = None) -> str:
        """One log line, e.g. ``2d10kh1: 1, 6 → 6 + 2 = 8`` (see docs/dice.md)."""
        return describe(self, language)

    def to_dict(self) -> dict[str, Any]:
        """The record as JSON. A purpose the rules named (``Purpose``) keeps its message id
        and parameters as ``purpose_message``, so a page says it in the reader's language."""
        data = {
            "purpose": None if self.purpose is None else str(self.purpose),
            "expression": self.expression,
            "dice": [die.to_dict() for die in self.dice],
            "modifiers": [modifier.to_dict() for modifier in self.modifiers],
            "total": self.total,
            "target": self.target,
            "outcome": self.outcome,
        }
        if isinstance(self.purpose, Purpose):
            data["purpose_message"] = self.purpose.message()
        if self.tree is not None:
            data["tree"] = self.tree
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RollRecord:
        return cls(
            purpose=_purpose(data.get("purpose"), data.get("purpose_message")),
            expression=data["expression"],
            dice=tuple(Die(**die) for die in data["dice"]),
            modifiers=tuple(Modifier.from_dict(modifier) for modifier in data.get("modifiers", ())),
            total=data["total"],
            target=data.get("target"),
            outcome=data.get("outcome"),
            tree=data.get("tree"),
        )


_SET_FIELDS = tuple(getattr(RollRecord, name).__set__ for name in (
    "purpose", "expression", "dice", "modifiers", "total", "target", "outcome", "tree"))


def new_record(purpose: str | None, expression: str, dice: tuple[Die, ...],
               modifiers: tuple[Modifier, ...], total: int, target: int | None = None,
               outcome: str | None = None, tree: Mapping[str, Any] | None = None) -> RollRecord:
    """``RollRecord(…)`` without the frozen dataclass's ``__init__``, which costs half of a
    plain roll (``app.rules.notation`` makes every roll here; bench/rolls.py)."""
    record = object.__new__(RollRecord)
    set_purpose, set_expression, set_dice, set_modifiers, set_total, set_target, \
        set_outcome, set_tree = _SET_FIELDS
    set_purpose(record, purpose)
    set_expression(record, expression)
    set_dice(record, dice)
    set_modifiers(record, modifiers)
    set_total(record, total)
    set_target(record, target)
    set_outcome(record, outcome)
    set_tree(record, tree)
    return record


def _purpose(text: object, message: object) -> str | None:
    if not isinstance(text, str):
        return text  # type: ignore[return-value]  # as stored (transfer checks say more)
    return Purpose.restored(text, message) if message is not None else text


def group_value(dice: Iterable[Die]) -> int:
    """What one group of dice adds to a total: its kept faces, or its successes."""
    dice = list(dice)
    if any(die.success is not None for die in dice):
        value = sum(1 for die in dice if die.kept and die.success)
    else:
        value = sum(die.value for die in dice if die.kept)
    return dice[0].sign * value if dice else 0


def describe(record: RollRecord, language: str | None = None) -> str:
    """``expression: faces → parts = total`` then the target and the outcome when known.

    Faces are listed group by group (``;`` between groups); ``!`` marks a die that exploded,
    ``*`` a Tiamat critical 10, ``~1~`` a face rerolled, ``~1~2`` a face a minimum or a
    maximum changed. The parts show each group's value (a Tiamat group as ``best + d6 …``),
    laid out as the expression is (``(12 + 5) * 2``, ``(17, ~9~)``, ``5 [feu]``), then each
    modifier; the arrow is left out when there is nothing to add up. Modifier labels the
    rules named are said in ``language`` (as stored when None); French puts a space before
    « : » and « ; » (« 2d10t : 6, 3 = 6 »).
    """
    groups: dict[int, list[Die]] = {}
    for die in record.dice:
        groups.setdefault(die.group, []).append(die)
    space = " " if language == "fr" else ""
    faces = f"{space}; ".join(
        ", ".join(_face_text(die) for die in group if die.added != "critical")
        for group in groups.values()
    )
    tree = record.tree
    judged = tree is not None and tree.get("kind") == "compare" and record.target is not None
    if tree is None:
        parts = [_group_text(group) for group in groups.values()]
    else:
        parts = [(1, _tree_text(tree["left"] if judged else tree, groups))]
    parts += [
        _signed(m.value, f"{m.text(language)} {abs(m.value)}" if m.label else None)
        for m in record.modifiers
    ]
    sum_text = _join_parts(parts)
    line = f"{record.expression}{space}: {faces}" if faces else record.expression
    if sum_text and sum_text != str(record.total):
        line += f" → {sum_text}"
    line += f" = {record.total}"
    if record.target is not None:
        line += f" {_compare(record.total, record.target)} {record.target}"
        explained = _tree_text(tree["right"], groups) if judged else ""  # type: ignore[index]
        if explained and explained != str(record.target):
            line += f" ({explained})"
    if record.outcome:
        line += f", {record.outcome}"
    return line


def _face_text(die: Die) -> str:
    if die.rerolled:
        return f"~{die.value}~"
    text = str(die.value) if die.rolled is None else f"~{die.rolled}~{die.value}"
    return f"{text}{'!' if die.exploded else ''}{'*' if die.critical else ''}"


def _group_text(group: list[Die]) -> tuple[int, str]:
    bonus = [die.value for die in group if die.added == "critical"]
    value = group_value(group)
    if not bonus:
        return _signed(value)
    best = max(die.value for die in group if die.kept and die.added != "critical")
    text = " + ".join(str(face) for face in (best, *bonus))
    return (group[0].sign, text if group[0].sign > 0 else f"({text})")


_MAX_TREE_DEPTH = 100  # a stored tree deeper than any expression could make is refused


def _tree_text(node: Mapping[str, Any], groups: Mapping[int, list[Die]], depth: int = 0) -> str:
    """A part of ``RollRecord.tree`` with each dice group replaced by its value."""
    if depth > _MAX_TREE_DEPTH:
        raise ValueError("roll record tree too deep")
    kind, label = node["kind"], f" [{node['label']}]" if node.get("label") else ""

    def text(child: Mapping[str, Any]) -> str:
        return _tree_text(child, groups, depth + 1)

    if kind == "number":
        return f"{node['value']}{label}"
    if kind == "dice":
        dice = groups.get(node["group"])
        inner = _group_text(dice)[1] if dice else str(node["value"])
        return (f"({inner})" if " + " in inner else inner) + label
    if kind == "unary":
        return f"{node['op']}{text(node['operand'])}"
    if kind == "chain":
        terms = [text(term) for term in node["terms"]]
        return terms[0] + "".join(f" {op} {term}" for op, term in
                                  zip(node["ops"], terms[1:], strict=True))
    if kind == "parens":
        return f"({text(node['inner'])}){label}"
    if kind == "set":
        items = [text(item) if kept else f"~{text(item)}~"
                 for item, kept in zip(node["items"], node["kept"], strict=True)]
        return f"({', '.join(items)}){label}"
    if kind == "compare":
        mark = "✓" if node["value"] else "✗"
        return f"{text(node['left'])} {node['op']} {text(node['right'])} {mark}"
    raise ValueError(f"unknown roll record part {kind!r}")


def _signed(value: int, text: str | None = None) -> tuple[int, str]:
    return (-1 if value < 0 else 1, text or str(abs(value)))


def _join_parts(parts: list[tuple[int, str]]) -> str:
    text = ""
    for sign, part in parts:
        if not text:
            text = part if sign > 0 else f"-{part}"
        else:
            text += f" {'+' if sign > 0 else '-'} {part}"
    return text


def _compare(total: int, target: int) -> str:
    return "<" if total < target else "=" if total == target else ">"
