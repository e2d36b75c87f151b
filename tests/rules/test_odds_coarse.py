"""``exhaust_by`` (app/rules/odds/coarse.py): following a roll by its totals, or a die by
classes of its faces, gives the very chances ``exhaust`` gives face by face, in fewer runs."""

from __future__ import annotations

from fractions import Fraction

import pytest

from app.rules import notation
from app.rules.odds.action import TooManyPaths, exhaust, tally
from app.rules.odds.coarse import exhaust_by, totals_of


def pump(dice) -> str:
    """A Mutatior-like pump roll: 2d6 at most 6, a natural 7 fails, 12 an infarctus."""
    total = notation.roll("2d6", dice).total
    return "infarctus" if total == 12 else "ok" if total <= 6 else "failed"


def test_totals_give_the_chances_of_every_face_in_fewer_runs():
    runs = []
    coarse = exhaust_by(lambda dice: runs.append(1) or pump(dice), totals=True)
    assert tally(coarse) == tally(exhaust(pump)) == {
        "ok": Fraction(15, 36), "failed": Fraction(20, 36), "infarctus": Fraction(1, 36)}
    assert len(coarse) == 11 and len(runs) == 12  # a run to learn the roll, one per total
    faces, chance = totals_of(6, 3)[0]
    assert faces == (1, 1, 1) and chance == Fraction(1, 216)
    assert all(sum(faces) == total for total, (faces, _) in
               zip(range(3, 19), totals_of(6, 3), strict=True))


def test_a_die_read_as_odd_or_even_branches_twice():
    half = Fraction(1, 2)

    def any_odd(dice) -> bool:
        return any(face % 2 for face in dice.roll(6, count=4))
    found = exhaust_by(any_odd, classes={6: ((1, half), (2, half))})
    assert len(found) == 16 and tally(found) == tally(exhaust(any_odd))
    assert tally(found)[True] == Fraction(15, 16)


def test_one_die_alone_is_followed_face_by_face_and_the_limit_holds():
    assert tally(exhaust_by(lambda dice: dice.roll(6)[0] >= 5, totals=True)) == {
        True: Fraction(1, 3), False: Fraction(2, 3)}
    with pytest.raises(TooManyPaths):
        exhaust_by(lambda dice: dice.roll(6, count=6), limit=100)


def test_classes_may_follow_a_die_by_its_place_and_the_faces_before_it():
    """Two d20 thrown at once, read as which is lower (Cyborg's opposed scores): the first
    face by face, the second by whether it falls below, on or above the first."""
    def lower(dice) -> int:
        one, two = dice.roll(20, count=2)
        return (one > two) - (one < two)

    def classes(sides: int, index: int, thrown):
        if index == 0:
            return None
        mark = thrown[0]
        found = [(1, Fraction(mark - 1, 20)), (mark, Fraction(1, 20)),
                 (mark + 1, Fraction(20 - mark, 20))]
        return [(face, chance) for face, chance in found if chance]
    found = exhaust_by(lower, classes=classes)
    assert tally(found) == tally(exhaust(lower))
    assert len(found) == 20 * 3 - 2  # a first 1 or 20 leaves the second two classes
