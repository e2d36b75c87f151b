"""A campaign's custom game content: the GM's own weapons, vehicles, implants…

Each system declares the kinds a GM may add (``GameSystem.content_kinds``, each with its
fields); this service checks items against those fields, stores them per campaign, and hands
them to the rules as ``Content`` (kind → items). Every member reads them; only the GM
changes them, and nothing changes in an archived campaign.

An item's ``key`` is made once from its first name, prefixed ``gm-`` so it never collides
with the seed's catalogue, and kept when the item is renamed: sheets and matches that refer
to it stay valid.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.db import write_transaction
from app.errors import Conflict, NotFound, ValidationFailed
from app.i18n import gettext
from app.i18n import lazy_gettext as _l
from app.models import CustomContent
from app.rules.registry import get_system
from app.rules.system import (
    CompendiumSection,
    Content,
    ContentField,
    ContentKind,
    content_compendium,
)
from app.services import validation

if TYPE_CHECKING:
    from app.services.access import CampaignAccess

NAME_MAX = 120
TEXT_MAX = 500
LINES_MAX = 4000
ITEMS_PER_CAMPAIGN = 500
INT_LIMIT = 1_000_000
TRUE_WORDS = frozenset({"on", "true", "1", "yes"})


def kinds(system_key: str) -> tuple[ContentKind, ...]:
    system = get_system(system_key)
    return tuple(getattr(system, "content_kinds", ())) if system is not None else ()


def kind_named(access: CampaignAccess, key: object) -> ContentKind:
    for kind in kinds(access.campaign.system):
        if kind.key == key:
            return kind
    raise NotFound(_l("This game has no such kind of content."))


# --- reading ----------------------------------------------------------------------------

def list_items(*, db: Session, campaign_id: int) -> list[CustomContent]:
    return list(db.scalars(select(CustomContent).where(CustomContent.campaign_id == campaign_id)
                           .order_by(CustomContent.kind, CustomContent.name, CustomContent.id)))


def as_rules_item(item: CustomContent) -> dict[str, Any]:
    return {**item.data, "key": item.key, "name": item.name, "source": "gm"}


def campaign_content(*, db: Session, campaign_id: int) -> Content:
    """What the rules see: kind key → the campaign's items of that kind."""
    content: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for item in list_items(db=db, campaign_id=campaign_id):
        content[item.kind].append(as_rules_item(item))
    return dict(content)


def get_item(*, db: Session, access: CampaignAccess, item_id: int) -> CustomContent:
    item = db.get(CustomContent, item_id)
    if item is None or item.campaign_id != access.campaign.id:
        raise NotFound()
    return item


# --- checking ---------------------------------------------------------------------------

def clean_fields(kind: ContentKind, values: Mapping[str, object],
                 content: Content | None = None, *, whole: bool = True) -> dict[str, Any]:
    """The kind's fields from ``values`` (JSON values or form strings), each checked, then
    the whole item by the game's own rules (``ContentKind.check``, against the campaign's
    ``content``).

    Raises ``ValidationFailed`` naming the first bad field (every broken rule of the game's
    check in ``details.problems``); unknown fields are refused.
    """
    known = {field.name for field in kind.fields}
    unknown = sorted(set(values) - known)
    if unknown:
        raise ValidationFailed(_l("Unknown field: %(name)s.", name=unknown[0]), field=unknown[0])
    data = {field.name: _clean(field, values.get(field.name)) for field in kind.fields}
    if whole:
        check_item(kind, data, content or {})
    return data


def check_item(kind: ContentKind, data: Mapping[str, Any], content: Content) -> None:
    """The game's check of a whole item (``ContentKind.check``)."""
    if kind.check is None:
        return
    problems = kind.check(data, content)
    if problems:
        first = problems[0]
        described = [{"field": p.field, "message": gettext(p.message, **p.params),
                      "rule": gettext(p.rule)} for p in problems]
        every: dict[str, str] = {}  # the form shows each field's broken rules at once
        for problem in described:
            every[problem["field"]] = " ".join(filter(None, (every.get(problem["field"]),
                                                             problem["message"])))
        raise ValidationFailed(_l(first.message, **first.params), field=first.field,
                               details={"problems": described, "errors": every})


