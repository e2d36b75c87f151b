"""A serving process compiles its templates, freezes what its start made, sets the young
and middle generations' thresholds and runs full collections on a clock (app/runtime.py):
the load harness's half-second full collections came from walking every open stream's
objects every minute or so, its 120 ms middle ones from walking ten young ones' worth."""

from __future__ import annotations

import gc
import threading

import pytest

from app import asgi
from app.runtime import MIDDLE_THRESHOLD, YOUNG_THRESHOLD, collect_on_a_clock
from app.web.templating import templates


@pytest.fixture
def collector():
    """The test process's collector as it was, whatever the test does to it."""
    threshold = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*threshold)


def test_a_worker_s_start_leaves_its_objects_out_of_the_collections(collector, monkeypatch,
                                                                      tmp_path):
    monkeypatch.setenv("TABLEE_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("TABLEE_SECRET_KEY", "s" * 40)
    monkeypatch.setattr(asgi, "configure_request_log", lambda: None)  # no stderr handler
    gc.unfreeze()
    templates.env.cache.clear()
    asgi.create()  # what each uvicorn worker runs
    assert gc.get_freeze_count() > 50_000  # the modules, routes and catalogues at least
    young, middle, full = gc.get_threshold()
    assert (young, middle) == (YOUNG_THRESHOLD, MIDDLE_THRESHOLD)
    assert full >= 2**30  # Python never starts a full collection itself
    compiled = {name for _, name in templates.env.cache}
    assert compiled >= set(templates.env.list_templates(extensions=["html"]))


def test_the_clock_runs_full_collections(collector):
    full = threading.Event()

    def noted(phase: str, info: dict[str, int]) -> None:
        if phase == "stop" and info["generation"] == 2:
            full.set()

    gc.callbacks.append(noted)
    stop = collect_on_a_clock(0.05)
    try:
        assert full.wait(5)
    finally:
        stop.set()
        gc.callbacks.remove(noted)
