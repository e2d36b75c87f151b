"""User text is always escaped: XSS payloads in every free-text field, none live anywhere.

The world of tests/world.py gets a payload in each field a person can write — display
names, the campaign's name and description, a character's name, notes, sheet statuses and
counter label, a match's name, a token, a terrain, statuses and a note set at the table, a
text drawn on the map, a scene's name, a handout's title and text, the purpose of a roll at
the table and of a free roll, a GM's correction reason, the name of an
imported campaign. Then every HTML page of that world is read as the GM, as a player, as the
instance admin and anonymously, and so are the live streams of the match and the roll log.

A payload is live if the parsed page has an inline script, an ``on*`` attribute, the
payload's ``<img src=x>``, a ``javascript:`` link, or an element or attribute named after
the payload. Each payload must also be found as text somewhere, so the test cannot pass
because the field was never shown.
"""

from __future__ import annotations

import html
import json
import queue
import threading
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest
from bs4 import BeautifulSoup

from app.main import API_PREFIX
from tests.helpers import app_routes, csrf_from
from tests.world import World, running_world

# Short tags name the field each payload went into.
FIELDS = {
    "dgm": "the GM's display name", "dpl": "a player's display name",
    "cnm": "the campaign's name", "cds": "the campaign's description",
    "chn": "a character's name", "cho": "a character's notes",
    "sts": "a sheet's statuses", "ctr": "a sheet's counter label",
    "mtn": "a match's name", "tkn": "a token added at the table",
    "ter": "a terrain's label", "tst": "statuses set at the table",
    "not": "a note at the table", "rpu": "a roll's purpose at the table",
    "frp": "a free roll's purpose", "cor": "a GM's correction reason",
    "imp": "an imported campaign's name",
    "ccn": "a custom content item's name", "cct": "a custom content item's text field",
    "drw": "a text drawn on the map", "scn": "a scene's name",
    "hot": "a handout's title", "hox": "a handout's text",
}


def payload(tag: str) -> str:
    """Breaks out of an attribute, opens a script, an image with a handler and an element
    of its own: 63 characters, within every field's limit but the counter label's."""
    return f"\"'><script>x{tag}</script><img src=x onerror=alert(1)><xss-{tag}>"


def short_payload(tag: str) -> str:
    """For a counter label (40 characters at most)."""
    return f"\"'><img src=x onerror=1><xss-{tag}>"


def written(tag: str) -> str:
    return short_payload(tag) if tag == "ctr" else payload(tag)


# — liveness ——————————————————————————————————————————————————————————————————————

URL_ATTRIBUTES = ("href", "src", "action", "formaction", "xlink:href", "hx-get", "hx-post")


def live_markup(markup: str) -> list[str]:
    """Everything in ``markup`` that would run or that a payload injected."""
    page = BeautifulSoup(markup, "html.parser")
    found = []
    for tag in page.find_all(True):
        if tag.name == "script" and not tag.get("src"):
            found.append(f"inline script: {tag}")
        if tag.name.startswith("xss-"):
            found.append(f"injected element: <{tag.name}>")
        if tag.name == "img" and tag.get("src") == "x":
            found.append(f"injected image: {tag}")
        for name, value in tag.attrs.items():
            if name.lower().startswith("on"):
                found.append(f"event handler: <{tag.name} {name}=…>")
            if "xss" in name.lower() or "'" in name or '"' in name:
                found.append(f"injected attribute: <{tag.name} {name}>")
            if name.lower() in URL_ATTRIBUTES and isinstance(value, str) \
                    and value.strip().lower().startswith("javascript:"):
                found.append(f"javascript: URL: <{tag.name} {name}={value}>")
    return found


def shown_tags(markup: str) -> set[str]:
    """The payloads present in ``markup`` as text (escaped in the source, whole when read)."""
    page = BeautifulSoup(markup, "html.parser")
    texts = [page.get_text()]
    texts += [value for tag in page.find_all(True) for value in tag.attrs.values()
              if isinstance(value, str)]
    return {tag for tag in FIELDS if any(written(tag) in text for text in texts)}


