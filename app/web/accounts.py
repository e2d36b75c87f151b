"""Pages: register, log in, log out, my account."""

from __future__ import annotations

import re
from typing import Annotated

from fastapi import Form, Request
from starlette.responses import Response

from app.errors import AppError
from app.http.deps import (
    CurrentUser,
    DbSession,
    SettingsDep,
    ViewerDep,
    client_address,
    page_router,
)
from app.i18n import get_locale
from app.services import accounts, instance, invites
from app.web.cookies import clear_session_cookie, set_locale_cookie, set_session_cookie
from app.web.forms import field_errors, safe_next, see_other
from app.web.templating import render

router = page_router()
FormText = Annotated[str, Form()]


def invite_in(next_path: str) -> str | None:
    """The invitation token when registering on the way to an invitation link."""
    match = re.fullmatch(r"/invite/([A-Za-z0-9_\-]{1,100})", next_path or "")
    return match.group(1) if match else None


@router.get("/register")
def register_page(request: Request, db: DbSession, viewer: ViewerDep,
                  next: str = "") -> Response:
    closed = instance.invitation_only(db) and not invites.usable_token(
        db=db, token=invite_in(next))
    return render(request, "accounts/register.html", {"next": safe_next(next, ""),
                                                      "closed": closed})


@router.post("/register")
def register(request: Request, db: DbSession, settings: SettingsDep, viewer: ViewerDep,
             username: FormText = "", password: FormText = "", display_name: FormText = "",
             next: FormText = "") -> Response:
    try:
        accounts.register(db=db, settings=settings, username=username, password=password,
                          display_name=display_name, locale=get_locale(),
                          address=client_address(request),
                          invite_token=invite_in(next))
        result = accounts.login(db=db, settings=settings, username=username, password=password,
                                address=client_address(request))
    except AppError as error:
        refused = render(request, "accounts/register.html",
                         {"errors": field_errors(error), "next": safe_next(next, ""),
                          "form": {"username": username, "display_name": display_name}},
                         status_code=error.status)
        refused.headers.update(error.headers)  # Retry-After
        return refused
    response = see_other(safe_next(next, "/campaigns"))
    set_session_cookie(response, settings, result.token)
    return response


@router.get("/login")
def login_page(request: Request, viewer: ViewerDep, next: str = "") -> Response:
    return render(request, "accounts/login.html", {"next": safe_next(next, "")})


@router.post("/login")
def login(request: Request, db: DbSession, settings: SettingsDep, viewer: ViewerDep,
          username: FormText = "", password: FormText = "", next: FormText = "") -> Response:
    try:
        result = accounts.login(db=db, settings=settings, username=username, password=password,
                                address=client_address(request))
    except AppError as error:
        refused = render(request, "accounts/login.html",
                         {"errors": field_errors(error), "next": safe_next(next, ""),
                          "form": {"username": username}}, status_code=error.status)
        refused.headers.update(error.headers)  # Retry-After
        return refused
    if viewer.session_token and not viewer.via_bearer:
        accounts.logout(db=db, token=viewer.session_token)
    response = see_other(safe_next(next, "/campaigns"))
    set_session_cookie(response, settings, result.token)
    return response


@router.post("/logout")
def logout(db: DbSession, settings: SettingsDep, viewer: ViewerDep) -> Response:
    if viewer.session_token:
        accounts.logout(db=db, token=viewer.session_token)
    response = see_other("/login")
    clear_session_cookie(response, settings)
    return response


@router.get("/account")
def account_page(request: Request, user: CurrentUser) -> Response:
    return render(request, "accounts/account.html")


@router.post("/account")
def update_account(request: Request, db: DbSession, settings: SettingsDep, user: CurrentUser,
                   display_name: FormText = "", locale: FormText = "") -> Response:
    try:
        accounts.update_preferences(db=db, user=user, display_name=display_name, locale=locale)
    except AppError as error:
        return render(request, "accounts/account.html", {"errors": field_errors(error)},
                      status_code=error.status)
    response = see_other("/account?saved=1")
    if locale:
        set_locale_cookie(response, settings, locale)
    return response


@router.post("/account/password")
def change_password(request: Request, db: DbSession, settings: SettingsDep,
                    viewer: ViewerDep, user: CurrentUser, current_password: FormText = "",
                    new_password: FormText = "") -> Response:
    try:
        token = accounts.change_password(db=db, settings=settings, user=user,
                                         current=current_password, new=new_password,
                                         keep_token=viewer.session_token)
    except AppError as error:
        return render(request, "accounts/account.html", {"errors": field_errors(error)},
                      status_code=error.status)
    response = see_other("/account?password_changed=1")
    set_session_cookie(response, settings, token)
    return response



