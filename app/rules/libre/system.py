"""The free-play system: a generic sheet any GM can use for a game Tablée does not automate.

House system (no seed): a sheet is hit points, a list of named counters (stats, resources,
statuses) and free text; the table engine adds tokens, initiative and free rolls.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.rules.libre import match, state_check
from app.rules.system import (
    N_,
    NO_CONTENT,
    Content,
    ContentField,
    ContentKind,
    DemoCharacter,
    DemoMatch,
    DemoStep,
    Problem,
    Sheet,
)

MAX_COUNTERS = 30
MAX_LABEL = 40
COUNTER_LIMIT = 1_000_000


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    try:
        return int(str(value).strip())
    except ValueError:
        return None


# A house rule's citation is a message: the page says it in the reader's language.
RULE_HOUSE = N_("Free play (house rule)")


class LibreSystem:
    key = "libre"
    name_fr = "Jeu libre"
    name_en = "Free play"
    seed_file = None
    summary = N_("Any game: characters with hit points, counters and statuses on a board, free "
                 "rolls for everything; the GM judges the rest.")
    uses_board = True
    # A GM's creature profiles: a goblin typed once, added to any match in one click.
    content_kinds = (ContentKind("creature", N_("Creature profile"), (
        ContentField("hp_max", N_("Hit points"), "int", low=0, high=COUNTER_LIMIT),
        ContentField("statuses", N_("Statuses"), required=False),
    ), rule=RULE_HOUSE),)

    def new_sheet(self) -> Sheet:
        return {"hp": 10, "hp_max": 10, "counters": [], "statuses": ""}

    def validate_sheet(self, sheet: Sheet, content: Content = NO_CONTENT) -> list[Problem]:
        problems: list[Problem] = []
        rule = RULE_HOUSE
        if not isinstance(sheet, dict):
            return [Problem("sheet", N_("The sheet must be an object."), rule)]
        for key in ("hp", "hp_max"):
            value = sheet.get(key)
            if not isinstance(value, int) or isinstance(value, bool):
                problems.append(Problem(key, N_("Must be a whole number."), rule))
            elif not 0 <= value <= COUNTER_LIMIT:
                problems.append(Problem(key, N_("Must be between %(low)s and %(high)s."), rule,
                                        {"low": 0, "high": COUNTER_LIMIT}))
        hp, hp_max = sheet.get("hp"), sheet.get("hp_max")
        if isinstance(hp, int) and isinstance(hp_max, int) and hp > hp_max:
            problems.append(Problem("hp", N_("Hit points cannot exceed their maximum."), rule))
        problems.extend(self._counter_problems(sheet.get("counters"), rule))
        statuses = sheet.get("statuses", "")
        if not isinstance(statuses, str) or len(statuses) > 500:
            problems.append(Problem("statuses", N_("Must be text of at most %(n)s characters."),
                                    rule, {"n": 500}))
        unknown = set(sheet) - {"hp", "hp_max", "counters", "statuses"}
        if unknown:
            problems.append(Problem("sheet", N_("Unknown fields: %(names)s."), rule,
                                    {"names": ", ".join(sorted(unknown))}))
        return problems

    def _counter_problems(self, counters: Any, rule: str) -> list[Problem]:
        if not isinstance(counters, list):
            return [Problem("counters", N_("Must be a list."), rule)]
        if len(counters) > MAX_COUNTERS:
            return [Problem("counters", N_("At most %(n)s counters."), rule, {"n": MAX_COUNTERS})]
        problems = []
        for index, counter in enumerate(counters):
            where = f"counters.{index}"
            if not isinstance(counter, dict) or set(counter) != {"label", "value"}:
                problems.append(Problem(where, N_("A counter has a label and a value."), rule))
                continue
            label, value = counter["label"], counter["value"]
            if not isinstance(label, str) or not 0 < len(label.strip()) <= MAX_LABEL:
                problems.append(Problem(where, N_("A label has 1 to %(n)s characters."), rule,
                                        {"n": MAX_LABEL}))
            if not isinstance(value, int) or isinstance(value, bool) \
                    or abs(value) > COUNTER_LIMIT:
                problems.append(Problem(where, N_("A counter's value is a whole number."), rule))
        return problems

    def derived(self, sheet: Sheet, content: Content = NO_CONTENT) -> dict[str, Any]:
        hp, hp_max = sheet.get("hp", 0), sheet.get("hp_max", 0)
        return {"hp_percent": round(100 * hp / hp_max) if hp_max else 0}

    def sheet_from_form(self, form: Mapping[str, str]) -> Sheet:
        """Fields ``hp``, ``hp_max``, ``statuses`` and ``counter_label_N``/``counter_value_N``."""
        counters = []
        for index in range(MAX_COUNTERS + 1):
            label = form.get(f"counter_label_{index}", "").strip()
            raw_value = form.get(f"counter_value_{index}", "").strip()
            if not label and not raw_value:
                continue
            value = _int(raw_value)
            counters.append({"label": label, "value": value if value is not None else raw_value})
        sheet: Sheet = {"counters": counters, "statuses": form.get("statuses", "").strip()}
        for key in ("hp", "hp_max"):
            value = _int(form.get(key, ""))
            sheet[key] = value if value is not None else form.get(key, "")
        return sheet

    # The table: see app/rules/libre/match.py.
    start = staticmethod(match.start)
    decide = staticmethod(match.decide)
    evolve = staticmethod(match.evolve)
    legal_actions = staticmethod(match.legal_actions)
    view = staticmethod(match.view)
    check_state = staticmethod(state_check.check_state)
    between_matches = staticmethod(match.between_matches)
    outcome = staticmethod(match.outcome)

    def demo_characters(self) -> list[DemoCharacter]:
        return [
            DemoCharacter("Aldo le Rôdeur", {"hp": 14, "hp_max": 14, "statuses": "",
                                             "counters": [{"label": "Flèches", "value": 12}]},
                          player=0),
            DemoCharacter("Brune la Forgeronne", {"hp": 18, "hp_max": 18, "statuses": "",
                                                  "counters": [{"label": "Or", "value": 30}]},
                          player=1),
            DemoCharacter("Gobelin des cavernes", {"hp": 6, "hp_max": 6, "statuses": "",
                                                   "counters": []}),
        ]

    def demo_match(self, character_ids: Mapping[str, int]) -> DemoMatch:
        """An ambush under way: initiative rolled, Aldo (t1) has crept closer and shot."""
        return DemoMatch(
            "Embuscade au gué", ("Aldo le Rôdeur", "Brune la Forgeronne", "Gobelin des cavernes"),
            steps=(
                DemoStep({"kind": "move", "token": "t3", "x": 60, "y": 45}),
                DemoStep({"kind": "roll_initiative"}),
                DemoStep({"kind": "next_turn"}),
                DemoStep({"kind": "move", "token": "t1", "x": 40, "y": 30}, by=0),
                DemoStep({"kind": "roll", "expression": "1d20+5 # tir à l'arc"}, by=0),
            ))


LIBRE = LibreSystem()
