"""The database layer's own guarantees: writers take turns fairly on SQLite, the async
routes' writes too (``WriteQueue``: on the event loop when alone, else in turn in its writer
thread); a write transaction inside another joins it; reads for a coroutine run on the loop
on SQLite (``run_db``)."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import anyio
import pytest
from sqlalchemy import create_engine, event, func, select
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from app.db import (
    FairLock,
    WriteQueue,
    make_engine,
    make_sessionmaker,
    run_db,
    write_transaction,
)
from app.models import Attempt


def _waiting(lock: FairLock, count: int) -> None:
    deadline = time.monotonic() + 5
    while len(lock._waiters) < count:
        assert time.monotonic() < deadline, "the waiter never queued"
        time.sleep(0.001)


def test_writers_take_their_turn_in_the_order_they_came():
    lock = FairLock()
    assert lock.acquire(1)
    order: list[str] = []

    def writer(name: str) -> None:
        assert lock.acquire(5)
        order.append(name)
        lock.release()

    threads = []
    for count, name in enumerate(("first", "second", "third"), start=1):
        thread = threading.Thread(target=writer, args=(name,))
        thread.start()
        threads.append(thread)
        _waiting(lock, count)
    # The holder comes back at once: it queues behind those already waiting.
    lock.release()
    writer("holder again")
    for thread in threads:
        thread.join(5)
    assert order == ["first", "second", "third", "holder again"]


def test_a_writer_that_waited_too_long_leaves_the_queue():
    lock = FairLock()
    assert lock.acquire(1)
    answers: list[bool] = []
    impatient = threading.Thread(target=lambda: answers.append(lock.acquire(0.05)))
    impatient.start()
    impatient.join(5)
    assert answers == [False] and len(lock._waiters) == 0
    lock.release()
    assert lock.acquire(0.01)


def test_the_holder_may_take_it_again_inside_its_turn():
    lock = FairLock()
    assert lock.acquire(1) and lock.acquire(1)
    lock.release()
    taken: list[bool] = []
    other = threading.Thread(target=lambda: taken.append(lock.acquire(0.05)))
    other.start()
    other.join(5)
    assert taken == [False]  # still held once
    lock.release()
    assert lock.acquire(0.01)


def test_a_write_inside_a_write_joins_it_all_or_nothing(db):
    """An action route reads the membership under the write lock and lets the table
    service write inside the same transaction: the inner write neither commits on its own
    nor throws away what the outer one did."""
    with write_transaction(db):
        db.add(Attempt(key="outer"))
        db.flush()
        with write_transaction(db):
            db.add(Attempt(key="inner"))
        assert db.in_transaction()  # the inner block did not commit
    assert db.scalar(select(func.count()).select_from(Attempt)) == 2

    with pytest.raises(RuntimeError), write_transaction(db):
        db.add(Attempt(key="outer again"))
        db.flush()
        with write_transaction(db):
            db.add(Attempt(key="inner again"))
            raise RuntimeError("the rules refused")
    assert db.scalar(select(func.count()).select_from(Attempt)) == 2  # nothing of either


@pytest.fixture
def sqlite_engine(tmp_path):
    engine = make_engine(f"sqlite:///{tmp_path / 'queue.db'}", busy_timeout_ms=300)
    yield engine
    engine.dispose()


@pytest.fixture
def sqlite_queue(sqlite_engine):
    return WriteQueue(sqlite_engine)


def writing(engine, work):
    """``work`` as an action's write does it: inside a write transaction of its own."""
    def write():
        with Session(engine) as session, write_transaction(session):
            return work()
    return write


