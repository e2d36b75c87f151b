"""The lean SSE response (``app.http.streams.EventStreamResponse``), driven as plain ASGI:
heartbeats when quiet, the generator closed when the client leaves or the server stops, the
stream ended properly when the generator returns, and the wire format."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from sse_starlette.sse import AppStatus

from app.http import streams
from app.http.streams import PING, EventStreamResponse, Item, Outlet, encode


class Client:
    """An ASGI peer: records what the response sends; ``leave()`` disconnects."""

    def __init__(self) -> None:
        self.sent: list[dict] = []
        self._gone = asyncio.Event()

    async def receive(self) -> dict:
        await self._gone.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: dict) -> None:
        self.sent.append(message)

    def leave(self) -> None:
        self._gone.set()

    @property
    def bodies(self) -> list[bytes]:
        return [m["body"] for m in self.sent if m["type"] == "http.response.body"]

    @property
    def finished(self) -> bool:
        return any(m["type"] == "http.response.body" and not m.get("more_body")
                   for m in self.sent)


SCOPE = {"type": "http", "method": "GET"}


def run(coroutine):
    return asyncio.run(coroutine)


async def first_then_wait(cleaned: list) -> AsyncIterator[bytes]:
    """A stream that sends b"first" then waits an hour; its cleanup appends to ``cleaned``."""
    try:
        yield b"first"
        await asyncio.sleep(3600)
    finally:
        cleaned.append(True)


def test_chunks_go_out_in_order_and_a_returning_generator_ends_the_response():
    async def chunks() -> AsyncIterator[bytes]:
        yield b"a"
        yield b"b"

    async def scenario():
        client = Client()
        await asyncio.wait_for(EventStreamResponse(chunks(), ping=10)(
            SCOPE, client.receive, client.send), 2)
        return client

    client = run(scenario())
    start = client.sent[0]
    assert start["type"] == "http.response.start" and start["status"] == 200
    headers = dict(start["headers"])
    assert headers[b"content-type"].startswith(b"text/event-stream")
    assert b"content-length" not in headers
    assert client.bodies == [b"a", b"b", b""]
    assert client.finished


def test_a_quiet_stream_gets_heartbeats_and_a_busy_one_does_not():
    async def quiet() -> AsyncIterator[bytes]:
        yield b"hello"
        await asyncio.sleep(3600)
        yield b"never"

    async def scenario():
        client = Client()
        task = asyncio.ensure_future(EventStreamResponse(quiet(), ping=0.05)(
            SCOPE, client.receive, client.send))
        await asyncio.sleep(0.28)
        client.leave()
        await asyncio.wait_for(task, 2)
        return client

    client = run(scenario())
    pings = client.bodies.count(PING)
    assert client.bodies[0] == b"hello"
    assert 3 <= pings <= 6, client.bodies

    async def busy() -> AsyncIterator[bytes]:
        for _ in range(30):
            await asyncio.sleep(0.01)
            yield b"x"

    async def busy_scenario():
        client = Client()
        await asyncio.wait_for(EventStreamResponse(busy(), ping=0.05)(
            SCOPE, client.receive, client.send), 5)
        return client

    assert PING not in run(busy_scenario()).bodies


def test_leaving_closes_the_generator_so_its_cleanup_runs():
    cleaned = []

    def ours(loop) -> set:
        # Only this loop's writers: a test server in another thread may open streams too.
        return {writer for writer in streams._Shutdown.writers if writer.get_loop() is loop}

    async def scenario():
        loop = asyncio.get_running_loop()
        client = Client()
        task = asyncio.ensure_future(EventStreamResponse(first_then_wait(cleaned), ping=10)(
            SCOPE, client.receive, client.send))
        await asyncio.sleep(0.05)
        watched = ours(loop)
        client.leave()
        await asyncio.wait_for(task, 2)
        return client, watched, ours(loop)

    client, watched, left = run(scenario())
    assert cleaned == [True]
    assert client.bodies == [b"first"]  # nothing sent to a client that left
    assert len(watched) == 1  # watched while open…
    assert not left  # …and forgotten once closed


def test_a_server_shutdown_ends_every_open_stream(monkeypatch):
    monkeypatch.setattr(streams._Shutdown, "POLL_SECONDS", 0.01)
    cleaned = []

    async def scenario():
        clients = [Client() for _ in range(3)]
        tasks = [asyncio.ensure_future(EventStreamResponse(first_then_wait(cleaned), ping=10)(
            SCOPE, client.receive, client.send)) for client in clients]
        await asyncio.sleep(0.05)
        monkeypatch.setattr(AppStatus, "should_exit", True)
        await asyncio.wait_for(asyncio.gather(*tasks), 2)
        return clients

    clients = run(scenario())
    assert cleaned == [True, True, True]
    assert all(client.finished for client in clients)


def test_head_sends_the_headers_and_no_stream():
    started = []

    async def chunks() -> AsyncIterator[bytes]:
        started.append(True)
        yield b"x"

    async def scenario():
        client = Client()
        await asyncio.wait_for(EventStreamResponse(chunks(), ping=10)(
            {"type": "http", "method": "HEAD"}, client.receive, client.send), 2)
        return client

    client = run(scenario())
    assert client.bodies == [b""] and started == []


def test_the_wire_format_puts_each_line_of_the_data_on_its_own_data_line():
    assert encode(Item(7, "match-event", '{"a":1}')) == (
        b'id: 7\r\nevent: match-event\r\ndata: {"a":1}\r\n\r\n')
    assert encode(Item(8, "roll", "<li>\n  é\r\n</li>")) == (
        "id: 8\r\nevent: roll\r\ndata: <li>\r\ndata:   é\r\ndata: </li>\r\n\r\n".encode())
    # Only CR, LF and CRLF end a line in SSE: other Unicode line breaks stay in the data.
    assert encode(Item(9, "e", "a\u2028b\nc\n")) == (
        "id: 9\r\nevent: e\r\ndata: a\u2028b\r\ndata: c\r\ndata: \r\n\r\n".encode())


# — the outlet: writes made at once by whoever holds news (a match feed) ————————————

class Peer:
    """An ASGI server's ``send`` for one stream. While ``paused`` is clear it waits before
    taking the bytes, like uvicorn's when the client reads slowly (``flow.drain``)."""

    def __init__(self) -> None:
        self.bodies: list[bytes] = []
        self.paused = asyncio.Event()
        self.paused.set()
        self.fail = False

    async def send(self, message: dict) -> None:
        if not self.paused.is_set():
            await self.paused.wait()
        if self.fail:
            raise OSError("the client left")
        if message["type"] == "http.response.body":
            self.bodies.append(message["body"])


