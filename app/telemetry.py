"""What the request being served is about, for its log line and its metrics (docs/deploy.md).

The ops middleware (``app.http.ops``) opens a ``RequestContext`` per request; lower layers
only *note* what they learn on the way (who asks, which campaign, which game) with
``note(...)``. Noting outside a request does nothing, so services stay usable from scripts
and tests. The context lives in a ``ContextVar``: the thread a sync route runs in sees the
same object (Starlette copies the context into it), so what it notes reaches the log line.
"""

from __future__ import annotations

import itertools
import re
import secrets
from contextvars import ContextVar
from dataclasses import dataclass

# A client's own id is kept when it looks like an id (a proxy's X-Request-ID), so one id
# follows a request through the proxy's log and ours; anything else is replaced.
_CLIENT_ID = re.compile(r"^[A-Za-z0-9._:-]{8,64}$")


@dataclass
class RequestContext:
    id: str
    user: int | None = None
    campaign: int | None = None
    game: str | None = None


_current: ContextVar[RequestContext | None] = ContextVar("tablee_request", default=None)


# Our own ids: a random prefix per process and a counter (unique per instance, and no
# system call per request as a random id would cost).
_PREFIX = secrets.token_hex(4)
_counter = itertools.count(1)


def request_id(presented: str | None) -> str:
    """The id of a new request: the client's (or proxy's) X-Request-ID when well formed."""
    if presented and _CLIENT_ID.match(presented):
        return presented
    return f"{_PREFIX}-{next(_counter):x}"


def begin(context: RequestContext) -> object:
    """Make ``context`` the current request's; returns the token for ``end``."""
    return _current.set(context)


def end(token: object) -> None:
    _current.reset(token)  # type: ignore[arg-type]


def current() -> RequestContext | None:
    return _current.get()


def current_id() -> str | None:
    context = _current.get()
    return context.id if context else None


def note(*, user: int | None = None, campaign: int | None = None,
         game: str | None = None) -> None:
    """Record what this request is about (ignored outside a request)."""
    context = _current.get()
    if context is None:
        return
    if user is not None:
        context.user = user
    if campaign is not None:
        context.campaign = campaign
    if game is not None:
        context.game = game
