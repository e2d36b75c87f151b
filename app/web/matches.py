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

from fastapi import Depends, File, Form, Path, Query, Request, UploadFile
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response

from app.errors import AppError, CampaignArchived, Conflict, NotFound, ValidationFailed
from app.http.deps import (
    MAX_ID,
    CurrentUser,
    DbSession,
    IdParam,
    MemberAccess,
    SettingsDep,
    TableDice,
    csrf_token_for,
    page_router,
)
from app.http.lean_route import lean_route, path_id
from app.http.streams import event_stream, match_watcher, resume_tags
from app.http.uploads import image_response, read_upload
from app.i18n import get_locale
from app.i18n import lazy_gettext as _l
from app.models import Match
from app.rules import map_actions
from app.rules.board import board_distance
from app.services import (
    board_backgrounds,
    characters,
    content,
    handouts,
    map_pictures,
    match_publish,
    matches,
    odds,
    tables,
)
from app.services.access import CampaignAccess, load_campaign_access
from app.services.images import ImageTooLarge
from app.services.match_feed import Viewer
from app.web import odds_view
from app.web.campaigns import error_page
from app.web.forms import field_errors, see_other
from app.web.table_view import (
    ActionError,
    MatchStream,
    TableView,
    log_context,
    map_picture_url,
    match_url,
    portrait_ids,
    state_context,
)
from app.web.templating import render

router = page_router()
DEFAULT_BOARD = {"unit": "cm", "width": 120, "height": 80}
TABLE_PAGE = "matches/table.html"

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
    context = table_page_context(db, TableView.load(db, access, match),
                                 csrf_token=csrf_token_for(request), error=error, alert=alert)
    from app.web.simulations import panel_for  # it builds on this module's routes

    context["simulation_panel"] = panel_for(request, db, access, match.id, match.system)
    return render(request, TABLE_PAGE, context, status_code=status_code)


def table_page_context(db: Session, view: TableView, *, csrf_token: str,
                       error: ActionError | None = None,
                       alert: str | None = None) -> dict[str, Any]:
    """Everything ``TABLE_PAGE`` shows one viewer (an import renders it for each seat before
    it accepts a file: ``app.web.import_pages``)."""
    is_gm = view.access.is_gm
    return {**view.page_context(db, csrf_token=csrf_token, error=error), "alert": alert,
            "map_tools": map_actions.tools(view.match.system, view.actor, view.state,
                                           writable=not view.access.campaign.archived),
            "unit_words": unit_words((view.state.get("board") or {}).get("unit", "cm")),
            "backgrounds": board_backgrounds.background_images(db, view.match.id)
            if is_gm else [],
            "save_kind": content.saved_kind(view.match.system) if is_gm else None,
            "handout_readers": handouts.readers_to_choose(db, view.match.campaign_id)
            if is_gm else [], "handout_form": None}


def unit_words(unit: str) -> tuple[str, str]:
    """The board's unit for one and for many, as the ruler says it (« case », « cases »)."""
    one, many = (board_distance(value, unit, get_locale()).split(" ", 1)[1]
                 for value in (1, 5))
    return one, many


@router.get(MATCH)
def table_page(request: Request, db: DbSession, access: MemberAccess,
               match_id: MatchId) -> Response:
    return _table_page(request, db, access, tables.get_match(db, access, match_id))


def _panel(request: Request, db: DbSession, access: CampaignAccess, match_id: int, *,
           error: ActionError | None = None, status_code: int = 200) -> Response:
    view = TableView.load(db, access, tables.get_match(db, access, match_id))
    # A refusal lands in the panel of the page, out of band: the form that sent it may be
    # gone, its panel redrawn by a live update while the request was on its way (two pages
    # asking « time is up » at once). htmx looks for an ``HX-Retarget`` from the sender,
    # which a form no longer in the page cannot find (« Invalid re-target »); an
    # out-of-band swap is looked for in the document then.
    oob = error is not None
    response = render(request, "matches/_actions.html",
                      {**view.panel_context(csrf_token=csrf_token_for(request), error=error),
                       "oob": oob}, status_code=status_code)
    if oob:
        response.headers["HX-Reswap"] = "none"  # out-of-band parts are still swapped
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
        refusal = ActionError(str(action.get("kind", ""))[:40], str(error.message),
                              {key: str(value) for key, value in action.items()},
                              field=refused_field(error, action))
        if is_htmx(request):
            return _panel(request, db, access, match_id, error=refusal,
                          status_code=error.status)
        return _table_page(request, db, access, tables.get_match(db, access, match_id),
                           error=refusal, status_code=error.status)
    if is_htmx(request):
        return _panel(request, db, access, match_id)
    return see_other(match_url(access.campaign.id, match_id))


