"""The load generator's two tools: an httpx client for requests, and raw SSE viewers.

Requests go through one ``httpx.AsyncClient`` with ``TCP_NODELAY``: without it a POST,
written as headers then body, waits for the server's delayed ACK (~40 ms on Linux) and
that is all a latency figure would show. One client, reused: each new client would load
the CA bundle again (plain HTTP here, but the habit matters).

Viewers are plain asyncio protocols speaking HTTP/1.1 to ``GET …/stream``: a thousand of
them must not cost the load generator more than the server, and each event is stamped
when its bytes reach the socket (``data_received``), before any parsing on our side.
"""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Callable, Iterable, Sequence
from typing import cast
from urllib.parse import urlsplit

import httpx

NODELAY = [(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)]
OPEN_TIMEOUT = 15.0


def api_client(base_url: str, *, connections: int = 64, timeout: float = 30) -> httpx.AsyncClient:
    transport = httpx.AsyncHTTPTransport(
        socket_options=NODELAY,
        limits=httpx.Limits(max_connections=connections, max_keepalive_connections=connections))
    return httpx.AsyncClient(base_url=base_url, transport=transport, timeout=timeout)


class StreamError(RuntimeError):
    pass


class Viewer(asyncio.Protocol):
    """One SSE connection: records when each event id arrives; ``arrival(seq)`` awaits it.

    ``counted``: the SSE event names that mark an event's arrival (None: any message with an
    id). The table page's stream follows each batch of ``log`` lines with a ``state``
    message carrying the same id: only the log line is the event's arrival."""

    counted: frozenset[bytes] | None = None

    def __init__(self, request: bytes) -> None:
        self._request = request
        self._head = b""
        self._chunked = False
        self._raw = b""  # received, not yet de-chunked
        self._body = b""  # de-chunked, not yet split into events
        self._chunk_left = 0  # data bytes left in the current chunk
        self._skip = 0  # bytes of a chunk's trailing CRLF still to skip
        self.arrivals: dict[int, float] = {}
        # the last id received as written (the page stream's state ids name the action panel
        # after the seq: ``41.3fa0…``), for Last-Event-ID as a browser sends it
        self.last_id: str | None = None
        self._waiters: dict[int, asyncio.Future[float]] = {}
        self.ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        # the first message with an id, whatever its name (a table page's first ``state``)
        self.first: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.closed = False
        self.transport: asyncio.Transport | None = None

    # -- asyncio.Protocol --------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is not a subclass
        sock = transport.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.transport.write(self._request)

    def data_received(self, data: bytes) -> None:
        now = time.perf_counter()
        if self.ready.done() and (self.ready.cancelled() or self.ready.exception()):
            return
        if not self._head.endswith(b"\r\n\r\n"):
            data = self._read_head(data)
            if data is None:
                return
        self._raw += data
        self._dechunk()
        self._read_events(now)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        error = StreamError(f"stream closed ({exc or 'by the server'})")
        if not self.ready.done():
            self.ready.set_exception(error)
        for waiter in self._waiters.values():
            if not waiter.done():
                waiter.set_exception(error)

    # -- use -----------------------------------------------------------------------------

    @property
    def answered(self) -> bool:
        """The server accepted the stream (200) and it is still open."""
        ready = self.ready
        return (ready.done() and not ready.cancelled() and ready.exception() is None
                and not self.closed)

    async def arrival(self, seq: int) -> float:
        """When event ``seq`` reached this viewer (``time.perf_counter()``)."""
        if seq in self.arrivals:
            return self.arrivals[seq]
        if self.closed:
            raise StreamError("stream closed")
        waiter = self._waiters.get(seq)
        if waiter is None:
            waiter = self._waiters[seq] = asyncio.get_running_loop().create_future()
        return await waiter

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()

    # -- parsing ---------------------------------------------------------------------------

    def _read_head(self, data: bytes) -> bytes | None:
        self._head += data
        end = self._head.find(b"\r\n\r\n")
        if end < 0:
            return None
        head, rest = self._head[:end + 4], self._head[end + 4:]
        self._head = head
        status = head.split(b"\r\n", 1)[0]
        if b" 200 " not in status + b" ":
            self.ready.set_exception(StreamError(f"stream refused: {status.decode()}"))
            self.close()
            return None
        self._chunked = b"transfer-encoding: chunked" in head.lower()
        self.ready.set_result(None)
        return rest

    def _dechunk(self) -> None:
        """Move chunk data from ``_raw`` to ``_body`` (HTTP/1.1 chunked transfer coding)."""
        if not self._chunked:
            self._body, self._raw = self._body + self._raw, b""
            return
        while self._raw:
            if self._chunk_left:  # inside a chunk's data
                take = self._raw[:self._chunk_left]
                self._body += take
                self._raw = self._raw[len(take):]
                self._chunk_left -= len(take)
                if not self._chunk_left:
                    self._skip = 2  # the CRLF after the data
            elif self._skip:
                skipped = min(self._skip, len(self._raw))
                self._raw, self._skip = self._raw[skipped:], self._skip - skipped
            else:  # a size line
                line_end = self._raw.find(b"\r\n")
                if line_end < 0:
                    return
                self._chunk_left = int(self._raw[:line_end].split(b";")[0], 16)
                self._raw = self._raw[line_end + 2:]
                if not self._chunk_left:  # the last chunk: the stream ends
                    self._raw = b""
                    return

    def _read_events(self, now: float) -> None:
        # sse-starlette separates lines with CRLF and events with a blank line.
        while True:
            end = self._body.find(b"\r\n\r\n")
            if end < 0:
                return
            block, self._body = self._body[:end], self._body[end + 4:]
            seq, name = None, None
            for line in block.split(b"\r\n", 2)[:2]:  # our server writes id, event, data
                if line.startswith(b"id:"):
                    self.last_id = line[3:].strip().decode()
                    seq = int(self.last_id.partition(".")[0])
                elif line.startswith(b"event:"):
                    name = line[6:].strip()
            if seq is not None and not self.first.done():
                self.first.set_result(None)
            if seq is not None and (self.counted is None or name in self.counted):
                self._arrived(seq, now)

    def _arrived(self, seq: int, now: float) -> None:
        self.arrivals.setdefault(seq, now)
        waiter = self._waiters.pop(seq, None)
        if waiter is not None and not waiter.done():
            waiter.set_result(now)


