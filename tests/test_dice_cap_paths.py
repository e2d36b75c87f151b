"""One cap on the dice of one roll, whichever way a member rolls an expression they typed
(issue 22: ``/r 1000d1000`` in the chat rolled a thousand dice where the free roller refused
101): the free roller (page and API), the chat's ``/r`` (page and API), and the table's
dice field (the libre game's ``roll`` and ``roll_initiative``, page and API). Each refuses
with the same message and stores nothing.
"""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from app.models import ChatMessage, MatchEvent, Roll
from tests.helpers import soup
from tests.test_campaigns import api_login

TOO_MANY = ("This roll asks for 101 dice; this campaign allows at most 100 dice per roll (the "
            "GM can change it in the campaign's settings).")


def stored(db) -> tuple[int, int, int]:
    db.commit()  # a fresh read
    return tuple(db.scalar(select(func.count()).select_from(model))
                 for model in (Roll, ChatMessage, MatchEvent))


def _page_error(response, selector: str) -> str:
    assert response.status_code == 422, response.text
    return soup(response).select_one(selector).get_text(strip=True)


def _api_error(response, field: str) -> str:
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert (error["code"], error["field"]) == ("too_many_dice", field)
    return error["message"]


def _refusals(table, paul):
    """Each way Paul rolls 101 dice, and its refusal's message."""
    rolls, chat = f"/campaigns/{table.campaign_id}/rolls", f"/campaigns/{table.campaign_id}/chat"
    match_id = int(table.url.rsplit("/", 1)[1])
    actions = f"/campaigns/{table.campaign_id}/matches/{match_id}/actions"
    yield "free roller page", _page_error(
        table.post(table.player, rolls, {"expression": "101d6", "visibility": "public"}),
        "#expression-error")
    yield "free roller API", _api_error(
        paul.post(rolls, json={"expression": "101d6"}), "expression")
    for audience in ("table", "gm"):
        table.dice.script(*([1] * 1000))  # enough for the roll, were it let through
        yield f"chat page to {audience}", _page_error(
            table.post(table.player, chat, {"body": "/r 101d6 # tout", "to": audience}),
            "#chat-body-error")
        table.dice.script(*([1] * 1000))
        yield f"chat API to {audience}", _api_error(
            paul.post(chat, json={"body": "/roll 1000d1000", "to": audience}), "body")
    yield "table page", _page_error(table.act(table.player, kind="roll", expression="101d6"),
                                    "form#action-roll .form-error")
    for action in ({"kind": "roll", "expression": "101d6"},
                   {"kind": "roll_initiative", "token": "t1", "expression": "101d6"}):
        response = paul.post(actions, json={"action": action})
        assert response.status_code == 422, response.text
        yield f"table API {action['kind']}", response.json()["error"]["message"]


def test_every_way_to_roll_a_typed_expression_has_the_one_cap(libre_match, db, new_client):
    paul = api_login(new_client, "paul")
    before = stored(db)
    said = dict(_refusals(libre_match, paul))
    # 1000d1000 asks for 1000 dice: the chat's API says its own number, in the same words.
    for way in ("chat API to table", "chat API to gm"):
        said[way] = said[way].replace("1000 dice", "101 dice")
    assert said == dict.fromkeys(said, TOO_MANY)
    assert stored(db) == before


@pytest.mark.parametrize("body", ["/r 100d6 # tout", "/r 3d6+3d6"])
def test_the_chat_rolls_up_to_the_campaigns_cap(libre_match, db, new_client, body):
    libre_match.dice.script(*([2] * 100))
    paul = api_login(new_client, "paul")
    response = paul.post(f"/campaigns/{libre_match.campaign_id}/chat", json={"body": body})
    assert response.status_code == 201, response.text
    assert paul.put(f"/campaigns/{libre_match.campaign_id}/dice-cap",
                    json={"dice_cap": 5}).status_code == 403  # the GM's, not Paul's
    gm = api_login(new_client, "mia")
    assert gm.put(f"/campaigns/{libre_match.campaign_id}/dice-cap",
                  json={"dice_cap": 5}).status_code == 200
    before = stored(db)
    libre_match.dice.script(*([2] * 100))
    refused = paul.post(f"/campaigns/{libre_match.campaign_id}/chat", json={"body": body})
    assert _api_error(refused, "body").startswith("This roll asks for ")
    assert stored(db) == before
