"""The fighter's sheet: creation, validation and the values derived from it.

A sheet is plain JSON data::

    {"kind": "pj",                               # "pnj" (a GM profile) or "hommes_de_main"
     "characteristics": {"force": 3, …},         # the eight, 1..4, 18 points (PJ)
     "skills": {"conduite": 6, …},               # 10 + Intelligence x 5 points, 6 max each
     "talents": ["transfert_d_energie", …],      # two rolled (D10 x D6) or one chosen
     "talent_mode": "random",                    # or "chosen"
     "arts": ["karate"], "art_talents": {"karate": "vivacite_du_chat"},
     "techniques": ["oi_zuki", …],               # known, standard ones excluded
     "sante": 26, "energie": 32, "furie": 0,     # current values (maxima are derived)
     "armour": "blouson_cuir", "weapons": ["pistolet_9mm"], "equipment": "…",
     "wounds": ["tete", …],                      # blessures graves still open
     "members": 4,                               # hommes de main: the group's size
     "quadruped": False}                         # an animal on four legs (GM profile)

Sources: « Conception du personnage » (every step) and its « Exemple de création » (Jack).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.rules.dice import Dice, RollRecord
from app.rules.system import N_, NO_CONTENT, Content, Problem, Sheet
from app.rules.tiamat.content import (
    ARMOURS,
    ARTS,
    CHAR_BUDGET,
    CHAR_MAX,
    CHAR_MIN,
    CHARACTERISTICS,
    RULE_ARTS,
    RULE_CHARS,
    RULE_DERIVED,
    RULE_SKILLS,
    RULE_TALENTS,
    RULE_TECHNIQUES,
    SKILL_CAP,
    SKILL_NAMES,
    STARTING_TECHNIQUES,
    TALENT_NAMES,
    actions_for,
    all_weapons,
    learnable,
    prerequisites_met,
    talent_from_dice,
    techniques,
)

KINDS = ("pj", "pnj", "hommes_de_main")
PROFILE_CHAR_MAX = 10  # a GM profile (boss, animal) is not bound by the creation budget
MEMBERS = (2, 6)  # « Un groupe d'hommes de mains se compose de deux à six individus »
RULE_MOVE = "Tiamat § Conception du personnage / Vitesse de déplacement"
RULE_HENCHMEN = "Tiamat § Combat « Beat them all » / hommes de mains"
RULE_GEAR = "Tiamat § Armes (maison)"  # no weapon table in the text: house gear
RULE_KENDO = "Tiamat § Conception du personnage / Art martial / Kendo"
RULE_LOOKS = "Tiamat § Conception du personnage / Apparence et équipement"
# « préciser … son sexe »: kept on the sheet because Coup dans l'entrejambe asks « La cible
# doit être de sexe masculin » (house: not said = the GM's call, allowed).
SEXES = {"": "non précisé", "masculin": "masculin", "feminin": "féminin"}
WOUND_LOCATIONS = ("tete", "torse", "bras_droit", "bras_gauche", "jambe_droite",
                   "jambe_gauche")
MAX_TALENT_DRAWS = 100


def _int(value: Any, default: int = 0) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def blank_sheet() -> Sheet:
    return {"kind": "pj", "characteristics": dict.fromkeys(CHARACTERISTICS, 2) | {
                "force": 3, "volonte": 3},
            "skills": {}, "talents": [], "talent_mode": "random", "arts": [],
            "art_talents": {}, "techniques": [], "sante": None, "energie": None, "furie": 0,
            "armour": "aucune", "weapons": [], "equipment": "", "wounds": [], "sexe": ""}


def roll_talents(dice: Dice) -> tuple[list[str], list[RollRecord]]:
    """« Déterminer ses talents au hasard »: 1D10 and 1D6 twice; « le même résultat sur les
    deux jets » is rolled again. The table repeats its rows (D10 1–3, 4–6, 7–9 give the same
    talents), so the same result is the same talent, not only the same cell: two cells naming
    one talent are rolled again too (docs/rules-notes.md § Tiamat / Creation)."""
    from app.rules import notation

    talents: list[str] = []
    records: list[RollRecord] = []
    for _ in range(MAX_TALENT_DRAWS):
        if len(talents) == 2:
            break
        d10 = notation.roll("1d10", dice, purpose="talent (D10)")
        d6 = notation.roll("1d6", dice, purpose="talent (D6)")
        outcome = talent_from_dice(d10.total, d6.total)
        duplicate = outcome in talents
        records += [d10, d6.with_target(None, "relancé" if duplicate
                                        else TALENT_NAMES[outcome])]
        if not duplicate:
            talents.append(outcome)
    return talents, records


def rolls_talents(sheet: Mapping[str, Any]) -> bool:
    """The dice choose the talents of a player character who left them to chance; one
    chosen talent (« un seul au choix ») and a GM's profile are typed."""
    return sheet.get("kind", "pj") == "pj" and sheet.get("talent_mode") != "chosen"


