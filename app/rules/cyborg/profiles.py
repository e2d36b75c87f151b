"""Ready characters: the demo's two cyborgs, and the GM's profiles for aliens and humans.

The text gives the cyborg's creation (§ (III) Le cyborg) and says of the aliens only that
they take any shape (§ (IV) Les extraterrestres) and that the GM sets the location table of a
non-humanoid (§ (III) Calcul des dégâts); a normally dressed human has resistance 1 and about
10 santé (same section). The figures below are house choices within those lines; the GM adds
participants from them at the table ("Add a participant") or copies them as characters.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.rules.cyborg.sheet import blank_sheet


@dataclass(frozen=True)
class Profile:
    key: str
    name: str
    sheet: dict[str, Any]
    player: int | None = None


def _sheet(characteristics: dict[str, int], sante: int, skills: dict[str, int],
           weapons: list[str], **extra: Any) -> dict[str, Any]:
    sheet = blank_sheet()
    sheet.update(characteristics=characteristics, sante=sante, sante_max=sante,
                 skills=skills, weapons=weapons, **extra)
    return sheet


def _c(force: int, constitution: int, dexterite: int, rapidite: int, volonte: int,
       intelligence: int) -> dict[str, int]:
    return {"force": force, "constitution": constitution, "dexterite": dexterite,
            "rapidite": rapidite, "volonte": volonte, "intelligence": intelligence}


CYBORGS = (
    # Esquive/Parade 27 + 13 = 40 (the cap); 13 + 20 + 30 + 10 + 7 + 0 = the 80 % credit.
    Profile("kenji", "KCA-7 Kenji", _sheet(
        _c(14, 13, 15, 12, 11, 10), 38,
        {"arme_blanche": 20, "arme_a_feu": 30, "esquive_parade": 13, "premiers_soins": 10,
         "conduite": 7, "reperage": 0},
        ["tronconneuse", "fusil_a_canon_scie", "lance_grenades"],
        drawn=["premiers_soins", "conduite", "reperage"], missions=0), player=0),
    # Esquive/Parade 28 + 12 = 40; 12 + 30 + 25 + 5 + 8 + 0 = 80.
    Profile("sora", "KCA-12 Sora", _sheet(
        _c(16, 14, 13, 15, 12, 11), 41,
        {"arme_blanche": 30, "arme_a_feu": 25, "esquive_parade": 12, "acrobatie": 5,
         "crochetage": 8, "mecanique": 0},
        ["tronconneuse", "fusil_a_canon_scie", "lance_grenades"],
        drawn=["acrobatie", "crochetage", "mecanique"], missions=0), player=1),
)

GM_PROFILES = (
    # The laboratory's "pieuvre purulente" (§ (III) Combats, Ambiance): not humanoid, with
    # the GM's own location table.
    Profile("pieuvre", "Pieuvre purulente (alien)", _sheet(
        _c(16, 15, 12, 11, 14, 13), 30,
        {"arme_blanche": 16, "arme_a_feu": 5, "esquive_parade": 7},
        ["tentacules", "crachat_acide"], kind="alien", humanoid=False, resistance=3,
        locations=["tentacule avant", "tentacule arrière", "tentacule gauche",
                   "tentacule droit", "manteau", "cerveau"])),
    # It hides among the humans it mimics (§ (IV) Les extraterrestres): Camouflage.
    Profile("infiltre", "Alien à visage humain", _sheet(
        _c(14, 13, 13, 13, 12, 14), 25,
        {"arme_blanche": 10, "arme_a_feu": 10, "esquive_parade": 5, "baratin": 10,
         "camouflage": 10},
        ["griffes", "pistolet_mitrailleur"], kind="alien", resistance=2)),
    # "Un humain … points de santé moyens (10)", "chez un homme normalement vêtu … 1".
    Profile("vigile", "Vigile (humain)", _sheet(
        _c(11, 10, 10, 10, 10, 10), 10,
        {"arme_blanche": 0, "arme_a_feu": 10, "esquive_parade": 0},
        ["calibre_45", "couteau"], kind="human", resistance=1)),
)

PROFILES: dict[str, Profile] = {profile.key: profile for profile in GM_PROFILES + CYBORGS}
