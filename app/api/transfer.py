"""API: export a campaign as a JSON document (GM only), import one as a new campaign."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import Depends, Query, Request
from pydantic import Field
from starlette.responses import Response

from app.api.schemas import Model, error_responses
from app.http.deps import CurrentUser, DbSession, MemberAccess, SettingsDep, api_router
from app.services import transfer
from app.services.campaigns import NAME_MAX

router = api_router("transfer")


class FormerMemberOut(Model):
    username: str
    display_name: str
    role: Literal["player", "spectator"]
    characters: list[str] = Field(description="the characters they played, by name")


class ImportOut(Model):
    campaign_id: int
    former_members: list[FormerMemberOut] = Field(
        description="the members the file named: nobody is made a member by an import; "
                    "invite them with POST …/former-members/invites, or not")


class FormerInvitesIn(Model):
    usernames: list[Annotated[str, Field(max_length=100)]] = Field(max_length=1000)


class FormerInviteOut(Model):
    username: str
    role: Literal["player", "spectator"]
    token: str
    url: str = Field(description="the single-use invitation link to send them")


def _former_out(member: transfer.FormerMember) -> FormerMemberOut:
    return FormerMemberOut(username=member.username, display_name=member.display_name,
                           role=member.role, characters=list(member.characters))


def limit_body(request: Request, settings: SettingsDep) -> None:
    """Refuse a document larger than ``max_import_bytes`` (413), as the upload form does."""
    length = request.headers.get("content-length", "")
    if length.isdigit():
        transfer.check_size(int(length), settings)


async def readable_version(request: Request) -> None:
    """A file of another format or version is refused in words that list the versions this
    Tablée reads, before the schema's checks (they would only name the value they want).
    A body that is not a JSON object is left for the schema to describe."""
    try:
        data = await request.json()
    except ValueError:  # no body, or not JSON: the schema's own errors say so
        return
    if isinstance(data, dict):
        transfer.check_format(data)


@router.get("/campaigns/{campaign_id}/export", response_model=transfer.CampaignExport,
            responses=error_responses(404))
def export_campaign(db: DbSession, access: MemberAccess) -> transfer.CampaignExport:
    """The whole campaign: members by username, roster with sheets and portraits, matches
    with their event logs, and the roll log. GM only (it holds hidden things)."""
    return transfer.export_campaign(db=db, access=access)


@router.post("/campaigns/import", status_code=201, response_model=ImportOut,
             responses=error_responses(400, 413), dependencies=[Depends(limit_body)])
def import_campaign(request: Request, user: CurrentUser,
                    _known: Annotated[None, Depends(readable_version)],
                    body: transfer.CampaignExport, db: DbSession, settings: SettingsDep,
                    name: Annotated[str | None, Query(max_length=NAME_MAX)] = None) -> ImportOut:
    """Create a new campaign from an export document, with you as its GM and only member.

    ``former_members`` lists the people the file named (with the characters they played,
    which stay without a player): invite them if you wish. Imported rolls and events are
    marked as imported; every match is rebuilt from its log, checked by its game at every
    step, and must open for the GM, each player and a spectator (its table page rendered);
    a file that fails, or whose snapshot disagrees with its log, is refused (422,
    ``error.field`` says where, e.g. ``matches.0.events.3.payload.token.x``; a format
    version this Tablée does not read is named with the versions it reads). ``name`` renames
    the new campaign.
    """
    result = transfer.import_campaign(db=db, settings=settings, user=user, document=body,
                                      name=name,
                                      page_check=request.app.state.import_page_check)
    return ImportOut(campaign_id=result.campaign.id,
                     former_members=[_former_out(member) for member in result.former_members])


FORMER = "/campaigns/{campaign_id}/former-members"


@router.get(FORMER, response_model=list[FormerMemberOut], responses=error_responses(404))
def list_former_members(access: MemberAccess) -> list[FormerMemberOut]:
    """The people an imported campaign's file named, not invited yet (GM)."""
    return [_former_out(member) for member in transfer.former_members(access)]


@router.post(FORMER + "/invites", status_code=201, response_model=list[FormerInviteOut],
             responses=error_responses(404, 409))
def invite_former_members(body: FormerInvitesIn, request: Request, db: DbSession,
                          access: MemberAccess) -> list[FormerInviteOut]:
    """A single-use invitation link for each named former member, with their role (GM);
    they leave the list."""
    invited = transfer.invite_former_members(db=db, access=access, usernames=body.usernames)
    base = str(request.base_url).rstrip("/")
    return [FormerInviteOut(username=item.member.username, role=item.member.role,
                            token=item.invite.token, url=f"{base}/invite/{item.invite.token}")
            for item in invited]


@router.delete(FORMER, status_code=204, responses=error_responses(404))
def dismiss_former_members(db: DbSession, access: MemberAccess) -> Response:
    """Forget the list: invite nobody (GM)."""
    transfer.dismiss_former_members(db=db, access=access)
    return Response(status_code=204)