@contextmanager
def another_write(engine) -> Iterator[threading.Event]:
    """A write transaction under way in a thread of its own (a page's form, an import) until
    the event yielded is set."""
    began, release = threading.Event(), threading.Event()

    def write() -> None:
        with Session(engine) as session, write_transaction(session):
            began.set()
            release.wait(5)

    thread = threading.Thread(target=write)
    thread.start()
    assert began.wait(5)
    try:
        yield release
    finally:
        release.set()
        thread.join(5)


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_a_write_alone_runs_on_the_event_loop(sqlite_engine, sqlite_queue,
                                                    anyio_backend):
    """No other write waits or runs: the write is done right here, with no thread's hop
    (the module docstring of ``app.db`` says why), and the turn is free after it."""
    ran_in = await sqlite_queue.run(writing(sqlite_engine, threading.get_ident))
    assert ran_in == threading.get_ident()
    assert await sqlite_queue.run(writing(sqlite_engine, lambda: "next")) == "next"


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_writes_behind_another_take_the_writer_thread_in_the_order_they_came(
        sqlite_engine, sqlite_queue, anyio_backend):
    running, order, threads = [], [], set()

    def work(name: str):
        running.append(name)
        assert len(running) == 1, f"{running} write at once"
        threads.add(threading.get_ident())
        order.append(name)
        running.remove(name)
        return name

    with another_write(sqlite_engine) as release:
        async with anyio.create_task_group() as tasks:
            for name in ("first", "second", "third"):
                tasks.start_soon(sqlite_queue.run,
                                 writing(sqlite_engine, lambda name=name: work(name)))
                await anyio.sleep(0.01)  # they arrive in this order
            assert order == []  # each waits for the turn the other write holds
            release.set()
    assert order == ["first", "second", "third"]
    assert threading.get_ident() not in threads  # the loop went on meanwhile


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_an_async_write_whose_turn_does_not_come_is_refused_like_a_locked_database(
        sqlite_engine, sqlite_queue, anyio_backend):
    ran = []
    with another_write(sqlite_engine):
        started = time.monotonic()
        with pytest.raises(OperationalError, match="database is locked"):
            await sqlite_queue.run(writing(sqlite_engine, lambda: ran.append("late")))
        waited = time.monotonic() - started
    assert ran == []  # refused before its turn: nothing of it ran
    assert 0.25 <= waited < 5  # the busy timeout (0.3 s), not forever
    assert await sqlite_queue.run(writing(sqlite_engine, lambda: "next")) == "next"


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_the_next_write_begins_while_the_event_loop_is_busy(
        sqlite_engine, sqlite_queue, anyio_backend):
    """Queued writes pass the turn from one to the next in the writer thread: a loop busy
    with other work (three thousand streams to write) does not hold the queue up. Handed
    over on the loop, the second write could only begin once the loop was free again."""
    began: list[str] = []
    with another_write(sqlite_engine) as release:
        first = asyncio.ensure_future(sqlite_queue.run(
            writing(sqlite_engine, lambda: began.append("first"))))
        second = asyncio.ensure_future(sqlite_queue.run(
            writing(sqlite_engine, lambda: began.append("second"))))
        await asyncio.sleep(0)  # both queued, in this order
        release.set()
        deadline = time.monotonic() + 5
        while len(began) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)  # the event loop busy: no task of it runs meanwhile
        assert began == ["first", "second"]
    await asyncio.gather(first, second)


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_sqlite_has_a_connection_for_every_thread_and_the_writer(tmp_path, anyio_backend):
    """Forty threads of the pool may each hold a connection while waiting for the writers'
    lock: the writer thread that holds the lock must still find one, or all of them wait."""
    engine = make_engine(f"sqlite:///{tmp_path / 'pool.db'}")
    threads = anyio.to_thread.current_default_thread_limiter().total_tokens
    assert engine.pool.size() + engine.pool._max_overflow == threads + 1
    engine.dispose()


def test_sqlite_keeps_the_connections_a_burst_opened(tmp_path):
    """Twenty threads reading at once, twice: the second burst finds the connections the
    first opened (each new one reads the schema and prepares its statements again)."""
    engine = make_engine(f"sqlite:///{tmp_path / 'kept.db'}")
    opened = []
    event.listen(engine, "connect", lambda *_: opened.append(1))
    barrier = threading.Barrier(20)

    def read() -> None:
        with engine.connect() as connection:
            barrier.wait()  # all twenty hold a connection at once
            connection.exec_driver_sql("SELECT 1")

    for _ in range(2):
        workers = [threading.Thread(target=read) for _ in range(20)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
    assert len(opened) == 20
    engine.dispose()


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_reads_for_a_coroutine_run_on_the_loop_on_sqlite_only(tmp_path, anyio_backend):
    """SQLite's statements take microseconds: a thread's hop would cost more than the read
    (the module docstring of ``app.db``). PostgreSQL's wait on the network: in a thread."""
    sqlite = make_engine(f"sqlite:///{tmp_path / 'reads.db'}")
    postgres = create_engine("postgresql+psycopg://nobody@127.0.0.1/nothing")  # never used
    here = threading.get_ident()
    assert await run_db(make_sessionmaker(sqlite), threading.get_ident) == here
    assert await run_db(make_sessionmaker(postgres), threading.get_ident) != here
    sqlite.dispose()
