"""The JSON API for the GM's map under the board and the campaign's dice cap (issue 10): the
same services, permissions and refusals as the pages; a refusal changes nothing."""

from __future__ import annotations

from io import BytesIO

import pytest
from PIL import Image as PILImage
from sqlalchemy import select

from app.models import Campaign, MatchEvent
from tests.match_table import Table, seat_table


@pytest.fixture
def table(api) -> Table:
    """Mia (GM) with Paul and Pia (players) and Sam (spectator); a match on a 120 × 80 cm
    board (the default)."""
    return seat_table(api)


def png(width: int, height: int, colour=(30, 120, 60)) -> bytes:
    out = BytesIO()
    PILImage.new("RGB", (width, height), colour).save(out, "PNG")
    return out.getvalue()


def upload(table: Table, who: str, data: bytes, pixels="10", per="cm"):
    return table.users[who].request(
        "PUT", table.base + "/background", files={"file": ("carte.png", data, "image/png")},
        data={"pixels": pixels, "per": per})


def events(db, table: Table) -> int:
    db.commit()
    return len(db.scalars(select(MatchEvent).where(MatchEvent.match_id == table.match_id)
                          ).all())


def background(table: Table, who: str = "mia") -> dict:
    response = table.users[who].get(table.base + "/background")
    assert response.status_code == 200, response.text
    return response.json()


def test_the_gm_uploads_switches_and_clears_the_map(table, db):
    mia = table.users["mia"]
    assert background(table) == {"current": None, "used": []}
    answer = upload(table, "mia", png(600, 400), pixels="10", per="cm")
    assert answer.status_code == 200, answer.text
    event = answer.json()["events"][0]
    assert event["kind"] == "board_background"
    first = event["payload"]["image_id"]
    current = background(table)["current"]
    assert (current["width"], current["height"], current["pixels"], current["per"]) == (
        60, 40, 10, "cm")  # 600 × 400 px at 10 px per cm
    assert table.match("paul")["state"]["board"]["background"]["image_id"] == first
    # Re-encoded, served to members only.
    picture = table.users["sam"].get(f"/campaigns/{table.campaign_id}/images/{first}")
    assert picture.status_code == 200 and picture.headers["content-type"] == "image/png"
    assert current["url"] == f"/api/v1/campaigns/{table.campaign_id}/images/{first}"

    # In inches on a cm board: 2.54 cm per inch.
    second = upload(table, "mia", png(254, 127, (200, 0, 0)), pixels="100", per="in").json()[
        "events"][0]["payload"]["image_id"]
    assert background(table)["current"]["width"] == 6.45
    assert background(table)["used"] == [first, second]
    assert background(table, "paul")["used"] == []  # the GM's list

    switched = mia.post(table.base + "/background/switch",
                        json={"image_id": first, "pixels": 5, "per": "cm"})
    assert switched.status_code == 200, switched.text
    assert background(table)["current"]["image_id"] == first
    assert background(table)["current"]["width"] == 120

    cleared = mia.request("DELETE", table.base + "/background")
    assert cleared.status_code == 200, cleared.text
    assert background(table)["current"] is None
    assert "background" not in table.match("paul")["state"]["board"]
    seq = cleared.json()["seq"]
    assert mia.post(table.base + "/rewind", json={"to_seq": seq - 1}).status_code == 200
    assert background(table)["current"]["image_id"] == first  # undone like any event


def test_a_refused_map_changes_nothing(table, db):
    mia = table.users["mia"]
    before = events(db, table)
    assert upload(table, "paul", png(10, 10)).status_code == 403
    assert upload(table, "sam", png(10, 10)).status_code == 403
    assert table.users["paul"].request("DELETE", table.base + "/background").status_code == 403
    assert table.users["paul"].post(table.base + "/background/switch", json={
        "image_id": 1, "pixels": 5, "per": "cm"}).status_code == 403
    bad_picture = upload(table, "mia", b"not a picture")
    assert bad_picture.status_code == 422
    assert bad_picture.json()["error"]["field"] == "picture"
    assert "PNG" in bad_picture.json()["error"]["message"]
    for pixels, per, status in (("0", "cm", 422), ("abc", "cm", 422), ("-3", "cm", 422),
                                ("5e-324", "cm", 422), ("0.09", "cm", 422),
                                ("20000", "cm", 422), ("5", "parsec", 422),
                                ("5", "sq", 422)):  # per square on a cm board
        response = upload(table, "mia", png(10, 10), pixels=pixels, per=per)
        assert response.status_code == status, (pixels, per, response.text)
        assert response.json()["error"]["message"]
    tiny = mia.post(table.base + "/background/switch",  # would draw a map of infinite width
                    json={"image_id": 1, "pixels": 5e-324, "per": "cm"})
    assert tiny.status_code == 422, tiny.text
    never_used = mia.post(table.base + "/background/switch",
                          json={"image_id": 999, "pixels": 5, "per": "cm"})
    assert never_used.status_code == 422
    assert never_used.json()["error"]["field"] == "picture"
    assert events(db, table) == before
    assert background(table) == {"current": None, "used": []}


def test_the_dice_cap_is_read_and_set_by_the_gm_only(table, db):
    mia, paul = table.users["mia"], table.users["paul"]
    url = f"/campaigns/{table.campaign_id}/dice-cap"
    assert mia.get(url).json() == {"dice_cap": 100, "is_default": True, "default": 100,
                                   "maximum": 1000}
    assert paul.get(url).status_code == 403
    assert paul.request("PUT", url, json={"dice_cap": 5}).status_code == 403
    for bad in (0, 1001, -1, "12", 2.5, True):
        response = mia.request("PUT", url, json={"dice_cap": bad})
        assert response.status_code == 422, (bad, response.text)
        assert response.json()["error"]["code"] == "invalid_input"
    db.commit()
    assert db.get(Campaign, table.campaign_id).dice_cap is None  # nothing changed

    assert mia.request("PUT", url, json={"dice_cap": 3}).json()["dice_cap"] == 3
    refused = table.act("paul", {"kind": "roll", "expression": "4d6"})
    assert refused.status_code == 422 and "at most 3 dice" in refused.json()["error"]["message"]
    assert mia.request("PUT", url, json={"dice_cap": None}).json() == {
        "dice_cap": 100, "is_default": True, "default": 100, "maximum": 1000}
    # An archived campaign is read-only.
    assert mia.post(f"/campaigns/{table.campaign_id}/archive").status_code == 200
    assert mia.request("PUT", url, json={"dice_cap": 7}).status_code == 409
