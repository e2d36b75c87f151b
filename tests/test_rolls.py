"""The free roller and the campaign's roll log, in the browser and through the API.

Gina is the GM, Paul a player, Sam a spectator, Olga an outsider (``make_table``). The
dice are scripted: ``app.state.dice = ScriptedDice([...])`` replaces the server's fair dice.
"""

from __future__ import annotations

from sqlalchemy import select

from app.db import write_transaction
from app.models import Roll
from app.rules.dice import ScriptedDice
from app.services import rolls
from tests.helpers import soup
from tests.test_campaigns import Table, count, make_table

HIDDEN_KEYS = {"id", "number", "user_id", "user_name", "visibility", "created_at", "hidden"}


def browser_roll(table: Table, role: str, expression: str, visibility: str = "public"):
    return table.web[role].post(f"{table.url}/rolls",
                                {"expression": expression, "visibility": visibility})


def api_roll(table: Table, role: str, expression: str, visibility: str = "public"):
    return table.api[role].post(f"/campaigns/{table.campaign_id}/rolls",
                                json={"expression": expression, "visibility": visibility})


def rolled(table: Table, role: str, expression: str, visibility: str = "public") -> int:
    response = api_roll(table, role, expression, visibility)
    assert response.status_code == 201, response.text
    return response.json()["id"]


def entry(page, roll_id: int):
    found = page.select_one(f"li#roll-{roll_id}")
    assert found is not None, f"no entry for roll {roll_id}"
    return found


def faces(element) -> list[str]:
    """The faces as shown (``6!``, ``10*``), without the words kept for screen readers."""
    return [die.contents[0] for die in element.select(".die")]


def log_page(table: Table, role: str, query: str = ""):
    return table.web[role].page(f"{table.url}/rolls{query}")


# — rolling in the browser ——————————————————————————————————————————————————————————

def test_paul_rolls_damage_and_everyone_sees_who_why_every_die_and_the_total(web, new_client,
                                                                             app, db):
    table = make_table(web, new_client)
    app.state.dice = ScriptedDice([(6, 3), (6, 4)])
    response = browser_roll(table, "player", "2d6+1 # dégâts")
    assert response.status_code == 303
    roll_id = db.scalar(select(Roll.id))
    assert response.headers["location"] == f"{table.url}/rolls#roll-{roll_id}"

    line = entry(log_page(table, "spectator"), roll_id)
    assert line.select_one(".roll-user").text == "Paul"
    assert line.select_one("time")["datetime"]
    assert line.select_one(".purpose").text == "dégâts"
    assert line.select_one("code.expression").text == "2d6+1"
    assert faces(line) == ["3", "4"]
    assert [m.text for m in line.select(".modifier")] == ["+1"]
    assert line.select_one(".total").text == "8"
    assert not line.select(".match-link")
    stored = db.get(Roll, roll_id)
    assert (stored.purpose, stored.expression, stored.record["total"]) == ("dégâts", "2d6+1", 8)


def test_dropped_exploding_and_critical_dice_are_drawn_distinctly(web, new_client, app):
    table = make_table(web, new_client)
    app.state.dice = ScriptedDice([1, 3, 4, 6, 6, 2, 2, 10, 10, (6, 3), (6, 5), 8, 2, 9])
    keep, boom, tiamat, count_successes = (rolled(table, "player", expression) for expression
                                           in ("4d6kh3", "d6!", "3d10t", "3d10>=8"))
    page = log_page(table, "gm")

    kept = entry(page, keep)
    assert [d.text for d in kept.select("del.die.dropped")] == ["1 (d6, dropped)"]
    assert faces(kept) == ["1", "3", "4", "6"] and kept.select_one(".total").text == "13"

    exploding = entry(page, boom)
    assert exploding.select_one(".die.exploded").contents[0] == "6!"
    assert exploding.select_one(".die.added-explosion").contents[0] == "2"
    assert exploding.select_one(".total").text == "8"

    pool = entry(page, tiamat)
    assert [d.contents[0] for d in pool.select(".die.critical")] == ["10*", "10*"]
    assert [d.contents[0] for d in pool.select(".die.added-critical")] == ["3", "5"]
    assert [d.contents[0] for d in pool.select("del.die")] == ["2", "10*"]
    assert pool.select_one(".total").text == "18"

    successes = entry(page, count_successes)
    assert [d.contents[0] for d in successes.select(".die.success")] == ["8", "9"]
    assert [d.contents[0] for d in successes.select(".die.failure")] == ["2"]
    assert successes.select_one(".total").text == "2"


