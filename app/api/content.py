"""API: a campaign's custom game content (read by members; the GM adds, changes, removes)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import Path, Response
from pydantic import Field

from app.api.campaigns import MAX_ID
from app.api.schemas import Model, error_responses, text
from app.http.deps import DbSession, MemberAccess, api_router
from app.i18n import gettext
from app.models import CustomContent
from app.rules.system import ContentKind
from app.services import content

router = api_router("content")
BASE = "/campaigns/{campaign_id:int}/content"
ItemId = Annotated[int, Path(ge=1, le=MAX_ID)]
KindKey = Annotated[str, Path(max_length=40)]
FieldValue = int | bool | str


class FieldOut(Model):
    name: str
    label: str
    kind: Literal["text", "int", "choice", "bool", "lines"]
    low: int | None
    high: int | None
    choices: list[str]
    required: bool
    help: str = Field(default="", description="How to fill it (a `lines` field: one element "
                                              "a line, in the game's format).")


class KindOut(Model):
    key: str
    label: str
    rule: str
    fields: list[FieldOut]


class ItemOut(Model):
    id: int
    kind: str
    key: str = Field(description="Stable reference used by sheets and matches.")
    name: str
    data: dict[str, Any]


class ContentOut(Model):
    kinds: list[KindOut]
    items: list[ItemOut]


class ItemIn(Model):
    name: str = text(max_length=content.NAME_MAX)
    data: dict[str, FieldValue] = Field(default={}, description="The kind's fields.")


def _kind_out(kind: ContentKind) -> KindOut:
    return KindOut(key=kind.key, label=gettext(kind.label), rule=gettext(kind.rule), fields=[
        FieldOut(name=f.name, label=gettext(f.label), kind=f.kind, low=f.low, high=f.high,
                 choices=[choice for choice, _label in f.choices], required=f.required,
                 help=gettext(f.help) if f.help else "")
        for f in kind.fields])


def _item_out(item: CustomContent) -> ItemOut:
    return ItemOut(id=item.id, kind=item.kind, key=item.key, name=item.name, data=item.data)


@router.get(BASE, response_model=ContentOut, responses=error_responses(404))
def list_content(db: DbSession, access: MemberAccess) -> ContentOut:
    """The kinds of content this campaign's game lets a GM add, and the GM's items."""
    return ContentOut(kinds=[_kind_out(k) for k in content.kinds(access.campaign.system)],
                      items=[_item_out(i) for i in content.list_items(
                          db=db, campaign_id=access.campaign.id)])


@router.post(BASE + "/{kind}", status_code=201, response_model=ItemOut,
             responses=error_responses(404, 409))
def add_item(body: ItemIn, db: DbSession, access: MemberAccess, kind: KindKey) -> ItemOut:
    """Add an item of ``kind`` (GM)."""
    return _item_out(content.add_item(db=db, access=access, kind=kind, name=body.name,
                                      fields=body.data))


@router.put(BASE + "/items/{item_id}", response_model=ItemOut,
            responses=error_responses(404, 409))
def update_item(body: ItemIn, db: DbSession, access: MemberAccess, item_id: ItemId) -> ItemOut:
    """Replace an item's name and fields (GM); its ``key`` stays."""
    return _item_out(content.update_item(db=db, access=access, item_id=item_id,
                                         name=body.name, fields=body.data))


@router.delete(BASE + "/items/{item_id}", status_code=204, responses=error_responses(404, 409))
def delete_item(db: DbSession, access: MemberAccess, item_id: ItemId) -> Response:
    """Remove an item (GM). Running matches keep the copy they started with."""
    content.delete_item(db=db, access=access, item_id=item_id)
    return Response(status_code=204)


class FromMatchIn(Model):
    name: str = text(max_length=content.NAME_MAX)


@router.post(BASE + "/from-match/{match_id}", status_code=201, response_model=ItemOut,
             responses=error_responses(404, 409))
def save_from_match(body: FromMatchIn, db: DbSession, access: MemberAccess,
                    match_id: ItemId) -> ItemOut:
    """Keep a match's ground as an item of the kind its game saves (GM; Chasse: a hunting
    scenario with the match's terrain, prey, north, turns and prey tables)."""
    return _item_out(content.save_from_match(db=db, access=access, match_id=match_id,
                                             name=body.name))
