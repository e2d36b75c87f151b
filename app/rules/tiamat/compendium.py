"""Tiamat's compendium: the whole « LISTE DES TECHNIQUES » (120 entries with the 23
enchaînements), the nine arts with their prerequisite trees, the weapons and armours (the
campaign's own weapons among them), the talents table and the 22 skills — what a player
browses on the campaign's compendium page (issue 10) and on ``/games/tiamat``.

Each section offers facets (``CompendiumSection.facets``): the page filters the techniques
by art and by type without any script (a GET form).
"""

from __future__ import annotations

from typing import Any

from app.rules.system import N_, CompendiumEntry, CompendiumSection
from app.rules.tiamat.content import (
    ARMOURS,
    ARTS,
    ATTRIBUTE_NAMES,
    LOCATION_NAMES,
    RULE_ARTS,
    RULE_SKILLS,
    RULE_TALENTS,
    SKILL_CAP,
    SKILL_NAMES,
    TALENT_NAMES,
    TALENT_TABLE,
    TYPE_NAMES,
    Technique,
    all_weapons,
    techniques,
)
from app.rules.tiamat.talents import EFFECTS as TALENT_EFFECTS

RULE_LIST = "Tiamat § Techniques / LISTE DES TECHNIQUES"
RULE_WEAPONS = "Tiamat § Armes / Dommage des armes / Portée des armes / Munitions"
RULE_ANIMALS = "Tiamat § Combat contre les animaux (techniques : maison)"
STANDARD = "Standard"
KIND_NAMES = {"contact": TYPE_NAMES["arme_contact"], "distance": TYPE_NAMES["distance"],
              "artifice": "Artifice de ninja"}


def _arts(technique: Technique) -> str:
    return ", ".join(STANDARD if art == "standard" else ARTS[art].name
                     for art in technique.arts if art == "standard" or art in ARTS)


def _prerequisites(technique: Technique, catalogue: dict[str, Technique]) -> str:
    """« A + B / C »: all of a group, any of the groups; « — » for none."""
    return " / ".join(" + ".join(catalogue[key].name for key in group)
                      for group in technique.prerequisites) or "—"


def _formula(formula: Any) -> str:
    if formula.none:  # « Aucun dommage » reads in the reader's words; « - » is nothing
        return N_("No damage") if formula.text not in ("", "-") else "—"
    return formula.text or "—"


def _cost(technique: Technique) -> str:
    if technique.energie:
        return f"{technique.energie} énergie"
    if technique.furie:
        return f"{technique.furie} furie"
    return "—"


def technique_entry(technique: Technique, catalogue: dict[str, Technique]
                    ) -> CompendiumEntry:
    steps = ""
    if technique.chain:
        # The steps in order, then the finisher (« A ou B » where either ends the chain).
        steps = " → ".join([catalogue[key].name for key in technique.chain.steps] + [
            " ou ".join(catalogue[key].name for key in technique.chain.finisher)])
    special = technique.special or "—"
    return CompendiumEntry(technique.name, (
        (N_("Martial arts"), _arts(technique)),
        (N_("Type"), TYPE_NAMES.get(technique.type, technique.type)),
        (N_("Prerequisites"), _prerequisites(technique, catalogue)),
        (N_("Weapon"), technique.weapon or "—"),
        (N_("Cost"), _cost(technique)),
        (N_("Précision"), _formula(technique.precision)),
        (N_("Puissance"), _formula(technique.puissance)),
        (N_("Location"), LOCATION_NAMES.get(technique.location or "", "—")),
        (N_("Attributes"), ", ".join(ATTRIBUTE_NAMES.get(a, a) for a in technique.attributes)
         or "—"),
        (N_("Combo"), " / ".join(catalogue[key].name for key in technique.combo) or "—"),
        (N_("Steps"), steps or "—"),
    ), text=technique.special_en or special, text_fr=special)


