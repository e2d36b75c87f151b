"""Pure ASGI middleware: request bodies limited while they stream, security headers on every
response (errors included), the anonymous cookie, the default language, and the answer to
an error nothing else caught (a 500 in the site's style, or the API's JSON error).

Written as plain ASGI (not ``BaseHTTPMiddleware``) so Server-Sent Event streams pass
through untouched.
"""

from __future__ import annotations

import logging
import re
import secrets
from collections.abc import Callable
from http.cookies import SimpleCookie

from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.config import Settings
from app.errors import AppError
from app.http.deps import API_PREFIX
from app.i18n import LOCALE_COOKIE, choose_locale, set_locale
from app.i18n import gettext as _
from app.services.images import mebibytes

logger = logging.getLogger(__name__)
STATIC_PREFIX = "/static/"

CONTENT_SECURITY_POLICY = "; ".join([
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: blob:",
    "connect-src 'self'",
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
])


# A refusal an htmx request gets back as HTML to show in place (the form again, with the
# reason by its field; a stale table's fresh panel). It is sent as 200, its status in the
# ``Tablee-Refused`` header: the browser logs every failed load of a script's request in
# its console, and a player's refused move is no failure of the page. The API keeps its
# statuses.
SWAPPED_REFUSALS = frozenset({409, 422})


class BodyTooLarge(HTTPException):
    """A request body went past its route's limit (raised while it streams in)."""

    def __init__(self, limit: int) -> None:
        super().__init__(413)
        self.limit = limit


# Routes that take more than a form's worth of body: (method, path pattern, limit in bytes
# from the settings). Everything else gets ``settings.max_body_bytes``. docs/security.md
# lists every limit.
Limit = Callable[[Settings], int]
UPLOAD_SLACK = 64 * 1024  # a multipart envelope and the form's other fields
BODY_LIMITS: tuple[tuple[str, re.Pattern[str], Limit], ...] = (
    ("POST", re.compile(r"^(/api/v1)?/campaigns/import$"),
     lambda s: s.max_import_bytes + UPLOAD_SLACK),
    ("POST", re.compile(r"^/campaigns/\d+/characters/\d+/portrait$"),
     lambda s: s.max_portrait_bytes + UPLOAD_SLACK),
    ("PUT", re.compile(r"^/api/v1/campaigns/\d+/characters/\d+/portrait$"),
     lambda s: s.max_portrait_bytes + UPLOAD_SLACK),
    # The GM's map under a match's board (app/services/board_backgrounds.py).
    ("POST", re.compile(r"^/campaigns/\d+/matches/\d+/background$"),
     lambda s: s.max_portrait_bytes + UPLOAD_SLACK),
)


def body_limit(settings: Settings, method: str, path: str) -> int:
    for route_method, pattern, limit in BODY_LIMITS:
        if method == route_method and pattern.match(path):
            return limit(settings)
    return settings.max_body_bytes


