"""The live-update Broker: the same tests run in-process ("memory") and over Redis ("redis").

Each test gets its own Redis namespace, so parallel runs sharing one Redis never clash.
The Redis runs are skipped only when Redis does not answer on TABLEE_TEST_REDIS_URL
(default 127.0.0.1:6379).
"""

from __future__ import annotations

import asyncio
import math
import os
import uuid
from contextlib import AsyncExitStack
from functools import cache

import anyio
import pytest
import redis
import redis.asyncio

from app.config import Settings
from app.live import Broker, EndReason, MemoryBroker, RedisBroker, Subscription, make_broker

REDIS_URL = os.environ.get("TABLEE_TEST_REDIS_URL") or "redis://127.0.0.1:6379/0"
CHANNEL = "match:34"

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@cache
def redis_answers() -> bool:
    client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=0.5, socket_timeout=0.5)
    try:
        return bool(client.ping())
    except redis.RedisError:
        return False
    finally:
        client.close()


class Bus:
    """Brokers of one kind; over Redis they share the bus, like the workers of one instance."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.namespace = f"tablee-test-{uuid.uuid4().hex[:12]}:"
        self.brokers: list[Broker] = []

    async def broker(self, **options) -> Broker:
        if self.kind == "redis":
            options.setdefault("reconnect_delays", (0.01, 0.2))
            broker: Broker = RedisBroker(REDIS_URL, namespace=self.namespace, **options)
        else:
            broker = MemoryBroker(**options)
        self.brokers.append(broker)
        await broker.start()
        return broker

    async def listeners(self, channel: str) -> int:
        """How many processes the bus routes ``channel`` to (Redis: PUBSUB NUMSUB)."""
        if self.kind == "memory":
            return sum(1 for broker in self.brokers if broker.subscriber_count(channel))
        admin = redis.asyncio.Redis.from_url(REDIS_URL)
        try:
            [(_, count)] = await admin.pubsub_numsub(self.namespace + channel)
            return count
        finally:
            await admin.aclose()

    async def close(self) -> None:
        for broker in self.brokers:
            await broker.close()


@pytest.fixture(params=["memory", "redis"])
async def bus(request, anyio_backend):
    if request.param == "redis" and not redis_answers():
        pytest.skip(f"Redis does not answer on {REDIS_URL}")
    bus = Bus(request.param)
    yield bus
    await bus.close()


@pytest.fixture
async def redis_bus(anyio_backend):
    if not redis_answers():
        pytest.skip(f"Redis does not answer on {REDIS_URL}")
    bus = Bus("redis")
    yield bus
    await bus.close()


async def receive(subscription: Subscription, count: int = 1) -> list[dict]:
    with anyio.fail_after(5):
        return [await anext(subscription) for _ in range(count)]


async def assert_ended(subscription: Subscription, reason: EndReason) -> None:
    with anyio.fail_after(5), pytest.raises(StopAsyncIteration):
        await anext(subscription)
    assert subscription.end_reason == reason


def event(seq: int) -> dict:
    return {"kind": "event", "match_id": 34, "seq": seq}


async def test_messages_arrive_in_publish_order_from_the_moment_of_subscribing(bus):
    broker = await bus.broker()
    await broker.publish(CHANNEL, event(0))  # nobody listens yet: not replayed later
    async with broker.subscribe(CHANNEL) as subscription:
        for seq in range(1, 201):
            await broker.publish(CHANNEL, event(seq))
        assert await receive(subscription, 200) == [event(seq) for seq in range(1, 201)]


async def test_one_message_reaches_a_thousand_subscribers_and_no_other_channel(bus):
    broker = await bus.broker()
    async with AsyncExitStack() as stack:
        subscriptions = [await stack.enter_async_context(broker.subscribe(CHANNEL))
                         for _ in range(1_000)]
        elsewhere = await stack.enter_async_context(broker.subscribe("match:35"))
        await broker.publish(CHANNEL, event(1))
        await broker.publish("match:35", {"kind": "event", "match_id": 35, "seq": 1})
        for subscription in subscriptions:
            assert await receive(subscription) == [event(1)]
        assert await receive(elsewhere) == [{"kind": "event", "match_id": 35, "seq": 1}]


async def test_the_bus_stops_routing_a_channel_when_its_last_local_subscriber_leaves(bus):
    broker = await bus.broker()
    async with broker.subscribe(CHANNEL):
        async with broker.subscribe(CHANNEL):
            assert broker.subscriber_count(CHANNEL) == 2
            assert await bus.listeners(CHANNEL) == 1
        assert broker.subscriber_count(CHANNEL) == 1
        assert await bus.listeners(CHANNEL) == 1
    assert broker.subscriber_count(CHANNEL) == 0
    assert await bus.listeners(CHANNEL) == 0
    async with broker.subscribe(CHANNEL) as again:  # and it can come back
        await broker.publish(CHANNEL, event(1))
        assert await receive(again) == [event(1)]


async def test_a_slow_subscriber_is_dropped_without_holding_up_the_others(bus):
    broker = await bus.broker(queue_limit=10)
    async with broker.subscribe(CHANNEL) as slow, broker.subscribe(CHANNEL) as reader:
        for seq in range(25):
            await broker.publish(CHANNEL, event(seq))
            assert await receive(reader) == [event(seq)]
        await assert_ended(slow, EndReason.OVERFLOW)
        assert slow.resumable  # its owner catches up from the database
        assert reader.end_reason is None


async def test_kick_ends_the_named_subscribers_before_the_next_message(bus):
    broker = await bus.broker()
    async with (broker.subscribe(CHANNEL, key=5) as kicked,
                broker.subscribe(CHANNEL, key=6) as kept,
                broker.subscribe("campaign:12", key=5) as other_channel):
        await broker.publish(CHANNEL, event(1))
        await broker.kick(CHANNEL, 5)
        await broker.publish(CHANNEL, event(2))
        await broker.publish("campaign:12", {"kind": "roll"})
        assert await receive(kept, 2) == [event(1), event(2)]
        assert await receive(other_channel) == [{"kind": "roll"}]
        await assert_ended(kicked, EndReason.KICKED)  # event 2 never reached it
        assert not kicked.resumable


async def test_a_cancelled_subscriber_leaves_nothing_behind(bus):
    broker = await bus.broker()
    entered = anyio.Event()

    async def viewer() -> None:  # a browser tab that goes away mid-stream
        async with broker.subscribe(CHANNEL) as subscription:
            entered.set()
            async for _ in subscription:
                pass

    async with anyio.create_task_group() as group:
        group.start_soon(viewer)
        await entered.wait()
        group.cancel_scope.cancel()
    assert broker.subscriber_count(CHANNEL) == 0
    with anyio.fail_after(5):  # the bus side finishes on its own, even though cancelled
        while await bus.listeners(CHANNEL):
            await anyio.sleep(0.01)
    async with broker.subscribe(CHANNEL) as subscription:
        await broker.publish(CHANNEL, event(1))
        assert await receive(subscription) == [event(1)]


async def test_close_ends_every_subscriber_and_later_calls_are_harmless(bus):
    broker = await bus.broker()
    async with broker.subscribe(CHANNEL) as subscription:
        await broker.close()
        await assert_ended(subscription, EndReason.CLOSED)
    async with broker.subscribe(CHANNEL) as late:
        await assert_ended(late, EndReason.CLOSED)
    await broker.publish(CHANNEL, event(1))
    assert broker.publish_threadsafe(CHANNEL, event(2)).result(timeout=1) is None
    await broker.close()


async def test_publish_threadsafe_keeps_a_threads_order(bus):
    broker = await bus.broker()

    def service_after_commit() -> None:  # runs in a worker thread, like a sync route
        with pytest.raises(TypeError):
            broker.publish_threadsafe(CHANNEL, ["not", "a", "dict"])
        futures = [broker.publish_threadsafe(CHANNEL, event(seq)) for seq in range(50)]
        futures[-1].result(timeout=5)

    async with broker.subscribe(CHANNEL) as subscription:
        await anyio.to_thread.run_sync(service_after_commit)
        assert await receive(subscription, 50) == [event(seq) for seq in range(50)]


async def test_announce_keeps_the_order_of_its_calls_from_the_loop_and_from_a_thread(bus):
    """What an async route (on the loop) and a sync one (in a thread) use after a commit."""
    broker = await bus.broker()

    def service_after_commit() -> None:
        for seq in range(25, 50):
            broker.announce(CHANNEL, event(seq))

    async with broker.subscribe(CHANNEL) as subscription:
        for seq in range(25):
            broker.announce(CHANNEL, event(seq))
        assert await receive(subscription, 25) == [event(seq) for seq in range(25)]
        await anyio.to_thread.run_sync(service_after_commit)
        assert await receive(subscription, 25) == [event(seq) for seq in range(25, 50)]
    with pytest.raises(TypeError):
        broker.announce(CHANNEL, ["not", "a", "dict"])


async def test_messages_are_checked_and_come_back_as_json(bus):
    broker = await bus.broker()
    async with broker.subscribe(CHANNEL) as subscription:
        await broker.publish(CHANNEL, {"kind": "event", "seqs": (1, 2), 3: None})
        assert await receive(subscription) == [{"kind": "event", "seqs": [1, 2], "3": None}]
    with pytest.raises(TypeError):
        await broker.publish(CHANNEL, {"when": object()})
    with pytest.raises(ValueError, match="JSON compliant"):
        await broker.publish(CHANNEL, {"total": math.nan})
    with pytest.raises(ValueError, match="small notification"):
        await broker.publish(CHANNEL, {"state": "x" * 100_000})
    with pytest.raises(ValueError, match="channel"):
        await broker.publish("", event(1))
    with pytest.raises(TypeError):
        await broker.kick(CHANNEL, None)


async def test_publish_threadsafe_needs_a_started_broker(anyio_backend):
    broker = MemoryBroker()
    with pytest.raises(RuntimeError, match=r"start\(\)"):
        broker.publish_threadsafe(CHANNEL, event(1))


async def test_make_broker_uses_redis_only_when_configured(anyio_backend):
    assert isinstance(make_broker(Settings(redis_url=None)), MemoryBroker)
    broker = make_broker(Settings(redis_url=REDIS_URL))
    assert isinstance(broker, RedisBroker)
    await broker.close()  # never started: nothing to wait for


async def test_two_workers_on_redis_see_each_others_messages_and_kicks(redis_bus):
    first, second = await redis_bus.broker(), await redis_bus.broker()
    async with (first.subscribe(CHANNEL, key=5) as on_first,
                second.subscribe(CHANNEL, key=6) as on_second):
        assert await redis_bus.listeners(CHANNEL) == 2
        await first.publish(CHANNEL, event(1))
        await second.publish(CHANNEL, event(2))
        assert await receive(on_first, 2) == [event(1), event(2)]
        assert await receive(on_second, 2) == [event(1), event(2)]
        await second.kick(CHANNEL, 5)
        await assert_ended(on_first, EndReason.KICKED)
        await first.publish(CHANNEL, event(3))
        assert await receive(on_second) == [event(3)]


async def test_a_lost_redis_connection_ends_subscribers_with_a_gap_then_recovers(redis_bus):
    broker = await redis_bus.broker()
    admin = redis.asyncio.Redis.from_url(REDIS_URL)
    try:
        async with broker.subscribe(CHANNEL) as subscription:
            [client] = [c for c in await admin.client_list() if c["name"] == broker.client_name]
            await admin.client_kill_filter(_id=client["id"])
            await assert_ended(subscription, EndReason.GAP)
            assert subscription.resumable
        async with broker.subscribe(CHANNEL) as resumed:
            await broker.publish(CHANNEL, event(1))
            assert await receive(resumed) == [event(1)]
    finally:
        await admin.aclose()


async def test_publications_waiting_their_turn_when_the_broker_closes_open_no_connection(
        redis_bus):
    """A publication still waiting for the one before it when the broker closes is dropped:
    sent, it would take a connection the closed broker never closes (a socket the garbage
    collector reported later, in some other test)."""
    broker = await redis_bus.broker()
    publishing = [asyncio.create_task(broker.publish(CHANNEL, event(number)))
                  for number in range(1, 11)]
    await asyncio.sleep(0)  # each one is under way: the first sending, the others queued
    await broker.close()
    await asyncio.gather(*publishing)
    admin = redis.asyncio.Redis.from_url(REDIS_URL)
    try:
        names = [client["name"] for client in await admin.client_list()]
    finally:
        await admin.aclose()
    assert [name for name in names if name.startswith(broker.client_name)] == []
