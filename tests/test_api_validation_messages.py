"""The API's schema errors in the user's language (issue 10): French by default, English on
request (the account's language, else Accept-Language), naming the field, a range in words,
in the API's one error shape ``{"error": {"code", "message", "field"}}``."""

from __future__ import annotations

import pytest

from tests.match_table import Table, seat_table


@pytest.fixture
def table(api) -> Table:
    return seat_table(api)


def refusal(response) -> tuple[str, str | None]:
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["code"] == "invalid_input" and set(error) <= {"code", "message", "field"}
    return error["message"], error.get("field")


CASES = [
    # (method, path, request, field, French, English)
    ("PUT", "/campaigns/{c}/dice-cap", {"json": {"dice_cap": 5000}}, "dice_cap",
     "« dice_cap » : un nombre entier de 1 à 1000 est attendu.",
     "“dice_cap”: expected a whole number from 1 to 1000."),
    ("PUT", "/campaigns/{c}/dice-cap", {"json": {"dice_cap": "12"}}, "dice_cap",
     "« dice_cap » : un nombre entier est attendu.",
     "“dice_cap”: expected a whole number."),
    ("PUT", "/campaigns/{c}/dice-cap", {"json": {}}, "dice_cap",
     "« dice_cap » : ce champ est obligatoire.", "“dice_cap”: this field is required."),
    ("PUT", "/campaigns/{c}/dice-cap", {"json": {"dice_cap": 5, "cap": 3}}, "cap",
     "« cap » : ce champ est inconnu.", "“cap”: this field is unknown."),
    ("POST", "/campaigns/{c}/matches/{m}/background/switch",
     {"json": {"image_id": 1, "pixels": 5, "per": "parsec"}}, "per",
     "« per » : attendu : l'un de cm, in, sq.", "“per”: expected one of cm, in, sq."),
    ("POST", "/campaigns/{c}/matches/{m}/background/switch",
     {"json": {"image_id": 1, "pixels": 0, "per": "cm"}}, "pixels",
     "« pixels » : un nombre de 0,1 à 10000 est attendu.",
     "“pixels”: expected a number from 0.1 to 10000."),
    ("PATCH", "/campaigns/{c}", {"json": {"version": 1, "name": "x" * 500}}, "name",
     "« name » : de 1 à 120 caractères sont attendus.",
     "“name”: from 1 to 120 characters are expected."),
    ("GET", "/campaigns/{c}/matches/{m}/log", {"params": {"limit": 0}}, "limit",
     "« limit » : un nombre entier de 1 à 500 est attendu.",
     "“limit”: expected a whole number from 1 to 500."),
    ("POST", "/campaigns/{c}/matches", {"json": {"name": "Duel",
                                                 "options": {"width": 3.5}}},
     "options.width", "« options.width » : un nombre entier est attendu.",
     "“options.width”: expected a whole number."),
    # a field named « body » (the chat's) is a field, not the missing request body
    ("POST", "/campaigns/{c}/chat", {"json": {"to": "table"}}, "body",
     "« body » : ce champ est obligatoire.", "“body”: this field is required."),
    ("PUT", "/campaigns/{c}/dice-cap", {"content": b"{not json",
                                        "headers": {"Content-Type": "application/json"}},
     None, "Le corps de la requête n'est pas du JSON valide.",
     "The request's body is not valid JSON."),
]


@pytest.mark.parametrize(("method", "path", "request_", "field", "french", "english"), CASES)
def test_a_schema_error_names_its_field_in_the_users_language(
        table, method, path, request_, field, french, english):
    mia = table.users["mia"]
    url = path.format(c=table.campaign_id, m=table.match_id)
    extra = dict(request_)
    headers = extra.pop("headers", {})
    for language, expected in (("fr", french), ("en", english)):
        message, named = refusal(mia.client.request(method, f"/api/v1{url}", headers={
            **mia.headers, **headers, "Accept-Language": language}, **extra))
        assert (message, named) == (expected, field)


def test_french_by_default_and_the_accounts_language_first(table, new_client):
    mia = table.users["mia"]
    url = f"/campaigns/{table.campaign_id}/dice-cap"
    bare = {key: value for key, value in mia.headers.items()}
    client = new_client()
    del client.headers["Accept-Language"]
    response = client.put(f"/api/v1{url}", headers=bare, json={"dice_cap": 0})
    assert refusal(response)[0] == "« dice_cap » : un nombre entier de 1 à 1000 est attendu."
    # Anonymous too (before any account is known): French unless asked otherwise.
    assert refusal(client.post("/api/v1/auth/login", json={"username": "x"})) == (
        "« password » : ce champ est obligatoire.", "password")
    # An account set to English reads English whatever the browser says.
    assert mia.patch("/me", json={"locale": "en"}).status_code == 200
    assert refusal(client.put(f"/api/v1{url}", headers={**bare, "Accept-Language": "fr"},
                              json={"dice_cap": 0}))[0] == (
        "“dice_cap”: expected a whole number from 1 to 1000.")


@pytest.mark.parametrize(("expected", "said"), [
    ("'cm', 'in' or 'sq'", ["cm", "in", "sq"]), ("1", ["1"]), ("1, 2 or 3", ["1", "2", "3"])])
def test_a_choice_of_numbers_is_listed_like_a_choice_of_words(expected, said):
    """pydantic quotes words but not numbers: « expected one of ? » said nothing."""
    from app.http.validation_errors import _choices

    assert _choices({"expected": expected}) == said
