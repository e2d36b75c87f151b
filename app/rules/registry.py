"""System key → GameSystem. A game registers itself by being listed here."""

from __future__ import annotations

from app.rules.chasse.system import CHASSE
from app.rules.cyborg.system import CYBORG
from app.rules.libre import LIBRE
from app.rules.mecha_ring.system import MECHA_RING
from app.rules.mutatior.system import MUTATIOR
from app.rules.system import GameSystem
from app.rules.tiamat.system import TIAMAT

SYSTEMS: dict[str, GameSystem] = {system.key: system for system in (
    LIBRE, MUTATIOR, CYBORG, TIAMAT, MECHA_RING, CHASSE)}


def get_system(key: str) -> GameSystem | None:
    return SYSTEMS.get(key)


def all_systems() -> list[GameSystem]:
    return list(SYSTEMS.values())
