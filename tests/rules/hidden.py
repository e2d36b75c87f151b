"""What a viewer's state view hides, and whether an event they receive holds any of it.

The rule every game keeps (docs/game-system.md § Conventions for events): the payload of an
event a viewer receives holds nothing that viewer's ``view`` hides. Generic, so that one
check serves every game:

- *hidden from V* after an event: walk the full state and V's ``view`` of it side by side;
  where they part (a key V's view lacks, a value it replaces, items a list leaves out), the
  state's strings and dict/list subtrees there that appear nowhere in V's view;
- what moves between the open table and a hidden place (a market card bought into a hand,
  an SFX card played from it) was in V's view on one side of the event: naming it tells V
  nothing new, so *hidden at N* is what V's views both before and after event N hide;
- *received by V*: the event as the table engine gives it to V (``tables.exists_for``, then
  ``tables.redact``: what the log route and the API stream send).

A string counts when it could carry what someone wrote or drew: three characters or more,
and not a bare lowercase word (kinds, phases, keys: the rules' own vocabulary, which every
viewer knows). Subtrees are compared as canonical JSON.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from app.rules import map_view
from app.rules.match import Actor, Event
from app.services import tables

VOCABULARY = re.compile(r"[a-z_]+")


@dataclass(frozen=True)
class Hidden:
    """Strings, and subtrees as canonical JSON."""

    strings: frozenset[str] = frozenset()
    trees: frozenset[str] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.strings or self.trees)

    def __sub__(self, other: Hidden) -> Hidden:
        return Hidden(self.strings - other.strings, self.trees - other.trees)

    def listed(self) -> list[str]:
        return sorted(self.strings) + sorted(self.trees)


NOTHING = Hidden()


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def telling(text: str) -> bool:
    return len(text) >= 3 and not VOCABULARY.fullmatch(text)


def parted(state: Any, shown: Any) -> Iterator[Any]:
    """The parts of ``state`` where ``shown`` (a view of it) says something else."""
    if state is shown or state == shown:
        return
    if isinstance(state, Mapping) and isinstance(shown, Mapping):
        for key, value in state.items():
            if key in shown:
                yield from parted(value, shown[key])
            else:
                yield value
    elif isinstance(state, list) and isinstance(shown, list) and len(state) == len(shown):
        for value, seen in zip(state, shown, strict=True):
            yield from parted(value, seen)
    elif isinstance(state, list) and isinstance(shown, list):
        yield state  # a list the view filtered: the whole, and each item it left out
        yield from (item for item in state if item not in shown)
    else:
        yield state


def _parts(value: Any) -> tuple[list[str], list[Any]]:
    """Every string (dict keys included) and every non-empty dict or list in ``value``."""
    strings, trees, stack = [], [], [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str:
            strings.append(item)
        elif kind is dict and item:
            trees.append(item)
            strings.extend(item)
            stack.extend(item.values())
        elif kind is list and item:
            trees.append(item)
            stack.extend(item)
    return strings, trees


def candidates(state: Any, shown: Any) -> Hidden:
    """The telling strings and the subtrees where ``shown`` parts from ``state`` (some may
    still show elsewhere in it)."""
    strings, trees = _parts(list(parted(state, shown)))
    return Hidden(frozenset(text for text in strings if telling(text)),
                  frozenset(canonical(tree) for tree in trees[1:]))  # not the list of parts


def held(value: Any, sought: Hidden) -> Hidden:
    """What of ``sought`` appears anywhere in ``value`` (a view, a payload)."""
    if not sought:
        return NOTHING
    # Equal JSON values have the same length (a list) or keys (a dict): only the subtrees
    # of ``value`` shaped like a sought one are written out and compared.
    shapes = [json.loads(tree) for tree in sought.trees]
    lengths = {len(tree) for tree in shapes if type(tree) is list}
    keys = {frozenset(tree) for tree in shapes if type(tree) is dict}
    strings, trees = _parts(value)
    return Hidden(sought.strings.intersection(strings), frozenset(
        text for tree in trees
        if (len(tree) in lengths if type(tree) is list else frozenset(tree) in keys)
        and (text := canonical(tree)) in sought.trees))


def hidden(state: Any, shown: Any, before: Any = None) -> Hidden:
    """What ``shown`` (a viewer's view of ``state``) hides, less what ``before`` (their view
    just before) showed."""
    found = candidates(state, shown)
    found -= held(shown, found)
    return found - held(before, found) if before is not None else found


def in_raw_bytes(data: bytes, secret: Hidden) -> list[str]:
    """The hidden strings written, as JSON strings, in the raw bytes of a stream."""
    return sorted(text for text in secret.strings
                  if json.dumps(text, ensure_ascii=False).encode() in data)


def received(event: Event | Mapping[str, Any], seq: int, by: int | None,
             viewer: Actor) -> dict[str, Any] | None:
    """The event as the table engine gives it to ``viewer`` (None: it does not exist for
    them): ``by`` is the member whose action caused it."""
    if isinstance(event, Event):
        event = {"kind": event.kind, "payload": event.payload,
                 "visibility": event.visibility}
    row = {"seq": seq, "kind": event["kind"], "payload": event["payload"], "actor_id": by,
           "visibility": event["visibility"], "reverted": False, "created_at": None}
    return tables.redact(row, viewer) if tables.exists_for(row, viewer) else None


class Watcher:
    """One viewer following a match event by event. Their view before each event is kept
    (a folded state is never changed in place: each event folds into a copy), so that what
    they receive is judged against both sides of it."""

    def __init__(self, name: str, viewer: Actor) -> None:
        self.name, self.viewer = name, viewer
        self.before: Any = {}

    def secret_after(self, system, state: Mapping[str, Any]) -> Hidden:
        # the game's view, then the platform's (the fog of war, hidden figures: map_view)
        shown = map_view.view(system, state, self.viewer)
        secret = hidden(state, shown, self.before)
        self.before = shown
        return secret


def leaks(system, watchers: list[Watcher], state: Mapping[str, Any], event: Event,
          seq: int, by: int | None) -> list[str]:
    """What each watcher receives of ``event`` (the state now folded past it) that their
    view hides, as readable lines (empty: nothing)."""
    lines = []
    for watcher in watchers:
        secret = watcher.secret_after(system, state)
        got = received(event, seq, by, watcher.viewer)
        if got is not None and (found := held(got["payload"], secret)):
            lines.append(f"{watcher.name} receives {event.kind} #{seq} holding "
                         f"{found.listed()[:3]}")
    return lines
