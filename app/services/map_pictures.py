"""The picture under a match's board as one viewer may see it (issue 28).

The GM gets the stored picture. A player gets it with the fog of war painted on: the hidden
ground is dark in the very pixels sent, so no part of the map the players have not seen
reaches their browser (the board's own fog, drawn over it, is only what they look at). The
painting follows the fog's shapes exactly as ``app.rules.map_state`` measures them, and is
kept for the few last (picture, fog) pairs: every player of a table asks for the same one.

A map picture is served elsewhere (``board_backgrounds.campaign_image``) to players only when
it is under a board now and no fog covers it.
"""

from __future__ import annotations

import hashlib
import io
import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from PIL import Image as PILImage
from PIL import ImageDraw
from sqlalchemy.orm import Session

from app.errors import NotFound
from app.models import Image
from app.rules import map_view
from app.rules.map_state import fog_active
from app.services import tables
from app.services.access import CampaignAccess

FOG_RGB = (38, 40, 44)
CACHED = 32


class Picture:
    """What an image response needs (``app.http.uploads.image_response``)."""

    def __init__(self, content_type: str, data: bytes, sha256: str) -> None:
        self.content_type, self.data, self.sha256 = content_type, data, sha256


_painted: OrderedDict[tuple[str, str], Picture] = OrderedDict()
_lock = threading.Lock()


def map_picture(db: Session, access: CampaignAccess, match_id: int,
                step: int | None = None) -> Image | Picture:
    """The picture under the board now (or after event ``step``, for the replay), as this
    member may see it; 404 when there is none."""
    match = tables.get_match(db, access, match_id)
    state = match.state if step is None else tables.fold_log(db, match, upto=step)
    board = (state or {}).get("board") or {}
    background = board.get("background")
    image = db.get(Image, background["image_id"]) if isinstance(background, dict) and \
        isinstance(background.get("image_id"), int) else None
    if image is None:
        raise NotFound()
    fog = board.get("fog")
    if access.is_gm or not fog_active(fog):
        return image
    key = (image.sha256, map_view.picture_version(background, fog))
    with _lock:
        if key in _painted:
            _painted.move_to_end(key)
            return _painted[key]
    painted = paint_fog(image.data, background, fog)
    with _lock:
        _painted[key] = painted
        while len(_painted) > CACHED:
            _painted.popitem(last=False)
    return painted


def paint_fog(data: bytes, background: Mapping[str, Any], fog: Mapping[str, Any]) -> Picture:
    """The picture with its hidden ground painted over (the picture spans ``background``'s
    width and height in the board's unit, from the board's corner)."""
    with PILImage.open(io.BytesIO(data)) as source:
        picture = source.convert("RGB")
    sx = picture.width / max(float(background.get("width") or 1), 1e-6)
    sy = picture.height / max(float(background.get("height") or 1), 1e-6)
    mask = PILImage.new("L", picture.size, 255 if fog.get("base") == "hidden" else 0)
    draw = ImageDraw.Draw(mask)
    for shape in fog.get("shapes") or ():
        _draw_shape(draw, shape, sx, sy, 255 if shape.get("op") == "hide" else 0)
    out = PILImage.composite(PILImage.new("RGB", picture.size, FOG_RGB), picture, mask)
    buffer = io.BytesIO()
    out.save(buffer, format="PNG", optimize=True)
    data = buffer.getvalue()
    return Picture("image/png", data, hashlib.sha256(data).hexdigest())


def _draw_shape(draw: ImageDraw.ImageDraw, shape: Mapping[str, Any], sx: float, sy: float,
                fill: int) -> None:
    kind = shape.get("kind")
    if kind == "rect":
        x, y = shape["x"] * sx, shape["y"] * sy
        draw.rectangle([x, y, x + shape["w"] * sx, y + shape["h"] * sy], fill=fill)
    elif kind == "circle":
        x, y, r = shape["x"], shape["y"], shape["r"]
        draw.ellipse([(x - r) * sx, (y - r) * sy, (x + r) * sx, (y + r) * sy], fill=fill)
    elif kind == "poly":
        draw.polygon([(px * sx, py * sy) for px, py in shape["points"]], fill=fill)
    elif kind == "brush":
        points = [(px * sx, py * sy) for px, py in shape["points"]]
        r = shape["r"]
        if len(points) > 1:
            draw.line(points, fill=fill, width=max(1, round(2 * r * (sx + sy) / 2)))
        for px, py in shape["points"]:
            draw.ellipse([(px - r) * sx, (py - r) * sy, (px + r) * sx, (py + r) * sy],
                         fill=fill)
