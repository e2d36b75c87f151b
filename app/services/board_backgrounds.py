"""The GM's map under a match's board: an uploaded picture, decoded and re-encoded like a
portrait (app/services/images.py), drawn at a scale the GM gives (pixels per cm, inch or
square), switched or removed during play.

Each change is a ``board_background`` event in the match's log (the platform folds it itself,
``app.rules.match.PLATFORM_KINDS``), so it is undone, replayed, exported and re-imported like
any event; its ``image_id`` names a row of ``images`` (docs/game-system.md § Ids in events;
a campaign file carries the pictures and re-imports them under new ids).
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.db import write_transaction
from app.errors import NotFound, ValidationFailed
from app.i18n import lazy_gettext as _l
from app.models import Image, Match, MatchEvent
from app.rules.map_state import fog_active
from app.rules.match import Event
from app.services import images, tables
from app.services.access import CampaignAccess

KIND = "board_background"
UNITS = ("cm", "in", "sq")
CM_PER_INCH = Decimal("2.54")
MAX_PIXELS_PER_UNIT = 10_000
MIN_PIXELS_PER_UNIT = Decimal("0.1")  # a smaller scale draws a map thousands of metres wide


def check_scale(pixels: object, per: object, board_unit: str) -> tuple[float, Decimal]:
    """The GM's scale and the pixels per *board* unit it gives (cm ↔ inch converted)."""
    if per not in UNITS:
        raise ValidationFailed(_l("Choose the scale's unit: cm, inch or square."), field="per")
    try:
        value = Decimal(str(pixels).strip().replace(",", "."))
    except InvalidOperation:
        value = Decimal(0)
    if not value.is_finite() or not MIN_PIXELS_PER_UNIT <= value <= MAX_PIXELS_PER_UNIT:
        raise ValidationFailed(_l("The scale is a number of pixels from 0.1 to %(n)s.",
                                  n=MAX_PIXELS_PER_UNIT), field="pixels")
    if per == board_unit:
        per_board = value
    elif {per, board_unit} == {"cm", "in"}:
        per_board = value * CM_PER_INCH if per == "cm" else value / CM_PER_INCH
    else:
        raise ValidationFailed(_l("This board is measured in another unit: give the scale "
                                  "per square only on a board of squares."), field="per")
    return float(value), per_board


def background_images(db: Session, match_id: int) -> list[int]:
    """The pictures this match's log has used, oldest first (the GM may switch back)."""
    seen: list[int] = []
    for payload in db.scalars(select(MatchEvent.payload).where(
            MatchEvent.match_id == match_id, MatchEvent.kind == KIND).order_by(MatchEvent.seq)):
        image_id = (payload or {}).get("image_id")
        if isinstance(image_id, int) and image_id not in seen:
            seen.append(image_id)
    return seen


def campaign_image(db: Session, access: CampaignAccess, image_id: int) -> Image:
    """A background picture: for the GM, one a match of the campaign used; for the others,
    one under a board now that no fog covers (a player's board shows it through
    ``map_pictures``, the fog painted on: a map kept for another scene, or under the fog,
    is not theirs to see)."""
    if access.is_gm:
        used = db.scalars(select(MatchEvent.payload).join(
            Match, Match.id == MatchEvent.match_id).where(
                Match.campaign_id == access.campaign.id, MatchEvent.kind == KIND))
        shown = any((payload or {}).get("image_id") == image_id for payload in used)
    else:
        boards = [(state or {}).get("board") or {} for state in db.scalars(
            select(Match.state).where(Match.campaign_id == access.campaign.id))]
        shown = any(isinstance(board.get("background"), dict)
                    and board["background"].get("image_id") == image_id
                    and not fog_active(board.get("fog")) for board in boards)
    if not shown:
        raise NotFound()
    image = db.get(Image, image_id)
    if image is None:
        raise NotFound()
    return image


def set_background(*, db: Session, secret: str, access: CampaignAccess, match_id: int,
                   data: bytes = b"", reuse: object = "", pixels: object = "",
                   per: object = "", remove: bool = False,
                   max_bytes: int) -> tables.ActionOutcome:
    """GM: put a new picture (``data``), one the match used before (``reuse``), or none
    (``remove``) under the board. Bad input changes nothing."""
    access.require_gm().require_writable()
    with write_transaction(db):
        match = tables.get_match(db, access, match_id, for_update=True)
        board = (match.state or {}).get("board")
        if not isinstance(board, dict):
            raise ValidationFailed(_l("This match has no board."), field="picture")
        if remove:
            payload: dict[str, object] = {"image_id": None}
        else:
            scale, per_board = check_scale(pixels, per, str(board.get("unit", "cm")))
            if data:
                clean = images.clean_image(data, max_bytes=max_bytes, field="picture")
                image = images.new_image(clean)
                db.add(image)
                db.flush()
            else:
                chosen = str(reuse or "").strip()
                if not chosen.isdigit() or int(chosen) not in background_images(db, match.id):
                    raise ValidationFailed(_l("Choose a picture to upload, or one this match "
                                              "used before."), field="picture")
                image = db.get(Image, int(chosen))
                if image is None:
                    raise NotFound()
            payload = {"image_id": image.id, "pixels": scale, "per": per,
                       "width": round(float(Decimal(image.width) / per_board), 2),
                       "height": round(float(Decimal(image.height) / per_board), 2)}
        events = tables._append(db, secret, match, tables.system_of(match),
                                [Event(KIND, payload)], actor=access.user.id)
        return tables.ActionOutcome(match.id, match.seq, events, campaign_id=match.campaign_id)
