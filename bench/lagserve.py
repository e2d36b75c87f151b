"""``python bench/lagserve.py serve …``: ``python -m app serve`` with a watch on each
worker's event loop, for the load harness (``bench.load``).

Run by its path, from the checkout whose code is served (``bench.server.tablee_root``): the
code measured before a change has no such module. Every worker — uvicorn starts them with
``spawn``, which runs this file's top level again as ``__mp_main__`` — gets a task that asks
to wake every ``TICK`` seconds: how late it wakes is the loop's *lag*, the wait anything
ready to run on that loop had then (a request's parsing, a stream's write). At each tick it
also reads the queues a request may wait in: the SQLite write turn (``app.db.WriteQueue``),
the thread pool (anyio's default limiter: threads busy, tasks waiting for one) and the open
streams and feeds. Once a second the worker writes its running totals to
``$TABLEE_BENCH_LAG/lag-<pid>.json``; the harness reads them before and after a run.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import sys
import time
from bisect import bisect_left
from pathlib import Path
from typing import Any

TICK = 0.005
GAUGE_EVERY = 20  # ticks between two readings of the queues (their cost is not nothing)
EDGES_MS = (0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000)  # lag histogram (upper)
SECONDS_KEPT = 600


def _fastapi_app(app: Any) -> Any:
    """The application under uvicorn's wrappers (the one whose ``state`` holds the queues)."""
    for _ in range(10):
        if hasattr(app, "state") and hasattr(app.state, "_state"):
            return app
        app = getattr(app, "app", None)
        if app is None:
            return None
    return None


class Watch:
    """One worker's running totals: lag histogram, queue lengths, a row per second."""

    def __init__(self, app: Any, out: Path) -> None:
        self.app, self.out = app, out
        self.ticks = 0
        self.lag_counts = [0] * (len(EDGES_MS) + 1)
        self.lag_sum_ms = 0.0
        # Sums of the queues' lengths over the readings (every ``GAUGE_EVERY`` ticks).
        self.gauged = 0
        self.sums = {"write_waiting": 0, "threads_busy": 0, "thread_waiting": 0}
        self.seconds: list[list[float]] = []  # [time, max lag ms, max write waiting, max busy]
        # The collector's pauses per generation: count, total and longest (ms). A full
        # collection walks every object of the worker, and stops its event loop meanwhile.
        self.gc = [[0, 0.0, 0.0] for _ in range(3)]
        self._gc_started = 0.0
        gc.callbacks.append(self._collected)

    def _collected(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._gc_started = time.perf_counter()
            return
        took = (time.perf_counter() - self._gc_started) * 1000
        row = self.gc[info["generation"]]
        row[0] += 1
        row[1] += took
        row[2] = max(row[2], took)

    def gauges(self) -> dict[str, int]:
        from anyio import to_thread

        threads = to_thread.current_default_thread_limiter()
        found = {"threads_busy": int(threads.borrowed_tokens),
                 "thread_waiting": threads.statistics().tasks_waiting, "write_waiting": 0}
        state = getattr(self.app, "state", None)
        writes = getattr(state, "write_queue", None)
        if isinstance(getattr(writes, "waiting", None), int):  # app.db.WriteQueue
            found["write_waiting"] = writes.waiting
        elif getattr(writes, "_turns", None) is not None:  # before its writer thread
            found["write_waiting"] = writes._turns.statistics().tasks_waiting
        return found

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        clock, counts = loop.time, self.lag_counts
        second_start, peak, gauged = clock(), [0.0, 0, 0], 0
        while True:
            asked = clock()
            await asyncio.sleep(TICK)
            now = clock()
            lag_ms = (now - asked - TICK) * 1000
            lag_ms = lag_ms if lag_ms > 0 else 0.0
            self.ticks += 1
            self.lag_sum_ms += lag_ms
            counts[bisect_left(EDGES_MS, lag_ms)] += 1
            if lag_ms > peak[0]:
                peak[0] = lag_ms
            gauged += 1
            if gauged < GAUGE_EVERY:
                continue
            gauged = 0
            gauges = self.gauges()
            self.gauged += 1
            for name, value in gauges.items():
                self.sums[name] += value
            peak[1] = max(peak[1], gauges["write_waiting"])
            peak[2] = max(peak[2], gauges["threads_busy"])
            if now - second_start >= 1:
                self.seconds = [*self.seconds[-SECONDS_KEPT:], [time.time(), *peak]]
                second_start, peak = now, [0.0, 0, 0]
                self.write()

    def write(self) -> None:
        state = getattr(self.app, "state", None)
        feeds = getattr(state, "match_feeds", None)
        data = {"pid": os.getpid(), "ticks": self.ticks, "edges_ms": EDGES_MS,
                "lag_counts": self.lag_counts, "lag_sum_ms": self.lag_sum_ms,
                "gauged": self.gauged, "sums": self.sums, "seconds": self.seconds,
                "feeds": feeds.watched() if feeds is not None else None, "gc": self.gc}
        temp = self.out.with_suffix(".tmp")
        temp.write_text(json.dumps(data))
        temp.replace(self.out)


def install(directory: str) -> None:
    """Start a ``Watch`` in every uvicorn server of this process once it has started."""
    import uvicorn

    started = uvicorn.Server.startup

    async def startup(self: uvicorn.Server, sockets: Any = None) -> None:
        await started(self, sockets=sockets)
        app = _fastapi_app(self.config.loaded_app)
        watch = Watch(app, Path(directory) / f"lag-{os.getpid()}.json")
        self._tablee_lag_watch = asyncio.get_running_loop().create_task(watch.run())

    uvicorn.Server.startup = startup


# The top level runs in every worker (spawn imports this file again as ``__mp_main__``).
# The served checkout's ``app`` — and not this file's folder, whose ``profile.py`` would
# stand for the standard library's.
sys.path[0] = os.getcwd()
if os.environ.get("TABLEE_BENCH_LAG"):
    install(os.environ["TABLEE_BENCH_LAG"])

if __name__ == "__main__":
    from app.__main__ import main

    sys.exit(main())
