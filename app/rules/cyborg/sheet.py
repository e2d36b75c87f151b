"""The cyborg's sheet: creation rolls, validation, and the values derived from it.

A sheet is plain JSON data::

    {"characteristics": {"force": 13, …},       # the six, 3..18 at creation
     "sante": 35, "sante_max": 35,               # 10D4 + 10; current santé may go below 0
     "resistance": 7,                            # the armour
     "skills": {"arme_blanche": 20, …},          # held skills → credit allocated to each
     "custom_skill": {"name": "…", "formula": ["intelligence", "volonte", "dexterite"]},
     "weapons": ["tronconneuse", …],
     # optional, kept by the table between missions (absent = the creation default):
     "drawn": ["camouflage", …],                 # the skills the dice gave (rolled)
     "missions": 0, "rank_picks": ["force", …],  # missions done; +1 picks the ranks allow
     "lost_limbs": [], "surgery_bonus": {}, "followers": 0, "fate": "active",
     "kind": "cyborg"}                           # or "alien" / "human" for GM profiles
                                                 # (+ "humanoid", "locations")

Base percentages are never stored: they follow the characteristics (``derived``).
Sources: seed sections "(III) Le cyborg : feuille de personnage", "Cyborg § (I) Les
caractéristiques" and "Cyborg § (II) Les compétences".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from app.rules.cyborg.content import (
    CHARACTERISTIC_NAMES,
    CHARACTERISTICS,
    LIMBS,
    MAX_RESISTANCE,
    Skill,
    all_weapons,
    skill_by_number,
    skills,
    starting_weapons,
)
from app.rules.dice import Dice, RollRecord
from app.rules.errors import RulesError
from app.rules.notation import roll
from app.rules.purposes import Purpose
from app.rules.system import N_, NO_CONTENT, Content, Problem, Sheet

RULE_SHEET = "(III) Le cyborg : feuille de personnage"
RULE_CHARACTERISTICS = "Cyborg § (I) Les caractéristiques"
RULE_SKILLS = "Cyborg § (II) Les compétences"
RULE_SANTE = "Cyborg § (III) Combats / Calcul des dégâts (10D4 + 10, entre 20 et 50)"
RULE_RESISTANCE = "Cyborg § (III) Combats / Calcul des dégâts (10 est la plus haute protection)"
RULE_HOUSE = N_("house rule: sheet format")

CHARACTERISTIC_RANGE = (3, 18)
SANTE_RANGE = (20, 50)
SANTE_PER_MISSION = 6  # between missions santé_max rises by 1D6 (§ (VI) Régénération 2/)
PROFILE_CHARACTERISTIC_RANGE = (1, 40)
PROFILE_SANTE_RANGE = (1, 500)
RULE_PROGRESSION = "Cyborg § (VII) Expérience et Progression"
RULE_REGENERATION = "Cyborg § (VI) Régénération"
KINDS = ("cyborg", "alien", "human")
FATES = ("active", "dead", "euthanised", "eliminated")
MAX_MISSIONS = 25
SANTE_FLOOR = -999  # current santé may fall below 0 ("0 ou négatif n'implique pas la mort")
ARMOUR_RESISTANCE = 7
CREDIT = 80
DRAWN_SKILLS = 3
MAX_DRAWS = 1000
MAX_CUSTOM_NAME = 40
CUSTOM = "au_choix"
SHEET_KEYS = {"characteristics", "sante", "sante_max", "resistance", "skills", "custom_skill",
              "weapons", "drawn", "missions", "rank_picks", "lost_limbs", "surgery_bonus",
              "followers", "fate", "kind", "humanoid", "locations"}


class SkillDrawError(RulesError):
    """Dice that keep giving held skills: a broken dice source, never a fair one."""

    code = "skill_draw_stuck"
    templates_en: ClassVar[dict[str, str]] = {
        "skill_draw_stuck": "no new skill after {draws} draws",
    }
    templates_fr: ClassVar[dict[str, str]] = {
        "skill_draw_stuck": "aucune nouvelle compétence après {draws} tirages",
    }


def given_skills() -> tuple[str, ...]:
    """Arme blanche, Arme à feu, Esquive/Parade: every cyborg starts with them."""
    return tuple(key for key, skill in skills().items() if skill.given)


# — creation rolls —


def roll_characteristics(dice: Dice) -> tuple[dict[str, int], list[RollRecord]]:
    """Each characteristic: 4D6, the three best added (the dropped die stays in the record)."""
    # each roll is for its characteristic as the seed writes it (« dextérité »): a game term
    records = [roll("4d6kh3", dice, purpose=CHARACTERISTIC_NAMES[name])
               for name in CHARACTERISTICS]
    values = {name: record.total for name, record in zip(CHARACTERISTICS, records, strict=True)}
    return values, records


def roll_sante(dice: Dice) -> RollRecord:
    return roll("10d4+10", dice, purpose="santé")


def draw_skills(
    dice: Dice, held: tuple[str, ...] | None = None, count: int = DRAWN_SKILLS
) -> tuple[list[str], list[RollRecord]]:
    """Draw ``count`` new skills with (1D20 + 1D6) − 1, re-drawing a 1, 2 or 3 (the given
    skills) or a skill already held. Every draw is recorded, re-draws included."""
    owned = list(given_skills() if held is None else held)
    drawn: list[str] = []
    records: list[RollRecord] = []
    while len(drawn) < count:
        if len(records) >= MAX_DRAWS:
            raise SkillDrawError(draws=len(records))
        record = roll("1d20+1d6-1", dice, purpose=Purpose("skill drawn"))
        skill = skill_by_number(record.total)
        if record.total <= DRAWN_SKILLS:
            outcome = "re-draw: given skill"
        elif skill.key in owned:
            outcome = "re-draw: already held"
        else:
            outcome = skill.name
            owned.append(skill.key)
            drawn.append(skill.key)
        records.append(record.with_target(None, outcome))
    return drawn, records


@dataclass(frozen=True)
class Creation:
    sheet: Sheet
    records: tuple[RollRecord, ...]  # characteristics, santé, skill draws, in rolling order


def create_sheet(dice: Dice) -> Creation:
    """A new cyborg as the text builds it; the player then spreads the 80 % credit."""
    characteristics, records = roll_characteristics(dice)
    sante = roll_sante(dice)
    drawn, draws = draw_skills(dice)
    sheet = blank_sheet()
    sheet["characteristics"] = characteristics
    sheet["sante"] = sheet["sante_max"] = sante.total
    sheet["skills"].update({key: 0 for key in drawn})
    sheet["drawn"] = list(drawn)
    return Creation(sheet, (*records, sante, *draws))


def blank_sheet() -> Sheet:
    """A sheet before its rolls: average characteristics, the given skills, nothing drawn."""
    return {
        "characteristics": {name: 10 for name in CHARACTERISTICS},
        "sante": 35,
        "sante_max": 35,
        "resistance": ARMOUR_RESISTANCE,
        "skills": {key: 0 for key in given_skills()},
        "custom_skill": {"name": skills()[CUSTOM].name, "formula": list(skills()[CUSTOM].formula)},
        "weapons": list(starting_weapons()),
        # What the table writes back (rolled fields: the player's form carries them as is).
        "drawn": [], "missions": 0, "lost_limbs": [], "surgery_bonus": {}, "followers": 0,
        "fate": "active", "kind": "cyborg", "rank_picks": [],
    }


# — derived values —


def base_percentage(skill: Skill, characteristics: Mapping[str, int],
                    custom_formula: tuple[str, ...] | None = None) -> int:
    """The sum of the skill's characteristics (Repérage: a flat 35 %)."""
    formula = custom_formula if skill.custom and custom_formula else skill.formula
    return skill.base + sum(characteristics.get(name, 0) for name in formula)


