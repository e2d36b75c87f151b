"""API: simulations — many fights, hunts or tournaments played on from a match's position by
the house bots, on every core of the server (docs/odds.md § Simulations and the bookmaker).

Any member may ask (spectators too): the GM's simulation starts from the whole state, anyone
else's from what they may see of the match, the rest drawn at random for each run. A member
has one simulation per match at a time (a new one replaces the last); only they see it. It
runs in the server process that was asked, and is kept there an hour after it ends.
"""

from __future__ import annotations

from typing import Literal

from fastapi import Request
from pydantic import Field

from app.api.matches import ONE, MatchId
from app.api.schemas import Model, error_responses
from app.http.deps import DbSession, MemberAccess, api_router
from app.services import simulations
from app.services.simulations import say

router = api_router("matches")

SIMULATIONS = ONE + "/simulations"


class SimulationIn(Model):
    runs: int | None = Field(default=None, ge=1, le=simulations.RUNS_MAX, description=(
        "How many fights, hunts or tournaments to play (default: the game's, 100 to 200)."))
    seed: int | None = Field(default=None, ge=0, le=simulations.SEED_MAX, description=(
        "The same seed plays the same runs from the same position (default: a new one, "
        "given back)."))


class LineOut(Model):
    key: str = Field(description="What it counts: ``win:<team>``, ``dead:<token>``…")
    name: str = Field(description="Whose it is, in words.")
    count: int = Field(description="In how many of the runs so far it happened (its sum, "
                                   "for an average).")
    chance: str | None = Field(description="The share of the runs, as a fraction.")
    probability: float | None
    mean: float | None = Field(description="An average over the runs (food, points).")
    quote: float | None = Field(description="The bookmaker's fair decimal odds (1 / chance), "
                                             "for the outcomes one bets on.")


class SectionOut(Model):
    key: str
    title: str
    lines: list[LineOut]


class SimulationOut(Model):
    id: str
    status: Literal["running", "done", "cancelled", "failed"]
    system: str
    runs: int = Field(description="The runs asked.")
    done: int = Field(description="The runs finished so far: the figures read them.")
    seed: int
    from_seq: int = Field(description="The match's event the runs start after.")
    whole_state: bool = Field(description="From the whole state (the GM's), else from the "
                                          "asker's view with the hidden rest drawn at random.")
    seconds: float
    per_second: float = Field(description="Runs per second of wall time, all cores together.")
    margin: float = Field(description="The widest 95 % margin of error of the chances, in "
                                      "percentage points.")
    sections: list[SectionOut]
    notes: list[str]


class CurrentOut(Model):
    simulation: SimulationOut | None = Field(description="The caller's last simulation of "
                                                         "this match, or null.")


def to_json(found: simulations.Snapshot) -> dict:
    sim = found.sim
    figures = found.figures
    sections = []
    for section in figures.sections if figures else ():
        lines = []
        for line in section.lines:
            odds = simulations.simulation.quote(line.chance) \
                if line.quote and line.chance is not None else None
            lines.append({"key": line.key, "name": say(line.name),
                          "count": found.tally.sums.get(line.key, 0),
                          "chance": None if line.chance is None else str(line.chance),
                          "probability": None if line.chance is None else float(line.chance),
                          "mean": None if line.mean is None else float(line.mean),
                          "quote": None if odds is None else round(float(odds), 2)})
        sections.append({"key": section.key, "title": say(section.title), "lines": lines})
    return {"id": sim.id, "status": found.status, "system": sim.system, "runs": sim.runs,
            "done": found.done, "seed": sim.seed, "from_seq": sim.from_seq,
            "whole_state": sim.whole_state, "seconds": round(found.seconds, 3),
            "per_second": round(found.per_second, 2), "margin": round(found.margin, 2),
            "sections": sections,
            "notes": [say(note) for note in figures.notes] if figures else []}


def _registry(request: Request) -> simulations.Simulations:
    return request.app.state.simulations


@router.post(SIMULATIONS, status_code=202, response_model=SimulationOut,
             responses=error_responses(404, 409))
def start_simulation(body: SimulationIn, request: Request, db: DbSession,
                     access: MemberAccess, match_id: MatchId):
    """Start ``runs`` runs from where the match stands (409 when there is nothing to play
    on: not started, over, or a game without simulations; 503 when the server runs as many
    as it can). Read it with GET until its status is no longer ``running``."""
    sim = simulations.start(db=db, access=access, registry=_registry(request),
                            match_id=match_id, runs=body.runs, seed=body.seed)
    return to_json(sim.snapshot())


@router.get(SIMULATIONS, response_model=CurrentOut, responses=error_responses(404))
def read_simulation(request: Request, db: DbSession, access: MemberAccess,
                    match_id: MatchId):
    """The caller's last simulation of this match: its progress, and the figures of the runs
    finished so far (``simulation`` is null when they have asked none)."""
    found = simulations.latest(db=db, access=access, registry=_registry(request),
                               match_id=match_id)
    return {"simulation": to_json(found.snapshot()) if found else None}


@router.delete(SIMULATIONS, response_model=SimulationOut, responses=error_responses(404, 409))
def cancel_simulation(request: Request, db: DbSession, access: MemberAccess,
                      match_id: MatchId):
    """Stop the caller's simulation of this match (the runs finished stay counted; one
    already over is given back as it is); 409 when they have none."""
    sim = simulations.cancel(db=db, access=access, registry=_registry(request),
                             match_id=match_id)
    return to_json(sim.snapshot())
