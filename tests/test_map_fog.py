"""The fog of war and hidden figures (issue 28), through the JSON API: what a player may not see
never reaches them — not in their state, not in the forms offered, not in the log, not in the
raw bytes of the API stream, not in the picture under the board — while the GM sees it all.

Mia is the GM; Paul plays Aldo (t1), Pia plays Brune (t2); Sam watches. The GM's goblin
« Gobelin masqué » (t3) waits in the ground the fog covers.
"""

from __future__ import annotations

import asyncio
from io import BytesIO

import pytest
from PIL import Image as PILImage

from tests.helpers import asgi_stream
from tests.match_table import Table, seat_table
from tests.rules.hidden import in_raw_bytes

GOBLIN = "Gobelin masqué"


@pytest.fixture
def table(api) -> Table:
    return seat_table(api)


def ok(response, status: int = 200) -> dict:
    assert response.status_code == status, response.text
    return response.json()


def act(table: Table, who: str, action: dict) -> dict:
    return ok(table.act(who, action))


def covered_with_goblin(table: Table) -> None:
    """The whole map covered, the players' corner (0–60 × 0–40) revealed, a goblin added
    at (100, 70), in the fog."""
    act(table, "mia", {"kind": "map_fog_reset", "base": "hidden"})
    act(table, "mia", {"kind": "map_fog", "op": "reveal", "shape": "rect", "x": 0, "y": 0,
                       "w": 60, "h": 40})
    act(table, "mia", {"kind": "add_token", "name": GOBLIN, "hp_max": 7, "x": 100, "y": 70})


def tokens_seen(table: Table, who: str) -> dict:
    return table.match(who)["state"]["tokens"]


def test_a_figure_in_the_fog_is_the_gms_alone(table):
    covered_with_goblin(table)
    assert "t3" in tokens_seen(table, "mia")
    for who in ("paul", "pia", "sam"):
        seen = table.match(who)
        assert "t3" not in seen["state"]["tokens"], who
        assert "t3" not in seen["state"]["order"], who
        assert GOBLIN not in str(seen), who  # nor in the forms offered, nor anywhere
    # The GM's event that put it there reaches the players as a secret, never its name.
    for who in ("paul", "sam"):
        assert GOBLIN not in str(table.log(who)), who
    assert any(event["kind"] == "token_added" and event["payload"]["token"]["name"] == GOBLIN
               for event in table.log("mia"))


def test_revealing_the_ground_shows_the_figure_and_hiding_it_again_takes_it_back(table):
    covered_with_goblin(table)
    act(table, "mia", {"kind": "map_fog", "op": "reveal", "shape": "circle", "x": 100,
                       "y": 70, "r": 5})
    assert tokens_seen(table, "paul")["t3"]["name"] == GOBLIN
    act(table, "mia", {"kind": "map_veil", "token": "t3", "hidden": True})
    assert "t3" not in tokens_seen(table, "paul")
    assert tokens_seen(table, "mia")["t3"]["name"] == GOBLIN
    act(table, "mia", {"kind": "map_veil", "token": "t3", "hidden": False})
    assert "t3" in tokens_seen(table, "paul")
    act(table, "mia", {"kind": "map_fog", "op": "hide", "shape": "poly",
                       "points": [[90, 60], [110, 60], [110, 80], [90, 80]]})
    assert "t3" not in tokens_seen(table, "paul")


def test_a_figure_in_the_fog_shows_to_its_player_only(table):
    """As in a dark corridor: who walks out of the light is lost to the others' sight."""
    covered_with_goblin(table)
    act(table, "paul", {"kind": "move", "token": "t1", "x": 110, "y": 75})  # into the fog
    assert "t1" in tokens_seen(table, "paul")
    assert "t1" not in tokens_seen(table, "pia")
    # Paul's move into the fog: his and the GM's line; Pia reads that he did something.
    last = table.log("pia")[-1]
    assert last["kind"] == "hidden" and "t1" not in str(last["payload"])
    assert table.log("paul")[-1]["kind"] == "token_moved"
    act(table, "paul", {"kind": "move", "token": "t1", "x": 30, "y": 20})  # back in the light
    assert "t1" in tokens_seen(table, "pia")


def test_a_veiled_figure_shows_to_its_player_only(table):
    act(table, "mia", {"kind": "map_veil", "token": "t1", "hidden": True})
    assert "t1" in tokens_seen(table, "paul")
    assert "t1" not in tokens_seen(table, "pia")
    assert table.match("paul")["state"]["board"]["veiled"] == ["t1"]
    assert "veiled" not in table.match("pia")["state"]["board"]
    act(table, "paul", {"kind": "move", "token": "t1", "x": 100, "y": 72})
    assert table.log("pia")[-1]["kind"] == "hidden"
    assert table.log("paul")[-1]["kind"] == "token_moved"


