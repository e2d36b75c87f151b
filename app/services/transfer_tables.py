"""An imported match must open for everyone who may sit at it before the import is accepted.

Once the file's rows are written (the campaign still hidden: ``importing``), each match is
opened from every seat: as the GM, as the player of each character it seats, as a member who
plays nobody and as a spectator. From each, the game's ``view`` and ``legal_actions`` run as
the API's answer and the page's panel run them, then the ``PageCheck`` the import route
passes in renders the table page (services do not render pages: the web layer gives the
check, ``app.web.import_pages``; ``app.main`` hands it to both routers). The first seat that
cannot open its match refuses the file, which ``transfer`` then deletes.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.errors import ValidationFailed
from app.i18n import gettext
from app.i18n import lazy_gettext as _l
from app.models import Campaign, Character, Match, Membership, Role, User
from app.rules import map_view
from app.rules.match import Actor, State
from app.services.access import CampaignAccess
from app.services.tables import system_of

# Seats of people who are not members (yet): ids no account has.
PLAYER_ID, NOBODY_ID, SPECTATOR_ID = -1, -2, -3


@dataclass(frozen=True)
class Seat:
    """Someone who may open a match: who (a message), as the pages and the rules see them."""

    who: Any
    access: CampaignAccess
    actor: Actor


class LineUnreadable(Exception):
    """A page check could not show the log line of event ``seq``."""

    def __init__(self, seq: int) -> None:
        super().__init__(seq)
        self.seq = seq


# Renders a match's table page as a seat sees it; raises if it cannot (``LineUnreadable``
# for a log line).
PageCheck = Callable[[Session, Match, Seat], None]


def check_tables(db: Session, *, campaign_id: int, gm: User, match_ids: Sequence[int],
                 page_check: PageCheck | None) -> None:
    """Open each imported match from every seat; ``ValidationFailed`` for the first that
    fails, naming the match (``matches.2.state``) or the event whose line cannot be shown."""
    campaign = db.get(Campaign, campaign_id)
    membership = db.scalar(select(Membership).where(Membership.campaign_id == campaign_id,
                                                    Membership.user_id == gm.id))
    gm_access = CampaignAccess(campaign=campaign, membership=membership, user=gm)
    for index, match_id in enumerate(match_ids):
        match = db.get(Match, match_id)
        for seat in seats(db, gm_access, match.state):
            _open(db, match, seat, f"matches.{index}", page_check)


def seats(db: Session, gm_access: CampaignAccess, state: State) -> Iterator[Seat]:
    """The GM, the player of each character the match seats, a member who plays nobody, a
    spectator."""
    yield Seat(_l("the GM"), gm_access, Actor(gm_access.user.id, is_gm=True))
    names = _names(db, gm_access.campaign_id)
    for character_id in sorted(set(_seated(state))):
        who = _l("the player of %(name)s", name=names.get(character_id, str(character_id)))
        yield _guest(gm_access, who, Role.PLAYER, Actor(
            PLAYER_ID, character_ids=frozenset({character_id})))
    yield _guest(gm_access, _l("a member who plays nobody"), Role.PLAYER, Actor(NOBODY_ID))
    yield _guest(gm_access, _l("a spectator"), Role.SPECTATOR,
                 Actor(SPECTATOR_ID, is_spectator=True))


def _guest(gm_access: CampaignAccess, who: Any, role: Role, actor: Actor) -> Seat:
    """A seat for someone who is not a member: plain objects, never added to the session."""
    user = User(id=actor.user_id, username="seat", username_key="seat",
                display_name=str(who), is_admin=False)
    membership = Membership(campaign_id=gm_access.campaign_id, user_id=user.id, role=role)
    return Seat(who, CampaignAccess(campaign=gm_access.campaign, membership=membership,
                                    user=user), actor)


def _names(db: Session, campaign_id: int) -> dict[int, str]:
    return dict(db.execute(select(Character.id, Character.name).where(
        Character.campaign_id == campaign_id)).all())


def _seated(value: Any) -> Iterator[int]:
    """The roster characters a state names (``character_id``, at any depth)."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "character_id" and type(item) is int:
                yield item
            else:
                yield from _seated(item)
    elif isinstance(value, list):
        for item in value:
            yield from _seated(item)


def _open(db: Session, match: Match, seat: Seat, where: str,
          page_check: PageCheck | None) -> None:
    try:
        _rules_open(match, seat.actor)
        if page_check is not None:
            page_check(db, match, seat)
    except LineUnreadable as found:
        raise ValidationFailed(_l("The log cannot show this event."), code="invalid_state",
                               field=f"{where}.events.{found.seq - 1}.payload") from found
    except Exception as error:
        raise ValidationFailed(
            _l("The match %(name)s does not open for %(who)s: its state cannot be shown.",
               name=match.name, who=seat.who),
            code="invalid_state", field=f"{where}.state") from error


def _rules_open(match: Match, actor: Actor) -> None:
    """What the API's answer and the page's panel ask of the rules for this seat."""
    system = system_of(match)
    state = map_view.view(system, copy.deepcopy(match.state), actor)
    for forms in (system.legal_actions(copy.deepcopy(match.state), actor),
                  system.legal_actions(state, actor)):
        for form in forms:
            gettext(form.label)
            dict(form.choices)
