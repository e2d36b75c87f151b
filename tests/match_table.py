"""A libre table seated through the public API, for the match API, stream and reliability tests.

Mia is the GM; Paul plays Aldo (token t1), Pia plays Brune (token t2); Sam watches. Everything
goes through HTTP, so the same set-up works on the in-process app, on a live uvicorn server
and on a server running in another process.
"""

from __future__ import annotations

import json
import socket
import ssl
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import httpx

from app.config import Settings
from tests.e2e.conftest import LiveServer
from tests.helpers import ApiUser

PASSWORD = "correct horse battery"


@dataclass
class Table:
    campaign_id: int
    match_id: int
    users: dict[str, ApiUser]
    memberships: dict[str, int] = field(default_factory=dict)

    @property
    def base(self) -> str:
        return f"/campaigns/{self.campaign_id}/matches/{self.match_id}"

    def act(self, who: str, action: dict[str, Any], *, seq: int | None = None,
            key: str | None = None, headers: dict[str, str] | None = None):
        user = self.users[who]
        headers = {**user.headers, **({"Idempotency-Key": key} if key else {}), **(headers or {})}
        return user.client.post(f"/api/v1{self.base}/actions", headers=headers,
                                json={"action": action, "seq": seq})

    def log(self, who: str, after_seq: int = 0, limit: int = 500) -> list[dict[str, Any]]:
        response = self.users[who].get(self.base + "/log",
                                       params={"after_seq": after_seq, "limit": limit})
        assert response.status_code == 200, response.text
        return response.json()["events"]

    def match(self, who: str) -> dict[str, Any]:
        response = self.users[who].get(self.base)
        assert response.status_code == 200, response.text
        return response.json()


def _ok(response, status: int = 200) -> dict[str, Any]:
    assert response.status_code == status, response.text
    return response.json()


def join(gm: ApiUser, campaign_id: int, user: ApiUser, role: str) -> int:
    """``user`` joins through an invitation link; returns the membership id."""
    invite = _ok(gm.post(f"/campaigns/{campaign_id}/invites", json={"role": role}), 201)
    return _ok(user.post(f"/invites/{invite['token']}/accept"))["membership_id"]


def seat_table(make_user: Callable[[str], ApiUser]) -> Table:
    users = {name: make_user(name) for name in ("mia", "paul", "pia", "sam")}
    campaign_id = _ok(users["mia"].post("/campaigns", json={"name": "Table",
                                                             "system": "libre"}), 201)["id"]
    memberships = {name: join(users["mia"], campaign_id, users[name], role)
                   for name, role in (("paul", "player"), ("pia", "player"),
                                      ("sam", "spectator"))}
    characters = [_ok(users[name].post(f"/campaigns/{campaign_id}/characters",
                                       json={"name": hero}), 201)["id"]
                  for name, hero in (("paul", "Aldo"), ("pia", "Brune"))]
    match = _ok(users["mia"].post(f"/campaigns/{campaign_id}/matches", json={
        "name": "Escarmouche", "character_ids": characters}), 201)
    return Table(campaign_id, match["id"], users, memberships)


@contextmanager
def live_server(settings: Settings) -> Iterator[LiveServer]:
    """A real uvicorn serving the app on a free port, in a thread of this process."""
    server = LiveServer(settings)
    server.start()
    try:
        yield server
    finally:
        server.stop()
        server.server.config.app.state.engine.dispose()


def http_client(base_url: str, timeout: httpx.Timeout | float = 10) -> httpx.Client:
    """An HTTP client that sends each request at once.

    Without TCP_NODELAY, a POST written as headers then body waits for the server's delayed
    ACK: 40 ms per request on Linux, which would be all these tests measure.
    """
    nodelay = [(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)]
    return httpx.Client(base_url=base_url, timeout=timeout, transport=httpx.HTTPTransport(
        socket_options=nodelay, verify=_tls_context()))


@cache
def _tls_context() -> ssl.SSLContext:
    """One TLS context for every client: loading the CA bundle per client costs ~20 ms."""
    return ssl.create_default_context()


def on_server(table: Table, base_url: str, timeout: httpx.Timeout | float = 10) -> Table:
    """The same table and tokens, played on another server of the same database."""
    users = {}
    for name, user in table.users.items():
        remote = ApiUser(http_client(base_url, timeout), name)  # type: ignore[arg-type]
        remote.headers, remote.id = user.headers, user.id
        users[name] = remote
    return Table(table.campaign_id, table.match_id, users, table.memberships)


def close_clients(table: Table) -> None:
    for user in table.users.values():
        user.client.close()


def http_user(base_url: str, name: str) -> ApiUser:
    """An API user on a server reached over the network (registered there)."""
    user = ApiUser(http_client(base_url), name)  # type: ignore[arg-type]
    user.register_and_login(PASSWORD)
    return user


# — reading Server-Sent Events off the wire ————————————————————————————————————

class SseReader:
    """The raw bytes of a stream, and its events parsed as they arrive.

    ``raw`` keeps every byte received, so tests can assert what never left the server.
    """

    def __init__(self, response: httpx.Response) -> None:
        self.response = response
        self.raw = b""
        self._chunks = response.iter_raw()
        self._buffer = b""
        self.ended = False

    def events(self) -> Iterator[dict[str, Any]]:
        """Each event as ``{"id", "event", "data"}`` (comments skipped) until the stream
        ends; raises ``httpx.ReadTimeout`` if the server goes silent."""
        while True:
            while b"\r\n\r\n" in self._buffer:
                block, self._buffer = self._buffer.split(b"\r\n\r\n", 1)
                event = _parse(block.decode())
                if event is not None:
                    yield event
            chunk = next(self._chunks, None)
            if chunk is None:
                self.ended = True
                return
            self.raw += chunk
            self._buffer += chunk  # sse-starlette ends lines with CRLF

    def until(self, seq: int) -> list[dict[str, Any]]:
        """Read events until the one with id ``seq``; returns them all, in order."""
        received = []
        for event in self.events():
            received.append(event)
            if event["id"] == seq:
                return received
        raise AssertionError(f"the stream ended before event {seq}: {received}")


def _parse(block: str) -> dict[str, Any] | None:
    fields: dict[str, str] = {}
    for line in block.split("\r\n"):
        if not line or line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        fields[name] = value.removeprefix(" ")
    if "data" not in fields:
        return None
    return {"id": int(fields["id"]), "event": fields.get("event"),
            "data": json.loads(fields["data"])}
