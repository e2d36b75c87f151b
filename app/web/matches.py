"""Pages: a campaign's matches, the live table, its actions, undo/redo, the stream, replay.

The table page is one htmx component per concern: ``#table-state`` (participants, turn,
board), ``#action-panel`` (the forms the rules allow this viewer now), ``#log``. Actions are
posted as forms (``kind`` + the action's fields + ``seq`` + ``idempotency_key``); an htmx
post gets the refreshed panel back and the live stream brings the log line and the state.
Refusals come back inline, with the reason, and change nothing. See
``app.web.table_view`` for the stream's scheme.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, File, Form, Query, Request, UploadFile
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response

from app.errors import AppError, CampaignArchived, Conflict, NotFound, ValidationFailed
from app.http.deps import (
    CurrentUser,
    DbSession,
    IdParam,
    MemberAccess,
    SettingsDep,
    TableDice,
    csrf_token_for,
    page_router,
)
from app.http.streams import event_stream
from app.http.uploads import image_response, read_upload
from app.i18n import get_locale
from app.i18n import lazy_gettext as _l
from app.models import Match
from app.services import board_backgrounds, characters, content, match_publish, matches, tables
from app.services.access import CampaignAccess, load_campaign_access
from app.services.images import ImageTooLarge
from app.services.match_feed import Viewer
from app.web.campaigns import error_page
from app.web.forms import field_errors, see_other
from app.web.table_view import (
    ActionError,
    MatchStream,
    TableView,
    log_context,
    match_url,
    portrait_ids,
    state_context,
)
from app.web.templating import render

router = page_router()
DEFAULT_BOARD = {"unit": "cm", "width": 120, "height": 80}

MatchId = IdParam
BASE = "/campaigns/{campaign_id}/matches"
MATCH = BASE + "/{match_id}"
# Fields of an action form that are not part of the action itself.
ENVELOPE = {"csrf_token", "seq", "idempotency_key"}
# Refusals shown inline, next to the form that was sent. A match that is not found inside a
# service's transaction gets its error page while the session is open (see error_page).
REFUSALS = (ValidationFailed, Conflict, CampaignArchived)


async def form_fields(request: Request) -> dict[str, Any]:
    """The posted form; repeated fields (checkboxes) become lists."""
    form = await request.form()
    fields: dict[str, Any] = {}
    for key in form:
        values = [value for value in form.getlist(key) if isinstance(value, str)]
        fields[key] = values if len(values) > 1 else (values[0] if values else "")
    return fields


FormFields = Annotated[dict[str, Any], Depends(form_fields)]


def is_htmx(request: Request) -> bool:
    """An htmx request for a fragment (a boosted navigation wants the whole page)."""
    return request.headers.get("hx-request") == "true" \
        and not request.headers.get("hx-boosted")


def expected_seq(fields: dict[str, Any]) -> int | None:
    raw = str(fields.get("seq", "")).strip()
    if not raw:
        return None
    if not raw.isdigit() or int(raw) >= 2**31:
        raise ValidationFailed(_l("The page is out of date; reload it."), field="seq")
    return int(raw)


def action_from(fields: dict[str, Any]) -> dict[str, Any]:
    """Form fields → the action: empty fields are left out, so the rules' defaults apply."""
    return {key: value for key, value in fields.items()
            if key not in ENVELOPE and value not in ("", [])}


# — the list and a new match ———————————————————————————————————————————————————

