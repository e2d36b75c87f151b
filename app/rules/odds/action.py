"""What an action may do, before it is made: the contract a game's ``odds`` fills.

A game that can say its chances implements, besides its ``GameSystem`` members::

    odds_kinds: frozenset[str]            # the action forms it gives odds for
    def odds(state, action, actor) -> Odds | None

``state`` is **the viewer's view** of the match (the platform passes nothing else: what a
player may not know cannot be in their odds); ``action`` is the form as it stands (the same
fields ``decide`` reads); ``None`` when the form does not name a legal action yet.

The odds are computed by the rules code that resolves the action: ``exhaust`` runs the
game's own ``decide`` once for every way its dice can fall (each path weighted exactly), so
nothing is written twice; a game whose actions throw too many dice for that builds its
figures from ``app.rules.odds.distribution`` instead. Words are English msgids marked with
``N_`` (translated by the web), their numbers ``Percent`` or ``Amount`` values, rounded
only when shown.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Any, TypeVar

from app.rules.dice import MAX_SIDES
from app.rules.errors import RulesError
from app.rules.odds.distribution import Cut

T = TypeVar("T")
MAX_PATHS = 20_000
"""Ways the dice of one action may fall that ``exhaust`` follows (one ``decide`` each)."""


@dataclass(frozen=True, slots=True)
class Percent:
    """A chance, exact; shown as « 62 % »."""

    value: Fraction


@dataclass(frozen=True, slots=True)
class Amount:
    """An expected number (points, wounds…), exact; shown as « 2,4 »."""

    value: Fraction


@dataclass(frozen=True, slots=True)
class Phrase:
    """Words for the page: an English msgid (``N_``) and its parameters. A ``plural`` msgid
    goes with ``count``, the name of the parameter whose figure chooses the form."""

    msgid: str
    params: dict[str, Any] = field(default_factory=dict)
    plural: str | None = None
    count: str | None = None


@dataclass(frozen=True, slots=True)
class Chance:
    """One outcome that matters (« to hit », « a grave wound ») and its exact chance."""

    key: str
    label: Phrase
    probability: Fraction


@dataclass(frozen=True, slots=True)
class Expectation:
    """An expected effect (« points on average ») and its exact value."""

    key: str
    label: Phrase
    value: Fraction


@dataclass(frozen=True, slots=True)
class Odds:
    """An action's odds: its outcomes, its expected effects, the sentence that says them
    (its parts joined by « ; »), the details under it (what the roll needs, the modifiers
    counted) and where an endless roll was cut."""

    chances: tuple[Chance, ...]
    expectations: tuple[Expectation, ...] = ()
    sentence: tuple[Phrase, ...] = ()
    details: tuple[Phrase, ...] = ()
    cuts: tuple[Cut, ...] = ()
    rule: str = ""

    def chance(self, key: str) -> Fraction:
        return next(c.probability for c in self.chances if c.key == key)

    def to_dict(self) -> dict[str, Any]:
        """JSON: each figure exact (``"1/3"``) and as a float."""
        return {
            "chances": [{"key": c.key, "chance": str(c.probability),
                         "probability": float(c.probability)} for c in self.chances],
            "expectations": [{"key": e.key, "value": str(e.value),
                              "value_float": float(e.value)} for e in self.expectations],
            "cuts": [cut.to_dict() for cut in self.cuts], "rule": self.rule,
        }


# — every way the dice can fall ————————————————————————————————————————————————

Choice = tuple[tuple[int, ...], Fraction]
"""Faces thrown at once (one die's, or a whole roll's) and the exact chance they stand for."""

Chooser = Callable[[int, int, int, Sequence[int]], Sequence[Choice] | None]
"""``choose(sides, count, index, thrown)``: the ways to follow the next ``count`` dice of
``sides`` sides thrown at once, ``index`` dice of that size having come before them on the
path and ``thrown`` being every face so far. A choice holds one die's face (a class of faces
that read alike) or the whole roll's (a total); None: the next die, face by face."""


