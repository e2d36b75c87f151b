"""How exact odds read on a page: chances rounded for the eye only, in the reader's
language, and the distribution's chart drawn as SVG on the server (no script draws it),
with the same figures in a table beside it (docs/odds.md § The page)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from babel.numbers import format_decimal

from app import i18n
from app.i18n import get_locale
from app.rules.odds import Cut, Distribution
from app.rules.odds.action import Amount, Odds, Percent, Phrase
from app.rules.wording import is_singular

WIDTH, HEIGHT = 600, 220
"""The chart's drawing box (the SVG scales to its column)."""
# 26: the labels above the plot (baseline at top - 8, 17 px type) stay inside the picture
PLOT_TOP, PLOT_BOTTOM, PLOT_LEFT, PLOT_RIGHT = 26, 190, 8, 592
SHOWN = Fraction(1, 10**6)
"""Totals at either end less likely than this, together, are left out of the chart and the
table (an explosion's long tail); the page says which."""


def percent(chance: Fraction) -> str:
    """« 62 % », "62%": whole points, a decimal below 10 % or above 90 %, and never 0 or
    100 for what is merely unlikely or almost sure."""
    value = float(chance) * 100
    if chance in (0, 1):
        return _percent(value, 0)
    if value < 0.1:
        return "< " + _percent(0.1, 1)
    if value > 99.9:
        return "> " + _percent(99.9, 1)
    return _percent(value, 1 if value < 10 or value > 90 else 0)


def _percent(value: float, decimals: int) -> str:
    locale = get_locale()
    figure = format_decimal(round(value, decimals), format="0." + "#" * decimals if decimals
                            else "0", locale=locale)
    return f"{figure}\u202f%" if locale == "fr" else f"{figure}%"


def amount(value: Fraction) -> str:
    """An expected number: « 2,4 », « 0,33 »."""
    figure = float(value)
    return i18n.number(round(figure, 2 if abs(figure) < 10 else 1))


def _param(value: Any) -> Any:
    if isinstance(value, Percent):
        return percent(value.value)
    if isinstance(value, Amount):
        return amount(value.value)
    return value


def phrase(words: Phrase) -> str:
    """A rules phrase in the reader's language, its figures formatted."""
    params = {name: _param(value) for name, value in words.params.items()}
    if words.plural and words.count:
        count = words.params[words.count]
        figure = float(count.value) if isinstance(count, Amount | Percent) else count
        # gettext's plural forms take whole numbers: « 0,22 blessure », "0.22 wounds"
        form = 1 if is_singular(figure, get_locale()) else 2
        return i18n.ngettext(words.msgid, words.plural, form, **params)
    return i18n.gettext(words.msgid, **params) if params else i18n.gettext(words.msgid)


def sentence(parts: Iterable[Phrase]) -> str:
    """« 62 % de toucher ; 9 % de blessure grave »: the parts joined as the language does."""
    joiner = "\u202f; " if get_locale() == "fr" else "; "
    text = joiner.join(phrase(part) for part in parts)
    return text[:1].upper() + text[1:]


def cut_words(cut: Cut) -> str:
    beyond = percent(cut.beyond) if cut.beyond >= Fraction(1, 1000) else (
        i18n.gettext("less than one chance in a billion") if cut.beyond < Fraction(1, 10**9)
        else i18n.gettext("less than one chance in a thousand"))
    if cut.kind == "reroll" and cut.depth is None:
        return i18n.gettext("%(notation)s: rerolled until the face is no longer selected, "
                            "worked out to the end.", notation=cut.notation)
    if cut.kind == "reroll":
        return i18n.gettext("%(notation)s: followed to %(depth)s rerolls per die, as the "
                            "roller stops there; beyond: %(beyond)s.", notation=cut.notation,
                            depth=cut.depth, beyond=beyond)
    return i18n.gettext("%(notation)s: explosions followed to %(depth)s extra dice per die; "
                        "beyond (%(beyond)s), the die is counted as stopping there.",
                        notation=cut.notation, depth=cut.depth, beyond=beyond)