def _list_page(request: Request, db: DbSession, access: CampaignAccess, *,
               form: dict[str, Any] | None = None, error: AppError | None = None) -> Response:
    roster = characters.list_characters(db=db, campaign_id=access.campaign.id) \
        if access.is_gm else []
    starts = content.match_starts(db=db, access=access) if access.is_gm else {}
    wanted = str(request.query_params.get("scenario", ""))
    if form is None and wanted in starts:
        # « Lancer une chasse »: the scenario set, its name given, the players' hunters ticked
        form = {"name": starts[wanted], **board_defaults(access), "scenario": wanted,
                "characters": [str(c.id) for c in roster if c.owner_id is not None
                               and not (c.sheet or {}).get("dead")],
                "turn_seconds": "0"}
    form = form or {"name": "", **board_defaults(access), "characters": [],
                    "turn_seconds": "0"}
    return render(request, "matches/list.html", {
        "campaign": access.campaign, "access": access,
        "matches": tables.list_matches(db, access),
        "roster": roster, "starts": starts,
        "start_name": starts.get(str(form.get("scenario", ""))),
        "uses_board": matches.uses_board(access),
        "uses_clock": matches.uses_clock(access),
        "form": form,
        "errors": field_errors(error) if error else {},
    }, status_code=error.status if error else 200)


def board_defaults(access: CampaignAccess) -> dict[str, Any]:
    """The new-match form's board: the game's own (``board_defaults``), else a table's."""
    system = characters.system_of(access)
    return dict(getattr(system, "board_defaults", DEFAULT_BOARD))


@router.get(BASE)
def match_list(request: Request, db: DbSession, access: MemberAccess) -> Response:
    return _list_page(request, db, access)


@router.post(BASE)
def create_match(request: Request, db: DbSession, settings: SettingsDep,
                 access: MemberAccess, fields: FormFields, dice: TableDice) -> Response:
    access.require_gm()
    chosen = fields.get("characters", [])
    chosen = chosen if isinstance(chosen, list) else [chosen] if chosen else []
    board = {key: fields.get(key, "") for key in ("width", "height", "unit")} \
        if matches.uses_board(access) else None
    try:
        match = matches.open_match(db=db, secret=settings.resolved_secret_key, access=access,
                                   name=fields.get("name", ""), characters=chosen, board=board,
                                   dice=dice, turn_seconds=fields.get("turn_seconds"),
                                   scenario=fields.get("scenario"))
    except REFUSALS as error:
        form = {"name": fields.get("name", ""), **(board or {}), "characters": chosen,
                "turn_seconds": fields.get("turn_seconds", ""),
                "scenario": str(fields.get("scenario", ""))}
        return _list_page(request, db, access, form=form, error=error)
    return see_other(match_url(access.campaign.id, match.id))


# — the table ——————————————————————————————————————————————————————————————————

def _table_page(request: Request, db: DbSession, access: CampaignAccess, match: Match, *,
                error: ActionError | None = None, alert: str | None = None,
                status_code: int = 200) -> Response:
    view = TableView.load(db, access, match)
    context = view.page_context(db, csrf_token=csrf_token_for(request), error=error)
    backgrounds = board_backgrounds.background_images(db, match.id) if access.is_gm else []
    save_kind = content.saved_kind(match.system) if access.is_gm else None
    return render(request, "matches/table.html", {**context, "alert": alert,
                                                  "backgrounds": backgrounds,
                                                  "save_kind": save_kind},
                  status_code=status_code)


@router.get(MATCH)
def table_page(request: Request, db: DbSession, access: MemberAccess,
               match_id: MatchId) -> Response:
    return _table_page(request, db, access, tables.get_match(db, access, match_id))


def _panel(request: Request, db: DbSession, access: CampaignAccess, match_id: int, *,
           error: ActionError | None = None, status_code: int = 200) -> Response:
    view = TableView.load(db, access, tables.get_match(db, access, match_id))
    response = render(request, "matches/_actions.html",
                      view.panel_context(csrf_token=csrf_token_for(request), error=error),
                      status_code=status_code)
    if error is not None:
        # Whatever sent it (a form, the board), the refusal lands in the panel.
        response.headers["HX-Retarget"] = "#action-panel"
        response.headers["HX-Reswap"] = "outerHTML"
    return response


