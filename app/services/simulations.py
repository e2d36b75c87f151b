"""Simulations for the table and the API: many fights, hunts or tournaments played on from a
match's position by the house bots, on every core (issue 27, docs/odds.md § Simulations and
the bookmaker).

A member asks for ``runs`` runs of the match as they may see it: the GM from the whole state,
anyone else from their view (``tables.viewer_state``), which the game completes at random
with what they cannot see, anew for each run (``app.rules.simulation``). Nothing is stored:
a simulation lives in this server process, in ``Simulations`` (one per app), until an hour
after it ended; each member has at most one per match (a new one replaces it) and only they
may read or cancel it.

The runs go to a pool of processes, one per core (``ProcessPoolExecutor``, started with
``spawn`` so that no process inherits the server's threads, sockets or database
connections): a simulation hands each process a piece of its runs at a time, sized to take
about ``CHUNK_SECONDS``, and adds each piece up as it comes back (in the pool's own thread,
never the event loop's). Cancelling stops handing pieces out and drops those not started;
a piece under way finishes in its process, and is not counted.
"""

from __future__ import annotations

import copy
import logging
import multiprocessing
import os
import secrets
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.orm import Session

from app import i18n
from app.errors import AppError, Conflict, ValidationFailed
from app.i18n import lazy_gettext as _l
from app.rules import simulation
from app.rules.match import Actor, State
from app.rules.odds.action import Amount, Percent, Phrase
from app.rules.wording import is_singular
from app.services import simulation_worker, tables
from app.services.access import CampaignAccess

logger = logging.getLogger(__name__)

RUNS_MAX = 2000
RUNS_CHOICES = (50, 100, 200, 500, 1000)
RUNS_DEFAULT = {"mutatior": 200, "chasse": 200, "mecha_ring": 100}
RUNNING_MAX = 4
"""Simulations running at once in this server process; past that a new one waits its turn
with a 503 (the cores are shared by all of them)."""
CHUNK_SECONDS = 0.3
"""About how long a piece of runs takes in a process: a cancel is heard within it."""
CHUNK_MAX = 64
KEEP_SECONDS = 3600
SEED_MAX = 2**31 - 1


class SimulationsBusy(AppError):
    status = 503
    code = "simulations_busy"

    def __init__(self) -> None:
        super().__init__(_l("The server is already running as many simulations as it can; try "
                            "again in a moment."), field="runs", headers={"Retry-After": "5"})


class NothingToSimulate(Conflict):
    code = "nothing_to_simulate"

    def __init__(self) -> None:
        super().__init__(_l("There is nothing to simulate in this match now: it has not "
                            "started, or it is over."), field="runs")


# — the pool ——————————————————————————————————————————————————————————————————————————

_pool_lock = threading.Lock()
_pool: Executor | None = None


def workers() -> int:
    """One process per core."""
    return os.cpu_count() or 1


