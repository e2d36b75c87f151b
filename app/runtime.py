"""What a serving process does once before its first request (``python -m app serve`` and
each uvicorn worker: ``app.asgi``), and tests never need.

The garbage collector's full collections walk every object of the process and stop its
event loop meanwhile. The objects made at start-up (modules, the games' catalogues, the
routes) live as long as the process: ``gc.freeze`` moves them out of every collection's
sight (and the templates, each compiled at its first render: compiling all 249 first would
hold the start 3 to 8 s for little — a compiled template is mostly code, which the
collector does not track). Young collections run after 10,000 new objects rather than 700
(Python's default), so the middle ones, which follow from them, come more rarely.

What is left to walk is mostly the open streams: about 275 objects each (their tasks, the
middleware's suspended coroutines), 760,000 with 3,000 streams open — a full collection of
567 ms at 500 tables in the load harness, every minute or so, set off by the streams that
reconnect. Since a finished request no longer leaves a reference cycle behind
(``app.main.Tablee``), a full collection finds little: about 4,300 objects for every 20 s
of that load. So one runs on a clock, every ten minutes, instead of whenever the middle
generation has grown (docs/benchmarks.md § The load harness): the pause is as long, about
ten times rarer, and what waits for it is some 130,000 objects.
"""

from __future__ import annotations

import gc
import threading

YOUNG_THRESHOLD = 10_000
FULL_COLLECTION_EVERY_S = 600.0
_NEVER = 2**30  # middle collections before Python would start a full one itself

_clock: threading.Event | None = None


def settle_heap() -> None:
    """Freeze what start-up made, make the young generation larger, and leave the full
    collections to a clock (see above)."""
    global _clock
    gc.collect()
    gc.freeze()
    _, middle, _ = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, middle, _NEVER)
    if _clock is None:
        _clock = collect_on_a_clock(FULL_COLLECTION_EVERY_S)


def collect_on_a_clock(every: float) -> threading.Event:
    """Run a full collection every ``every`` seconds, in a thread of its own (it holds the
    interpreter meanwhile, as an automatic one would); set the event returned to stop."""
    stop = threading.Event()

    def collect() -> None:
        while not stop.wait(every):
            gc.collect()

    threading.Thread(target=collect, name="full-collections", daemon=True).start()
    return stop