async def open_viewer(base_url: str, path: str, token: str, *, after: int | None = None,
                      timeout: float = OPEN_TIMEOUT, opened: list[Viewer] | None = None,
                      last_event_id: int | str | None = None,
                      make: Callable[[bytes], Viewer] = Viewer) -> Viewer:
    """Open ``GET path`` as an SSE stream with a bearer token; returns once it answered 200.

    The viewer is added to ``opened`` as soon as it connects, so that a caller can close it
    even if the server never answers. ``last_event_id`` resumes like a browser that
    reconnects; ``make`` builds the protocol (a ``Viewer`` subclass).
    """
    url = urlsplit(base_url)
    target = path + (f"?after={after}" if after is not None else "")
    resume = f"Last-Event-ID: {last_event_id}\r\n" if last_event_id is not None else ""
    request = (f"GET {target} HTTP/1.1\r\nHost: {url.netloc}\r\n"
               f"Authorization: Bearer {token}\r\nAccept: text/event-stream\r\n{resume}"
               "Cache-Control: no-store\r\n\r\n").encode()
    loop = asyncio.get_running_loop()
    _, viewer = await loop.create_connection(lambda: make(request), url.hostname, url.port)
    if opened is not None:
        opened.append(viewer)
    try:
        await asyncio.wait_for(viewer.ready, timeout)
    except TimeoutError:
        raise StreamError(f"the server did not answer GET {path} within {timeout:.0f} s"
                          ) from None
    return viewer


