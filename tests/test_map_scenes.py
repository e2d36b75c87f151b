"""Scenes (issue 28), through the JSON API: a match keeps several places, each with its own
map, ground, fog, drawings and figures; the GM prepares another in secret and takes the
table there with the figures chosen, the others waiting where they were.

Mia is the GM; Paul plays Aldo (t1), Pia plays Brune (t2); Sam watches; the GM's goblin (t3)
guards the ford.
"""

from __future__ import annotations

import pytest

from tests.match_table import Table, seat_table
from tests.test_map_fog import act, ok, read_stream

CAVE = "La grotte du dragon"


@pytest.fixture
def table(api) -> Table:
    table = seat_table(api)
    act(table, "mia", {"kind": "add_token", "name": "Gobelin", "hp_max": 5, "x": 90, "y": 60})
    return table


def board(table: Table, who: str) -> dict:
    return table.match(who)["state"]["board"]


def tokens(table: Table, who: str) -> dict:
    return table.match(who)["state"]["tokens"]


def two_scenes(table: Table) -> None:
    act(table, "mia", {"kind": "map_scene_add", "current": "Le gué", "name": CAVE})


def test_a_new_scene_is_the_gms_until_the_table_goes_there(app, running_app, table):
    two_scenes(table)
    assert [scene["name"] for scene in board(table, "mia")["scenes"]] == ["Le gué", CAVE]
    assert board(table, "paul")["scenes"] == [{"id": "s1", "name": "Le gué"}]
    last = table.match("mia")["seq"]
    act(table, "mia", {"kind": "note", "text": "Le vent se lève."})
    for who in ("paul", "sam"):
        assert CAVE not in str(table.match(who)) and CAVE not in str(table.log(who)), who
        raw = read_stream(app, running_app, table, who, last + 1)
        assert CAVE.encode() not in raw, who


def test_the_table_moves_with_the_figures_chosen_and_each_scene_keeps_its_own(table):
    two_scenes(table)
    act(table, "mia", {"kind": "add_terrain", "label": "Le gué", "x": 10, "y": 10, "w": 20,
                       "h": 5})
    act(table, "mia", {"kind": "map_fog_reset", "base": "hidden"})
    act(table, "paul", {"kind": "map_draw", "shape": "circle", "x": 5, "y": 5, "r": 2})
    moved = act(table, "mia", {"kind": "map_scene_show", "scene": "s2",
                               "along": ["t1", "t2"]})
    assert moved["events"][0]["visibility"] == "public"
    here = board(table, "paul")
    assert here["scene"] == "s2" and here["scenes"] == [{"id": "s2", "name": CAVE}]
    assert here["terrain"] == [] and "fog" not in here and "drawings" not in here
    assert set(tokens(table, "paul")) == {"t1", "t2"}  # the goblin waits at the ford
    assert "t3" in tokens(table, "mia") and board(table, "mia")["away"] == {"t3": "s1"}
    page = table.users["mia"].client.get(table.base, headers=table.users["mia"].headers)
    assert 'id="token-t3"' not in page.text and "La grotte du dragon" in page.text
    act(table, "paul", {"kind": "move", "token": "t1", "x": 50, "y": 40})
    # Back to the ford, Aldo only: its ground, fog and drawing come back, Brune waits.
    act(table, "mia", {"kind": "map_scene_show", "scene": "s1", "along": ["t1"]})
    back = board(table, "mia")
    assert back["terrain"][0]["label"] == "Le gué" and back["fog"]["base"] == "hidden"
    assert len(back["drawings"]) == 1 and back["away"] == {"t2": "s2"}
    assert tokens(table, "mia")["t1"]["x"] == 50


def test_renaming_the_scene_shown_is_everyones_and_undo_brings_the_table_back(table):
    two_scenes(table)
    act(table, "mia", {"kind": "map_scene_rename", "scene": "s1", "name": "Le gué gelé"})
    assert board(table, "pia")["scenes"] == [{"id": "s1", "name": "Le gué gelé"}]
    page = table.users["pia"].client.get(table.base, headers=table.users["pia"].headers)
    assert "Le gué gelé" in page.text
    moved = act(table, "mia", {"kind": "map_scene_show", "scene": "s2", "along": ["t1"]})
    ok(table.users["mia"].post(table.base + "/rewind", json={"to_seq": moved["seq"] - 1}))
    assert board(table, "pia")["scene"] == "s1" and "t2" in tokens(table, "paul")


def test_a_hidden_figure_going_along_keeps_the_move_the_gms(table):
    two_scenes(table)
    act(table, "mia", {"kind": "map_veil", "token": "t3", "hidden": True})
    moved = act(table, "mia", {"kind": "map_scene_show", "scene": "s2",
                               "along": ["t1", "t3"]})
    assert moved["events"][0]["visibility"] == "gm"
    assert "t3" not in str(table.log("paul")[-1])


def test_bad_scene_actions_change_nothing(table):
    seq = table.match("mia")["seq"]
    assert table.act("paul", {"kind": "map_scene_add", "name": "X"}).status_code == 422
    for action, field in (({"kind": "map_scene_add", "name": " "}, "name"),
                          ({"kind": "map_scene_show", "scene": "s9"}, "scene"),
                          ({"kind": "map_scene_rename", "scene": "s9", "name": "X"}, "scene")):
        answer = table.act("mia", action)
        assert answer.status_code == 422 and answer.json()["error"]["field"] == field, action
    assert table.match("mia")["seq"] == seq
    two_scenes(table)
    seq = table.match("mia")["seq"]
    for action, field in (({"kind": "map_scene_show", "scene": "s1"}, "scene"),
                          ({"kind": "map_scene_show", "scene": "s2", "along": ["t9"]},
                           "along")):
        answer = table.act("mia", action)
        assert answer.status_code == 422 and answer.json()["error"]["field"] == field, action
    assert table.match("mia")["seq"] == seq


def test_a_campaign_file_carries_the_map_and_a_tampered_one_is_refused(table):
    two_scenes(table)
    act(table, "mia", {"kind": "map_fog_reset", "base": "hidden"})
    act(table, "paul", {"kind": "map_template", "shape": "cone", "x": 10, "y": 10,
                        "size": 6, "angle": 45})
    act(table, "mia", {"kind": "map_scene_show", "scene": "s2", "along": ["t1"]})
    mia = table.users["mia"]
    document = ok(mia.get(f"/campaigns/{table.campaign_id}/export"))
    copied = ok(mia.post("/campaigns/import", json=document, params={"name": "Copie"}), 201)
    match = ok(mia.get(f"/campaigns/{copied['campaign_id']}/matches"))[0]
    state = ok(mia.get(f"/campaigns/{copied['campaign_id']}/matches/{match['id']}"))["state"]
    assert state["board"]["scene"] == "s2" and state["board"]["away"] == {"t2": "s1", "t3": "s1"}
    stash = state["board"]["scenes"][0]["stash"]
    assert stash["fog"]["base"] == "hidden" and stash["drawings"][0]["by"] is None

    events = document["matches"][0]["events"]
    drawn = next(event for event in events if event["kind"] == "drawing_added")
    drawn["payload"]["drawing"]["colour"] = "purple"
    refused = mia.post("/campaigns/import", json=document, params={"name": "Trafiquée"})
    assert refused.status_code == 422, refused.text
    assert "drawing" in refused.json()["error"]["field"]
