"""What a serving process does once before its first request (``python -m app serve`` and
each uvicorn worker: ``app.asgi``), and tests never need.

The garbage collector's full collections walk every object of the process and stop its
event loop meanwhile: with a few thousand streams open, one took half a second — the
longest wait of the load harness's tail (docs/benchmarks.md § The load harness). The
objects made at start-up (modules, the games' catalogues, the routes) live as long as the
process: ``gc.freeze`` moves them out of every collection's sight, and a later
full collection walks only what the requests and the streams made (and the templates, each
compiled at its first render: compiling all 249 first would hold the start 3 to 8 s for
little — a compiled template is mostly code, which the collector does not track). Young
collections run after 10,000 new objects rather than 700 (Python's default), so the middle
and full ones, which follow from them, come more rarely.
"""

from __future__ import annotations

import gc

YOUNG_THRESHOLD = 10_000


def settle_heap() -> None:
    """Freeze what start-up made, and make the young generation larger (see above)."""
    gc.collect()
    gc.freeze()
    _, middle, full = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, middle, full)
