"""The exact distribution of one dice group, read as ``app.rules.dice_pool`` rolls it.

The operators that change the dice (``ro rr ra e ! mi ma``) apply first, in the order
written; keep and drop then; a success count last (docs/dice.md § How a roll is worked out).
Three ways to work a group out, the fastest that fits:

- **Each die on its own** (rerolls by value, ``rr``, ``mi``, ``ma``, one explosion, keep
  and drop by value, success counts): one die's contribution is worked out — a die that
  explodes with its whole chain — and the group is the sum of ``count`` of them.
- **Keeping by rank** (``kh3``, ``dl1``, ``3d20kh2kl1``): icepool's pools keep sorted
  positions without listing the faces; an explosion before it is a pool of the dice that
  did not explode and of those that did, mixed over how many did.
- **Anything else** (``ra``, ``roh1``, keeping by value then by rank, two explosions…):
  every set of faces the group can hold, one operator after the other (at most
  ``MAX_STATES`` sets).

Explosions and rerolls until (``rr``) may go on for ever: each is followed until the
chance of going further is below ``TAIL`` (or to the roller's own cap: 100 extra dice for
a group's explosions, 1000 rerolls), and the result says so (``Cut``).
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from functools import lru_cache
from math import lcm

import icepool

from app.rules.dice_pool import MAX_EXPLOSIONS, MAX_EXTRA_DICE, Operation, apply_keeping, select
from app.rules.dice_tree import DiceGroup
from app.rules.odds.budget import Budget
from app.rules.odds.convolve import sum_of
from app.rules.odds.distribution import Cut

TAIL = Fraction(1, 10**12)
"""An endless roll is followed until the chance of going further is below this."""
_PER_DIE = ("ro", "rr", "mi", "ma")

Value = Callable[[int], int]
"""What a die showing a face adds to the group: the face, 1 or 0 for a success…"""


def group_die(group: DiceGroup, budget: Budget, cuts: list[Cut]) -> icepool.Die:
    """The distribution of what ``group`` adds to a total."""
    if group.tiamat:
        return _tiamat(max(1, group.count), budget)
    if group.count == 0:
        return icepool.Die([0])
    rolling = group.rolling
    explosions = [op for op in rolling if op.op == "e"]
    per_die = all(op.op in _PER_DIE or op.op == "e" for op in rolling) \
        and len(explosions) <= 1 and all(op.by_value for op in rolling)
    by_value = all(op.by_value for op in group.keeping)
    by_rank = not any(s.by_value for op in group.keeping for s in op.selectors)
    if per_die and by_value:
        return sum_of(group.count, _one_die(group, budget, cuts), budget)
    if per_die and by_rank and not explosions:
        return _ranked(group, _changed_die(group, rolling, budget, cuts), budget)
    if by_rank and len(rolling) == 1 and explosions:
        return _ranked_explosions(group, explosions[0], budget, cuts)
    return _every_set(group, budget, cuts)


# — each die on its own ————————————————————————————————————————————————————————————

def _raw(sides: int) -> icepool.Die:
    return icepool.d(sides)


def _per_die(die: icepool.Die | int, operation: Operation, sides: int, budget: Budget,
             cuts: list[Cut], notation: str) -> icepool.Die:
    """``die`` after one per-die operator: a reroll throws a fresh die (not the changed
    one: ``d6mi2ro2`` rerolls a 2 into any face)."""
    die = die if isinstance(die, icepool.Die) else icepool.Die([die])
    matches = operation.matches
    if operation.op in ("mi", "ma"):
        bound = operation.selectors[0].number
        return die.map(lambda v: max(v, bound) if operation.op == "mi" else min(v, bound))
    fresh = _raw(sides) if operation.op == "ro" else _until(sides, matches, budget, cuts,
                                                           notation)
    budget.spend(len(die) * len(fresh) * 2e-6)
    return die.map(lambda v: fresh if matches(v) else v)


def _until(sides: int, matches: Callable[[int], bool], budget: Budget, cuts: list[Cut],
           notation: str) -> icepool.Die:
    """A fresh die thrown again while ``matches`` holds: to the end when the roller's cap
    (1000 extra dice) cannot matter more than ``TAIL``, else cut there as the roller is."""
    share = Fraction(sum(1 for face in range(1, sides + 1) if matches(face)), sides)
    if share ** MAX_EXTRA_DICE <= TAIL:
        cuts.append(Cut("reroll", notation, None, share ** MAX_EXTRA_DICE))
        return _raw(sides).reroll(matches, depth="inf")
    cuts.append(Cut("reroll", notation, MAX_EXTRA_DICE, share ** MAX_EXTRA_DICE))
    budget.spend(MAX_EXTRA_DICE * sides * 5e-6)
    return _raw(sides).reroll(matches, depth=MAX_EXTRA_DICE - 1)


def _changed_die(group: DiceGroup, operations: tuple[Operation, ...], budget: Budget,
                 cuts: list[Cut]) -> icepool.Die:
    die: icepool.Die = _raw(group.sides)
    for operation in operations:
        die = _per_die(die, operation, group.sides, budget, cuts, group.text)
    return die


def _value_of(group: DiceGroup) -> Value:
    """What a die adds once thrown and changed: 0 if keeping by value leaves it out, else
    its face (or 1 if it passes a success count, 0 if not)."""
    keeping, success = group.keeping, group.success

    def value(face: int) -> int:
        for operation in keeping:  # by value only here: "k" keeps, "p" drops
            if operation.matches(face) != (operation.op == "k"):
                return 0
        if success is not None:
            return int(success.matches(face))
        return face
    return value


def _one_die(group: DiceGroup, budget: Budget, cuts: list[Cut]) -> icepool.Die:
    """What one die of ``group`` adds, with the dice its explosion brings."""
    index = next((i for i, op in enumerate(group.rolling) if op.op == "e"), None)
    value = _value_of(group)
    if index is None:
        return _changed_die(group, group.rolling, budget, cuts).map(value)
    before, explosion = group.rolling[:index], group.rolling[index]
    after = group.rolling[index + 1:]

    def leaf(face: int) -> icepool.Die:
        """A die's face once the operators after the explosion changed it, as it adds."""
        die: icepool.Die | int = face
        for operation in after:
            die = _per_die(die, operation, group.sides, budget, cuts, group.text)
        return (die if isinstance(die, icepool.Die) else icepool.Die([die])).map(value)

    first = _changed_die(group, before, budget, cuts)
    depth = _explosion_depth(group, explosion, first, cuts)
    leaves = {face: leaf(face) for face in set(first.outcomes()) | set(range(1, group.sides + 1))}
    matches = explosion.matches
    def then(rest: icepool.Die) -> Callable[[int], icepool.Die]:
        """A die's face, and when it explodes the rest of its chain."""
        return lambda v: leaves[v] + rest if matches(v) else leaves[v]

    chain = _raw(group.sides).map(lambda v: leaves[v])  # the last die followed stays
    for _ in range(depth - 1):
        budget.spend(len(chain) * group.sides * 3e-6)
        budget.values(len(chain) + group.sides)
        chain = _raw(group.sides).map(then(chain))
    if depth == 0:
        return first.map(lambda v: leaves[v])
    return first.map(then(chain))


