"""The roll log and the table's journal explain every number of a roll (docs/dice.md § Reading
a record): templates/rolls/_line.html (the roll log, a sheet's panel) and
templates/matches/_dice.html (the journal's SVG dice), read as a player reads them."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from bs4 import BeautifulSoup

from app import i18n
from app.rules.dice import RollRecord, ScriptedDice
from app.rules.notation import roll
from app.services import rolls
from app.web.templating import templates


@pytest.fixture(autouse=True)
def french() -> Iterator[None]:
    i18n.set_locale("fr")
    yield
    i18n.set_locale(i18n.DEFAULT_LOCALE)


def log_line(record: dict) -> BeautifulSoup:
    html = templates.env.get_template("rolls/_line.html").render(
        record=record, expression=record["expression"], die_flags=rolls.die_flags,
        signed=rolls.signed)
    return BeautifulSoup(html, "html.parser")


def journal(record: RollRecord) -> BeautifulSoup:
    html = templates.env.get_template("matches/_dice.html").render(roll=record)
    return BeautifulSoup(html, "html.parser")


def text(node: BeautifulSoup) -> str:
    """What a sighted reader sees, without the words for screen readers."""
    for hidden in node.select(".visually-hidden"):
        hidden.decompose()
    return re.sub(r"\s+", " ", node.get_text(" ")).strip()


def rolled(expr: str, *faces: int) -> RollRecord:
    return roll(expr, ScriptedDice(faces))


class TestRollLog:
    def test_a_doubled_attack_reads_as_written(self) -> None:
        line = log_line(rolled("(1d20+5)*2", 14).to_dict())
        assert text(line.select_one(".roll-tree")) == "( 14 + 5 ) × 2"
        assert line.select_one(".total").text == "38"

    def test_the_better_of_two_attacks_strikes_the_other(self) -> None:
        line = log_line(rolled("(1d20+5, 1d20+3)kh1", 9, 15).to_dict())
        dropped = line.select("del.set-item")
        assert [text(item) for item in dropped] == ["9 + 5"]
        assert line.select_one(".set-operations").text == "kh1"

    def test_annotations_stand_beside_their_part(self) -> None:
        line = log_line(rolled("1d8 [tranchant] + 2d6 [feu]", 5, 3, 4).to_dict())
        assert text(line.select_one(".roll-tree")) == "5 tranchant + 3 4 feu"
        assert [tag.text for tag in line.select(".part-label")] == ["tranchant", "feu"]

    def test_a_rerolled_face_is_struck_through_before_the_one_that_replaced_it(self) -> None:
        line = log_line(rolled("2d6ro<3", 1, 5, 2).to_dict())
        dice = line.select(".die")
        assert [die.name for die in dice] == ["del", "span", "span"]
        assert "rerolled" in dice[0]["class"] and "added-reroll" in dice[1]["class"]
        assert dice[0]["title"] == "d6, relancé"
        assert dice[1]["title"] == "d6, issu d'une relance"

    def test_a_face_changed_by_a_minimum_shows_the_face_thrown(self) -> None:
        die = log_line(rolled("1d6mi3", 1).to_dict()).select_one(".die")
        assert die.select_one("s.die-thrown").text == "1"
        assert text(die) == "1 3"
        assert "1 au lancer" in die["title"]

    def test_a_judged_roll_shows_its_target_and_outcome(self) -> None:
        line = log_line(rolled("1d20+2 > 1d20+4", 15, 12).to_dict())
        assert text(line.select_one(".roll-tree")) == "15 + 2"
        assert text(line.select_one(".target")) == "seuil 16 ( 12 + 4 )"
        assert line.select_one(".outcome").text == "réussite"

    def test_a_record_stored_before_trees_draws_as_it_always_did(self) -> None:
        stored = {"purpose": None, "expression": "2d6+1d4+3", "total": 13, "target": None,
                  "outcome": None, "modifiers": [{"value": 3, "label": None}],
                  "dice": [{"sides": 6, "value": v, "kept": True, "exploded": False,
                            "critical": False, "success": None, "added": None,
                            "group": 0, "sign": 1} for v in (3, 5)]
                  + [{"sides": 4, "value": 2, "kept": True, "exploded": False,
                      "critical": False, "success": None, "added": None, "group": 1,
                      "sign": -1}]}
        line = log_line(stored)
        assert text(line.select_one(".dice")) == "3 5 − 2"
        assert not line.select(".roll-tree, s.die-thrown, .rerolled")


class TestJournal:
    def test_the_svg_dice_are_laid_out_as_written(self) -> None:
        view = journal(rolled("(1d20+5, 1d20+3)kh1 [avantage]", 9, 15))
        row = view.select_one(".die-row")
        assert [face.text for face in row.select("svg .die-value")] == ["9", "15"]
        first, second = row.select("svg.die-face")
        assert "dropped" in first["class"] and "dropped" not in second["class"]
        assert row.select_one(".part-label").text.strip() == "avantage"
        assert text(row).endswith("= 18")

    def test_rerolled_and_changed_faces(self) -> None:
        view = journal(rolled("2d6ro<3mi2", 1, 5, 1))  # the 1 rerolled is a 1 again: 2
        faces = view.select(".die-row svg.die-face")
        assert "rerolled" in faces[0]["class"] and "dropped" in faces[0]["class"]
        assert view.select_one(".die-row .die-thrown").text == "1"
        notes = [text(note) for note in view.select(".die-notes")]
        assert notes == ["relancé", "gardé, 1 au lancer, issu d'une relance", "gardé"]


class TestTextExport:
    def document(self, *records: dict) -> dict:
        entries = [{"id": n, "number": n, "created_at": "2026-12-06T02:31:16+00:00",
                    "user_name": "Alice", "purpose": record.get("purpose"),
                    "expression": record["expression"], "record": record,
                    "visibility": "public", "signature": "…", "match_id": None,
                    "corrects_id": None} for n, record in enumerate(records, 1)]
        return {"campaign": {"id": 1, "name": "Démo"}, "entries": entries,
                "exported_at": "2026-12-06T03:00:00+00:00"}

    def test_a_worked_out_roll_says_how_its_dice_make_the_total(self) -> None:
        exported = rolls.export_text(self.document(
            rolled("(1d20+5)*2 # double", 14).to_dict(), rolled("2d6+1", 3, 4).to_dict()))
        assert "Calcul : (1d20+5)*2 : 14 → (14 + 5) * 2 = 38" in exported
        assert exported.count("Calcul") == 1  # a plain sum is explained by its dice already
        assert "Dés : d6 3, d6 4" in exported
