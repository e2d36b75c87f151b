"""Each initiative line names who rolled (issue 10): in the journal, a line with several rolls
starts each roll's summary with what it is for — « initiative — Jack », "Mouvement — P1" —
so the dice can be told apart without opening them. One shared mechanism
(``templates/matches/_dice.html``) for every game: Cyborg's tie-break, Mutatior's and
Tiamat's initiative, Mecha-Ring's Mouvement order. A line with a single roll is unchanged
(the free roll's line already says its purpose)."""

from __future__ import annotations

from bs4 import BeautifulSoup

from app.i18n import get_locale, set_locale
from app.rules.dice import RollRecord
from app.rules.match import Event
from app.web.table_view import LogLine, fragment


def summaries(system_key: str, event: Event, lang: str = "en") -> list[tuple[str, str]]:
    """The journal line of ``event`` as the table draws it for a reader of ``lang``: each
    roll's (purpose shown in its summary, the die row's spoken label)."""
    line = LogLine({"seq": 7, "kind": event.kind, "payload": event.payload, "reverted": False,
                    "visibility": "public", "created_at": None, "actor_id": 1},
                   [RollRecord.from_dict(record) for record in event.payload["rolls"]], "Mia")
    before = get_locale()
    set_locale(lang)
    try:
        html = fragment("matches/_log_lines.html", {
            "lines": [line], "system_key": system_key, "url": "/m", "seq": 7,
            "can_undo": False, "gm_ids": set(), "csrf_token": "x"})
    finally:
        set_locale(before)
    page = BeautifulSoup(html, "html.parser")
    found = []
    for view in page.select(".roll-view"):
        label = view.select_one("summary .roll-for")
        row = view.select_one(".die-row")
        found.append((label.get_text(strip=True) if label else "",
                      row["aria-label"] if row else ""))
    return found


def test_cyborg_initiative_tie_break_names_each_group():
    from tests.rules.test_cyborg_system import act, lab

    state = lab()
    _, state = act(state, {"kind": "correct", "token": "t2", "field": "rapidite",
                           "value": 12, "reason": "égalité"})
    events, _ = act(state, {"kind": "roll_initiative"}, [15, 8])  # 12 each: 1D20 each
    assert summaries("cyborg", events[0]) == [
        ("initiative (cyborgs):", "initiative (cyborgs): 1d20: 15 = 15"),
        ("initiative (aliens):", "initiative (aliens): 1d20: 8 = 8")]
    # A French reader: the colon as French writes it.
    assert summaries("cyborg", events[0], "fr")[0][0] == "initiative (cyborgs) :"


def test_tiamat_initiative_names_each_fighter():
    from tests.rules.test_tiamat_match import GM, play, warehouse

    events, _ = play(warehouse(), GM, {"kind": "roll_initiative"}, [3, 8, 5])
    shown = [label for label, _spoken in summaries("tiamat", events[0])]
    assert shown == ["initiative — Jack:", "initiative — Voyous:"]


def test_mutatior_initiative_names_each_mutant():
    from tests.rules.test_mutatior_system import GM, PATOM, YETZAR, example_match, play

    state = example_match()
    _, state = play(state, PATOM, {"kind": "move", "token": "m1", "x": 30, "y": 20}, [])
    _, state = play(state, YETZAR, {"kind": "move", "token": "m2", "x": 30, "y": 50}, [])
    events, _ = play(state, GM, {"kind": "start_fight", "uneven": True}, [5, 6, 1])
    started = next(event for event in events if event.kind == "round_started")
    shown = summaries("mutatior", started)
    assert [label for label, _spoken in shown] == ["initiative Grosbaf:", "initiative Zetzet:"]
    assert shown[0][1].startswith("initiative Grosbaf: 1d6")


def test_mecha_ring_mouvement_order_names_each_robot():
    from tests.rules.test_mecha_ring_rules import STRONG, WEAK, act, begin, with_robots

    state = with_robots(begin(), STRONG, WEAK)
    events, _ = act(state, {"kind": "roll_order"}, faces=[1, 1, 2, 4, 2, 5])
    shown = [label for label, _spoken in summaries("mecha_ring", events[0])]
    # the purpose in the reader's language, as under "For" (app.rules.purposes)
    assert shown[:2] == ["Movement — P1:", "Movement — P2:"]
    assert "Tie — P1:" in shown and "Tie — P2:" in shown
    french = [label for label, _spoken in summaries("mecha_ring", events[0], "fr")]
    assert french[:2] == ["Mouvement — P1 :", "Mouvement — P2 :"]


def test_a_line_with_one_roll_keeps_its_summary_as_it_was():
    from tests.rules.test_cyborg_system import act, lab

    events, _ = act(lab(), {"kind": "test", "token": "t1", "test": "characteristic",
                            "characteristic": "force", "malus": 3}, [9])
    assert summaries("cyborg", events[0]) == [("", "1d20: 9 → 9 + malus 3 = 12 < 13, success")]
