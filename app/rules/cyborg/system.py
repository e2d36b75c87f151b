"""Cyborg Anti-Alien as a Tablée game system (``shared/seeds/001_616c5a18be6336a5.txt``).

The sheet: ``sheet.py`` (creation rolls, validation, derived values); the table:
``match.py`` (state, fold, forms, view, between matches), ``match_actions.py`` (deciding),
``match_chase.py`` (the chase actions) and ``match_common.py`` (what the handlers share);
the ready characters: ``profiles.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.rules.cyborg import match, match_actions, state_check
from app.rules.cyborg import odds as cyborg_odds
from app.rules.cyborg import sheet_rolls as rolls
from app.rules.cyborg.chases import all_vehicles
from app.rules.cyborg.content import (
    CHARACTERISTICS,
    DAMAGE_TYPES,
    FACTORS,
    GM_PREFIX,
    LIMBS,
    all_weapons,
    skills,
    weapons,
)
from app.rules.cyborg.profiles import CYBORGS, GM_PROFILES
from app.rules.cyborg.sheet import (
    FATES,
    MAX_CUSTOM_NAME,
    blank_sheet,
    create_sheet,
    derived,
    validate,
)
from app.rules.dice import Dice, RollRecord
from app.rules.system import (
    N_,
    NO_CONTENT,
    CompendiumEntry,
    CompendiumSection,
    Content,
    ContentField,
    ContentKind,
    DemoCharacter,
    Problem,
    Sheet,
)

# Game terms keep their French names in both languages (STYLE.md).
CHARACTERISTIC_NAMES = {"force": "force", "constitution": "constitution",
                        "dexterite": "dextérité", "rapidite": "rapidité",
                        "volonte": "volonté", "intelligence": "intelligence"}
RULE_WEAPONS = "Cyborg § (III) Combats / Catalogue des armes"
RULE_VEHICLES = "Cyborg § (IV) Poursuites / Tableau des véhicules"
# The damage types by their French names (game terms, § (III) Calcul des dégâts), not keys.
DAMAGE_NAMES = {"dechirure": "déchirure", "perforation": "perforation",
                "explosion": "explosion", "brulure": "brûlure",
                "etranglement": "étranglement/suffocation", "etouffement": "étouffement",
                "broyage": "broyage", "empoisonnement": "empoisonnement/infection"}
DAMAGE_CHOICES = tuple((key, DAMAGE_NAMES[key]) for key in DAMAGE_TYPES)
FACTOR_CHOICES = tuple((letter, letter) for letter in FACTORS)


def _weapon_kind(key: str, label: str, ranged: bool) -> ContentKind:
    fields = [ContentField("damage_type", N_("Damage type"), "choice", choices=DAMAGE_CHOICES),
              ContentField("factor", N_("Damage factor"), "choice", choices=FACTOR_CHOICES),
              ContentField("two_handed", N_("Two hands"), "bool", required=False),
              ContentField("crushes", N_("Broyage that crushes the whole target (steamroller, "
                                         "rock fall): death at 0 santé"), "bool",
                           required=False)]
    if ranged:
        fields += [ContentField("magazine", N_("Rounds in the magazine (0: none)"), "int",
                                low=0, high=200, required=False),
                   ContentField("shots_per_turn", N_("Shots a turn (5: automatic)"), "int",
                                low=1, high=5),
                   ContentField("localised_burn", N_("A burn that localises (laser, acid)"),
                                "bool", required=False)]
    return ContentKind(key, label, tuple(fields), RULE_WEAPONS)


def _vehicle_kind(key: str, label: str) -> ContentKind:
    return ContentKind(key, label, (
        ContentField("resistance", N_("Resistance"), "int", low=0, high=10),
        ContentField("structure", N_("Structure"), "int", low=1, high=500),
        ContentField("safety", N_("Safety"), "int", low=0, high=6),
    ), RULE_VEHICLES)


def _int(value: str) -> int | str:
    text = (value or "").strip()
    try:
        return int(text)
    except ValueError:
        return text


class CyborgSystem:
    key = "cyborg"
    name_fr = "Cyborg Anti-Alien"
    name_en = "Cyborg Anti-Alien"
    seed_file = "001_616c5a18be6336a5.txt"
    summary = N_("Cyborgs rolled with the dice hunt aliens: d100 skills, a damage table by "
                 "weapon and resistance, wounds, poisons and chases.")
    uses_board = True
    # The damage types as the text writes them (« déchirure », never the key « dechirure »).
    damage_names = DAMAGE_NAMES
    # A board square is a metre (docs/games/cyborg.md); a room and its corridors.
    board_defaults = {"unit": "sq", "width": 40, "height": 30}
    content_kinds = (
        _weapon_kind("weapon_ranged", N_("Ranged weapons"), True),
        _weapon_kind("weapon_melee", N_("Melee weapons"), False),
        _vehicle_kind("vehicle_ground", N_("Ground and water vehicles")),
        _vehicle_kind("vehicle_air", N_("Air vehicles")),
    )
    # What the dice gave at creation (and what the table writes back): a player may not
    # change them; the GM may (seed "(III) Le cyborg", Cyborg § (I), § (II), § (VI), § (VII)).
    rolled_fields = ("characteristics", "sante", "sante_max", "resistance", "drawn", "missions",
                     "lost_limbs", "surgery_bonus", "followers", "fate", "kind")

    def new_sheet(self) -> Sheet:
        return blank_sheet()

    # What a player may set before the dice: skill 25's name and formula (used if the draw
    # gives it). The rest waits for them: « Chacun répartit ensuite … un crédit de 80 % »
    # spreads over the skills the dice drew, on the edit page (Cyborg § (II)).
    chosen_before_rolls = ("custom_skill",)

    def roll_sheet(self, dice: Dice, chosen: Sheet) -> tuple[Sheet, list[RollRecord]]:
        """The creation rolls: 4D6 keep 3 six times, 10D4 + 10, three skills drawn."""
        creation = create_sheet(dice)
        kept = {key: chosen[key] for key in self.chosen_before_rolls if key in chosen}
        return {**creation.sheet, **kept}, list(creation.records)

    def validate_sheet(self, sheet: Sheet, content: Content = NO_CONTENT) -> list[Problem]:
        return validate(sheet, content)

    def derived(self, sheet: Sheet, content: Content = NO_CONTENT) -> dict[str, Any]:
        return derived(sheet, content)

    def sheet_from_form(self, form: Mapping[str, str]) -> Sheet:
        """Fields: ``char_<name>``, ``sante``, ``sante_max``, ``resistance``, ``skill_<key>``
        (the credit allocated; present = held), ``custom_name``, ``custom_formula_<1..3>``,
        ``weapon_<n>``, ``drawn`` / ``lost_limbs`` / ``rank_picks`` (comma lists),
        ``missions``, ``followers``, ``fate``, ``kind``, ``humanoid``, ``location_<1..6>``,
        ``surgery_<name>``."""
        sheet: Sheet = {
            "characteristics": {name: _int(form.get(f"char_{name}", ""))
                                for name in CHARACTERISTICS},
            "sante": _int(form.get("sante", "")), "sante_max": _int(form.get("sante_max", "")),
            "resistance": _int(form.get("resistance", "")),
            "skills": {key: _int(form[f"skill_{key}"]) if (form[f"skill_{key}"] or "").strip()
                       else 0 for key in skills() if f"skill_{key}" in form},
            "custom_skill": {"name": (form.get("custom_name", "") or "").strip()[
                :MAX_CUSTOM_NAME * 2],
                             "formula": [form.get(f"custom_formula_{n}", "") for n in (1, 2, 3)]},
            "weapons": [form[f"weapon_{n}"].strip() for n in range(12)
                        if (form.get(f"weapon_{n}") or "").strip()],
        }
        extra = (form.get("weapon_extra") or "").strip()
        if extra:  # a GM's weapon, by the key shown on the campaign's content page
            sheet["weapons"].append(extra if extra.startswith(GM_PREFIX) else GM_PREFIX + extra)
        for key in ("drawn", "lost_limbs", "rank_picks"):
            if key in form:
                sheet[key] = [part.strip() for part in form[key].split(",") if part.strip()]
        # The page shows skills and limbs by name, one checkbox each (``drawn_<key>``), and
        # posts the list as it was (``drawn``): what stays checked keeps its order.
        for key, choices in (("drawn", [key for key, _name in self.skill_choices()]),
                             ("lost_limbs", list(LIMBS))):
            if f"{key}_shown" in form:
                checked = {value for value in choices
                           if form.get(f"{key}_{value}") in ("on", "true", "1", "yes")}
                before = [value for value in sheet.get(key, []) if value in checked]
                sheet[key] = before + [value for value in choices
                                       if value in checked and value not in before]
        for key in ("missions", "followers"):
            if key in form:
                sheet[key] = _int(form[key])
        for key in ("fate", "kind"):
            if key in form:
                sheet[key] = form[key].strip()
        if "humanoid_shown" in form or "humanoid" in form:
            sheet["humanoid"] = form.get("humanoid") in ("on", "true", "1", "yes")
        if form.get("skill_add") in skills():
            sheet["skills"].setdefault(form["skill_add"], 0)
        if any(f"location_{n}" in form for n in range(1, 7)):
            names = [(form.get(f"location_{n}") or "").strip() for n in range(1, 7)]
            if any(names):
                sheet["locations"] = names
        bonus = {name: _int(form[f"surgery_{name}"]) for name in ("force", "rapidite")
                 if (form.get(f"surgery_{name}") or "").strip() not in ("", "0")}
        if bonus or any(f"surgery_{name}" in form for name in ("force", "rapidite")):
            sheet["surgery_bonus"] = bonus
        return sheet

    # — for the templates (reached through the ``all_systems`` global) —

    def weapon_choices(self) -> list[tuple[str, str, str]]:
        """The catalogue as (key, name, kind), printed order (§ (III) Catalogue des armes)."""
        return [(key, weapon.name, weapon.kind) for key, weapon in weapons().items()]

    def compendium(self, content: Content = NO_CONTENT) -> list[CompendiumSection]:
        """Weapons with their figures (the campaign's own marked), vehicles, and the skills
        with their base (Cyborg § (III) Catalogue des armes, § (IV) Poursuites, § (II))."""
        skill_names = {key: skill.name for key, skill in skills().items()}
        weapon_entries = tuple(CompendiumEntry(weapon.name, (
            (N_("Weapon type"), N_("melee") if weapon.kind == "melee" else N_("ranged")),
            (N_("Skill"), skill_names.get(weapon.skill, weapon.skill)),
            (N_("Damage"), DAMAGE_NAMES.get(weapon.damage_type, weapon.damage_type)),
            (N_("Damage factor"), weapon.factor),
            (N_("Magazine"), weapon.magazine),
            (N_("Shots a turn"), weapon.shots_per_turn)), own=key.startswith(GM_PREFIX))
            for key, weapon in all_weapons(content).items())
        vehicle_entries = tuple(CompendiumEntry(vehicle.name, (
            (N_("Driving skill"), skill_names.get(vehicle.skill, vehicle.skill)),
            (N_("Resistance"), vehicle.resistance), (N_("Structure"), vehicle.structure),
            (N_("Safety"), vehicle.safety)), own=key.startswith(GM_PREFIX))
            for key, vehicle in all_vehicles(content).items())
        skill_entries = tuple(CompendiumEntry(skill.name, (
            (N_("Base"), skill.base),)) for skill in skills().values())
        return [CompendiumSection("weapons", N_("Weapons"), weapon_entries,
                                  "Cyborg § (III) Combats / Catalogue des armes"),
                CompendiumSection("vehicles", N_("Vehicles"), vehicle_entries,
                                  "Cyborg § (IV) Poursuites / Tableau des véhicules"),
                CompendiumSection("skills", N_("Skills"), skill_entries,
                                  "Cyborg § (II) Les compétences")]

    def skill_choices(self) -> list[tuple[str, str]]:
        return [(key, skill.name) for key, skill in skills().items()]

    characteristic_names = CHARACTERISTIC_NAMES
    kinds = ("cyborg", "alien", "human")

    # Rolls from the sheet: skills, characteristics, weapons (``sheet_rolls.py``).
    sheet_roll_options = rolls.OPTIONS
    sheet_rolls = staticmethod(rolls.sheet_rolls)
    roll_on_sheet = staticmethod(rolls.roll_on_sheet)
    fates = FATES
    limbs = LIMBS

    def demo_characters(self) -> list[DemoCharacter]:
        found = [DemoCharacter(profile.name, profile.sheet, player=profile.player)
                 for profile in CYBORGS]
        return found + [DemoCharacter(profile.name, profile.sheet) for profile in GM_PROFILES]

    # The table: app/rules/cyborg/match.py and match_actions.py.
    start = staticmethod(match.start)
    decide = staticmethod(match_actions.decide)
    evolve = staticmethod(match.evolve)
    legal_actions = staticmethod(match.legal_actions)
    view = staticmethod(match.view)
    check_state = staticmethod(state_check.check_state)
    between_matches = staticmethod(match.between_matches)
    outcome = staticmethod(match.outcome)
    # Exact odds before acting (issue 27, ``odds.py``): attacks, tests, hiding, first aid,
    # the chase's rolls.
    odds_kinds = cyborg_odds.KINDS
    odds = staticmethod(cyborg_odds.odds)


CYBORG = CyborgSystem()
