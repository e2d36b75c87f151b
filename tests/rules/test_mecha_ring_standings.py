"""Mecha-Ring's campaign summary (issue 12: "Tournament standings and history on the campaign
page"): the history lists every tournament, finished or running, with its winner, champion and
each team's victory points, fights won and crédits read from its state; the standings sum
them per team over the tournaments. Tournaments played to the end by house bots (seeded)."""

from __future__ import annotations

from app.rules.dice import SeededDice
from app.rules.match import Actor, MatchSetup, ParticipantSetup, apply, fold
from app.rules.registry import get_system
from app.rules.system import SummaryCharacter, SummaryMatch

MECHA = get_system("mecha_ring")
GM = Actor(1, is_gm=True)


def bots_tournament(seed: int, teams: int, *, finish: bool = True) -> dict:
    setup = MatchSetup("T", tuple(ParticipantSetup(f"Team {i}", character_id=i + 1,
                                                   owner_id=100 + i + 1,
                                                   sheet={"implants": i % 2})
                                  for i in range(teams)))
    state = fold(MECHA, MECHA.start(setup, SeededDice(seed)))
    dice = SeededDice(seed + 1)
    for tid in list(state["seats"]):
        _, state = apply(MECHA, state, {"kind": "set_bot", "seat": tid, "on": "on"}, GM, dice)
    for _ in range(300 if finish else 0):
        if state["status"] == "finished":
            break
        _, state = apply(MECHA, state, {"kind": "let_bots_play"}, GM, dice)
    return state


def test_the_history_and_the_standings_are_read_from_the_tournaments():
    done = bots_tournament(7, 3)
    running = bots_tournament(8, 2, finish=False)
    assert done["status"] == "finished" and running["status"] == "running"
    roster = [SummaryCharacter(i + 1, f"Team {i}", {}) for i in range(3)] + [
        SummaryCharacter(9, "Bench", {})]  # a team that never played
    summary = MECHA.campaign_summary(
        [SummaryMatch(11, "Coupe", "finished", done),
         SummaryMatch(12, "Ligue", "running", running),
         SummaryMatch(13, "Empty", "running", {})], roster)
    first, second = summary["tournaments"]  # the empty match is no tournament
    assert (first["match_id"], first["over"], second["match_id"], second["over"]) == (
        11, True, 12, False)
    tokens = done["tokens"]
    assert first["winner"] == tokens[done["result"]["winner"]]["name"]
    assert first["champion"] == (tokens[done["result"]["champion"]]["name"]
                                 if done["result"]["champion"] else None)
    assert first["fights"] == len(done["history"]) > 0
    for row in first["teams"]:
        seat = tokens[row["seat"]]
        assert row["points"] == len(seat["loot"]) and row["credits"] == seat["credits"]
        assert row["fights_won"] == sum(fight["winner"] == row["seat"]
                                        for fight in done["history"])
    assert sum(row["fights_won"] for row in first["teams"]) == len(
        [fight for fight in done["history"] if fight["winner"]])
    # the standings: one row per roster team, sums over both tournaments
    rows = {row["name"]: row for row in summary["standings"]}
    assert set(rows) == {"Team 0", "Team 1", "Team 2", "Bench"}
    assert rows["Bench"]["played"] == 0 and rows["Team 2"]["played"] == 1
    assert rows["Team 0"]["played"] == 2 and rows["Team 0"]["running"] == 1
    for name in ("Team 0", "Team 1"):
        teams = [row for t in summary["tournaments"] for row in t["teams"]
                 if row["name"] == name]
        for figure in ("points", "fights_won", "credits"):
            assert rows[name][figure] == sum(row[figure] for row in teams)
    assert sum(row["wins"] for row in rows.values()) == 1  # only the finished one has one
    assert summary["standings"][0]["wins"] == 1 or summary["standings"][0]["titles"] == 1
    order = [(-r["titles"], -r["wins"], -r["points"], -r["fights_won"])
             for r in summary["standings"]]
    assert order == sorted(order)


def test_other_games_have_no_campaign_summary():
    from app.rules.registry import all_systems

    assert [s.key for s in all_systems() if hasattr(s, "campaign_summary")] == ["mecha_ring"]
