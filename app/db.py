"""Engine and sessions.

SQLite gets WAL, foreign keys and a busy timeout on every connection, and Python's
implicit transactions are switched off so that writes can open with ``BEGIN IMMEDIATE``:
a write transaction takes the lock up front instead of failing with "database is locked"
when a reader later tries to upgrade (see ``write_transaction``).

SQLite has one writer at a time, and its busy handler polls: a writer that has just
committed and begins again (a long import in chunks) takes the lock back before the
writers that were waiting wake up, and can starve them. So this process's writers take
turns first come, first served (``FairLock``) before asking SQLite for its lock. The async
routes that write (an action) queue on the event loop instead (``WriteQueue``), before they
take a thread at all.
"""

from __future__ import annotations

import sqlite3
import threading
import weakref
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

import anyio
from anyio import to_thread
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session, sessionmaker

SQLITE_BUSY_TIMEOUT_MS = 10_000
T = TypeVar("T")


def make_engine(url: str, *, busy_timeout_ms: int = SQLITE_BUSY_TIMEOUT_MS) -> Engine:
    # As many connections as the thread pool has threads (anyio's default: 40), so a busy
    # worker queues on the database's lock, never on the pool.
    if url.startswith("sqlite"):
        in_memory = url in ("sqlite://", "sqlite:///:memory:")
        pool = {} if in_memory else {"pool_size": 10, "max_overflow": 30}
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
    """Runs an async route's blocking write transaction in a worker thread.

    On SQLite, where one writer at a time holds the lock anyway, those writes take their
    turns here, on the event loop, one at a time and in arrival order; then the one whose
    turn it is takes a thread. Eight actions that each took a thread first and then waited
    for the write lock woke one another's threads at every turn: that cost about a fifth of
    an action's CPU (docs/benchmarks.md § Fourth pass). A turn that has not come within the
    busy timeout fails as a lock not obtained does. Other databases lock rows: no queue.
    """

    def __init__(self, engine: Engine) -> None:
        turn = _WRITE_TURNS.get(engine)
        self._turns = anyio.CapacityLimiter(1) if turn is not None else None
        self._wait = turn[1] if turn is not None else 0.0

    async def run(self, work: Callable[[], T]) -> T:
        turns = self._turns
        if turns is None:
            return await to_thread.run_sync(work)
        try:
            turns.acquire_nowait()
        except anyio.WouldBlock:
            with anyio.move_on_after(self._wait) as waiting:
                await turns.acquire()
            if waiting.cancelled_caught:
                raise _locked() from None
        try:
            return await to_thread.run_sync(work)
        finally:
            turns.release()
