"""The live page stream sends the board only when what it is drawn from changed
(``app/web/table_view.py``: ``board_basis``, ``MatchStream._board``). That is safe only if
the board's templates read nothing of the state beyond ``BOARD_STATE_KEYS``: here every
game's demo match, after each of its events, as its GM and each of its players see it, is
drawn from its whole state context and from the basis alone, and the two must be one."""

from __future__ import annotations

import pytest

from app.rules.registry import all_systems
from app.web.table_view import board_html, fragment
from tests.demo_views import demo_views


@pytest.mark.parametrize("system", [system.key for system in all_systems()])
def test_the_board_reads_only_its_basis(system, settings, db):
    boards = 0
    for step, username, view in demo_views(system, settings, db):
        context = view.state_context()
        whole = fragment("matches/_board_slot.html", {**context, "oob": True})
        assert board_html(context) == whole, (step, username)
        boards += "<svg" in whole
    assert boards or system in ("tiamat", "mecha_ring")  # the games with a board drew one
