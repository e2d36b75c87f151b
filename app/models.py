"""The database schema (SQLAlchemy 2 typed ORM). Every change here needs an Alembic migration."""

from __future__ import annotations

import enum
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    Enum,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utcnow() -> datetime:
    return datetime.now(UTC)


class UTCDateTime(TypeDecorator[datetime]):
    """Timezone-aware UTC timestamps on every backend (SQLite stores no zone)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect) -> datetime | None:
        if value is not None and value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        return value


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map = {datetime: UTCDateTime(), dict[str, Any]: JSON()}


class Role(enum.StrEnum):
    GM = "gm"
    PLAYER = "player"
    SPECTATOR = "spectator"


ROLE_ENUM = Enum(Role, name="member_role", values_callable=lambda e: [m.value for m in e],
                 native_enum=False, length=16)


class User(Base):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(primary_key=True)
    username: Mapped[str] = mapped_column(String(40))
    # Lower-cased username: "Alice" and "alice" are one account.
    username_key: Mapped[str] = mapped_column(String(40), unique=True)
    display_name: Mapped[str] = mapped_column(String(80))
    password_hash: Mapped[str] = mapped_column(String(255))
    locale: Mapped[str | None] = mapped_column(String(8))
    is_admin: Mapped[bool] = mapped_column(Boolean, default=False)
    disabled_at: Mapped[datetime | None]
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class UserSession(Base):
    """A server-side login session; the cookie holds the token, the table its hash."""

    __tablename__ = "user_sessions"

    id: Mapped[int] = mapped_column(primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    last_seen_at: Mapped[datetime] = mapped_column(default=utcnow)

    user: Mapped[User] = relationship(lazy="joined")


class Attempt(Base):
    """One attempt counted by a rate limit (a failed login, a registration), by key."""

    __tablename__ = "attempts"
    __table_args__ = (Index("ix_attempts_key_at", "key", "at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    key: Mapped[str] = mapped_column(String(120))
    at: Mapped[datetime] = mapped_column(default=utcnow)


class Campaign(Base):
    __tablename__ = "campaigns"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(120))
    description: Mapped[str] = mapped_column(Text, default="")
    system: Mapped[str] = mapped_column(String(32))
    archived_at: Mapped[datetime | None]
    # An import still being written (in short transactions): invisible until it is whole.
    importing: Mapped[bool] = mapped_column(Boolean, default=False)
    # The members its file named (username, display name, role, characters played), for the
    # GM to invite — an import makes nobody a member. Cleared once the GM has dealt with it.
    imported_members: Mapped[list[dict[str, Any]] | None] = mapped_column(JSON, default=None)
    # The most dice one roll may throw here (app/services/dice_cap.py); None: the default.
    dice_cap: Mapped[int | None] = mapped_column(Integer, default=None)
    version: Mapped[int] = mapped_column(Integer, default=1)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)

    memberships: Mapped[list[Membership]] = relationship(
        back_populates="campaign", cascade="all, delete-orphan", passive_deletes=True
    )

    __mapper_args__ = {"version_id_col": version}

    @property
    def archived(self) -> bool:
        return self.archived_at is not None


class Membership(Base):
    __tablename__ = "memberships"
    __table_args__ = (UniqueConstraint("campaign_id", "user_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"),
                                             index=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    role: Mapped[Role] = mapped_column(ROLE_ENUM)
    joined_at: Mapped[datetime] = mapped_column(default=utcnow)

    campaign: Mapped[Campaign] = relationship(back_populates="memberships")
    user: Mapped[User] = relationship(lazy="joined")


class Invite(Base):
    __tablename__ = "invites"

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"),
                                             index=True)
    token: Mapped[str] = mapped_column(String(64), unique=True)
    role: Mapped[Role] = mapped_column(ROLE_ENUM)
    expires_at: Mapped[datetime]
    # None: any number of uses.
    max_uses: Mapped[int | None]
    uses: Mapped[int] = mapped_column(Integer, default=0)
    revoked_at: Mapped[datetime | None]
    created_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Image(Base):
    """An uploaded picture (portraits), kept in the database so one backup holds everything."""

    __tablename__ = "images"

    id: Mapped[int] = mapped_column(primary_key=True)
    content_type: Mapped[str] = mapped_column(String(32))
    data: Mapped[bytes] = mapped_column(LargeBinary)
    width: Mapped[int]
    height: Mapped[int]
    sha256: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Character(Base):
    __tablename__ = "characters"
    __table_args__ = (UniqueConstraint("campaign_id", "name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"),
                                             index=True)
    # None: a non-player character, run by whoever is the campaign's GM.
    owner_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"),
                                                 index=True)
    name: Mapped[str] = mapped_column(String(120))
    notes: Mapped[str] = mapped_column(Text, default="")
    sheet: Mapped[dict[str, Any]] = mapped_column(default=dict)
    portrait_id: Mapped[int | None] = mapped_column(ForeignKey("images.id", ondelete="SET NULL"))
    version: Mapped[int] = mapped_column(Integer, default=1)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)

    owner: Mapped[User | None] = relationship(lazy="joined")

    __mapper_args__ = {"version_id_col": version}


class Match(Base):
    """A match: its snapshot (``state`` at ``seq``) caches the fold of its event log."""

    __tablename__ = "matches"

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"),
                                             index=True)
    system: Mapped[str] = mapped_column(String(32))
    name: Mapped[str] = mapped_column(String(120))
    status: Mapped[str] = mapped_column(String(16), default="running")
    state: Mapped[dict[str, Any]] = mapped_column(default=dict)
    seq: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)


class MatchEvent(Base):
    """One event of a match log. The log is the truth; ``Match.state`` is its cache."""

    __tablename__ = "match_events"
    __table_args__ = (UniqueConstraint("match_id", "seq"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"))
    seq: Mapped[int]
    kind: Mapped[str] = mapped_column(String(48))
    payload: Mapped[dict[str, Any]] = mapped_column(default=dict)
    actor_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    # public · gm · self (the actor and the GM)
    visibility: Mapped[str] = mapped_column(String(16), default="public")
    reverted: Mapped[bool] = mapped_column(Boolean, default=False)
    # From a campaign file: who acted as the file says (``{"actor": name}``); never a local
    # account (``actor_id`` stays empty).
    imported: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Roll(Base):
    """One entry of a campaign's roll log: a signed ``RollRecord`` with its context.

    A GM's correction is its own entry (``corrects_id``), never an edit of the original.
    """

    __tablename__ = "rolls"
    __table_args__ = (Index("ix_rolls_campaign_id_id", "campaign_id", "id"),
                      Index("ix_rolls_campaign_id_number", "campaign_id", "number", unique=True))

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"))
    # The roll's number in its campaign (n°1 is the campaign's first roll), shown to people;
    # links and the API keep ``id``. Not signed: a campaign file numbers its rolls again.
    number: Mapped[int]
    match_id: Mapped[int | None] = mapped_column(ForeignKey("matches.id", ondelete="SET NULL"))
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    character_id: Mapped[int | None] = mapped_column(
        ForeignKey("characters.id", ondelete="SET NULL"))
    # public · gm (hidden from players) · self (the roller and the GM)
    visibility: Mapped[str] = mapped_column(String(16), default="public")
    purpose: Mapped[str] = mapped_column(String(200), default="")
    expression: Mapped[str] = mapped_column(String(200))
    record: Mapped[dict[str, Any]] = mapped_column(default=dict)
    signature: Mapped[str] = mapped_column(String(64))
    corrects_id: Mapped[int | None] = mapped_column(ForeignKey("rolls.id", ondelete="CASCADE"))
    # From a campaign file: who rolled as the file says (``{"user": name, "original_user":
    # name}``); not rolled here, never linked to a local account (``user_id`` stays empty).
    imported: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    user: Mapped[User | None] = relationship(lazy="joined")


class ChatMessage(Base):
    """One line of a campaign's chat: to the whole table, to the GM, or to one member.

    An inline roll (``/r 2d6``) is a signed ``Roll`` of the roll log, linked by ``roll_id``;
    the message shows it to whoever may read the message (``app.services.chat``).
    """

    __tablename__ = "chat_messages"
    __table_args__ = (Index("ix_chat_messages_campaign_id_id", "campaign_id", "id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"))
    match_id: Mapped[int | None] = mapped_column(ForeignKey("matches.id", ondelete="SET NULL"))
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    # table (every member) · gm (the sender and the GM) · member (the sender and recipient)
    audience: Mapped[str] = mapped_column(String(16), default="table")
    recipient_id: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"))
    body: Mapped[str] = mapped_column(Text)
    roll_id: Mapped[int | None] = mapped_column(ForeignKey("rolls.id", ondelete="SET NULL"))
    # From a campaign file: who wrote it and to whom, as the file says (``{"user": name,
    # "recipient": name}``); never linked to a local account.
    imported: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    user: Mapped[User | None] = relationship(lazy="joined", foreign_keys=[user_id])
    recipient: Mapped[User | None] = relationship(lazy="joined", foreign_keys=[recipient_id])
    roll: Mapped[Roll | None] = relationship(lazy="joined")


class ActionRequest(Base):
    """An ``Idempotency-Key`` seen on a match action, with the answer it got."""

    __tablename__ = "action_requests"
    __table_args__ = (UniqueConstraint("match_id", "user_id", "key"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    key: Mapped[str] = mapped_column(String(100))
    payload_hash: Mapped[str] = mapped_column(String(64))
    response: Mapped[dict[str, Any]] = mapped_column(default=dict)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class CustomContent(Base):
    """A GM's own item of game content for one campaign (a weapon, a vehicle, an implant…).

    ``kind`` is one of the system's ``content_kinds``; ``data`` holds that kind's fields.
    """

    __tablename__ = "custom_content"
    __table_args__ = (UniqueConstraint("campaign_id", "kind", "key"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"),
                                             index=True)
    kind: Mapped[str] = mapped_column(String(40))
    key: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(120))
    data: Mapped[dict[str, Any]] = mapped_column(default=dict)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)


class InstanceSetting(Base):
    """A setting of the whole instance that its admin changes (invitation-only…)."""

    __tablename__ = "instance_settings"

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[Any] = mapped_column(JSON)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)
