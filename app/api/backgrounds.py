"""API: the GM's map under a match's board — upload, switch back to one the match used,
clear — and the pictures themselves (app/services/board_backgrounds.py, as the table page).

A new picture is decoded and re-encoded like a portrait (PNG, JPEG, WebP or GIF; metadata
removed); its scale is a number of pixels per ``cm``, ``in`` (inch) or ``sq`` (square, only
on a board of squares). Each change is a ``board_background`` event of the match's log (undone
and replayed like any event), answered as an action is: the new ``seq`` and the events. Only
the GM changes the map (403 for anyone else); bad input answers 400 (or 413 for a picture
too large) and changes nothing.
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import File, Form, Query, Request, UploadFile
from fastapi.responses import Response
from pydantic import Field

from app.api.campaigns import MAX_ID
from app.api.matches import ONE, ActionOut, MatchId, _answer, _viewer
from app.api.schemas import Model, error_responses
from app.http.deps import DbSession, IdParam, MemberAccess, SettingsDep, api_router
from app.http.uploads import image_response, read_upload
from app.rules import map_view
from app.services import board_backgrounds, map_pictures, tables

router = api_router("matches")

BACKGROUND = ONE + "/background"
Unit = Literal["cm", "in", "sq"]
Pixels = Annotated[float, Field(ge=0.1, le=board_backgrounds.MAX_PIXELS_PER_UNIT,
                                description="Pixels of the picture per ``per``.")]


class BackgroundOut(Model):
    current: dict[str, object] | None = Field(
        description="The picture under the board now (``image_id``, its ``url``, ``width`` "
                    "and ``height`` in the board's unit, the scale ``pixels`` per ``per``), "
                    "or null.")
    used: list[int] = Field(description="Ids of the pictures this match has used, oldest "
                                        "first (the GM may switch back to any).")


class SwitchIn(Model):
    image_id: int = Field(ge=1, le=MAX_ID, description="One of ``used``.")
    pixels: Pixels
    per: Unit


def _image_url(campaign_id: int, image_id: int) -> str:
    return f"/api/v1/campaigns/{campaign_id}/images/{image_id}"


@router.get(BACKGROUND, response_model=BackgroundOut, responses=error_responses(404))
def get_background(db: DbSession, access: MemberAccess, match_id: MatchId) -> BackgroundOut:
    """The map under the board (every member: a player's ``url`` is the picture with the fog
    of war painted on, ``…/map``); the pictures used before (listed for the GM)."""
    match = tables.get_match(db, access, match_id)
    board = (match.state or {}).get("board")
    current = dict(board["background"]) if isinstance(board, dict) and isinstance(
        board.get("background"), dict) else None
    if current is not None and access.is_gm:
        current["url"] = _image_url(access.campaign.id, current["image_id"])
    elif current is not None:
        version = map_view.picture_version(board["background"], board.get("fog"))
        current["url"] = (f"/api/v1/campaigns/{access.campaign.id}/matches/{match.id}/map"
                          f"?v={version}")
    used = board_backgrounds.background_images(db, match.id) if access.is_gm else []
    return BackgroundOut(current=current, used=used)


@router.put(BACKGROUND, response_model=ActionOut, responses=error_responses(404, 409, 413))
def put_background(request: Request, db: DbSession, settings: SettingsDep,
                   access: MemberAccess, match_id: MatchId,
                   file: Annotated[UploadFile, File(description="The map picture.")],
                   pixels: Annotated[float, Form(ge=0.1, le=board_backgrounds.MAX_PIXELS_PER_UNIT,
                                                 description="Pixels per ``per``.")],
                   per: Annotated[Unit, Form()]) -> ActionOut:
    """GM: upload a new map picture (multipart: ``file``, ``pixels``, ``per``)."""
    access.require_gm()
    viewer = _viewer(access)
    outcome = board_backgrounds.set_background(
        db=db, secret=settings.resolved_secret_key, access=access, match_id=match_id,
        data=read_upload(file, settings.max_portrait_bytes), pixels=pixels, per=per,
        max_bytes=settings.max_portrait_bytes)
    return _answer(request, viewer, outcome)


@router.post(BACKGROUND + "/switch", response_model=ActionOut,
             responses=error_responses(404, 409))
def switch_background(body: SwitchIn, request: Request, db: DbSession,
                      settings: SettingsDep, access: MemberAccess,
                      match_id: MatchId) -> ActionOut:
    """GM: put back a picture this match used before, at the scale given."""
    access.require_gm()
    viewer = _viewer(access)
    outcome = board_backgrounds.set_background(
        db=db, secret=settings.resolved_secret_key, access=access, match_id=match_id,
        reuse=str(body.image_id), pixels=body.pixels, per=body.per,
        max_bytes=settings.max_portrait_bytes)
    return _answer(request, viewer, outcome)


@router.delete(BACKGROUND, response_model=ActionOut, responses=error_responses(404, 409))
def clear_background(request: Request, db: DbSession, settings: SettingsDep,
                     access: MemberAccess, match_id: MatchId) -> ActionOut:
    """GM: take the map from under the board (the pictures stay, to switch back)."""
    access.require_gm()
    viewer = _viewer(access)
    outcome = board_backgrounds.set_background(
        db=db, secret=settings.resolved_secret_key, access=access, match_id=match_id,
        remove=True, max_bytes=settings.max_portrait_bytes)
    return _answer(request, viewer, outcome)


_IMAGE = {"schema": {"type": "string", "format": "binary"}}


@router.get(ONE + "/map", response_class=Response,
            responses={200: {"description": "The picture under the board as you may see it",
                             "content": {"image/png": _IMAGE, "image/jpeg": _IMAGE}},
                       304: {"description": "Not modified (If-None-Match)"},
                       **error_responses(404)})
def get_map_picture(request: Request, db: DbSession, access: MemberAccess, match_id: MatchId,
                    step: Annotated[int | None, Query(ge=1, le=MAX_ID, description=(
                        "As it was after this event (the replay)."))] = None,
                    v: Annotated[str | None, Query(max_length=40, description=(
                        "Names the version only (for caches)."))] = None):
    """The picture under the board: the GM's whole; a player's with the hidden ground of the
    fog of war painted over, so none of it is sent (404 without a picture)."""
    return image_response(request, map_pictures.map_picture(db, access, match_id, step))


@router.get("/campaigns/{campaign_id}/images/{image_id}", response_class=Response,
            responses={200: {"description": "The picture",
                             "content": {"image/png": _IMAGE, "image/jpeg": _IMAGE}},
                       304: {"description": "Not modified (If-None-Match)"},
                       **error_responses(404)})
def get_image(request: Request, db: DbSession, access: MemberAccess, image_id: IdParam):
    """A map picture a match of this campaign has used (members only)."""
    return image_response(request, board_backgrounds.campaign_image(db, access, image_id))