def kind_of(sheet: Sheet) -> str:
    kind = sheet.get("kind", "cyborg") if isinstance(sheet, dict) else "cyborg"
    return kind if kind in KINDS else "cyborg"


def missions_of(sheet: Sheet) -> int:
    missions = sheet.get("missions", 0) if isinstance(sheet, dict) else 0
    return missions if _is_int(missions) and 0 <= missions <= MAX_MISSIONS else 0


def reached_ranks(sheet: Sheet) -> list[Any]:
    """The ranks a cyborg holds after its missions (§ (VII)); profiles hold none."""
    from app.rules.cyborg.progression import ranks  # progression imports this module's users

    if kind_of(sheet) != "cyborg":
        return []
    return [rank for rank in ranks() if rank.missions <= missions_of(sheet)]


def rank_allowance(sheet: Sheet) -> dict[str, int]:
    """What the reached ranks give, summed: % on every skill, +1 picks on characteristics,
    +1 on all six (Grand-Machine), skills drawn, melee and firearm weapons, resistance."""
    total = {"skills": 0, "picks": 0, "all": 0, "new_skills": 0, "melee": 0, "firearms": 0,
             "resistance": 0, "dark_jet": 0}
    for rank in reached_ranks(sheet):
        total["skills"] += rank.skills
        if rank.characteristics == "all":
            total["all"] += 1
        else:
            total["picks"] += int(rank.characteristics or 0)
        total["new_skills"] += rank.new_skills
        total["melee"] += rank.melee
        total["firearms"] += rank.firearms
        total["resistance"] += rank.resistance
        total["dark_jet"] = total["dark_jet"] or int(rank.dark_jet)
    return total


