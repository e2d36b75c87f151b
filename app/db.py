"""Engine and sessions.

SQLite gets WAL, foreign keys and a busy timeout on every connection, and Python's
implicit transactions are switched off so that writes can open with ``BEGIN IMMEDIATE``:
a write transaction takes the lock up front instead of failing with "database is locked"
when a reader later tries to upgrade (see ``write_transaction``).

SQLite has one writer at a time, and its busy handler polls: a writer that has just
committed and begins again (a long import in chunks) takes the lock back before the
writers that were waiting wake up, and can starve them. So this process's writers take
turns first come, first served (``FairLock``) before asking SQLite for its lock. The async
routes that write (an action) take their turn in a ``WriteQueue``.

On SQLite, the database work of coroutines runs on the event loop itself (``run_db``, and
``WriteQueue`` whenever no other write is under way): a read takes a few hundred
microseconds of Python, less than handing it to a thread and back, and threads gain
nothing here — the work is Python code, which runs under the interpreter's lock whichever
thread runs it. Worse, every SQLite statement lets go of that lock and has to take it back:
a thread doing so while the event loop was busy waited up to the interpreter's switch
interval (5 ms) per statement, so a read of six statements could take tens of ms, and the
hand-overs cost the kernel tens of thousands of context switches a second at 500 tables.
Moving that work onto the loop took the load harness's 500-table p99 from 0.9–1.6 s to
about 180 ms and the CPU per action from 12–13 to 8 ms (docs/benchmarks.md § The load
harness). PostgreSQL's statements wait on the network: they stay in the thread pool.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import queue
import sqlite3
import threading
import weakref
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from anyio import to_thread
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session, sessionmaker
from starlette.concurrency import run_in_threadpool

SQLITE_BUSY_TIMEOUT_MS = 10_000
T = TypeVar("T")


def make_engine(url: str, *, busy_timeout_ms: int = SQLITE_BUSY_TIMEOUT_MS) -> Engine:
    # As many connections as the thread pool has threads (anyio's default: 40), so a busy
    # worker queues on the database's lock, never on the pool — and on SQLite one more, for
    # the writer thread of ``WriteQueue``: with forty threads holding the forty connections,
    # some waiting for the writers' lock (``FairLock``), the writer holding that lock would
    # wait for a connection that none of them gives back (seen at 500 tables in bench.load).
    # SQLite keeps them all open: a connection opened for a burst and closed after it
    # re-read the schema and prepared its statements again at the next burst (overflow
    # beyond ten did so at 500 tables: 10.0 → 8.0 ms of CPU per action, docs/benchmarks.md).
    if url.startswith("sqlite"):
        in_memory = url in ("sqlite://", "sqlite:///:memory:")
        pool = {} if in_memory else {"pool_size": 41, "max_overflow": 0}
        engine = create_engine(url, connect_args={"check_same_thread": False,
                                                  "timeout": busy_timeout_ms / 1000}, **pool)
        _configure_sqlite(engine, busy_timeout_ms)
        _WRITE_TURNS[engine] = (FairLock(), busy_timeout_ms / 1000)
        return engine
    # A lock held past the same wait fails the statement (a 503 to retry), as on SQLite.
    return create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=30,
                         connect_args={"options": f"-c lock_timeout={int(busy_timeout_ms)}"})


def _configure_sqlite(engine: Engine, busy_timeout_ms: int) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record) -> None:
        dbapi_connection.isolation_level = None  # we emit BEGIN ourselves
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection) -> None:
        mode = connection.get_execution_options().get("sqlite_begin", "DEFERRED")
        connection.exec_driver_sql(f"BEGIN {mode}")


class FairLock:
    """A lock handed to its waiters in the order they came (``threading.Lock`` is not fair),
    reentrant for the thread that holds it, with a timeout."""

    def __init__(self) -> None:
        self._mutex = threading.Lock()
        self._waiters: deque[threading.Event] = deque()
        self._owner: int | None = None
        self._depth = 0

    def acquire(self, timeout: float) -> bool:
        me = threading.get_ident()
        with self._mutex:
            if self._owner == me:
                self._depth += 1
                return True
            if self._owner is None and not self._waiters:
                self._owner, self._depth = me, 1
                return True
            turn = threading.Event()
            self._waiters.append(turn)
        if not turn.wait(timeout):
            with self._mutex:
                if not turn.is_set():  # still waiting: give up our place
                    self._waiters.remove(turn)
                    return False
        with self._mutex:  # handed over by ``release``
            self._owner, self._depth = me, 1
        return True

    def release(self) -> None:
        with self._mutex:
            self._depth -= 1
            if self._depth:
                return
            self._owner = None
            if self._waiters:
                # Handed straight to the next in line: nobody can slip in between.
                self._owner = -1
                self._waiters.popleft().set()


# The queue this process's writers join for each SQLite engine, and how long they may wait
# in it (the busy timeout). Other databases lock rows, not the whole file: no queue.
_WRITE_TURNS: weakref.WeakKeyDictionary[Engine, tuple[FairLock, float]] = \
    weakref.WeakKeyDictionary()


def make_sessionmaker(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)


async def run_db(sessions: Callable[[], Session], work: Callable[..., T], *args: Any) -> T:
    """``work(*args)``: blocking reads on the database of ``sessions`` (a ``sessionmaker``),
    for a coroutine — on the event loop on SQLite (an engine whose writers take turns:
    ``_WRITE_TURNS``, as ``WriteQueue`` asks), in the thread pool elsewhere. Writes go
    through a ``WriteQueue``."""
    if getattr(sessions, "kw", {}).get("bind") in _WRITE_TURNS:
        return work(*args)
    return await run_in_threadpool(work, *args)


# ``Session.info`` key: the session is inside ``write_transaction``.
_WRITING = "tablee.writing"


@contextmanager
def write_transaction(session: Session) -> Iterator[Session]:
    """One write transaction: all of it commits, or none of it does.

    A read transaction the request may have opened is closed first, so the write starts
    from fresh data under the write lock (``BEGIN IMMEDIATE`` on SQLite; the option is
    ignored elsewhere). Inside another write transaction of the same session, it joins
    it: the outer one commits or rolls back the whole (an action route reads the
    membership under the write lock, then lets the table service write, in one
    transaction).
    """
    if session.info.get(_WRITING):
        yield session
        return
    if session.in_transaction():
        session.rollback()
    turn, wait = _WRITE_TURNS.get(session.get_bind(), (None, 0.0))
    if turn is not None and not turn.acquire(wait):
        raise _locked()
    try:
        session.connection(execution_options={"sqlite_begin": "IMMEDIATE"})
        session.info[_WRITING] = True
        yield session
        session.commit()
    except BaseException:
        session.rollback()
        raise
    finally:
        session.info.pop(_WRITING, None)
        if turn is not None:
            turn.release()



def _locked() -> OperationalError:
    """What a writer that waited longer than the busy timeout gets (answered 503: retry)."""
    return OperationalError("BEGIN IMMEDIATE", {}, sqlite3.OperationalError("database is locked"))


class WriteQueue:
    """Runs an async route's blocking write transaction in its turn.

    On SQLite, where one writer at a time holds the lock anyway, a write runs on the event
    loop when it is the only one (no write queued or under way, the process's writers'
    turn free: ``FairLock``), as reads do (``run_db``); otherwise it waits its turn in
    arrival order for one writer thread of this queue, which runs the waiting writes back
    to back. (Only another process's write transaction — a command line's — could then
    hold the loop: SQLite's own lock, for as long as that transaction lasts.) A write
    whose turn has not come within the busy timeout fails as a lock not obtained does, and
    never runs; one whose caller leaves before its turn never runs either. Other databases
    lock rows: a thread of the pool each, no queue.
    """

    IDLE_SECONDS = 5.0  # the writer thread ends after this long without work

    def __init__(self, engine: Engine) -> None:
        turn = _WRITE_TURNS.get(engine)
        self._queued = turn is not None
        self._turn = turn[0] if turn is not None else None
        self._wait = turn[1] if turn is not None else 0.0
        self._jobs: queue.SimpleQueue[_Write] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._writer: threading.Thread | None = None
        self.waiting = 0  # writes queued whose turn has not come (bench/lagserve.py)
        self._writing = 0  # writes the writer thread has begun and not finished

    async def run(self, work: Callable[[], T]) -> T:
        if not self._queued:
            return await to_thread.run_sync(work)
        if self._take_turn_now():
            try:
                return work()
            finally:
                self._turn.release()  # type: ignore[union-attr]
        job = _Write(work, contextvars.copy_context(), asyncio.get_running_loop())
        with self._lock:
            self.waiting += 1
            self._jobs.put(job)
            if self._writer is None:
                self._writer = threading.Thread(target=self._write, name="tablee-writer",
                                                daemon=True)
                self._writer.start()
        try:
            done, _ = await asyncio.wait({job.done}, timeout=self._wait)
            if not done and self._drop(job):
                raise _locked()
            return await job.done
        except asyncio.CancelledError:
            self._drop(job)  # a write that has begun goes on, as it would in a thread
            raise

    def _take_turn_now(self) -> bool:
        """Take the writers' turn for a write on the loop, if no write waits or runs."""
        assert self._turn is not None
        with self._lock:
            return not self.waiting and not self._writing and self._turn.acquire(0)

    def _drop(self, job: _Write) -> bool:
        """Take ``job`` out of its turn if it has not begun: True when it never will."""
        with self._lock:
            if job.state != "queued":
                return False
            job.state = "dropped"
            self.waiting -= 1
            return True

    def _write(self) -> None:
        """The writer thread: each write in turn, until the queue stays empty a while."""
        while True:
            try:
                job = self._jobs.get(timeout=self.IDLE_SECONDS)
            except queue.Empty:
                with self._lock:
                    if self._jobs.empty():
                        self._writer = None
                        return
                continue
            with self._lock:
                if job.state != "queued":
                    continue  # its caller left, or its turn came too late
                job.state = "begun"
                self.waiting -= 1
                self._writing += 1
            try:
                result, error = job.context.run(job.work), None
            except BaseException as exc:  # handed to the caller, raised there
                result, error = None, exc
            finally:
                with self._lock:
                    self._writing -= 1
            with contextlib.suppress(RuntimeError):  # the caller's loop closed: nobody to tell
                job.loop.call_soon_threadsafe(_settle, job.done, result, error)


class _Write:
    """A write waiting for its turn in a ``WriteQueue``, then its answer."""

    __slots__ = ("context", "done", "loop", "state", "work")

    def __init__(self, work: Callable[[], Any], context: contextvars.Context,
                 loop: asyncio.AbstractEventLoop) -> None:
        self.work, self.context, self.loop = work, context, loop
        self.done: asyncio.Future[Any] = loop.create_future()
        self.state = "queued"  # then "begun", or "dropped" (never to run)


def _settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if future.done():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)
