"""Mutatior — le choc des titans as a Tablée game system (seed ``000_e34df4ff7a8d792c.txt``).

The sheet is a mutant (``sheet.py``), checked by the rules core (``body.validate``); the table
is an arena fight (``match.py``). The GM's custom implants and special organs come in
``content`` (kinds below), an argument of every method that reads a sheet: ``content.catalogue``
merges them with the catalogue, and the ``Mutant`` read from the sheet carries the result.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.rules.mutatior import changes, match, match_flow, state_check
from app.rules.mutatior import odds as mutatior_odds
from app.rules.mutatior import sheet_rolls as rolls
from app.rules.mutatior.body import Limb, Mutant, validate
from app.rules.mutatior.body import derived as body_derived
from app.rules.mutatior.campaign import _WEIGHT, XP_PER_SKILL
from app.rules.mutatior.content import (
    ORGAN_WEIGHTS,
    SKILLS,
    Implant,
    catalogue,
    rule,
)
from app.rules.mutatior.match_state import BOARD_CM
from app.rules.mutatior.samples import grosbaf, nurglie, scarabator, zetzet
from app.rules.mutatior.sheet import (
    COUNTERS,
    DAMAGE_ORDERS,
    DEFENSIVE_SLOTS,
    FORM_ROWS,
    LOST_FIELDS,
    ORGAN_FIELDS,
    blank_limb,
    mutant_of,
    shape_problems,
    sheet_of,
)
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

R_SPECIAL = rule("2-2 Organes / Organes spéciaux")
TRUE_WORDS = frozenset({"on", "true", "1", "yes"})


def _int_or_raw(value: str) -> int | str:
    text = value.strip()
    if text.lstrip("-").isdigit():
        return int(text)
    return text


class MutatiorSystem:
    key = "mutatior"
    name_fr = "Mutatior — le choc des titans"
    name_en = "Mutatior — clash of the titans"
    seed_file = "000_e34df4ff7a8d792c.txt"
    summary = N_("Trainers build mutants limb by limb and organ by organ (muscles, "
                 "biomoteurs, lobes, implants), then send their teams to fight in the arena.")
    uses_board = True
    # § 0- Généralités: a sand box of 60 cm across, in centimetres.
    board_defaults = {"unit": "cm", "width": BOARD_CM, "height": BOARD_CM}
    content_kinds = (
        ContentKind("offensive_implant", N_("Offensive implants"), (
            ContentField("attack", N_("Bonus to the limb's attack"), "int", 0, 10),
            ContentField("weight_kg", N_("Weight (kg)"), "int", 0, 1000),
        ), rule=R_SPECIAL),
        ContentKind("defensive_implant", N_("Defensive implants"), (
            ContentField("armour", N_("Armour (taken off the damage)"), "int", 0, 10),
            ContentField("weight_kg", N_("Weight (kg)"), "int", 0, 1000),
        ), rule=R_SPECIAL),
        ContentKind("special_organ", N_("Special organs"), (
            ContentField("weight_kg", N_("Weight (kg)"), "int", 0, 1000),
            ContentField("effect", N_("Effect (applied by the GM)"), "text", required=False),
        ), rule=R_SPECIAL),
    )

    # — the sheet —

    def new_sheet(self) -> Sheet:
        """A plain being (§ Terminologie): a bide with the pump, a head with the brain, two
        arms and two legs; one skill to choose (here Chouchou du public)."""
        trunk = {**blank_limb("tronc", trunk=True), "muscles": 6, "biomoteurs": 5}
        head = {**blank_limb("tête"), "muscles": 2, "lobes": 3}
        limbs = [trunk, head] + [{**blank_limb(name), "muscles": 4} for name in (
            "bras gauche", "bras droit", "jambe gauche", "jambe droite")]
        return {"limbs": limbs, "skills": ["chouchou_du_public"], "xp": 0, "fame": 0,
                "reserve_kg": 0, "team": "", "dead": False, "fights": 0, "grafts": 0}

    def validate_sheet(self, sheet: Sheet, content: Content = NO_CONTENT) -> list[Problem]:
        problems = shape_problems(sheet)
        if problems:
            return problems
        return validate(mutant_of(sheet, catalogue=catalogue(content)))

    def validate_change(self, before: Sheet, after: Sheet,
                        content: Content = NO_CONTENT) -> list[Problem]:
        """A player's save between fights (§ 3-2 Fin du carnage): see ``changes.py``."""
        return changes.validate_change(before, after, catalogue(content))

    def derived(self, sheet: Sheet, content: Content = NO_CONTENT) -> dict[str, Any]:
        mutant = mutant_of(sheet, catalogue=catalogue(content))
        values = body_derived(mutant)
        values.update(
            live_brain=mutant.live_brain, live_pump=mutant.live_pump,
            live_muscle_mass_kg=mutant.live_muscle_mass_kg,
            lost_organs=mutant.lost_organs, dead_limbs=mutant.dead_limbs,
            heal_cost_kg=sum(getattr(limb, f"lost_{organ}") * weight
                             for limb in mutant.limbs if not limb.dead
                             for organ, weight in _WEIGHT.items()),
            new_skills=mutant.xp // XP_PER_SKILL,
            reserve_kg=sheet.get("reserve_kg", 0),
            dead=bool(sheet.get("dead")) or mutant.dead,
            category_t=next((t for t in (1, 2, 3) if mutant.biomass <= t * 1000), None),
        )
        return values

    def sheet_from_form(self, form: Mapping[str, str]) -> Sheet:
        """Fields: ``limb_N_name``, ``limb_N_muscles`` … ``limb_N_lost_lobes``, ``trunk`` (the
        trunk row's N), ``limb_N_tentacle``, ``limb_N_offensive``, ``limb_N_special``,
        ``limb_N_defensive_1..3``, ``limb_N_remove``; ``skill_<key>``; ``xp``, ``fame``,
        ``reserve_kg``, ``fights``, ``grafts``, ``team``, ``dead``, ``damage_order``. An
        empty row (no name, no organ) is dropped."""
        limbs = []
        trunk_row = form.get("trunk", "").strip()
        for index in range(FORM_ROWS):
            prefix = f"limb_{index}_"
            if form.get(prefix + "remove", "").strip().lower() in TRUE_WORDS:
                continue
            name = form.get(prefix + "name", "").strip()
            organs = {key: form.get(prefix + key, "").strip()
                      for key in (*ORGAN_FIELDS, *LOST_FIELDS)}
            if not name and not any(value not in ("", "0") for value in organs.values()):
                continue
            limb: dict[str, Any] = {"name": name, "trunk": trunk_row == str(index),
                                    "tentacle": form.get(prefix + "tentacle", "").strip().lower()
                                    in TRUE_WORDS}
            for key, value in organs.items():
                limb[key] = _int_or_raw(value) if value else 0
            limb["offensive"] = form.get(prefix + "offensive", "").strip()
            limb["special"] = form.get(prefix + "special", "").strip()
            limb["defensive"] = [key for slot in range(1, DEFENSIVE_SLOTS + 1)
                                 if (key := form.get(f"{prefix}defensive_{slot}", "").strip())]
            limbs.append(limb)
        sheet: Sheet = {"limbs": limbs,
                        "skills": [key for key in SKILLS
                                   if form.get(f"skill_{key}", "").strip().lower() in TRUE_WORDS],
                        "team": form.get("team", "").strip(),
                        "damage_order": form.get("damage_order", "").strip(),
                        "dead": form.get("dead", "").strip().lower() in TRUE_WORDS}
        for key in COUNTERS:
            raw = form.get(key, "").strip()
            sheet[key] = _int_or_raw(raw) if raw else 0
        return sheet

    # Rolls from the sheet: pump, initiative, each limb's attack, defence and shot.
    sheet_roll_options = rolls.OPTIONS
    sheet_rolls = staticmethod(rolls.sheet_rolls)
    roll_on_sheet = staticmethod(rolls.roll_on_sheet)

    def demo_characters(self) -> list[DemoCharacter]:
        """Two teams for the 2-tonne category, one per demo player (§ 3 Campagne)."""
        return [DemoCharacter(mutant.name, sheet_of(mutant), notes, player=player)
                for mutant, notes, player in demo_teams()]

    def catalogue(self, content: Content = NO_CONTENT) -> dict[str, Any]:
        """What the sheet templates offer: implants by slot (the campaign's custom ones with
        the catalogue's), skills, organ weights."""
        implants = catalogue(content)
        by_kind: dict[str, list[tuple[str, str]]] = {"offensive": [], "defensive": [],
                                                     "special": []}
        # Each one with its figures, so a builder picks it by what it does and weighs.
        details: dict[str, list[Implant]] = {"offensive": [], "defensive": [], "special": []}
        for key, item in implants.items():
            by_kind[item.kind].append((key, item.name))
            details[item.kind].append(item)
        for listed in details.values():
            listed.sort(key=lambda item: (not item.key.startswith("gm-"), item.name.casefold()))
        return {"implants": by_kind, "names": {key: item.name for key, item in implants.items()},
                "implant_details": details,
                "skills": [(key, skill.name, skill.effect, skill.effect_fr or skill.effect)
                           for key, skill in SKILLS.items()],
                "skill_names": {key: skill.name for key, skill in SKILLS.items()},
                "weights": dict(ORGAN_WEIGHTS), "rows": FORM_ROWS, "damage_orders": DAMAGE_ORDERS,
                "defensive_slots": DEFENSIVE_SLOTS}

    def compendium(self, content: Content = NO_CONTENT) -> list[CompendiumSection]:
        """Implants and special organs with their figures (the campaign's own first), then
        the skills and what each does (Mutatior § 2-2 Organes, § 2-3 Compétences)."""
        details = self.catalogue(content)["implant_details"]
        figures = {
            "offensive": lambda item: ((N_("Attack bonus"), item.attack),
                                       (N_("Weight (kg)"), item.weight_kg)),
            "defensive": lambda item: ((N_("Armour"), item.armour),
                                       (N_("Weight (kg)"), item.weight_kg)),
            "special": lambda item: ((N_("Weight (kg)"), item.weight_kg),)}
        titles = {"offensive": N_("Offensive implants"), "defensive": N_("Defensive implants"),
                  "special": N_("Special organs")}
        sections = [CompendiumSection(kind, titles[kind], tuple(
            CompendiumEntry(item.name, figures[kind](item), own=item.key.startswith("gm-"))
            for item in details[kind]), rule("2-2 Organes")) for kind in titles]
        sections.append(CompendiumSection("skills", N_("Skills"), tuple(
            CompendiumEntry(skill.name, text=skill.effect, text_fr=skill.effect_fr)
            for skill in SKILLS.values()), rule("2-3 Compétences")))
        return sections

    def implant_names(self, content: Content = NO_CONTENT) -> dict[str, str]:
        """Every implant and special organ's name by key: the catalogue's and the campaign's
        custom ones (the sheet view and the printable sheet show names, not keys)."""
        return {key: item.name for key, item in catalogue(content).items()}

    # — the table: see match.py —
    start = staticmethod(match.start)
    decide = staticmethod(match.decide)
    # an action's odds before it is made (issue 27, docs/odds.md § Mutatior)
    odds = staticmethod(mutatior_odds.odds)
    odds_kinds = mutatior_odds.KINDS
    evolve = staticmethod(match.evolve)
    legal_actions = staticmethod(match.legal_actions)
    view = staticmethod(match.view)
    check_state = staticmethod(state_check.check_state)
    between_matches = staticmethod(match.between_matches)
    outcome = staticmethod(match_flow.outcome)


