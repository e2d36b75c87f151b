"""What one action at a table costs the database: each thing the request needs is read
once, and the action is written in one transaction with the fewest statements
(docs/benchmarks.md § Actions per second). A change that reads the session, the
membership or the match twice, or goes back to the ORM's flush, fails here."""

from __future__ import annotations

import re
from collections import Counter
from datetime import timedelta

import pytest
from sqlalchemy import event, select, update

from app.api.matches import ActionOut
from app.models import UserSession, utcnow
from tests.match_table import Table, seat_table

ROLL = {"kind": "roll", "expression": "1d20+5", "purpose": "Attaque"}


@pytest.fixture
def table(api) -> Table:
    return seat_table(api)


class Statements:
    """The SQL the app's engine runs while the block runs: ``(verb, table)`` pairs."""

    def __init__(self, engine) -> None:
        self.engine, self.seen = engine, []

    def _listen(self, _connection, _cursor, statement, *_args) -> None:
        self.seen.append(statement)

    def __enter__(self) -> Statements:
        event.listen(self.engine, "before_cursor_execute", self._listen)
        return self

    def __exit__(self, *exc: object) -> None:
        event.remove(self.engine, "before_cursor_execute", self._listen)

    def counted(self) -> Counter[tuple[str, str]]:
        found: Counter[tuple[str, str]] = Counter()
        for statement in self.seen:
            verb = statement.split(None, 1)[0].upper()
            if verb in ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE"):
                found[(verb, "")] += 1
                continue
            # The statement's own table: the first after FROM, INTO or UPDATE.
            target = re.search(r"\b(?:FROM|INTO|UPDATE)\s+\"?(\w+)", statement)
            found[(verb, target.group(1) if target else "?")] += 1
        return found


def test_a_roll_reads_each_thing_once_and_writes_in_one_transaction(app, table):
    table.act("paul", ROLL)  # a first one, so that only an ordinary action is counted
    with Statements(app.state.engine) as sql:
        response = table.act("paul", ROLL)
    assert response.status_code == 200, response.text
    counted = sql.counted()
    work = {key: n for key, n in counted.items() if key[1]}
    expected = {
        ("SELECT", "user_sessions"): 1,   # who asks, their membership and the campaign
        ("SELECT", "characters"): 1,      # the characters they play (the rules' actor)
        ("SELECT", "matches"): 1,         # the snapshot, under the write lock
        ("INSERT", "rolls"): 1,           # the signed roll: its row and campaign number…
        ("UPDATE", "rolls"): 1,           # …then its signature, which covers its id
        ("INSERT", "match_events"): 1,    # the event
        ("UPDATE", "matches"): 1,         # the new snapshot
    }
    if app.state.engine.dialect.name != "sqlite":  # the campaign's row, so that two rolls
        expected[("SELECT", "campaigns")] = 1     # never take the same number
    assert work == expected, sql.seen
    if app.state.engine.dialect.name == "sqlite":
        # One transaction: who asks (the session), the membership, the table's write, all
        # under the write lock; no read transaction of its own for the session.
        assert [s for s in sql.seen if s.startswith("BEGIN")] == ["BEGIN IMMEDIATE"]
        assert sql.seen.index("BEGIN IMMEDIATE") < next(
            i for i, s in enumerate(sql.seen) if "FROM user_sessions" in s)


def test_an_expired_session_acts_no_more_and_is_removed(app, table, db):
    paul = table.users["paul"]
    db.execute(update(UserSession).where(UserSession.user_id == paul.id)
               .values(last_seen_at=utcnow() - timedelta(days=400)))
    db.commit()
    seq = table.match("mia")["seq"]
    refused = table.act("paul", ROLL)
    assert refused.status_code == 401, refused.text
    db.expire_all()
    assert db.scalar(select(UserSession.id).where(UserSession.user_id == paul.id)) is None
    assert table.match("mia")["seq"] == seq


def test_a_session_due_its_last_seen_time_acts_and_has_it_written(table, db):
    """The one-statement read answers only a session that is simply live; one whose
    last-seen time is due takes the usual way, which writes it."""
    paul = table.users["paul"]
    a_while_ago = utcnow() - timedelta(minutes=10)
    db.execute(update(UserSession).where(UserSession.user_id == paul.id)
               .values(last_seen_at=a_while_ago))
    db.commit()
    assert table.act("paul", ROLL).status_code == 200
    db.expire_all()
    seen = db.scalar(select(UserSession.last_seen_at).where(UserSession.user_id == paul.id))
    assert seen > a_while_ago + timedelta(minutes=9)