@dataclass(frozen=True)
class Row:
    value: int
    chance: Fraction
    at_least: Fraction
    at_most: Fraction
    reaches: bool


def rows(found: Distribution, comparison: str, target: int | None) -> list[Row]:
    """The totals shown, lowest first, with « at least » and « at most » chances."""
    items = list(found)
    below = Fraction(0)
    result = []
    for value, chance in items:
        below += chance
        result.append(Row(value, chance, 1 - below + chance, below,
                          target is not None and _holds(comparison, value, target)))
    return _trimmed(result)


def _holds(comparison: str, value: int, target: int) -> bool:
    from app.rules.dice_pool import COMPARE
    return COMPARE[comparison](value, target)


def _trimmed(found: list[Row]) -> list[Row]:
    """Without the tails that are together less likely than ``SHOWN``."""
    start, end = 0, len(found)
    while start < end - 1 and found[start].at_most <= SHOWN / 2:
        start += 1
    while end - 1 > start and found[end - 1].at_least <= SHOWN / 2:
        end -= 1
    return found[start:end]


def chart(shown: list[Row], mean: Fraction) -> dict[str, Any]:
    """The bars of the chart, in the drawing box's units."""
    tallest = max(row.chance for row in shown)
    span = PLOT_RIGHT - PLOT_LEFT
    step = span / len(shown)
    gap = step * 0.15 if step > 4 else 0
    bars = [{"x": round(PLOT_LEFT + i * step + gap / 2, 2), "width": round(step - gap, 2),
             "y": round(PLOT_BOTTOM - float(row.chance / tallest) * (PLOT_BOTTOM - PLOT_TOP), 2),
             "height": round(float(row.chance / tallest) * (PLOT_BOTTOM - PLOT_TOP), 2),
             "row": row} for i, row in enumerate(shown)]
    ticks = _ticks(shown, step)
    low, high = shown[0].value, shown[-1].value
    position = PLOT_LEFT + (float(mean) - low + 0.5) / max(1, high - low + 1) * span
    return {"bars": bars, "ticks": ticks, "width": WIDTH, "height": HEIGHT,
            "bottom": PLOT_BOTTOM, "top": PLOT_TOP, "tallest": percent(tallest),
            "mean_x": round(min(max(position, PLOT_LEFT), PLOT_RIGHT), 2)}


def _ticks(shown: list[Row], step: float) -> list[dict[str, Any]]:
    """About six labelled totals along the bottom, at round numbers."""
    count = len(shown)
    every = max(1, count // 6)
    for nice in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000):
        if nice >= every:
            every = nice
            break
    return [{"x": round(PLOT_LEFT + (i + 0.5) * step, 2), "value": row.value}
            for i, row in enumerate(shown) if row.value % every == 0 or count <= 12]


def distribution_context(found: Distribution, comparison: str,
                         target: int | None) -> dict[str, Any]:
    """What ``odds/_distribution.html`` shows."""
    shown = rows(found, comparison, target)
    left_out = len(found.counts) - len(shown)
    return {"found": found, "rows": shown, "chart": chart(shown, found.mean),
            "mean": amount(found.mean), "deviation": i18n.number(round(found.deviation, 2)),
            "low": found.low, "high": found.high, "left_out": left_out,
            "comparison": comparison, "target": target,
            "reach": percent(found.chance(comparison, target)) if target is not None else None,
            "success": percent(found.success) if found.success is not None else None,
            "cuts": [cut_words(cut) for cut in found.cuts], "percent": percent}


def odds_context(found: Odds) -> dict[str, Any]:
    """What ``odds/_action_odds.html`` shows."""
    return {"odds": found, "sentence": sentence(found.sentence),
            "details": [phrase(detail) for detail in found.details],
            "chances": [(phrase(chance.label), percent(chance.probability))
                        for chance in found.chances],
            "cuts": [cut_words(cut) for cut in found.cuts]}
