"""Pages: a match's simulation — the panel in the table's state (Mutatior's bookmaker,
Chasse's and Mecha-Ring's « simulation » card) that starts one, shows its progress and
figures, and stops it (docs/odds.md § Simulations and the bookmaker).

With htmx the panel swaps its own body (``#simulation-body``) and asks again every second
while the runs go on; the live table keeps the panel as it is (``hx-preserve``). Without
script, the forms post and come back to the table page, which shows the panel as it stands.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from babel.numbers import format_decimal
from fastapi import Request
from starlette.responses import Response

from app.errors import AppError, Conflict, ValidationFailed
from app.http.deps import DbSession, MemberAccess, csrf_token_for, page_router
from app.i18n import get_locale, number
from app.rules import simulation as rules_simulation
from app.services import simulations, tables
from app.services.access import CampaignAccess
from app.services.simulations import say
from app.web.forms import see_other
from app.web.matches import MATCH, FormFields, MatchId, is_htmx
from app.web.odds_view import percent
from app.web.table_view import match_url
from app.web.templating import render

router = page_router()
BODY = "simulations/_body.html"


def _registry(request: Request) -> simulations.Simulations:
    return request.app.state.simulations


def figures_context(found: simulations.Snapshot) -> list[dict[str, Any]]:
    """The figures as the panel shows them: each section's lines in words, chances as
    « 62 % » with their bar, averages as « 2,4 », the bookmaker's quote as « 1,61 »."""
    sections = []
    for section in found.figures.sections if found.figures else ():
        lines = []
        for line in section.lines:
            quote = rules_simulation.quote(line.chance) \
                if line.quote and line.chance is not None else None
            lines.append({
                "key": line.key, "name": _capital(say(line.name)),
                "chance": None if line.chance is None else percent(line.chance),
                "value": None if line.chance is None else float(line.chance),
                "mean": None if line.mean is None else number(round(float(line.mean), 1)),
                "quote": None if line.quote is False else (
                    odds_text(quote) if quote is not None else "—")})
        sections.append({"key": section.key, "title": say(section.title), "lines": lines,
                         "quotes": any(line.quote for line in section.lines),
                         "means": any(line.mean is not None for line in section.lines)})
    return sections


def odds_text(quote: Fraction) -> str:
    """Decimal odds as a bookmaker writes them, two decimals: « 1,85 », « 7,00 »."""
    return format_decimal(round(float(quote), 2), format="0.00", locale=get_locale())


def _capital(words: str) -> str:
    """« L'équipe de Zora » at the head of a row (the catalogue writes it « l'équipe »)."""
    return words[:1].upper() + words[1:]


def body_context(request: Request, access: CampaignAccess, match_id: int, system: str,
                 found: simulations.Simulation | None, *,
                 error: str | None = None) -> dict[str, Any]:
    """What ``simulations/_body.html`` reads (the table page includes it too)."""
    snapshot = found.snapshot() if found is not None else None
    return {"sim_url": match_url(access.campaign.id, match_id) + "/simulations",
            "sim_system": system, "sim": snapshot,
            "sim_sections": figures_context(snapshot) if snapshot else [],
            "sim_margin": number(round(snapshot.margin, 1)) if snapshot else None,
            "sim_notes": [say(note) for note in snapshot.figures.notes]
            if snapshot and snapshot.figures else [],
            "sim_rate": number(round(snapshot.per_second, 1)) if snapshot else None,
            "sim_choices": simulations.RUNS_CHOICES,
            "sim_default": simulations.RUNS_DEFAULT.get(system, 100),
            "sim_error": error, "sim_gm": access.is_gm,
            "csrf_token": csrf_token_for(request)}


def panel_for(request: Request, db: DbSession, access: CampaignAccess,
              match_id: int, system: str) -> dict[str, Any] | None:
    """The table page's panel (None for a game without simulations)."""
    if not simulations.can_simulate(system):
        return None
    found = simulations.latest(db=db, access=access, registry=_registry(request),
                               match_id=match_id)
    return body_context(request, access, match_id, system, found)


def _body(request: Request, db: DbSession, access: CampaignAccess, match_id: int, *,
          error: AppError | None = None) -> Response:
    match = tables.get_match(db, access, match_id)
    found = simulations.latest(db=db, access=access, registry=_registry(request),
                               match_id=match_id)
    context = body_context(request, access, match_id, match.system, found,
                           error=str(error.message) if error else None)
    return render(request, BODY, {"panel": context})


def _answer(request: Request, db: DbSession, access: CampaignAccess, match_id: int,
            error: AppError | None = None) -> Response:
    if is_htmx(request):
        return _body(request, db, access, match_id, error=error)
    if error is not None:
        from app.web.matches import _table_page

        return _table_page(request, db, access, tables.get_match(db, access, match_id),
                           alert=str(error.message), status_code=error.status)
    return see_other(match_url(access.campaign.id, match_id) + "#simulation")


@router.post(MATCH + "/simulations")
def start(request: Request, db: DbSession, access: MemberAccess, match_id: MatchId,
          fields: FormFields) -> Response:
    """Start a simulation of the match as this member sees it (spectators too)."""
    try:
        simulations.start(db=db, access=access, registry=_registry(request),
                          match_id=match_id, runs=fields.get("runs"), seed=fields.get("seed"))
    except (simulations.SimulationsBusy, simulations.NothingToSimulate,
            ValidationFailed) as error:
        return _answer(request, db, access, match_id, error)
    return _answer(request, db, access, match_id)


@router.get(MATCH + "/simulations")
def progress(request: Request, db: DbSession, access: MemberAccess,
             match_id: MatchId) -> Response:
    """The panel's body as the member's simulation stands (htmx asks every second)."""
    return _body(request, db, access, match_id)


@router.post(MATCH + "/simulations/cancel")
def cancel(request: Request, db: DbSession, access: MemberAccess,
           match_id: MatchId) -> Response:
    """Stop the member's simulation; the runs finished stay shown."""
    try:
        simulations.cancel(db=db, access=access, registry=_registry(request),
                           match_id=match_id)
    except Conflict as error:
        return _answer(request, db, access, match_id, error)
    if is_htmx(request):
        return Response(status_code=204)  # the panel's next ask shows it stopped
    return _answer(request, db, access, match_id)