def _explosion_depth(group: DiceGroup, explosion: Operation, first: icepool.Die,
                     cuts: list[Cut]) -> int:
    """How many extra dice one die's explosion is followed to: until the chance of going
    further, over the whole group, is below ``TAIL``, and never past the roller's cap."""
    share = Fraction(sum(1 for face in range(1, group.sides + 1) if explosion.matches(face)),
                     group.sides)
    start = Fraction(sum(quantity for face, quantity in first.items()
                         if explosion.matches(face)), first.denominator())
    depth = 0
    while depth < MAX_EXPLOSIONS and group.count * start * share ** depth > TAIL:
        depth += 1
    cuts.append(Cut("explosion", group.text, depth, start * share ** depth))
    return depth


# — keeping by rank ————————————————————————————————————————————————————————————————

def kept_ranks(size: int, keeping: tuple[Operation, ...]) -> tuple[int, ...]:
    """Which sorted positions (lowest first) a chain of keep and drop by rank leaves: 1 kept,
    0 dropped. Ties do not matter to a sum or a count, so the ranks say it all."""
    return tuple(int(keep) for keep in apply_keeping(list(range(size)), [True] * size,
                                                      keeping))


def _pool_value(pool: icepool.Pool, group: DiceGroup) -> icepool.Die:
    kept = pool.keep(kept_ranks(pool.keep_size(), group.keeping))
    if group.success is None:
        return kept.sum()
    return kept.keep_outcomes(group.success.matches).size()


