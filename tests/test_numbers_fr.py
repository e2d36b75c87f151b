"""A fraction on a French page has a decimal comma (issue 23: Mutatior said « Encore 4.8 cm »):
one formatter (``app.rules.wording.number``, Babel's) behind the rules' own messages, the
catalogues' and the templates' ``_()``, and the board's distances."""

from __future__ import annotations

import re
from typing import ClassVar

import pytest
from sqlalchemy import update

from app.i18n import gettext, set_locale
from app.models import Match, User
from app.rules.board import board_distance
from app.rules.errors import RulesError
from app.rules.wording import number
from app.web.templating import templates
from tests.table_harness import Step, play
from tests.test_mutatior_table import SECRET, arena, open_bout  # noqa: F401 — the fixture

pytest_plugins = ["tests.match_fixtures"]


@pytest.mark.parametrize(("value", "lang", "written"), [
    (4.8, "fr", "4,8"), (4.8, "en", "4.8"), (4.0, "fr", "4"), (12, "fr", "12"),
    (7.763932, "fr", "7,76"), (1234.5, "en", "1,234.5"), (-0.25, "fr", "-0,25"),
    (True, "fr", "True"), ("4.8", "fr", "4.8")])
def test_one_formatter_writes_a_fraction_as_the_reader_does(value, lang, written):
    assert number(value, lang) == written


class _Far(RulesError):
    code = "far"
    templates_en: ClassVar[dict[str, str]] = {"far": "{left} cm left, {n:cm|cm} asked, {x:.1f}"}
    templates_fr: ClassVar[dict[str, str]] = {"far": "encore {left} cm, {n:cm|cm} demandés, "
                                                     "{x:.1f}"}


def test_the_rules_messages_write_fractions_with_a_comma_in_french():
    error = _Far(left=4.8, n=2.5, x=1.25)
    assert error.message_fr() == "encore 4,8 cm, 2,5 cm demandés, 1,2"
    assert error.message == "4.8 cm left, 2.5 cm asked, 1.2"
    assert board_distance(4.75, "sq", "fr") == "4,8 cases"


@pytest.mark.parametrize(("locale", "said"), [("fr", "Encore 4,8 cm de mouvement ce tour."),
                                              ("en", "4.8 cm of movement left this turn.")])
def test_the_catalogues_and_the_templates_write_fractions_as_the_reader_does(locale, said):
    set_locale(locale)
    try:
        shown = templates.env.from_string(
            '{{ _("%(cm)s cm of movement left this turn.", cm=left) }}').render(left=4.8)
        assert shown == said
        assert gettext("%(cm)s cm of movement left this turn.", cm=4.8) == said
    finally:
        set_locale("fr")


def test_a_mutant_that_moved_part_of_its_way_has_centimetres_left_with_a_comma(
        db, arena):  # noqa: F811 — the fixture imported above
    """Grosbaf goes 1 cm across and 2 down (√5 cm): what is left is not whole."""
    access = arena["access"]
    gm, paul, pia = access["mia"], access["paul"], access["pia"]
    match = open_bout(db, arena, "Le choc")
    play(db, SECRET, match, [
        Step(gm, {"kind": "entrance_prize", "team": f"owner-{paul.user.id}"}, [6, 6]),
        Step(paul, {"kind": "move", "token": "m1", "x": 30, "y": 20}),
        Step(pia, {"kind": "move", "token": "m2", "x": 30, "y": 50}),
        Step(gm, {"kind": "start_fight", "uneven": True}, [5, 6, 1]),
        Step(paul, {"kind": "move", "token": "m1", "x": 31, "y": 22}),
    ])
    db.execute(update(User).values(locale="fr"))
    db.commit()
    activation = db.get(Match, match.id).state["activation"]
    assert not float(activation["allowance"] - activation["moved"]).is_integer()
    page = arena["people"]["paul"].page(f"/campaigns/{arena['campaign']}/matches/{match.id}")
    helped = page.select_one("form#action-move .help")
    assert helped is not None
    assert re.fullmatch(r"Encore \d+,\d+ cm de mouvement ce tour\.", helped.text), helped.text


def test_a_map_scale_in_the_journal_has_a_comma_in_french():
    from app.web.table_view import LogLine

    event = {"seq": 3, "kind": "board_background", "actor_id": 1, "visibility": "public",
             "reverted": False, "created_at": "2026-12-06T20:15:00+00:00",
             "payload": {"image_id": 7, "pixels": 12.5, "per": "cm"}}
    set_locale("fr")
    shown = templates.env.get_template("matches/_log_line.html").render(
        line=LogLine(event, [], "Mia"), gm_ids={1}, system_key="libre", can_undo=False)
    assert "Mia pose une carte sous le plateau (12,5 pixels par cm)." in " ".join(shown.split())