def test_a_bad_expression_points_at_the_position_in_french_and_stores_nothing(web, new_client,
                                                                              db):
    table = make_table(web, new_client)
    assert table.api["player"].patch("/me", json={"locale": "fr"}).status_code == 200
    response = browser_roll(table, "player", "1d6+x", "self")
    assert response.status_code == 422
    page = soup(response)
    assert page.select_one("#field-expression")["value"] == "1d6+x"
    assert page.select_one("#field-visibility option[selected]")["value"] == "self"
    assert page.select_one("#expression-error").text == \
        "attendu un nombre, « d » ou « ( » à la position 4, trouvé « x »"
    marker = page.select_one(".expression-marker")
    assert marker.select_one("mark.error-position").text == "x"
    assert marker.select_one(".caret").text == "    ^"
    assert count(db, Roll) == 0


def test_the_api_refuses_a_bad_expression_with_its_position_in_the_callers_language(
        web, new_client, db):
    table = make_table(web, new_client)
    assert table.api["player"].patch("/me", json={"locale": "fr"}).status_code == 200
    answer = api_roll(table, "player", "1d20 rr<21")
    assert answer.status_code == 422
    error = answer.json()["error"]
    assert (error["field"], error["details"]["position"]) == ("expression", 5)
    assert error["message"].startswith("« rr<21 » relancerait sans fin toutes les faces d'un d20")
    assert table.api["player"].patch("/me", json={"locale": "en"}).status_code == 200
    error = api_roll(table, "player", "600d6+401d6").json()["error"]
    assert error["details"]["position"] == 6
    assert error["message"].startswith("an expression may roll at most 1000 dice")
    assert count(db, Roll) == 0


# — who sees what ——————————————————————————————————————————————————————————————————

def test_secret_and_private_rolls_show_only_that_someone_rolled(web, new_client, app):
    table = make_table(web, new_client)
    app.state.dice = ScriptedDice([(20, 17), (100, 42)])
    secret = rolled(table, "gm", "1d20 # embuscade des gobelins", "gm")
    private = rolled(table, "player", "1d100 # trésor caché", "self")

    for role in ("player", "spectator"):
        response = table.web[role].get(f"{table.url}/rolls")
        hidden = entry(soup(response), secret)
        assert "hidden-roll" in hidden["class"] and hidden.select_one(".secret")
        assert hidden.select(".die, .expression, .purpose, .total") == []
        # (the roller's examples show « 1d20+5 >= 15 »: the expression is looked for in the log)
        assert "embuscade" not in response.text
        lists = soup(response).select(".roll-log, ol, ul")
        assert lists and "1d20" not in " ".join(node.text for node in lists)
    sams = log_page(table, "spectator")
    assert "Paul" in entry(sams, private).select_one(".secret").text
    assert entry(sams, private).select(".die") == []
    assert "trésor" not in table.web["spectator"].get(f"{table.url}/rolls").text

    assert faces(entry(log_page(table, "player"), private)) == ["42"]
    gms = log_page(table, "gm")
    assert faces(entry(gms, secret)) == ["17"] and faces(entry(gms, private)) == ["42"]


def test_the_api_log_is_redacted_per_viewer(web, new_client, app):
    table = make_table(web, new_client)
    app.state.dice = ScriptedDice([(20, 17), (6, 5)])
    secret = rolled(table, "gm", "1d20 # embuscade", "gm")
    shown = api_roll(table, "player", "1d6 # initiative")
    assert shown.status_code == 201
    mine = shown.json()
    assert mine["hidden"] is False and mine["record"]["dice"][0]["value"] == 5
    assert mine["user_name"] == "Paul" and mine["purpose"] == "initiative"

    url = f"/campaigns/{table.campaign_id}/rolls"
    sams = table.api["spectator"].get(url).json()["entries"]
    assert [e["id"] for e in sams] == [mine["id"], secret]
    assert set(sams[1]) == HIDDEN_KEYS
    assert sams[1] | {"created_at": None} == {
        "id": secret, "number": 1, "user_id": table.api["gm"].id, "user_name": "Gina",
        "visibility": "gm", "created_at": None, "hidden": True}
    gms = table.api["gm"].get(url).json()["entries"]
    assert gms[1]["record"]["total"] == 17 and gms[1]["purpose"] == "embuscade"


