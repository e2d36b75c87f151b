"""Handouts (issue 28), through the JSON API and the pages: the GM hands a text or a picture to
everyone or to chosen players; the same proof as whispers — a handout to Pia never reaches
Paul: not his state, his list, his log, his page, the raw bytes of his stream, nor its
picture —; taken back, it is gone; the campaign's file carries it, picture and all.

Mia is the GM; Paul plays Aldo, Pia plays Brune; Sam watches.
"""

from __future__ import annotations

from io import BytesIO

import pytest
from PIL import Image as PILImage

from tests.match_table import Table, seat_table
from tests.test_map_fog import act, ok, read_stream

LETTER = "Rendez-vous au moulin à minuit"
TITLE = "Lettre de la baronne"


@pytest.fixture
def table(api) -> Table:
    return seat_table(api)


def png() -> bytes:
    out = BytesIO()
    PILImage.new("RGB", (40, 30), (200, 30, 30)).save(out, "PNG")
    return out.getvalue()


def share(table: Table, *, title: str = TITLE, text: str = LETTER, to=None,
          picture: bytes | None = None, who: str = "mia"):
    data = {"title": title, "text": text}
    if to is not None:
        data["to"] = to
    files = {"file": ("lettre.png", picture, "image/png")} if picture else None
    return table.users[who].request("POST", table.base + "/handouts", data=data, files=files)


def handouts(table: Table, who: str) -> list[dict]:
    return ok(table.users[who].get(table.base + "/handouts"))


def test_a_handout_to_everyone_is_everyones(table):
    ok(share(table))
    for who in ("mia", "paul", "pia", "sam"):
        (seen,) = handouts(table, who)
        assert (seen["title"], seen["text"], seen["user_ids"]) == (TITLE, LETTER, None), who
        assert table.match(who)["state"]["handouts"][0]["title"] == TITLE
    assert table.log("sam")[-1]["kind"] == "handout_shared"


def test_a_handout_to_pia_never_reaches_paul(app, running_app, table):
    pia = table.users["pia"].id
    answer = ok(share(table, to=[str(pia)], picture=png()))
    assert answer["events"][0]["visibility"] == "quiet"
    (mine,) = handouts(table, "pia")
    assert mine["user_ids"] == [pia] and mine["picture"]
    picture = table.users["pia"].client.get(mine["picture"], headers=table.users["pia"].headers)
    assert picture.status_code == 200 and picture.headers["content-type"] == "image/png"
    assert handouts(table, "mia")[0]["title"] == TITLE
    last = table.match("mia")["seq"]
    act(table, "mia", {"kind": "note", "text": "La nuit tombe."})  # ends what streams read
    for who in ("paul", "sam"):
        assert handouts(table, who) == [], who
        assert "handouts" not in table.match(who)["state"], who
        assert TITLE not in str(table.log(who)) and LETTER not in str(table.log(who)), who
        assert all(event["seq"] != last for event in table.log(who)), who  # not even a trace
        raw = read_stream(app, running_app, table, who, last + 1)
        assert TITLE.encode() not in raw and LETTER.encode() not in raw, who
        page = table.users[who].client.get(table.base, headers=table.users[who].headers)
        assert TITLE not in page.text, who
        user = table.users[who]
        assert user.client.get(mine["picture"], headers=user.headers).status_code == 404
        assert user.client.get(table.base + "/handouts/h1",
                               headers=user.headers).status_code == 404
    raw = read_stream(app, running_app, table, "pia", last + 1)
    assert TITLE.encode() in raw
    page = table.users["pia"].client.get(table.base + "/handouts/h1",
                                         headers=table.users["pia"].headers)
    assert page.status_code == 200 and LETTER in page.text


def test_taken_back_it_is_gone(table):
    pia = table.users["pia"].id
    ok(share(table, to=[str(pia)], picture=png()))
    picture = handouts(table, "pia")[0]["picture"]
    act(table, "mia", {"kind": "handout_withdraw", "handout": "h1"})
    assert handouts(table, "pia") == [] and handouts(table, "mia") == []
    user = table.users["pia"]
    assert user.client.get(picture, headers=user.headers).status_code == 404
    forms = {form["kind"] for form in table.match("mia")["legal_actions"]}
    assert "handout_withdraw" not in forms


def test_refused_handouts_store_nothing(table):
    seq = table.match("mia")["seq"]
    for answer, status, field in (
            (share(table, title=" "), 422, "title"),
            (share(table, text=""), 422, "text"),
            (share(table, to=["999"]), 422, "to"),
            (share(table, to=[str(table.users["mia"].id)]), 422, "to"),
            (share(table, picture=b"not a picture"), 422, "picture")):
        assert answer.status_code == status, answer.text
        assert answer.json()["error"]["field"] == field, answer.text
    assert share(table, who="paul").status_code == 403
    assert table.match("mia")["seq"] == seq
    assert table.act("paul", {"kind": "handout_withdraw", "handout": "h1"}).status_code == 422


def test_the_campaign_file_carries_the_handout_and_its_picture(table):
    ok(share(table, to=[str(table.users["pia"].id)], picture=png()))
    document = ok(table.users["mia"].get(f"/campaigns/{table.campaign_id}/export"))
    assert document["images"], "the handout's picture travels with the file"
    imported = table.users["mia"].post("/campaigns/import", json=document,
                                       params={"name": "Copie"})
    assert imported.status_code == 201, imported.text
    campaign_id = imported.json()["campaign_id"]
    matches = ok(table.users["mia"].get(f"/campaigns/{campaign_id}/matches"))
    base = f"/campaigns/{campaign_id}/matches/{matches[0]['id']}"
    (copied,) = ok(table.users["mia"].get(base + "/handouts"))
    assert copied["title"] == TITLE and copied["user_ids"] == []  # nobody here: the GM's
    mia = table.users["mia"]
    assert mia.client.get(copied["picture"], headers=mia.headers).status_code == 200
