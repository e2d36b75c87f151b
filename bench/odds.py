"""``python -m bench odds``: how long exact odds take (docs/odds.md § Speed).

The distribution of a few heavy expressions, worked out from scratch each time (no cache),
and the example action form's odds (Chasse's throw, through its ``decide``), each timed
``SAMPLES`` times in wall time on one thread; the 95th percentile is printed against the
aim of 50 ms. Nothing is asserted.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

from bench.report import Figure, table

AIM_MS = 50.0
SAMPLES = 60
HEAVY = ("4d6kh3", "1d20+5>=15", "3d10t+1d6", "10d6!", "4d6!kh3", "6d10!>=8", "20d6kh10",
         "100d6", "(1d20+5, 1d20+3)kh1", "8d6ro1mi2", "2d20kh1+1d4*2", "4d6ra6", "(2d6)*(2d6)")


def _p95(work: Callable[[], object], samples: int) -> tuple[float, float]:
    """The median and the 95th percentile of ``work``'s wall time, in milliseconds."""
    times = []
    for _ in range(samples):
        started = time.perf_counter()
        work()
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return statistics.median(times), times[min(len(times) - 1, int(len(times) * 0.95))]


def _throw_form() -> Callable[[], object]:
    """Chasse's throw form at step 6 (tests/rules/test_chasse_odds.py's hunt)."""
    from app.rules.chasse.sheet import blank_sheet
    from app.rules.dice import ScriptedDice
    from app.rules.match import Actor, MatchSetup, ParticipantSetup, apply, fold
    from app.rules.registry import get_system

    chasse, gm = get_system("chasse"), Actor(1, is_gm=True)
    paul = Actor(7, character_ids=frozenset({11, 12}))
    setup = MatchSetup("Chasse", (
        ParticipantSetup("Ourk", character_id=11, owner_id=7,
                         sheet={**blank_sheet(), "weapons": ["javelot"]}),
        ParticipantSetup("Ghâ", character_id=12, owner_id=7,
                         sheet={**blank_sheet(), "weapons": ["fronde"]})))
    state = fold(chasse, list(chasse.start(setup, ScriptedDice([]))))
    for action, actor in (({"kind": "add_prey", "species": "sanglier", "x": 24, "y": 28}, gm),
                          ({"kind": "begin_hunt"}, gm), ({"kind": "next_step"}, paul),
                          ({"kind": "move", "token": "t1", "x": 20, "y": 32}, paul),
                          ({"kind": "next_step"}, paul),
                          ({"kind": "gm_modifier", "value": 1, "label": "vent"}, gm)):
        state = apply(chasse, state, action, actor, ScriptedDice([]))[1]
    throw = {"kind": "shoot", "shot": "t1|t3|javelot"}
    return lambda: chasse.odds(state, throw, paul)


def run(*, quick: bool = False) -> list[Figure]:
    from app.rules.odds import distribution
    from app.rules.odds.groups import _fresh_sets_of

    samples = SAMPLES // 4 if quick else SAMPLES
    rows, figures = [], []

    def fresh(expression: str) -> Callable[[], object]:
        def work() -> object:
            _fresh_sets_of.cache_clear()  # nothing kept from the last sample
            return distribution(expression)
        return work

    for expression in HEAVY:
        median, p95 = _p95(fresh(expression), samples)
        rows.append((expression, f"{median:.1f}", f"{p95:.1f}"))
        figures.append(Figure(f"odds: distribution of {expression}, p95", p95, "ms",
                              aim=AIM_MS))
    median, p95 = _p95(_throw_form(), samples)
    rows.append(("Chasse: the throw form's odds", f"{median:.1f}", f"{p95:.1f}"))
    figures.append(Figure("odds: Chasse's throw form, p95", p95, "ms", aim=AIM_MS))
    from bench.odds_forms import FORMS  # each game's heaviest form (docs/odds.md § Speed)
    from bench.odds_forms_tc import FORMS as TIAMAT_CYBORG

    for label, build in (*FORMS, *TIAMAT_CYBORG):
        median, p95 = _p95(build(), samples)
        rows.append((label, f"{median:.1f}", f"{p95:.1f}"))
        figures.append(Figure(f"odds: {label}, p95", p95, "ms", aim=AIM_MS))
    print(f"Exact odds, from scratch ({samples} samples each, wall time, one thread; "
          f"aim: p95 under {AIM_MS:.0f} ms):")
    print(table(rows, ("expression or form", "median ms", "p95 ms")))
    return figures
