"""Pure ASGI middleware: security headers, the anonymous cookie, the default language.

Written as plain ASGI (not ``BaseHTTPMiddleware``) so Server-Sent Event streams pass
through untouched.
"""

from __future__ import annotations

import secrets
from http.cookies import SimpleCookie

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.config import Settings
from app.i18n import LOCALE_COOKIE, choose_locale, set_locale

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


class WebMiddleware:
    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.settings = settings
        # The largest request anyone needs: a campaign import, plus room for the form.
        self.max_body = settings.max_import_bytes + 1024 * 1024

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        cookies = _cookies(scope)
        headers = dict(scope.get("headers") or [])
        if _declared_length(headers) > self.max_body:
            await _too_large(send)
            return
        set_locale(choose_locale(None, cookies.get(LOCALE_COOKIE),
                                 headers.get(b"accept-language", b"").decode("latin-1")))
        anon_name = self.settings.anon_cookie_name
        anon_id = cookies.get(anon_name)
        new_anon = anon_id is None or len(anon_id) < 20
        if new_anon:
            anon_id = secrets.token_urlsafe(24)
        scope.setdefault("state", {})["anon_id"] = anon_id

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                response_headers = MutableHeaders(scope=message)
                self._add_security_headers(response_headers)
                if new_anon:
                    response_headers.append("set-cookie", self._anon_cookie(anon_name, anon_id))
            await send(message)

        await self.app(scope, receive, send_with_headers)

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


def _declared_length(headers: dict[bytes, bytes]) -> int:
    try:
        return int(headers.get(b"content-length", b"0"))
    except ValueError:
        return 0


async def _too_large(send: Send) -> None:
    """Refuse an oversized body before anything reads it."""
    body = b'{"error": {"code": "too_large", "message": "Request too large."}}'
    await send({"type": "http.response.start", "status": 413,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