def refused_field(error: AppError, action: dict[str, Any]) -> str | None:
    """The field a refusal is about, for the page to show the reason by it: the one the
    rules named (« bad_field »), else the one whose value the refusal quotes (« no
    participant 't9' » is about the list that sent « t9 »)."""
    named = getattr(error, "field", None)
    if isinstance(named, str):
        return named
    quoted = {value for value in getattr(error.__cause__, "fields", {}).values()
              if isinstance(value, str) and value}
    return next((key for key, value in action.items()
                 if key != "kind" and isinstance(value, str) and value in quoted), None)


def _control_refused(request: Request, db: DbSession, access: CampaignAccess, match_id: int,
                     error: AppError) -> Response:
    if is_htmx(request):
        # out of band, as a refused action's panel (``_panel``): the redo form sits in the
        # action panel, which a live update may have redrawn while the request was on its way
        response = render(request, "matches/_alert.html",
                          {"alert": str(error.message), "oob": True}, status_code=error.status)
        response.headers["HX-Reswap"] = "none"
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


# — an action's odds before it is sent (issue 27, docs/odds.md) ——————————————————————

@router.post(MATCH + "/odds")
def action_odds(request: Request, db: DbSession, access: MemberAccess, match_id: MatchId,
                fields: FormFields) -> Response:
    """The odds of the action a form names as it stands (htmx, on each change): the game's
    ``odds`` on what this member may see of the match. Nothing is stored."""
    context: dict[str, Any] = {}
    try:
        found = odds.match_odds(db=db, access=access, match_id=match_id,
                                action=action_from(fields))
        context = odds_view.odds_context(found) if found else {}
    except (ValidationFailed, odds.OddsBusy) as error:
        context = {"error": str(error.message)}
    # ids in the panel: htmx puts the focus back by id when it redraws the panel
    context["kind"] = fields.get("kind") if isinstance(fields.get("kind"), str) else ""
    return render(request, "odds/_action_odds.html", context)


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


# — handouts ——————————————————————————————————————————————————————————————————————————

@router.post(MATCH + "/handouts")
def share_handout(request: Request, db: DbSession, settings: SettingsDep,
                  access: MemberAccess, match_id: MatchId,
                  picture: Annotated[UploadFile | None, File()] = None, title: FormText = "",
                  text: FormText = "",
                  to: Annotated[list[str] | None, Form()] = None) -> Response:
    """GM: hand a text, a picture or both to everyone at the table or to chosen members."""
    access.require_gm()
    data = read_upload(picture, settings.max_portrait_bytes) \
        if picture is not None and picture.filename else b""
    values = {"title": title, "text": text, "to": to or [handouts.EVERYONE]}
    return _share_handout(request, db, settings, access, match_id, values, data)


def _share_handout(request: Request, db: DbSession, settings: SettingsDep,
                   access: CampaignAccess, match_id: int, values: dict[str, Any],
                   data: bytes) -> Response:
    to = None if handouts.EVERYONE in values["to"] else values["to"]
    try:
        outcome = handouts.share(db=db, secret=settings.resolved_secret_key, access=access,
                                 match_id=match_id, title=values["title"],
                                 text=values["text"], to=to, picture=data,
                                 max_bytes=settings.max_portrait_bytes)
    except NotFound as error:
        return error_page(request, error)
    except (*REFUSALS, ImageTooLarge) as error:
        context = table_page_context(db, TableView.load(db, access, tables.get_match(
            db, access, match_id)), csrf_token=csrf_token_for(request))
        context["handout_form"] = {**values, "error": str(error.message),
                                   "field": getattr(error, "field", None) or "title"}
        return render(request, TABLE_PAGE, context, status_code=error.status)
    match_publish.publish_outcome(request.app.state.broker, outcome)
    return see_other(match_url(access.campaign.id, match_id) + "#handouts")


