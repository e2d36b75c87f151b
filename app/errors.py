"""One error tree for the application layer.

Services raise these; the JSON API renders them as ``{"error": {"code", "message",
"field"?}}`` and the HTML pages show ``message`` next to the field. Messages are
lazy-translated strings, so they reach each user in their own language.
"""

from __future__ import annotations

from typing import Any

from app.i18n import LazyText
from app.i18n import lazy_gettext as _l


class AppError(Exception):
    status = 400
    code = "bad_request"

    def __init__(self, message: LazyText | str, *, field: str | None = None,
                 code: str | None = None, details: dict[str, Any] | None = None,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(str(message))
        self.message = message
        self.field = field
        self.details = details or {}
        # Sent with the error's response (``Retry-After`` on a 429 or a 503).
        self.headers = headers or {}
        if code:
            self.code = code

    def with_status(self, status: int) -> AppError:
        self.status = status
        return self

    def to_dict(self) -> dict[str, Any]:
        body: dict[str, Any] = {"code": self.code, "message": str(self.message)}
        if self.field:
            body["field"] = self.field
        if self.details:
            body["details"] = self.details
        return {"error": body}


class ValidationFailed(AppError):
    status = 422
    code = "invalid"


class NotAuthenticated(AppError):
    status = 401
    code = "not_authenticated"

    def __init__(self) -> None:
        super().__init__(_l("Please log in to continue."))


class Forbidden(AppError):
    status = 403
    code = "forbidden"

    def __init__(self, message: LazyText | str | None = None) -> None:
        super().__init__(message or _l("You are not allowed to do this."))


class NotFound(AppError):
    status = 404
    code = "not_found"

    def __init__(self, message: LazyText | str | None = None) -> None:
        super().__init__(message or _l("Not found."))


class Conflict(AppError):
    status = 409
    code = "conflict"


class StaleVersion(Conflict):
    """Someone saved the object after the version this edit was based on."""

    code = "stale_version"

    def __init__(self, current: dict[str, Any]) -> None:
        super().__init__(
            _l("Someone else saved this in the meantime. Their version is shown; "
               "your text is kept in the form."),
            details={"current": current},
        )


class CampaignArchived(AppError):
    status = 409
    code = "archived"

    def __init__(self) -> None:
        super().__init__(_l("This campaign is archived and read-only."))


class TooManyAttempts(AppError):
    status = 429
    code = "rate_limited"

    def __init__(self, retry_after: int) -> None:
        super().__init__(_l("Too many attempts. Try again in %(n)s seconds.", n=retry_after),
                         details={"retry_after": retry_after},
                         headers={"Retry-After": str(retry_after)})


class CsrfFailed(AppError):
    status = 403
    code = "csrf"

    def __init__(self) -> None:
        super().__init__(_l("Your form has expired. Reload the page and try again."))


class Unavailable(AppError):
    """The database is busy (another writer holds it past the wait) or out of reach for a
    moment: nothing was done; the same request can simply be sent again."""

    status = 503
    code = "unavailable"
    retry_after = 2

    def __init__(self) -> None:
        super().__init__(_l("The table is busy for a moment; nothing was changed. Try again in "
                            "a few seconds."), headers={"Retry-After": str(self.retry_after)})