def _ranked(group: DiceGroup, die: icepool.Die, budget: Budget) -> icepool.Die:
    budget.spend(_pool_cost(group.count, len(die)))
    return _pool_value(die.pool(group.count), group)


def _pool_cost(count: int, faces: int) -> float:
    return 2e-5 * count * faces + 1e-7 * count * count * faces


def _ranked_explosions(group: DiceGroup, explosion: Operation, budget: Budget,
                       cuts: list[Cut]) -> icepool.Die:
    """``4d6!kh3``: every die thrown joins the pool, so the pool is the dice that did not
    explode (one per chain) and those that did, mixed over how many did."""
    raw = _raw(group.sides)
    depth = _explosion_depth(group, explosion, raw, cuts)
    if depth == 0:
        return _ranked(group, raw, budget)
    matches = explosion.matches
    exploding = raw.reroll(lambda v: not matches(v), depth="inf")
    stopping = raw.reroll(matches, depth="inf")
    share = Fraction(len(exploding), group.sides)
    chain = die_of({j: share ** j * (1 - share) if j < depth else share ** depth
                    for j in range(depth + 1)})
    extra = _clipped(sum_of(group.count, chain, budget))
    budget.spend(sum(_pool_cost(group.count + m, group.sides) for m in extra.outcomes()))

    def pool_of(m: int) -> icepool.Die:
        budget.check()
        return _pool_value(icepool.Pool([stopping] * group.count + [exploding] * m), group)
    return extra.map(pool_of)


def _clipped(die: icepool.Die) -> icepool.Die:
    """``die`` with its highest values, together less likely than ``TAIL``, counted as the
    lowest of them."""
    denominator, above, items = die.denominator(), 0, list(die.items())
    while len(items) > 1 and Fraction(above + items[-1][1], denominator) <= TAIL:
        above += items.pop()[1]
    top = items[-1][0]
    return icepool.Die({value: quantity + (above if value == top else 0)
                        for value, quantity in items})


# — every set of faces ————————————————————————————————————————————————————————————————

Sets = dict[tuple[int, ...], Fraction]


def _every_set(group: DiceGroup, budget: Budget, cuts: list[Cut]) -> icepool.Die:
    sides = group.sides
    budget.states(_multisets(group.count, sides))
    sets = _fresh_sets(sides, group.count)
    for operation in group.rolling:
        sets = _OPERATORS[operation.op](sets, operation, group, budget, cuts)
        budget.states(len(sets))
        budget.check()
    totals: dict[int, Fraction] = {}
    for faces, chance in sets.items():
        kept = apply_keeping(faces, [True] * len(faces), group.keeping)
        if group.success is None:
            total = sum(face for face, keep in zip(faces, kept, strict=True) if keep)
        else:
            total = sum(1 for face, keep in zip(faces, kept, strict=True)
                        if keep and group.success.matches(face))
        totals[total] = totals.get(total, 0) + chance
    return die_of(totals)


def die_of(chances: dict[int, Fraction]) -> icepool.Die:
    """A die from exact chances (they add up to 1)."""
    common = lcm(*(chance.denominator for chance in chances.values()))
    return icepool.Die({value: int(chance * common) for value, chance in chances.items()
                        if chance})


def _multisets(count: int, sides: int) -> int:
    from math import comb
    return comb(count + sides - 1, sides - 1)


@lru_cache(maxsize=256)
def _fresh_sets_of(die: icepool.Die, count: int) -> tuple[tuple[tuple[int, ...], Fraction], ...]:
    if count == 0:
        return (((), Fraction(1)),)
    expanded = die.pool(count).expand()
    total = expanded.denominator()
    return tuple((tuple(faces), Fraction(quantity, total))
                 for faces, quantity in expanded.items())


def _fresh_sets(sides: int, count: int, die: icepool.Die | None = None) -> Sets:
    return dict(_fresh_sets_of(die if die is not None else _raw(sides), count))


def _merge(into: Sets, kept: tuple[int, ...], new: Sets, chance: Fraction) -> None:
    for faces, more in new.items():
        key = tuple(sorted(kept + faces))
        into[key] = into.get(key, 0) + chance * more