# — the demo teams —

def cafardor() -> Mutant:
    """House: a quick cockroach with a spiked tail (Coureur effréné)."""
    return Mutant("Cafardor", (
        Limb("tronc", muscles=6, biomoteurs=5, trunk=True, defensive=("carapace",)),
        Limb("tête", muscles=3, lobes=2, offensive="mandibules"),
        Limb("patte gauche", muscles=4, biomoteurs=3),
        Limb("patte droite", muscles=4),
        Limb("queue", muscles=4, offensive="queue_epineuse"),
    ), skills=("coureur_effrene",))


def gelatron() -> Mutant:
    """House: a jelly with a tentacle and regrowing lobes (Gélatine expansive)."""
    return Mutant("Gélatron", (
        Limb("tronc", muscles=5, biomoteurs=6, trunk=True),
        Limb("tête", muscles=2, lobes=4),
        Limb("tentacule", muscles=6, tentacle=True, special="ventouses"),
        Limb("pseudopode", muscles=5),
    ), skills=("gelatine_expansive",))


def demo_teams() -> list[tuple[Mutant, str, int]]:
    return [
        (scarabator(), "§ Feuilles de mutants : 565 kg, cerveau 5, pompe 12, Gros tas.", 0),
        (nurglie(), "§ Feuilles de mutants : 355 kg, cerveau 1, pompe 5, Obsédé.", 0),
        (grosbaf(), "§ Exemple de combat : le yéti cornu de Patom.", 0),
        (zetzet(), "§ Exemple de combat : le cobra bleu de Yetzar.", 1),
        (cafardor(), "Mutant maison : un cafard rapide à queue épineuse.", 1),
        (gelatron(), "Mutant maison : une gelée à tentacule.", 1),
    ]


MUTATIOR = MutatiorSystem()
