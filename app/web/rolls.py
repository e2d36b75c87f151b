"""Pages: the campaign's roll log and the free roller, its live stream, corrections, export.

One template, ``rolls/_entry.html``, draws a log entry for one viewer: the page includes it
for each entry, and the live stream renders it alone for each new roll, so what a viewer may
not see is left out in one place (``rolls.RollView.visible``) on both paths.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import Form, Query, Request
from starlette.responses import JSONResponse, PlainTextResponse, Response

from app.errors import AppError, ValidationFailed
from app.http.deps import (
    MAX_ID,
    DbSession,
    IdParam,
    MemberAccess,
    SettingsDep,
    TableDice,
    csrf_token_for,
    page_router,
)
from app.http.streams import Item, StreamSource, event_stream
from app.i18n import get_locale, set_locale
from app.i18n import gettext as _
from app.models import Role
from app.services import odds, rolls
from app.services.access import CampaignAccess
from app.services.match_publish import publish_roll
from app.web import odds_view
from app.web.forms import field_errors, see_other
from app.web.templating import render, templates

router = page_router()

BASE = "/campaigns/{campaign_id}/rolls"
RollId = IdParam
FormText = Annotated[str, Form()]
STREAM_PAGE = 50


def log_url(access: CampaignAccess) -> str:
    return f"/campaigns/{access.campaign.id}/rolls"


def entry_context(request: Request, access: CampaignAccess) -> dict[str, Any]:
    """What ``rolls/_entry.html`` needs besides the entry: plain values, safe to keep in a
    stream after the request's database session is gone."""
    return {"campaign_id": access.campaign.id, "viewer_id": access.user.id,
            "can_correct": access.is_gm and not access.campaign.archived,
            "csrf_token": csrf_token_for(request),
            "die_flags": rolls.die_flags, "signed": rolls.signed}


def render_entry(view: rolls.RollView, context: dict[str, Any]) -> str:
    return templates.env.get_template("rolls/_entry.html").render({**context, "view": view})


# — the page ——————————————————————————————————————————————————————————————————————

def _render_log(request: Request, db: DbSession, access: CampaignAccess, *,
                before_id: int | None = None, form: dict[str, str] | None = None,
                errors: dict[str, str] | None = None, position: int | None = None,
                correcting: dict[str, Any] | None = None, status_code: int = 200) -> Response:
    page = rolls.roll_page(db=db, access=access, before_id=before_id)
    return render(request, "rolls/log.html", {
        **entry_context(request, access),
        "access": access, "campaign": access.campaign, "page": page,
        "older_url": f"{log_url(access)}?before_id={page.entries[-1].roll.id}"
        if page.has_more else None,
        "live": before_id is None,
        "stream_after": page.newest_id or 0,
        "can_roll": access.role is not Role.SPECTATOR and not access.campaign.archived,
        "form": form or {"expression": "", "visibility": "public"},
        "comparison_words": comparison_words(),
        "errors": errors or {}, "position": position, "correcting": correcting or {},
    }, status_code=status_code)


@router.get(BASE)
def roll_log_page(request: Request, db: DbSession, access: MemberAccess,
                  before_id: Annotated[int | None, Query(ge=1, le=MAX_ID)] = None,
                  expression: Annotated[str, Query(max_length=rolls.MAX_EXPRESSION)] = ""
                  ) -> Response:
    """The log and the free roller; ``?expression=`` fills the roller (the chat's ``/r``
    links here to show a roll's odds)."""
    form = {"expression": expression, "visibility": "public"} if expression else None
    return _render_log(request, db, access, before_id=before_id, form=form)


def comparison_words() -> dict[str, str]:
    """How each comparison with a target reads, in words and in the notation's sign."""
    return {">=": _("at least (≥)"), "<=": _("at most (≤)"), "=": _("exactly (=)"),
            ">": _("more than (>)"), "<": _("less than (<)"), "!=": _("other than (≠)")}


@router.get(BASE + "/distribution")
async def distribution(request: Request, access: MemberAccess,
                       expression: Annotated[str, Query(max_length=1000)] = "",
                       target: Annotated[str, Query(max_length=20)] = "",
                       comparison: Annotated[str, Query(max_length=2)] = ">=",
                       slot: Annotated[str, Query(pattern=r"^[a-z-]{1,40}$")] =
                       "expression-odds-error") -> Response:
    """The exact distribution of a typed expression (htmx, while it is typed): its chart,
    table and figures, the chance to reach ``target``; a refusal goes under the field
    (``slot``, out of band) and changes nothing."""
    context: dict[str, Any] = {"slot": slot, "comparison_words": comparison_words()}
    if not expression.strip():  # nothing typed yet (the page opening): nothing to refuse
        return render(request, "odds/_distribution.html", context)
    try:
        asked = odds.read_request(expression, target, comparison)
        found = await odds.distribution(asked)
        context.update(odds_view.distribution_context(found, asked.comparison, asked.target))
    except AppError as error:
        context["error"] = str(error.message)
    return render(request, "odds/_distribution.html", context)


