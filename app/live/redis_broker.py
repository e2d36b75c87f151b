"""The Redis broker: every worker (and host) of one instance shares a Redis pub/sub bus.

- Publishing goes through the client's pool, one PUBLISH at a time, so that the messages a
  process publishes keep their order.
- Receiving uses ONE dedicated connection per process, read by ONE task that hands each
  envelope to the local ``Hub`` (the same fan-out as the in-process broker). A Redis channel
  is subscribed while at least one local subscriber wants it.
- Subscription changes are serialised by a lock and each waits for Redis's confirmation, so
  ``subscribe()`` returns only once Redis will route the channel to us. They run as tasks of
  their own: a subscriber cancelled halfway cannot leave the connection half-changed.
- At any doubt about the connection (an error, an unanswered PING, an unconfirmed command)
  it is dropped and rebuilt with exponential backoff; once every wanted channel is
  subscribed again, every local subscription ends with ``EndReason.GAP`` so that its owner
  catches up from the database.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
from collections.abc import Coroutine
from contextlib import suppress
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.connection import AbstractConnection
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError

from app.live.broker import DEFAULT_QUEUE_LIMIT, Broker
from app.live.subscription import EndReason

logger = logging.getLogger(__name__)

_SUBSCRIBE = b"subscribe"
_UNSUBSCRIBE = b"unsubscribe"


class RedisBroker(Broker):
    """A broker over Redis pub/sub (``TABLEE_REDIS_URL``).

    ``namespace`` prefixes every Redis channel, so that several instances (or test runs) can
    share one Redis. ``heartbeat`` is how long the connection may stay silent before a PING
    checks it (and then how long the PONG may take).
    """

    def __init__(self, url: str, *, namespace: str = "tablee:",
                 queue_limit: int = DEFAULT_QUEUE_LIMIT, heartbeat: float = 15.0,
                 reconnect_delays: tuple[float, float] = (0.1, 10.0)) -> None:
        super().__init__(queue_limit=queue_limit)
        # One quick retry: a pooled connection may be stale after Redis restarted. RESP2
        # unless the URL asks otherwise: its pub/sub replies are plain arrays (RESP3 pushes
        # are read too, see _read).
        # The subscribing connection is named client_name, the publishing ones after it
        # (``CLIENT LIST`` tells a worker's connections apart).
        self.client_name = f"tablee-live-{os.getpid()}-{secrets.token_hex(4)}"
        self._redis = Redis.from_url(url, retry=Retry(NoBackoff(), 1), protocol=2,
                                     socket_connect_timeout=5, socket_timeout=5,
                                     client_name=f"{self.client_name}-publish")
        self._namespace = namespace
        self._heartbeat = heartbeat
        self._delays = reconnect_delays
        self._connection: AbstractConnection | None = None
        self._remote: set[str] = set()  # channels whose subscription Redis confirmed
        self._pending: tuple[bytes, bytes, asyncio.Future[None]] | None = None
        self._change_lock = asyncio.Lock()
        self._publish_lock = asyncio.Lock()
        self._reader: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._first_attempt = asyncio.Event()

    # -- Broker hooks ------------------------------------------------------------------

    async def _open(self) -> None:
        self._reader = asyncio.create_task(self._read_forever(), name="tablee-live-reader")
        # Boot is not held up by a Redis outage: the reader keeps retrying on its own.
        await self._first_attempt.wait()

    async def _shutdown(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
            await asyncio.gather(self._reader, return_exceptions=True)
        if self._connection is not None:
            await self._drop(self._connection)
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        async with self._publish_lock:  # the publication under way ends on an open client
            await self._redis.aclose()

    async def _send(self, channel: str, envelope: str) -> None:
        async with self._publish_lock:
            if self._closed:
                # Closed while this one waited its turn: sent now, it would open a
                # connection that nothing closes any more.
                return
            try:
                await self._redis.publish(self._wire(channel), envelope)
            except (RedisError, OSError) as error:
                logger.warning("live: could not publish on %r: %s", channel, error)

    async def _joined(self, channel: str) -> None:
        if channel in self._remote and not self._change_lock.locked():
            return  # already confirmed, and no unsubscribe in flight
        await self._detached(self._ensure_remote(channel))

    async def _left(self, channel: str) -> None:
        await self._detached(self._release_remote(channel))

    async def ping(self) -> bool:
        """Redis answers a PING within two seconds, and the reader holds its connection."""
        if self._closed:
            return False
        try:
            async with asyncio.timeout(2):
                await self._redis.ping()
        except (RedisError, OSError, TimeoutError):
            return False
        return self._connection is not None

    # -- subscription changes ----------------------------------------------------------

    async def _ensure_remote(self, channel: str) -> None:
        async with self._change_lock:
            connection = self._connection
            if (self._closed or connection is None or channel in self._remote
                    or not self._hub.count(channel)):
                return  # nothing to do, or the next reconnection subscribes it (with a GAP)
            if await self._command(connection, _SUBSCRIBE, channel):
                self._remote.add(channel)

    async def _release_remote(self, channel: str) -> None:
        async with self._change_lock:
            connection = self._connection
            if (self._closed or connection is None or channel not in self._remote
                    or self._hub.count(channel)):
                return
            if await self._command(connection, _UNSUBSCRIBE, channel):
                self._remote.discard(channel)

    async def _command(self, connection: AbstractConnection, verb: bytes, channel: str) -> bool:
        """Send (UN)SUBSCRIBE and wait for Redis to confirm it; on failure, drop the
        connection (the reader reconnects) and return False."""
        wire = self._wire(channel)
        confirmed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending = (verb, wire, confirmed)
        try:
            await connection.send_command(verb.upper(), wire, check_health=False)
            async with asyncio.timeout(self._heartbeat):
                await confirmed
        except (RedisError, OSError) as error:
            self._pending = None
            logger.warning("live: Redis did not confirm %s %r: %r", verb.decode(), channel, error)
            await self._drop(connection)
            return False
        finally:
            self._pending = None
        return True

    async def _detached(self, coroutine: Coroutine[Any, Any, None]) -> None:
        """Run ``coroutine`` as its own task and wait for it; if the caller is cancelled,
        the task still completes."""
        task = asyncio.create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)
        await asyncio.shield(task)

    def _task_done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            logger.error("live: a subscription change failed", exc_info=task.exception())

    # -- the reader ----------------------------------------------------------------------

    async def _read_forever(self) -> None:
        delay = self._delays[0]
        while True:
            connection = None
            try:
                connection = await self._connect()
                delay = self._delays[0]
                self._first_attempt.set()
                await self._pump(connection)
            except (RedisError, OSError) as error:
                logger.warning("live: Redis connection lost (%s); retrying in %.2fs", error,
                               delay)
            except Exception:  # the reader must outlive any surprise
                logger.exception("live: Redis reader failed; retrying in %.2fs", delay)
            finally:
                if connection is not None:
                    await self._drop(connection)
            self._first_attempt.set()
            await asyncio.sleep(delay)
            delay = min(delay * 2, self._delays[1])

    async def _connect(self) -> AbstractConnection:
        """A new connection subscribed to every wanted channel; then every local
        subscription ends with GAP, since messages may have been lost meanwhile."""
        connection = self._redis.connection_pool.make_connection()
        connection.client_name = self.client_name
        try:
            async with self._change_lock:
                await connection.connect()
                wanted = self._hub.channels()
                if wanted:
                    wires = [self._wire(channel) for channel in wanted]
                    await connection.send_command("SUBSCRIBE", *wires, check_health=False)
                    await self._await_confirmations(connection, len(wires))
                self._connection = connection
                self._remote = set(wanted)
                self._hub.end_all(EndReason.GAP)
        except BaseException:
            with suppress(Exception):
                await connection.disconnect(nowait=True)
            raise
        return connection

    async def _await_confirmations(self, connection: AbstractConnection, count: int) -> None:
        while count:
            reply = await self._read(connection)
            if reply is None:
                raise RedisConnectionError("Redis did not confirm the subscriptions")
            if isinstance(reply, list) and reply[0] == _SUBSCRIBE:
                count -= 1
            else:
                self._handle(reply)

    async def _pump(self, connection: AbstractConnection) -> None:
        """Read until the connection fails; a silent connection gets a PING."""
        awaiting_pong = False
        while True:
            reply = await self._read(connection)
            if self._connection is not connection:
                raise RedisConnectionError("connection dropped after a failed command")
            if reply is not None:
                awaiting_pong = False
                self._handle(reply)
            elif awaiting_pong:
                raise RedisConnectionError("Redis did not answer PING")
            else:
                await connection.send_command("PING", check_health=False)
                awaiting_pong = True

    async def _read(self, connection: AbstractConnection) -> Any:
        """The next reply, or None after ``heartbeat`` seconds of silence. The connection is
        left open on error: ``_drop`` closes it, after marking it gone."""
        return await connection.read_response(timeout=self._heartbeat,
                                              disconnect_on_error=False, push_request=True)

    def _handle(self, reply: Any) -> None:
        if not isinstance(reply, list) or len(reply) < 3:
            return  # a PONG: liveness only
        kind, wire, data = reply[0], reply[1], reply[2]
        if kind == b"message":
            self._dispatch(self._local(wire), data)
        elif kind in (_SUBSCRIBE, _UNSUBSCRIBE):
            pending = self._pending
            if (pending is not None and pending[:2] == (kind, wire)
                    and not pending[2].done()):
                pending[2].set_result(None)

    async def _drop(self, connection: AbstractConnection) -> None:
        if self._connection is connection:
            self._connection = None
            self._remote.clear()
            pending = self._pending
            if pending is not None and not pending[2].done():
                pending[2].set_exception(RedisConnectionError("connection lost"))
        with suppress(Exception):
            await connection.disconnect(nowait=True)

    # -- names ---------------------------------------------------------------------------

    def _wire(self, channel: str) -> bytes:
        return (self._namespace + channel).encode()

    def _local(self, wire: bytes) -> str:
        return wire.decode()[len(self._namespace):]
