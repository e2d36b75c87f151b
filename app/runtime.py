"""What a serving process does once before its first request (``python -m app serve`` and
each uvicorn worker: ``app.asgi``), and tests never need.

Every template is compiled first (about 1.5 s for the 250): compiled at its first
render instead, the live table's log lines, panels and forms held the first actions after a
start behind them — at 500 tables in the load harness, a p95 of 183 ms in the first two
seconds against 52 to 57 ms with the templates compiled.

The garbage collector's full collections walk every object of the process and stop its
event loop meanwhile. The objects made at start-up (modules, the games' catalogues, the
routes, the compiled templates) live as long as the process: ``gc.freeze`` moves them out
of every collection's sight. Young collections run after 3,000 new objects rather than
700 (Python's default), and a middle one follows each second young one (Python's default:
each eleventh). What the collector does in all hardly depends on these thresholds — a
young collection walks what was made since the last, a middle one what the young ones
kept, the streams opened meanwhile above all — but each pause is as long as its share: at
500 tables in the load harness, with 10,000 and each eleventh, middle collections of 90 to
125 ms; with 10,000 and each second, 40 to 55 ms, and young ones of ~20 ms; with 3,000,
~11 ms and ~5 ms, the loop's longest lag 36 to 42 ms instead of 84 to 120, the same 0.6 s
of collections in 20 s of play (docs/benchmarks.md § The load harness).

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

from app.web.templating import compile_templates

YOUNG_THRESHOLD = 3_000
MIDDLE_THRESHOLD = 1  # young collections between two middle ones, less one
FULL_COLLECTION_EVERY_S = 600.0
_NEVER = 2**30  # middle collections before Python would start a full one itself

_clock: threading.Event | None = None


def settle_heap() -> None:
    """Compile the templates, freeze what start-up made, set the young and middle
    generations' thresholds, and leave the full collections to a clock (see above)."""
    global _clock
    compile_templates()
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, MIDDLE_THRESHOLD, _NEVER)
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