@router.post(BASE)
def free_roll(request: Request, db: DbSession, settings: SettingsDep, access: MemberAccess,
              dice: TableDice, expression: FormText = "",
              visibility: FormText = "public") -> Response:
    try:
        roll = rolls.free_roll(db=db, secret=settings.resolved_secret_key, access=access,
                               expression=expression, visibility=visibility, dice=dice)
    except ValidationFailed as error:
        return _render_log(request, db, access, errors=field_errors(error),
                           form={"expression": expression, "visibility": visibility},
                           position=error.details.get("position"), status_code=error.status)
    publish_roll(request.app.state.broker, access.campaign.id, roll.id)
    return see_other(f"{log_url(access)}#roll-{roll.id}")


def _int_or_raw(value: str) -> int | str:
    """A whole number from a form field; anything else is left for the service to refuse."""
    try:
        return int(value.strip())
    except ValueError:
        return value


@router.post(BASE + "/{roll_id}/corrections")
def correct_roll(request: Request, db: DbSession, settings: SettingsDep, access: MemberAccess,
                 roll_id: RollId, total: FormText = "", reason: FormText = "") -> Response:
    try:
        roll = rolls.correct_roll(db=db, secret=settings.resolved_secret_key, access=access,
                                  roll_id=roll_id, total=_int_or_raw(total), reason=reason)
    except ValidationFailed as error:
        # Show the page that starts with the entry, its correction form open with the error.
        return _render_log(request, db, access, before_id=roll_id + 1, correcting={
            "roll_id": roll_id, "total": total, "reason": reason,
            "errors": field_errors(error)}, status_code=error.status)
    publish_roll(request.app.state.broker, access.campaign.id, roll.id)
    return see_other(f"{log_url(access)}#roll-{roll.id}")


# — live ——————————————————————————————————————————————————————————————————————————

@router.get(BASE + "/stream")
def roll_stream(request: Request, db: DbSession, access: MemberAccess) -> Response:
    """New log entries as Server-Sent Events (``roll``), each drawn for this viewer.

    Resumes after ``Last-Event-ID`` (or ``?after=``): entries are read from the database,
    so match rolls recorded without a notification arrive with the next one.
    """
    context = entry_context(request, access)
    campaign_id, user_id, role = access.campaign.id, access.user.id, access.role
    locale = get_locale()
    make_session = request.app.state.sessionmaker

    def items_after(after: int) -> list[Item]:
        set_locale(locale)
        with make_session() as session:
            page = rolls.roll_page(db=session, access=access, after_id=after, limit=STREAM_PAGE)
            return [Item(view.roll.id, "roll", render_entry(view, context))
                    for view in page.entries]

    def still_allowed() -> bool:
        with make_session() as session:
            return rolls.still_watching(db=session, campaign_id=campaign_id, user_id=user_id,
                                        role=role)

    return event_stream(request, StreamSource(channel=f"campaign:{campaign_id}", key=user_id,
                                              sessions=make_session, read_after=items_after,
                                              still_allowed=still_allowed),
                        newest=rolls.newest_id(db=db, campaign_id=campaign_id),
                        request_session=db)


# — export ————————————————————————————————————————————————————————————————————————

def _filename(access: CampaignAccess, when: str, suffix: str) -> str:
    stamp = datetime.fromisoformat(when).strftime("%Y%m%d-%H%M%S")
    return f"tablee-rolls-{access.campaign.id}-{stamp}.{suffix}"


def _attachment(filename: str) -> dict[str, str]:
    return {"Content-Disposition": f'attachment; filename="{filename}"',
            "Cache-Control": "no-store"}


@router.get(BASE + "/export.json")
def export_json(db: DbSession, access: MemberAccess) -> Response:
    document = rolls.export_document(db=db, access=access)
    return JSONResponse(document, headers=_attachment(
        _filename(access, document["exported_at"], "json")))


@router.get(BASE + "/export.txt")
def export_txt(db: DbSession, access: MemberAccess) -> Response:
    document = rolls.export_document(db=db, access=access)
    return PlainTextResponse(rolls.export_text(document), headers=_attachment(
        _filename(access, document["exported_at"], "txt")))