def pool() -> Executor:
    """The processes every simulation of this server shares, started at the first one."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ProcessPoolExecutor(max_workers=workers(),
                                        mp_context=multiprocessing.get_context("spawn"))
        return _pool


def _pool_broken(broken: Executor) -> None:
    """A process died (killed, out of memory): the next simulation starts a new pool."""
    global _pool
    with _pool_lock:
        if _pool is broken:
            _pool = None
    broken.shutdown(wait=False, cancel_futures=True)


# — one simulation ————————————————————————————————————————————————————————————————————

@dataclass(eq=False)
class Simulation:
    id: str
    user_id: int
    campaign_id: int
    match_id: int
    system: str
    runs: int
    seed: int
    from_seq: int
    whole_state: bool  # the GM's: from the whole state; else from the asker's view
    state: State = field(repr=False)
    viewer: Actor | None = field(repr=False)
    started: float = field(default_factory=time.monotonic)
    started_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    status: str = "running"  # running, done, cancelled, failed
    done: int = 0
    tally: simulation.Tally = field(default_factory=simulation.Tally)
    error: str | None = None
    finished: float | None = None
    cpu_seconds: float = 0.0
    per_run: float | None = None  # seconds a run takes in a process, measured
    next_index: int = 0
    in_flight: set[Future] = field(default_factory=set, repr=False)
    lock: Any = field(default_factory=threading.RLock, repr=False)

    @property
    def running(self) -> bool:
        return self.status == "running"

    def snapshot(self) -> Snapshot:
        """How it stands now, read at once (the pool's thread adds pieces up meanwhile)."""
        with self.lock:
            tally = copy.deepcopy(self.tally)
            seconds = (self.finished or time.monotonic()) - self.started
            found = Snapshot(self, self.status, self.done, tally, seconds, self.error)
        game = simulation.simulator(self.system)
        if tally.runs and game is not None:
            found.figures = game.figures(tally, self.state)
        return found


@dataclass
class Snapshot:
    """A simulation as it stood when read: what the page and the API show."""

    sim: Simulation
    status: str
    done: int
    tally: simulation.Tally
    seconds: float
    error: str | None
    figures: simulation.Figures | None = None

    @property
    def running(self) -> bool:
        return self.status == "running"

    @property
    def per_second(self) -> float:
        """Runs finished per second of wall time, every process together."""
        return self.done / self.seconds if self.seconds > 0 else 0.0

    @property
    def margin(self) -> float:
        """The widest 95 % margin of error of the chances shown, in points."""
        return simulation.margin(self.figures, self.done) if self.figures else 0.0


class Simulations:
    """This server process's simulations (``app.state.simulations``)."""

    def __init__(self, executor: Callable[[], Executor] = pool,
                 processes: int | None = None) -> None:
        self._executor = executor
        self._processes = processes or workers()
        self._lock = threading.RLock()  # the simulations' own locks are this one
        self._by_id: dict[str, Simulation] = {}
        self._latest: dict[tuple[int, int], str] = {}

    # — asking ——

    def start(self, *, user_id: int, campaign_id: int, match_id: int, system: str,
              state: State, viewer: Actor | None, runs: int, seed: int,
              from_seq: int) -> Simulation:
        with self._lock:
            self._forget_old()
            previous = self.latest(user_id, match_id)
            if previous is not None and previous.running:
                self._cancel(previous)
            if sum(1 for sim in self._by_id.values() if sim.running) >= RUNNING_MAX:
                raise SimulationsBusy()
            sim = Simulation(secrets.token_urlsafe(12), user_id, campaign_id, match_id, system,
                             runs, seed, from_seq, viewer is None, state, viewer,
                             lock=self._lock)
            self._by_id[sim.id] = sim
            self._latest[(user_id, match_id)] = sim.id
            self._feed(sim)
            return sim

    def latest(self, user_id: int, match_id: int) -> Simulation | None:
        with self._lock:
            found = self._latest.get((user_id, match_id))
            return self._by_id.get(found) if found else None

    def cancel(self, sim: Simulation) -> None:
        with self._lock:
            self._cancel(sim)

    def close(self) -> None:
        """The app stops: its simulations stop (the shared pool stays for the others)."""
        with self._lock:
            for sim in self._by_id.values():
                self._cancel(sim)

    def running(self) -> int:
        with self._lock:
            return sum(1 for sim in self._by_id.values() if sim.running)

    # — the work ——

    def _cancel(self, sim: Simulation) -> None:
        if not sim.running:
            return
        sim.status = "cancelled"
        sim.finished = time.monotonic()
        for future in list(sim.in_flight):
            future.cancel()

    def _forget_old(self) -> None:
        now = time.monotonic()
        for key, sim in list(self._by_id.items()):
            if sim.finished is not None and now - sim.finished > KEEP_SECONDS:
                del self._by_id[key]
                if self._latest.get((sim.user_id, sim.match_id)) == key:
                    del self._latest[(sim.user_id, sim.match_id)]

    def _chunk(self, sim: Simulation) -> int:
        """The next piece's size: one run while a process has not said how long one takes,
        then about ``CHUNK_SECONDS`` of runs."""
        size = 1 if sim.per_run is None else int(CHUNK_SECONDS / max(sim.per_run, 1e-4))
        return max(1, min(size, CHUNK_MAX, sim.runs - sim.next_index))

    def _feed(self, sim: Simulation) -> None:
        """Hand out pieces while the simulation has runs left and a process is free for it."""
        executor = self._executor()
        while sim.running and sim.next_index < sim.runs and len(sim.in_flight) < self._processes:
            count = self._chunk(sim)
            first = sim.next_index
            sim.next_index += count
            try:
                future = executor.submit(simulation_worker.run, sim.system, sim.state,
                                         sim.viewer, sim.seed, first, count)
            except RuntimeError as error:  # a broken pool refuses new work
                self._fail(sim, error, executor)
                return
            sim.in_flight.add(future)
            future.add_done_callback(lambda done, n=count: self._returned(sim, n, done))

    def _returned(self, sim: Simulation, count: int, future: Future) -> None:
        """A piece came back (in the pool's thread): add it up, hand out the next."""
        with self._lock:
            sim.in_flight.discard(future)
            if future.cancelled() or not sim.running:
                return
            try:
                found, seconds = future.result()
            except Exception as error:
                self._fail(sim, error, self._executor())
                return
            sim.tally.merge(simulation.Tally.from_dict(found))
            sim.done += count
            sim.cpu_seconds += seconds
            each = seconds / count
            sim.per_run = each if sim.per_run is None else 0.5 * sim.per_run + 0.5 * each
            if sim.done >= sim.runs:
                sim.status = "done"
                sim.finished = time.monotonic()
                return
            self._feed(sim)

    def _fail(self, sim: Simulation, error: BaseException, executor: Executor) -> None:
        logger.error("simulation %s of match %s failed: %r", sim.id, sim.match_id, error,
                     exc_info=error)
        sim.status = "failed"
        sim.error = type(error).__name__
        sim.finished = time.monotonic()
        for future in list(sim.in_flight):
            future.cancel()
        if "Broken" in type(error).__name__ or isinstance(error, RuntimeError):
            _pool_broken(executor)


# — the use cases —————————————————————————————————————————————————————————————————————

def read_runs(value: object, system: str) -> int:
    """How many runs were asked (the game's default when none), checked."""
    text = str(value if value is not None else "").strip()
    if not text:
        return RUNS_DEFAULT.get(system, 100)
    if not text.isdigit() or not 1 <= int(text) <= RUNS_MAX:
        raise ValidationFailed(_l("Choose from 1 to %(n)s runs.", n=RUNS_MAX), field="runs")
    return int(text)


def read_seed(value: object) -> int:
    """The seed asked, or a new one (given back: the same seed plays the same runs)."""
    text = str(value if value is not None else "").strip()
    if not text:
        return secrets.randbelow(SEED_MAX) + 1
    if not text.isdigit() or int(text) > SEED_MAX:
        raise ValidationFailed(_l("The seed is a whole number from 0 to %(n)s.", n=SEED_MAX),
                               field="seed")
    return int(text)


def position(db: Session, access: CampaignAccess, match_id: int) -> tuple[
        Any, State, Actor | None]:
    """The match, and what a simulation of it may start from for this member: the whole
    state for the GM, else their own view (and them, for the game to fill in the rest)."""
    match = tables.get_match(db, access, match_id)
    actor = tables.actor_for(db, access)
    if actor.is_gm:
        return match, copy.deepcopy(match.state), None
    return match, tables.viewer_state(match, actor), actor


def can_simulate(system: str) -> bool:
    return simulation.simulator(system) is not None


def start(*, db: Session, access: CampaignAccess, registry: Simulations, match_id: int,
          runs: object = None, seed: object = None) -> Simulation:
    match, state, viewer = position(db, access, match_id)
    count = read_runs(runs, match.system)
    chosen = read_seed(seed)
    if not simulation.simulable(match.system, state):
        raise NothingToSimulate()
    return registry.start(user_id=access.user.id, campaign_id=access.campaign.id,
                          match_id=match.id, system=match.system, state=state, viewer=viewer,
                          runs=count, seed=chosen, from_seq=match.seq)


def latest(*, db: Session, access: CampaignAccess, registry: Simulations,
           match_id: int) -> Simulation | None:
    """The member's last simulation of this match. One run from the whole state is the GM's:
    a member who is no longer the GM does not see it."""
    tables.get_match(db, access, match_id)
    found = registry.latest(access.user.id, match_id)
    if found is None or found.campaign_id != access.campaign.id or (
            found.whole_state and not access.is_gm):
        return None
    return found


def cancel(*, db: Session, access: CampaignAccess, registry: Simulations,
           match_id: int) -> Simulation:
    found = latest(db=db, access=access, registry=registry, match_id=match_id)
    if found is None:
        raise Conflict(_l("You have no simulation of this match to stop."),
                       code="no_simulation")
    registry.cancel(found)
    return found


# — words ——————————————————————————————————————————————————————————————————————————————

def say(words: str | Phrase) -> str:
    """A figure's words in the reader's language: a name from the state as it is, a rules
    phrase translated (an average written « 6,2 », its plural chosen by it)."""
    if isinstance(words, str):
        return words
    params = {name: _figure(value) for name, value in words.params.items()}
    if words.plural and words.count:
        count = words.params[words.count]
        figure = float(count.value) if isinstance(count, Amount | Percent) else count
        form = 1 if is_singular(figure, i18n.get_locale()) else 2
        return i18n.ngettext(words.msgid, words.plural, form, **params)
    return i18n.gettext(words.msgid, **params) if params else i18n.gettext(words.msgid)


def _figure(value: Any) -> Any:
    if isinstance(value, Amount):
        return i18n.number(round(float(value.value), 1))
    if isinstance(value, Percent):
        return i18n.number(round(float(value.value) * 100))
    return value
