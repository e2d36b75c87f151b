"""Who may touch a campaign: membership, role, and the archived flag."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlalchemy import RowMapping, and_, bindparam, inspect, select
from sqlalchemy.orm import Session

from app import auth, telemetry
from app.config import Settings
from app.errors import CampaignArchived, Forbidden, NotFound
from app.models import Campaign, Membership, Role, User, UserSession, utcnow

T = TypeVar("T")


@dataclass
class CampaignAccess:
    campaign: Campaign
    membership: Membership
    user: User
    # Kept as a plain int: a write transaction starts with a rollback that expires the
    # ORM objects, and reading ``campaign.id`` then would cost a SELECT.
    campaign_id: int = field(init=False)

    def __post_init__(self) -> None:
        self.campaign_id = self.campaign.id

    @property
    def role(self) -> Role:
        return self.membership.role

    @property
    def is_gm(self) -> bool:
        return self.role is Role.GM

    def require_gm(self) -> CampaignAccess:
        if not self.is_gm:
            raise Forbidden()
        return self

    def require_player_or_gm(self) -> CampaignAccess:
        if self.role is Role.SPECTATOR:
            raise Forbidden()
        return self

    def require_writable(self) -> CampaignAccess:
        if self.campaign.archived:
            raise CampaignArchived()
        return self


# Built once: most requests run it (building a statement costs more than running it).
_ACCESS = (select(Campaign, Membership)
           .join(Membership, Membership.campaign_id == Campaign.id)
           .where(Campaign.id == bindparam("campaign_id"),
                  Membership.user_id == bindparam("user_id"),
                  Campaign.importing.is_(False)))  # an import in progress is not there yet


def load_campaign_access(db: Session, user: User, campaign_id: int) -> CampaignAccess:
    """The campaign as ``user`` may see it; 404 for anyone who is not a member."""
    row = db.execute(_ACCESS, {"campaign_id": campaign_id, "user_id": user.id}).first()
    if row is None:
        raise NotFound()
    return _found(row[0], row[1], user)


def _found(campaign: Campaign, membership: Membership, user: User) -> CampaignAccess:
    telemetry.note(campaign=campaign.id)  # for the request's log line
    return CampaignAccess(campaign=campaign, membership=membership, user=user)


# — the action route's one read ————————————————————————————————————————————————
#
# Who is asking, their membership and the campaign in one Core statement, made into plain
# (transient) objects, never to be written: the same reads through the ORM, in two
# statements, took about 250 µs against 55 µs in Core, measured alone (docs/benchmarks.md
# § Fourth pass). Only a session that is simply live is answered here; one to remove or to
# touch goes the usual way (``auth.find_session``).

def _labelled(model: type, prefix: str) -> list[Any]:
    return [prop.columns[0].label(prefix + prop.key) for prop in inspect(model).column_attrs]


_KEYS = {model: [(prop.key, prefix + prop.key) for prop in inspect(model).column_attrs]
         for model, prefix in ((User, "u_"), (Membership, "m_"), (Campaign, "c_"))}


def _build(model: type[T], row: RowMapping) -> T:
    return model(**{key: row[label] for key, label in _KEYS[model]})


_MEMBER_BY_SESSION = (
    select(UserSession.created_at.label("s_created_at"),
           UserSession.last_seen_at.label("s_last_seen_at"),
           *_labelled(User, "u_"), *_labelled(Membership, "m_"), *_labelled(Campaign, "c_"))
    .join(User, User.id == UserSession.user_id)
    .outerjoin(Membership, and_(Membership.user_id == User.id,
                                Membership.campaign_id == bindparam("campaign_id")))
    .outerjoin(Campaign, and_(Campaign.id == Membership.campaign_id,
                              Campaign.importing.is_(False)))
    .where(UserSession.token_hash == bindparam("token_hash")))


def read_member_session(db: Session, token: str, campaign_id: int,
                        settings: Settings) -> tuple[User, CampaignAccess | None] | None:
    """The user of the live session ``token`` and their access to ``campaign_id`` (None: not
    a member), in one statement; None when the session is not simply live (unknown, over,
    or its last-seen time due to be written), for the caller to take the usual way."""
    row = db.connection().execute(_MEMBER_BY_SESSION, {
        "token_hash": auth.hash_token(token), "campaign_id": campaign_id}).mappings().first()
    now = utcnow()
    if (row is None or auth.touch_due(row["s_last_seen_at"], now)
            or auth.session_expired(row["s_created_at"], row["s_last_seen_at"],
                                    row["u_disabled_at"], settings, now)):
        return None
    user = _build(User, row)
    if row["c_id"] is None:
        return user, None
    return user, _found(_build(Campaign, row), _build(Membership, row), user)
