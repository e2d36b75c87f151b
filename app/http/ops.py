"""Operating Tablée: the request id, one JSON log line per request, Prometheus metrics, and
the probes ``/healthz`` (alive), ``/readyz`` (database and broker reachable) and ``/metrics``.

``/metrics`` is closed by default (404): set ``TABLEE_METRICS_TOKEN`` and scrape it with
``Authorization: Bearer <token>`` (docs/deploy.md § Metrics). With several workers, set
``PROMETHEUS_MULTIPROC_DIR`` to an empty directory shared by the workers of one host
(``make run-scaled`` does): any worker then answers for all of them.
"""

from __future__ import annotations

import hmac
import json
import logging
import os
import re
import time

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client import multiprocess as prometheus_multiprocess
from sqlalchemy import text
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app import telemetry
from app.errors import NotFound

REQUEST_ID_HEADER = "x-request-id"
request_log = logging.getLogger("tablee.request")

ACTION_PATH = re.compile(r"^(?:/api/v1)?/campaigns/\d+/matches/\d+/(actions|rewind|redo)$")
# The probes and the scrape: not logged one line each (a load balancer asks every few
# seconds), and not counted in the request metrics.
QUIET_PATHS = frozenset({"/healthz", "/readyz", "/metrics"})
STREAM_SUFFIX = "/stream"
LATENCY_BUCKETS = (0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


def multiprocess_dir() -> str | None:
    return os.environ.get("PROMETHEUS_MULTIPROC_DIR") or None


class Metrics:
    """The instance's metrics, in a registry of its own (one per app: tests build many)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        registry = self.registry
        self.actions = Counter(
            "tablee_actions", "Actions at a table (actions, undo, redo), by game and outcome "
            "(ok, refused: the rules or a stale seq, denied, unavailable: 503, error: 500).",
            ["game", "outcome"], registry=registry)
        self.action_seconds = Histogram(
            "tablee_action_duration_seconds", "Time to answer an action, server side.",
            ["game"], buckets=LATENCY_BUCKETS, registry=registry)
        self.requests = Counter(
            "tablee_http_requests", "Requests answered (streams counted when they end), by "
            "method and status class.", ["method", "status"], registry=registry)
        self.request_seconds = Histogram(
            "tablee_http_request_duration_seconds", "Time to answer a request (streams "
            "excluded).", buckets=LATENCY_BUCKETS, registry=registry)
        self.open_streams = Gauge(
            "tablee_open_streams", "Server-Sent Event streams open now.",
            registry=registry, multiprocess_mode="livesum")
        self.database_errors = Counter(
            "tablee_database_errors", "Database errors: unavailable (locked, unreachable: "
            "answered 503) and error (a 500).", ["kind"], registry=registry)

    def exposition(self) -> bytes:
        directory = multiprocess_dir()
        if directory:
            registry = CollectorRegistry()
            prometheus_multiprocess.MultiProcessCollector(registry, path=directory)
            return generate_latest(registry)
        return generate_latest(self.registry)


def _outcome(status: int) -> str:
    if status < 400:
        return "ok"
    if status in (409, 422):
        return "refused"
    if status == 503:
        return "unavailable"
    if status >= 500:
        return "error"
    return "denied"


class OpsMiddleware:
    """Outermost of Tablée's own middleware (inside the proxy-header one): every response,
    error pages included, carries ``X-Request-ID``; every request ends with a log line and
    its metrics. Plain ASGI, so streams pass through untouched."""

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        presented = next((value.decode("latin-1") for name, value in scope.get("headers", ())
                          if name == b"x-request-id"), None)
        context = telemetry.RequestContext(telemetry.request_id(presented))
        scope.setdefault("state", {})["request_id"] = context.id
        status = 500

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                MutableHeaders(scope=message).append(REQUEST_ID_HEADER, context.id)
            await send(message)

        token = telemetry.begin(context)
        started = time.perf_counter()
        try:
            await self.app(scope, receive, send_with_id)
        finally:
            telemetry.end(token)
            self._record(scope, context, status, time.perf_counter() - started)

    def _record(self, scope: Scope, context: telemetry.RequestContext, status: int,
                seconds: float) -> None:
        path, method = scope["path"], scope["method"]
        if path in QUIET_PATHS:
            return
        metrics = self.metrics
        metrics.requests.labels(method, f"{status // 100}xx").inc()
        if not path.endswith(STREAM_SUFFIX):
            metrics.request_seconds.observe(seconds)
        if method == "POST" and ACTION_PATH.match(path):
            game = context.game or "unknown"
            metrics.actions.labels(game, _outcome(status)).inc()
            metrics.action_seconds.labels(game).observe(seconds)
        if request_log.isEnabledFor(logging.INFO):
            request_log.info(json.dumps({
                "ts": round(time.time(), 3), "request_id": context.id, "method": method,
                "path": path, "status": status, "duration_ms": round(seconds * 1000, 2),
                "user": context.user, "campaign": context.campaign, "game": context.game,
            }, separators=(",", ":")))


def configure_request_log() -> None:
    """Print the request log's JSON lines, bare, on stderr (``python -m app serve`` and the
    ASGI entry point call this; tests read the records through ``caplog``)."""
    if request_log.handlers:
        return
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(message)s"))
    request_log.addHandler(handler)
    request_log.setLevel(logging.INFO)
    request_log.propagate = False


router = APIRouter(include_in_schema=False)


@router.get("/healthz")
async def healthz() -> Response:
    """Alive: the process answers (no I/O)."""
    return JSONResponse({"status": "ok"})


def _database_answers(request: Request) -> bool:
    try:
        with request.app.state.engine.connect() as connection:
            connection.execute(text("SELECT 1"))
    except Exception:  # any failure means "not ready"; the reason is logged
        logging.getLogger(__name__).warning("readyz: the database does not answer",
                                            exc_info=True)
        return False
    return True


@router.get("/readyz")
async def readyz(request: Request) -> Response:
    """Ready for traffic: the database answers a query and the broker reaches its bus.
    503 (with which one failed) otherwise, so a load balancer sends the traffic elsewhere."""
    database = await run_in_threadpool(_database_answers, request)
    broker = await request.app.state.broker.ping()
    ready = database and broker
    return JSONResponse({"status": "ready" if ready else "unavailable",
                         "database": "ok" if database else "unavailable",
                         "broker": "ok" if broker else "unavailable"},
                        status_code=200 if ready else 503,
                        headers={} if ready else {"Retry-After": "5"})


@router.get("/metrics")
async def metrics(request: Request) -> Response:
    """Prometheus exposition, for the holder of ``TABLEE_METRICS_TOKEN`` only; without a
    token configured the page does not exist (404), so nothing leaks by default."""
    expected = request.app.state.settings.metrics_token
    presented = request.headers.get("authorization", "")
    if not expected or not hmac.compare_digest(presented.encode(),
                                                f"Bearer {expected}".encode()):
        # The same 404 with or without a token configured: nothing tells a visitor that
        # metrics exist here.
        raise NotFound()
    return Response(request.app.state.metrics.exposition(), media_type=CONTENT_TYPE_LATEST)
