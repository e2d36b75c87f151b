"""French by default, English on request; every message has its French translation."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

from app.i18n import choose_locale, negotiate
from tests.helpers import soup

ROOT = Path(__file__).resolve().parent.parent
KEYWORDS = {"_": None, "gettext": None, "ngettext": (1, 2), "_l": None, "N_": None,
            "lazy_gettext": None}
METHOD_MAP = [("app/**.py", "python"), ("templates/**.html", "jinja2")]
PLACEHOLDER = re.compile(r"%\((\w+)\)s")


def _source_messages() -> set[str]:
    found = set()
    for _file, _line, message, _comments, _context in extract_from_dir(
            str(ROOT), METHOD_MAP, keywords=KEYWORDS,
            options_map={"templates/**.html": {"extensions": "jinja2.ext.i18n"}}):
        found.add(message[0] if isinstance(message, tuple) else message)
    return found


@pytest.mark.same_on_every_database
def test_every_message_in_the_code_has_a_french_translation():
    with open(ROOT / "app/translations/fr/LC_MESSAGES/messages.po", "rb") as handle:
        catalogue = read_po(handle, locale="fr")
    translated = {}
    for message in catalogue:
        if not message.id:
            continue
        key = message.id[0] if isinstance(message.id, tuple) else message.id
        text = message.string
        complete = all(text) if isinstance(text, tuple | list) else bool(text)
        if complete and not message.fuzzy:
            translated[key] = text
    missing = sorted(_source_messages() - set(translated))
    assert missing == [], f"{len(missing)} message(s) lack French: {missing[:10]}"
    for key, text in translated.items():
        texts = text if isinstance(text, tuple | list) else [text]
        for one in texts:
            assert set(PLACEHOLDER.findall(one)) <= set(PLACEHOLDER.findall(key)) | {"num"}, key


def test_the_language_is_the_account_s_then_the_cookie_s_then_the_browser_s():
    assert choose_locale(None, None, None) == "fr"
    assert choose_locale(None, None, "en-GB,en;q=0.8") == "en"
    assert choose_locale(None, "fr", "en-GB") == "fr"
    assert choose_locale("en", "fr", "fr-FR") == "en"
    assert negotiate("de-DE, en;q=0.5, fr;q=0.9") == "fr"
    assert negotiate("de-DE") is None


def test_pages_are_french_by_default_and_english_on_request(new_client):
    client = new_client()
    del client.headers["Accept-Language"]
    assert soup(client.get("/login")).select_one("h1").text == "Connexion"
    english = soup(client.get("/login", headers={"Accept-Language": "en-US"}))
    assert english.select_one("html")["lang"] == "en"
    assert english.select_one("h1").text == "Log in"


def test_an_account_s_language_wins_over_the_browser(web):
    alice = web("alice")
    alice.post("/account", {"display_name": "Alice", "locale": "en"})
    page = soup(alice.client.get("/account", headers={"Accept-Language": "fr-FR"}))
    assert page.select_one("html")["lang"] == "en"


def test_api_errors_speak_the_user_s_language(new_client):
    client = new_client(language="fr")
    body = {"username": "nobody", "password": "wrong password"}
    french = client.post("/api/v1/auth/login", json=body).json()["error"]["message"]
    client.headers["Accept-Language"] = "en"
    english = client.post("/api/v1/auth/login", json=body).json()["error"]["message"]
    assert english == "Wrong username or password." and french != english
