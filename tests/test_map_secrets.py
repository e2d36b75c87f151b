"""The fog of war on every game that keeps secrets on its board (free play, Cyborg, Chasse;
issue 28), and a handout to one player in every game: each demo match, its map covered and a
figure hidden, then played on, or a letter handed to Alice alone, read by every role — the
GM, each demo player, a member who plays nothing, a spectator — through the log route and the
raw bytes of the API stream: nobody receives what their view hides
(``tests/rules/hidden.py``, with the platform's view), and every seat's table page and API
answer still open, with no hidden figure in them.
"""

from __future__ import annotations

import pytest
from sqlalchemy import select

from app.models import Campaign, Match
from app.rules.map_view import FOG_GAMES
from app.rules.registry import all_systems
from app.services import demo

# ``people``: the demo's people in every role, a fixture of tests/test_event_secrets.py
from tests.test_event_secrets import people, received_secrets  # noqa: F401

# A figure each demo's GM then moves in the dark, and one whose player's turn is next.
PLAYS = {
    "libre": [{"kind": "move", "token": "t3", "x": 100, "y": 70},
              {"kind": "adjust_hp", "token": "t3", "delta": -1},
              {"kind": "next_turn"}],
    "cyborg": [{"kind": "move", "token": "t5", "x": 30, "y": 25}],
    "chasse": [],
}


@pytest.mark.parametrize("system", sorted(FOG_GAMES))
def test_a_covered_map_keeps_its_figures_from_every_player(system, people, db, app,  # noqa: F811
                                                           running_app):
    campaign_id = db.scalar(select(Campaign.id).where(Campaign.system == system))
    match_id = db.scalar(select(Match.id).where(Match.campaign_id == campaign_id))
    gm = people[demo.GM_USERNAME].api
    url = f"/campaigns/{campaign_id}/matches/{match_id}"

    def act(action: dict) -> None:
        answer = gm.post(url + "/actions", json={"action": action})
        assert answer.status_code == 200, answer.text

    tokens = gm.get(url).json()["state"]["tokens"]
    act({"kind": "map_fog_reset", "base": "hidden"})
    last = sorted(tokens)[-1]
    act({"kind": "map_veil", "token": last, "hidden": True})
    for action in PLAYS[system]:
        act(action)
    found, anything_hidden = received_secrets(app, running_app, db, people, campaign_id,
                                              match_id)
    assert not found, "\n".join(found[:8])
    assert anything_hidden
    for name, person in people.items():
        seen = person.api.get(url)
        assert seen.status_code == 200, (name, seen.text)
        page = person.api.client.get(url, headers=person.api.headers)
        assert page.status_code == 200, (name, page.text[:300])
        if name == demo.GM_USERNAME:
            continue
        shown = seen.json()["state"]["tokens"]
        for token_id, token in tokens.items():
            if token_id not in shown:
                assert f'id="token-{token_id}"' not in page.text, (name, token_id)
                assert f'"{token_id}"' not in str(seen.json()["legal_actions"]), name
        assert last not in shown or token_owned_by(tokens[last], person.api.id), name
    act({"kind": "map_fog_reset", "base": "shown"})
    for person in people.values():
        assert person.api.client.get(url, headers=person.api.headers).status_code == 200


def token_owned_by(token: dict, user_id: int) -> bool:
    return token.get("owner_id") == user_id


@pytest.mark.parametrize("system", [system.key for system in all_systems()])
def test_a_handout_to_one_player_reaches_nobody_else_in_any_game(system, people, db,  # noqa: F811
                                                                  app, running_app):
    campaign_id = db.scalar(select(Campaign.id).where(Campaign.system == system))
    match_id = db.scalar(select(Match.id).where(Match.campaign_id == campaign_id))
    gm, alice = people[demo.GM_USERNAME].api, people["alice"].api
    url = f"/campaigns/{campaign_id}/matches/{match_id}"
    shared = gm.request("POST", url + "/handouts", data={
        "title": "Carte du trésor", "text": "Sous le troisième chêne", "to": [str(alice.id)]})
    assert shared.status_code == 200, shared.text
    found, anything_hidden = received_secrets(app, running_app, db, people, campaign_id,
                                              match_id)
    assert not found, "\n".join(found[:8])
    assert anything_hidden
    for name, person in people.items():
        page = person.api.client.get(url, headers=person.api.headers)
        assert page.status_code == 200, name
        reads = name in (demo.GM_USERNAME, "alice")
        assert ("Carte du trésor" in page.text) == reads, name
