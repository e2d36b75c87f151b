"""``create_app(settings)``: the one place where Tablée is wired together."""

from __future__ import annotations

import logging
import re
import sqlite3
from contextlib import asynccontextmanager
from urllib.parse import quote

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from fastapi.staticfiles import StaticFiles
from sqlalchemy.exc import OperationalError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import RedirectResponse, Response
from starlette.types import Receive, Scope, Send
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from app.config import Settings
from app.db import WriteQueue, make_engine, make_sessionmaker
from app.errors import AppError, NotAuthenticated, Unavailable
from app.http import validation_errors
from app.http.deps import API_PREFIX, viewer_of
from app.http.ops import Metrics, OpsMiddleware
from app.http.streams import RAW_SEND
from app.i18n import gettext as _
from app.live import make_broker
from app.services.match_feed import MatchFeeds
from app.services.simulations import Simulations
from app.web.import_pages import check_table_page
from app.web.middleware import BodyTooLarge, WebMiddleware, too_large_error
from app.web.templating import STATIC_DIR, render

logger = logging.getLogger(__name__)


class Tablee(FastAPI):
    """FastAPI, plus the server's own ``send`` kept in the scope (``RAW_SEND``): a stream's
    body chunks go straight to the server, past the middleware that only needed to see
    the response start (1,000 streams × 5 layers per event was a fifth of a fan-out).
    Taken out again when the request ends: uvicorn's ``send`` is a method of the object
    holding the scope, and the cycle it made kept each request's objects for the garbage
    collector's next full collection (tests/test_request_cycles.py)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        scope[RAW_SEND] = send
        try:
            await super().__call__(scope, receive, send)
        finally:
            del scope[RAW_SEND]


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings()
    broker = make_broker(settings)

    @asynccontextmanager
    async def lifespan(_app: FastAPI):
        await broker.start()
        yield
        app.state.simulations.close()
        await broker.close()
        # Close the pooled connections now: left to the garbage collector, PostgreSQL's are
        # reported as leaked (psycopg's ResourceWarning) and held open on the server until then.
        app.state.engine.dispose()

    app = Tablee(
        lifespan=lifespan,
        title="Tablée",
        version="0.1.0",
        summary="A self-hosted virtual tabletop for five French tabletop games.",
        docs_url=None,  # served by app.web.docs with our CSP-friendly page
        redoc_url=None,
        openapi_url="/openapi.json",
    )
    app.state.settings = settings
    app.state.broker = broker
    app.state.engine = make_engine(settings.resolved_database_url,
                                   busy_timeout_ms=settings.sqlite_busy_timeout_ms)
    app.state.sessionmaker = make_sessionmaker(app.state.engine)
    app.state.write_queue = WriteQueue(app.state.engine)
    app.state.match_feeds = MatchFeeds(broker, app.state.sessionmaker)
    app.state.metrics = Metrics()
    app.state.simulations = Simulations()  # started on demand, on every core (docs/odds.md)
    # An import renders each match's table page before it accepts a file, from the API
    # too; services do not render pages, so both routers get the web's check from here.
    app.state.import_page_check = check_table_page
    app.add_middleware(WebMiddleware, settings=settings)
    # Outside the web middleware: its 500 page and its headers get the request id too.
    app.add_middleware(OpsMiddleware, metrics=app.state.metrics)
    if settings.trusted_proxies:
        # Outermost: the client address is the one the trusted proxy saw (uvicorn's own
        # middleware; `app serve` runs uvicorn without it, so no proxy is trusted by default).
        app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=[
            host.strip() for host in settings.trusted_proxies.split(",") if host.strip()])
    app.mount("/static", StaticFiles(directory=str(STATIC_DIR)), name="static")
    _include_routers(app)
    _install_error_handlers(app)
    return app


def _include_routers(app: FastAPI) -> None:
    """The API's routes first, then the pages'. A request walks the routes in this order
    until one matches (FastAPI tries each route in turn: with a hundred and sixty routes
    that walk was a sixth of an action's work), so the commonest requests — actions at a
    table — come first: the API's before the pages' (their paths never overlap:
    ``/api/v1``), and each side's match routes first (``API_MODULES``, ``WEB_MODULES``).
    tests/test_routing.py checks that every route is still the first to match its own paths.

    The routes go in as they are, with the whole paths their routers gave them: FastAPI
    built each one (its dependencies, its validators) once, when its module was imported.
    ``app.include_router`` would build every route again for each app, at its first
    requests — a third of a second per app, for nothing: a route holds no state of its
    app, and a worker has one app (the test suite one per test)."""
    from app.api import routers as api_routers
    from app.web import routers as web_routers

    route_order: list[tuple[re.Pattern[str], set[str], str]] = []
    for router in (*api_routers(), *web_routers()):
        app.router.routes.extend(router.routes)
        route_order.extend((route.path_regex, set(route.methods), route.path)
                           for route in router.routes if isinstance(route, APIRoute))
    # The order requests walk (tests/test_routing.py), and each path's methods (a 405's Allow).
    app.state.route_order = route_order


def _allowed_methods(request: Request) -> str:
    """Every method the resource answers, across all the routes that share its path."""
    methods = {method for regex, route_methods, _path in request.app.state.route_order
               if regex.match(request.url.path) for method in route_methods}
    return ", ".join(sorted(methods))


def _is_api(request: Request) -> bool:
    return request.url.path.startswith(API_PREFIX)


def _error_response(request: Request, error: AppError) -> Response:
    if _is_api(request):
        return JSONResponse(error.to_dict(), status_code=error.status, headers=error.headers)
    if isinstance(error, NotAuthenticated) and request.method == "GET":
        # A page that needs an account sends the visitor to log in, then back here.
        target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        return RedirectResponse(f"/login?next={quote(target)}", status_code=303)
    response = render(request, "error.html", {"error": error}, status_code=error.status)
    response.headers.update(error.headers)
    return response


def _transient(error: OperationalError) -> bool:
    """Busy or out of reach for a moment (worth a retry), as opposed to a bug: SQLite says
    "database is locked/busy"; PostgreSQL's operational errors are connection losses, lock
    and statement timeouts."""
    if isinstance(error.orig, sqlite3.OperationalError):
        return any(word in str(error.orig) for word in ("locked", "busy"))
    return True


def _install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(AppError)
    async def app_error(request: Request, error: AppError) -> Response:
        return _error_response(request, error)

    @app.exception_handler(OperationalError)
    async def database_unavailable(request: Request, error: OperationalError) -> Response:
        """A database that stayed locked past its wait (SQLite's busy timeout) or cannot be
        reached (PostgreSQL restarting): the transaction rolled back, so nothing was done;
        the client is told to come back shortly (503 + Retry-After), never a 500."""
        if not _transient(error):
            request.app.state.metrics.database_errors.labels("error").inc()
            raise error  # a real bug (a missing table…): the 500 path logs it
        request.app.state.metrics.database_errors.labels("unavailable").inc()
        logger.warning("database unavailable on %s %s: %s", request.method, request.url.path,
                       str(error.orig).splitlines()[0] if error.orig else error)
        return _error_response(request, Unavailable())

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, error: RequestValidationError) -> Response:
        first = error.errors()[0] if error.errors() else {}
        await viewer_of(request)  # the account's language (a lean route may not have read it)
        # Pydantic's English, said again in the request's language (field, range in words).
        return _error_response(request, AppError(
            validation_errors.message(request, first), field=validation_errors.field_path(first),
            code="invalid_input").with_status(422))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> Response:
        if isinstance(error, BodyTooLarge):
            return _error_response(request, too_large_error(error.limit))
        if error.status_code == 400:
            # A body the framework could not read (a broken form): said in the account's
            # language, not the framework's English.
            await viewer_of(request)
        messages = {400: _("The request's body could not be read."), 404: _("Not found."),
                    405: _("Method not allowed.")}
        message = messages.get(error.status_code, str(error.detail))
        app_error = AppError(message, code={
            400: "bad_request", 404: "not_found", 405: "method_not_allowed"}
            .get(error.status_code, "http_error")).with_status(error.status_code)
        response = _error_response(request, app_error)
        for key, value in (error.headers or {}).items():
            response.headers[key] = value
        if error.status_code == 405:
            response.headers["allow"] = _allowed_methods(request)
        return response