async def open_viewers(specs: Sequence[tuple[str, str, int | None]], base_url: str, *,
                       concurrency: int = 32) -> list[Viewer]:
    """Open many streams (``(path, token, after)`` each), ``concurrency`` at a time.

    The first failure cancels the others and closes every stream already opened.
    """
    gate = asyncio.Semaphore(concurrency)
    opened: list[Viewer] = []

    async def one(index: int, path: str, token: str, after: int | None) -> Viewer:
        async with gate:
            try:
                return await open_viewer(base_url, path, token, after=after, opened=opened)
            except StreamError as error:
                answered = sum(1 for viewer in opened if viewer.answered)
                raise StreamError(f"stream {index + 1} of {len(specs)}: {error} "
                                  f"({answered} streams were open)") from None

    try:
        async with asyncio.TaskGroup() as group:
            tasks = [group.create_task(one(index, *spec)) for index, spec in enumerate(specs)]
    except BaseException as error:
        close_all(opened)
        if isinstance(error, BaseExceptionGroup) and len(error.exceptions) >= 1:
            raise error.exceptions[0] from None
        raise
    return [task.result() for task in tasks]


class Connection(asyncio.Protocol):
    """One keep-alive HTTP/1.1 connection (the throughput part, the load harness's POSTs),
    a request at a time; ``headers``: the last answer's, their names in lower case.

    httpx costs the load generator ~1.3 ms of CPU per request, more than the bare
    endpoint costs its server: with two cores the baseline would measure httpx. This
    costs a few tens of microseconds. Answers must carry a Content-Length (uvicorn's JSON
    answers do).
    """

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self._buffer = b""
        self._answer: asyncio.Future[tuple[int, bytes]] | None = None
        self._lost: Exception | None = None
        self.headers: dict[str, str] = {}

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)
        sock = transport.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def data_received(self, data: bytes) -> None:
        self._buffer += data
        end = self._buffer.find(b"\r\n\r\n")
        if end < 0 or self._answer is None:
            return
        head = self._buffer[:end].decode("latin-1").split("\r\n")
        headers = {name.strip().lower(): value.strip()
                   for name, _, value in (line.partition(":") for line in head[1:])}
        if "content-length" not in headers:
            self._fail(StreamError(f"an answer without Content-Length: {head[0]}"))
            return
        length = int(headers["content-length"])
        if len(self._buffer) < end + 4 + length:
            return
        body = self._buffer[end + 4:end + 4 + length]
        self._buffer = self._buffer[end + 4 + length:]
        self.headers = headers
        answer, self._answer = self._answer, None
        answer.set_result((int(head[0].split()[1]), body))

    def connection_lost(self, exc: Exception | None) -> None:
        self._lost = StreamError(f"connection closed ({exc or 'by the server'})")
        self._fail(self._lost)

    def _fail(self, error: Exception) -> None:
        if self._answer is not None and not self._answer.done():
            self._answer.set_exception(error)
        self._answer = None

    async def post(self, host: str, path: str, body: bytes,
                   headers: dict[str, str] | None = None) -> tuple[int, bytes]:
        """POST ``body`` (JSON) and return the status and the answer's body."""
        if self._lost is not None or self.transport is None:
            raise self._lost or StreamError("not connected")
        extra = "".join(f"{name}: {value}\r\n" for name, value in (headers or {}).items())
        self._answer = asyncio.get_running_loop().create_future()
        self.transport.write(
            f"POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n{extra}\r\n".encode() + body)
        return await self._answer

    @property
    def closed(self) -> bool:
        return self._lost is not None or self.transport is None or self.transport.is_closing()

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()


async def connect(base_url: str) -> Connection:
    url = urlsplit(base_url)
    loop = asyncio.get_running_loop()
    _, connection = await loop.create_connection(Connection, url.hostname, url.port)
    return connection


def close_all(viewers: Iterable[Viewer | Connection]) -> None:
    for viewer in viewers:
        viewer.close()


async def last_arrival(viewers: Iterable[Viewer], seq: int, timeout: float) -> float:
    """When the last of ``viewers`` received event ``seq``."""
    times = await asyncio.wait_for(
        asyncio.gather(*(viewer.arrival(seq) for viewer in viewers)), timeout)
    return max(times)
