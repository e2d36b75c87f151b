"""The table page's streams of one match render a batch from one shared read (``TablePage``)
and share the fragments that viewers see alike — never one viewer's secret or CSRF token
with another (app/web/table_view.py, ``MatchStream``)."""

from __future__ import annotations

import asyncio
from contextlib import AsyncExitStack

from bs4 import BeautifulSoup

from app.models import Role
from app.services.match_feed import MatchFeeds
from app.web.table_view import MatchStream
from tests.test_match_feed import CountingSessions, match, on_loop, viewer  # noqa: F401


def page_stream(feeds, sessions, match, who, role, csrf):  # noqa: F811
    return MatchStream(viewer=viewer(feeds, match, who, role), sessionmaker=sessions,
                       campaign_id=match["campaign_id"], locale="en", csrf_token=csrf)


def line(items) -> BeautifulSoup:
    (log,) = [item for item in items if item.event == "log"]
    return BeautifulSoup(log.data, "html.parser")


def test_page_streams_read_once_and_share_only_what_viewers_see_alike(
        app, match, on_loop):  # noqa: F811
    sessions = CountingSessions(app.state.sessionmaker)
    feeds = MatchFeeds(app.state.broker, sessions)
    streams = [page_stream(feeds, sessions, match, "gm", Role.GM, "token-gm-a"),
               page_stream(feeds, sessions, match, "gm", Role.GM, "token-gm-b"),
               page_stream(feeds, sessions, match, "paul", Role.PLAYER, "token-paul-a"),
               page_stream(feeds, sessions, match, "paul", Role.PLAYER, "token-paul-b")]

    async def watch():
        async with AsyncExitStack() as stack:
            for stream in streams:
                await stack.enter_async_context(stream.viewer.watching())
            seq = await asyncio.to_thread(match["act"], kind="roll", expression="1d20+9000",
                                          purpose="trappe", visibility="gm")
            assert await streams[0].viewer.wait(seq - 1)  # the pump read the event
            before = sessions.opened
            items = [await stream.items_after(seq - 1, fresh=False) for stream in streams]
            return items, sessions.opened - before

    (gm_a, gm_b, paul_a, paul_b), reads = on_loop(watch)
    assert reads == 1  # one TablePage for the four streams
    # Each GM tab's undo form carries its own CSRF token, never the other's.
    for items, mine, theirs in ((gm_a, "token-gm-a", "token-gm-b"),
                                (gm_b, "token-gm-b", "token-gm-a")):
        html = "".join(item.data for item in items)
        assert line(items).select_one(f"form.undo input[value='{mine}']") is not None
        assert theirs not in html and "token-paul" not in html
        assert "1d20+9000" in html
    # The players see the roll hidden, with no undo form, and share that one line.
    for items in (paul_a, paul_b):
        html = "".join(item.data for item in items)
        assert "1d20+9000" not in html and "trappe" not in html and "token-gm" not in html
        assert "kind-hidden" in line(items).select_one("li.log-line")["class"]
        assert line(items).select("form.undo") == []
    (paul_a_log,) = [item for item in paul_a if item.event == "log"]
    (paul_b_log,) = [item for item in paul_b if item.event == "log"]
    assert paul_a_log is paul_b_log


def test_a_render_that_reads_the_clock_is_not_kept():
    """Mecha-Ring's turn timer reads ``server_now`` while the state panel is rendered: the
    stream's own clock, given in the render's context, stands for the global and sees it
    (such a render is lent to a later batch's stream only within its second)."""
    from app.web.table_view import _Clock
    from app.web.templating import templates

    clock = _Clock()
    assert templates.env.from_string("{{ 1 + 1 }}").render(server_now=clock) == "2"
    assert not clock.read
    templates.env.from_string("{{ server_now() > 0 }}").render(server_now=clock)
    assert clock.read


def test_the_board_is_sent_when_it_changed_and_not_for_a_roll(app, match, on_loop):  # noqa: F811
    """The board, the page's costliest fragment, goes out on connecting and when what it is
    drawn from changed (a token added, moved); a roll or a note leaves it alone, and the tab
    keeps the one it has (``MatchStream._board``)."""
    sessions = CountingSessions(app.state.sessionmaker)
    feeds = MatchFeeds(app.state.broker, sessions)
    stream = page_stream(feeds, sessions, match, "paul", Role.PLAYER, "token-paul")
    act = match["act"]

    def state_html(items) -> str:
        (state,) = [item for item in items if item.event == "state"]
        return state.data

    async def watch():
        sent = []
        async with stream.viewer.watching():
            sent.append(state_html(await stream.items_after(0, fresh=True)))  # connecting
            for action in ({"kind": "roll", "expression": "1d20"},
                           {"kind": "add_token", "name": "Gobelin", "x": 2, "y": 3},
                           {"kind": "note", "text": "Le pont craque."}):
                seq = await asyncio.to_thread(act, **action)
                assert await stream.viewer.wait(seq - 1)
                sent.append(state_html(await stream.items_after(seq - 1, fresh=False)))
        return sent

    connected, rolled, added, noted = on_loop(watch)
    for html in (connected, added):
        assert 'id="board-slot"' in html
    assert "Gobelin" in added  # drawn on the board, and in its list for a screen reader
    for html in (rolled, noted):
        assert 'id="board-slot"' not in html
        assert "data-seq" in html  # the state panel, still sent


def test_a_gm_s_line_is_the_shared_line_with_their_undo_form(app, match, on_loop):  # noqa: F811
    """The players' copy of a public line is rendered once and the GM's is that copy with
    their « Undo to here »: the same line, word for word, as the journal renders whole."""
    from app.i18n import set_locale
    from app.models import Campaign, Match
    from app.services import matches, tables
    from app.services.access import CampaignAccess
    from app.web.table_view import fragment, lines_context, named_lines

    sessions = CountingSessions(app.state.sessionmaker)
    feeds = MatchFeeds(app.state.broker, sessions)
    gm = page_stream(feeds, sessions, match, "gm", Role.GM, "token-gm")
    paul = page_stream(feeds, sessions, match, "paul", Role.PLAYER, "token-paul")

    async def watch():
        async with gm.viewer.watching(), paul.viewer.watching():
            seq = await asyncio.to_thread(match["act"], kind="roll", expression="2d6")
            assert await gm.viewer.wait(seq - 1)
            return (await gm.items_after(seq - 1, fresh=False),
                    await paul.items_after(seq - 1, fresh=False), seq)

    gm_items, paul_items, seq = on_loop(watch)
    with app.state.sessionmaker() as db:
        found = db.get(Match, match["match_id"])
        event = tables.event_dict(tables.rows_after(db, found, after_seq=seq - 1)[0])
        access = CampaignAccess(campaign=db.get(Campaign, match["campaign_id"]), user=None,
                                membership=type("M", (), {"role": Role.GM})())
        names = matches.names(db=db, user_ids={match["gm"]})
        set_locale("en")  # the streams' own
        whole = fragment("matches/_log_lines.html", lines_context(
            found, access, named_lines([event], names), {match["gm"]}, csrf_token="token-gm"))

    def words(html: str) -> str:
        return " ".join(html.split())

    gm_line, paul_line = line(gm_items), line(paul_items)
    assert gm_line.select_one("form.undo input[value='token-gm']") is not None
    assert paul_line.select("form.undo") == []
    gm_line.select_one("form.undo").decompose()
    assert words(str(gm_line)) == words(str(paul_line))
    assert words(line(gm_items).decode()) == words(BeautifulSoup(whole, "html.parser").decode())
