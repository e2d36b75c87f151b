"""The demo: three accounts and one ready campaign per registered game system, each with a
match in progress (the system's ``demo_match``), so a newcomer's first click lands on a
living table.

``make run`` calls ``ensure_demo`` before serving, every time, so it must be idempotent: it
only creates what is missing and otherwise changes nothing. A game system registered
later gets its demo campaign at the next start.

The demo password is printed and fixed: it is for trying Tablée on your own machine only.
Change it (or disable the accounts from /admin) before opening an instance to others.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app import auth
from app.config import Settings
from app.db import make_engine, make_sessionmaker, write_transaction
from app.errors import AppError
from app.models import Campaign, Character, Match, Membership, Role, User
from app.rules.dice import SeededDice
from app.rules.registry import all_systems
from app.rules.system import DemoMatch, GameSystem
from app.services import accounts, campaigns, characters, content, tables
from app.services.access import load_campaign_access
from app.services.demo_matches import DEMO_MATCHES

DEMO_PASSWORD = "tablee-demo-2026"  # noqa: S105 — a published demo login, local use only
# "mj" would be shorter, but usernames have at least 3 characters (validation.USERNAME_RE).
GM_USERNAME = "mjdemo"
# Index = ``DemoCharacter.player``: 0 plays the first player character, 1 the second.
PLAYER_USERNAMES = ("alice", "bruno")
PLAYER_LABELS = ("Compte joueuse", "Compte joueur")
DISPLAY_NAMES = {GM_USERNAME: "MJ", "alice": "Alice", "bruno": "Bruno"}

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class DemoAccount:
    user: User
    label: str
    password_is_demo: bool


def demo_campaign_name(system: GameSystem) -> str:
    return f"Démo — {system.name_fr}"


def ensure_demo(settings: Settings) -> list[str]:
    """Create whatever is missing of the demo; return the lines to print (the logins)."""
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    engine = make_engine(settings.resolved_database_url)
    try:
        with make_sessionmaker(engine)() as db:
            return _ensure(db, settings)
    finally:
        engine.dispose()


def _ensure(db: Session, settings: Settings) -> list[str]:
    gm = _ensure_account(db, settings, GM_USERNAME, "Compte MJ")
    players = [_ensure_account(db, settings, name, label)
               for name, label in zip(PLAYER_USERNAMES, PLAYER_LABELS, strict=True)]
    created = [name for system in all_systems()
               if (name := _ensure_campaign(db, settings, gm.user, [p.user for p in players],
                                            system))]
    lines = [_login_line(account) for account in (gm, *players)]
    lines.append("Mot de passe de démonstration, pour un essai local uniquement : changez-le "
                 "ou désactivez ces comptes (page /admin) avant d'ouvrir Tablée à d'autres.")
    lines.extend(f"Campagne de démo créée : {name}" for name in created)
    return lines


def _login_line(account: DemoAccount) -> str:
    if account.password_is_demo:
        return f"{account.label} : {account.user.username} / {DEMO_PASSWORD}"
    return f"{account.label} : {account.user.username} (mot de passe déjà changé)"


def _ensure_account(db: Session, settings: Settings, username: str, label: str) -> DemoAccount:
    """The demo account, registered through the normal path the first time."""
    user = db.scalar(select(User).where(User.username_key == username))
    if user is None:
        user = accounts.register(db=db, settings=settings, username=username,
                                 password=DEMO_PASSWORD, display_name=DISPLAY_NAMES[username],
                                 locale="fr")
        return DemoAccount(user=user, label=label, password_is_demo=True)
    # Someone may have changed it (good): then we must not print a password that fails.
    check = auth.verify_password(auth.password_hasher(settings), user.password_hash,
                                 DEMO_PASSWORD)
    return DemoAccount(user=user, label=label, password_is_demo=check.ok)


def _ensure_campaign(db: Session, settings: Settings, gm: User, players: list[User],
                     system: GameSystem) -> str | None:
    """The system's demo campaign (found by name, system and the demo GM's membership).

    Returns its name when it was created now. Its characters are added only while it has
    none, and its demo match is opened only when it was created now, so a GM who edits or
    deletes demo characters or matches is never overruled.
    """
    name = demo_campaign_name(system)
    campaign = db.scalar(
        select(Campaign).join(Membership, Membership.campaign_id == Campaign.id)
        .where(Campaign.name == name, Campaign.system == system.key,
               Membership.user_id == gm.id).order_by(Campaign.id).limit(1))
    created = campaign is None
    if campaign is None:
        campaign = campaigns.create_campaign(
            db=db, user=gm, name=name, system=system.key,
            description=f"Campagne de démonstration de {system.name_fr}, avec des "
                        "personnages prêts à jouer.")
    if created:
        _add_players(db, campaign, players)
        _add_content(db, campaign, gm, system)
    has_characters = db.scalar(select(func.count()).select_from(Character)
                               .where(Character.campaign_id == campaign.id))
    if not has_characters and not campaign.archived:
        _add_characters(db, campaign, gm, players, system)
    if created:
        _open_demo_match(db, settings, campaign, gm, players, system)
    return name if created else None


def _add_players(db: Session, campaign: Campaign, players: list[User]) -> None:
    """Alice and Bruno join as players (direct rows: nobody has to accept an invite)."""
    with write_transaction(db):
        members = set(db.scalars(select(Membership.user_id)
                                 .where(Membership.campaign_id == campaign.id)))
        for player in players:
            if player.id not in members:
                db.add(Membership(campaign_id=campaign.id, user_id=player.id, role=Role.PLAYER))


def _add_content(db: Session, campaign: Campaign, gm: User, system: GameSystem) -> None:
    """The system's demo custom content (``demo_content()``: kind, name, fields), added as
    the GM would add it, so a newcomer finds one in the content page (Chasse: a GM's
    scenario). One the checks refuse is left out (logged)."""
    access = load_campaign_access(db, gm, campaign.id)
    for kind, name, fields in getattr(system, "demo_content", lambda: [])():
        try:
            content.add_item(db=db, access=access, kind=kind, name=name, fields=fields)
        except AppError as error:
            logger.warning("demo %s: content %r refused (%s)", system.key, name, error)


def _add_characters(db: Session, campaign: Campaign, gm: User, players: list[User],
                    system: GameSystem) -> None:
    """The system's ready characters, each given to its demo player (or kept as an NPC)."""
    access = load_campaign_access(db, gm, campaign.id)
    if not access.is_gm:  # the demo GM handed the campaign over: it is theirs now
        return
    for demo in system.demo_characters():
        # A game with more ready characters than demo players deals them out in turn.
        member = players[demo.player % len(players)] if demo.player is not None else None
        if member is not None and not _is_player(db, campaign.id, member.id):
            member = None  # the GM removed this player: the character stays an NPC
        characters.create_character(db=db, access=access, name=demo.name, notes=demo.notes,
                                    sheet=demo.sheet,
                                    owner_id=member.id if member else None)


