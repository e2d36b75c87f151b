"""What a process of the simulations' pool runs (``app/services/simulations.py``): a piece
of a simulation's runs, and how long it took. Imported by each spawned process: it pulls in
the rules and nothing of the web or the database."""

from __future__ import annotations

import time
from typing import Any

from app.rules import simulation
from app.rules.match import Actor, State


def run(system_key: str, state: State, viewer: Actor | None, seed: int | str, first: int,
        count: int) -> tuple[dict[str, Any], float]:
    """Runs ``first`` to ``first + count - 1`` added up, and the seconds they took."""
    started = time.perf_counter()
    tally = simulation.run_chunk(system_key, state, viewer, seed, first, count)
    return tally, time.perf_counter() - started


def warm(_: int) -> bool:
    """Nothing: a new process has imported the rules by the time it answers."""
    return True