class WebMiddleware:
    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        cookies = _cookies(scope)
        headers = dict(scope.get("headers") or [])
        set_locale(choose_locale(None, cookies.get(LOCALE_COOKIE),
                                 headers.get(b"accept-language", b"").decode("latin-1")))
        anon_name = self.settings.anon_cookie_name
        anon_id = cookies.get(anon_name)
        # A browser without one gets one (it binds an anonymous visitor's CSRF tokens); an API
        # client with a bearer token never sends cookies back, so minting it one is waste.
        if anon_id is not None and len(anon_id) < 20:
            anon_id = None
        new_anon = anon_id is None and not _bearer(headers)
        if new_anon:
            anon_id = secrets.token_urlsafe(24)
        scope.setdefault("state", {})["anon_id"] = anon_id
        started = False
        swaps = headers.get(b"hx-request") == b"true" and not scope["path"].startswith(API_PREFIX)

        async def send_with_headers(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                response_headers = MutableHeaders(scope=message)
                self._add_security_headers(response_headers)
                if not scope["path"].startswith(STATIC_PREFIX):
                    # Pages, API answers, exports and pictures may hold a member's secrets
                    # (a GM's export above all): no cache, shared or private, keeps them.
                    response_headers.setdefault("cache-control", "no-store")
                if new_anon:
                    response_headers.append("set-cookie", self._anon_cookie(anon_name, anon_id))
                if swaps and message["status"] in SWAPPED_REFUSALS:
                    response_headers["tablee-refused"] = str(message["status"])
                    message["status"] = 200
            await send(message)

        limit = body_limit(self.settings, scope["method"], scope["path"])
        if _declared_length(headers) > limit:
            # Refused before anything reads it.
            await self._answer(scope, send_with_headers, BodyTooLarge(limit))
            return
        try:
            await self.app(scope, _limited(receive, limit), send_with_headers)
        except BodyTooLarge as error:  # read outside FastAPI's handlers (a bare stream)
            if started:
                raise
            await self._answer(scope, send_with_headers, error)
        except Exception:
            if started:
                raise
            logger.exception("unhandled error on %s %s", scope["method"], scope["path"])
            await self._answer(scope, send_with_headers, None)

    async def _answer(self, scope: Scope, send: Send, error: BodyTooLarge | None) -> None:
        """The API's JSON error or the site's error page, for a body too large (``error``)
        or for an error nothing else caught (a 500)."""
        request = Request(scope)
        app_error = too_large_error(error.limit) if error else AppError(
            _("Something went wrong on our side. Please try again in a moment."),
            code="server_error").with_status(500)
        response: Response
        if scope["path"].startswith(API_PREFIX):
            response = JSONResponse(app_error.to_dict(), status_code=app_error.status)
        else:
            from app.web.templating import render  # templates import this module's package

            response = render(request, "error.html", {"error": app_error},
                              status_code=app_error.status)
        await response(scope, request.receive, send)

    def _add_security_headers(self, headers: MutableHeaders) -> None:
        headers.setdefault("content-security-policy", CONTENT_SECURITY_POLICY)
        headers.setdefault("x-content-type-options", "nosniff")
        headers.setdefault("referrer-policy", "same-origin")
        headers.setdefault("x-frame-options", "DENY")
        headers.setdefault("cross-origin-opener-policy", "same-origin")
        headers.setdefault("permissions-policy", "camera=(), microphone=(), geolocation=()")
        if self.settings.https:
            headers.setdefault("strict-transport-security", "max-age=31536000; includeSubDomains")

    def _anon_cookie(self, name: str, value: str) -> str:
        secure = "; Secure" if self.settings.https else ""
        return f"{name}={value}; Path=/; HttpOnly; SameSite=Lax{secure}"


def _cookies(scope: Scope) -> dict[str, str]:
    for key, value in scope.get("headers") or []:
        if key == b"cookie":
            parsed = SimpleCookie()
            try:
                parsed.load(value.decode("latin-1"))
            except Exception:  # a malformed cookie header is simply ignored
                return {}
            return {name: morsel.value for name, morsel in parsed.items()}
    return {}


def _bearer(headers: dict[bytes, bytes]) -> bool:
    return headers.get(b"authorization", b"")[:7].lower() == b"bearer "


def _declared_length(headers: dict[bytes, bytes]) -> int:
    try:
        return int(headers.get(b"content-length", b"0"))
    except ValueError:
        return 0


def _limited(receive: Receive, limit: int) -> Receive:
    """``receive`` that counts the body as it streams in and stops past ``limit`` bytes,
    with or without a Content-Length: nothing beyond the limit is ever read or kept."""
    received = 0

    async def limited_receive() -> Message:
        nonlocal received
        message = await receive()
        if message["type"] == "http.request":
            received += len(message.get("body", b""))
            if received > limit:
                raise BodyTooLarge(limit)
        return message

    return limited_receive


def too_large_error(limit: int) -> AppError:
    return AppError(_("This request is too large: at most %(n)s MiB.", n=mebibytes(limit)),
                    code="too_large").with_status(413)
