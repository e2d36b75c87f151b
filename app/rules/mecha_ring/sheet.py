"""A Mecha-Ring player's sheet: the team behind a Combatank, not the robot itself.

The robot is built card by card at each tournament's set-up (§ Mise en place) and lives in the
match; the sheet keeps what the table asks of a player before the draft (the number of
artificial implants: "en commençant par celui qui a le plus d'implants artificiels") and the
team's record across tournaments, which the table writes back when a tournament ends.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.rules.mecha_ring.content import rule
from app.rules.system import N_, Problem

R_SETUP = rule("Mise en place")
R_END = rule("Fin du tournoi")
TEXTS = {"robot_name": 60, "crew": 120}
COUNTERS = {"implants": (0, 99, R_SETUP), "tournaments": (0, 9999, R_END),
            "wins": (0, 9999, R_END), "titles": (0, 9999, R_END),
            "best_points": (0, 999, R_END)}
# What only the table (or the GM) writes: the record of past tournaments.
RECORD = ("tournaments", "wins", "titles", "best_points")


def blank_sheet() -> dict[str, Any]:
    return {"robot_name": "", "crew": "", "implants": 0, "tournaments": 0, "wins": 0,
            "titles": 0, "best_points": 0}


def validate(sheet: Mapping[str, Any]) -> list[Problem]:
    problems: list[Problem] = []
    if not isinstance(sheet, Mapping):
        return [Problem("sheet", N_("The sheet is not readable."), R_SETUP)]
    for key, limit in TEXTS.items():
        value = sheet.get(key, "")
        if not isinstance(value, str) or len(value) > limit:
            problems.append(Problem(key, N_("At most %(n)s characters."), R_SETUP, {"n": limit}))
    for key, (low, high, source) in COUNTERS.items():
        value = sheet.get(key, 0)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            problems.append(Problem(key, N_("A whole number from %(low)s to %(high)s."), source,
                                    {"low": low, "high": high}))
    if not problems and sheet.get("titles", 0) > sheet.get("wins", 0):
        problems.append(Problem("titles", N_("A title is only won by winning the tournament."),
                                R_END))
    if not problems and sheet.get("wins", 0) > sheet.get("tournaments", 0):
        problems.append(Problem("wins", N_("More tournaments won than played."), R_END))
    return problems


def validate_change(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[Problem]:
    """A player may rename the robot, the crew, the implants; the record is the table's."""
    return [Problem(key, N_("Only the table or the GM changes the tournament record."), R_END)
            for key in RECORD if after.get(key, 0) != before.get(key, 0)]


def derived(sheet: Mapping[str, Any]) -> dict[str, Any]:
    def number(key: str) -> int:
        value = sheet.get(key, 0)
        return value if isinstance(value, int) and not isinstance(value, bool) else 0
    played = number("tournaments")
    return {"implants": number("implants"), "played": played, "wins": number("wins"),
            "titles": number("titles"),
            "win_rate": round(100 * number("wins") / played) if played else 0}


def _int(value: str | None) -> int | str:
    text = (value or "").strip()
    if text.lstrip("-").isdigit():
        return int(text)
    return text if text else 0


def from_form(form: Mapping[str, str]) -> dict[str, Any]:
    sheet: dict[str, Any] = {key: (form.get(key) or "").strip() for key in TEXTS}
    for key in COUNTERS:
        sheet[key] = _int(form.get(key))
    return sheet
