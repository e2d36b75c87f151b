"""The shared read behind a match's streams: one subscription and one database read per
notification, whatever the number of viewers; a lagging or connecting viewer reads for
itself; a changed role ends that viewer's feed only."""

from __future__ import annotations

import asyncio
import json
import re
from contextlib import AsyncExitStack

import pytest
from sqlalchemy import update

from app.models import Membership, Role
from app.services.match_feed import MatchFeeds, Viewer
from tests.helpers import asgi_stream
from tests.test_event_stream import Peer


class CountingSessions:
    """The app's sessionmaker, counting how many sessions (reads) the feeds open."""

    def __init__(self, sessionmaker) -> None:
        self.sessionmaker, self.opened = sessionmaker, 0

    def __call__(self):
        self.opened += 1
        return self.sessionmaker()


@pytest.fixture
def match(api):
    gm, paul = api("gaelle"), api("paul")
    campaign = gm.post("/campaigns", json={"name": "Les Brumes", "system": "libre"}).json()
    invite = gm.post(f"/campaigns/{campaign['id']}/invites", json={"role": "player"}).json()
    paul.post(f"/invites/{invite['token']}/accept")
    found = gm.post(f"/campaigns/{campaign['id']}/matches", json={"name": "Embuscade"}).json()
    url = f"/campaigns/{campaign['id']}/matches/{found['id']}"

    def act(**action):
        response = gm.post(url + "/actions", json={"action": action})
        assert response.status_code == 200, response.text
        return response.json()["seq"]

    return {"campaign_id": campaign["id"], "match_id": found["id"], "act": act,
            "gm": gm.id, "paul": paul.id}


@pytest.fixture
def on_loop(running_app):
    """Run ``async def`` code on the app's own loop, where its broker and streams live."""

    def call(function):
        return running_app.portal.call(function)

    return call


def viewer(feeds, match, who="gm", role=Role.GM) -> Viewer:
    return Viewer(feeds, campaign_id=match["campaign_id"], match_id=match["match_id"],
                  user_id=match[who], role=role)


def test_a_thousand_viewers_share_one_read_per_notification(app, match, on_loop):
    sessions = CountingSessions(app.state.sessionmaker)
    feeds = MatchFeeds(app.state.broker, sessions)
    viewers = [viewer(feeds, match) for _ in range(1000)]
    act = match["act"]

    async def watch():
        async with AsyncExitStack() as stack:
            for each in viewers:
                await stack.enter_async_context(each.watching())
            before = sessions.opened
            # committed, then announced
            start = await asyncio.to_thread(act, kind="note", text="Le pont craque.")
            assert all(await asyncio.gather(*(v.wait(start - 1) for v in viewers)))
            batches = [await v.read(start - 1, fresh=False) for v in viewers]
            reads = sessions.opened - before
            texts = {tuple(e["payload"]["text"] for e in b.after(start - 1)) for b in batches}
            return reads, texts, feeds.watched()

    reads, texts, watched = on_loop(watch)
    assert reads == 1
    assert texts == {("Le pont craque.",)}
    assert watched == 1
    assert feeds.watched() == 0  # the last viewer left: the feed stopped


def test_a_connecting_or_lagging_viewer_reads_for_itself(app, match, on_loop):
    sessions = CountingSessions(app.state.sessionmaker)
    feeds = MatchFeeds(app.state.broker, sessions)
    act = match["act"]
    first = act(kind="note", text="Le pont craque.")

    async def watch():
        one = viewer(feeds, match)
        async with one.watching():
            before = sessions.opened
            backlog = await one.read(0, fresh=True)  # connecting: never the pump's batch
            assert sessions.opened == before + 1
            assert [e["seq"] for e in backlog.after(0)][-1] == first
            second = await asyncio.to_thread(act, kind="note", text="Un gobelin surgit.")
            assert await one.wait(first)
            shared = await one.read(first, fresh=False)
            assert [e["seq"] for e in shared.after(first)] == [second]
            # A viewer who has sent less than the pump's batch holds: a read of its own.
            before = sessions.opened
            lagging = await one.read(1, fresh=False)
            assert sessions.opened == before + 1
            return [e["seq"] for e in lagging.after(1)], second

    seqs, second = on_loop(watch)
    assert seqs == list(range(2, second + 1))


def test_a_burst_longer_than_a_page_reaches_every_viewer(app, match, on_loop):
    feeds = MatchFeeds(app.state.broker, app.state.sessionmaker)
    act = match["act"]
    start = act(kind="note", text="Début")

    async def watch():
        one = viewer(feeds, match)
        async with one.watching():
            received, sent = [], start
            last = None
            for number in range(130):
                last = await asyncio.to_thread(act, kind="note", text=f"Note {number}")
            while sent < last:
                assert await one.wait(sent)
                batch = await one.read(sent, fresh=False)
                received += [e["seq"] for e in batch.after(sent)]
                sent = received[-1] if received else sent
            return received, last

    received, last = on_loop(watch)
    assert received == list(range(start + 1, last + 1))