def test_the_detector_sees_live_payloads_and_not_escaped_ones():
    text = payload("not")
    live = live_markup(f'<p>{text}</p><input value="{text}"><a href="javascript:alert(1)">a</a>')
    assert {finding.split(":")[0] for finding in live} == {
        "inline script", "injected element", "injected image", "event handler",
        "injected attribute", "javascript"}
    escaped = f'<p>{html.escape(text)}</p><input value="{html.escape(text)}">'
    assert live_markup(escaped) == []
    assert shown_tags(escaped) == {"not"}


# — the world, with a payload in every field ——————————————————————————————————————————

def _ok(response, status: int = 200) -> Any:
    assert response.status_code == status, (response.request.url, response.text[:300])
    return response.json() if response.content else None


def _plant(world: World) -> dict[str, int]:
    api, base = world.api, f"/campaigns/{world.ids['campaign']}"
    _ok(api["gm"].patch("/me", json={"display_name": payload("dgm")}))
    _ok(api["player"].patch("/me", json={"display_name": payload("dpl")}))
    campaign = _ok(api["gm"].get(base))
    _ok(api["gm"].patch(base, json={"version": campaign["version"], "name": payload("cnm"),
                                    "description": payload("cds")}))
    one = f"{base}/characters/{world.ids['character']}"
    character = _ok(api["player"].get(one))
    _ok(api["player"].patch(one, json={
        "version": character["version"], "name": payload("chn"), "notes": payload("cho"),
        "sheet": {"hp": 9, "hp_max": 10, "statuses": payload("sts"),
                  "counters": [{"label": short_payload("ctr"), "value": 2}]}}))
    _ok(api["gm"].put(f"{base}/content/items/{world.ids['content_item']}", json={
        "name": payload("ccn"), "data": {"hp_max": 6, "statuses": payload("cct")}}))
    match = _ok(api["gm"].post(base + "/matches", json={
        "name": payload("mtn"),
        "character_ids": [world.ids["character"], world.ids["other_character"]]}), 201)
    table = f"{base}/matches/{match['id']}/actions"
    for who, action in (
            ("gm", {"kind": "add_token", "name": payload("tkn"), "hp_max": 5}),
            ("gm", {"kind": "add_terrain", "label": payload("ter"), "x": 5, "y": 5, "w": 10,
                    "h": 10}),
            ("gm", {"kind": "note", "text": payload("not")}),
            ("gm", {"kind": "roll", "expression": "1d6", "purpose": payload("rpu")}),
            ("player", {"kind": "set_statuses", "token": "t1", "statuses": payload("tst")}),
            ("player", {"kind": "map_draw", "shape": "text", "x": 5, "y": 5,
                        "text": payload("drw")}),
            ("gm", {"kind": "map_scene_add", "current": payload("scn"), "name": "Ailleurs"})):
        _ok(api[who].post(table, json={"action": action}))
    _ok(api["gm"].post(f"{base}/matches/{match['id']}/handouts",
                       data={"title": payload("hot"), "text": payload("hox")}))
    roll = _ok(api["player"].post(base + "/rolls",
                                  json={"expression": f"1d6 # {payload('frp')}"}), 201)
    correction = _ok(api["gm"].post(f"{base}/rolls/{world.ids['roll']}/corrections",
                                    json={"total": 4, "reason": payload("cor")}), 201)
    document = _ok(api["gm"].get(base + "/export"))
    document["campaign"]["name"] = payload("imp")
    imported = world.web["gm"].post("/campaigns/import", files={
        "file": ("campagne.json", json.dumps(document).encode(), "application/json")})
    assert imported.status_code == 303, imported.text[:300]
    imported_id = int(imported.headers["location"].split("/")[2])
    match_after = _ok(api["gm"].get(f"{base}/matches/{match['id']}"))
    copy = f"/campaigns/{imported_id}"
    copied_character = next(item["id"] for item in _ok(api["gm"].get(copy + "/characters"))
                            if item["name"] == payload("chn"))
    copied_match = next(item["id"] for item in _ok(api["gm"].get(copy + "/matches"))
                        if item["name"] == payload("mtn"))
    copied_item = _ok(api["gm"].get(copy + "/content"))["items"][0]["id"]
    assert correction["id"] > roll["id"]
    return {"match": match["id"], "seq": match_after["seq"], "last_roll": correction["id"],
            "imported": imported_id, "imported.character": copied_character,
            "imported.match": copied_match, "imported.item": copied_item}


