"""Mecha-Ring's campaign summary (issue: "Tournament standings and history on the campaign
page"): every tournament of the campaign, finished or running, and the standings summed over
them — read from the tournaments' states, public facts only (§ Fin du tournoi: the winner and
the champion; § Tour de jeu: a victory point per card in the loot pile).

Pure: the platform hands in the matches (``SummaryMatch``) and the roster
(``SummaryCharacter``); the answer is JSON-only data for the page and the API.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app.rules.mecha_ring.match import points
from app.rules.system import SummaryCharacter, SummaryMatch


def _team_rows(state: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Each seat of a tournament: its victory points, the fights it won, its crédits now."""
    tokens = state["tokens"]
    won: dict[str, int] = {}
    for fight in state.get("history") or []:
        if fight.get("winner"):
            won[fight["winner"]] = won.get(fight["winner"], 0) + 1
    rows = [{"seat": tid, "name": tokens[tid]["name"],
             "character_id": tokens[tid].get("character_id"),
             "points": points(tokens[tid]), "fights_won": won.get(tid, 0),
             "credits": tokens[tid]["credits"], "out": bool(tokens[tid].get("out"))}
            for tid in state["seats"] if tid in tokens]
    return sorted(rows, key=lambda row: (-row["points"], -row["fights_won"], row["name"]))


def tournament(match: SummaryMatch) -> dict[str, Any] | None:
    """One tournament's history line, or None for a match that is no tournament (yet)."""
    state = match.state
    tokens = state.get("tokens") or {}
    if not tokens or "seats" not in state:
        return None
    result = state.get("result") or {}

    def name(tid: Any) -> str | None:
        return tokens[tid]["name"] if isinstance(tid, str) and tid in tokens else None

    return {"match_id": match.id, "name": match.name,
            "over": state.get("status") == "finished",
            "fights": len(state.get("history") or []),
            "winner": name(result.get("winner")), "champion": name(result.get("champion")),
            "winner_seat": result.get("winner"), "champion_seat": result.get("champion"),
            "reason": result.get("reason"), "teams": _team_rows(state)}


def summary(matches: Sequence[SummaryMatch],
            characters: Sequence[SummaryCharacter]) -> dict[str, Any]:
    """``tournaments``: the history, oldest first, each with its teams; ``standings``: one row
    per team (a roster character; a seat without one by its name) summed over every
    tournament it entered — titles, tournaments won, played, victory points, fights won,
    crédits — ordered by titles, then tournaments won, victory points, fights won."""
    tournaments = [line for line in (tournament(match) for match in matches) if line]
    names = {character.id: character.name for character in characters}
    table: dict[Any, dict[str, Any]] = {
        ("c", character.id): _blank(character.name, character.id) for character in characters}
    for line in tournaments:
        for row in line["teams"]:
            cid = row["character_id"]
            key = ("c", cid) if cid in names else ("n", row["name"])
            entry = table.setdefault(key, _blank(row["name"], None))
            entry["played"] += 1
            entry["running"] += 0 if line["over"] else 1
            entry["titles"] += int(line["champion_seat"] == row["seat"])
            entry["wins"] += int(line["winner_seat"] == row["seat"])
            entry["points"] += row["points"]
            entry["fights_won"] += row["fights_won"]
            entry["credits"] += row["credits"]
    standings = sorted(table.values(), key=lambda row: (
        -row["titles"], -row["wins"], -row["points"], -row["fights_won"], row["name"]))
    return {"standings": standings, "tournaments": tournaments}


def _blank(name: str, character_id: int | None) -> dict[str, Any]:
    return {"name": name, "character_id": character_id, "played": 0, "running": 0,
            "titles": 0, "wins": 0, "points": 0, "fights_won": 0, "credits": 0}
