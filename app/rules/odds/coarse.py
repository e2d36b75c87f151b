"""``exhaust`` for rules that read some dice coarsely: fewer ways to follow, the same chances.

``app.rules.odds.action.exhaust`` follows every face of every die. Some rules only read a
roll of several dice by its total (Mutatior's pump roll: "moins ou égal … avec 2 dés 6", a
natural 7 or 12 are totals too), or a die by a class of its faces (Mecha-Ring's radar: odd
or even). Following each total, or each class, once — with its representative faces and the
exact chance of all the faces it stands for — gives the same exact chances in far fewer runs
(a pump roll: 11 ways instead of 36; two of them: 121 instead of 1,296).

``exhaust_by(run, totals=True)``: a roll of two dice or more at once (``dice.roll(6,
count=2)``) branches on its totals, weighted by the distribution of that very expression
(``distribution("2d6")``); ``classes={6: ((1, Fraction(1, 2)), (2, Fraction(1, 2)))}``: each
die of that many sides branches on the representative faces given, with their chances. Only
for rules that read those dice no finer: the caller says so where it calls this.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from functools import lru_cache
from typing import Any, TypeVar

from app.rules.dice import MAX_SIDES
from app.rules.odds.action import MAX_PATHS, TooManyPaths
from app.rules.odds.exact import distribution

T = TypeVar("T")
Choice = tuple[tuple[int, ...], Fraction]  # the faces thrown, and the chance they stand for


class _NextChoice(BaseException):
    """A roll the path has not chosen yet: the search branches on its choices (a
    ``BaseException``, so that no rule's ``except Exception`` swallows it)."""

    def __init__(self, choices: Sequence[Choice]) -> None:
        self.choices = choices


@lru_cache(maxsize=64)
def totals_of(sides: int, count: int) -> tuple[Choice, ...]:
    """Each total of ``count`` dice of ``sides`` sides: faces that make it (the highest first,
    as evenly as they go), and its exact chance, from the expression's distribution."""
    found = distribution(f"{count}d{sides}")
    choices = []
    for total, chance in found:
        faces, left = [], total
        for place in range(count, 0, -1):
            face = min(sides, left - (place - 1))
            faces.append(face)
            left -= face
        choices.append((tuple(faces), chance))
    return tuple(choices)


def _per_die(sides: int, classes: Mapping[int, Sequence[tuple[int, Fraction]]]
             ) -> tuple[Choice, ...]:
    given = classes.get(sides)
    if given is not None:
        return tuple(((face,), chance) for face, chance in given)
    return tuple(((face,), Fraction(1, sides)) for face in range(sides, 0, -1))


class _CoarseDice:
    """A ``Dice`` that throws the choices of one path, and asks for the next roll's."""

    def __init__(self, path: Sequence[tuple[int, ...]], totals: bool,
                 classes: Mapping[int, Sequence[tuple[int, Fraction]]]) -> None:
        self.path = path
        self.used = 0
        self.totals = totals
        self.classes = classes

    def _next(self, choices: Sequence[Choice]) -> tuple[int, ...]:
        if self.used == len(self.path):
            raise _NextChoice(choices)
        faces = self.path[self.used]
        self.used += 1
        return faces

    def roll(self, sides: int, *, count: int = 1) -> list[int]:
        if not 1 <= sides <= MAX_SIDES:
            raise ValueError(f"cannot roll a d{sides}")
        if self.totals and count > 1:
            return list(self._next(totals_of(sides, count)))
        faces: list[int] = []
        for _ in range(count):
            faces += self._next(_per_die(sides, self.classes))
        return faces


def exhaust_by(run: Callable[[Any], T], *, totals: bool = False,
               classes: Mapping[int, Sequence[tuple[int, Fraction]]] | None = None,
               limit: int = MAX_PATHS) -> list[tuple[Fraction, T]]:
    """``run(dice)`` for every way its dice can fall as the rules read them, with each way's
    exact chance (see the module). A rules refusal goes to the caller, as ``exhaust``'s."""
    results: list[tuple[Fraction, T]] = []
    paths: list[tuple[tuple[tuple[int, ...], ...], Fraction]] = [((), Fraction(1))]
    runs = 0
    known = classes or {}
    while paths:
        path, chance = paths.pop()
        runs += 1
        if runs > limit:
            raise TooManyPaths(limit=limit)
        try:
            result = run(_CoarseDice(path, totals, known))
        except _NextChoice as need:
            paths += [((*path, faces), chance * share) for faces, share in need.choices]
            continue
        results.append((chance, result))
    return results
