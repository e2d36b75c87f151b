"""A serving process freezes what its start made and enlarges the young generation
(app/runtime.py): the load harness's half-second full collections came from walking it."""

from __future__ import annotations

import gc

import pytest

from app import asgi
from app.runtime import YOUNG_THRESHOLD


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
    asgi.create()  # what each uvicorn worker runs
    assert gc.get_freeze_count() > 50_000  # the modules, routes and catalogues at least
    assert gc.get_threshold()[0] == YOUNG_THRESHOLD