def test_a_changed_role_ends_that_viewers_feed_only(app, db, match, on_loop):
    feeds = MatchFeeds(app.state.broker, app.state.sessionmaker)
    act = match["act"]

    async def watch():
        paul, gm = viewer(feeds, match, "paul", Role.PLAYER), viewer(feeds, match)
        async with paul.watching(), gm.watching():
            db.execute(update(Membership).where(Membership.user_id == match["paul"])
                       .values(role=Role.SPECTATOR))
            db.commit()
            seq = await asyncio.to_thread(act, kind="note", text="Le pont craque.")
            assert await gm.wait(seq - 1)
            return await paul.read(seq - 1, fresh=False), await gm.read(seq - 1, fresh=False)

    for_paul, for_gm = on_loop(watch)
    assert for_paul is None
    assert for_gm is not None


def test_each_viewer_gets_the_event_as_they_may_see_it(app, match, on_loop):
    feeds = MatchFeeds(app.state.broker, app.state.sessionmaker)
    seq = match["act"](kind="roll", expression="1d20", visibility="gm")

    async def watch():
        gm, paul = viewer(feeds, match), viewer(feeds, match, "paul", Role.PLAYER)
        async with gm.watching(), paul.watching():
            batch = await gm.read(seq - 1, fresh=True)
            (event,) = batch.after(seq - 1)
            return batch.as_json(event, gm.actor), batch.as_json(event, paul.actor)

    whole, hidden = on_loop(watch)
    assert '"rolls"' in whole
    assert '"rolls"' not in hidden and '"secret_roll"' in hidden


def test_viewers_who_see_an_event_alike_share_one_encoded_message(app, match, on_loop):
    """A thousand streams of one match must not encode the same event a thousand times:
    the API stream's item (its JSON and its SSE bytes) is made once per batch for each
    way of seeing the event — whole for the GM and the roller, redacted for the others."""
    from app.api.matches import JsonEvents

    feeds = MatchFeeds(app.state.broker, app.state.sessionmaker)

    async def watch():
        gm, gm_tab = viewer(feeds, match), viewer(feeds, match)
        paul, paul_tab = (viewer(feeds, match, "paul", Role.PLAYER) for _ in range(2))
        async with gm.watching(), gm_tab.watching(), paul.watching(), paul_tab.watching():
            seq = await asyncio.to_thread(match["act"], kind="roll", expression="1d20",
                                          visibility="gm")
            assert await gm.wait(seq - 1)  # the pump read the event, once for all four
            return seq, [await JsonEvents(one).items_after(seq - 1, fresh=False)
                         for one in (gm, gm_tab, paul, paul_tab)]

    seq, [(for_gm,), (for_gm_tab,), (for_paul,), (for_paul_tab,)] = on_loop(watch)
    assert for_gm is for_gm_tab and for_paul is for_paul_tab
    assert for_gm.wire is for_gm_tab.wire
    assert b'"rolls"' in for_gm.wire and b'"secret_roll"' in for_paul.wire
    assert for_paul.wire.startswith(f"id: {seq}\r\nevent: match-event\r\ndata: {{".encode())


def test_a_feed_that_cannot_read_ends_its_streams(app, match, on_loop):
    """A failed read must not leave streams waiting for ever: they end, and the browsers
    reconnect (and read for themselves)."""
    calls = {"n": 0}

    def failing_after_the_first():
        calls["n"] += 1
        if calls["n"] > 1:
            raise RuntimeError("the database went away")
        return app.state.sessionmaker()

    feeds = MatchFeeds(app.state.broker, failing_after_the_first)
    act = match["act"]

    async def watch():
        one = viewer(feeds, match)
        async with one.watching():
            await asyncio.to_thread(act, kind="note", text="Le pont craque.")
            return await asyncio.wait_for(one.wait(10_000), timeout=10)

    assert on_loop(watch) is False
    assert feeds.watched() == 0


# — the feed writing to waiting streams itself (``Viewer.wait_served``) ——————————————