def _clean(field: ContentField, value: object) -> Any:
    if field.kind == "bool":
        return _boolean(field, value)
    if value is None or (isinstance(value, str) and not value.strip()):
        if field.required:
            raise ValidationFailed(_l("This field is required."), field=field.name)
        return 0 if field.kind == "int" else ""
    if field.kind == "int":
        return _whole_number(field, value)
    if field.kind == "lines":
        return validation.text(value, field=field.name, max_length=LINES_MAX,
                               required=field.required, multiline=True)
    if field.kind == "choice":
        allowed = [choice for choice, _label in field.choices]
        if value not in allowed:
            raise ValidationFailed(_l("Choose one of the offered values."), field=field.name)
        return value
    return validation.text(value, field=field.name, max_length=TEXT_MAX,
                           required=field.required)


def _boolean(field: ContentField, value: object) -> bool:
    if isinstance(value, bool):
        return value
    if value is None:
        return False
    if isinstance(value, str):
        return value.strip().lower() in TRUE_WORDS
    raise ValidationFailed(_l("This must be true or false."), field=field.name)


def _whole_number(field: ContentField, value: object) -> int:
    number: int | None = None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str) and re.fullmatch(r"\s*-?\d{1,9}\s*", value):
        number = int(value)
    if number is None:
        raise ValidationFailed(_l("This must be a whole number."), field=field.name)
    low = field.low if field.low is not None else -INT_LIMIT
    high = field.high if field.high is not None else INT_LIMIT
    if not low <= number <= high:
        raise ValidationFailed(_l("Must be between %(low)s and %(high)s.", low=low, high=high),
                               field=field.name)
    return number


def slug(name: str) -> str:
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    words = re.sub(r"[^a-z0-9]+", "-", ascii_name.lower()).strip("-")
    return "gm-" + (words[:50] or "item")


def _free_key(db: Session, campaign_id: int, kind: str, name: str) -> str:
    base = slug(name)
    taken = set(db.scalars(select(CustomContent.key).where(
        CustomContent.campaign_id == campaign_id, CustomContent.kind == kind,
        CustomContent.key.startswith(base))))
    key, number = base, 1
    while key in taken:
        number += 1
        key = f"{base}-{number}"
    return key


# --- writing ----------------------------------------------------------------------------

def add_item(*, db: Session, access: CampaignAccess, kind: object, name: object,
             fields: Mapping[str, object]) -> CustomContent:
    """The GM adds an item of ``kind`` to the campaign."""
    access.require_gm().require_writable()
    content_kind = kind_named(access, kind)
    cleaned_name = validation.text(name, field="name", max_length=NAME_MAX)
    data = clean_fields(content_kind, fields, campaign_content(db=db,
                                                               campaign_id=access.campaign.id))
    with write_transaction(db):
        access.require_writable()
        count = len(list_items(db=db, campaign_id=access.campaign.id))
        if count >= ITEMS_PER_CAMPAIGN:
            raise ValidationFailed(_l("A campaign holds at most %(n)s custom items.",
                                      n=ITEMS_PER_CAMPAIGN), field="name")
        item = CustomContent(campaign_id=access.campaign.id, kind=content_kind.key,
                             key=_free_key(db, access.campaign.id, content_kind.key,
                                           cleaned_name),
                             name=cleaned_name, data=data)
        db.add(item)
    return item


def update_item(*, db: Session, access: CampaignAccess, item_id: int, name: object,
                fields: Mapping[str, object]) -> CustomContent:
    """The GM changes an item's name and fields; its key stays."""
    access.require_gm().require_writable()
    item = get_item(db=db, access=access, item_id=item_id)
    content_kind = kind_named(access, item.kind)
    cleaned_name = validation.text(name, field="name", max_length=NAME_MAX)
    data = clean_fields(content_kind, fields, campaign_content(db=db,
                                                               campaign_id=access.campaign.id))
    with write_transaction(db):
        item = get_item(db=db, access=access, item_id=item_id)
        item.name, item.data = cleaned_name, data
    return item


def delete_item(*, db: Session, access: CampaignAccess, item_id: int) -> None:
    """The GM removes an item. Running matches keep the copy they started with."""
    access.require_gm().require_writable()
    with write_transaction(db):
        db.delete(get_item(db=db, access=access, item_id=item_id))