def roll_creation(sheet: Mapping[str, Any], dice: Dice) -> tuple[Sheet, list[RollRecord]]:
    """The sheet as its player built it, with what the dice decide at creation rolled into
    it: the two talents (« A la création d'un personnage, deux talents sont tirés
    aléatoirement »), unless one was chosen."""
    if not rolls_talents(sheet):
        return dict(sheet), []
    talents, records = roll_talents(dice)
    return {**sheet, "talents": talents}, records


def characteristics(sheet: Mapping[str, Any]) -> dict[str, int]:
    values = sheet.get("characteristics") or {}
    return {name: max(1, _int(values.get(name), 1)) for name in CHARACTERISTICS}


def all_talents(sheet: Mapping[str, Any]) -> list[str]:
    found = [t for t in sheet.get("talents") or [] if t in TALENT_NAMES]
    for art in sheet.get("arts") or []:
        talent = (sheet.get("art_talents") or {}).get(art) or (
            ARTS[art].talent if art in ARTS else None)
        if talent in TALENT_NAMES and talent not in found:
            found.append(talent)
    return found


def derived(sheet: Mapping[str, Any], content: Content = NO_CONTENT) -> dict[str, Any]:
    """« Points de santé = Endurance x 10 + Force + Volonté », « énergie = Volonté x 10 +
    Intelligence », « furie maximum = Tempérament x 2 », « Initiative = Rapidité »,
    « Action » by techniques known, « Défense instinctive = Action - 1 (1 minimum) »,
    « Déplacement = 4 + Rapidité x 2 », « Course = Rapidité x Action x 6 »."""
    c = characteristics(sheet)
    known = [t for t in sheet.get("techniques") or [] if t in techniques()
             and not techniques()[t].standard]
    actions = actions_for(len(known))
    skills = sheet.get("skills") or {}
    armour = ARMOURS.get(sheet.get("armour") or "aucune", ARMOURS["aucune"])
    return {
        "sante_max": c["endurance"] * 10 + c["force"] + c["volonte"],
        "energie_max": c["volonte"] * 10 + c["intelligence"],
        "furie_max": c["temperament"] * 2,
        "initiative": c["rapidite"],
        "actions": actions,
        "defense_instinctive": max(1, actions - 1),
        "skill_budget": 10 + c["intelligence"] * 5,
        "skill_points": sum(_int(v) for v in skills.values()),
        "char_points": sum(c.values()),
        "move": 4 + c["rapidite"] * 2,
        "run": c["rapidite"] * actions * 6,
        "protection": armour.protection,
        "talents": all_talents(sheet),
        "technique_count": len(known),
        "learnable": learnable(set(known), list(sheet.get("arts") or [])),
    }


