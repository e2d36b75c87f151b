"""Distances on the hunting ground, in inches (seed § Le terrain de chasse).

Positions are ``[x, y]`` with the north at the top (y grows southwards). A move is a straight
line (house: the text lets a figure turn as often as it likes, so a player splits a long
detour into several moves). Its cost (§ Déplacements des Chasseurs): its length, the part
inside difficult ground counted twice, plus 2" for each obstacle crossed (not for very fast
animals, which jump over); impassable ground stops it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

CONTACT = 1.0  # house: bases touch when centres are within 1" (25 mm bases)
OVERLAP = CONTACT - 0.01  # closer than this, two bases would stand on each other
OBSTACLE_COST = 2.0
OBSTACLES = ("obstacle", "arbre", "buisson")
DIFFICULT = ("difficile", "riviere")
# House (the text never speaks of sight): woods and impassable rocks hide what stands behind
# them; bushes, streams, low obstacles and difficult ground do not.
SIGHT_BLOCKERS = ("arbre", "infranchissable")
STEP = 0.25


def distance(a: Sequence[float], b: Sequence[float]) -> float:
    return math.hypot(b[0] - a[0], b[1] - a[1])


def rounded(value: float) -> float:
    return round(value, 2)


def clip(a: Sequence[float], b: Sequence[float], shape: Mapping[str, Any]) -> tuple[
        float, float] | None:
    """The part of segment a→b inside the rectangle, as (t0, t1) in 0..1 (Liang–Barsky)."""
    t0, t1 = 0.0, 1.0
    dx, dy = b[0] - a[0], b[1] - a[1]
    for p, q in ((-dx, a[0] - shape["x"]), (dx, shape["x"] + shape["w"] - a[0]),
                 (-dy, a[1] - shape["y"]), (dy, shape["y"] + shape["h"] - a[1])):
        if p == 0:
            if q < 0:
                return None
            continue
        t = q / p
        if p < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 > t1:
            return None
    return t0, t1


def inside(point: Sequence[float], shape: Mapping[str, Any]) -> bool:
    return (shape["x"] <= point[0] <= shape["x"] + shape["w"]
            and shape["y"] <= point[1] <= shape["y"] + shape["h"])


def path_cost(a: Sequence[float], b: Sequence[float], terrain: Iterable[Mapping[str, Any]], *,
              jumps: bool = False) -> tuple[float, list[str]] | None:
    """What moving straight from a to b costs, and the obstacles crossed; None when the
    line enters impassable ground."""
    length = distance(a, b)
    cost, crossed = length, []
    for shape in terrain:
        span = clip(a, b, shape)
        if span is None or span[1] - span[0] <= 1e-9:
            continue
        kind = shape.get("kind")
        if kind == "infranchissable":
            return None
        if kind in DIFFICULT:
            cost += length * (span[1] - span[0])
        elif kind in OBSTACLES and not inside(a, shape) and not jumps:
            cost += OBSTACLE_COST
            crossed.append(shape.get("label") or shape.get("id", ""))
    return cost, crossed


def walk(start: Sequence[float], direction: Sequence[float], budget: float,
         terrain: list[Mapping[str, Any]], board: Mapping[str, Any], *, jumps: bool = False,
         stop_at: Sequence[float] | None = None, length: float | None = None,
         figures: Iterable[Sequence[float]] = ()) -> tuple[list[float], float, bool]:
    """Where a figure moving from ``start`` along ``direction`` ends with ``budget`` inches:
    it stops before impassable ground, before another figure's base (``figures``: their
    centres; a figure neither walks through nor stops on another), at ``stop_at`` minus a
    base (contact), or at the board's edge, after ``length`` inches at most. Returns the
    end, the cost spent and whether it left the board."""
    bases = [list(f) for f in figures]
    norm = math.hypot(*direction)
    if norm == 0 or budget <= 0:
        return [rounded(start[0]), rounded(start[1])], 0.0, False
    ux, uy = direction[0] / norm, direction[1] / norm
    limit = budget if length is None else min(budget, length)
    if stop_at is not None:
        limit = min(limit, max(distance(start, stop_at) - CONTACT, 0.0))
    here, spent, travelled = list(start), 0.0, 0.0
    while travelled < limit - 1e-9:
        step = min(STEP, limit - travelled)
        nxt = [here[0] + ux * step, here[1] + uy * step]
        if not (0 <= nxt[0] <= board["width"] and 0 <= nxt[1] <= board["height"]):
            return [rounded(here[0]), rounded(here[1])], rounded(spent), True
        priced = path_cost(here, nxt, terrain, jumps=jumps)
        if priced is None or spent + priced[0] > budget + 1e-9 or any(
                distance(nxt, base) < OVERLAP for base in bases):
            break
        spent += priced[0]
        travelled += step
        here = nxt
    return [rounded(here[0]), rounded(here[1])], rounded(spent), False


def sight_blocker(a: Sequence[float], b: Sequence[float],
                  terrain: Iterable[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    """The first element that hides b from a (house): a wood or rocks the line between them
    crosses, unless one of them stands in it (at a wood's edge a figure sees out and is
    seen). None when the line is clear."""
    for shape in terrain:
        if shape.get("kind") not in SIGHT_BLOCKERS or inside(a, shape) or inside(b, shape):
            continue
        span = clip(a, b, shape)
        if span is not None and span[1] - span[0] > 1e-9:
            return shape
    return None


def segment_gap(a: Sequence[float], b: Sequence[float], point: Sequence[float]) -> float:
    """How close the segment a→b comes to ``point``."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    span = dx * dx + dy * dy
    t = 0.0 if span == 0 else max(0.0, min(1.0, ((point[0] - a[0]) * dx
                                                 + (point[1] - a[1]) * dy) / span))
    return distance([a[0] + t * dx, a[1] + t * dy], point)


def base_in_the_way(a: Sequence[float], b: Sequence[float],
                    figures: Iterable[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    """The first figure a move from a to b would walk through or stop on (bases: § Matériel,
    "soclés individuellement"), or None. A figure in contact at the start (1") does not
    block a move away from it."""
    found = [(distance(a, o_pos(f)), f) for f in figures
             if segment_gap(a, b, o_pos(f)) < OVERLAP]
    return min(found, key=lambda pair: (pair[0], pair[1]["id"]))[1] if found else None


def nearest(point: Sequence[float], others: Iterable[Mapping[str, Any]]) -> Mapping[
        str, Any] | None:
    """The closest figure (ties: the first by id, so every replay agrees)."""
    best, best_distance = None, math.inf
    for other in sorted(others, key=lambda o: o["id"]):
        d = distance(point, o_pos(other))
        if d < best_distance - 1e-9:
            best, best_distance = other, d
    return best


def o_pos(figure: Mapping[str, Any]) -> list[float]:
    return [figure["x"], figure["y"]]