def test_write_now_hands_the_bytes_over_before_returning():
    async def scenario():
        peer, outlet = Peer(), Outlet()
        outlet.bind(peer.send)
        assert outlet.write_now(b"one")
        return peer.bodies  # read at once: no task ran in between

    assert asyncio.run(scenario()) == [b"one"]


def test_a_write_that_must_wait_goes_on_and_later_chunks_keep_their_order():
    async def scenario():
        peer, outlet = Peer(), Outlet()
        outlet.bind(peer.send)
        peer.paused.clear()
        assert outlet.write_now(b"one")  # taken: it will go out, first
        assert not outlet.write_now(b"two")  # refused: the stream's task must write it
        second = asyncio.ensure_future(outlet.write(b"two"))
        await asyncio.sleep(0.01)
        waiting = list(peer.bodies)
        peer.paused.set()
        await asyncio.wait_for(second, 1)
        assert outlet.write_now(b"three")  # nothing pending any more: at once again
        return waiting, peer.bodies

    waiting, bodies = asyncio.run(scenario())
    assert waiting == []
    assert bodies == [b"one", b"two", b"three"]


def test_a_write_to_a_client_that_left_is_refused_and_sends_nothing():
    async def scenario():
        peer, outlet = Peer(), Outlet()
        outlet.bind(peer.send)
        peer.fail = True
        return outlet.write_now(b"one"), peer.bodies

    assert asyncio.run(scenario()) == (False, [])


def test_closing_the_outlet_drops_a_write_still_waiting():
    async def scenario():
        peer, outlet = Peer(), Outlet()
        outlet.bind(peer.send)
        peer.paused.clear()
        assert outlet.write_now(b"one")
        outlet.close()
        await asyncio.sleep(0.01)
        peer.paused.set()
        await asyncio.sleep(0.01)
        return peer.bodies, outlet.write_now(b"two")

    assert asyncio.run(scenario()) == ([], False)
