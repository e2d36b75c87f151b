"""Content as data with provenance (DESIGN.md § Content): every entry of a game's catalogue
says where it comes from — the seed, with the section it transcribes, or the house, with the
reason it was made up where the text is silent — and a loader refuses one that does not."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from importlib import resources
from typing import Any


class ContentError(ValueError):
    """A game's data file breaks its own rules (a missing provenance, a bad value)."""


def load_toml(package: str, name: str) -> dict[str, Any]:
    """``<package>/data/<name>``, read as TOML (works from an installed wheel too)."""
    text = resources.files(package).joinpath("data").joinpath(name).read_text(encoding="utf-8")
    return tomllib.loads(text)


def check_provenance(where: str, entry: Mapping[str, Any], *, seed_section: bool = True) -> None:
    """A seed entry names its section (unless the game's files cite it per file:
    ``seed_section=False``); a house entry gives its reason."""
    source = entry.get("source")
    if source not in ("seed", "house"):
        raise ContentError(f"{where}: source must be 'seed' or 'house'")
    if source == "seed" and seed_section and not entry.get("section"):
        raise ContentError(f"{where}: a seed entry needs its section")
    if source == "house" and not entry.get("reason"):
        raise ContentError(f"{where}: a house entry needs its reason")