@router.post(MATCH + "/actions")
async def act(request: Request, db: DbSession, settings: SettingsDep, user: CurrentUser,
              campaign_id: IdParam, match_id: MatchId, fields: FormFields,
              dice: TableDice) -> Response:
    # The table's hottest page. Its write takes its turn on the event loop before it takes a
    # thread (``WriteQueue``, as the API's action route does): a browser's action waiting
    # for the write lock holds no thread that the streams' reads need. The page or panel is
    # rendered afterwards, outside the turn. The membership is read in the same hop rather
    # than by the ``MemberAccess`` dependency, which would be a hop of its own.
    def write() -> tuple[CampaignAccess, dict[str, Any], tables.ActionOutcome | None,
                         AppError | None]:
        access = load_campaign_access(db, user, campaign_id)  # outsiders: 404 first
        action = action_from(fields)
        try:
            return access, action, tables.apply_action(
                db=db, secret=settings.resolved_secret_key, access=access,
                match_id=match_id, action=action, expected_seq=expected_seq(fields),
                dice=dice, idempotency_key=str(fields.get("idempotency_key") or "") or None,
            ), None
        except (NotFound, *REFUSALS) as error:
            return access, action, None, error

    access, action, outcome, refused = await request.app.state.write_queue.run(write)
    if outcome is not None:
        match_publish.publish_outcome(request.app.state.broker, outcome)
    return await run_in_threadpool(_acted, request, db, access, match_id, action, refused)


def _acted(request: Request, db: DbSession, access: CampaignAccess, match_id: int,
           action: dict[str, Any], error: AppError | None) -> Response:
    """The answer to an action posted from the table page: the panel (htmx) or the page."""
    if isinstance(error, NotFound):
        return error_page(request, error)
    if error is not None:
        named = getattr(error, "field", None)  # the rules' "bad_field" names its field
        refusal = ActionError(str(action.get("kind", ""))[:40], str(error.message),
                              {key: str(value) for key, value in action.items()},
                              field=named if isinstance(named, str) else None)
        if is_htmx(request):
            return _panel(request, db, access, match_id, error=refusal,
                          status_code=error.status)
        return _table_page(request, db, access, tables.get_match(db, access, match_id),
                           error=refusal, status_code=error.status)
    if is_htmx(request):
        return _panel(request, db, access, match_id)
    return see_other(match_url(access.campaign.id, match_id))


def _control_refused(request: Request, db: DbSession, access: CampaignAccess, match_id: int,
                     error: AppError) -> Response:
    if is_htmx(request):
        response = render(request, "matches/_alert.html", {"alert": str(error.message)},
                          status_code=error.status)
        response.headers["HX-Retarget"] = "#table-alert"
        response.headers["HX-Reswap"] = "outerHTML"
        return response
    return _table_page(request, db, access, tables.get_match(db, access, match_id),
                       alert=str(error.message), status_code=error.status)


def _control_done(request: Request, access: CampaignAccess, match_id: int,
                  outcome: tables.ActionOutcome) -> Response:
    match_publish.publish_outcome(request.app.state.broker, outcome)
    if is_htmx(request):
        return Response(status_code=204)  # the stream brings the whole log back
    return see_other(match_url(access.campaign.id, match_id))


@router.post(MATCH + "/rewind")
def rewind(request: Request, db: DbSession, access: MemberAccess, match_id: MatchId,
           fields: FormFields) -> Response:
    """GM: take the table back to just after event ``to_seq`` (later events struck out)."""
    access.require_gm()
    try:
        to_seq = str(fields.get("to_seq", "")).strip()
        if not to_seq.isdigit() or int(to_seq) >= 2**31:
            raise ValidationFailed(_l("Choose an event of the log."), field="to_seq")
        outcome = tables.rewind(db=db, access=access, match_id=match_id, to_seq=int(to_seq),
                                expected_seq=expected_seq(fields))
    except NotFound as error:
        return error_page(request, error)
    except REFUSALS as error:
        return _control_refused(request, db, access, match_id, error)
    return _control_done(request, access, match_id, outcome)