def validate(sheet: Mapping[str, Any], content: Content = NO_CONTENT) -> list[Problem]:
    problems: list[Problem] = []
    kind = sheet.get("kind", "pj")
    if kind not in KINDS:
        problems.append(Problem("kind", N_("Unknown kind of sheet."), RULE_CHARS))
        kind = "pj"
    pj = kind == "pj"
    values = sheet.get("characteristics") or {}
    high = CHAR_MAX if pj else PROFILE_CHAR_MAX
    for name in CHARACTERISTICS:
        value = values.get(name)
        if not isinstance(value, int) or isinstance(value, bool) or not CHAR_MIN <= value <= high:
            problems.append(Problem(f"characteristics.{name}",
                                    N_("A characteristic is between %(low)s and %(high)s."),
                                    RULE_CHARS, {"low": CHAR_MIN, "high": high}))
    spent = sum(_int(values.get(name)) for name in CHARACTERISTICS)
    if pj and spent != CHAR_BUDGET:
        problems.append(Problem("characteristics", N_(
            "A player character shares %(budget)s points among the characteristics "
            "(%(spent)s now)."), RULE_CHARS, {"budget": CHAR_BUDGET, "spent": spent}))
    info = derived(sheet)
    skills = sheet.get("skills") or {}
    for key, value in skills.items():
        if key not in SKILL_NAMES:
            problems.append(Problem(f"skills.{key}", N_("Unknown skill."), RULE_SKILLS))
        elif not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= (
                SKILL_CAP if pj else 20):
            problems.append(Problem(f"skills.{key}", N_(
                "A skill has between 0 and %(cap)s points at creation."), RULE_SKILLS,
                {"cap": SKILL_CAP}))
    if pj and info["skill_points"] > info["skill_budget"]:
        problems.append(Problem("skills", N_(
            "%(spent)s skill points spent for a budget of %(budget)s (10 + Intelligence x 5)."),
            RULE_SKILLS, {"spent": info["skill_points"], "budget": info["skill_budget"]}))
    talents = sheet.get("talents") or []
    for talent in talents:
        if talent not in TALENT_NAMES:
            problems.append(Problem("talents", N_("Unknown talent."), RULE_TALENTS))
    if len(set(talents)) != len(talents):
        problems.append(Problem("talents", N_("The same talent twice: roll again."),
                                RULE_TALENTS))
    limit = 1 if sheet.get("talent_mode") == "chosen" else 2
    if pj and len(talents) > limit:
        problems.append(Problem("talents", N_(
            "Two talents rolled at random, or a single one chosen."), RULE_TALENTS))
    arts = sheet.get("arts") or []
    for art in arts:
        if art not in ARTS:
            problems.append(Problem("arts", N_("Unknown martial art."), RULE_ARTS))
    if pj and not arts:
        problems.append(Problem("arts", N_("A player character practises a martial art."),
                                RULE_ARTS))
    held = set(talents)
    for art in [a for a in arts if a in ARTS]:
        chosen = (sheet.get("art_talents") or {}).get(art) or ARTS[art].talent
        if chosen not in TALENT_NAMES:
            problems.append(Problem(f"art_talents.{art}", N_("Unknown talent."), RULE_TALENTS))
        elif chosen != ARTS[art].talent and ARTS[art].talent not in held:
            problems.append(Problem(f"art_talents.{art}", N_(
                "The art grants its own talent; another one only if it is already held."),
                RULE_ARTS))
        elif chosen in held and chosen != ARTS[art].talent:
            problems.append(Problem(f"art_talents.{art}", N_(
                "The art's talent replaces one already held by another one."), RULE_ARTS))
        held.add(chosen)
    known = sheet.get("techniques") or []
    catalogue = techniques()
    known_set = {t for t in known if t in catalogue}
    for key in known:
        technique = catalogue.get(key)
        if technique is None:
            problems.append(Problem("techniques", N_("Unknown technique."), RULE_TECHNIQUES))
            continue
        if technique.animal and pj:
            problems.append(Problem("techniques", N_(
                "%(name)s is an animal's technique."), RULE_TECHNIQUES,
                {"name": technique.name}))
            continue
        if technique.standard:
            problems.append(Problem("techniques", N_(
                "Standard techniques are known by everyone; they are not learnt."),
                RULE_TECHNIQUES))
        elif pj and not set(technique.arts) & set(arts):
            problems.append(Problem("techniques", N_(
                "%(name)s is not in the list of the character's martial arts."),
                RULE_TECHNIQUES, {"name": technique.name}))
        if not prerequisites_met(technique, known_set - {key}):
            problems.append(Problem("techniques", N_(
                "%(name)s needs its prerequisites first."), RULE_TECHNIQUES,
                {"name": technique.name}))
    if len(set(known)) != len(known):
        problems.append(Problem("techniques", N_("A technique listed twice."), RULE_TECHNIQUES))
    for key, high_key in (("sante", "sante_max"), ("energie", "energie_max"),
                          ("furie", "furie_max")):
        value = sheet.get(key)
        if value is None and key != "furie":
            continue  # a new sheet starts at its maximum
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= info[
                high_key]:
            problems.append(Problem(key, N_("Between 0 and the maximum (%(high)s)."),
                                    RULE_DERIVED, {"high": info[high_key]}))
    if (sheet.get("armour") or "aucune") not in ARMOURS:
        problems.append(Problem("armour", N_("Unknown armour."), RULE_GEAR))
    if (sheet.get("sexe") or "") not in SEXES:
        problems.append(Problem("sexe", N_("Masculin, féminin or not said."), RULE_LOOKS))
    for weapon in sheet.get("weapons") or []:
        if weapon not in all_weapons(content):
            problems.append(Problem("weapons", N_("Unknown weapon."), RULE_GEAR))
    if pj and "kendo" in arts and not any(
            getattr(all_weapons(content).get(w), "kendo", False)
            for w in sheet.get("weapons") or []):
        # « il commence ses aventures avec un Bokken ou un Katana dans son équipement »
        problems.append(Problem("weapons", N_(
            "A Kendo fighter starts with a Bokken or a Katana among the weapons."), RULE_KENDO))
    for wound in sheet.get("wounds") or []:
        if wound not in WOUND_LOCATIONS:
            problems.append(Problem("wounds", N_("Unknown location."), RULE_DERIVED))
    if kind == "hommes_de_main":
        members = sheet.get("members")
        if not isinstance(members, int) or not MEMBERS[0] <= members <= MEMBERS[1]:
            problems.append(Problem("members", N_(
                "A group of henchmen has 2 to 6 members."), RULE_HENCHMEN))
    return problems


