"""Schemathesis over the OpenAPI schema, logged in as a GM: no server error, and no answer
that breaks the schema — status codes, content types, headers and bodies as documented.

Every operation gets schemathesis' examples, coverage and fuzzing phases with ALL its default
checks, against a seated world (tests/world.py): the GM of campaign 1, which holds
characters, a match, invitations and a roll. The world's ids are small and the path
parameters carry them as examples, so generated requests hit real objects, not only 404s.
An allowed request may archive the campaign or remove a member; the world is healed after
each one that succeeds, so the next request still meets the same table.

Admin operations carry the instance admin's token (the GM is not one); logout gets a session
of its own, so it cannot end the one every other case uses. Login and register stay in:
refused logins reach the rate limit (429, documented), new accounts harm nothing.

The schema is read from an app at import time (schemathesis parametrizes at collection);
the requests go to the module's world through ``WorldApp``. ``case.call_and_validate()``
is split in two (``call``, then ``validate_response`` with the same default checks) so the
world can be healed in between.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi.checks import (
    positive_data_acceptance,
)

from app.config import Settings
from app.main import API_PREFIX, create_app
from tests.conftest import TEST_PASSWORD
from tests.world import World, running_world

pytestmark = pytest.mark.schemathesis

MAX_EXAMPLES = 15
# A fixed seed: the same cases on every run, so CI is reproducible (change it to explore).
SEED = 1789

# The world's objects (tests/world.py seats them in this order), as path parameter examples.
TOKEN_EXAMPLE = "the-live-invitation-token"
PATH_EXAMPLES: dict[str, Any] = {
    "campaign_id": 1, "character_id": 1, "match_id": 1, "roll_id": 1, "user_id": 7,
    # Paul's membership (the GM's is 1) and the live invitation (1–3 are used up).
    "membership_id": 2, "invite_id": 4, "token": TOKEN_EXAMPLE,
}

# Well-formed requests for the operations random data rarely gets right, so that their
# success answers are checked against the schema too (the examples phase sends them).
NOTE = {"kind": "note", "text": "Les gobelins approchent."}
BODY_EXAMPLES: dict[str, Any] = {
    "POST /auth/register": {"username": "nouveau", "password": TEST_PASSWORD},
    "POST /auth/login": {"username": "gina", "password": TEST_PASSWORD},
    "PATCH /me": {"display_name": "Gina", "locale": "fr"},
    "POST /me/password": {"current_password": TEST_PASSWORD, "new_password": TEST_PASSWORD},
    "POST /campaigns/{campaign_id}/characters": {
        "name": "Esteban", "notes": "Un marin.",
        "sheet": {"hp": 8, "hp_max": 10, "statuses": "fatigué",
                  "counters": [{"label": "Or", "value": 3}]}},
    "POST /campaigns/{campaign_id}/characters/{character_id}/transfer": {"owner_id": 3},
    "POST /campaigns/import": {
        "format": "tablee-campaign", "version": 1, "exported_at": "2026-01-01T12:00:00Z",
        "campaign": {"name": "Importée", "description": "", "system": "libre",
                     "archived": False},
        "members": [], "characters": [], "matches": [], "rolls": []},
    "POST /campaigns/{campaign_id}/matches": {
        "name": "Duel", "character_ids": [1, 2],
        "options": {"width": 100, "height": 60, "unit": "cm"}},
    "POST /campaigns/{campaign_id}/matches/{match_id}/actions": {"action": NOTE, "seq": None},
    "POST /campaigns/{campaign_id}/matches/{match_id}/rewind": {"to_seq": 1},
    "POST /campaigns/{campaign_id}/rolls": {"expression": "2d6+1 # dégâts"},
    "POST /campaigns/{campaign_id}/chat": {"body": "/r 2d6 # dégâts", "to": "gm"},
}

# Operations whose business rules legitimately refuse some schema-valid requests (422, or
# 410 for a dead invitation link): the "positive data acceptance" check would call those
# refusals bugs. Every other check still runs on them.
REFUSES_VALID_DATA = {
    "POST /auth/register": "usernames are [A-Za-z0-9_.-], passwords 10–128 characters, "
                           "names unique: 422",
    "POST /auth/login": "a blank username or password is refused (422), not checked",
    "PATCH /me": "the locale must be a supported one and the display name not blank: 422",
    "POST /me/password": "the new password must have 10–128 characters: 422",
    "POST /campaigns/{campaign_id}/characters": "the sheet is checked against the game "
                                                "system's rules, the owner must be a player "
                                                "of the campaign: 422",
    "PATCH /campaigns/{campaign_id}/characters/{character_id}": "sheet rules: 422",
    "POST /campaigns/{campaign_id}/characters/{character_id}/rolls":
        "the key and the options are the game's (and a game may roll nothing): 422",
    "POST /campaigns/{campaign_id}/characters/{character_id}/transfer":
        "the new owner must be a player of the campaign: 422",
    "PUT /campaigns/{campaign_id}/characters/{character_id}/portrait":
        "the file must be a PNG, JPEG, WebP or GIF image: 422",
    "POST /campaigns/import": "an export document is checked whole (versions, references, "
                              "sheets, signatures): 422",
    "POST /campaigns/{campaign_id}/matches": "the characters must be in the campaign's roster "
                                             "and the board sizes the system's: 422",
    "POST /campaigns/{campaign_id}/matches/{match_id}/actions": "the game's rules refuse "
                                                                "illegal actions: 422",
    "POST /campaigns/{campaign_id}/matches/{match_id}/rewind": "only an event that can be "
                                                               "undone: 422",
    "POST /campaigns/{campaign_id}/matches/{match_id}/redo": "redo only follows an undo: 422",
    "PUT /campaigns/{campaign_id}/matches/{match_id}/background":
        "the file must be a PNG, JPEG, WebP or GIF image, a scale per square needs a board of "
        "squares, and the match a board: 422",
    "POST /campaigns/{campaign_id}/matches/{match_id}/background/switch":
        "only a picture this match used before, on a board: 422",
    "DELETE /campaigns/{campaign_id}/matches/{match_id}/background": "the match needs a "
                                                                      "board: 422",
    "POST /campaigns/{campaign_id}/matches/{match_id}/pings": "a place on the match's board: "
                                                              "422",
    "POST /campaigns/{campaign_id}/matches/{match_id}/handouts":
        "a title, a text or a picture (PNG, JPEG, WebP or GIF), readers among the members: 422",
    "POST /campaigns/{campaign_id}/rolls": "the dice expression must parse: 422",
    "PUT /campaigns/{campaign_id}/dice-cap": "a whole number, and 3.0 is not one for the "
                                             "API (Model._integers_are_integers): 422",
    "GET /dice/distribution": "the dice expression must parse and be small enough to work "
                              "out exactly (docs/odds.md): 422",
    "POST /campaigns/{campaign_id}/matches/{match_id}/simulations":
        "only a match of a game with simulations, under way (the world's is free play): 409",
    "DELETE /campaigns/{campaign_id}/matches/{match_id}/simulations":
        "only a simulation the caller started: 409",
    "POST /campaigns/{campaign_id}/chat": "an inline roll must parse, the recipient be "
                                          "another member, the match the campaign's: 422",
    "POST /campaigns/{campaign_id}/content/{kind}": "each kind has its own fields, checked "
                                                    "by the game system's rules: 422",
    "PUT /campaigns/{campaign_id}/content/items/{item_id}": "the item's kind's fields: 422",
    "POST /campaigns/{campaign_id}/rolls/{roll_id}/corrections": "a roll already corrected, "
                                                                 "or a correction itself: 422",
    "GET /invites/{token}": "an expired, revoked or used-up link answers 410 Gone",
    "POST /invites/{token}/accept": "an expired, revoked or used-up link answers 410 Gone",
}



def _openapi_document() -> dict[str, Any]:
    """The app's OpenAPI document, with the world's ids as path parameter examples and a
    well-formed body for the operations above."""
    app = create_app(Settings(data_dir=Path(tempfile.gettempdir()), database_url="sqlite://",
                              secret_key="schema-only-" + "k" * 32))
    document = app.openapi()
    app.state.engine.dispose()
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            label = f"{method.upper()} {path.removeprefix(API_PREFIX)}"
            if label in BODY_EXAMPLES:
                content = operation["requestBody"]["content"]["application/json"]
                content["example"] = BODY_EXAMPLES[label]
            for parameter in operation.get("parameters", []):
                if parameter["in"] == "path" and parameter["name"] in PATH_EXAMPLES:
                    parameter["example"] = PATH_EXAMPLES[parameter["name"]]
    return document


class WorldApp:
    """The ASGI app schemathesis calls: the module's world, once it is seated.

    The world's own test client runs the app's lifespan (its broker); schemathesis starts
    and ends a lifespan around every test, which here is answered and goes no further.
    """

    def __init__(self) -> None:
        self.app: Any = None

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        assert self.app is not None, "the world fixture seats the app first"
        await self.app(scope, receive, send)


# The export document's schema is large: the coverage phase would enumerate some 450
# variants of it (a quarter of this file's time). The examples and fuzzing phases still
# send it, a valid document and generated ones, with every check.
CONFIG = schemathesis.Config.from_dict({"operations": [{
    "include-path": f"{API_PREFIX}/campaigns/import", "phases": {"coverage": {"enabled": False}},
}]})

TARGET = WorldApp()
schema = schemathesis.openapi.from_dict(_openapi_document(), config=CONFIG)
schema.app = TARGET
schema.config.seed = SEED

# Excluded operations:
# - the live streams never end (Server-Sent Events; tests/test_match_stream.py reads them).
api = schema.exclude(path_regex=r"/stream$")


@pytest.fixture(scope="module")
def world(database_template: str, tmp_path_factory) -> Iterator[World]:
    with running_world(database_template, tmp_path_factory.mktemp("schemathesis")) as seated:
        ids = seated.ids
        assert (ids["campaign"], ids["character"], ids["match"], ids["roll"], ids["idle_user"],
                ids["membership.player"], ids["invite"]) == (
            1, 1, 1, 1, PATH_EXAMPLES["user_id"], PATH_EXAMPLES["membership_id"],
            PATH_EXAMPLES["invite_id"]), "the examples must name the world's objects"
        TARGET.app = seated.app
        yield seated
        TARGET.app = None


def _label(case) -> str:
    return f"{case.method} {case.path.removeprefix(API_PREFIX)}"


def _headers(case, world: World) -> dict[str, str]:
    """The GM's token; the instance admin's on admin routes (the GM is not one); a fresh
    session for logout, which would otherwise end the session every other case uses."""
    label = _label(case)
    if label == "POST /auth/logout":
        return {"Authorization": f"Bearer {world.fresh_token('gm')}"}
    if label.split(" ")[1].startswith("/admin/"):
        return world.api["admin"].headers
    return world.api["gm"].headers


@api.parametrize()
@settings(max_examples=MAX_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
def test_the_api_keeps_its_schema(case, world: World):
    if case.path_parameters.get("token") == TOKEN_EXAMPLE:
        case.path_parameters["token"] = world.ids["invite_token"]
    headers = _headers(case, world)
    excluded = []
    if _label(case) in REFUSES_VALID_DATA:
        excluded.append(positive_data_acceptance)
    # case.call_and_validate(), split so the world is healed before the next case runs.
    response = case.call(headers=headers)
    if case.method != "GET" and response.status_code < 300:
        world.heal()
    case.validate_response(response, headers=headers, excluded_checks=excluded)


def test_every_operation_named_here_exists():
    """A renamed route must not leave a stale exclusion or example behind."""
    labels = {f"{method.upper()} {path.removeprefix(API_PREFIX)}"
              for path, operations in _openapi_document()["paths"].items()
              for method in operations}
    for named in (REFUSES_VALID_DATA, BODY_EXAMPLES):
        assert set(named) <= labels


def test_a_405_lists_every_method_of_the_resource(world: World):
    response = world.api["gm"].request("OPTIONS", "/campaigns/1")
    assert response.status_code == 405
    allowed = {method.strip() for method in response.headers["allow"].split(",")}
    assert allowed >= {"GET", "PATCH", "DELETE"}


# Each is schema-violating: a boolean, a float or a string where the schema says integer,
# a number where it says a date-time string. The first three are refused since
# Model._integers_are_integers; the others are still converted and accepted.
WRONG_TYPES = [
    ("POST", "/campaigns/1/rolls/1/corrections", {"total": False, "reason": "typo"}),
    ("PATCH", "/campaigns/1", {"version": True, "name": "Les Ombres"}),
    ("POST", "/campaigns/1/invites", {"max_uses": True}),
    ("POST", "/campaigns/1/matches", {"name": "Duel", "character_ids": [True]}),
    ("POST", "/campaigns/1/characters/1/transfer", {"owner_id": 3.0}),
    ("POST", "/campaigns/1/matches/1/actions", {"action": NOTE, "seq": True}),
    ("POST", "/campaigns/import", {**BODY_EXAMPLES["POST /campaigns/import"],
                                   "exported_at": 0}),
]


def test_inputs_of_the_wrong_type_are_refused(world: World):
    answers = {}
    for method, path, body in WRONG_TYPES:
        answers[f"{method} {path}"] = world.api["gm"].request(method, path, json=body).status_code
        world.heal()
    assert answers == {label: 422 for label in answers}
