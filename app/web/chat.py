"""Pages: the campaign's chat — its page, the panel the table includes, posting, live stream.

One template, ``chat/_message.html``, draws a message for one reader: the panel includes it
for each message, and the live stream renders it alone. Which messages a viewer reads is
decided in the query (``chat.messages_for``), so a whisper never reaches a template for
anyone else.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Form, Query, Request
from starlette.responses import Response

from app.errors import ValidationFailed
from app.http import streams
from app.http.deps import (
    MAX_ID,
    DbSession,
    MemberAccess,
    SettingsDep,
    TableDice,
    csrf_token_for,
    page_router,
)
from app.http.streams import Item
from app.models import ChatMessage
from app.services import chat, rolls
from app.services.access import CampaignAccess
from app.services.match_publish import publish_chat, publish_roll
from app.web.forms import field_errors, see_other
from app.web.templating import render, templates

router = page_router()

BASE = "/campaigns/{campaign_id}/chat"
FormText = Annotated[str, Form()]
STREAM_PAGE = 50


def message_context(access: CampaignAccess) -> dict[str, Any]:
    """What ``chat/_message.html`` needs besides the message: plain values and functions,
    safe to keep in a stream after the request's session is gone."""
    return {"viewer_id": access.user.id, "chat_sender": chat.sender_name,
            "chat_to": chat.audience_label, "die_flags": rolls.die_flags,
            "signed": rolls.signed}


def render_message(message: ChatMessage, context: dict[str, Any]) -> str:
    return templates.env.get_template("chat/_message.html").render(
        {**context, "message": message})


def panel_context(request: Request, db: DbSession, access: CampaignAccess, *,
                  match_id: int | None = None, form: dict[str, str] | None = None,
                  errors: dict[str, str] | None = None) -> dict[str, Any]:
    page = chat.page_for(db=db, access=access)
    return {**message_context(access), "csrf_token": csrf_token_for(request), "chat": {
        "campaign_id": access.campaign.id, "match_id": match_id, "messages": page.messages,
        "has_more": page.has_more,
        "stream_after": page.messages[-1].id if page.messages else 0,
        "writable": not access.campaign.archived,
        "addressees": chat.addressees(db=db, access=access),
        "form": form or {"body": "", "to": "table"}, "errors": errors or {}}}


@router.get(BASE)
def chat_page(request: Request, db: DbSession, access: MemberAccess) -> Response:
    return render(request, "chat/page.html", {
        "access": access, "campaign": access.campaign, **panel_context(request, db, access)})


@router.get(BASE + "/panel")
def chat_panel(request: Request, db: DbSession, access: MemberAccess,
               match_id: Annotated[int | None, Query(ge=1, le=MAX_ID)] = None) -> Response:
    """The panel alone, for the play page's lazy include (``matches/_chat.html``)."""
    return render(request, "chat/_panel.html", panel_context(request, db, access,
                                                             match_id=match_id))


@router.post(BASE)
def post_message(request: Request, db: DbSession, settings: SettingsDep, access: MemberAccess,
                 dice: TableDice, body: FormText = "", to: FormText = "table",
                 match_id: FormText = "") -> Response:
    """Send a message. For htmx, the answer is the form again (empty, or with the error):
    the message itself reaches every reader, the sender included, through the stream."""
    htmx = request.headers.get("hx-request") == "true" and not request.headers.get(
        "hx-boosted")
    try:
        message = chat.send(db=db, secret=settings.resolved_secret_key, access=access,
                            body=body, to=to, match_id=match_id or None, dice=dice)
    except ValidationFailed as error:
        context = panel_context(request, db, access, match_id=_int(match_id),
                                form={"body": body, "to": to}, errors=field_errors(error))
        if htmx:
            return render(request, "chat/_form.html", context, status_code=error.status)
        return render(request, "chat/page.html", {"access": access,
                                                  "campaign": access.campaign, **context},
                      status_code=error.status)
    broker = request.app.state.broker
    publish_chat(broker, access.campaign.id, message.id)
    if message.roll_id is not None:
        publish_roll(broker, access.campaign.id, message.roll_id)
    if htmx:
        context = panel_context(request, db, access, match_id=message.match_id,
                                form={"body": "", "to": to})
        return render(request, "chat/_form.html", context)
    return see_other(f"/campaigns/{access.campaign.id}/chat#chat-{message.id}")


def _int(value: str) -> int | None:
    return int(value) if value.isascii() and value.isdigit() and len(value) < 10 else None


@router.get(BASE + "/stream")
def chat_stream(request: Request, db: DbSession, access: MemberAccess) -> Response:
    """New messages this viewer may read, as Server-Sent Events (``chat``), each drawn for
    them; resumes after ``Last-Event-ID`` (or ``?after=``)."""
    context = message_context(access)
    return streams.chat_stream(
        request, db, access, page_size=STREAM_PAGE,
        as_item=lambda message: Item(message.id, "chat", render_message(message, context)))