def test_only_the_gm_rolls_in_secret(web, new_client, db):
    table = make_table(web, new_client)
    answer = api_roll(table, "player", "1d6", "gm")
    assert answer.status_code == 422 and answer.json()["error"]["field"] == "visibility"
    options = [o["value"] for o in log_page(table, "player").select("#field-visibility option")]
    assert options == ["public", "self"]
    options = [o["value"] for o in log_page(table, "gm").select("#field-visibility option")]
    assert options == ["public", "gm"]
    assert count(db, Roll) == 0


# — pagination ————————————————————————————————————————————————————————————————————

def test_the_log_is_paginated_newest_first_in_the_page_and_the_api(web, new_client, db,
                                                                   settings):
    table = make_table(web, new_client)
    record = {"expression": "1d6", "purpose": None, "dice": [], "modifiers": [], "total": 3}
    with write_transaction(db):
        rolls.record_rolls(db=db, secret=settings.secret_key, campaign_id=table.campaign_id,
                           user_id=table.api["player"].id, records=[record] * 55,
                           visibility="public")
    ids = db.scalars(select(Roll.id).order_by(Roll.id.desc())).all()

    first = log_page(table, "spectator")
    shown = [int(li["data-roll-id"]) for li in first.select("li.roll-entry")]
    assert shown == ids[:50]
    older = first.select_one("a.older")["href"]
    assert older == f"{table.url}/rolls?before_id={ids[49]}"
    second = log_page(table, "spectator", older.split("/rolls", 1)[1])
    assert [int(li["data-roll-id"]) for li in second.select("li.roll-entry")] == ids[50:]
    assert second.select_one("a.older") is None and second.select_one("a.newest")
    assert second.select("[sse-connect]") == []  # an old page does not go live
    assert first.select_one("[sse-connect]")["sse-connect"] == \
        f"{table.url}/rolls/stream?after={ids[0]}"

    url = f"/campaigns/{table.campaign_id}/rolls"
    page = table.api["player"].get(url, params={"limit": 20, "before_id": ids[9]}).json()
    assert [e["id"] for e in page["entries"]] == ids[10:30] and page["has_more"] is True
    page = table.api["player"].get(url, params={"after_id": ids[5], "limit": 10}).json()
    assert [e["id"] for e in page["entries"]] == sorted(ids[:5]) and page["has_more"] is False
    assert table.api["player"].get(url, params={"limit": 0}).status_code == 422


# — corrections ———————————————————————————————————————————————————————————————————

def test_a_gm_correction_is_its_own_entry_linked_to_the_original(web, new_client, app, db):
    table = make_table(web, new_client)
    app.state.dice = ScriptedDice([3, 4])
    original = rolled(table, "player", "2d6+1 # dégâts")
    response = table.web["gm"].post(f"{table.url}/rolls/{original}/corrections",
                                    {"total": "10", "reason": "bonus de Force oublié"})
    assert response.status_code == 303
    db.commit()
    correction = db.scalar(select(Roll).where(Roll.corrects_id == original))
    assert db.get(Roll, original).record["total"] == 8  # never edited
    assert response.headers["location"].endswith(f"#roll-{correction.id}")

    page = log_page(table, "spectator")
    note = entry(page, correction.id)
    assert "correction" in note["class"] and note.select_one(".roll-user").text == "Gina"
    assert note.select_one("a.corrects-link")["href"] == f"#roll-{original}"
    text = note.select_one(".correction-note").text
    assert f"n°{original}" in text and "8 → 10" in text and "bonus de Force oublié" in text
    assert entry(page, original).select_one(".corrected-by a")["href"] == \
        f"#roll-{correction.id}"
    assert page.select(".correct-roll") == []  # only the GM corrects
    assert log_page(table, "gm").select_one(f"#roll-{original} form.correction-form")


def test_a_correction_is_seen_by_exactly_those_who_saw_the_roll(web, new_client, app):
    table = make_table(web, new_client)
    app.state.dice = ScriptedDice([(100, 42)])
    private = rolled(table, "player", "1d100 # trésor", "self")
    url = f"/campaigns/{table.campaign_id}/rolls"
    answer = table.api["gm"].post(f"{url}/{private}/corrections",
                                  json={"total": 12, "reason": "mauvais dé"})
    assert answer.status_code == 201
    fixed = answer.json()
    assert (fixed["corrects_id"], fixed["total"], fixed["visibility"]) == (private, 12, "self")
    assert fixed["record"]["corrected_from"] == 42

    pauls = {e["id"]: e for e in table.api["player"].get(url).json()["entries"]}
    assert pauls[fixed["id"]]["hidden"] is False and pauls[private]["corrected_by"] == [
        fixed["id"]]
    sams = {e["id"]: e for e in table.api["spectator"].get(url).json()["entries"]}
    assert sams[fixed["id"]]["hidden"] is True and set(sams[fixed["id"]]) == HIDDEN_KEYS