def test_a_player_cannot_reach_a_hidden_figure_by_its_id(table):
    covered_with_goblin(table)
    # Free play lets a player act on their own figures only; a hidden id reads as no one's.
    hidden = table.act("paul", {"kind": "adjust_hp", "token": "t3", "delta": -1})
    unknown = table.act("paul", {"kind": "adjust_hp", "token": "t9", "delta": -1})
    assert hidden.status_code == unknown.status_code == 422
    assert hidden.json()["error"]["message"].replace("t3", "?") == \
        unknown.json()["error"]["message"].replace("t9", "?")


def test_the_forms_offered_a_player_name_no_hidden_figure(table):
    covered_with_goblin(table)
    for who in ("paul", "sam"):
        forms = table.match(who)["legal_actions"]
        assert "t3" not in str([form["choices"] for form in forms]), who
    mia_forms = {form["kind"]: form for form in table.match("mia")["legal_actions"]}
    assert "t3" in mia_forms["map_veil"]["choices"]["tokens"]
    assert "map_fog" not in {form["kind"] for form in table.match("paul")["legal_actions"]}


def test_terrain_and_marks_under_the_fog_are_the_gms(table):
    act(table, "mia", {"kind": "add_terrain", "label": "Fosse aux pieux", "x": 90, "y": 60,
                       "w": 10, "h": 10})
    act(table, "mia", {"kind": "map_fog_reset", "base": "hidden"})
    assert table.match("paul")["state"]["board"]["terrain"] == []
    assert table.match("mia")["state"]["board"]["terrain"][0]["label"] == "Fosse aux pieux"
    act(table, "mia", {"kind": "add_terrain", "label": "Trappe secrète", "x": 70, "y": 60,
                       "w": 5, "h": 5})
    assert "Trappe secrète" not in str(table.log("paul"))
    act(table, "mia", {"kind": "map_fog", "op": "reveal", "shape": "rect", "x": 85,
                       "y": 55, "w": 10, "h": 10})  # a corner of the pit shows
    assert [shape["label"] for shape in table.match("paul")["state"]["board"]["terrain"]] \
        == ["Fosse aux pieux"]


def test_only_the_gm_covers_and_reveals_and_bad_shapes_change_nothing(table):
    seq = table.match("mia")["seq"]
    for who, action in (
            ("paul", {"kind": "map_fog_reset", "base": "hidden"}),
            ("paul", {"kind": "map_veil", "token": "t2", "hidden": True}),
            ("mia", {"kind": "map_fog_reset", "base": "grey"}),
            ("mia", {"kind": "map_fog", "op": "reveal", "shape": "rect", "x": 0, "y": 0,
                     "w": 0, "h": 5}),
            ("mia", {"kind": "map_fog", "op": "reveal", "shape": "rect", "x": -5, "y": 0,
                     "w": 5, "h": 5}),
            ("mia", {"kind": "map_fog", "op": "reveal", "shape": "poly",
                     "points": [[0, 0], [5, 5]]}),
            ("mia", {"kind": "map_fog", "op": "reveal", "shape": "brush", "r": 2,
                     "points": "1,1 abc"}),
            ("mia", {"kind": "map_veil", "token": "t2", "hidden": False}),
            ("mia", {"kind": "map_veil", "token": "t99", "hidden": True})):
        answer = table.act(who, action)
        assert answer.status_code in (403, 422), (action, answer.text)
        assert answer.json()["error"]["message"]
    assert table.act("sam", {"kind": "map_fog_reset", "base": "hidden"}).status_code == 403
    assert table.match("mia")["seq"] == seq
    refused = table.act("mia", {"kind": "map_fog", "op": "reveal", "shape": "rect", "x": 0,
                                "y": 0, "w": 0, "h": 5}).json()["error"]
    assert refused["field"] == "w"


def test_undo_covers_the_ground_again(table):
    covered_with_goblin(table)
    done = act(table, "mia", {"kind": "map_fog_reset", "base": "shown"})
    assert "t3" in tokens_seen(table, "paul")
    ok(table.users["mia"].post(table.base + "/rewind", json={"to_seq": done["seq"] - 1}))
    assert "t3" not in tokens_seen(table, "paul")


def test_the_picture_under_a_fogged_board_reaches_a_player_painted(table):
    picture = BytesIO()
    PILImage.new("RGB", (120, 80), (250, 250, 250)).save(picture, "PNG")
    uploaded = table.users["mia"].request(
        "PUT", table.base + "/background", files={"file": ("carte.png", picture.getvalue(),
                                                           "image/png")},
        data={"pixels": "1", "per": "cm"})
    image_id = ok(uploaded)["events"][0]["payload"]["image_id"]
    act(table, "mia", {"kind": "map_fog_reset", "base": "hidden"})
    act(table, "mia", {"kind": "map_fog", "op": "reveal", "shape": "rect", "x": 0, "y": 0,
                       "w": 60, "h": 40})
    url = table.users["paul"].get(table.base + "/background").json()["current"]["url"]
    painted = table.users["paul"].client.get(url, headers=table.users["paul"].headers)
    assert painted.status_code == 200, painted.text
    pixels = PILImage.open(BytesIO(painted.content)).convert("RGB")
    assert pixels.getpixel((10, 10)) == (250, 250, 250)  # revealed
    assert pixels.getpixel((100, 70)) != (250, 250, 250)  # hidden: painted over
    whole = table.users["mia"].get(table.base + "/map")
    assert PILImage.open(BytesIO(whole.content)).convert("RGB").getpixel((100, 70)) == \
        (250, 250, 250)
    # The stored picture itself is not a player's while the fog covers it.
    assert table.users["paul"].get(f"/campaigns/{table.campaign_id}/images/{image_id}"
                                   ).status_code == 404


