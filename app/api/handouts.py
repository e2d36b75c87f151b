"""API: handouts — a text, a picture or both the GM hands to everyone at a match's table or to
chosen members (``app/services/handouts.py``). To chosen members, nobody else learns it
exists: not in their answers, their log, their stream. The GM takes one back with the action
``handout_withdraw`` (``POST …/actions``)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import File, Form, Path, Request, UploadFile
from fastapi.responses import Response
from pydantic import Field

from app.api.matches import ONE, ActionOut, MatchId, _answer, _viewer
from app.api.schemas import Model, error_responses
from app.http.deps import DbSession, MemberAccess, SettingsDep, api_router
from app.http.uploads import image_response, read_upload
from app.services import handouts

router = api_router("matches")

HANDOUTS = ONE + "/handouts"
HandoutId = Annotated[str, Path(max_length=20)]


class HandoutOut(Model):
    id: str
    title: str
    text: str
    picture: str | None = Field(description="Its picture's address, if it has one.")
    user_ids: list[int] | None = Field(description="Who it goes to (null: everyone).")


def _out(campaign_id: int, match_id: int, handout: dict[str, Any]) -> HandoutOut:
    picture = (f"/api/v1/campaigns/{campaign_id}/matches/{match_id}/handouts/"
               f"{handout['id']}/picture") if handout.get("image_id") else None
    return HandoutOut(id=handout["id"], title=handout["title"], text=handout.get("text", ""),
                      picture=picture, user_ids=handout.get("user_ids"))


@router.get(HANDOUTS, response_model=list[HandoutOut], responses=error_responses(404))
def list_handouts(db: DbSession, access: MemberAccess, match_id: MatchId) -> list[HandoutOut]:
    """The handouts you may read, oldest first (the GM: all of them, with their readers)."""
    return [_out(access.campaign.id, match_id, item)
            for item in handouts.shown(db, access, match_id)]


@router.post(HANDOUTS, response_model=ActionOut, responses=error_responses(404, 409, 413))
def share_handout(request: Request, db: DbSession, settings: SettingsDep, access: MemberAccess,
                  match_id: MatchId, title: Annotated[str, Form(max_length=200)],
                  text: Annotated[str, Form(max_length=6000)] = "",
                  to: Annotated[list[str] | None, Form(description=(
                      "Member ids it goes to (repeat the field); none, or « everyone »: "
                      "everyone at the table."))] = None,
                  file: Annotated[UploadFile | None, File(description="A picture.")] = None
                  ) -> ActionOut:
    """GM: hand out a text, a picture or both (multipart). Answered as an action is."""
    access.require_gm()
    viewer = _viewer(access)
    readers = None if not to or handouts.EVERYONE in to else to
    outcome = handouts.share(db=db, secret=settings.resolved_secret_key, access=access,
                             match_id=match_id, title=title, text=text, to=readers,
                             picture=read_upload(file, settings.max_portrait_bytes)
                             if file is not None else b"",
                             max_bytes=settings.max_portrait_bytes)
    return _answer(request, viewer, outcome)


_IMAGE = {"schema": {"type": "string", "format": "binary"}}


@router.get(HANDOUTS + "/{handout_id}/picture", response_class=Response,
            responses={200: {"description": "The picture",
                             "content": {"image/png": _IMAGE, "image/jpeg": _IMAGE}},
                       304: {"description": "Not modified (If-None-Match)"},
                       **error_responses(404)})
def handout_picture(request: Request, db: DbSession, access: MemberAccess, match_id: MatchId,
                    handout_id: HandoutId):
    """A handout's picture, for the GM and its readers while it is out."""
    return image_response(request, handouts.picture(db, access, match_id, handout_id))
