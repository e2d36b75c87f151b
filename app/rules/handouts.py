"""Handouts: a text or a picture the GM hands to everyone or to chosen players (issue 28).

``state["handouts"]`` (folded by ``app.rules.map_state``) lists them, each ``{"id", "title",
"text", "image_id", "user_ids"}``; ``user_ids`` names its readers (``None``: everyone). A
handout to everyone is a public event; one to chosen players is ``quiet`` and names them
under ``user_ids`` (``tables.may_see``), so nobody else learns it exists — not in their page,
their API, their stream —, and their view leaves it out (``map_view.reads_handout``). The
GM reads them all. Withdrawing one reaches the same readers.

The picture is checked by the service that stores it (``app/services/handouts.py``); here,
only what the rules can judge.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app.rules.action_fields import require_gm, text_field
from app.rules.map_fields import MapRefused
from app.rules.match import Actor, Event, State

TITLE_MAX = 120
TEXT_MAX = 5000
MAX_HANDOUTS = 200


def _visibility(readers: Sequence[int] | None) -> str:
    return "public" if readers is None else "quiet"


def share(state: State, *, title: object, text: object, image_id: int | None,
          readers: Sequence[int] | None) -> list[Event]:
    """The event handing a new handout to ``readers`` (checked members; ``None``:
    everyone). A handout has a text, a picture, or both."""
    handouts = state.get("handouts") or []
    if len(handouts) >= MAX_HANDOUTS:
        raise MapRefused("bad_field", field="title", reason=f"at most {MAX_HANDOUTS} handouts",
                         reason_fr=f"au plus {MAX_HANDOUTS} documents")
    fields = {"title": title, "text": text}
    handout: dict[str, Any] = {"id": _new_id(handouts),
                               "title": text_field(fields, "title", TITLE_MAX),
                               "text": text_field(fields, "text", TEXT_MAX, required=False,
                                                  multiline=True)}
    if not handout["text"] and image_id is None:
        raise MapRefused("bad_field", field="text", reason="a text or a picture",
                         reason_fr="un texte ou une image est attendu")
    payload = {"handout": handout, "image_id": image_id,
               "user_ids": None if readers is None else sorted(set(readers))}
    return [Event("handout_shared", payload, _visibility(payload["user_ids"]))]


def _new_id(handouts: Sequence[Mapping[str, Any]]) -> str:
    taken = {item.get("id") for item in handouts}
    number = len(taken) + 1
    while f"h{number}" in taken:
        number += 1
    return f"h{number}"


def decide_withdraw(state: State, action: Mapping[str, Any], actor: Actor,
                    system_key: str) -> list[Event]:
    """The GM takes a handout back from its readers."""
    require_gm(actor)
    wanted = action.get("handout")
    found = next((item for item in state.get("handouts") or () if item.get("id") == wanted),
                 None)
    if found is None:
        raise MapRefused("bad_field", field="handout", reason="?")
    readers = found.get("user_ids")
    return [Event("handout_withdrawn", {"id": found["id"], "user_ids": readers},
                  _visibility(readers))]
