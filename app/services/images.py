"""Pictures: checked by decoding them, then re-encoded before they are stored.

``clean_image`` is the one way a picture enters Tablée, whatever brings it: a portrait or a
map uploaded from a page or the API, a portrait or a map in an imported campaign file.

Nothing about an upload is trusted: not its file name, not the content type the browser
sends. The bytes must decode with Pillow as PNG, JPEG, WebP or GIF, within a size and
dimension limit that is checked *before* the pixels are decoded (an "image bomb" declares
huge dimensions in a tiny file). What is stored is a fresh image built from the decoded
pixels only — no metadata (EXIF, GPS, ICC, comments), no trailing bytes, no animation —
saved as JPEG when the upload was a JPEG photo without transparency, as PNG otherwise.
"""

from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass, replace

from PIL import Image as PILImage
from PIL import ImageOps
from sqlalchemy.orm import Session

from app.errors import AppError, ValidationFailed
from app.i18n import lazy_gettext as _l
from app.models import Image

ACCEPTED_FORMATS = frozenset({"PNG", "JPEG", "WEBP", "GIF"})
MAX_DIMENSION = 4096
# Stored portraits are shown at 96 px and at most a few hundred on a sheet: keeping
# 1024 px is plenty and keeps the database (and its backups) small.
STORED_MAX_DIMENSION = 1024
JPEG_QUALITY = 88


class ImageTooLarge(AppError):
    status = 413
    code = "too_large"


@dataclass(frozen=True)
class CleanImage:
    content_type: str
    data: bytes
    width: int
    height: int
    source_format: str = ""  # what the upload was (``PNG``…), not what is stored


def mebibytes(size: int) -> str:
    """``2 MiB`` rather than ``2.0 MiB``; ``1.5`` where it matters."""
    return f"{size / 2**20:.1f}".removesuffix(".0")


def check_size(data: bytes, *, max_bytes: int, field: str = "portrait") -> None:
    if len(data) > max_bytes:
        raise ImageTooLarge(
            _l("This file is too large: at most %(n)s MiB.", n=mebibytes(max_bytes)),
            field=field)
    if not data:
        raise ValidationFailed(_l("Choose an image file."), field=field, code="empty_file")


def clean_image(data: bytes, *, max_bytes: int, field: str = "portrait") -> CleanImage:
    """Decode an upload and re-encode it safely, or raise a field-tagged error (413/422)."""
    check_size(data, max_bytes=max_bytes, field=field)
    unsupported = ValidationFailed(
        _l("This is not a PNG, JPEG, WebP or GIF image."), field=field,
        code="unsupported_image")
    too_big = _dimensions_error(field)
    try:
        with PILImage.open(io.BytesIO(data)) as picture:
            if picture.format not in ACCEPTED_FORMATS:
                raise unsupported
            if max(picture.size) > MAX_DIMENSION:
                raise too_big
            picture.load()
            pixels = _plain_pixels(picture)
            source = picture.format
    except ValidationFailed:
        raise
    except (PILImage.DecompressionBombError, PILImage.DecompressionBombWarning) as error:
        # Pillow refuses (or, where warnings are errors, warns about) huge declared sizes
        # while opening, before our own check sees them.
        raise too_big from error
    except Exception as error:
        # A hostile or broken file can fail in the decoders in many ways (OSError,
        # SyntaxError, struct.error, ValueError…): each means "not an image we accept".
        raise unsupported from error
    clean = _encode(pixels, as_jpeg=source == "JPEG" and pixels.mode == "RGB")
    return replace(clean, source_format=source)


def _dimensions_error(field: str) -> ValidationFailed:
    return ValidationFailed(
        _l("This image has too many pixels: at most %(n)s×%(n)s.", n=MAX_DIMENSION),
        field=field, code="image_dimensions")


def _plain_pixels(picture: PILImage.Image) -> PILImage.Image:
    """The first frame, turned upright, as a new RGB(A) image that carries no metadata."""
    upright = ImageOps.exif_transpose(picture) or picture
    has_alpha = upright.mode in ("RGBA", "LA", "PA") or (
        upright.mode == "P" and "transparency" in upright.info)
    converted = upright.convert("RGBA" if has_alpha else "RGB")
    converted.thumbnail((STORED_MAX_DIMENSION, STORED_MAX_DIMENSION))
    # frombytes builds a brand-new image: nothing of the upload's ``info`` survives.
    return PILImage.frombytes(converted.mode, converted.size, converted.tobytes())


def _encode(pixels: PILImage.Image, *, as_jpeg: bool) -> CleanImage:
    """JPEG keeps photos small; PNG keeps drawings and transparency exact."""
    buffer = io.BytesIO()
    if as_jpeg:
        pixels.save(buffer, format="JPEG", quality=JPEG_QUALITY, optimize=True)
        content_type = "image/jpeg"
    else:
        pixels.save(buffer, format="PNG", optimize=True)
        content_type = "image/png"
    return CleanImage(content_type=content_type, data=buffer.getvalue(),
                      width=pixels.width, height=pixels.height)


def new_image(clean: CleanImage) -> Image:
    """An ``Image`` row for a cleaned picture (the caller adds it in its transaction)."""
    return Image(content_type=clean.content_type, data=clean.data, width=clean.width,
                 height=clean.height, sha256=hashlib.sha256(clean.data).hexdigest())


def delete_image(db: Session, image_id: int | None) -> None:
    if image_id is not None and (image := db.get(Image, image_id)) is not None:
        db.delete(image)
