"""Request dependencies shared by the HTML pages and the JSON API.

Both routers (``app.web`` and ``app.api``) stand on this package; neither imports the other.

``Annotated`` aliases keep the route signatures short: ``db: DbSession``, ``viewer: ViewerDep``,
``access: MemberAccess``… Every route that touches a campaign goes through
``campaign_access``: outsiders get 404 (no hint that the campaign exists), members
without the right role get 403.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Coroutine
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Request, params
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
from sqlalchemy.orm import Session
from starlette.responses import Response

from app import auth, telemetry
from app.config import Settings
from app.db import run_db
from app.errors import CsrfFailed, NotAuthenticated, ValidationFailed
from app.http import json_body
from app.i18n import LOCALE_COOKIE, choose_locale, set_locale
from app.i18n import lazy_gettext as _l
from app.models import User
from app.rules.dice import Dice, SystemDice
from app.services import instance
from app.services.access import CampaignAccess, load_campaign_access, read_member_session

UNSAFE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}
CSRF_HEADER = "X-CSRF-Token"
CSRF_FIELD = "csrf_token"


# Dependencies that do no I/O are ``async def``: FastAPI runs a plain ``def`` dependency in
# the thread pool, and each such hop costs more than the work (see docs/benchmarks.md).

async def get_settings(request: Request) -> Settings:
    return request.app.state.settings


async def get_db(request: Request) -> AsyncIterator[Session]:
    """A session per request. Opening one does no I/O; closing one does only if it still
    holds a connection (a read transaction left open), and then through ``run_db``."""
    sessions = request.app.state.sessionmaker
    session = sessions()
    try:
        yield session
    finally:
        if session.in_transaction():
            await run_db(sessions, session.close)
        else:
            session.close()


DbSession = Annotated[Session, Depends(get_db)]
SettingsDep = Annotated[Settings, Depends(get_settings)]


@dataclass
class Viewer:
    """Who is asking: a user (or nobody), and how they proved it."""

    user: User | None
    session_token: str | None = None
    via_bearer: bool = False
    anon_id: str | None = None

    @property
    def csrf_binding(self) -> str | None:
        return self.session_token if self.user and not self.via_bearer else self.anon_id


def _presented_token(request: Request, settings: Settings) -> tuple[str | None, bool]:
    header = request.headers.get("authorization", "")
    if header.lower().startswith("bearer "):
        return header[7:].strip() or None, True
    return request.cookies.get(settings.session_cookie_name), False


def _session_user(db: Session, token: str, settings: Settings) -> User | None:
    """The user of the session ``token`` names, detached (a service's rollback must not
    expire who is asking: error pages use it).

    A read transaction opened here ends here and its connection goes back to the pool: the
    request may wait for a thread before its next query, and when more requests than the
    pool has connections each held one meanwhile, the threads that needed one starved (a
    storm of streams reconnecting at once froze a worker; docs/benchmarks.md § Scale-out).
    Inside a transaction the caller opened (an action's write), it is the caller's."""
    opened_here = not db.in_transaction()
    record = auth.find_session(db, token, settings)
    user = record.user if record is not None else None
    if user is not None:
        db.expunge(user)
    if opened_here and db.in_transaction():
        db.rollback()
    return user


def load_viewer(db: Session, request: Request, settings: Settings) -> Viewer:
    """Who is asking, read from the database (blocking: through ``run_db`` in a coroutine)."""
    token, via_bearer = _presented_token(request, settings)
    user = _session_user(db, token, settings) if token else None
    return _viewer(request, user, token, via_bearer)


def _viewer(request: Request, user: User | None, token: str | None, via_bearer: bool) -> Viewer:
    """The viewer ``user`` (None: anonymous), proved by ``token`` if it named them."""
    return Viewer(user=user, session_token=token if user else None,
                  via_bearer=via_bearer and user is not None,
                  anon_id=getattr(request.state, "anon_id", None))


def load_member_viewer(db: Session, request: Request, settings: Settings,
                       campaign_id: int) -> tuple[Viewer, CampaignAccess | None]:
    """``load_viewer``, and the viewer's access to ``campaign_id`` when one statement could
    read both (a live session: the action route's usual case); None leaves that to
    ``load_campaign_access``. The access's objects are a snapshot, never to be written."""
    token, via_bearer = _presented_token(request, settings)
    found = read_member_session(db, token, campaign_id, settings) if token else None
    if found is None:
        return load_viewer(db, request, settings), None
    user, access = found
    return _viewer(request, user, token, via_bearer), access


def adopt_viewer(request: Request, viewer: Viewer) -> Viewer:
    """Make ``viewer`` the request's: its language from here on, its line in the log."""
    set_locale(choose_locale(viewer.user.locale if viewer.user else None,
                             request.cookies.get(LOCALE_COOKIE),
                             request.headers.get("accept-language")))
    request.state.viewer = viewer
    if viewer.user is not None:
        telemetry.note(user=viewer.user.id)  # for the request's log line
    return viewer


def known_viewer(request: Request) -> Viewer | None:
    """The viewer this request has already read, if any."""
    return getattr(request.state, "viewer", None)


async def current_viewer(request: Request, db: DbSession, settings: SettingsDep) -> Viewer:
    """Load the session (``run_db``) and set the request's language."""
    if (cached := known_viewer(request)) is not None:
        return cached
    if _presented_token(request, settings)[0] is None:
        return adopt_viewer(request, load_viewer(db, request, settings))  # no I/O
    return adopt_viewer(request, await run_db(request.app.state.sessionmaker, load_viewer, db,
                                              request, settings))


async def viewer_of(request: Request) -> Viewer:
    """``current_viewer`` outside of FastAPI's dependencies (with a session of its own): for
    the paths that need the viewer only sometimes (a failed CSRF proof, an error page)."""
    if (cached := known_viewer(request)) is not None:
        return cached
    db = request.app.state.sessionmaker()
    try:
        return await current_viewer(request, db, request.app.state.settings)
    finally:
        db.close()  # no I/O: ``load_viewer`` ended its read transaction


ViewerDep = Annotated[Viewer, Depends(current_viewer)]


async def verify_csrf(request: Request, settings: SettingsDep) -> None:
    """Every unsafe request proves it came from our own page (forms, htmx, fetch).

    Exempt: bearer-token API clients (browsers never attach that header on their own, so
    nothing ambient is forged) and API calls that carry no session at all — with no ambient
    authority there is nothing to forge, and the API's login answers with a token, never a
    cookie. A header that proves the presented session cookie needs no database read (the
    hottest routes skip it); only the other cases look up who is asking.
    """
    if request.method not in UNSAFE_METHODS:
        return
    token, via_bearer = _presented_token(request, settings)
    if via_bearer:
        return
    secret = settings.resolved_secret_key
    if token and auth.csrf_valid(secret, token, request.headers.get(CSRF_HEADER)):
        return
    viewer = await viewer_of(request)
    if request.url.path.startswith("/api/") and viewer.user is None:
        return
    binding = viewer.csrf_binding
    if auth.csrf_valid(secret, binding, request.headers.get(CSRF_HEADER)):
        return
    # A form carries its own token too; it wins when a header set by an older page is stale.
    if request.headers.get("content-type", "").startswith(
            ("application/x-www-form-urlencoded", "multipart/form-data")):
        form = await request.form()
        value = form.get(CSRF_FIELD)
        if isinstance(value, str) and auth.csrf_valid(secret, binding, value):
            return
    raise CsrfFailed()


def client_address(request: Request) -> str | None:
    """Who connects: the peer, or the client a trusted proxy names (``TABLEE_TRUSTED_PROXIES``
    installs uvicorn's proxy-headers middleware, which rewrites the peer)."""
    return request.client.host if request.client else None


def csrf_token_for(request: Request) -> str:
    viewer: Viewer | None = getattr(request.state, "viewer", None)
    binding = viewer.csrf_binding if viewer else getattr(request.state, "anon_id", None)
    return auth.csrf_token(request.app.state.settings.resolved_secret_key, binding or "")


async def require_user(viewer: ViewerDep) -> User:
    if viewer.user is None:
        raise NotAuthenticated()
    return viewer.user


CurrentUser = Annotated[User, Depends(require_user)]


async def admin_user(user: CurrentUser) -> User:
    """The logged-in instance admin; anyone else gets 403 (anonymous: 401)."""
    return instance.require_admin(user)


AdminUser = Annotated[User, Depends(admin_user)]


# Ids are 32-bit integers on PostgreSQL: a larger one cannot name anything.
MAX_ID = 2_147_483_647
IdParam = Annotated[int, Path(ge=1, le=MAX_ID)]


def dice_for(request: Request) -> Dice:
    """The dice the server rolls with: fair and unpredictable, unless a test put its own in
    ``app.state.dice``."""
    scripted = getattr(request.app.state, "dice", None)
    return scripted if scripted is not None else SystemDice()


async def table_dice(request: Request) -> Dice:
    return dice_for(request)


TableDice = Annotated[Dice, Depends(table_dice)]


def campaign_access(campaign_id: IdParam, db: DbSession, user: CurrentUser) -> CampaignAccess:
    return load_campaign_access(db, user, campaign_id)


MemberAccess = Annotated[CampaignAccess, Depends(campaign_access)]


API_PREFIX = "/api/v1"


class JsonBodyRoute(APIRoute):
    """Every router's route class: a JSON body is read by ``app.http.json_body`` (UTF-8,
    nested at most ``MAX_DEPTH`` deep) before FastAPI's handler asks for it, and one that
    cannot be read is refused here in the caller's language — after a 401 for an anonymous
    caller where the route needs a login, as for any other bad body."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        declared = super().get_route_handler()
        if self.body_field is None or isinstance(self.body_field.field_info, params.Form):
            return declared  # FastAPI never reads this route's body as JSON
        strict = bool(getattr(self.strict_content_type, "value", self.strict_content_type))
        needs_user = _depends_on(self.dependant, require_user)

        async def handler(request: Request) -> Response:
            if json_body.expected(request, strict=strict) and await request.body():
                body = await json_body.read(request)
                if isinstance(body, json_body.Unreadable):
                    await _refuse_unreadable(request, body, needs_user=needs_user)
            return await declared(request)

        return handler


def _depends_on(dependant: Dependant, call: Callable[..., Any]) -> bool:
    return any(sub.call is call or _depends_on(sub, call) for sub in dependant.dependencies)


async def _refuse_unreadable(request: Request, body: json_body.Unreadable, *,
                             needs_user: bool) -> None:
    viewer = await viewer_of(request)  # the caller's language, and whether they logged in
    if needs_user and viewer.user is None:
        raise NotAuthenticated()
    raise ValidationFailed(_l(body.reason, max=json_body.MAX_DEPTH), code="invalid_input")


def protected_router(**kwargs) -> APIRouter:
    """A router whose unsafe requests all pass the CSRF check, and whose JSON bodies are
    read by ``JsonBodyRoute``."""
    return APIRouter(dependencies=[Depends(verify_csrf)], route_class=JsonBodyRoute, **kwargs)


def api_router(tag: str) -> APIRouter:
    """The JSON API's routes for one resource, under ``/api/v1`` and in its schema.

    Each route carries its whole path from the start: the app takes the routes as they
    are (``app.main._include_routers``)."""
    return protected_router(prefix=API_PREFIX, tags=[tag])


def page_router() -> APIRouter:
    """The pages' routes for one resource: not part of the API's schema."""
    return protected_router(include_in_schema=False)
