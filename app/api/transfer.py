"""API: export a campaign as a JSON document (GM only), import one as a new campaign."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Query, Request

from app.api.schemas import Model, error_responses
from app.http.deps import CurrentUser, DbSession, MemberAccess, SettingsDep, protected_router
from app.services import transfer
from app.services.campaigns import NAME_MAX

router = protected_router(tags=["transfer"])


class ImportOut(Model):
    campaign_id: int
    unmatched_members: list[str]


def limit_body(request: Request, settings: SettingsDep) -> None:
    """Refuse a document larger than ``max_import_bytes`` (413), as the upload form does."""
    length = request.headers.get("content-length", "")
    if length.isdigit():
        transfer.check_size(int(length), settings)


@router.get("/campaigns/{campaign_id}/export", response_model=transfer.CampaignExport,
            responses=error_responses(404))
def export_campaign(db: DbSession, access: MemberAccess) -> transfer.CampaignExport:
    """The whole campaign: members by username, roster with sheets and portraits, matches
    with their event logs, and the roll log. GM only (it holds hidden things)."""
    return transfer.export_campaign(db=db, access=access)


@router.post("/campaigns/import", status_code=201, response_model=ImportOut,
             responses=error_responses(400, 413), dependencies=[Depends(limit_body)])
def import_campaign(body: transfer.CampaignExport, db: DbSession, settings: SettingsDep,
                    user: CurrentUser,
                    name: Annotated[str | None, Query(max_length=NAME_MAX)] = None) -> ImportOut:
    """Create a new campaign from an export document, with you as its GM.

    Members are re-linked by username; ``unmatched_members`` lists those with no account
    here (their characters became NPCs). ``name`` renames the new campaign.
    """
    result = transfer.import_campaign(db=db, settings=settings, user=user, document=body,
                                      name=name)
    return ImportOut(campaign_id=result.campaign.id, unmatched_members=result.unmatched_members)