def art_tree(art: str, catalogue: dict[str, Technique]) -> str:
    """The art's prerequisite tree as lines « Technique ← prerequisites » in the list's
    order (the text's diagrams are pictures; each technique states its prerequisites)."""
    return " · ".join(
        f"{t.name} ← {_prerequisites(t, catalogue)}" if t.prerequisites else t.name
        for t in catalogue.values() if art in t.arts)


def _weapon_entry(weapon: Any) -> CompendiumEntry:
    force = "Force + " if weapon.uses_force else ""
    dice = " + ".join(part for part in (f"{weapon.d10}D10" if weapon.d10 else "",
                                         f"{weapon.d6}D6" if weapon.d6 else "",
                                         str(weapon.flat) if weapon.flat else "") if part)
    return CompendiumEntry(weapon.name, (
        (N_("Kind"), KIND_NAMES.get(weapon.kind, weapon.kind)),
        (N_("Puissance"), "—" if weapon.kind == "artifice" else (force + dice) if dice
         else "Force"),
        (N_("Létale"), weapon.letale),
        (N_("Ranges (m)"), " / ".join(str(r) for r in weapon.ranges) or "—"),
        (N_("Munitions"), weapon.ammo or "—"),
        (N_("Reload"), weapon.reload),
        (N_("Tir en rafale"), weapon.rafale),
        (N_("Arme de Kendo"), weapon.kendo),
    ), own=weapon.source == "gm")


def _talent_cells() -> dict[str, list[str]]:
    cells: dict[str, list[str]] = {}
    for row, talents in TALENT_TABLE.items():
        for column, talent in enumerate(talents, start=1):
            cells.setdefault(talent, []).append(f"{row} / {column}")
    return cells


def compendium(content: Any = None) -> list[CompendiumSection]:
    catalogue = techniques()
    listed = [t for t in catalogue.values() if not t.animal]
    animal = [t for t in catalogue.values() if t.animal]
    cells = _talent_cells()
    granted: dict[str, list[str]] = {}
    for art in ARTS.values():
        granted.setdefault(art.talent, []).append(art.name)
    facets = (("art", N_("Martial arts")), ("type", N_("Type")))
    return [
        CompendiumSection("technique", N_("Techniques"), tuple(
            technique_entry(t, catalogue) for t in listed), RULE_LIST, facets=facets),
        CompendiumSection("art", N_("Martial arts"), tuple(CompendiumEntry(art.name, (
            (N_("Talent"), TALENT_NAMES[art.talent]),
            (N_("Techniques"), sum(art.key in t.arts for t in listed)),
        ), text=art_tree(art.key, catalogue)) for art in ARTS.values()), RULE_ARTS),
        CompendiumSection("weapon", N_("Weapons"), tuple(
            _weapon_entry(weapon) for weapon in sorted(
                all_weapons(content).values(), key=lambda w: w.source != "gm")),
            RULE_WEAPONS),
        CompendiumSection("armour", N_("Armours"), tuple(CompendiumEntry(armour.name, (
            (N_("Protection"), armour.protection),)) for armour in ARMOURS.values()
            if armour.protection), "Tiamat § Combat « versus » / Dommages"),
        CompendiumSection("talent", N_("Talents"), tuple(CompendiumEntry(name, (
            (N_("Table (D10 / D6)"), ", ".join(cells.get(key, [])) or "—"),
            (N_("Granted by"), ", ".join(granted.get(key, [])) or "—"),
        ), text=TALENT_EFFECTS.get(key, "")) for key, name in TALENT_NAMES.items()),
            RULE_TALENTS),
        CompendiumSection("skill", N_("Skills"), tuple(CompendiumEntry(name, (
            (N_("Highest at creation"), SKILL_CAP),)) for name in SKILL_NAMES.values()),
            RULE_SKILLS),
        CompendiumSection("animal", N_("Animal techniques (GM)"), tuple(
            technique_entry(t, catalogue) for t in animal), RULE_ANIMALS),
    ]