def validate_change(before: Mapping[str, Any], after: Mapping[str, Any],
                    content: Content = NO_CONTENT) -> list[Problem]:
    """What a player may not do alone: start with more than four techniques, learn new ones
    (« trouver un maître, emprunter la voie d'un nouvel art martial »: a GM-approved step),
    take up a new art, or change the characteristics once set."""
    problems: list[Problem] = []
    new = not (before.get("techniques") or before.get("arts"))
    added = [t for t in after.get("techniques") or [] if t not in (
        before.get("techniques") or [])]
    if new and len(after.get("techniques") or []) > STARTING_TECHNIQUES:
        problems.append(Problem("techniques", N_(
            "A new fighter starts with %(n)s techniques."), RULE_TECHNIQUES,
            {"n": STARTING_TECHNIQUES}))
    elif not new and added:
        problems.append(Problem("techniques", N_(
            "Learning a new technique needs the GM's approval: ask the GM to add it."),
            RULE_TECHNIQUES))
    if not new and list(after.get("arts") or []) != list(before.get("arts") or []):
        problems.append(Problem("arts", N_(
            "Taking up a new martial art needs the GM's approval."), RULE_ARTS))
    if not new and dict(after.get("characteristics") or {}) != dict(
            before.get("characteristics") or {}):
        problems.append(Problem("characteristics", N_(
            "Characteristics are set at creation; only the GM changes them."), RULE_CHARS))
    return problems


def jack() -> Sheet:
    """« Exemple de création d'un personnage »: Jack, the American adventurer and karateka."""
    return {"kind": "pj",
            "characteristics": {"force": 3, "endurance": 2, "habilete": 2, "rapidite": 2,
                                "perception": 2, "intelligence": 2, "temperament": 2,
                                "volonte": 3},
            "skills": {"acrobatie": 2, "conduite": 6, "course": 1, "infiltration": 1,
                       "informatique": 3, "persuasion": 2, "langue": 2, "legende": 3},
            "talents": ["transfert_d_energie", "sursaut_d_energie"], "talent_mode": "random",
            "arts": ["karate"], "art_talents": {"karate": "vivacite_du_chat"},
            "techniques": ["oi_zuki", "mae_geri", "age_uke", "gedan_barai"],
            "sante": 26, "energie": 32, "furie": 0, "armour": "blouson_cuir",
            "weapons": ["pistolet_9mm"],
            "equipment": "Chapeau, sac de voyage, trousse de secours, 2000 dollars, kimono de "
                         "karaté avec ceinture noire. Langues : anglais, japonais, russe.",
            "wounds": [], "sexe": "masculin"}  # « Jack est un homme d'action »
