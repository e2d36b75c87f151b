"""The shared read behind a match's streams: one database read per notification, whatever
the number of viewers, and never a batch read before what the viewer was told about."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import update

from app.models import Membership, Role
from app.services.match_feed import MatchFeeds, Viewer


class CountingSessions:
    """The app's sessionmaker, counting how many sessions (reads) the feed opens."""

    def __init__(self, sessionmaker) -> None:
        self.sessionmaker, self.opened = sessionmaker, 0

    def __call__(self):
        self.opened += 1
        return self.sessionmaker()


@pytest.fixture
def match(api, app):
    gm, paul = api("gaelle"), api("paul")
    campaign = gm.post("/campaigns", json={"name": "Les Brumes", "system": "libre"}).json()
    invite = gm.post(f"/campaigns/{campaign['id']}/invites", json={"role": "player"}).json()
    paul.post(f"/invites/{invite['token']}/accept")
    found = gm.post(f"/campaigns/{campaign['id']}/matches", json={"name": "Embuscade"}).json()
    url = f"/campaigns/{campaign['id']}/matches/{found['id']}"

    def act(who=gm, **action):
        response = who.post(url + "/actions", json={"action": action})
        assert response.status_code == 200, response.text
        return response.json()["seq"]

    return {"campaign_id": campaign["id"], "match_id": found["id"], "act": act,
            "gm": gm, "paul": paul}


@pytest.fixture
def run(running_app):
    """Run a coroutine on the app's own loop (where the streams run)."""

    def call(awaitable):
        async def wait():
            return await (awaitable() if callable(awaitable) else awaitable)
        return running_app.portal.call(wait)

    return call


def test_many_viewers_of_one_notification_share_one_read(app, match, run):
    sessions = CountingSessions(app.state.sessionmaker)
    feeds = MatchFeeds(sessions)
    viewers = [Viewer(feeds, campaign_id=match["campaign_id"], match_id=match["match_id"],
                      user_id=match["gm"].id, role=Role.GM) for _ in range(200)]
    start = match["act"](kind="note", text="Le pont craque.")
    seq = match["act"](kind="note", text="Un gobelin surgit.")

    async def everyone_reads():
        return await asyncio.gather(*(viewer.read(start, wanted=seq, fresh=False)
                                for viewer in viewers))

    batches = run(everyone_reads)
    assert sessions.opened == 1
    assert {batch.seq for batch in batches} == {seq}
    assert [event["payload"]["text"] for event in batches[0].after(start)] == [
        "Un gobelin surgit."]
    # Told about nothing newer, a second round reads nothing.
    run(everyone_reads)
    assert sessions.opened == 1
    # A later event is read again, once.
    newer = match["act"](kind="note", text="Il s'enfuit.")
    async def everyone_reads_again():
        return await asyncio.gather(*(viewer.read(seq, wanted=newer, fresh=False)
                                      for viewer in viewers))

    again = run(everyone_reads_again)
    assert sessions.opened == 2
    assert [event["seq"] for event in again[0].after(seq)] == [newer]
    for viewer in viewers:
        viewer.close()
    assert feeds.watched() == 0


def test_a_connecting_viewer_always_reads_afresh(app, match, run):
    sessions = CountingSessions(app.state.sessionmaker)
    feeds = MatchFeeds(sessions)
    first = Viewer(feeds, campaign_id=match["campaign_id"], match_id=match["match_id"],
                   user_id=match["gm"].id, role=Role.GM)
    seq = match["act"](kind="note", text="Le pont craque.")
    run(first.read(0, wanted=seq, fresh=False))
    later = match["act"](kind="note", text="Un gobelin surgit.")
    second = Viewer(feeds, campaign_id=match["campaign_id"], match_id=match["match_id"],
                    user_id=match["gm"].id, role=Role.GM)
    # The cached batch covers seq 0..seq, but a backlog must be read after connecting.
    batch = run(second.read(0, wanted=0, fresh=True))
    assert sessions.opened == 2
    assert batch.seq == later


def test_a_long_backlog_comes_page_by_page(app, match, run):
    feeds = MatchFeeds(app.state.sessionmaker)
    viewer = Viewer(feeds, campaign_id=match["campaign_id"], match_id=match["match_id"],
                    user_id=match["gm"].id, role=Role.GM)
    for number in range(120):
        last = match["act"](kind="note", text=f"Note {number}")
    first = run(viewer.read(0, wanted=0, fresh=True))
    assert not first.complete and len(first.events) == 100
    rest = run(viewer.read(first.seq, wanted=0, fresh=False))
    assert rest.complete and rest.seq == last
    assert [e["seq"] for e in rest.after(first.seq)] == list(range(first.seq + 1, last + 1))


def test_a_changed_role_ends_the_viewers_feed_but_not_the_others(app, db, match, run):
    feeds = MatchFeeds(app.state.sessionmaker)
    paul = Viewer(feeds, campaign_id=match["campaign_id"], match_id=match["match_id"],
                  user_id=match["paul"].id, role=Role.PLAYER)
    gm = Viewer(feeds, campaign_id=match["campaign_id"], match_id=match["match_id"],
                user_id=match["gm"].id, role=Role.GM)
    db.execute(update(Membership).where(Membership.user_id == match["paul"].id)
               .values(role=Role.SPECTATOR))
    db.commit()
    seq = match["act"](kind="note", text="Le pont craque.")
    assert run(paul.read(0, wanted=seq, fresh=False)) is None
    assert run(gm.read(0, wanted=seq, fresh=False)) is not None


def test_each_viewer_gets_the_event_as_they_may_see_it(app, match, run):
    feeds = MatchFeeds(app.state.sessionmaker)
    seq = match["act"](kind="roll", expression="1d20", visibility="gm")
    gm = Viewer(feeds, campaign_id=match["campaign_id"], match_id=match["match_id"],
                user_id=match["gm"].id, role=Role.GM)
    paul = Viewer(feeds, campaign_id=match["campaign_id"], match_id=match["match_id"],
                  user_id=match["paul"].id, role=Role.PLAYER)
    batch = run(gm.read(seq - 1, wanted=seq, fresh=False))
    (event,) = batch.after(seq - 1)
    assert '"rolls"' in batch.as_json(event, gm.actor)
    hidden = batch.as_json(event, paul.actor)
    assert '"rolls"' not in hidden and '"secret_roll"' in hidden
