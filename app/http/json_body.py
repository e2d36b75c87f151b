"""Every JSON request body is read here, once, before FastAPI or a lean route looks at it.

``json.loads`` alone lets through bodies that no later step can handle: a thousand nested
arrays raise ``RecursionError`` (a 500), a few hundred pass and wait to blow up in whatever
walks them next. So a body is read as UTF-8 JSON nested at most ``MAX_DEPTH`` deep, or it is
``Unreadable``, with the reason said to the caller (``app.http.deps.JsonBodyRoute``).
"""

from __future__ import annotations

import email.message
import json
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request

MAX_DEPTH = 64


def N_(message: str) -> str:
    """Marks a message for the catalogue; translated where it is said."""
    return message


NOT_JSON = N_("The request's body is not valid JSON.")
NOT_UTF8 = N_("The request's body is not valid UTF-8 text.")
TOO_DEEP = N_("The request's JSON is nested more than %(max)s levels deep.")


@dataclass(frozen=True)
class Unreadable:
    """A JSON body that could not be read, and why (a message id; ``max``: ``MAX_DEPTH``)."""

    reason: str


def parse(body: bytes) -> Any:
    """The body's JSON value, or ``Unreadable``."""
    try:
        value = json.loads(body)
    except UnicodeDecodeError:
        return Unreadable(NOT_UTF8)
    except RecursionError:
        return Unreadable(TOO_DEEP)
    except ValueError:
        return Unreadable(NOT_JSON)
    return Unreadable(TOO_DEEP) if _deeper_than(value, MAX_DEPTH, body) else value


def _deeper_than(value: Any, limit: int, body: bytes) -> bool:
    if body.count(b"[") + body.count(b"{") <= limit:
        return False  # too few brackets to nest that deep: the usual case, no walk
    pending = [(value, 1)]
    while pending:  # a loop, not recursion: the point is not to need the stack
        container, depth = pending.pop()
        if depth > limit:
            return True
        children = container.values() if isinstance(container, dict) else container
        pending.extend((child, depth + 1) for child in children
                       if isinstance(child, dict | list))
    return False


async def read(request: Request) -> Any:
    """The request's JSON body, parsed once and kept where ``request.json()`` finds it, so
    FastAPI reads this value instead of parsing the body again."""
    if not hasattr(request, "_json"):
        request._json = parse(await request.body())
    return request._json


def expected(request: Request, *, strict: bool) -> bool:
    """Whether FastAPI reads this body as JSON: its own test of the content type (with
    ``strict``, a body without one is not JSON)."""
    content_type = request.headers.get("content-type")
    if not content_type:
        return not strict
    message = email.message.Message()
    message["content-type"] = content_type
    subtype = message.get_content_subtype()
    return message.get_content_maintype() == "application" and (
        subtype == "json" or subtype.endswith("+json"))
