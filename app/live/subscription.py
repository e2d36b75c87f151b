"""Local fan-out: one bounded mailbox per subscriber, grouped by channel.

Both brokers deliver through this ``Hub``: the in-process broker feeds it directly, the Redis
broker feeds it from its single reader task. Delivery is synchronous (no ``await``), so a
message reaches every local mailbox in the order it was published, and a slow subscriber
can never hold up the others: when its mailbox is full it is ended with ``OVERFLOW``.
"""

from __future__ import annotations

import asyncio
from collections import deque
from enum import StrEnum
from typing import Any

Message = dict[str, Any]
Key = str | int


class EndReason(StrEnum):
    """Why a subscription's iterator stopped (``Subscription.end_reason``)."""

    CLOSED = "closed"  # the broker shut down, or the subscription was left
    OVERFLOW = "overflow"  # this subscriber fell more than ``queue_limit`` messages behind
    GAP = "gap"  # the bus reconnected: messages may have been lost meanwhile
    KICKED = "kicked"  # ``broker.kick(channel, key)`` named this subscriber


RESUMABLE = frozenset({EndReason.OVERFLOW, EndReason.GAP})


class Subscription:
    """An async iterator over one channel's messages, for one subscriber.

    The iterator stops at once when the subscription ends (messages still buffered are
    dropped: they are notifications, the database holds the events); ``end_reason`` says
    why. Messages are shared between subscribers: treat them as read-only.
    """

    __slots__ = ("_buffer", "_limit", "_waiter", "channel", "end_reason", "key")

    def __init__(self, channel: str, key: Key | None, limit: int) -> None:
        self.channel = channel
        self.key = key
        self.end_reason: EndReason | None = None
        self._limit = limit
        self._buffer: deque[Message] = deque()
        self._waiter: asyncio.Future[None] | None = None

    @property
    def resumable(self) -> bool:
        """True when the subscriber should subscribe again and catch up from the database."""
        return self.end_reason in RESUMABLE

    def __aiter__(self) -> Subscription:
        return self

    async def __anext__(self) -> Message:
        while self.end_reason is None:
            if self._buffer:
                return self._buffer.popleft()
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        raise StopAsyncIteration

    def offer(self, message: Message) -> None:
        if self.end_reason is not None:
            return
        if len(self._buffer) >= self._limit:
            self.end(EndReason.OVERFLOW)
            return
        self._buffer.append(message)
        self._wake()

    def end(self, reason: EndReason) -> None:
        """End the subscription (the first reason wins) and wake its reader."""
        if self.end_reason is None:
            self.end_reason = reason
            self._buffer.clear()
            self._wake()

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)


class Hub:
    """The subscriptions of this process, by channel."""

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError("queue_limit must be at least 1")
        self.limit = limit
        # A dict used as an insertion-ordered set: delivery order is stable.
        self._channels: dict[str, dict[Subscription, None]] = {}

    def add(self, subscription: Subscription) -> None:
        self._channels.setdefault(subscription.channel, {})[subscription] = None

    def remove(self, subscription: Subscription) -> None:
        subscribers = self._channels.get(subscription.channel)
        if subscribers is not None:
            subscribers.pop(subscription, None)
            if not subscribers:
                del self._channels[subscription.channel]
        subscription.end(EndReason.CLOSED)

    def deliver(self, channel: str, message: Message) -> None:
        for subscription in self._channels.get(channel, ()):
            subscription.offer(message)

    def kick(self, channel: str, key: Key) -> None:
        for subscription in self._channels.get(channel, ()):
            if subscription.key == key:
                subscription.end(EndReason.KICKED)

    def end_all(self, reason: EndReason) -> None:
        for subscribers in self._channels.values():
            for subscription in subscribers:
                subscription.end(reason)

    def count(self, channel: str) -> int:
        return len(self._channels.get(channel, ()))

    def channels(self) -> list[str]:
        return list(self._channels)