@pytest.fixture(scope="module")
def world(database_template: str, tmp_path_factory) -> Iterator[World]:
    with running_world(database_template, tmp_path_factory.mktemp("xss")) as seated:
        seated.ids.update(_plant(seated))
        yield seated


# — the pages ——————————————————————————————————————————————————————————————————————

# Not pages: live streams (read below), file downloads, the health probe, the icon.
NOT_PAGES = ("/stream", "/export", "/export.json", "/export.txt", "/portrait", "/{image_id}",
             "/admin/backups/{name}", "/healthz", "/readyz", "/metrics", "/favicon.ico",
             "/map", "/picture")


def page_urls(world: World) -> list[str]:
    """Every page of the world: each page route with real ids, for both campaigns."""
    ids = world.ids
    campaigns = [(ids["campaign"], ids["character"], ids["match"], ids["content_item"]),
                 (ids["imported"], ids["imported.character"], ids["imported.match"],
                  ids["imported.item"])]
    urls = []
    for method, path, _route in app_routes():
        if method != "GET" or path.startswith(API_PREFIX) or path.endswith(NOT_PAGES):
            continue
        for campaign, character, match, item in (campaigns if "{campaign_id" in path
                                                  else [(0, 0, 0, 0)]):
            url = (path.replace("{campaign_id:int}", str(campaign))
                   .replace("{campaign_id}", str(campaign))
                   .replace("{character_id}", str(character))
                   .replace("{match_id}", str(match))
                   .replace("{item_id}", str(item))
                   .replace("{token}", ids["invite_token"])
                   .replace("{handout_id}", "h1")
                   .replace("{key}", "mutatior"))  # a game's page (/games/{key})
            assert "{" not in url, f"a page with an unknown parameter: {path}"
            if url not in urls:
                urls.append(url)
    replay = f"/campaigns/{ids['campaign']}/matches/{ids['match']}/replay"
    urls += [f"{replay}?step={step}" for step in range(1, ids["seq"] + 1)]
    return urls


def _readers(world: World) -> dict[str, Any]:
    return {"gm": world.web["gm"].client, "player": world.web["player"].client,
            "admin": world.web["admin"].client, "anonymous": world.client()}


def test_no_payload_is_live_in_any_page_and_each_is_shown(world: World):
    urls = page_urls(world)
    shown: set[str] = set()
    read_by: dict[str, set[str]] = {url: set() for url in urls}
    for reader, client in _readers(world).items():
        for url in urls:
            response = client.get(url, follow_redirects=False)
            assert response.status_code < 500, (reader, url, response.status_code)
            if not response.headers.get("content-type", "").startswith("text/html"):
                continue
            assert live_markup(response.text) == [], (reader, url)
            shown |= shown_tags(response.text)
            if response.status_code == 200:
                read_by[url].add(reader)
    # Real pages were read, not only error pages and redirections.
    assert [url for url, readers in read_by.items() if not readers] == []
    assert {"gm", "player"} <= read_by[f"/campaigns/{world.ids['campaign']}/rolls"]
    missing = {tag: FIELDS[tag] for tag in FIELDS if tag not in shown}
    assert missing == {}, "payloads never shown: the test would pass without looking"


# — the live streams ———————————————————————————————————————————————————————————————

WAIT_SECONDS = 10  # a bound for a broken stream: the backlog arrives in milliseconds


