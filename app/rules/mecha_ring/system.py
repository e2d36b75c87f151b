"""Mecha-Ring as a Tablée game system (seed ``002_4824fb48e45db48f.txt``).

A character is a team (its robot's name, its crew, its implants, its record); a match is a
whole tournament (set-up, fights, market phases) played by 2 to 4 teams. The campaign's GM is
the host; the deck may be widened per campaign with the GM's own cards (``content_kinds``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app.rules.mecha_ring import (
    actions,
    ending,
    forms,
    match,
    setup,
    standings,
    state_check,
)
from app.rules.mecha_ring import odds as mecha_odds
from app.rules.mecha_ring import sheet as team
from app.rules.mecha_ring.content import EFFECTS, FAMILIES, PARTS, SFX, deck, left_out, rule
from app.rules.system import (
    N_,
    NO_CONTENT,
    CompendiumEntry,
    CompendiumSection,
    Content,
    ContentField,
    ContentKind,
    DemoCharacter,
    DemoMatch,
    DemoStep,
    Problem,
    Sheet,
    SummaryCharacter,
    SummaryMatch,
)

FAMILY_NAMES = {"torse": "torse", "tete": "tête", "bras": "bras", "jambes": "jambes"}
SLOT_NAMES = {"tete": "tête", "bras_g": "bras gauche", "bras_d": "bras droit",
              "jambes": "jambes", "torse": "torse"}
EFFECT_NAMES = {"repair": N_("repair (+energy on one of your parts)"),
                "attack": N_("attack (+dice on your next attack)"),
                "defence": N_("défense (+dice the next time you are hit)"),
                "sure_radar": N_("sure radar (next radar roll succeeds)"),
                "jam": N_("jamming (an opponent's next radar roll fails)"),
                "credits": N_("crédits from the bank"),
                "sabotage": N_("sabotage (−energy on an opponent's part, never below 1)")}


def _value(name: str, label: str) -> ContentField:
    return ContentField(name, label, "int", 0, 6)


class MechaRingSystem:
    key = "mecha_ring"
    name_fr = "Mecha-Ring"
    name_en = "Mecha-Ring"
    summary = N_("Teams build Combatanks from cards (torse, tête, bras, jambes) and fight MMMA "
                 "tournaments: the Mouvement order, a radar to aim, attack dice against défense "
                 "dice, and crédits to repair, bet and buy between fights.")
    seed_file = "002_4824fb48e45db48f.txt"
    uses_board = False
    uses_clock = True  # the turn timer: ``decide`` takes the server's ``now``
    content_kinds = (
        ContentKind("part", N_("Robot parts"), (
            ContentField("family", N_("Family"), "choice",
                         choices=tuple((key, FAMILY_NAMES[key]) for key in FAMILIES)),
            _value("mouvement", N_("Mouvement")), _value("radar", N_("Radar")),
            _value("attaque", N_("Attaque")), _value("defense", N_("Défense")),
            ContentField("value", N_("Value (crédits)"), "int", 0, 500),
            ContentField("copies", N_("Copies in the deck"), "int", 1, 8),
        ), rule=rule("Mise en place")),
        ContentKind("sfx", N_("SFX cards"), (
            ContentField("effect", N_("Effect"), "choice",
                         choices=tuple((key, EFFECT_NAMES[key]) for key in EFFECTS)),
            ContentField("cost", N_("Cost (crédits)"), "int", 0, 500),
            ContentField("amount", N_("Amount (energy, dice or crédits)"), "int", 0, 100),
            ContentField("uses", N_("Energy of a multi-use card (0: single use)"), "int", 0, 9),
            ContentField("copies", N_("Copies in the deck"), "int", 1, 8),
        ), rule=rule("Cartes SFX")),
        ContentKind("left_out", N_("House cards left out of the deck"), (
            ContentField("card", N_("Card"), "choice",
                         choices=tuple((key, card["name"]) for key, card in
                                       {**PARTS, **SFX}.items())),
        ), rule=rule("Mise en place")),
    )
    slot_names = SLOT_NAMES
    family_names = FAMILY_NAMES
    effect_names = EFFECT_NAMES

    def new_sheet(self) -> Sheet:
        return team.blank_sheet()

    def validate_sheet(self, sheet: Sheet, content: Content = NO_CONTENT) -> list[Problem]:
        return team.validate(sheet)

    def validate_change(self, before: Sheet, after: Sheet,
                        content: Content = NO_CONTENT) -> list[Problem]:
        return team.validate_change(before, after)

    def derived(self, sheet: Sheet, content: Content = NO_CONTENT) -> dict[str, Any]:
        return team.derived(sheet)

    def sheet_from_form(self, form: Mapping[str, str]) -> Sheet:
        """Fields: ``robot_name``, ``crew``, ``implants``, ``tournaments``, ``wins``,
        ``titles``, ``best_points``."""
        return team.from_form(form)

    def cards(self) -> dict[str, Any]:
        """The house card set, for the compendium and the printable sheet."""
        return {"parts": PARTS, "sfx": SFX}

    def compendium(self, content: Content = NO_CONTENT) -> list[CompendiumSection]:
        """The deck as the campaign plays it (§ Mise en place, § Cartes SFX): every robot
        part with its four values and its price, every SFX card with its effect, the
        campaign's own cards marked; then the house cards its host left out."""
        cards = deck(content)
        parts = tuple(CompendiumEntry(card["name"], (
            (N_("Family"), FAMILY_NAMES[card["family"]]),
            (N_("Mouvement"), card["mouvement"]), (N_("Radar"), card["radar"]),
            (N_("Attaque"), card["attaque"]), (N_("Défense"), card["defense"]),
            (N_("Value (crédits)"), card["value"]), (N_("Copies in the deck"), card["copies"]),
        ), own=card["source"] == "gm") for card in sorted(
            cards["parts"].values(), key=lambda card: (FAMILIES.index(card["family"]),
                                                       card["name"])))
        sfx = tuple(CompendiumEntry(card["name"], (
            (N_("Effect"), EFFECT_NAMES[card["effect"]]), (N_("Cost (crédits)"), card["cost"]),
            (N_("Amount (energy, dice or crédits)"), card["amount"]),
            (N_("Energy of a multi-use card (0: single use)"), card["uses"]),
            (N_("Copies in the deck"), card["copies"]),
        ), own=card["source"] == "gm") for card in sorted(cards["sfx"].values(),
                                                         key=lambda card: card["name"]))
        out = tuple(CompendiumEntry({**PARTS, **SFX}[key]["name"], own=True)
                    for key in sorted(left_out(content)) if key in {**PARTS, **SFX})
        return [CompendiumSection("part", N_("Robot parts"), parts, rule("Mise en place")),
                CompendiumSection("sfx", N_("SFX cards"), sfx, rule("Cartes SFX")),
                CompendiumSection("left_out", N_("House cards left out of the deck"), out,
                                  rule("Mise en place"))]

    def demo_characters(self) -> list[DemoCharacter]:
        return [
            DemoCharacter("Écurie Boulon", {**team.blank_sheet(), "robot_name": "Boulon-Boum",
                                            "crew": "Lina et les frères Rivet", "implants": 3},
                          "Équipe maison : trois implants, elle choisit ses pièces la "
                          "première.", player=0),
            DemoCharacter("Équipe Acier Hurlant", {**team.blank_sheet(),
                                                   "robot_name": "Hurleur-IX",
                                                   "crew": "Gaspard « Clé de 12 »",
                                                   "implants": 1},
                          "Équipe maison.", player=1),
            DemoCharacter("Garage du MJ", {**team.blank_sheet(), "robot_name": "Rouille-Tank",
                                           "crew": "l'organisateur du tournoi", "implants": 0},
                          "Le robot de l'hôte (MJ)."),
        ]

    def demo_match(self, character_ids: Mapping[str, int]) -> DemoMatch:
        """A three-robot tournament: the host's robot is given to the house bot, which rolls
        the order of the first round; the players take it from there."""
        return DemoMatch("Tournoi de MMMA", ("Écurie Boulon", "Équipe Acier Hurlant",
                                             "Garage du MJ"),
                         steps=(DemoStep({"kind": "set_bot", "seat": "t3", "on": "on"}),))

    def campaign_summary(self, matches: Sequence[SummaryMatch],
                         characters: Sequence[SummaryCharacter]) -> dict[str, Any]:
        """The campaign page's standings summed over its tournaments and each tournament's
        history (winner, champion, each team's victory points, fights won, crédits)."""
        return standings.summary(matches, characters)

    # — the table —
    start = staticmethod(setup.start)
    decide = staticmethod(actions.decide)
    # an attack's odds before it is made (issue 27, docs/odds.md § Mecha-Ring)
    odds = staticmethod(mecha_odds.odds)
    odds_kinds = mecha_odds.KINDS
    evolve = staticmethod(match.evolve)
    legal_actions = staticmethod(forms.legal_actions)
    view = staticmethod(match.view)
    check_state = staticmethod(state_check.check_state)
    between_matches = staticmethod(match.between_matches)
    outcome = staticmethod(ending.outcome)  # app/rules/outcome.py


MECHA_RING = MechaRingSystem()
