"""A finished request leaves no reference cycle that only the garbage collector can free.

The app keeps the server's own ``send`` in the scope while a request runs (``RAW_SEND``,
for the streams); uvicorn's ``send`` is a method of the object that holds the scope, so
left there it made a cycle of every request — its scope, its middleware's exit stacks, the
viewer and their account — freed only by a full collection (docs/benchmarks.md § The load
harness: 2,888 requests' worth every 20 s at 500 tables)."""

from __future__ import annotations

import gc

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
        self.asked = False
        self.done = anyio.Event()

    async def receive(self) -> dict:
        """The request's body once, then (as a server does) nothing until the response has
        been sent, when the client is gone."""
        if not self.asked:
            self.asked = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await self.done.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: dict) -> None:
        self.sent.append(message)
        if message["type"] == "http.response.body" and not message.get("more_body"):
            self.done.set()


def test_a_finished_request_leaves_no_cycle_through_the_server(app, running_app):
    async def serve() -> tuple[int, bool]:
        cycle = ServerCycle("/login")
        await app(cycle.scope, cycle.receive, cycle.send)
        return cycle.sent[0]["status"], RAW_SEND in cycle.scope

    gc.collect()
    gc.disable()
    try:
        status, kept = anyio.run(serve)
        gc.set_debug(gc.DEBUG_SAVEALL)  # what a collection would free, kept to be looked at
        gc.collect()
        cyclic = [each for each in gc.garbage if isinstance(each, ServerCycle)]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert status == 200 and not kept
    assert not cyclic  # freed when its last reference went, not left for a collection
