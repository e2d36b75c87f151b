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
die of that many sides branches on the representative faces given, with their chances; the
classes may also be a function ``classes(sides, index, thrown)`` of the die's place among
those of its size and of the faces thrown before it (Cyborg's d100 by class against each
test's own target), None meaning face by face. Only for rules that read those dice no finer:
the caller says so where it calls this. Both are ``choose`` for ``exhaust``'s one walk.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from functools import lru_cache
from typing import Any, TypeVar

from app.rules.odds.action import MAX_PATHS, Choice, exhaust
from app.rules.odds.exact import distribution

T = TypeVar("T")
Classes = Sequence[tuple[int, Fraction]]  # a face standing for each class, and its chance
ClassesOf = Callable[[int, int, Sequence[int]], Classes | None]


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


def exhaust_by(run: Callable[[Any], T], *, totals: bool = False,
               classes: Mapping[int, Classes] | ClassesOf | None = None,
               limit: int = MAX_PATHS) -> list[tuple[Fraction, T]]:
    """``run(dice)`` for every way its dice can fall as the rules read them, with each way's
    exact chance (see the module). A rules refusal goes to the caller, as ``exhaust``'s."""
    known = classes or {}

    def choose(sides: int, count: int, index: int, thrown: Sequence[int]
               ) -> Sequence[Choice] | None:
        if totals and count > 1:
            return totals_of(sides, count)
        given = known(sides, index, thrown) if callable(known) else known.get(sides)
        return None if given is None else tuple(((face,), chance) for face, chance in given)
    return exhaust(run, choose=choose, limit=limit)
