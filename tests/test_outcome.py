"""A decided match says who won, on the table page and in the API, for every game that gives
an ``outcome`` (app/rules/outcome.py); a finished one links its replay.

The platform's side is tested with the free-play system told what to answer, so that it
holds whatever each game decides; each game's own outcomes are in its table tests.
"""

from __future__ import annotations

import pytest

from app.rules.outcome import Outcome
from app.rules.registry import get_system


@pytest.fixture
def judged(monkeypatch):
    """Make free play judge every state with ``judged.answer``."""
    class Judge:
        answer: Outcome | None = None

    judge = Judge()
    monkeypatch.setattr(get_system("libre"), "outcome", lambda state: judge.answer,
                        raising=False)
    return judge


def _banner(table, who):
    return who.page(table.url).select_one("#table-state #outcome")


def test_a_match_that_goes_on_shows_no_result(libre_match, judged):
    assert _banner(libre_match, libre_match.gm) is None
    answer = libre_match.gm.get("/api/v1" + libre_match.url)
    assert answer.status_code == 200 and answer.json()["outcome"] is None


def test_a_decided_fight_names_its_winner_and_leaves_the_end_to_the_gm(libre_match, judged):
    judged.answer = Outcome(("Aldo",), "%(side)s can no longer fight.",
                            {"side": "Les gobelins"})
    for who in (libre_match.gm, libre_match.player, libre_match.spectator):
        text = _banner(libre_match, who).get_text(" ", strip=True)
        assert "The match is decided. Aldo wins." in text
        assert "Les gobelins can no longer fight." in text
        assert "The GM ends the match" in text and "Watch" not in text
    answer = libre_match.player.get("/api/v1" + libre_match.url).json()["outcome"]
    assert answer == {"winners": ["Aldo"], "over": False,
                      "reason": "Les gobelins can no longer fight."}


def test_a_finished_match_shows_its_result_beside_its_replay(libre_match, judged):
    judged.answer = Outcome((), "Everyone fell.", over=True)
    banner = _banner(libre_match, libre_match.player)
    assert "The match is over." in banner.text and "Nobody wins." in banner.text
    assert banner.select_one("a")["href"] == libre_match.url + "/replay"
    replay = libre_match.player.page(libre_match.url + "/replay")
    assert replay.select_one("#outcome a") is None  # the replay does not link to itself


def test_the_action_panel_says_who_won_too_and_the_state_panel_announces_it(libre_match,
                                                                           judged):
    """Below a board, or behind a phone's tab, the state panel is out of view: the action
    panel starts with the result (no second status region: a screen reader hears it once)."""
    judged.answer = Outcome(("Aldo",), "%(side)s can no longer fight.",
                            {"side": "Les gobelins"})
    for who in (libre_match.gm, libre_match.player, libre_match.spectator):
        page = who.page(libre_match.url)
        copy = page.select_one("#action-panel #outcome-now")
        assert "The match is decided. Aldo wins." in copy.get_text(" ", strip=True)
        assert not copy.has_attr("role")
        assert page.select_one("#table-state #outcome")["role"] == "status"
    judged.answer = None
    assert libre_match.gm.page(libre_match.url).select_one("#outcome-now") is None
