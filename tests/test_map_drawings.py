"""Drawings and area templates on the board (issue 28), through the JSON API: anyone at the
table draws, each drawing for everyone or for the GM only (and its author), templates fall on
the grid, and every one of them is undone like any event or erased by its author or the GM.

Mia is the GM; Paul plays Aldo, Pia plays Brune; Sam watches. The board: 120 × 80 cm.
"""

from __future__ import annotations

import pytest

from tests.match_table import Table, seat_table
from tests.test_map_fog import act, ok, read_stream

SECRET = "Piège à loups ici"


@pytest.fixture
def table(api) -> Table:
    return seat_table(api)


def drawings(table: Table, who: str) -> list[dict]:
    return table.match(who)["state"]["board"].get("drawings", [])


def test_a_players_line_is_everyones_and_undone_like_any_event(table):
    done = act(table, "paul", {"kind": "map_draw", "shape": "line", "colour": "blue",
                               "points": [[10, 10], [40, 30]]})
    (line,) = drawings(table, "sam")
    assert (line["kind"], line["colour"], line["points"]) == ("line", "blue",
                                                               [[10, 10], [40, 30]])
    assert line["by"] == table.users["paul"].id and not line["gm_only"]
    assert table.log("pia")[-1]["kind"] == "drawing_added"
    ok(table.users["mia"].post(table.base + "/rewind", json={"to_seq": done["seq"] - 1}))
    assert drawings(table, "pia") == []


def test_the_gms_note_is_the_gms_alone(app, table, running_app):
    act(table, "mia", {"kind": "map_draw", "shape": "text", "x": 50, "y": 40, "text": SECRET,
                       "gm_only": True})
    assert drawings(table, "mia")[0]["text"] == SECRET
    for who in ("paul", "pia", "sam"):
        assert drawings(table, who) == [], who
        assert SECRET not in str(table.log(who)), who
    last = table.match("mia")["seq"]
    act(table, "mia", {"kind": "map_draw", "shape": "circle", "x": 5, "y": 5, "r": 2})
    raw = read_stream(app, running_app, table, "paul", last + 1)
    assert SECRET.encode() not in raw and b"drawing_added" in raw


def test_a_players_note_for_the_gm_is_theirs_and_the_gms(table):
    act(table, "pia", {"kind": "map_draw", "shape": "rect", "x": 10, "y": 10, "w": 5, "h": 5,
                       "gm_only": "on"})
    assert len(drawings(table, "pia")) == len(drawings(table, "mia")) == 1
    assert drawings(table, "paul") == []


def test_a_template_falls_on_the_grid_and_says_its_size(table):
    answer = act(table, "pia", {"kind": "map_template", "shape": "cone", "x": 10.4,
                                "y": 20.6, "size": 5.6, "angle": 37})
    (cone,) = drawings(table, "paul")
    assert (cone["x"], cone["y"], cone["size"], cone["angle"]) == (10, 21, 6, 30)
    assert answer["events"][0]["payload"]["drawing"]["shape"] == "cone"
    act(table, "paul", {"kind": "map_template", "shape": "circle", "x": 60, "y": 40,
                        "size": 10, "colour": "orange"})
    page = table.users["paul"].client.get(table.base, headers=table.users["paul"].headers)
    assert "cone 6 cm" in page.text and "radius 10 cm" in page.text  # English pages
    assert 'class="area template"' in page.text  # the marked area's own piece


def test_erasing_is_the_authors_or_the_gms(table):
    act(table, "paul", {"kind": "map_draw", "shape": "circle", "x": 20, "y": 20, "r": 4})
    act(table, "pia", {"kind": "map_draw", "shape": "circle", "x": 30, "y": 20, "r": 4})
    refused = table.act("paul", {"kind": "map_erase", "drawing": "d2"})
    assert refused.status_code == 422 and refused.json()["error"]["field"] == "drawing"
    act(table, "paul", {"kind": "map_erase", "drawing": "d1"})
    assert [d["id"] for d in drawings(table, "mia")] == ["d2"]
    assert table.act("paul", {"kind": "map_erase", "all": True}).status_code == 422
    act(table, "mia", {"kind": "map_erase", "all": True})
    assert drawings(table, "mia") == []
    forms = {form["kind"] for form in table.match("paul")["legal_actions"]}
    assert {"map_draw", "map_template"} <= forms and "map_erase" not in forms


def test_a_freehand_stroke_keeps_the_ink_the_browser_drew(table):
    act(table, "paul", {"kind": "map_draw", "shape": "free", "width": 0.8,
                        "points": "10,10 12,11 15,13",
                        "outline": "9.5,9.6 12,10.5 15.4,12.6 14.6,13.4 11.8,11.5 9.6,10.4"})
    (ink,) = drawings(table, "pia")
    assert ink["outline"][0] == [9.5, 9.6] and len(ink["points"]) == 3
    page = table.users["pia"].client.get(table.base, headers=table.users["pia"].headers)
    assert 'class="ink"' in page.text


def test_bad_drawings_change_nothing(table):
    seq = table.match("mia")["seq"]
    for who, action, field in (
            ("paul", {"kind": "map_draw", "shape": "line", "colour": "purple",
                      "points": [[1, 1], [2, 2]]}, "colour"),
            ("paul", {"kind": "map_draw", "shape": "line", "points": [[1, 1]]}, "points"),
            ("paul", {"kind": "map_draw", "shape": "text", "x": 5, "y": 5, "text": "x" * 201},
             "text"),
            ("paul", {"kind": "map_draw", "shape": "text", "x": 5, "y": 5, "text": "  "},
             "text"),
            ("paul", {"kind": "map_draw", "shape": "free", "points": [[1, 1], [2, 2]],
                      "outline": [[1, 1], [2, 2], [500, 3]]}, "outline"),
            ("paul", {"kind": "map_draw", "shape": "blob"}, "shape"),
            ("paul", {"kind": "map_template", "shape": "cone", "x": 10, "y": 10,
                      "size": 0}, "size"),
            ("paul", {"kind": "map_template", "shape": "cone", "x": 10, "y": 10, "size": 5,
                      "angle": "north"}, "angle"),
            ("paul", {"kind": "map_erase", "drawing": "d99"}, "drawing")):
        answer = table.act(who, action)
        assert answer.status_code == 422, (action, answer.text)
        assert answer.json()["error"]["field"] == field, (action, answer.text)
    assert table.act("sam", {"kind": "map_draw", "shape": "circle", "x": 1, "y": 1,
                             "r": 1}).status_code == 403
    assert table.match("mia")["seq"] == seq
