"""A route FastAPI documents from its declared endpoint, served first by a lean handler.

FastAPI solves a route's dependencies anew on every request: for the action route, the
hottest of all, that was a third of the event loop's work per action (docs/benchmarks.md
§ Fourth pass). A ``lean_route`` keeps the declared endpoint — the OpenAPI document and
every error answer still come from it — and first offers each request to ``lean``, a plain
``async (request) -> Response | None`` that reads what it needs itself. ``None`` (a body or
parameter it does not accept as it is) hands the request to FastAPI's own handler, which
validates it and answers exactly as for any route.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from app.http.deps import JsonBodyRoute

Lean = Callable[[Request], Awaitable[Response | None]]


def lean_route(lean: Lean) -> type[JsonBodyRoute]:
    """A route class (``route_class_override``) whose requests go to ``lean`` first; a JSON
    body ``lean`` could not read is refused by ``JsonBodyRoute`` as on every route."""

    class LeanRoute(JsonBodyRoute):
        def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
            declared = super().get_route_handler()

            async def handler(request: Request) -> Response:
                response = await lean(request)
                return response if response is not None else await declared(request)

            return handler

    return LeanRoute


def path_id(request: Request, name: str, highest: int) -> int | None:
    """The path parameter ``name`` as an id in 1..``highest``, or None (let FastAPI say why)."""
    value = request.path_params.get(name)
    if not isinstance(value, str) or not value.isascii() or not value.isdigit():
        return None
    number = int(value)
    return number if 1 <= number <= highest else None
