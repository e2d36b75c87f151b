"""The table page of an imported match, rendered for each seat before the import is accepted.

``app.services.transfer_tables`` opens every imported match from every seat (the GM, each
player, a member who plays nobody, a spectator) and asks this check to render what that seat
would get: the table page (``matches.TABLE_PAGE``, with the same context the page's route
builds) and, for the GM, who reads every event, each line of the log the API and the replay
page also show. Rendering is the web layer's, so ``app.main`` hands this function to both
import routes (the API's too: an API import must not leave a page that answers 500).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session
from starlette.requests import Request

from app.models import Match
from app.services import tables
from app.services.transfer_tables import LineUnreadable, Seat
from app.web.matches import TABLE_PAGE, table_page_context
from app.web.table_view import (
    TableView,
    build_panel,
    fragment,
    log_context,
    match_url,
    portrait_ids,
)
from app.web.templating import templates

LINES = "matches/_log_lines.html"
CHUNK = 500  # log lines rendered at once; one that fails is then found line by line


def check_table_page(db: Session, match: Match, seat: Seat) -> None:
    """Render the table page as ``seat`` would see it; raise whatever stops it
    (``LineUnreadable`` for a line of the log)."""
    view = _seated(db, match, seat)
    if seat.actor.is_gm:  # first, so that a line that fails is named, not the whole page
        _render_every_line(db, view)
    context = table_page_context(db, view, csrf_token="")
    templates.env.get_template(TABLE_PAGE).render({
        "request": _page_request(match), "viewer": None, "user": seat.access.user,
        "csrf_token": "", **context})


def _seated(db: Session, match: Match, seat: Seat) -> TableView:
    """``TableView.load`` for a seat nobody holds yet (its actor is given, not read)."""
    state = tables.viewer_state(match, seat.actor)
    return TableView(match, seat.access, seat.actor, state,
                     build_panel(db, match, seat.access, seat.actor, state),
                     portrait_ids(db, match.campaign_id))


def _page_request(match: Match) -> Request:
    """The page's own address, all the site's frame reads of its request."""
    return Request({"type": "http", "method": "GET", "headers": [], "query_string": b"",
                    "path": match_url(match.campaign_id, match.id)})


def _render_every_line(db: Session, view: TableView) -> None:
    """Every event's line, oldest first, a chunk at a time (the page shows the latest)."""
    after = 0
    while rows := tables.rows_after(db, view.match, after_seq=after, limit=CHUNK):
        events = [tables.event_dict(row) for row in rows]
        try:
            _lines(db, view, events)
        except Exception:
            for event in events:
                try:
                    _lines(db, view, [event])
                except Exception as error:
                    raise LineUnreadable(event["seq"]) from error
            raise
        after = rows[-1].seq


def _lines(db: Session, view: TableView, events: list[dict[str, Any]]) -> None:
    fragment(LINES, log_context(db, view.match, view.access, events, csrf_token=""))
