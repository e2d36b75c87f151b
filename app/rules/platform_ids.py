"""The platform's rows that events name, and how to point them elsewhere.

Events (and so states, which are folds of events) name two kinds of the platform's rows, always
as integers under these keys, at any depth (docs/game-system.md § Ids in events):

- a character of the roster: ``character_id``, or a list under ``character_ids``;
- a member (a user account): ``by``, ``owner_id`` or ``user_id``, or a list under
  ``user_ids`` (those who may read a ``quiet`` event: a handout's recipients).

A campaign file carries the events of another instance, whose ids mean nothing here (or worse,
someone else). Importing maps character ids to the new rows and member ids to nobody
(``None``): an imported log is never linked to a local account. Values that are not integers
(a token id such as ``"t1"`` under ``by``) are left as they are.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

CHARACTER_ID_KEYS = frozenset({"character_id", "character_ids"})
USER_ID_KEYS = frozenset({"by", "owner_id", "user_id"})
USER_IDS = "user_ids"


def _is_id(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def remap_ids(value: Any, characters: Mapping[int, int | None]) -> Any:
    """A copy of ``value`` with character ids translated by ``characters`` (an id it does not
    know becomes ``None``, and leaves a list) and member ids set to ``None``."""
    if isinstance(value, list):
        return [remap_ids(item, characters) for item in value]
    if not isinstance(value, dict):
        return value
    mapped: dict[str, Any] = {}
    for key, item in value.items():
        if key in CHARACTER_ID_KEYS:
            mapped[key] = _map_characters(item, characters)
        elif key in USER_ID_KEYS and _is_id(item):
            mapped[key] = None
        elif key == USER_IDS and isinstance(item, list):
            mapped[key] = []  # nobody here: what they alone could read becomes the GM's
        else:
            mapped[key] = remap_ids(item, characters)
    return mapped


def _map_characters(value: Any, characters: Mapping[int, int | None]) -> Any:
    if _is_id(value):
        return characters.get(value)
    if isinstance(value, list):
        return [characters[item] for item in value
                if _is_id(item) and characters.get(item) is not None]
    return value
