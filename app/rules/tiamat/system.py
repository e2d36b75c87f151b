"""Tiamat as a Tablée game system (``shared/seeds/004_027408667edfd8d5.txt``).

The sheet: ``sheet.py``; content: ``content.py`` and ``data/techniques.json``; dice:
``pools.py``; the pure combat rules: ``combat.py``; the table: ``match.py`` (state, forms,
view, between matches) and ``match_actions.py`` (deciding); ready fighters: ``profiles.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.rules.dice import Dice, RollRecord
from app.rules.system import (
    N_,
    NO_CONTENT,
    CompendiumSection,
    Content,
    ContentField,
    ContentKind,
    DemoCharacter,
    DemoMatch,
    DemoStep,
    Problem,
    Sheet,
)
from app.rules.tiamat import (
    compendium,
    match,
    match_actions,
    profiles,
    sheet,
    sides,
    state_check,
)
from app.rules.tiamat import odds as tiamat_odds
from app.rules.tiamat import sheet_rolls as rolls
from app.rules.tiamat.content import (
    ARMOURS,
    ARTS,
    ATTRIBUTE_NAMES,
    CHAR_NAMES,
    CHARACTERISTICS,
    LOCATION_NAMES,
    SKILL_NAMES,
    TALENT_NAMES,
    TYPE_NAMES,
    WEAPONS,
    all_weapons,
    techniques,
)
from app.rules.tiamat.sheet import SEXES, WOUND_LOCATIONS
from app.rules.tiamat.talents import EFFECTS as TALENT_EFFECTS


def _int(value: Any) -> int | str:
    text = (value or "").strip() if isinstance(value, str) else value
    try:
        return int(text)
    except (TypeError, ValueError):
        return text if isinstance(text, str) else ""


class TiamatSystem:
    key = "tiamat"
    name_fr = "Tiamat"
    name_en = "Tiamat"
    seed_file = "004_027408667edfd8d5.txt"
    summary = N_("Martial artists fight with techniques: D10 and D6 pools, précision against "
                 "the defence, puissance against endurance, santé, énergie and furie, combos "
                 "and chains.")
    uses_board = False
    content_kinds = (ContentKind("weapon", N_("Weapons"), (
        ContentField("kind", N_("Kind"), "choice", choices=(
            ("contact", N_("Arme de contact")), ("distance", N_("Attaque à distance")))),
        ContentField("d10", N_("Puissance: D10 added to Force (contact)"), "int", low=0, high=4,
                     required=False),
        ContentField("d6", N_("Puissance: D6"), "int", low=0, high=6, required=False),
        ContentField("letale", N_("Létale"), "bool", required=False),
        ContentField("kendo", N_("Arme de Kendo"), "bool", required=False),
        ContentField("point_blank", N_("Point-blank range (m)"), "int", low=0, high=1000,
                     required=False),
        ContentField("short_range", N_("Short range (m)"), "int", low=0, high=5000,
                     required=False),
        ContentField("long_range", N_("Long range (m)"), "int", low=0, high=10000,
                     required=False),
        ContentField("ammo", N_("Munitions: shots before reloading (0: none counted)"),
                     "int", low=0, high=200, required=False),
        ContentField("rafale", N_("Tir en rafale"), "bool", required=False),
    ), "Tiamat § Armes / Dommage des armes / Portée des armes / Munitions"),)
    # The two talents come from the D10 x D6 table (« Déterminer ses talents au hasard »);
    # everything else is chosen in the builder, on the new-character page too.
    rolled_fields = ("talents",)
    chooses_before_rolling = True

    char_names = CHAR_NAMES
    characteristics = CHARACTERISTICS
    skill_names = SKILL_NAMES
    talent_names = TALENT_NAMES
    talent_effects = TALENT_EFFECTS  # house (docs/rules-notes.md § Tiamat / Talents)
    arts = ARTS
    weapons = WEAPONS
    armours = ARMOURS
    type_names = TYPE_NAMES
    attribute_names = ATTRIBUTE_NAMES
    location_names = LOCATION_NAMES
    sexes = SEXES

    def weapon_choices(self, content=None) -> list[tuple[str, str]]:
        return [(key, weapon.name) for key, weapon in all_weapons(content).items()]

    def techniques(self):
        return techniques()

    def compendium(self, content: Content = NO_CONTENT) -> list[CompendiumSection]:
        """The whole technique list, the arts and their trees, weapons (the campaign's own
        marked), armours, talents and skills (``compendium.py``)."""
        return compendium.compendium(content)

    def technique_names(self, options) -> str:
        """A combo's choices as the page shows them (``{"technique", "chain"}`` dicts)."""
        catalogue = techniques()
        return ", ".join(
            catalogue[o["technique"]].name + (f" ({catalogue[o['chain']].name})"
                                              if o.get("chain") else "") for o in options)

    def new_sheet(self) -> Sheet:
        return sheet.blank_sheet()

    def roll_sheet(self, dice: Dice, chosen: Sheet) -> tuple[Sheet, list[RollRecord]]:
        """The builder's sheet with its talents rolled (``sheet.roll_creation``)."""
        return sheet.roll_creation(chosen, dice)

    def validate_sheet(self, data: Sheet, content: Content = NO_CONTENT) -> list[Problem]:
        return sheet.validate(data, content)

    def validate_change(self, before: Sheet, after: Sheet,
                        content: Content = NO_CONTENT) -> list[Problem]:
        return sheet.validate_change(before, after, content)

    def derived(self, data: Sheet, content: Content = NO_CONTENT) -> dict[str, Any]:
        return sheet.derived(data, content)

    def sheet_from_form(self, form: Mapping[str, str]) -> Sheet:
        """Fields: ``kind``, ``char_<name>``, ``skill_<key>``, ``talents`` (several or a comma
        list, or ``talent_<key>`` boxes), ``talent_mode``, ``arts`` / ``art_<key>``,
        ``art_talent_<art>``, ``techniques`` / ``technique_<key>``, ``sante``, ``energie``,
        ``furie``, ``armour``, ``weapons`` / ``weapon_<key>``, ``equipment``, ``wounds`` /
        ``wound_<location>``, ``members``, ``actions_override``, ``sexe``."""
        def many(key: str, prefix: str, keys) -> list[str]:
            """A comma list in ``key``, and/or one checkbox ``<prefix><item>`` per item."""
            found = [part.strip() for part in str(form.get(key) or "").split(",")
                     if part.strip()]
            found += [item for item in keys if str(form.get(prefix + item) or "") in (
                "on", "true", "1", "yes")]
            return list(dict.fromkeys(found))

        data: Sheet = {
            "kind": (form.get("kind") or "pj").strip(),
            "characteristics": {name: _int(form.get(f"char_{name}", ""))
                                for name in CHARACTERISTICS},
            "skills": {key: _int(form.get(f"skill_{key}")) for key in SKILL_NAMES
                       if str(form.get(f"skill_{key}") or "").strip() not in ("", "0")},
            "talents": many("talents", "talent_", TALENT_NAMES),
            "talent_mode": "chosen" if form.get("talent_mode") == "chosen" else "random",
            "arts": many("arts", "art_", ARTS),
            "techniques": many("techniques", "technique_", techniques()),
            "armour": (form.get("armour") or "aucune").strip(),
            "weapons": many("weapons", "weapon_", [
                key[len("weapon_"):] for key in form if key.startswith("weapon_")]),
            "equipment": str(form.get("equipment") or "")[:2000],
            "sexe": str(form.get("sexe") or "").strip(),
            "wounds": many("wounds", "wound_", WOUND_LOCATIONS),
        }
        data["art_talents"] = {art: form[f"art_talent_{art}"].strip() for art in data["arts"]
                               if str(form.get(f"art_talent_{art}") or "").strip()}
        for key in ("sante", "energie"):
            text = str(form.get(key) or "").strip()
            data[key] = _int(text) if text else None
        data["furie"] = _int(str(form.get("furie") or "0"))
        if str(form.get("quadruped") or "") in ("on", "true", "1", "yes"):
            data["quadruped"] = True
        if data["kind"] == "hommes_de_main":
            data["members"] = _int(str(form.get("members") or ""))
            data["actions_override"] = _int(str(form.get("actions_override") or "1"))
        return data

    # Rolls from the sheet: tests and weapons (``sheet_rolls.py``).
    sheet_roll_options = rolls.OPTIONS
    sheet_rolls = staticmethod(rolls.sheet_rolls)
    roll_on_sheet = staticmethod(rolls.roll_on_sheet)

    def demo_characters(self) -> list[DemoCharacter]:
        return profiles.demo_characters()

    def demo_match(self, character_ids: Mapping[str, int]) -> DemoMatch:
        """The Shanghai warehouse (« Exemple de combat »): Jack against the voyous, initiative
        rolled. Jin Chun-Fung waits until his men fall: the GM opens his duel then."""
        return DemoMatch("Entrepôt n°8, Shanghai", ("Jack", "Voyous de l'entrepôt n°8"),
            steps=(DemoStep({"kind": "roll_initiative"}),))

    start = staticmethod(match.start)
    decide = staticmethod(match_actions.decide)
    evolve = staticmethod(match.evolve)
    legal_actions = staticmethod(match.legal_actions)
    view = staticmethod(match.view)
    check_state = staticmethod(state_check.check_state)
    # Who won once one side can no longer fight (``sides.py``): the table page and the API.
    outcome = staticmethod(sides.outcome)
    between_matches = staticmethod(match.between_matches)
    # Exact odds before acting (issue 27, ``odds.py``): attacks and their answer, tests and
    # opposed rolls, on the viewer's view.
    odds_kinds = tiamat_odds.KINDS
    odds = staticmethod(tiamat_odds.odds)


TIAMAT = TiamatSystem()