# --- the compendium ---------------------------------------------------------------------

def _folded(text: str) -> str:
    """For searching: no case, no accents (« bruler » finds « Brûlure »)."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def compendium_facets(sections: list[CompendiumSection]
                      ) -> list[tuple[str, str, list[str]]]:
    """The filters the sections offer: (parameter, label msgid, the values found)."""
    found: dict[str, tuple[str, list[str]]] = {}
    for section in sections:
        for key, label in section.facets:
            values = found.setdefault(key, (label, []))[1]
            for entry in section.entries:
                for item in facet_values(entry, label):
                    if item not in values:
                        values.append(item)
    return [(key, label, sorted(values, key=_folded)) for key, (label, values) in found.items()]


def facet_values(entry: Any, label: str) -> list[str]:
    value = dict(entry.figures).get(label)
    return [item.strip() for item in str(value).split(",") if item.strip()] if value else []


def filter_compendium(sections: list[CompendiumSection], query: str = "",
                      filters: Mapping[str, str] | None = None) -> list[CompendiumSection]:
    """Keep the entries whose name, figures or text contain ``query`` (no case, no
    accents) and that have each chosen facet value; a filter set drops the sections that do
    not offer it."""
    chosen = {key: value for key, value in (filters or {}).items() if value}
    wanted = _folded(query.strip())
    if not wanted and not chosen:
        return list(sections)
    found = []
    for section in sections:
        labels = dict(section.facets)
        if any(key not in labels for key in chosen):
            continue
        entries = tuple(entry for entry in section.entries if wanted in _folded(" ".join(
            [entry.name, entry.text, entry.text_fr,
             *(str(value) for _label, value in entry.figures)])) and all(
            value in facet_values(entry, labels[key]) for key, value in chosen.items()))
        if entries:
            found.append(replace(section, entries=entries))
    return found


def compendium(*, db: Session, access: CampaignAccess, query: str = "",
               filters: Mapping[str, str] | None = None) -> list[CompendiumSection]:
    """The game's catalogue and the campaign's own items, as a member browses them;
    ``query`` keeps the entries whose name, figures or text contain it, ``filters`` (facet
    parameter → value) those with that value."""
    system = get_system(access.campaign.system)
    if system is None:
        return []
    content = campaign_content(db=db, campaign_id=access.campaign.id)
    own = getattr(system, "compendium", None)
    sections = own(content) if own else content_compendium(system.content_kinds, content)
    return filter_compendium(list(sections), query, filters)


def match_starts(*, db: Session, access: CampaignAccess) -> dict[str, str]:
    """What a new match of this game may open with (``starts_match_from``: Chasse's ready
    scenarios and the campaign's own), key → name, from the compendium's entries."""
    return {entry.start_key: entry.name for section in compendium(db=db, access=access)
            for entry in section.entries if entry.start_key}


def start_label(system_key: str) -> str | None:
    """The button that opens a match from an item (« Lancer une chasse »), or None."""
    system = get_system(system_key)
    return getattr(system, "start_label", None) \
        if system and getattr(system, "starts_match_from", None) else None


# --- from a match -----------------------------------------------------------------------

def saved_kind(system_key: str) -> ContentKind | None:
    """The kind a GM may save a match of this game as (a game with
    ``content_from_match``: Chasse's hunting ground becomes a scenario), else None."""
    system = get_system(system_key)
    key = getattr(system, "saves_match_as", None)
    return next((kind for kind in kinds(system_key) if kind.key == key), None)


def save_from_match(*, db: Session, access: CampaignAccess, match_id: int,
                    name: object) -> CustomContent:
    """The GM keeps what a match shows (its ground, its figures…) as campaign content, as
    the game reads it (``content_from_match(state)`` → the kind's fields), checked like an
    item typed in the form."""
    from app.services import tables

    access.require_gm().require_writable()
    match = tables.get_match(db, access, match_id)
    kind = saved_kind(match.system)
    if kind is None:
        raise Conflict(_l("This game keeps nothing of a match in the campaign."),
                       code="not_saved")
    system = tables.system_of(match)
    fields = system.content_from_match(tables.viewer_state(match, tables.actor_for(db, access)))
    return add_item(db=db, access=access, kind=kind.key, name=name, fields=fields)