@lru_cache(maxsize=64)
def every_face(sides: int) -> tuple[Choice, ...]:
    """One die, face by face (the highest first: the search then follows 1 first), the faces
    sharing one chance."""
    share = Fraction(1, sides)
    return tuple(((face,), share) for face in range(sides, 0, -1))


class _NextDie(BaseException):
    """A roll the path has not chosen yet: the search branches on its choices. A
    ``BaseException``, so that no rule's ``except Exception`` can swallow it."""

    def __init__(self, choices: Sequence[Choice]) -> None:
        self.choices = choices


class _PathDice:
    """A ``Dice`` that throws the choices of one path, and asks for the next roll's."""

    def __init__(self, path: Sequence[tuple[int, ...]], choose: Chooser | None) -> None:
        self.path = path
        self.choose = choose
        self.used = 0
        self.seen: dict[int, int] = {}  # dice of each size thrown by the rolls before

    def roll(self, sides: int, *, count: int = 1) -> list[int]:
        if not 1 <= sides <= MAX_SIDES:
            raise ValueError(f"cannot roll a d{sides}")
        faces: list[int] = []
        while len(faces) < count:
            if self.used == len(self.path):
                raise _NextDie(self._choices(sides, count - len(faces), len(faces)))
            faces += self.path[self.used]
            self.used += 1
        self.seen[sides] = self.seen.get(sides, 0) + count
        return faces

    def _choices(self, sides: int, count: int, taken: int) -> Sequence[Choice]:
        """The next roll's choices: the path is spent, so its faces are all thrown so far."""
        if self.choose is None:
            return every_face(sides)
        thrown = [face for faces in self.path for face in faces]
        chosen = self.choose(sides, count, self.seen.get(sides, 0) + taken, thrown)
        return every_face(sides) if chosen is None else chosen


def _branches(path: tuple[tuple[int, ...], ...], chance: Fraction, choices: Sequence[Choice]
              ) -> list[tuple[tuple[tuple[int, ...], ...], Fraction]]:
    """The path extended by each choice, with its chance: a product of fractions is costly,
    so choices that share one share object (``every_face``'s) share one product."""
    found = []
    share_was, product = None, chance
    for faces, share in choices:
        if share is not share_was:
            share_was, product = share, chance * share
        found.append(((*path, faces), product))
    return found


class TooManyPaths(RulesError):
    code = "odds_too_many_paths"
    templates_en = {"odds_too_many_paths": "too many ways for the dice to fall: at most "
                    "{limit} are followed"}
    templates_fr = {"odds_too_many_paths": "trop de façons pour les dés de tomber : au plus "
                    "{limit} sont suivies"}


def exhaust(run: Callable[[Any], T], *, choose: Chooser | None = None,
            limit: int = MAX_PATHS) -> list[tuple[Fraction, T]]:
    """``run(dice)`` for every way its dice can fall, with each way's exact chance.

    ``run`` is the resolution itself (``lambda dice: decide(view, action, actor, dice)``):
    each path replays the faces chosen so far and branches on the first die it has not
    chosen, so an action that throws a d6 to hit and, on a hit, a d6 to save takes 6 + 30
    runs. ``choose`` may follow a die by classes of faces, or a roll by its totals
    (``app.rules.odds.coarse.exhaust_by``): the one walk for every game. A rules refusal
    (``RulesError``) goes to the caller: the action is not legal.
    """
    results: list[tuple[Fraction, T]] = []
    paths: list[tuple[tuple[tuple[int, ...], ...], Fraction]] = [((), Fraction(1))]
    runs = 0
    while paths:
        path, chance = paths.pop()
        runs += 1
        if runs > limit:
            raise TooManyPaths(limit=limit)
        try:
            result = run(_PathDice(path, choose))
        except _NextDie as need:
            paths += _branches(path, chance, need.choices)
            continue
        results.append((chance, result))
    return results


def tally(outcomes: Iterable[tuple[Fraction, Hashable]]) -> dict[Hashable, Fraction]:
    """The exact chance of each distinct outcome of ``exhaust``'s paths."""
    found: dict[Hashable, Fraction] = {}
    for chance, key in outcomes:
        found[key] = found.get(key, Fraction(0)) + chance
    return found