def test_corrections_are_for_the_gm_and_must_say_why(web, new_client, app, db):
    table = make_table(web, new_client)
    app.state.dice = ScriptedDice([5])
    original = rolled(table, "player", "1d6")
    url = f"/campaigns/{table.campaign_id}/rolls/{original}/corrections"
    assert table.api["player"].post(url, json={"total": 6, "reason": "x"}).status_code == 403
    assert table.web["player"].post(f"{table.url}/rolls/{original}/corrections",
                                    {"total": "6", "reason": "x"}).status_code == 403
    assert table.api["gm"].post(f"/campaigns/{table.campaign_id}/rolls/999/corrections",
                                json={"total": 6, "reason": "x"}).status_code == 404

    response = table.web["gm"].post(f"{table.url}/rolls/{original}/corrections",
                                    {"total": "beaucoup", "reason": ""})
    assert response.status_code == 422
    form = soup(response).select_one(f"#roll-{original} details.correct-roll[open]")
    assert form.select_one(f"#correct-total-{original}")["value"] == "beaucoup"
    assert form.select_one(".field-error")
    assert count(db, Roll) == 1


# — permissions and the archive ———————————————————————————————————————————————————

def test_spectators_watch_and_cannot_roll(web, new_client, db):
    table = make_table(web, new_client)
    assert api_roll(table, "spectator", "1d6").status_code == 403
    assert browser_roll(table, "spectator", "1d6").status_code == 403
    page = log_page(table, "spectator")
    assert page.select_one("form#free-roller") is None
    assert page.select_one("a[href$='/rolls/export.json']")
    assert count(db, Roll) == 0


def test_an_archived_campaign_keeps_its_log_and_refuses_rolls(web, new_client, app, db):
    table = make_table(web, new_client)
    app.state.dice = ScriptedDice([4])
    original = rolled(table, "player", "1d6")
    assert table.api["gm"].post(f"/campaigns/{table.campaign_id}/archive").status_code == 200
    assert api_roll(table, "player", "1d6").status_code == 409
    assert browser_roll(table, "player", "1d6").status_code == 409
    answer = table.api["gm"].post(f"/campaigns/{table.campaign_id}/rolls/{original}/corrections",
                                  json={"total": 5, "reason": "oubli"})
    assert answer.status_code == 409 and answer.json()["error"]["code"] == "archived"
    page = log_page(table, "gm")
    assert page.select_one("form#free-roller") is None and page.select(".correct-roll") == []
    assert faces(entry(page, original)) == ["4"]
    assert count(db, Roll) == 1


def test_outsiders_get_404_and_anonymous_visitors_are_sent_to_log_in(web, new_client):
    table = make_table(web, new_client)
    outsider, api_outsider = table.web["outsider"], table.api["outsider"]
    for path in ("/rolls", "/rolls/export.json", "/rolls/export.txt"):
        assert outsider.get(table.url + path).status_code == 404
    assert browser_roll(table, "outsider", "1d6").status_code == 404
    base = f"/campaigns/{table.campaign_id}/rolls"
    assert api_outsider.get(base).status_code == 404
    assert api_outsider.get(base + "/export").status_code == 404
    assert api_roll(table, "outsider", "1d6").status_code == 404
    page = table.anonymous.get(f"{table.url}/rolls", follow_redirects=False)
    assert page.status_code == 303 and page.headers["location"].startswith("/login")
    assert table.anonymous.get(f"/api/v1{base}").status_code == 401


# — numbers: each campaign counts its own rolls ——————————————————————————————————————