def _is_player(db: Session, campaign_id: int, user_id: int) -> bool:
    return db.scalar(select(Membership.id).where(
        Membership.campaign_id == campaign_id, Membership.user_id == user_id,
        Membership.role.in_((Role.PLAYER, Role.GM)))) is not None


def _open_demo_match(db: Session, settings: Settings, campaign: Campaign, gm: User,
                     players: list[User], system: GameSystem) -> None:
    """Open the system's demo match and play its steps through the table engine, as the GM
    and the demo players would. A step the rules refuse stops the script there (logged):
    the demo never keeps Tablée from starting."""
    demo_match = getattr(system, "demo_match", None) or DEMO_MATCHES.get(system.key)
    if demo_match is None or db.scalar(select(Match.id).where(
            Match.campaign_id == campaign.id).limit(1)) is not None:
        return
    ids = {name: cid for name, cid in db.execute(
        select(Character.name, Character.id).where(Character.campaign_id == campaign.id)
        .order_by(Character.id))}
    plan: DemoMatch | None = demo_match(ids)
    if plan is None:
        return
    secret, dice = settings.resolved_secret_key, SeededDice(plan.seed)
    match = tables.create_match(db=db, secret=secret,
                                access=load_campaign_access(db, gm, campaign.id),
                                name=plan.name,
                                character_ids=[ids[name] for name in plan.participants
                                               if name in ids],
                                options=dict(plan.options), dice=dice)
    for number, step in enumerate(plan.steps, start=1):
        user = gm if step.by is None else players[step.by % len(players)]
        try:
            tables.apply_action(db=db, secret=secret, access=load_campaign_access(
                db, user, campaign.id), match_id=match.id, action=step.action,
                expected_seq=None, dice=dice)
        except AppError as error:
            logger.warning("demo %s: step %d refused (%s); the demo match stops there",
                           system.key, number, error)
            return
