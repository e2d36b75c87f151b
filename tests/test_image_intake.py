"""Every picture that enters Tablée is decoded and re-encoded by one function
(``app.services.images.clean_image``), whatever brings it: a portrait or a map uploaded from a
page or the API, a portrait or a map in an imported campaign file (issue 22). Nothing of the
file survives but its pixels: no EXIF, no text chunk, nothing hidden after the image."""

from __future__ import annotations

import base64
import io
from collections.abc import Callable

import pytest
from PIL import Image as PILImage
from PIL.PngImagePlugin import PngInfo
from sqlalchemy import select

from app.models import Image
from app.services import images
from tests.conftest import TEST_PASSWORD
from tests.helpers import ApiUser, WebUser, csrf_from
from tests.match_table import Table, seat_table

TRAILER = b"<html><script>alert(document.cookie)</script></html>"
SECRET = "Appareil de Paul, 12 rue des Lilas"


def dirty(fmt: str) -> bytes:
    """A picture carrying a camera's EXIF (or a PNG text chunk) and HTML after its end."""
    buffer = io.BytesIO()
    picture = PILImage.new("RGB", (40, 30), "darkred")
    if fmt == "JPEG":
        exif = PILImage.Exif()
        exif[0x010F] = SECRET  # Make
        picture.save(buffer, format="JPEG", exif=exif.tobytes())
    else:
        notes = PngInfo()
        notes.add_text("Comment", SECRET)
        exif = PILImage.Exif()
        exif[0x010F] = SECRET
        picture.save(buffer, format="PNG", pnginfo=notes, exif=exif.tobytes())
    data = buffer.getvalue() + TRAILER
    assert SECRET.encode() in data and PILImage.open(io.BytesIO(data)).getexif()
    return data


def assert_clean(data: bytes) -> None:
    assert b"<html" not in data and b"<script" not in data
    assert SECRET.encode() not in data and b"Exif" not in data
    with PILImage.open(io.BytesIO(data)) as picture:
        assert dict(picture.getexif()) == {}
        assert not {"exif", "Comment", "comment"} & set(picture.info)
        assert picture.size == (40, 30)


@pytest.fixture
def table(api) -> Table:
    """Mia (GM), Paul (player of Aldo), Pia, Sam; a match on the default board."""
    return seat_table(api)


def browser(new_client, username: str) -> WebUser:
    person = WebUser(new_client(), username)
    token = csrf_from(person.get("/login"))
    assert person.client.post("/login", data={
        "username": username, "password": TEST_PASSWORD, "csrf_token": token},
        follow_redirects=False).status_code == 303
    return person


def aldo(table: Table) -> int:
    roster = table.users["mia"].get(f"/campaigns/{table.campaign_id}/characters").json()
    return next(character["id"] for character in roster if character["name"] == "Aldo")


def portrait_page(table: Table, new_client, data: bytes) -> None:
    paul = browser(new_client, "paul")
    url = f"/campaigns/{table.campaign_id}/characters/{aldo(table)}/portrait"
    assert paul.post(url, files={"portrait": ("photo.jpg", data, "image/jpeg")}).status_code \
        == 303


def portrait_api(table: Table, new_client, data: bytes) -> None:
    url = f"/campaigns/{table.campaign_id}/characters/{aldo(table)}/portrait"
    assert table.users["paul"].put(url, files={"file": ("photo.jpg", data)}).status_code \
        == 200


def map_page(table: Table, new_client, data: bytes) -> None:
    mia = browser(new_client, "mia")
    sent = mia.post(f"{table.base}/background", csrf_path=table.base, data={
        "pixels": "10", "per": "cm"}, files={"picture": ("carte.jpg", data, "image/jpeg")})
    assert sent.status_code == 303, sent.text


def map_api(table: Table, new_client, data: bytes) -> None:
    sent = table.users["mia"].request("PUT", table.base + "/background", data={
        "pixels": "10", "per": "cm"}, files={"file": ("carte.jpg", data, "image/jpeg")})
    assert sent.status_code == 200, sent.text


def imported(place: str) -> Callable[[Table, object, bytes], None]:
    """The campaign exported with a clean picture, the file's picture swapped for ``data``,
    then imported."""
    def bring(table: Table, new_client, data: bytes) -> None:
        clean = PILImage.new("RGB", (40, 30), "navy")
        buffer = io.BytesIO()
        clean.save(buffer, format="PNG")
        (portrait_api if place == "portrait" else map_api)(table, new_client, buffer.getvalue())
        mia: ApiUser = table.users["mia"]
        document = mia.get(f"/campaigns/{table.campaign_id}/export").json()
        picture = next(c["portrait"] for c in document["characters"] if c["portrait"]) \
            if place == "portrait" else document["images"][0]
        picture["data"] = base64.b64encode(data).decode()
        picture["content_type"] = "image/jpeg" if data.startswith(b"\xff\xd8") else "image/png"
        sent = mia.post("/campaigns/import", json=document)
        assert sent.status_code == 201, sent.text
    return bring


PATHS = {"portrait on the page": portrait_page, "portrait through the API": portrait_api,
         "map on the page": map_page, "map through the API": map_api,
         "portrait in a campaign file": imported("portrait"),
         "map in a campaign file": imported("map")}


@pytest.mark.parametrize("fmt", ["JPEG", "PNG"])
@pytest.mark.parametrize("bring", PATHS.values(), ids=PATHS.keys())
def test_every_picture_that_enters_is_reencoded_without_metadata(table, new_client, db, bring,
                                                                fmt):
    db.commit()
    before = set(db.scalars(select(Image.id)))
    bring(table, new_client, dirty(fmt))
    db.commit()
    stored = db.scalars(select(Image).where(Image.id.not_in(before))).all()
    for image in stored:
        assert_clean(image.data)
    assert any(looks_dark_red(image.data) for image in stored)  # the picture sent got in


def looks_dark_red(data: bytes) -> bool:
    red, green, blue = PILImage.open(io.BytesIO(data)).convert("RGB").getpixel((20, 15))
    return abs(red - 139) < 8 and green < 8 and blue < 8


def test_the_one_cleaner_says_what_the_file_was():
    clean = images.clean_image(dirty("JPEG"), max_bytes=2**20)
    assert (clean.source_format, clean.content_type) == ("JPEG", "image/jpeg")
    assert_clean(clean.data)