def test_a_new_campaign_s_first_roll_is_number_one_and_links_keep_the_id(web, new_client, app):
    """A new campaign's first roll read « n°133 » (the instance's id): people read the
    campaign's own count; links, corrections and the API keep the id."""
    from tests.test_campaigns import create_in_browser

    table = make_table(web, new_client)
    app.state.dice = ScriptedDice([3, 4, 5, 6])
    first, second = rolled(table, "gm", "1d6"), rolled(table, "player", "1d6")
    other = create_in_browser(table.web["gm"], name="Une autre")
    response = table.api["gm"].post(f"/campaigns/{other}/rolls", json={"expression": "1d6"})
    assert response.status_code == 201
    newcomer = response.json()
    assert newcomer["number"] == 1 and newcomer["id"] > second

    page = table.web["gm"].page(f"/campaigns/{other}/rolls")
    assert entry(page, newcomer["id"]).select_one(".roll-number").text == "n°1"
    fixed = table.api["gm"].post(f"{table.url}/rolls/{second}/corrections",
                                 json={"total": 1, "reason": "dé cassé"}).json()
    assert fixed["number"] == 3 and fixed["corrects_id"] == second
    page = log_page(table, "player")
    assert [entry(page, roll_id).select_one(".roll-number").text
            for roll_id in (first, second, fixed["id"])] == ["n°1", "n°2", "n°3"]
    link = entry(page, fixed["id"]).select_one("a.corrects-link")
    assert (link.text, link["href"]) == ("n°2", f"#roll-{second}")
    later = entry(page, second).select_one(".corrected-by a")
    assert (later.text, later["href"]) == ("n°3", f"#roll-{fixed['id']}")
    numbers = {e["id"]: e["number"] for e in table.api["player"].get(
        f"{table.url}/rolls").json()["entries"]}
    assert numbers == {first: 1, second: 2, fixed["id"]: 3}
    text = table.web["gm"].client.get(f"{table.url}/rolls/export.txt").text
    assert "Roll no. 3 — " in text and "Corrects roll no. 2: 4 → 1, dé cassé" in text


def test_a_table_action_s_rolls_take_the_campaign_s_next_numbers(settings, app, db, web,
                                                                  new_client):
    table = make_table(web, new_client)
    app.state.dice = ScriptedDice([2])
    rolled(table, "gm", "1d6")
    with write_transaction(db):
        ids = rolls.append_rolls(db=db, secret=settings.secret_key,
                                 campaign_id=table.campaign_id, user_id=None,
                                 records=[{"expression": "1d6", "dice": [], "total": 1},
                                          {"expression": "1d6", "dice": [], "total": 2}],
                                 visibility="public")
    assert [db.get(Roll, roll_id).number for roll_id in ids] == [2, 3]


def test_the_migration_numbers_each_campaign_s_rolls_in_their_order(tmp_path):
    from sqlalchemy import create_engine, text

    from app.migrate import upgrade

    url = f"sqlite:///{tmp_path / 'before.db'}"
    upgrade(url, "0007_chat")
    engine = create_engine(url)
    with engine.begin() as connection:
        for campaign_id in (7, 9):
            connection.execute(text(
                "INSERT INTO campaigns (id, name, description, system, version, created_at, "
                "updated_at) VALUES (:id, 'C', '', 'libre', 1, '2026-12-01 09:00:00', "
                "'2026-12-01 09:00:00')"), {"id": campaign_id})
        for roll_id, campaign_id in [(1, 7), (2, 9), (3, 7), (4, 7), (5, 9)]:
            connection.execute(text(
                "INSERT INTO rolls (id, campaign_id, visibility, purpose, expression, record, "
                "signature, created_at) VALUES (:id, :campaign, 'public', '', '1d6', '{}', '', "
                "'2026-12-01 10:00:00')"), {"id": roll_id, "campaign": campaign_id})
    upgrade(url)
    with engine.connect() as connection:
        numbers = dict(connection.execute(text("SELECT id, number FROM rolls")).all())
    engine.dispose()
    assert numbers == {1: 1, 2: 1, 3: 2, 4: 3, 5: 2}


def test_writers_at_once_never_share_a_number(settings, app, web, new_client):
    """Four tables rolling in one campaign at the same time (threads, each its own
    transaction): every roll gets its own number, none is refused. On PostgreSQL the
    campaign's row queues them (without it, the unique index would refuse a duplicate)."""
    from concurrent.futures import ThreadPoolExecutor
    from threading import Barrier

    table = make_table(web, new_client)
    start = Barrier(4)

    def roll_five(_: int) -> list[int]:
        start.wait()
        ids = []
        with app.state.sessionmaker() as session:
            for _ in range(5):
                with write_transaction(session):
                    ids += rolls.append_rolls(
                        db=session, secret=settings.secret_key, campaign_id=table.campaign_id,
                        user_id=None, records=[{"expression": "1d6", "dice": [], "total": 3}],
                        visibility="public")
        return ids

    with ThreadPoolExecutor(4) as pool:
        ids = [roll_id for made in pool.map(roll_five, range(4)) for roll_id in made]
    with app.state.sessionmaker() as session:
        numbers = sorted(session.scalars(select(Roll.number).where(Roll.id.in_(ids))))
    assert numbers == list(range(1, 21))
