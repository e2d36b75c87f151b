"""Mecha-Ring's cards, loaded once from ``data/*.toml``; the campaign's own cards join them.

The text names the card families and their values but prints no card, so every card of the
deck is house content (``source = "house"`` with its reason); ``_check`` refuses an entry
without one. A campaign's GM adds cards of their own (``content_kinds``): they come in with
``source = "gm"`` and a ``gm-`` key, and a match copies the whole deck into its first event.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.rules.provenance import check_provenance, load_toml

FAMILIES = ("torse", "tete", "bras", "jambes")
VALUES = ("mouvement", "radar", "attaque", "defense")
EFFECTS = ("repair", "attack", "defence", "sure_radar", "jam", "credits", "sabotage")
MAX_ENERGY = 4  # § Mise en place: "tous les morceaux de robot sont au niveau 4"


def rule(section: str) -> str:
    """A citation of the seed as a reader sees it, e.g. ``Mecha-Ring § Tour de
    jeu``: the game's name and the text's heading, no file name on a page."""
    return f"Mecha-Ring § {section}"


def _load(name: str) -> dict[str, Any]:
    return load_toml(__package__, name)


_check = check_provenance


def _parts() -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for family, entries in _load("cards.toml").items():
        if family not in FAMILIES:
            raise ValueError(f"cards.toml: unknown family {family!r}")
        for key, entry in entries.items():
            _check(f"cards.{family}.{key}", entry)
            if key in found:
                raise ValueError(f"cards.toml: {key!r} defined twice")
            found[key] = {"key": key, "family": family, "name": entry["name"],
                          **{name: int(entry[name]) for name in VALUES},
                          "value": int(entry["value"]), "copies": int(entry["copies"]),
                          "source": entry["source"], "reason": entry.get("reason", "")}
    return found


def _sfx() -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for key, entry in _load("sfx.toml").items():
        _check(f"sfx.{key}", entry)
        if entry["effect"] not in EFFECTS:
            raise ValueError(f"sfx.{key}: unknown effect {entry['effect']!r}")
        found[key] = {"key": key, "name": entry["name"], "cost": int(entry["cost"]),
                      "effect": entry["effect"], "amount": int(entry["amount"]),
                      "uses": int(entry["uses"]), "copies": int(entry["copies"]),
                      "source": entry["source"], "reason": entry.get("reason", "")}
    return found


PARTS: dict[str, dict[str, Any]] = _parts()
SFX: dict[str, dict[str, Any]] = _sfx()


def _int(item: Mapping[str, Any], name: str, low: int, high: int, default: int = 0) -> int:
    value = item.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int):
        return default
    return max(low, min(high, value))


def custom_parts(content: Mapping[str, Any] | None) -> dict[str, dict[str, Any]]:
    """The campaign's own robot parts (kind ``part``); malformed items are skipped."""
    found: dict[str, dict[str, Any]] = {}
    for item in (content or {}).get("part") or []:
        if not isinstance(item, Mapping) or not isinstance(item.get("key"), str):
            continue
        key = item["key"]
        if key in PARTS or key in found or item.get("family") not in FAMILIES:
            continue
        found[key] = {"key": key, "family": item["family"], "name": str(item.get("name") or key),
                      **{name: _int(item, name, 0, 6) for name in VALUES},
                      "value": _int(item, "value", 0, 500), "copies": _int(item, "copies", 1, 8, 1),
                      "source": "gm", "reason": ""}
    return found


def custom_sfx(content: Mapping[str, Any] | None) -> dict[str, dict[str, Any]]:
    """The campaign's own SFX cards (kind ``sfx``); malformed items are skipped."""
    found: dict[str, dict[str, Any]] = {}
    for item in (content or {}).get("sfx") or []:
        if not isinstance(item, Mapping) or not isinstance(item.get("key"), str):
            continue
        key = item["key"]
        if key in SFX or key in found or item.get("effect") not in EFFECTS:
            continue
        found[key] = {"key": key, "name": str(item.get("name") or key), "effect": item["effect"],
                      "cost": _int(item, "cost", 0, 500), "amount": _int(item, "amount", 0, 100),
                      "uses": _int(item, "uses", 0, 9), "copies": _int(item, "copies", 1, 8, 1),
                      "source": "gm", "reason": ""}
    return found


def left_out(content: Mapping[str, Any] | None) -> set[str]:
    """The house cards the campaign's host took out of the deck (kind ``left_out``)."""
    return {item["card"] for item in (content or {}).get("left_out") or []
            if isinstance(item, Mapping) and isinstance(item.get("card"), str)}


def deck(content: Mapping[str, Any] | None = None) -> dict[str, dict[str, dict[str, Any]]]:
    """The whole card set of a campaign: ``{"parts": {key: card}, "sfx": {key: card}}`` —
    the house cards but those left out, and the campaign's own."""
    out = left_out(content)
    return {"parts": {**{k: c for k, c in PARTS.items() if k not in out},
                      **custom_parts(content)},
            "sfx": {**{k: c for k, c in SFX.items() if k not in out}, **custom_sfx(content)}}


def instances(cards: Mapping[str, Mapping[str, Any]], family: str | None = None) -> list[str]:
    """Every physical card of a catalogue as ``key#n`` (n from 1 to its copies)."""
    return [f"{key}#{n}" for key, card in cards.items()
            if family is None or card.get("family") == family
            for n in range(1, card["copies"] + 1)]


def key_of(card_id: str) -> str:
    return card_id.split("#", 1)[0]
