"""Seating a game's campaign for the table tests: the GM's campaign, its players, their access.

The fixtures of tests/test_*_table.py build their people (browsers or API users) and
characters themselves; these helpers are the part they all share.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.models import Campaign, Character, Membership, Role, User
from app.services import campaigns
from app.services.access import CampaignAccess, load_campaign_access


def user_ids(db: Session, names: Iterable[str]) -> dict[str, int]:
    """The ids of the accounts with these usernames, by name."""
    return {name: db.scalar(select(User.id).where(User.username_key == name)) for name in names}


def campaign_with_players(db: Session, gm_id: int, player_ids: Iterable[int], *, name: str,
                          system: str) -> Campaign:
    """A campaign of ``system`` created by the GM, the players seated (not yet committed)."""
    campaign = campaigns.create_campaign(db=db, user=db.get(User, gm_id), name=name,
                                         system=system)
    db.add_all([Membership(campaign_id=campaign.id, user_id=player_id, role=Role.PLAYER)
                for player_id in player_ids])
    return campaign


def campaign_access(db: Session, ids: Mapping[str, int],
                    campaign_id: int) -> dict[str, CampaignAccess]:
    """Each person's access to the campaign, by name."""
    return {name: load_campaign_access(db, db.get(User, user_id), campaign_id)
            for name, user_id in ids.items()}


def grosbaf_against_zetzet(db: Session, names: Iterable[str]) -> tuple[dict[str, int], Campaign,
                                                                      Character, Character]:
    """Mia's Mutatior arena « Arène », where Paul trains Grosbaf and Pia Zetzet (the seed's
    example mutants): the members' ids, the campaign, and the two characters, not committed."""
    from app.rules.mutatior.samples import grosbaf, zetzet
    from app.rules.mutatior.sheet import sheet_of

    ids = user_ids(db, names)
    campaign = campaign_with_players(db, ids["mia"], [ids["paul"], ids["pia"]], name="Arène",
                                     system="mutatior")
    gros = Character(campaign_id=campaign.id, owner_id=ids["paul"], name="Grosbaf",
                     sheet=sheet_of(grosbaf()))
    zet = Character(campaign_id=campaign.id, owner_id=ids["pia"], name="Zetzet",
                    sheet=sheet_of(zetzet()))
    db.add_all([gros, zet])
    return ids, campaign, gros, zet
