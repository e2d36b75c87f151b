"""The database layer's own guarantees: writers take turns fairly on SQLite; a write
transaction inside another joins it."""

from __future__ import annotations

import threading
import time

import pytest
from sqlalchemy import func, select

from app.db import FairLock, write_transaction
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
