"""``python -m bench simulations``: simulated fights, hunts and tournaments per second, per
game (docs/odds.md § Simulations and the bookmaker).

For each game, a position the table's simulations start from — Mutatior's demo teams at the
set-up, Chasse's « vallée » hunt begun, a Mecha-Ring tournament of three just drafted — is
played on by the house bots: first in this process (one core), then through the server's
own pool of processes (``app.services.simulations``, one per core, started and warmed before
the clock runs), in wall time; the one-core figure also per second of this process's CPU
time, which other work on the machine disturbs less. Nothing is asserted.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from bench.report import Figure, table

RUNS = {"mutatior": 120, "chasse": 120, "mecha_ring": 40}
QUICK = {"mutatior": 30, "chasse": 30, "mecha_ring": 10}
NAMES = {"mutatior": "Mutatior fights", "chasse": "Chasse hunts",
         "mecha_ring": "Mecha-Ring tournaments"}


def _mutatior() -> dict[str, Any]:
    from app.rules.mutatior.simulate import demo_fight

    return demo_fight()


def _chasse() -> dict[str, Any]:
    from app.rules.chasse import simulate as chasse
    from app.rules.dice import SeededDice
    from app.rules.match import apply, fold

    dice = SeededDice(1)
    state = fold(chasse.CHASSE, chasse.CHASSE.start(chasse._tribe(), dice))
    for action in ({"kind": "choose_scenario", "scenario": "vallee"}, {"kind": "begin_hunt"}):
        state = apply(chasse.CHASSE, state, action, chasse.GM, dice)[1]
    return state


def _mecha_ring() -> dict[str, Any]:
    from app.rules.dice import SeededDice
    from app.rules.match import MatchSetup, ParticipantSetup, fold
    from app.rules.registry import get_system

    mecha = get_system("mecha_ring")
    setup = MatchSetup("Tournoi", tuple(
        ParticipantSetup(f"Robot {n + 1}", character_id=n + 1, owner_id=10 + n,
                         sheet={"implants": n}) for n in range(3)))
    return fold(mecha, mecha.start(setup, SeededDice(3)))


POSITIONS: dict[str, Callable[[], dict[str, Any]]] = {
    "mutatior": _mutatior, "chasse": _chasse, "mecha_ring": _mecha_ring}


def _pool_rate(registry: Any, game: str, state: dict[str, Any], runs: int,
               match_id: int) -> float:
    """Runs per second of wall time through the server's pool."""
    sim = registry.start(user_id=1, campaign_id=1, match_id=match_id, system=game,
                         state=state, viewer=None, runs=runs, seed=7, from_seq=0)
    while sim.running:
        time.sleep(0.05)
    if sim.status != "done":
        raise RuntimeError(f"{game}: the simulation ended {sim.status} ({sim.error})")
    return sim.snapshot().per_second


def run(*, quick: bool = False) -> list[Figure]:
    from app.rules import simulation
    from app.services import simulation_worker, simulations

    counts = QUICK if quick else RUNS
    processes = simulations.workers()
    pool = simulations.pool()
    list(pool.map(simulation_worker.warm, range(processes * 2)))  # every process started
    registry = simulations.Simulations()
    rows, figures = [], []
    for match_id, (game, make) in enumerate(POSITIONS.items(), start=1):
        state = make()
        runs = counts[game]
        started, cpu = time.perf_counter(), time.process_time()
        simulation.simulate(game, state, runs, seed=7)
        one = runs / (time.perf_counter() - started)
        per_cpu = runs / (time.process_time() - cpu)
        every = _pool_rate(registry, game, state, runs, match_id)
        rows.append((NAMES[game], str(runs), f"{per_cpu:.1f}", f"{one:.1f}", f"{every:.1f}",
                     f"{every / one:.2f}"))
        figures.append(Figure(f"simulations: {NAMES[game]} per CPU second", per_cpu, "/s"))
        figures.append(Figure(f"simulations: {NAMES[game]} per second, one core", one, "/s"))
        figures.append(Figure(f"simulations: {NAMES[game]} per second, {processes} "
                              "processes", every, "/s"))
    registry.close()
    print(f"Simulated runs from a fixed position, played through the rules by the house bots "
          f"(wall time; the pool: {processes} processes, spawned and warmed first):")
    print(table(rows, ("game", "runs", "per CPU second", "per second, one core",
                       f"per second, {processes} processes", "speed-up")))
    return figures
