"""Uploaded files in, stored pictures out: the same for the pages and the API."""

from __future__ import annotations

from fastapi import Request, UploadFile
from starlette.responses import Response

from app.models import Image

# A campaign's pictures are for its members only: no cache, shared or private, keeps them.
IMAGE_CACHE = "no-store"


def read_upload(upload: UploadFile | None, max_bytes: int) -> bytes:
    """At most one byte more than allowed: enough to know a file is too large."""
    if upload is None:
        return b""
    upload.file.seek(0)
    return upload.file.read(max_bytes + 1)


def image_response(request: Request, image: Image) -> Response:
    """A stored (re-encoded) picture, private to the campaign's members; revalidated by its
    hash."""
    etag = f'"{image.sha256}"'
    headers = {"Cache-Control": IMAGE_CACHE, "ETag": etag}
    if request.headers.get("if-none-match") == etag:
        return Response(status_code=304, headers=headers)
    return Response(image.data, media_type=image.content_type, headers=headers)