def limb_penalties(lost_limbs: Any) -> tuple[dict[str, int], dict[str, int]]:
    """A lost leg: −5 rapidité, −2 dextérité; a lost right arm: the left hand's −50 % on Arme
    blanche, Arme à feu and Esquive/Parade (Cyborg § (III) Calcul des dégâts, note 1)."""
    characteristics: dict[str, int] = {}
    skill_changes: dict[str, int] = {}
    for limb in lost_limbs if isinstance(lost_limbs, list) else []:
        if limb in ("right_leg", "left_leg"):
            characteristics["rapidite"] = characteristics.get("rapidite", 0) - 5
            characteristics["dexterite"] = characteristics.get("dexterite", 0) - 2
        elif limb == "right_arm":
            skill_changes = {key: -50 for key in ("arme_blanche", "arme_a_feu", "esquive_parade")}
    return characteristics, skill_changes


def effective_characteristics(sheet: Sheet) -> dict[str, int]:
    """The rolled characteristics plus the ranks' +1s, the surgeons' better limbs, minus a lost
    leg's penalties (never below 0)."""
    values = dict(_characteristics(sheet))
    allowance = rank_allowance(sheet)
    picks = sheet.get("rank_picks", []) if isinstance(sheet, dict) else []
    bonus = sheet.get("surgery_bonus", {}) if isinstance(sheet, dict) else {}
    penalties, _ = limb_penalties(sheet.get("lost_limbs") if isinstance(sheet, dict) else [])
    for name in list(values):
        values[name] += allowance["all"]
        values[name] += sum(1 for pick in (picks if isinstance(picks, list) else [])
                            if pick == name)
        if isinstance(bonus, dict) and _is_int(bonus.get(name)):
            values[name] += bonus[name]
        values[name] = max(0, values[name] + penalties.get(name, 0))
    return values


def skill_lines(sheet: Sheet) -> list[dict[str, Any]]:
    """Each held skill as the sheet shows it: base + allocated (+ rank bonus, − the left
    hand's penalty) = total."""
    characteristics = effective_characteristics(sheet)
    custom = _custom_formula(sheet)
    rank_bonus = rank_allowance(sheet)["skills"]
    _, hand = limb_penalties(sheet.get("lost_limbs") if isinstance(sheet, dict) else [])
    lines = []
    for key, allocated in _skills(sheet).items():
        skill = skills().get(key)
        if skill is None:
            continue
        base = base_percentage(skill, characteristics, custom)
        extra = allocated if isinstance(allocated, int) and not isinstance(allocated, bool) else 0
        name = _custom_name(sheet) if skill.custom else skill.name
        penalty = hand.get(key, 0)
        lines.append({"key": key, "name": name, "base": base, "allocated": extra,
                      "rank_bonus": rank_bonus, "penalty": penalty,
                      "total": max(0, base + extra + rank_bonus + penalty), "cap": skill.cap,
                      # Skill 25: the characteristics the player chose, shown beside its name.
                      "formula": list(custom or skill.formula) if skill.custom else None})
    return lines


