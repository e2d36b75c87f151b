"""Portraits: only real PNG/JPEG/WebP/GIF images within the limits, re-encoded, members only."""

from __future__ import annotations

import io
import struct
import zlib

import pytest
from PIL import Image as PILImage
from PIL.PngImagePlugin import PngInfo
from sqlalchemy import func, select

from app.models import Image
from tests.helpers import soup
from tests.test_characters import add_character, archive, saved, seat_table


@pytest.fixture
def table(web, db):
    return seat_table(web, db)


@pytest.fixture
def api_table(api, db):
    return seat_table(api, db)


def picture(fmt: str = "PNG", size=(40, 30), mode: str = "RGB", **save_options) -> bytes:
    buffer = io.BytesIO()
    PILImage.new(mode, size, "darkred").save(buffer, format=fmt, **save_options)
    return buffer.getvalue()


def png_declaring(width: int, height: int) -> bytes:
    """A few hundred bytes whose header claims ``width``×``height`` pixels (an image bomb)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(b"\x00" * 1000)) + chunk(b"IEND", b""))


def image_count(db) -> int:
    db.commit()
    return db.scalar(select(func.count()).select_from(Image))


def upload(person, table, cid, data: bytes, filename="portrait.png", content_type="image/png"):
    return person.post(f"{table.url}/{cid}/portrait",
                       files={"portrait": (filename, data, content_type)})


def test_a_png_portrait_is_stored_and_served_to_members(table, db):
    cid = add_character(db, table, "pia", "Aldo")
    response = upload(table["pia"], table, cid, picture("PNG"))
    assert response.status_code == 303
    img = table["paul"].page(table.url).select_one("tr[data-character-id] img.portrait")
    served = table["sam"].get(img["src"])
    assert served.status_code == 200
    assert served.headers["content-type"] == "image/png"
    assert served.headers["cache-control"] == "no-store"  # members only: no cache keeps it
    assert served.headers["x-content-type-options"] == "nosniff"
    assert PILImage.open(io.BytesIO(served.content)).size == (40, 30)
    again = table["sam"].get(img["src"], headers={"If-None-Match": served.headers["etag"]})
    assert again.status_code == 304


@pytest.mark.parametrize(("fmt", "mode", "stored_type"), [
    ("JPEG", "RGB", "image/jpeg"), ("WEBP", "RGB", "image/png"), ("GIF", "P", "image/png"),
    ("PNG", "RGBA", "image/png")])
def test_each_accepted_format_is_reencoded(table, db, fmt, mode, stored_type):
    cid = add_character(db, table, "pia", "Aldo")
    assert upload(table["pia"], table, cid, picture(fmt, mode=mode),
                  content_type="application/octet-stream").status_code == 303
    served = table["pia"].get(f"{table.url}/{cid}/portrait")
    assert served.headers["content-type"] == stored_type


def test_metadata_is_stripped(table, db):
    cid = add_character(db, table, "pia", "Aldo")
    exif = PILImage.Exif()
    exif[0x010F] = "Appareil de Pia"  # Make
    assert upload(table["pia"], table, cid, picture("JPEG", exif=exif.tobytes()),
                  filename="photo.jpg", content_type="image/jpeg").status_code == 303
    stored = PILImage.open(io.BytesIO(table["pia"].get(f"{table.url}/{cid}/portrait").content))
    assert dict(stored.getexif()) == {}
    notes = PngInfo()
    notes.add_text("Comment", "chez moi, 12 rue des Lilas")
    upload(table["pia"], table, cid, picture("PNG", pnginfo=notes))
    stored = PILImage.open(io.BytesIO(table["pia"].get(f"{table.url}/{cid}/portrait").content))
    assert "Comment" not in stored.info


def test_big_pictures_are_scaled_down_for_storage(table, db):
    cid = add_character(db, table, "pia", "Aldo")
    upload(table["pia"], table, cid, picture("PNG", size=(3000, 1500)))
    stored = PILImage.open(io.BytesIO(table["pia"].get(f"{table.url}/{cid}/portrait").content))
    assert stored.size == (1024, 512)


BAD_FILES = {
    "text renamed .png": (b"Hello, I am a text file wearing a .png hat.\n" * 20,
                          "not a PNG, JPEG"),
    "bmp": (picture("BMP"), "not a PNG, JPEG"),
    "svg": (b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
            "not a PNG, JPEG"),
    "truncated png": (picture("PNG", size=(300, 300))[:200], "not a PNG, JPEG"),
    "bomb 100000²": (png_declaring(100_000, 100_000), "at most 4096×4096"),
    "bomb 10000²": (png_declaring(10_000, 10_000), "at most 4096×4096"),
    "4097 wide": (png_declaring(4097, 1), "at most 4096×4096"),
    "empty": (b"", "Choose an image file"),
}


@pytest.mark.parametrize(("data", "words"), BAD_FILES.values(), ids=BAD_FILES.keys())
def test_bad_files_are_refused_inline_and_change_nothing(table, db, data, words):
    cid = add_character(db, table, "pia", "Aldo")
    upload(table["pia"], table, cid, picture("PNG"))
    version = saved(db, cid).version
    response = upload(table["pia"], table, cid, data)
    assert response.status_code == 422
    error = soup(response).select_one("#portrait-error")
    assert words in error.text
    assert image_count(db) == 1 and saved(db, cid).version == version


def test_a_file_over_the_size_limit_gets_413(table, db, settings):
    cid = add_character(db, table, "pia", "Aldo")
    response = upload(table["pia"], table, cid, b"\x89PNG" + b"0" * settings.max_portrait_bytes)
    assert response.status_code == 413
    assert "too large" in soup(response).select_one("#portrait-error").text
    assert image_count(db) == 0


def test_replacing_and_removing_a_portrait_leaves_no_orphan_image(table, db):
    cid = add_character(db, table, "pia", "Aldo")
    upload(table["pia"], table, cid, picture("PNG"))
    upload(table["pia"], table, cid, picture("JPEG"), content_type="image/jpeg")
    assert image_count(db) == 1
    page = table["pia"].page(f"{table.url}/{cid}/edit")
    assert page.select_one("form.remove-portrait button")["data-confirm"]
    assert table["pia"].post(f"{table.url}/{cid}/portrait/delete").status_code == 303
    assert image_count(db) == 0
    assert table["pia"].get(f"{table.url}/{cid}/portrait").status_code == 404
    upload(table["pia"], table, cid, picture("PNG"))
    assert table["pia"].post(f"{table.url}/{cid}/delete").status_code == 303
    assert image_count(db) == 0


def test_who_may_upload_and_see_a_portrait(table, db, new_client):
    cid = add_character(db, table, "pia", "Aldo")
    for name in ("paul", "sam"):
        assert upload(table[name], table, cid, picture()).status_code == 403
    assert upload(table["olga"], table, cid, picture()).status_code == 404
    assert upload(table["gaelle"], table, cid, picture()).status_code == 303
    url = f"{table.url}/{cid}/portrait"
    assert table["olga"].get(url).status_code == 404
    assert new_client().get(url, follow_redirects=False).status_code == 303  # to log in
    assert table["sam"].get(url).status_code == 200


def test_archived_campaign_refuses_uploads(table, db):
    cid = add_character(db, table, "pia", "Aldo")
    archive(db, table)
    assert upload(table["pia"], table, cid, picture()).status_code == 409
    assert image_count(db) == 0


def test_api_portrait(api_table, db, settings):
    pia = api_table["pia"]
    cid = add_character(db, api_table, "pia", "Aldo")
    url = f"/campaigns/{api_table.campaign_id}/characters/{cid}/portrait"
    put = pia.put(url, files={"file": ("a.gif", picture("GIF", mode="P"), "image/gif")})
    assert put.status_code == 200, put.text
    assert put.json()["portrait_url"] == f"/api/v1{url}"
    served = api_table["sam"].get(url)
    assert served.headers["content-type"] == "image/png"
    wrong = pia.put(url, files={"file": ("a.png", b"not an image", "image/png")})
    assert wrong.status_code == 422
    assert wrong.json()["error"]["code"] == "unsupported_image"
    big = pia.put(url, files={"file": ("a.png", b"0" * (settings.max_portrait_bytes + 1))})
    assert big.status_code == 413 and big.json()["error"]["code"] == "too_large"
    assert api_table["paul"].put(url, files={"file": ("a.png", picture())}).status_code == 403
    assert api_table["olga"].get(url).status_code == 404
    removed = pia.delete(url)
    assert removed.status_code == 200 and removed.json()["portrait_url"] is None
    assert pia.get(url).status_code == 404
