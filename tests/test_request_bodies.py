"""A JSON body nobody can read is a 4xx in the caller's language, never a 500 (issue 22).

Nested a thousand deep, not JSON, or not UTF-8: an anonymous caller hears 401 first (as for
any other body), a member hears why the body cannot be read — French by default, English
for an English account — and nothing is stored.
"""

from __future__ import annotations

import pytest

from tests.helpers import soup
from tests.match_table import Table, seat_table

NESTED = "[" * 1000 + "]" * 1000
JSON = {"Content-Type": "application/json"}

# (path under the table, a body with a thousand nested arrays in it)
DEEP_BODIES = [
    ("{base}/actions", '{"action": ' + NESTED + ', "seq": null}'),
    ("{base}/actions", '{"action": {"kind": "note", "text": "a", "x": ' + NESTED + '}}'),
    ("/campaigns/{c}/characters", '{"name": "Ugo", "sheet": {"notes": ' + NESTED + '}}'),
    ("/campaigns/{c}/chat", '{"body": ' + NESTED + '}'),
    ("/campaigns/{c}/rolls", '{"expression": "1d6", "purpose": ' + NESTED + '}'),
]

TOO_DEEP_FR = "Le JSON de la requête a plus de 64 niveaux d'imbrication."
TOO_DEEP_EN = "The request's JSON is nested more than 64 levels deep."
NOT_JSON_FR = "Le corps de la requête n'est pas du JSON valide."
NOT_JSON_EN = "The request's body is not valid JSON."
NOT_UTF8_FR = "Le corps de la requête n'est pas un texte UTF-8 valide."
NOT_UTF8_EN = "The request's body is not valid UTF-8 text."


@pytest.fixture
def table(api) -> Table:
    return seat_table(api)


def _url(table: Table, path: str) -> str:
    return "/api/v1" + path.format(base=table.base, c=table.campaign_id)


def _refused(response) -> str:
    assert response.status_code in (400, 422), response.text
    return response.json()["error"]["message"]


def _seq(table: Table) -> int:
    return table.match("mia")["seq"]


@pytest.mark.parametrize(("path", "body"), DEEP_BODIES)
def test_deeply_nested_json_is_401_for_nobody_and_a_4xx_for_a_member(table, new_client,
                                                                      path, body):
    seq = _seq(table)
    anonymous = new_client().post(_url(table, path), content=body, headers=JSON)
    assert anonymous.status_code == 401, anonymous.text
    mia = table.users["mia"]
    answer = mia.client.post(_url(table, path), content=body,
                             headers={**mia.headers, **JSON, "Accept-Language": "fr"})
    assert _refused(answer) == TOO_DEEP_FR
    assert _seq(table) == seq  # nothing happened at the table


@pytest.mark.parametrize("path", ["{base}/actions", "/campaigns/{c}/characters"])
@pytest.mark.parametrize(("body", "french", "english"), [
    (b'{"action": {"kind": "note"', NOT_JSON_FR, NOT_JSON_EN),
    (b'{"action": {"kind": "note", "text": "caf\xe9"}}', NOT_UTF8_FR, NOT_UTF8_EN),
])
def test_an_unreadable_body_is_said_in_french_by_default_and_in_the_accounts_language(
        table, path, body, french, english):
    mia = table.users["mia"]
    bare = mia.headers
    del mia.client.headers["Accept-Language"]  # no browser preference: French
    url = _url(table, path)
    assert _refused(mia.client.post(url, content=body, headers={**bare, **JSON})) == french
    assert mia.patch("/me", json={"locale": "en"}).status_code == 200
    # The account's language wins over the browser's.
    assert _refused(mia.client.post(url, content=body, headers={
        **bare, **JSON, "Accept-Language": "fr"})) == english


def test_a_body_nested_within_the_limit_is_read_as_before(table):
    nested: object = "deep"
    for _ in range(60):
        nested = [nested]
    response = table.act("mia", {"kind": "note", "text": "Au fond", "extra": nested})
    assert response.status_code == 200, response.text


def test_a_form_the_framework_cannot_read_is_said_in_the_accounts_language(web):
    alice = web("alice")
    alice.post("/account", {"display_name": "Alice", "locale": "fr"})
    response = alice.client.post("/account", content=b"\xff\xfe", headers={
        "X-CSRF-Token": alice.csrf(), "Content-Type": "multipart/form-data; boundary=x",
        "Accept-Language": "en"})
    assert response.status_code == 400
    assert soup(response).select_one(".form-error").text == (
        "Le corps de la requête n'a pas pu être lu.")
