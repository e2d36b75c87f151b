"""Healing, surgery and progression.

Cyborg § (II) Les compétences / Premiers soins and § (VI) Régénération: first aid (2D6, one try a
day per patient), full recovery + 1D6 between missions, surgery for a lost limb or a cyborg cut
in two. § (VII) Expérience et Progression: missions counted, the five ranks and their bonuses,
elimination after the 25th mission.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from functools import cache
from typing import Any, ClassVar

from app.rules.cyborg.checks import SkillTest, skill_test
from app.rules.cyborg.content import DATA, ContentError, check_source
from app.rules.dice import Dice, RollRecord
from app.rules.errors import RulesError
from app.rules.notation import roll
from app.rules.purposes import Purpose
from app.rules.system import N_

RULE_FIRST_AID = "Cyborg § (II) Les compétences / Premiers soins; § (VI) Régénération 1/"
RULE_RECOVERY = "Cyborg § (VI) Régénération 2/"
RULE_SURGERY = "Cyborg § (VI) Régénération 3/"
RULE_RANKS = "Cyborg § (VII) Expérience et Progression"
ARMS = ("right_arm", "left_arm")
LEGS = ("right_leg", "left_leg")


class HealingError(RulesError):
    code = "healing_error"
    templates_en: ClassVar[dict[str, str]] = {
        "healing_error": "the healing rules refuse this",
        "first_aid_today": "first aid was already tried on this patient today",
        "unknown_limb": "unknown limb {limb}",
    }
    templates_fr: ClassVar[dict[str, str]] = {
        "healing_error": "les règles de soin refusent ceci",
        "first_aid_today": "les premiers soins ont déjà été tentés sur ce patient aujourd'hui",
        "unknown_limb": "membre inconnu : {limb}",
    }


# — first aid and recovery —


@dataclass(frozen=True)
class FirstAid:
    test: SkillTest
    healed: int
    sante: int
    records: tuple[RollRecord, ...]


def first_aid(
    dice: Dice, skill: int, sante: int, sante_max: int, *, tried_today: bool = False
) -> FirstAid:
    """One Premiers soins test a day per patient; a success restores 2D6 santé, never above
    the maximum (§ (II) Premiers soins). The caller keeps the day's tries per patient."""
    if tried_today:
        raise HealingError("first_aid_today")
    test = skill_test(dice, skill, purpose="premiers soins")
    if not test.success:
        return FirstAid(test, 0, sante, (test.record,))
    heal = roll("2d6", dice, purpose=Purpose("health restored"))
    after = min(sante_max, sante + heal.total)
    return FirstAid(test, after - sante, after, (test.record, heal))


@dataclass(frozen=True)
class Recovery:
    sante_max: int
    sante: int
    record: RollRecord


def between_missions(dice: Dice, sante_max: int) -> Recovery:
    """Between two missions a cyborg recovers all its santé and 1D6 more "qui témoigne de son
    aguerrissement": read as a permanent rise of the maximum (§ (VI) Régénération 2/)."""
    gain = roll("1d6", dice, purpose=Purpose("hardening"))
    new_max = sante_max + gain.total
    return Recovery(new_max, new_max, gain)


# — surgery —


@dataclass(frozen=True)
class Surgery:
    record: RollRecord
    restored: bool
    dead: bool
    bonus: dict[str, int] = field(default_factory=dict)
    note: str = ""


def surgery(dice: Dice, limb: str | None, *, cut_in_two: bool = False) -> Surgery:
    """The operating theatre at the end of the adventure, 1D6 (§ (VI) Régénération 3/).

    A lost limb: 1 dies on the table, 2–3 stays amputated, 4–5 restored (penalties removed),
    6 a better limb — +1 force for an arm, +1 rapidité for a leg. Cut in two: 5–6 restored,
    anything else is a failure and the cyborg is euthanised.
    """
    if not cut_in_two and limb not in ARMS + LEGS:
        raise HealingError("unknown_limb", limb=limb)
    record = roll("1d6", dice, purpose=Purpose("operating theatre"))
    face = record.total
    if cut_in_two:
        restored = face >= 5
        note = N_("Restored.") if restored else N_("The operation failed: euthanised.")
        return Surgery(record.with_target(5, "restored" if restored else "euthanised"),
                       restored, not restored, note=note)
    if face == 1:
        return Surgery(record.with_target(None, "dead"), False, True,
                       note=N_("The cyborg dies on the operating table."))
    if face <= 3:
        return Surgery(record.with_target(None, "amputated"), False, False,
                       note=N_("The operation failed: still amputated."))
    if face <= 5:
        return Surgery(record.with_target(None, "restored"), True, False, note=N_("Restored."))
    bonus = {"force": 1} if limb in ARMS else {"rapidite": 1}
    return Surgery(record.with_target(None, "better"), True, False, bonus,
                   N_("A better limb: +1 to the characteristic."))


# — ranks —


@dataclass(frozen=True)
class Rank:
    key: str
    name: str
    missions: int
    skills: int = 0
    characteristics: int | str = 0
    new_skills: int = 0
    melee: int = 0
    firearms: int = 0
    resistance: int = 0
    dark_jet: bool = False
    followers: str | None = None


def _ranks_file() -> dict[str, Any]:
    with (DATA / "ranks.toml").open("rb") as handle:
        return tomllib.load(handle)


@cache
def ranks() -> tuple[Rank, ...]:
    found = []
    fields = set(Rank.__dataclass_fields__)
    for entry in _ranks_file()["rank"]:
        check_source(entry, f"ranks.toml {entry.get('key')}")
        found.append(Rank(**{k: v for k, v in entry.items() if k in fields}))
    if [rank.missions for rank in found] != sorted(rank.missions for rank in found):
        raise ContentError("ranks.toml: ranks must be in mission order")
    return tuple(found)


@cache
def eliminated_after() -> int:
    return int(_ranks_file()["eliminated_after"])


def rank_for(missions: int) -> Rank | None:
    """The rank held after ``missions`` accomplished missions (None: still a recruit)."""
    held = [rank for rank in ranks() if rank.missions <= missions]
    return held[-1] if held else None


def total_skill_bonus(missions: int) -> int:
    """The % every skill has gained: each rank's bonus adds to the earlier ones."""
    return sum(rank.skills for rank in ranks() if rank.missions <= missions)


@dataclass
class Promotion:
    missions: int
    reached: list[Rank] = field(default_factory=list)
    followers: int = 0
    records: list[RollRecord] = field(default_factory=list)
    eliminated: bool = False
    notes: list[str] = field(default_factory=list)


def mission_accomplished(dice: Dice, missions: int) -> Promotion:
    """Count one more mission; the ranks reached give their bonuses once (§ (VII)). The
    Vénérable-Shiba's followers are rolled here. After the 25th mission the Gouvernement
    suprême eliminates the cyborg."""
    after = missions + 1
    result = Promotion(after)
    for rank in ranks():
        if missions < rank.missions <= after:
            result.reached.append(rank)
            if rank.followers:
                record = roll(rank.followers, dice, purpose=Purpose("following cyborgs"))
                result.records.append(record)
                result.followers += record.total
    if after >= eliminated_after():
        result.eliminated = True
        result.notes.append(N_("Deemed dangerous: eliminated by the Gouvernement suprême."))
    return result