@router.get(MATCH + "/handouts/{handout_id}")
def handout_page(request: Request, db: DbSession, access: MemberAccess, match_id: MatchId,
                 handout_id: Annotated[str, Path(max_length=20)]) -> Response:
    """One handout, for the GM and its readers (the table opens it over itself)."""
    match = tables.get_match(db, access, match_id)
    found = next((item for item in handouts.shown(db, access, match_id)
                  if item.get("id") == handout_id), None)
    if found is None:
        raise NotFound()
    return render(request, "matches/handout.html", {
        "match": match, "campaign": access.campaign, "handout": found,
        "url": match_url(match.campaign_id, match.id)})


@router.get(MATCH + "/handouts/{handout_id}/picture")
def handout_picture(request: Request, db: DbSession, access: MemberAccess, match_id: MatchId,
                    handout_id: Annotated[str, Path(max_length=20)]) -> Response:
    """A handout's picture, for the GM and its readers."""
    return image_response(request, handouts.picture(db, access, match_id, handout_id))


@router.get(MATCH + "/map")
def map_picture(request: Request, db: DbSession, access: MemberAccess, match_id: MatchId,
                step: Annotated[int | None, Query(ge=1, le=2**31 - 1)] = None) -> Response:
    """The picture under the board as this member may see it (a player's with the fog
    painted on); ``step``: as it was after that event (the replay). ``v`` names the
    version only, for the browser's cache."""
    return image_response(request, map_pictures.map_picture(db, access, match_id, step))


@router.get("/campaigns/{campaign_id}/images/{image_id}")
def campaign_image(request: Request, db: DbSession, access: MemberAccess,
                   image_id: IdParam) -> Response:
    """A map picture a match of this campaign has used (members only)."""
    return image_response(request, board_backgrounds.campaign_image(db, access, image_id))


# — live and replay ————————————————————————————————————————————————————————————

def stream(request: Request, db: DbSession, access: MemberAccess,
           match_id: MatchId) -> Response:
    """Server-Sent Events for this viewer; resumable with ``Last-Event-ID`` (or ``?after=``).
    The ``state`` messages' ids name the action panel and the board they leave the tab with
    (``41.3fa0….9b1c…``); ``?panel=`` and ``?board=`` name the page's own on a first
    connection."""
    return _stream(request, access, match_id, tables.match_position(db, access, match_id),
                   request_session=db)


async def _lean_stream(request: Request) -> Response | None:
    """``stream`` without FastAPI's dependencies, as the API's stream route: who is asking,
    their membership and the match in one transaction (``streams.match_watcher``, which
    refuses as the dependencies would). An id out of range goes to ``stream`` as declared,
    which answers it as any page does."""
    campaign_id = path_id(request, "campaign_id", MAX_ID)
    match_id = path_id(request, "match_id", MAX_ID)
    if campaign_id is None or match_id is None:
        return None
    access, newest = await match_watcher(request, campaign_id, match_id)
    return _stream(request, access, match_id, newest)


router.add_api_route(MATCH + "/stream", stream, methods=["GET"],
                     route_class_override=lean_route(_lean_stream))


def _stream(request: Request, access: CampaignAccess, match_id: int, newest: int, *,
            request_session: Session | None = None) -> Response:
    panel, board = resume_tags(request, "panel", "board")
    viewer = Viewer(request.app.state.match_feeds, campaign_id=access.campaign.id,
                    match_id=match_id, user_id=access.user.id, role=access.role)
    source = MatchStream(viewer=viewer, sessionmaker=request.app.state.sessionmaker,
                         campaign_id=access.campaign.id, locale=get_locale(),
                         csrf_token=csrf_token_for(request),
                         panel=panel, board=board,
                         resumed=bool(request.headers.get("last-event-id")))
    return event_stream(request, source, newest=newest, request_session=request_session,
                        tagged=True)


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
        "last": last, **log, "can_undo": False, "open_dice": True, "journal_keys": False,
        **state_context(state, system_key=match.system, seq=current,
                        portraits=portrait_ids(db, match.campaign_id),
                        campaign_id=match.campaign_id,
                        map_url=map_picture_url(match_url(match.campaign_id, match.id),
                                                state, step=current))})