def test_a_disabled_account_acts_no_more(table, db):
    from app.services.accounts import set_disabled

    seq = table.match("mia")["seq"]
    set_disabled(db=db, user_id=table.users["paul"].id, disabled=True)
    db.commit()
    assert table.act("paul", ROLL).status_code == 401
    assert table.act("sam", ROLL).status_code == 403  # a spectator watches
    assert table.match("mia")["seq"] == seq


@pytest.mark.parametrize(("path", "headers", "body"), [
    ("/api/v1/campaigns/0/matches/{match}/actions", {}, None),
    ("/api/v1/campaigns/{campaign}/matches/2147483648/actions", {}, None),
    ("/api/v1/campaigns/{campaign}/matches/{match}/actions", {"Idempotency-Key": "k" * 101},
     None),
    ("/api/v1/campaigns/{campaign}/matches/{match}/actions", {"Idempotency-Key": ""}, None),
    ("/api/v1/campaigns/{campaign}/matches/{match}/actions",
     {"Content-Type": "application/json"}, b'{"action": {"kind": "note", "text": "x"'),
    ("/api/v1/campaigns/{campaign}/matches/{match}/actions",
     {"Content-Type": "application/json"}, b'{"action": {"kind": "note"}, "seq": true}'),
])
def test_what_the_quick_path_declines_is_refused_as_the_schema_says(table, path, headers, body):
    """The action route's quick path serves well-formed requests only; the rest reach the
    declared route, whose validation answers 422 with the field at fault, and nothing moves."""
    paul = table.users["paul"]
    seq = table.match("mia")["seq"]
    url = path.format(campaign=table.campaign_id, match=table.match_id)
    sent = {"content": body} if body is not None else {
        "json": {"action": {"kind": "note", "text": "Bonjour"}}}
    answer = paul.client.post(url, headers={**paul.headers, **headers}, **sent)
    assert answer.status_code == 422, answer.text
    assert answer.json()["error"]["code"] == "invalid_input", answer.text
    assert table.match("mia")["seq"] == seq


def test_a_json_body_that_names_its_charset_is_an_action_too(table):
    paul = table.users["paul"]
    answer = paul.client.post(
        f"/api/v1{table.base}/actions", content=b'{"action": {"kind": "note", "text": "Ho"}}',
        headers={**paul.headers, "Content-Type": "application/json; charset=utf-8"})
    assert answer.status_code == 200, answer.text
    assert answer.json()["events"][0]["payload"]["text"] == "Ho"


def test_the_rules_refuse_in_the_accounts_language_whatever_the_browser_says(table):
    paul = table.users["paul"]
    assert paul.patch("/me", json={"locale": "en"}).status_code == 200
    bad = {"kind": "roll", "expression": "1d"}
    english = table.act("paul", bad, headers={"Accept-Language": "fr"})
    assert english.status_code == 422, english.text
    assert paul.patch("/me", json={"locale": "fr"}).status_code == 200
    french = table.act("paul", bad, headers={"Accept-Language": "en"})
    assert french.status_code == 422
    assert english.json()["error"]["message"].startswith("“Dice expression”: expected")
    assert french.json()["error"]["message"].startswith("« Expression de dés » : attendu")
    # A schema error, refused before the route runs, reads the account's language too.
    assert paul.patch("/me", json={"locale": "en"}).status_code == 200
    schema = table.act("paul", {"kind": "roll", "expression": "1d6"}, seq=-1,
                       headers={"Accept-Language": "fr"})
    assert schema.status_code == 422, schema.text
    assert schema.json()["error"]["message"].startswith("“seq”: expected")


def test_a_retried_action_adds_only_its_idempotency_record(app, table):
    with Statements(app.state.engine) as sql:
        first = table.act("paul", ROLL, key="essai-1")
    again = table.act("paul", ROLL, key="essai-1")
    assert first.status_code == again.status_code == 200
    assert again.json()["replayed"] is True
    assert again.json()["events"] == first.json()["events"]
    counted = sql.counted()
    assert counted[("INSERT", "action_requests")] == 1
    assert counted[("SELECT", "action_requests")] == 1  # was this key seen before?


def test_the_answer_is_exactly_what_the_documented_shape_says(table):
    """The action's answer is written by hand (no second pydantic pass): it must be
    ``ActionOut`` to the byte, times included, for a visible and for a hidden event."""
    seen = table.act("paul", ROLL).json()
    assert ActionOut.model_validate(seen).model_dump(mode="json") == seen
    assert seen["events"][0]["created_at"].endswith("Z")
    secret = table.act("mia", {**ROLL, "visibility": "gm"}).json()
    assert ActionOut.model_validate(secret).model_dump(mode="json") == secret
    hidden = table.log("paul", after_seq=secret["seq"] - 1)[0]
    assert hidden["kind"] == "hidden"
