"""A finished request leaves nothing that only the garbage collector can free.

The app keeps the server's own ``send`` in the scope while a request runs (``RAW_SEND``,
for the streams); uvicorn's ``send`` is a method of the object that holds the scope, so
left there it made a cycle of every request — its scope, its middleware's exit stacks, the
viewer and their account — freed only by a full collection (docs/benchmarks.md § The load
harness: 2,888 requests' worth every 20 s at 500 tables)."""

from __future__ import annotations

import gc
import weakref

import anyio

from app.http.streams import RAW_SEND


class ServerCycle:
    """What uvicorn keeps per request: the scope, and ``send`` a method of the same object."""

    def __init__(self, path: str) -> None:
        self.scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
                      "method": "GET", "scheme": "http", "path": path,
                      "raw_path": path.encode(), "query_string": b"", "root_path": "",
                      "headers": [(b"host", b"test")], "client": ("127.0.0.1", 50000),
                      "server": ("127.0.0.1", 80)}
        self.sent: list[dict] = []

    async def receive(self) -> dict:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(self, message: dict) -> None:
        self.sent.append(message)


def test_a_finished_request_is_freed_without_the_collector(app, running_app):
    async def serve() -> tuple[weakref.ref, int, bool]:
        cycle = ServerCycle("/login")
        await app(cycle.scope, cycle.receive, cycle.send)
        status = cycle.sent[0]["status"]
        kept = RAW_SEND in cycle.scope
        return weakref.ref(cycle), status, kept

    gc.collect()
    gc.disable()
    try:
        freed, status, kept = anyio.run(serve)
        assert status == 200 and not kept
        assert freed() is None  # gone when its last reference went, not at a collection
    finally:
        gc.enable()
