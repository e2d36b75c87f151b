"""API: pings — point at a place of a match's board; every viewer sees it pulse for a moment
(``app.services.pings``). Not part of the match's log: nothing to undo, nothing kept, and
a viewer who was not connected does not receive it. The table page uses these routes too."""

from __future__ import annotations

from fastapi import Request
from pydantic import Field
from starlette.responses import Response

from app.api.matches import ONE, MatchId
from app.api.schemas import Model, error_responses
from app.http.deps import DbSession, MemberAccess, api_router
from app.http.pings import ping_stream
from app.http.streams import EventStreamResponse
from app.services import pings

router = api_router("matches")

PINGS = ONE + "/pings"


class PingIn(Model):
    # strict: JSON ``true`` is no place on the board (a whole number is)
    x: float = Field(strict=True, description="Where, in the board's unit, from its left edge.")
    y: float = Field(strict=True, description="Where, in the board's unit, from its top edge.")


@router.post(PINGS, status_code=204, response_class=Response,
             responses=error_responses(404, 429))
def send_ping(body: PingIn, request: Request, db: DbSession, access: MemberAccess,
              match_id: MatchId) -> Response:
    """Point at (x, y) of the board: every member watching the match sees it now (at most
    six in ten seconds; a point off the board is refused, 422)."""
    throttle = getattr(request.app.state, "ping_throttle", None)
    if throttle is None:
        throttle = request.app.state.ping_throttle = pings.Throttle()
    message = pings.ping(db=db, access=access, match_id=match_id, x=body.x, y=body.y,
                         throttle=throttle)
    pings.publish(request.app.state.broker, message)
    return Response(status_code=204)


_STREAM_DOC = ("Server-Sent Events: ``event: ping``, ``data:`` ``{\"x\", \"y\", \"by\", "
               "\"name\"}`` — who pointed where, in the board's unit. Only what arrives while "
               "the stream is open.")


@router.get(PINGS + "/stream", response_class=EventStreamResponse,
            responses={200: {"description": _STREAM_DOC, "content": {
                "text/event-stream": {"schema": {"type": "string"}}}}, **error_responses(404)})
def stream_pings(request: Request, db: DbSession, access: MemberAccess,
                 match_id: MatchId) -> Response:
    """The match's pings, live, for every member (spectators too)."""
    return ping_stream(request, db, access, match_id)