@router.post(MATCH + "/redo")
def redo(request: Request, db: DbSession, access: MemberAccess, match_id: MatchId,
         fields: FormFields) -> Response:
    """GM: restore what the last undo took back, if nothing happened since."""
    access.require_gm()
    try:
        outcome = tables.redo(db=db, access=access, match_id=match_id,
                              expected_seq=expected_seq(fields))
    except NotFound as error:
        return error_page(request, error)
    except REFUSALS as error:
        return _control_refused(request, db, access, match_id, error)
    return _control_done(request, access, match_id, outcome)


# — the GM's map under the board ————————————————————————————————————————————————————

FormText = Annotated[str, Form()]


@router.post(MATCH + "/background")
def board_background(request: Request, db: DbSession, settings: SettingsDep,
                     access: MemberAccess, match_id: MatchId,
                     picture: Annotated[UploadFile | None, File()] = None,
                     pixels: FormText = "", per: FormText = "", reuse: FormText = "",
                     remove: FormText = "") -> Response:
    """GM: a new map picture under the board, one used before, or none (an event)."""
    access.require_gm()
    try:
        outcome = board_backgrounds.set_background(
            db=db, secret=settings.resolved_secret_key, access=access, match_id=match_id,
            data=read_upload(picture, settings.max_portrait_bytes), reuse=reuse,
            pixels=pixels, per=per, remove=bool(remove),
            max_bytes=settings.max_portrait_bytes)
    except NotFound as error:
        return error_page(request, error)
    except (*REFUSALS, ImageTooLarge) as error:
        return _table_page(request, db, access, tables.get_match(db, access, match_id),
                           alert=str(error.message), status_code=error.status)
    match_publish.publish_outcome(request.app.state.broker, outcome)
    return see_other(match_url(access.campaign.id, match_id))


@router.get("/campaigns/{campaign_id}/images/{image_id}")
def campaign_image(request: Request, db: DbSession, access: MemberAccess,
                   image_id: IdParam) -> Response:
    """A map picture a match of this campaign has used (members only)."""
    return image_response(request, board_backgrounds.campaign_image(db, access, image_id))


# — live and replay ————————————————————————————————————————————————————————————

@router.get(MATCH + "/stream")
def stream(request: Request, db: DbSession, access: MemberAccess,
           match_id: MatchId) -> Response:
    """Server-Sent Events for this viewer; resumable with ``Last-Event-ID`` (or ``?after=``)."""
    newest = tables.match_position(db, access, match_id)
    viewer = Viewer(request.app.state.match_feeds, campaign_id=access.campaign.id,
                    match_id=match_id, user_id=access.user.id, role=access.role)
    source = MatchStream(viewer=viewer, sessionmaker=request.app.state.sessionmaker,
                         campaign_id=access.campaign.id, locale=get_locale(),
                         csrf_token=csrf_token_for(request))
    return event_stream(request, source, newest=newest, request_session=db)


@router.get(MATCH + "/replay")
def replay(request: Request, db: DbSession, access: MemberAccess, match_id: MatchId,
           step: Annotated[int | None, Query(ge=1, le=2**31 - 1)] = None) -> Response:
    """The match after event ``step``: the state then, and that event with all its dice."""
    match = tables.get_match(db, access, match_id)
    actor = tables.actor_for(db, access)
    last = max(match.seq, 1)
    current = min(step or 1, last)
    event = matches.event_at(db=db, match=match, actor=actor, seq=current)
    state = matches.replay_state(db=db, match=match, actor=actor, step=current)
    log = log_context(db, match, access, [event] if event else [],
                      csrf_token=csrf_token_for(request))
    return render(request, "matches/replay.html", {
        "match": match, "campaign": access.campaign, "access": access, "step": current,
        "last": last, **log, "can_undo": False, "open_dice": True,
        **state_context(state, system_key=match.system, seq=current,
                        portraits=portrait_ids(db, match.campaign_id),
                        campaign_id=match.campaign_id)})
