"""Every game's demo match as each of its members saw it after each event: what the tests of
the live stream's bases (tests/test_board_basis.py, tests/test_panel_basis.py) draw from."""

from __future__ import annotations

from collections.abc import Iterator

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.config import Settings
from app.i18n import set_locale
from app.models import Campaign, Match, Membership, User
from app.services import demo, tables
from app.services.access import load_campaign_access
from app.web.table_view import TableView


def demo_views(system: str, settings: Settings,
               db: Session) -> Iterator[tuple[int, str, TableView]]:
    """``(step, username, view)`` for the ``system``'s demo match folded up to each of its
    events, as the GM and each player see it, in French."""
    demo.ensure_demo(settings)
    campaign_id = db.scalar(select(Campaign.id).where(Campaign.system == system))
    match = db.scalar(select(Match).where(Match.campaign_id == campaign_id))
    members = db.scalars(select(User).join(Membership, Membership.user_id == User.id)
                         .where(Membership.campaign_id == campaign_id)).all()
    assert len(members) >= 2 and match.seq >= 1
    set_locale("fr")
    for step in range(1, match.seq + 1):
        then = Match(**{column: getattr(match, column) for column in
                        ("id", "campaign_id", "name", "system", "status", "seq")},
                     state=tables.fold_log(db, match, upto=step))
        for user in members:
            yield step, user.username, TableView.load(
                db, load_campaign_access(db, user, campaign_id), then)
