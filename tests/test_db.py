"""The database layer's own guarantees: writers take turns fairly on SQLite."""

from __future__ import annotations

import threading
import time

from app.db import FairLock


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
