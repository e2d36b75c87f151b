"""The live page stream sends the board only when what it is drawn from changed
(``app/web/table_view.py``: ``board_basis``, ``MatchStream._board``). That is safe only if
the board's templates read nothing of the state beyond ``BOARD_STATE_KEYS``: here every
game's demo match, after each of its events, as its GM and each of its players see it, is
drawn from its whole state context and from the basis alone, and the two must be one."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from app.i18n import set_locale
from app.models import Campaign, Match, Membership, User
from app.rules.registry import all_systems
from app.services import demo, tables
from app.services.access import load_campaign_access
from app.web.table_view import TableView, board_html, fragment


@pytest.mark.parametrize("system", [system.key for system in all_systems()])
def test_the_board_reads_only_its_basis(system, settings, db):
    demo.ensure_demo(settings)
    campaign_id = db.scalar(select(Campaign.id).where(Campaign.system == system))
    match = db.scalar(select(Match).where(Match.campaign_id == campaign_id))
    members = db.scalars(select(User).join(Membership, Membership.user_id == User.id)
                         .where(Membership.campaign_id == campaign_id)).all()
    assert len(members) >= 2 and match.seq >= 1
    set_locale("fr")
    boards = 0
    for step in range(1, match.seq + 1):
        then = Match(**{column: getattr(match, column) for column in
                        ("id", "campaign_id", "name", "system", "status", "seq")},
                     state=tables.fold_log(db, match, upto=step))
        for user in members:
            view = TableView.load(db, load_campaign_access(db, user, campaign_id), then)
            context = view.state_context()
            whole = fragment("matches/_board_slot.html", {**context, "oob": True})
            assert board_html(context) == whole, (step, user.username)
            boards += "<svg" in whole
    assert boards or system in ("tiamat", "mecha_ring")  # the games with a board drew one
