"""Live updates: a publish/subscribe Broker, in-process or over Redis (docs/live.md).

    broker = make_broker(settings)
    await broker.start()                       # in the app's lifespan
    async with broker.subscribe("match:34", key=user_id) as subscription:
        async for message in subscription:     # {"kind": "event", "match_id": 34, "seq": 17}
            ...
        # the loop ended: subscription.end_reason says why (see EndReason)
    await broker.publish("match:34", {"kind": "event", "match_id": 34, "seq": 17})
    broker.publish_threadsafe("match:34", {...})   # from a service, after commit
    await broker.kick("campaign:12", user_id)      # the member loses their streams
    await broker.close()
"""

from __future__ import annotations

from app.config import Settings
from app.live.broker import DEFAULT_QUEUE_LIMIT, Broker, MemoryBroker
from app.live.redis_broker import RedisBroker
from app.live.subscription import EndReason, Key, Message, Subscription

__all__ = ["Broker", "EndReason", "Key", "MemoryBroker", "Message", "RedisBroker",
           "Subscription", "make_broker"]


def make_broker(settings: Settings, *, queue_limit: int = DEFAULT_QUEUE_LIMIT) -> Broker:
    """Redis when ``TABLEE_REDIS_URL`` is set (several workers share it), else in-process."""
    if settings.redis_url:
        return RedisBroker(settings.redis_url, namespace=settings.redis_namespace,
                           queue_limit=queue_limit)
    return MemoryBroker(queue_limit=queue_limit)