def test_nothing_hidden_reaches_a_players_raw_stream(app, table, running_app):
    """The raw bytes of every role's API stream, read from the start."""
    covered_with_goblin(table)
    act(table, "mia", {"kind": "roll_initiative"})  # the order names the goblin
    act(table, "mia", {"kind": "move", "token": "t3", "x": 105, "y": 72})
    last = table.match("mia")["seq"]
    for who in ("paul", "pia", "sam"):
        raw = read_stream(app, running_app, table, who, last)
        assert f"id: {last}\r\n".encode() in raw, who
        assert GOBLIN.encode() not in raw and b'"t3"' not in raw, who
    raw = read_stream(app, running_app, table, "mia", last)
    assert GOBLIN.encode() in raw and b'"t3"' in raw


def test_the_table_page_draws_the_fog_and_leaves_the_hidden_figure_out(app, table,
                                                                      running_app):
    covered_with_goblin(table)
    gm_page = table.users["mia"].client.get(table.base, headers=table.users["mia"].headers)
    player_page = table.users["paul"].client.get(table.base,
                                                 headers=table.users["paul"].headers)
    assert gm_page.status_code == player_page.status_code == 200
    assert 'id="token-t3"' in gm_page.text and "veil-fog" in gm_page.text
    assert GOBLIN in gm_page.text and 'class="fog-layer fog-gm"' in gm_page.text
    assert 'id="token-t3"' not in player_page.text and GOBLIN not in player_page.text
    assert 'class="fog-layer"' in player_page.text
    assert 'id="action-map_fog"' in gm_page.text and "action-map_fog" not in player_page.text
    # The live stream of the page, from the start, neither.
    last = table.match("mia")["seq"]
    for who in ("paul", "sam"):
        raw = read_stream(app, running_app, table, who, last, page=True)
        assert f"id: {last}\r\n".encode() in raw, who
        assert GOBLIN.encode() not in raw and b"token-t3" not in raw, who


def read_stream(app, running_app, table: Table, who: str, last: int, *,
                page: bool = False) -> bytes:
    body = bytearray()
    arrived = asyncio.Event()
    token = table.users[who].headers["Authorization"].removeprefix("Bearer ")

    async def send(message: dict) -> None:
        body.extend(message.get("body", b""))
        if f"id: {last}\r\n".encode() in body:
            arrived.set()

    async def read() -> None:
        path = f"{table.base}/stream" if page else f"/api/v1{table.base}/stream"
        await asyncio.wait_for(asgi_stream(app, path, token, send, arrived, query=b"after=0"),
                               30)

    running_app.portal.call(read)
    return bytes(body)


def test_hidden_strings_helper_finds_json_strings():
    from tests.rules.hidden import Hidden
    assert in_raw_bytes(b'{"name":"Gobelin masqu\xc3\xa9"}', Hidden(frozenset({GOBLIN}))) == \
        [GOBLIN]


def test_a_target_list_never_names_a_hidden_figure():
    """Whatever the game offers (judged on the whole state), a choice naming a figure hidden
    from the viewer goes — a list item, a record of it, a field — and the GM keeps it."""
    from app.rules.map_view import forms_for
    from app.rules.match import ActionForm, Actor

    state = {"board": {"unit": "cm", "width": 100, "height": 100, "terrain": [],
                       "fog": {"base": "hidden", "shapes": [
                           {"op": "reveal", "kind": "rect", "x": 0, "y": 0, "w": 50, "h": 50}]}},
             "tokens": {"t1": {"id": "t1", "name": "Kenji", "character_id": 1, "x": 10,
                               "y": 10},
                        "t3": {"id": "t3", "name": "Pieuvre", "x": 80, "y": 80}}}
    offered = [ActionForm("attack", "Attack", choices={
        "targets": ["t1", "t3"], "armed": [{"token": "t3", "weapon": "griffes"}],
        "default": "t3"})]
    (seen,) = forms_for(offered, state, Actor(7, character_ids=frozenset({1})))
    assert seen.choices == {"targets": ["t1"], "armed": [], "default": None}
    assert forms_for(offered, state, Actor(1, is_gm=True)) == offered