def skill_value(sheet: Sheet, key: str) -> int:
    """The percentage a test uses; 0 for a skill not held."""
    return next((line["total"] for line in skill_lines(sheet) if line["key"] == key), 0)


def punch_factor(force: int) -> str:
    """Punches (Arme blanche, broyage): force 3–6 → B, 7–12 → C, 13–18 → D, beyond → E.

    Cyborg § (III) Combats / Déroulement leaves the scale beyond 18 to the GM ("E et plus");
    Tablée starts it at E and the GM may raise it with a custom weapon.
    """
    if force <= 6:
        return "B"
    if force <= 12:
        return "C"
    return "D" if force <= 18 else "E"


def sante_ceiling(sheet: Sheet) -> int:
    """The highest santé maximum a cyborg may have: 50 at creation, + 6 (the most a 1D6 gives)
    per mission accomplished (§ (VI) Régénération 2/)."""
    return SANTE_RANGE[1] + SANTE_PER_MISSION * missions_of(sheet)


def derived(sheet: Sheet, content: Content = NO_CONTENT) -> dict[str, Any]:
    from app.rules.cyborg.progression import rank_for

    lines = skill_lines(sheet)
    used = sum(line["allocated"] for line in lines)
    drawn = [line for line in lines if line["key"] not in given_skills()]
    allowance = rank_allowance(sheet)
    characteristics = effective_characteristics(sheet)
    picks = sheet.get("rank_picks", []) if isinstance(sheet, dict) else []
    resistance = sheet.get("resistance", 0) if isinstance(sheet, dict) else 0
    resistance = resistance if _is_int(resistance) else 0
    sante = sheet.get("sante", 0) if isinstance(sheet, dict) else 0
    rank = rank_for(missions_of(sheet)) if kind_of(sheet) == "cyborg" else None
    catalogue = all_weapons(content)
    weapon_keys = sheet.get("weapons", []) if isinstance(sheet, dict) else []
    weapon_lines = [
        {"key": key, "name": catalogue[key].name, "damage_type": catalogue[key].damage_type,
         "factor": catalogue[key].factor, "magazine": catalogue[key].magazine,
         "shots_per_turn": catalogue[key].shots_per_turn}
        for key in (weapon_keys if isinstance(weapon_keys, list) else [])
        if isinstance(key, str) and key in catalogue]
    return {
        "kind": kind_of(sheet),
        "characteristics": characteristics,
        "skills": lines,
        "credit_used": used,
        "credit_left": CREDIT - used,
        "skills_to_draw": max(0, DRAWN_SKILLS + allowance["new_skills"] - len(drawn))
        if kind_of(sheet) == "cyborg" else 0,
        "punch_factor": punch_factor(characteristics.get("force", 0)),
        "missions": missions_of(sheet),
        "rank": rank.name if rank else None,
        "rank_skill_bonus": allowance["skills"],
        "picks_left": max(0, allowance["picks"] - len(picks if isinstance(picks, list) else [])),
        "resistance": min(MAX_RESISTANCE, resistance + allowance["resistance"]),
        "dark_jet": bool(allowance["dark_jet"]),
        "sante_ceiling": sante_ceiling(sheet),
        "poison_resistance": min(MAX_RESISTANCE, max(0, sante // 5)) if _is_int(sante) else 0,
        "weapons": weapon_lines,
    }


# — validation —


def validate(sheet: Sheet, content: Content = NO_CONTENT) -> list[Problem]:
    """Every broken creation rule, each citing the seed section that sets it."""
    if not isinstance(sheet, dict):
        return [Problem("sheet", N_("The sheet must be an object."), RULE_HOUSE)]
    problems: list[Problem] = []
    unknown = set(sheet) - SHEET_KEYS
    if unknown:
        problems.append(Problem("sheet", N_("Unknown fields: %(names)s."), RULE_HOUSE,
                                {"names": ", ".join(sorted(unknown))}))
    if sheet.get("kind", "cyborg") not in KINDS:
        problems.append(Problem("kind", N_("Must be one of: %(names)s."), RULE_HOUSE,
                                {"names": ", ".join(KINDS)}))
    cyborg = kind_of(sheet) == "cyborg"
    problems += _characteristic_problems(sheet.get("characteristics"), cyborg)
    problems += _sante_problems(sheet, cyborg)
    resistance = sheet.get("resistance")
    if not _is_int(resistance) or not 0 <= resistance <= MAX_RESISTANCE:
        problems.append(Problem("resistance", N_("Must be between %(low)s and %(high)s."),
                                RULE_RESISTANCE, {"low": 0, "high": MAX_RESISTANCE}))
    problems += _skill_problems(sheet, cyborg)
    problems += _custom_problems(sheet.get("custom_skill"))
    problems += _weapon_problems(sheet, content, cyborg)
    problems += _progression_problems(sheet)
    return problems


def _characteristic_problems(values: Any, cyborg: bool = True) -> list[Problem]:
    if not isinstance(values, dict) or set(values) != set(CHARACTERISTICS):
        return [Problem("characteristics", N_("The six characteristics are needed."),
                        RULE_CHARACTERISTICS)]
    low, high = CHARACTERISTIC_RANGE if cyborg else PROFILE_CHARACTERISTIC_RANGE
    return [
        Problem(f"characteristics.{name}", N_("Must be between %(low)s and %(high)s."),
                RULE_CHARACTERISTICS, {"low": low, "high": high})
        for name in CHARACTERISTICS
        if not _is_int(values[name]) or not low <= values[name] <= high
    ]


def _sante_problems(sheet: Sheet, cyborg: bool = True) -> list[Problem]:
    problems = []
    low, high = (SANTE_RANGE[0], sante_ceiling(sheet)) if cyborg else PROFILE_SANTE_RANGE
    rule = RULE_SANTE if cyborg and high == SANTE_RANGE[1] else (
        RULE_SANTE + "; " + RULE_REGENERATION + " 2/" if cyborg else RULE_HOUSE)
    sante_max, sante = sheet.get("sante_max"), sheet.get("sante")
    if not _is_int(sante_max) or not low <= sante_max <= high:
        problems.append(Problem("sante_max", N_("Must be between %(low)s and %(high)s."),
                                rule, {"low": low, "high": high}))
    if not _is_int(sante) or sante < SANTE_FLOOR:
        problems.append(Problem("sante", N_("Must be a whole number."), RULE_SANTE))
    elif _is_int(sante_max) and sante > sante_max:
        problems.append(Problem("sante", N_("Santé cannot exceed its maximum."), RULE_SANTE))
    return problems


def _skill_problems(sheet: Sheet, cyborg: bool = True) -> list[Problem]:
    held = sheet.get("skills")
    if not isinstance(held, dict):
        return [Problem("skills", N_("Must be an object."), RULE_HOUSE)]
    problems = []
    unknown = [key for key in held if key not in skills()]
    if unknown:
        problems.append(Problem("skills", N_("Unknown skills: %(names)s."), RULE_SKILLS,
                                {"names": ", ".join(sorted(unknown))}))
    for key, allocated in held.items():
        if not _is_int(allocated) or allocated < 0:
            problems.append(Problem(f"skills.{key}", N_("Must be a whole number, 0 or more."),
                                    RULE_SKILLS))
    if not cyborg:  # a GM profile: any skills, any percentages (Cyborg § (IV) Les extraterrestres)
        return problems
    missing = [key for key in given_skills() if key not in held]
    if missing:
        problems.append(Problem("skills", N_("Every cyborg has %(names)s."), RULE_SKILLS,
                                {"names": ", ".join(skills()[key].name for key in missing)}))
    drawn = [key for key in held if key in skills() and key not in given_skills()]
    expected = DRAWN_SKILLS + rank_allowance(sheet)["new_skills"]
    if len(drawn) not in (0, expected) and not (len(drawn) == DRAWN_SKILLS
                                                 and "drawn" not in sheet):
        problems.append(Problem("skills", N_("A cyborg draws exactly %(n)s more skills."),
                                RULE_SKILLS, {"n": expected}))
    rolled = sheet.get("drawn")
    # An empty list: a sheet typed by the GM, or from before the draws were recorded.
    if rolled not in (None, []) and not problems and (
            not isinstance(rolled, list) or sorted(map(str, rolled)) != sorted(drawn)):
        problems.append(Problem("skills", N_("The drawn skills are the ones the dice gave: "
                                             "%(names)s."), RULE_SKILLS,
                                {"names": ", ".join(skills()[key].name for key in rolled
                                                    if key in skills())
                                 if isinstance(rolled, list) else "?"}))
    if not problems:
        problems += _credit_problems(sheet)
    return problems


def _credit_problems(sheet: Sheet) -> list[Problem]:
    problems = []
    lines = skill_lines(sheet)
    used = sum(line["allocated"] for line in lines)
    if used > CREDIT:
        problems.append(Problem("skills", N_("The credit to spread is %(n)s %% at most."),
                                RULE_SKILLS, {"n": CREDIT, "used": used}))
    rolled = _characteristics(sheet)
    custom = _custom_formula(sheet)
    for line in lines:
        # The cap binds what creation gives (the rolled characteristics' base + credit): the
        # ranks' and the surgeons' bonuses come on top (docs/games/cyborg.md).
        created = base_percentage(skills()[line["key"]], rolled, custom) + line["allocated"]
        if line["cap"] is not None and created > line["cap"]:
            problems.append(Problem(
                f"skills.{line['key']}",
                N_("%(skill)s: base and credit together are %(n)s %% at most at creation "
                   "(here %(base)s %% + %(credit)s %% = %(total)s %%); ranks and surgery may "
                   "raise it later."), RULE_SKILLS + " (N.B.)",
                {"skill": line["name"], "n": line["cap"], "total": created,
                 "base": created - line["allocated"], "credit": line["allocated"]}))
    return problems


def _custom_problems(custom: Any) -> list[Problem]:
    rule = RULE_SKILLS + " (25 Au choix du joueur)"
    if not isinstance(custom, dict) or set(custom) != {"name", "formula"}:
        return [Problem("custom_skill", N_("The player's own skill has a name and a formula."),
                        rule)]
    problems = []
    name = custom["name"]
    if not isinstance(name, str) or not 0 < len(name.strip()) <= MAX_CUSTOM_NAME:
        problems.append(Problem("custom_skill.name", N_("A name has 1 to %(n)s characters."),
                                rule, {"n": MAX_CUSTOM_NAME}))
    formula = custom["formula"]
    if (not isinstance(formula, list) or len(formula) != 3
            or any(part not in CHARACTERISTICS for part in formula)):
        problems.append(Problem("custom_skill.formula", N_("Pick three characteristics."), rule))
    return problems


def _weapon_problems(sheet: Sheet, content: Content = NO_CONTENT,
                     cyborg: bool = True) -> list[Problem]:
    rule = "Cyborg § (III) Combats / Catalogue des armes"
    keys = sheet.get("weapons")
    if not isinstance(keys, list) or not all(isinstance(key, str) for key in keys):
        return [Problem("weapons", N_("Must be a list."), RULE_HOUSE)]
    catalogue = all_weapons(content)
    unknown = [key for key in keys if key not in catalogue]
    if unknown:
        return [Problem("weapons", N_("Unknown weapons: %(names)s."), rule,
                        {"names": ", ".join(unknown)})]
    if len(set(keys)) != len(keys):
        return [Problem("weapons", N_("Each weapon once."), RULE_HOUSE)]
    if not cyborg:
        return []
    # The sheet's armament (RULE_SHEET), then one more melee / firearm per rank that says so.
    allowance = rank_allowance(sheet)
    extra = [catalogue[key] for key in keys if key not in starting_weapons()]
    problems = []
    for kind, limit in (("melee", allowance["melee"]), ("ranged", allowance["firearms"])):
        if sum(weapon.kind == kind for weapon in extra) > limit:
            problems.append(Problem("weapons", N_("Beyond the sheet's three weapons, your "
                                                  "ranks allow %(n)s more of this kind "
                                                  "(%(kind)s)."), RULE_PROGRESSION,
                                    {"n": limit, "kind": kind}))
    return problems


def _progression_problems(sheet: Sheet) -> list[Problem]:
    problems = []
    missions = sheet.get("missions", 0)
    if not _is_int(missions) or not 0 <= missions <= MAX_MISSIONS:
        problems.append(Problem("missions", N_("Must be between %(low)s and %(high)s."),
                                RULE_PROGRESSION, {"low": 0, "high": MAX_MISSIONS}))
    picks = sheet.get("rank_picks", [])
    if not isinstance(picks, list) or any(pick not in CHARACTERISTICS for pick in picks):
        problems.append(Problem("rank_picks", N_("Pick characteristics by name."),
                                RULE_PROGRESSION))
    elif len(picks) > rank_allowance(sheet)["picks"]:
        problems.append(Problem("rank_picks", N_("Your ranks give +1 to %(n)s characteristics "
                                                 "so far."), RULE_PROGRESSION,
                                {"n": rank_allowance(sheet)["picks"]}))
    lost = sheet.get("lost_limbs", [])
    if not isinstance(lost, list) or any(limb not in LIMBS for limb in lost) \
            or len(set(lost)) != len(lost):
        problems.append(Problem("lost_limbs", N_("Limbs are among: %(names)s."),
                                RULE_REGENERATION + " 3/", {"names": ", ".join(LIMBS)}))
    bonus = sheet.get("surgery_bonus", {})
    if not isinstance(bonus, dict) or any(name not in ("force", "rapidite") or not _is_int(v)
                                          or not 0 <= v <= 4 for name, v in bonus.items()):
        problems.append(Problem("surgery_bonus", N_("A better limb gives +1 force (arm) or "
                                                    "+1 rapidité (leg)."),
                                RULE_REGENERATION + " 3/"))
    followers = sheet.get("followers", 0)
    if not _is_int(followers) or not 0 <= followers <= 6:
        problems.append(Problem("followers", N_("Must be between %(low)s and %(high)s."),
                                RULE_PROGRESSION, {"low": 0, "high": 6}))
    if sheet.get("fate", "active") not in FATES:
        problems.append(Problem("fate", N_("Must be one of: %(names)s."), RULE_HOUSE,
                                {"names": ", ".join(FATES)}))
    if not isinstance(sheet.get("humanoid", True), bool):
        problems.append(Problem("humanoid", N_("Must be yes or no."), RULE_HOUSE))
    locations_ = sheet.get("locations")
    if locations_ is not None and (not isinstance(locations_, list) or len(locations_) != 6
                                   or not all(isinstance(n, str) and 0 < len(n.strip()) <= 40
                                              for n in locations_)):
        problems.append(Problem("locations", N_("Six location names (1 to 6), each 1 to 40 "
                                                "characters."),
                                "Cyborg § (III) Combats / Calcul des dégâts (non-humanoïdes)"))
    return problems


# — tolerant readers: derived values are shown while a sheet is still being edited —


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _characteristics(sheet: Sheet) -> dict[str, int]:
    values = sheet.get("characteristics") if isinstance(sheet, dict) else None
    if not isinstance(values, dict):
        return {}
    return {name: values[name] for name in CHARACTERISTICS if _is_int(values.get(name))}


def _skills(sheet: Sheet) -> dict[str, Any]:
    held = sheet.get("skills") if isinstance(sheet, dict) else None
    return held if isinstance(held, dict) else {}


def _custom_formula(sheet: Sheet) -> tuple[str, ...] | None:
    custom = sheet.get("custom_skill") if isinstance(sheet, dict) else None
    formula = custom.get("formula") if isinstance(custom, dict) else None
    if isinstance(formula, list) and len(formula) == 3 and all(f in CHARACTERISTICS
                                                                for f in formula):
        return tuple(formula)
    return None


def _custom_name(sheet: Sheet) -> str:
    custom = sheet.get("custom_skill")
    name = custom.get("name") if isinstance(custom, dict) else None
    return name if isinstance(name, str) and name.strip() else skills()[CUSTOM].name
