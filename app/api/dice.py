"""API: the exact distribution of a dice expression (docs/odds.md).

Pure arithmetic on the notation (docs/dice.md): no campaign and nothing stored, so any
logged-in member may ask. A bad expression answers 422 with ``error.field = "expression"``
and ``error.details.position``; one too large to work out exactly within the budget, 422
with ``error.code`` ``odds_too_long``, ``odds_too_many_values`` or
``odds_too_many_states`` and the cap in ``error.details``.
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import Query
from pydantic import Field

from app.api.schemas import Model, error_responses
from app.http.deps import CurrentUser, api_router
from app.services import odds

router = api_router("dice")

Comparison = Literal[">=", "<=", "=", ">", "<", "!="]


class OutcomeOut(Model):
    value: int
    chance: str = Field(description="Exact, as a fraction: `1/6` (or `0`, `1`).")
    probability: float = Field(description="The same chance as a float (rounded).")


class CutOut(Model):
    kind: Literal["explosion", "reroll"]
    notation: str = Field(description="The dice group it is about.")
    depth: int | None = Field(description="Extra dice (explosion) or rerolls per die "
                                          "followed; null: rerolls worked out to the end.")
    beyond: str = Field(description="The exact chance that one die goes past ``depth`` "
                                    "(counted as stopping there).")
    beyond_float: float


class DistributionOut(Model):
    expression: str = Field(description="The canonical form of the expression.")
    outcomes: list[OutcomeOut] = Field(description="Every total, lowest first.")
    mean: str = Field(description="Exact, as a fraction.")
    mean_float: float
    variance: str
    deviation: float = Field(description="The standard deviation.")
    low: int
    high: int
    success: str | None = Field(description=(
        "For an expression that judges itself (``1d20+5 >= 15``): the exact chance of "
        "success; the outcomes are then its left side's."))
    success_float: float | None
    comparison: str | None
    target: int | None
    cuts: list[CutOut] = Field(description=(
        "Where endless rolls (explosions, ``rr``) were followed to, and what lies beyond."))
    reach: str | None = Field(default=None, description=(
        "The exact chance that the total meets the target asked (``target``, "
        "``comparison``); null without a target."))
    reach_float: float | None = None


@router.get("/dice/distribution", response_model=DistributionOut,
            responses=error_responses(401))
async def distribution(
    user: CurrentUser,
    expression: Annotated[str, Query(max_length=1000, description=(
        "Dice notation (docs/dice.md), e.g. `4d6kh3` or `1d20+5 >= 15`."))],
    target: Annotated[int | None, Query(ge=-odds.MAX_TARGET, le=odds.MAX_TARGET, description=(
        "A total to reach: ``reach`` gives the chance that the total meets it."))] = None,
    comparison: Annotated[Comparison, Query(description=(
        "How the total meets ``target``: ``>=`` reaches it, ``<=`` stays at or under it…"
    ))] = ">=",
):
    """The exact distribution of an expression: every total and its chance (exact fractions
    and floats), mean, variance, deviation, and the chance to meet a target."""
    asked = odds.read_request(expression, "" if target is None else str(target), comparison)
    found = await odds.distribution(asked)
    body = found.to_dict()
    if asked.target is not None:
        chance = found.chance(asked.comparison, asked.target)
        body.update(reach=str(chance), reach_float=float(chance))
    return body
