"""A real uvicorn server on a free port, in a thread: for browser tests and for what only a
real socket shows (a request body streamed in chunks, a connection closed early)."""

from __future__ import annotations

import socket
import threading
import time

import uvicorn

from app.config import Settings
from app.main import create_app


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LiveServer:
    def __init__(self, settings: Settings) -> None:
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.app = create_app(settings)
        config = uvicorn.Config(self.app, host="127.0.0.1", port=self.port,
                                log_level="warning", lifespan="on",
                                timeout_graceful_shutdown=5)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def start(self) -> None:
        self.thread.start()
        deadline = time.monotonic() + 15
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("the test server did not start")
            time.sleep(0.05)

    def stop(self) -> None:
        # The lifespan's shutdown closes the broker (its Redis sockets): wait for it, even on
        # a loaded machine, rather than leave a socket for the garbage collector to report.
        self.server.should_exit = True
        self.thread.join(timeout=60)
        if self.thread.is_alive():
            raise RuntimeError("the test server did not stop")
        self.app.state.engine.dispose()