def _picked(faces: tuple[int, ...], operation: Operation) -> list[int]:
    """The places of the dice ``operation`` picks among ``faces`` (by value or by rank)."""
    if operation.by_value:
        return [i for i, face in enumerate(faces) if operation.matches(face)]
    chosen: set[int] = set()
    for selector in operation.selectors:
        chosen.update(select(selector, range(len(faces)), faces, first=True))
    return sorted(chosen)


def _rethrow(sets: Sets, operation: Operation, group: DiceGroup, budget: Budget,
             cuts: list[Cut]) -> Sets:
    """``ro`` and ``rr``: the dice picked are thrown again (``rr``: until they no longer
    match), each in its place."""
    fresh = _raw(group.sides) if operation.op == "ro" else _until(
        group.sides, operation.matches, budget, cuts, group.text)
    result: Sets = {}
    for faces, chance in sets.items():
        picked = _picked(faces, operation)
        kept = tuple(face for i, face in enumerate(faces) if i not in picked)
        budget.states(len(result))
        _merge(result, kept, _fresh_sets(group.sides, len(picked), fresh), chance)
    return result


def _add_one(sets: Sets, operation: Operation, group: DiceGroup, budget: Budget,
             cuts: list[Cut]) -> Sets:
    """``ra``: when a die is picked, one more die is thrown and adds."""
    result: Sets = {}
    one = _fresh_sets(group.sides, 1)
    for faces, chance in sets.items():
        if _picked(faces, operation)[:1]:
            _merge(result, faces, one, chance)
        else:
            result[faces] = result.get(faces, 0) + chance
    return result


def _explode(sets: Sets, operation: Operation, group: DiceGroup, budget: Budget,
             cuts: list[Cut]) -> Sets:
    """Each die that matches starts a chain of fresh dice, each one more while it matches."""
    raw = _raw(group.sides)
    depth = _explosion_depth(group, operation, raw, cuts)
    if depth == 0:
        return sets
    chain = _chain_sets(group.sides, operation, depth)
    result: Sets = {}
    for faces, chance in sets.items():
        chains = sum(1 for face in faces if operation.matches(face))
        new: Sets = {(): Fraction(1)}
        for _ in range(chains):
            joined: Sets = {}
            for a, p in new.items():
                _merge(joined, a, chain, p)
            new = joined
            budget.states(len(new))
        _merge(result, faces, new, chance)
        budget.states(len(result))
    return result


def _chain_sets(sides: int, operation: Operation, depth: int) -> Sets:
    """The faces one explosion adds: fresh dice while they match, ``depth`` at most."""
    face_chance = Fraction(1, sides)
    chains: Sets = {}
    stack: list[tuple[tuple[int, ...], Fraction]] = [((), Fraction(1))]
    while stack:
        faces, chance = stack.pop()
        for face in range(1, sides + 1):
            longer = tuple(sorted((*faces, face)))
            p = chance * face_chance
            if operation.matches(face) and len(longer) < depth:
                stack.append((longer, p))
            else:
                chains[longer] = chains.get(longer, 0) + p
    return chains


def _clamp(sets: Sets, operation: Operation, group: DiceGroup, budget: Budget,
           cuts: list[Cut]) -> Sets:
    bound = operation.selectors[0].number
    result: Sets = {}
    for faces, chance in sets.items():
        key = tuple(sorted(max(f, bound) if operation.op == "mi" else min(f, bound)
                           for f in faces))
        result[key] = result.get(key, 0) + chance
    return result


_OPERATORS = {"ro": _rethrow, "rr": _rethrow, "ra": _add_one, "e": _explode,
              "mi": _clamp, "ma": _clamp}


# — Tiamat ————————————————————————————————————————————————————————————————————————

def _tiamat(count: int, budget: Budget) -> icepool.Die:
    """``Nd10t``: the best d10, and a d6 more for every 10 thrown (docs/dice.md § The
    Tiamat pool). What the criticals add is the sum of ``count`` independent parts, each
    nothing (a die that is not a 10, 9 in 10) or a d6 (a 10): no 10 at all means nothing
    was added, and the best die is then the best of ``count`` dice from 1 to 9."""
    part = icepool.Die({0: 54, **{face: 1 for face in range(1, 7)}})  # 9/10, then 1/60 each
    added = sum_of(count, part, budget)
    best_below_ten = icepool.Die({k: k ** count - (k - 1) ** count for k in range(1, 10)})
    return added.map(lambda extra: best_below_ten if extra == 0 else 10 + extra)
