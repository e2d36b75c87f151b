"""API: accounts and API sessions (bearer tokens)."""

from __future__ import annotations

from datetime import datetime

from fastapi import Request, Response
from pydantic import Field

from app.api.schemas import Model, error_responses, text
from app.http.deps import (
    CurrentUser,
    DbSession,
    SettingsDep,
    ViewerDep,
    api_router,
    client_address,
)
from app.services import accounts

router = api_router("accounts")


class RegisterIn(Model):
    username: str = Field(max_length=200)
    password: str = Field(max_length=1000)
    display_name: str = text(default="", max_length=200, required=False)
    locale: str | None = Field(default=None, max_length=8)
    invite: str | None = Field(default=None, max_length=100,
                               description="the token of an invitation link (needed on an "
                                           "invitation-only instance)")


class LoginIn(Model):
    username: str = Field(max_length=200)
    password: str = Field(max_length=1000)


class UserOut(Model):
    id: int
    username: str
    display_name: str
    locale: str | None
    is_admin: bool
    created_at: datetime


class TokenOut(Model):
    token: str
    token_type: str = "bearer"  # noqa: S105 — the scheme's name, not a secret
    user: UserOut


class PreferencesIn(Model):
    display_name: str | None = text(default=None, max_length=200, required=False)
    locale: str | None = Field(default=None, max_length=8)


class PasswordIn(Model):
    current_password: str = Field(max_length=1000)
    new_password: str = Field(max_length=1000)


@router.post("/auth/register", status_code=201, response_model=UserOut,
             responses=error_responses(429))
def register(body: RegisterIn, request: Request, db: DbSession, settings: SettingsDep,
             viewer: ViewerDep):
    """Create an account (log in afterwards with ``/auth/login``). On an invitation-only
    instance, send the token of a live invitation link as ``invite`` (else 403); limited per
    address (429 with ``Retry-After``)."""
    return accounts.register(db=db, settings=settings, username=body.username,
                             password=body.password, display_name=body.display_name,
                             locale=body.locale, address=client_address(request),
                             invite_token=body.invite)


@router.post("/auth/login", response_model=TokenOut, responses=error_responses(429))
def login(body: LoginIn, request: Request, db: DbSession, settings: SettingsDep,
          viewer: ViewerDep):
    """Open a session; send its token as ``Authorization: Bearer <token>``."""
    result = accounts.login(db=db, settings=settings, username=body.username,
                            password=body.password, address=client_address(request))
    return TokenOut(token=result.token, user=UserOut.model_validate(result.user))


@router.post("/auth/logout", status_code=204, responses=error_responses())
def logout(db: DbSession, viewer: ViewerDep, user: CurrentUser) -> Response:
    """End the session this request was made with."""
    if viewer.session_token:
        accounts.logout(db=db, token=viewer.session_token)
    return Response(status_code=204)


@router.get("/me", response_model=UserOut, responses=error_responses())
def me(user: CurrentUser):
    return user


@router.patch("/me", response_model=UserOut, responses=error_responses())
def update_me(body: PreferencesIn, db: DbSession, user: CurrentUser):
    return accounts.update_preferences(db=db, user=user, display_name=body.display_name,
                                       locale=body.locale)


@router.post("/me/password", response_model=TokenOut, responses=error_responses())
def change_password(body: PasswordIn, db: DbSession, settings: SettingsDep, viewer: ViewerDep,
                    user: CurrentUser):
    """Change the password; every session ends and a new token is returned."""
    token = accounts.change_password(db=db, settings=settings, user=user,
                                     current=body.current_password, new=body.new_password,
                                     keep_token=viewer.session_token)
    return TokenOut(token=token, user=UserOut.model_validate(user))
