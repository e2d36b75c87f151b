"""Handouts (issue 28): the GM hands a text, a picture or both to everyone at a match's table
or to chosen members; they open it from the table, and the campaign keeps it with the match's
log (its export carries it, picture and all).

The picture goes through ``images.clean_image`` like every picture that enters Tablée; its
row is named by the event (``image_id``, like the map under the board) and served only to
the GM and the handout's readers while the handout is out (``picture``). The rules of who
reads what are ``app.rules.handouts``.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.db import write_transaction
from app.errors import NotFound, ValidationFailed
from app.i18n import lazy_gettext as _l
from app.models import Image, Membership, Role, User
from app.rules import handouts
from app.rules.errors import RulesError
from app.rules.map_view import reads_handout
from app.services import images, tables
from app.services.access import CampaignAccess
from app.services.validation import rules_message

EVERYONE = "everyone"


def readers_to_choose(db: Session, campaign_id: int) -> list[tuple[int, str]]:
    """The members a handout may go to (everyone but the GM), by name."""
    return [(user_id, name) for user_id, name in db.execute(
        select(User.id, User.display_name).join(Membership, Membership.user_id == User.id)
        .where(Membership.campaign_id == campaign_id, Membership.role != Role.GM)
        .order_by(User.display_name))]


def _readers(db: Session, campaign_id: int, to: Sequence[object] | str | None) -> list[int] | None:
    """``None`` (everyone), or the chosen members, each a member who is not the GM."""
    if to is None or to == EVERYONE or to == [EVERYONE]:
        return None
    chosen = [to] if isinstance(to, str | int) else list(to)
    allowed = {user_id for user_id, _name in readers_to_choose(db, campaign_id)}
    ids = []
    for value in chosen:
        text = str(value).strip()
        if not text.isdigit() or int(text) not in allowed:
            raise ValidationFailed(_l("Choose the players this handout goes to among the "
                                      "campaign's members."), field="to")
        ids.append(int(text))
    if not ids:
        raise ValidationFailed(_l("Choose at least one player, or everyone."), field="to")
    return ids


def share(*, db: Session, secret: str, access: CampaignAccess, match_id: int, title: object,
          text: object, to: Sequence[object] | str | None, picture: bytes = b"",
          max_bytes: int) -> tables.ActionOutcome:
    """GM: a new handout, to everyone (``to`` None or « everyone ») or to chosen members.
    Bad input stores nothing (the picture neither)."""
    access.require_gm().require_writable()
    clean = images.clean_image(picture, max_bytes=max_bytes, field="picture") \
        if picture else None
    with write_transaction(db):
        match = tables.get_match(db, access, match_id, for_update=True)
        readers = _readers(db, access.campaign.id, to)
        image = images.new_image(clean) if clean is not None else None
        if image is not None:
            db.add(image)
            db.flush()
        try:
            events = handouts.share(match.state or {}, title=title, text=text,
                                    image_id=image.id if image is not None else None,
                                    readers=readers)
        except RulesError as refusal:
            raise ValidationFailed(rules_message(refusal),
                                   field=refusal.fields.get("field")) from refusal
        appended = tables._append(db, secret, match, tables.system_of(match), events,
                                  actor=access.user.id)
        return tables.ActionOutcome(match.id, match.seq, appended,
                                    campaign_id=match.campaign_id)


def picture(db: Session, access: CampaignAccess, match_id: int, handout_id: str) -> Image:
    """A handout's picture, for the GM and its readers while it is out (404 otherwise)."""
    match = tables.get_match(db, access, match_id)
    actor = tables.actor_for(db, access)
    found = next((item for item in (match.state or {}).get("handouts") or ()
                  if item.get("id") == handout_id), None)
    if found is None or not reads_handout(found, actor) or found.get("image_id") is None:
        raise NotFound()
    image = db.get(Image, found["image_id"])
    if image is None:
        raise NotFound()
    return image


def shown(db: Session, access: CampaignAccess, match_id: int) -> list[dict]:
    """The match's handouts as this member may read them (the GM: all, with their readers)."""
    match = tables.get_match(db, access, match_id)
    return list(tables.viewer_state(match, tables.actor_for(db, access)).get("handouts") or ())