def read_stream(client, url: str, last_id: int, last_event: str) -> tuple[str, list[dict]]:
    """The raw text of a Server-Sent Events stream and its events, up to the event
    ``last_event`` with id ``last_id`` (read on a thread, so a silent stream fails)."""
    chunks: queue.Queue = queue.Queue()
    with client.stream("GET", url) as response:
        assert response.status_code == 200, url
        assert response.headers["content-type"].startswith("text/event-stream")

        def pump() -> None:
            try:
                for chunk in response.iter_text():
                    chunks.put(chunk)
            except Exception:  # the stream was closed under us, at the end
                pass
            chunks.put(None)

        threading.Thread(target=pump, daemon=True).start()
        raw, events = "", []
        # a page stream's state names its panel after the seq (``41.3fa0…``, issue 29)
        while not any(event.get("id", "").split(".")[0] == str(last_id)
                      and event.get("event") == last_event for event in events):
            chunk = chunks.get(timeout=WAIT_SECONDS)
            assert chunk is not None, f"the stream ended early: {raw!r}"
            raw += chunk.replace("\r\n", "\n")
            events = _events(raw)
    return raw, events


def _events(raw: str) -> list[dict[str, str]]:
    events = []
    for block in raw.split("\n\n")[:-1]:
        event: dict[str, str] = {}
        for line in block.split("\n"):
            if not line or line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            value = value.removeprefix(" ")
            event[name] = f"{event[name]}\n{value}" if name in event else value
        if "data" in event:
            events.append(event)
    return events


def _check_stream(raw: str, events: list[dict[str, str]], expected: set[str]) -> None:
    # Markup is expected in these fragments; the payloads' own tags never are.
    for opening in ("<script", "<xss-", "<img src=x"):
        assert opening not in raw
    shown: set[str] = set()
    for event in events:
        assert live_markup(event["data"]) == [], event
        shown |= shown_tags(event["data"])
    assert expected <= shown, {tag: FIELDS[tag] for tag in expected - shown}


@pytest.mark.parametrize("reader", ["gm", "player"])
def test_the_match_stream_carries_the_payloads_escaped(world: World, reader: str):
    url = f"/campaigns/{world.ids['campaign']}/matches/{world.ids['match']}/stream?after=0"
    raw, events = read_stream(world.web[reader].client, url, world.ids["seq"], "state")
    _check_stream(raw, events, {"mtn", "chn", "tkn", "ter", "tst", "not", "rpu", "dgm"})


@pytest.mark.parametrize("reader", ["gm", "player"])
def test_the_roll_log_stream_carries_the_payloads_escaped(world: World, reader: str):
    url = f"/campaigns/{world.ids['campaign']}/rolls/stream?after=0"
    raw, events = read_stream(world.web[reader].client, url, world.ids["last_roll"], "roll")
    _check_stream(raw, events, {"frp", "cor", "rpu", "dpl"})


# — reflected text: refused forms keep what was typed; pages read their query string

def test_refused_forms_and_query_strings_show_what_was_typed_escaped(world: World):
    gm, base = world.web["gm"], f"/campaigns/{world.ids['campaign']}"
    text = payload("cnm")
    refused = [
        ("/campaigns", {"name": text, "description": text, "system": "no such game"}),
        (base + "/edit", {"name": text, "description": text, "version": "99999"}),
        (base + "/characters", {"name": text, "notes": text, "hp": "x", "hp_max": "10",
                                "statuses": text, "counter_label_0": text}),
        (f"{base}/matches/{world.ids['match']}/actions",
         {"kind": "add_token", "name": text, "hp_max": "not a number"}),
        (base + "/rolls", {"expression": f"1d # {text}"}),
    ]
    for url, form in refused:
        response = gm.post(url, form)
        assert 400 <= response.status_code < 500, (url, response.status_code)
        assert live_markup(response.text) == [], url
        assert "cnm" in shown_tags(response.text), f"{url} did not keep what was typed"
    for url in ("/login?next=", "/register?next=", "/campaigns/1/imported?missing="):
        response = gm.get(url + quote(text))
        assert live_markup(response.text) == [], url
    for url, field in (("/register", "username"), ("/login", "username")):
        visitor = world.client()
        token = csrf_from(visitor.get(url))
        response = visitor.post(url, data={field: text, "password": "x", "csrf_token": token})
        assert response.status_code in (401, 422), (url, response.status_code)
        assert live_markup(response.text) == [], url
