"""Pages: a campaign's custom game content (the GM adds, edits and removes; members read).

The forms are drawn from the system's ``content_kinds``: one field per ``ContentField``,
plus the item's ``name``.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Path, Query, Request
from starlette.responses import Response

from app.errors import AppError, ValidationFailed
from app.http.deps import DbSession, MemberAccess, page_router
from app.models import CustomContent
from app.rules.system import ContentKind
from app.services import content, matches
from app.services.access import CampaignAccess
from app.web.campaigns import error_page
from app.web.characters import FormFields
from app.web.forms import field_errors, see_other
from app.web.templating import render

router = page_router()
BASE = "/campaigns/{campaign_id:int}/content"
ItemId = Annotated[int, Path(ge=1, le=2**31 - 1)]
KindKey = Annotated[str, Path(max_length=40)]


def content_url(access: CampaignAccess) -> str:
    return f"/campaigns/{access.campaign.id}/content"


def _page(request: Request, db: DbSession, access: CampaignAccess, *,
          failed_kind: str | None = None, form: dict[str, Any] | None = None,
          error: AppError | None = None) -> Response:
    items = content.list_items(db=db, campaign_id=access.campaign.id)
    return render(request, "content/page.html", {
        "access": access, "campaign": access.campaign,
        "kinds": content.kinds(access.campaign.system),
        "items": {kind.key: [item for item in items if item.kind == kind.key]
                  for kind in content.kinds(access.campaign.system)},
        "can_edit": access.is_gm and not access.campaign.archived,
        "start_label": content.start_label(access.campaign.system),
        "start_kind": matches.starts_from(access),
        "failed_kind": failed_kind, "form": form or {},
        "errors": field_errors(error) if error else {},
    }, status_code=error.status if error else 200)


def _fields(kind: ContentKind, form: dict[str, str]) -> dict[str, str]:
    """The kind's fields from the posted form (an unticked box is simply absent)."""
    return {field.name: form.get(field.name, "") for field in kind.fields}


@router.get("/campaigns/{campaign_id}/compendium")
def compendium_page(request: Request, db: DbSession, access: MemberAccess,
                    q: Annotated[str, Query(max_length=100)] = "") -> Response:
    """The game's catalogue and the campaign's own items, for every member; searchable, and
    filtered by the game's facets (Tiamat's techniques by art and type) without a script."""
    every = content.compendium(db=db, access=access)
    facets = content.compendium_facets(every)
    chosen = {key: request.query_params.get(key, "") for key, _label, values in facets
              if request.query_params.get(key, "") in values}
    return render(request, "content/compendium.html", {
        "access": access, "campaign": access.campaign, "query": q, "facets": facets,
        "chosen": chosen, "sections": content.filter_compendium(every, q, chosen),
        "start_label": content.start_label(access.campaign.system)})


@router.get(BASE)
def content_page(request: Request, db: DbSession, access: MemberAccess) -> Response:
    return _page(request, db, access)


@router.post(BASE + "/{kind}")
def add_item(request: Request, db: DbSession, access: MemberAccess, kind: KindKey,
             form: FormFields) -> Response:
    access.require_gm().require_writable()
    content_kind = content.kind_named(access, kind)
    try:
        item = content.add_item(db=db, access=access, kind=kind, name=form.get("name", ""),
                                fields=_fields(content_kind, form))
    except ValidationFailed as error:
        return _page(request, db, access, failed_kind=kind, form=form, error=error)
    except AppError as error:
        return error_page(request, error)
    return see_other(f"{content_url(access)}#item-{item.id}")


def _edit_page(request: Request, access: CampaignAccess, item: CustomContent, *,
               form: dict[str, Any], error: AppError | None = None) -> Response:
    return render(request, "content/edit.html", {
        "access": access, "campaign": access.campaign, "item": item,
        "kind": content.kind_named(access, item.kind), "form": form,
        "errors": field_errors(error) if error else {},
    }, status_code=error.status if error else 200)


@router.get(BASE + "/items/{item_id}/edit")
def edit_page(request: Request, db: DbSession, access: MemberAccess,
              item_id: ItemId) -> Response:
    access.require_gm().require_writable()
    item = content.get_item(db=db, access=access, item_id=item_id)
    return _edit_page(request, access, item, form={"name": item.name, **item.data})


@router.post(BASE + "/items/{item_id}/edit")
def save_item(request: Request, db: DbSession, access: MemberAccess, item_id: ItemId,
              form: FormFields) -> Response:
    access.require_gm().require_writable()
    item = content.get_item(db=db, access=access, item_id=item_id)
    content_kind = content.kind_named(access, item.kind)
    try:
        content.update_item(db=db, access=access, item_id=item_id, name=form.get("name", ""),
                            fields=_fields(content_kind, form))
    except ValidationFailed as error:
        item = content.get_item(db=db, access=access, item_id=item_id)
        return _edit_page(request, access, item, form=form, error=error)
    except AppError as error:
        return error_page(request, error)
    return see_other(f"{content_url(access)}#item-{item_id}")


@router.post(BASE + "/items/{item_id}/delete")
def delete_item(request: Request, db: DbSession, access: MemberAccess,
                item_id: ItemId) -> Response:
    access.require_gm().require_writable()
    try:
        content.delete_item(db=db, access=access, item_id=item_id)
    except AppError as error:
        return error_page(request, error)
    return see_other(content_url(access))


@router.post(BASE + "/from-match/{match_id}")
def save_from_match(request: Request, db: DbSession, access: MemberAccess, match_id: ItemId,
                    form: FormFields) -> Response:
    """GM: keep a match's ground as campaign content (Chasse: a hunting scenario)."""
    from app.services import tables
    from app.web.matches import _table_page

    access.require_gm().require_writable()
    try:
        item = content.save_from_match(db=db, access=access, match_id=match_id,
                                       name=form.get("name", ""))
    except ValidationFailed as error:
        return _table_page(request, db, access, tables.get_match(db, access, match_id),
                           alert=str(error.message), status_code=error.status)
    except AppError as error:
        return error_page(request, error)
    return see_other(f"{content_url(access)}#item-{item.id}")