def test_waiting_viewers_are_served_by_the_feed_without_being_woken(app, match, on_loop):
    feeds = MatchFeeds(app.state.broker, app.state.sessionmaker)
    act = match["act"]
    start = act(kind="note", text="Début")

    async def watch():
        served: list[tuple[int, list[int]]] = []

        def serve(batch, sent):
            served.append((sent, [event["seq"] for event in batch.after(sent)]))
            return batch.seq

        async with AsyncExitStack() as stack:
            viewers = [viewer(feeds, match) for _ in range(3)]
            for each in viewers:
                await stack.enter_async_context(each.watching())
            waits = [asyncio.ensure_future(each.wait_served(start, serve))
                     for each in viewers]

            async def served_count(count):
                for _ in range(500):
                    if len(served) >= count:
                        return
                    await asyncio.sleep(0.01)

            # Each event is written once the previous one has been served, so the feed
            # cannot fold both into one batch on a slow machine.
            first = await asyncio.to_thread(act, kind="note", text="Le pont craque.")
            await served_count(3)
            second = await asyncio.to_thread(act, kind="note", text="Un gobelin surgit.")
            await served_count(6)
            still_waiting = not any(wait.done() for wait in waits)
            # A batch the stream declines wakes it, at the position it was served up to.
            declined = asyncio.Event()

            async def declining():
                def decline(batch, sent):
                    declined.set()
                    return None
                return await viewers[0].wait_served(second, decline)

            woken = asyncio.ensure_future(declining())
            for wait in waits:
                wait.cancel()
            await asyncio.sleep(0.05)
            third = await asyncio.to_thread(act, kind="note", text="Il fuit.")
            reached = await asyncio.wait_for(woken, 5)
            return served, still_waiting, reached, (first, second, third)

    served, still_waiting, reached, (first, second, third) = on_loop(watch)
    assert still_waiting
    assert served == [(start, [first])] * 3 + [(first, [second])] * 3
    assert reached == second < third  # the third event is the stream's task's to read


def test_a_viewer_whose_role_changed_is_woken_not_served(app, db, match, on_loop):
    feeds = MatchFeeds(app.state.broker, app.state.sessionmaker)
    act = match["act"]
    start = act(kind="note", text="Début")
    served = []

    async def watch():
        paul = viewer(feeds, match, "paul", Role.PLAYER)
        async with paul.watching():
            waiting = asyncio.ensure_future(paul.wait_served(start, lambda b, s: served.append(s)
                                                             or b.seq))
            await asyncio.sleep(0.05)

            db.execute(update(Membership).where(Membership.user_id == match["paul"])
                       .values(role=Role.SPECTATOR))
            db.commit()
            await asyncio.to_thread(act, kind="note", text="Après")
            reached = await asyncio.wait_for(waiting, 5)
            return reached, await paul.read(reached, fresh=False)

    reached, batch = on_loop(watch)
    assert served == []
    assert reached == start  # woken where it was, and its read then ends the stream
    assert batch is None


# — the API stream, end to end in the app ——————————————————————————————————————————

def test_a_slow_reader_gets_every_event_once_and_in_order(app, api, on_loop):
    gm = api("gaelle")
    campaign = gm.post("/campaigns", json={"name": "Les Brumes", "system": "libre"}).json()
    found = gm.post(f"/campaigns/{campaign['id']}/matches", json={"name": "Embuscade"}).json()
    url = f"/campaigns/{campaign['id']}/matches/{found['id']}"

    def note(text: str) -> int:
        response = gm.post(url + "/actions", json={"action": {"kind": "note", "text": text}})
        assert response.status_code == 200, response.text
        return response.json()["seq"]

    first = note("Début")
    token = gm.headers["Authorization"].split()[1]

    async def watch():
        quick, slow, gone = Peer(), Peer(), asyncio.Event()
        streams = [asyncio.ensure_future(asgi_stream(app, f"/api/v1{url}/stream", token,
                                                     peer.send, gone,
                                                     query=f"after={first}".encode()))
                   for peer in (quick, slow)]
        await asyncio.sleep(0.2)  # both connected, caught up and waiting
        slow.paused.clear()  # the slow one stops reading
        seqs = [await asyncio.to_thread(note, f"Note {number}") for number in range(8)]
        await asyncio.sleep(0.2)
        held = _ids(slow.bodies)
        slow.paused.set()
        for _ in range(200):
            if _ids(slow.bodies)[-1:] == seqs[-1:] and _ids(quick.bodies)[-1:] == seqs[-1:]:
                break
            await asyncio.sleep(0.01)
        gone.set()
        await asyncio.wait_for(asyncio.gather(*streams), 5)
        return seqs, held, _ids(quick.bodies), _ids(slow.bodies), slow.bodies

    seqs, held, quick, slow, slow_bodies = on_loop(watch)
    assert held == []  # nothing reached the paused client...
    assert quick == seqs  # ...while the other stream got each event as it came
    assert slow == seqs  # and once it read again: all of them, once, in order
    texts = [json.loads(data)["payload"]["text"]
             for data in re.findall(rb"data: (.*)\r\n", b"".join(slow_bodies))]
    assert texts == [f"Note {number}" for number in range(8)]


def _ids(bodies: list[bytes]) -> list[int]:
    return [int(seq) for seq in re.findall(rb"(?m)^id: (\d+)\r$", b"".join(bodies))]
