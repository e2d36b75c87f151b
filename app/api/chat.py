"""API: the campaign's chat — messages, whispers, inline rolls, and its live stream.

Same service and rules as the pages (``app.services.chat``): a whisper is read by its sender
and its recipient only (or the GM, for a whisper to the GM); a message you may not read is
never in any answer or stream. ``/r 2d6+1 # purpose`` rolls on the server into the signed
roll log; a bad expression answers 422 on ``body`` with ``details.position``.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from fastapi import Header, Query, Request
from pydantic import Field
from sse_starlette import EventSourceResponse

from app.api.schemas import Model, error_responses, text
from app.http import streams
from app.http.deps import (
    MAX_ID,
    DbSession,
    MemberAccess,
    SettingsDep,
    TableDice,
    api_router,
)
from app.http.streams import Item
from app.services import chat
from app.services.match_publish import publish_chat, publish_roll

router = api_router("chat")

BASE = "/campaigns/{campaign_id}/chat"
STREAM_EVENT = "chat-message"


class MessageIn(Model):
    body: str = text(max_length=chat.MAX_BODY, multiline=True, description=(
        "The message; `/r EXPRESSION` (or `/roll`) rolls dice on the server, e.g. "
        "`/r 4d6kh3 # Perception`."))
    to: Literal["table", "gm"] | int = Field(default="table", description=(
        "table: every member; gm: you and the GM; a member's user id: you and that member."))
    match_id: int | None = Field(default=None, ge=1, le=MAX_ID,
                                 description="The match the message is said at, if any.")


class ChatRollOut(Model):
    id: int
    expression: str
    purpose: str
    visibility: str
    total: int | None
    record: dict[str, Any]


class MessageOut(Model):
    id: int
    campaign_id: int
    match_id: int | None
    user_id: int | None
    user_name: str
    audience: str = Field(description="table, gm or member")
    recipient_id: int | None
    to: str | None = Field(description="Who else reads it, in your language (whispers).")
    body: str
    created_at: str
    roll: ChatRollOut | None


class MessagePageOut(Model):
    messages: list[MessageOut] = Field(description="Oldest first.")
    has_more: bool


@router.post(BASE, status_code=201, response_model=MessageOut, responses=error_responses(404, 409))
def post_message(body: MessageIn, request: Request, db: DbSession, settings: SettingsDep,
                 access: MemberAccess, dice: TableDice):
    """Say something to the table, the GM or one member (an inline roll is signed and logged)."""
    message = chat.send(db=db, secret=settings.resolved_secret_key, access=access,
                        body=body.body, to=body.to, match_id=body.match_id, dice=dice)
    broker = request.app.state.broker
    publish_chat(broker, access.campaign.id, message.id)
    if message.roll_id is not None:
        publish_roll(broker, access.campaign.id, message.roll_id)
    return chat.public_message(message, viewer_id=access.user.id)


@router.get(BASE, response_model=MessagePageOut, responses=error_responses(404))
def list_messages(db: DbSession, access: MemberAccess,
                  before_id: Annotated[int | None, Query(ge=1, le=MAX_ID)] = None,
                  after_id: Annotated[int | None, Query(ge=0, le=MAX_ID)] = None,
                  limit: Annotated[int, Query(ge=1, le=chat.MAX_PAGE)] = chat.PAGE_SIZE):
    """The messages you may read, oldest first: the newest page (``before_id`` for older),
    or those after ``after_id``."""
    page = chat.page_for(db=db, access=access, before_id=before_id, after_id=after_id,
                         limit=limit)
    return MessagePageOut(messages=[
        chat.public_message(message, viewer_id=access.user.id) for message in page.messages],
        has_more=page.has_more)


_STREAM_DOC = (
    "Server-Sent Events, one per message you may read: ``event: chat-message``, ``id:`` the "
    "message id, ``data:`` the message as JSON (as in the list). Reconnect with "
    "``Last-Event-ID`` (or ``?after=``) to receive every message after it.")


@router.get(BASE + "/stream", response_class=EventSourceResponse,
            responses={200: {"description": _STREAM_DOC,
                             "content": {"text/event-stream": {"schema": {"type": "string"}}}},
                       **error_responses(404)})
def chat_stream(request: Request, db: DbSession, access: MemberAccess,
                after: Annotated[int | None, Query(
                    ge=0, le=MAX_ID, description="Start after this message id.")] = None,
                last_event_id: Annotated[int | None, Header(
                    alias="Last-Event-ID", ge=0, le=MAX_ID,
                    description="Sent by EventSource on reconnection: resume after it.")
                ] = None) -> EventSourceResponse:
    """The chat, live, as you may read it."""
    viewer = access.user.id
    return streams.chat_stream(request, db, access, as_item=lambda message: Item(
        message.id, STREAM_EVENT,
        json.dumps(chat.public_message(message, viewer_id=viewer), ensure_ascii=False)))
