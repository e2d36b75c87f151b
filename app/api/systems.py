"""API: the registered game systems."""

from __future__ import annotations

from pydantic import BaseModel

from app.http.deps import api_router
from app.rules.registry import all_systems

router = api_router("systems")


class SystemOut(BaseModel):
    key: str
    name_fr: str
    name_en: str
    seed_file: str | None
    uses_board: bool


@router.get("/systems", response_model=list[SystemOut])
def list_systems() -> list[SystemOut]:
    """Every registered game system."""
    return [SystemOut(key=s.key, name_fr=s.name_fr, name_en=s.name_en, seed_file=s.seed_file,
                      uses_board=s.uses_board) for s in all_systems()]
