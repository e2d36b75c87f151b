"""Pages: home, the games, language switch, API docs, the favicon."""

from __future__ import annotations

from typing import Annotated

from fastapi import Form, Path, Request
from starlette.responses import FileResponse, Response

from app.errors import NotFound
from app.http.deps import DbSession, SettingsDep, ViewerDep, page_router
from app.i18n import SUPPORTED_LOCALES
from app.rules.registry import get_system
from app.services import accounts
from app.web.cookies import set_locale_cookie
from app.web.forms import safe_next, see_other
from app.web.templating import STATIC_DIR, render

router = page_router()


@router.get("/")
def home(request: Request, viewer: ViewerDep) -> Response:
    if viewer.user:
        return see_other("/campaigns")
    return render(request, "home.html")


@router.get("/games/{key}")
def game_page(request: Request, key: Annotated[str, Path(max_length=32)]) -> Response:
    """What a game is, for anyone: its name, whether it plays on a board, and its catalogue
    (the compendium without any campaign's additions)."""
    system = get_system(key)
    if system is None:
        raise NotFound()
    own = getattr(system, "compendium", None)
    return render(request, "game.html", {
        "system": system, "sections": own({}) if own else [],
        "kinds": system.content_kinds})


@router.post("/language")
def switch_language(db: DbSession, settings: SettingsDep, viewer: ViewerDep,
                    locale: Annotated[str, Form()] = "fr",
                    next: Annotated[str, Form()] = "/") -> Response:
    """Switch the interface language; remembered on the account and in a cookie."""
    chosen = locale if locale in SUPPORTED_LOCALES else "fr"
    if viewer.user:
        accounts.update_preferences(db=db, user=viewer.user, locale=chosen)
    response = see_other(safe_next(next))
    set_locale_cookie(response, settings, chosen)
    return response


@router.get("/docs", include_in_schema=False)
def api_docs(request: Request, viewer: ViewerDep) -> Response:
    return render(request, "api_docs.html")



@router.get("/favicon.ico", include_in_schema=False)
def favicon() -> Response:
    """The page icon where browsers and feed readers look without reading the page's
    ``<link rel="icon">`` (a JSON page, /docs' assets): no 404 in their console."""
    return FileResponse(STATIC_DIR / "favicon.svg", media_type="image/svg+xml",
                        headers={"Cache-Control": "public, max-age=86400"})
