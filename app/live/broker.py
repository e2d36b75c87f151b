"""The Broker interface, and its in-process implementation.

A broker carries small notifications ("match 3 has new events up to seq 17") from whoever
committed them to every connected viewer. It does not carry the events themselves: the SSE
layer re-reads them from the database and filters them per viewer, so a lost notification
costs latency, never correctness (see docs/live.md).

Everything that crosses the bus is a JSON *envelope*: ``{"m": message}`` for a message,
``{"kick": key}`` to end the subscriptions registered under ``key``. The in-process broker
round-trips envelopes through JSON too, so both implementations hand subscribers the same
thing (and a message that Redis could not carry fails here as well).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import logging
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from types import TracebackType

from app.live.subscription import EndReason, Hub, Key, Message, Subscription

logger = logging.getLogger(__name__)

DEFAULT_QUEUE_LIMIT = 1_000
MAX_MESSAGE_BYTES = 64 * 1024  # notifications, not payloads
MAX_CHANNEL_LENGTH = 200


class Broker(ABC):
    """Publish/subscribe by channel ("campaign:12", "match:34").

    Subclasses provide ``_send`` (put an envelope on the bus) and may hook ``_open``,
    ``_shutdown``, ``_joined`` and ``_left``; everything else is shared.
    """

    def __init__(self, *, queue_limit: int = DEFAULT_QUEUE_LIMIT) -> None:
        self._hub = Hub(queue_limit)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closed = False
        self._announcing: set[asyncio.Task[None]] = set()  # held: the loop keeps weak refs

    # -- lifecycle ---------------------------------------------------------------------

    async def start(self) -> None:
        """Capture the running loop (for ``publish_threadsafe``) and connect. Idempotent;
        the app calls it in its lifespan, other async methods call it on first use."""
        if self._loop is None and not self._closed:
            self._loop = asyncio.get_running_loop()
            await self._open()

    async def close(self) -> None:
        """End every subscription (``EndReason.CLOSED``) and disconnect. Idempotent."""
        if self._closed:
            return
        self._closed = True
        self._hub.end_all(EndReason.CLOSED)
        await self._shutdown()

    async def __aenter__(self) -> Broker:
        await self.start()
        return self

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None,
                        traceback: TracebackType | None) -> None:
        await self.close()

    # -- publishing --------------------------------------------------------------------

    async def publish(self, channel: str, message: Message) -> None:
        """Send ``message`` to every subscriber of ``channel``, in every worker.

        Never raises for a bus failure (publishing happens after a commit, and the
        database already holds the truth): the failure is logged and viewers catch up.
        After ``close()`` it does nothing.
        """
        await self._publish_envelope(channel, encode_message(channel, message))

    async def kick(self, channel: str, key: Key) -> None:
        """End, in every worker, the subscriptions to ``channel`` made with ``key``.

        The kick travels in order with the channel's messages: a subscriber kicked before
        message N never receives N.
        """
        _check_channel(channel)
        _check_key(key)
        await self._publish_envelope(channel, json.dumps({"kick": key}))

    def publish_threadsafe(self, channel: str, message: Message
                           ) -> concurrent.futures.Future[None]:
        """``publish`` from synchronous code running in a thread (services, after commit).

        The message is checked here, in the caller's thread (a bad message raises at once),
        then published on the loop captured by ``start()``. Calls made one after another
        from one thread are published in that order. Returns at once; the returned future
        completes when the message is on the bus — wait on it only from a thread other
        than the loop's own.
        """
        envelope = encode_message(channel, message)
        loop = self._loop
        if self._closed or (loop is not None and loop.is_closed()):
            return _done_future()
        if loop is None:
            raise RuntimeError("Broker.start() must run (in the app's lifespan) before "
                               "publish_threadsafe()")
        coroutine = self._publish_envelope(channel, envelope)
        try:
            future = asyncio.run_coroutine_threadsafe(coroutine, loop)
        except RuntimeError:  # the loop closed between the check and the call
            coroutine.close()
            return _done_future()
        future.add_done_callback(_log_failure)
        return future

    def announce(self, channel: str, message: Message) -> None:
        """Publish ``message`` after a commit without waiting, from the loop or a thread.

        On the loop's own thread (an ``async`` route) the publication starts as a task,
        without what ``publish_threadsafe`` pays to cross threads (a concurrent future and
        a wake-up of the loop); from a thread, it is ``publish_threadsafe``. Either way,
        calls from one thread publish in their order.
        """
        loop = self._loop
        if loop is None or loop is not _running_loop():
            self.publish_threadsafe(channel, message)
            return
        envelope = encode_message(channel, message)
        if not self._closed:
            task = loop.create_task(self._publish_envelope(channel, envelope))
            self._announcing.add(task)
            task.add_done_callback(self._announced)

    def _announced(self, task: asyncio.Task[None]) -> None:
        self._announcing.discard(task)
        if not task.cancelled() and task.exception() is not None:
            logger.error("live: publishing failed", exc_info=task.exception())

    async def _publish_envelope(self, channel: str, envelope: str) -> None:
        await self.start()
        if not self._closed:
            await self._send(channel, envelope)

    # -- subscribing -------------------------------------------------------------------

    @asynccontextmanager
    async def subscribe(self, channel: str, *, key: Key | None = None
                        ) -> AsyncIterator[Subscription]:
        """Receive ``channel``'s messages published from now on, for the block's duration.

        ``key`` names the subscriber for ``kick`` (the SSE layer passes the user's id).
        Once the block is entered, no later message is missed unless the subscription
        ends; after ``close()`` the subscription is ended from the start.
        """
        _check_channel(channel)
        if key is not None:
            _check_key(key)
        await self.start()
        subscription = Subscription(channel, key, self._hub.limit)
        if self._closed:
            subscription.end(EndReason.CLOSED)
            yield subscription
            return
        self._hub.add(subscription)
        try:
            await self._joined(channel)
            yield subscription
        finally:
            self._hub.remove(subscription)
            if not self._closed and self._hub.count(channel) == 0:
                await self._left(channel)

    async def ping(self) -> bool:
        """Is the bus reachable now? (``/readyz``.) Never raises."""
        return not self._closed

    def subscriber_count(self, channel: str) -> int:
        """Subscriptions to ``channel`` in this process."""
        return self._hub.count(channel)

    # -- for implementations -----------------------------------------------------------

    @abstractmethod
    async def _send(self, channel: str, envelope: str) -> None:
        """Put an envelope on the bus; log (never raise) a bus failure."""

    @abstractmethod
    async def _open(self) -> None:
        """Connect to the bus (called once, by ``start``)."""

    @abstractmethod
    async def _shutdown(self) -> None:
        """Disconnect from the bus (called once, by ``close``)."""

    @abstractmethod
    async def _joined(self, channel: str) -> None:
        """A local subscriber joined ``channel``: return once the bus delivers it to us."""

    @abstractmethod
    async def _left(self, channel: str) -> None:
        """The last local subscriber of ``channel`` left."""

    def _dispatch(self, channel: str, envelope: str | bytes) -> None:
        """Hand an envelope received from the bus to the local subscribers."""
        try:
            content = json.loads(envelope)
        except ValueError:
            logger.warning("live: dropped a malformed envelope on %r", channel)
            return
        if isinstance(content, dict) and isinstance(content.get("m"), dict):
            self._hub.deliver(channel, content["m"])
        elif isinstance(content, dict) and "kick" in content:
            self._hub.kick(channel, content["kick"])
        else:
            logger.warning("live: dropped an unknown envelope on %r", channel)


class MemoryBroker(Broker):
    """One process, no network: the bus is the hub itself. The default (no Redis URL)."""

    async def _send(self, channel: str, envelope: str) -> None:
        self._dispatch(channel, envelope)

    # The hub is the bus: nothing to connect, and delivery to a new subscriber starts at once.
    async def _open(self) -> None:
        return None

    async def _shutdown(self) -> None:
        return None

    async def _joined(self, channel: str) -> None:
        return None

    async def _left(self, channel: str) -> None:
        return None


def encode_message(channel: str, message: Message) -> str:
    """The envelope for ``message``, after checking it is a small JSON object."""
    _check_channel(channel)
    if not isinstance(message, dict):
        raise TypeError(f"a message is a dict, not {type(message).__name__}")
    envelope = json.dumps({"m": message}, separators=(",", ":"), allow_nan=False)
    if len(envelope) > MAX_MESSAGE_BYTES:
        raise ValueError(f"a message is a small notification (at most {MAX_MESSAGE_BYTES} "
                         "bytes); let subscribers read the data from the database")
    return envelope


def _check_channel(channel: str) -> None:
    if not isinstance(channel, str) or not channel or len(channel) > MAX_CHANNEL_LENGTH:
        raise ValueError(f"a channel is a non-empty string of at most {MAX_CHANNEL_LENGTH} "
                         f"characters, like 'match:34'; got {channel!r}")


def _check_key(key: Key) -> None:
    # Keys cross the bus as JSON: only these come back equal to themselves.
    if isinstance(key, bool) or not isinstance(key, str | int):
        raise TypeError(f"a subscription key is a str or an int, not {type(key).__name__}")


def _done_future() -> concurrent.futures.Future[None]:
    future: concurrent.futures.Future[None] = concurrent.futures.Future()
    future.set_result(None)
    return future


def _log_failure(future: concurrent.futures.Future[None]) -> None:
    if not future.cancelled() and future.exception() is not None:
        logger.error("live: publishing from a thread failed", exc_info=future.exception())


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:  # a thread without a loop
        return None
