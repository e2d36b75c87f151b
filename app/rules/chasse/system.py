"""Chasse préhistorique as a Tablée game system (``shared/seeds/003_17f6fe9f5d5d7b1b.txt``).

The sheet: ``sheet.py``; content with provenance: ``content.py`` and ``data/*.toml``; the
hunt: ``setup.py`` (start), ``state.py`` (the fold), ``actions.py`` (deciding), ``steps.py``
(the ten steps), ``prey.py`` (the prey's reactions), ``fire.py``, ``combat.py`` and
``fights.py`` (throws and melee), ``match.py`` (forms, view, between hunts).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.rules.chasse import actions, ending, match, scenario, setup, state, state_check
from app.rules.chasse import odds as chasse_odds
from app.rules.chasse import sheet_rolls as rolls
from app.rules.chasse.content import (
    CLASSES,
    SPEEDS,
    house_profiles,
    hunter_weapons,
    prey_species,
    scenarios,
    weapons,
)
from app.rules.chasse.sheet import blank_sheet, derived, from_form, validate, validate_change
from app.rules.match import Actor, Event, MatchSetup, fold
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
)

RULE_WEAPONS = N_("Chasse préhistorique § Tirs (the table is missing from the text: house "
                  "rules)")
RULE_PREY = N_("Chasse préhistorique § Les figurines (the table is missing from the text: "
               "house rules)")
# Words shown through ``_()`` (the content form and the compendium translate choice labels).
CLASS_NAMES = {"leger": N_("light (M1–M2)"), "moyen": N_("medium (M3)"),
               "lourd": N_("heavy (M4–M5)")}
SPEED_NAMES = {"tres_rapide": N_("very fast"), "rapide": N_("fast"), "lourdaud": N_("lumbering")}
TEMPERAMENT_NAMES = {"agressive": N_("aggressive"), "placide": N_("placid")}


def _weapon_kind() -> ContentKind:
    fields = [ContentField("melee", N_("Melee weapon"), "bool", required=False),
              ContentField("short", N_("Short range (inches, 0: not thrown)"), "int", low=0,
                           high=24, required=False),
              ContentField("long", N_("Long range (inches)"), "int", low=0, high=36,
                           required=False),
              ContentField("no_small_malus", N_("No malus against M1 prey (like bows and "
                                                "slings)"), "bool", required=False),
              ContentField("leaves_hand", N_("Leaves the hand when thrown (like a javelin: "
                                             "picked up again later)"), "bool",
                           required=False)]
    to_hit = {"leger": N_("To hit against light figures (M1–M2)"),
              "moyen": N_("To hit against medium figures (M3)"),
              "lourd": N_("To hit against heavy figures (M4–M5)")}
    save = {"leger": N_("Save of light figures (0: none)"),
            "moyen": N_("Save of medium figures (0: none)"),
            "lourd": N_("Save of heavy figures (0: none)")}
    fields += [ContentField(f"to_hit_{k}", to_hit[k], "int", low=1, high=6) for k in CLASSES]
    fields += [ContentField(f"save_{k}", save[k], "int", low=0, high=6) for k in CLASSES]
    return ContentKind("weapon", N_("Weapons"), tuple(fields), RULE_WEAPONS)


def _prey_kind() -> ContentKind:
    natural = tuple((k, w["name"]) for k, w in weapons().items() if w["melee"])
    return ContentKind("prey", N_("Prey species"), (
        ContentField("masse", N_("Mass (M1–M5: wounds and food)"), "int", low=1, high=5),
        ContentField("temperament", N_("Temperament"), "choice",
                     choices=tuple(TEMPERAMENT_NAMES.items())),
        ContentField("speed", N_("Speed"), "choice",
                     choices=tuple((k, SPEED_NAMES[k]) for k in SPEEDS)),
        ContentField("weapon", N_("Natural weapon"), "choice", choices=natural),
    ), RULE_PREY)


RULE_PROFILES = N_("Chasse préhistorique § Déplacements des Chasseurs (the movement table is "
                   "missing from the text: house rules)")
PROFILE_NAMES = {"standard": N_("Standard hunter"), "pataud": N_("Pataud hunter"),
                 "tres_rapide": N_("very fast prey"), "rapide": N_("fast prey"),
                 "lourdaud": N_("lumbering prey")}


def _check_profile(data: Mapping[str, Any], content: Content) -> list[Problem]:
    """A prey speed class has a Dmax only (its mass is its species'); an empty mass (0)
    keeps the house one."""
    if data.get("profile") in SPEEDS and data.get("masse"):
        return [Problem("masse", N_("A prey's speed class has only a Dmax: its mass is its "
                                    "species'."), RULE_PROFILES)]
    return []


def _profile_kind() -> ContentKind:
    """The house movement profiles the GM may change for the campaign (issue 25: "as for
    every other house number"): a hunter profile's Dmax and mass, a prey speed class's Dmax.
    A match copies them when it opens."""
    return ContentKind("profile", N_("Movement profiles"), (
        ContentField("profile", N_("Profile"), "choice", choices=tuple(PROFILE_NAMES.items())),
        ContentField("dmax", N_("Dmax (inches a turn)"), "int", low=1, high=20),
        ContentField("masse", N_("Mass of a hunter (M1–M5; empty: the house one)"), "int",
                     low=1, high=5, required=False),
    ), RULE_PROFILES, check=_check_profile, listed=("profile", "dmax", "masse"))


RULE_SCENARIO = scenario.RULE
TERRAIN_HELP = N_("One element a line: kind, x, y, width, height (inches, from the top-left "
                  "corner), label — e.g. “arbre 8 10 6 5 Bosquet”. Kinds: obstacle, "
                  "infranchissable, difficile, arbre, buisson, riviere, camp. Separate with "
                  "“;” when a label holds spaces.")
PREY_HELP = N_("One prey a line: species, x, y, then optionally its group and the word "
               "dominant — e.g. “sanglier 24 8 harde dominant”. The species by its name or "
               "key (“Cheval sauvage; 12; 6; troupeau” with “;” when the name holds spaces).")
DIRECTION_HELP = N_("Optional: 6 directions (red die 1 to 6) among north, east, south, "
                    "west; empty: the game's table.")
EDGE_NAMES = {"bottom": N_("bottom of the board"), "top": N_("top of the board"),
              "left": N_("left edge"), "right": N_("right edge")}


def _check_scenario(data: Mapping[str, Any], content: Content) -> list[Problem]:
    """A GM's scenario, checked by the rules of the ready ones (``scenario.problems_of``)."""
    return scenario.from_item(data, prey_species(content))[1]


def _scenario_kind() -> ContentKind:
    return ContentKind("scenario", N_("Hunting scenarios"), (
        ContentField("width", N_("Width of the ground (inches)"), "int", low=12, high=120),
        ContentField("height", N_("Height of the ground (inches)"), "int", low=12, high=120),
        ContentField("turns", N_("Turns"), "int", low=1, high=30),
        ContentField("north", N_("North"), "choice",
                     choices=tuple(scenario.NORTH_NAMES.items())),
        ContentField("camp_edge", N_("Hunters' camp along"), "choice",
                     choices=tuple(EDGE_NAMES.items()), required=False,
                     help=N_("Empty: draw a camp element among the terrain.")),
        ContentField("terrain", N_("Terrain elements"), "lines", required=False,
                     help=TERRAIN_HELP),
        ContentField("prey", N_("Prey, herds and packs"), "lines", required=False,
                     help=PREY_HELP),  # none: the check says "place at least one prey"
        ContentField("threat_placide", N_("Threat test, placid prey"), "text",
                     required=False, help=N_("Optional: 8 words (blue die 0 to 7) among "
                                             "fuit, reste, attaque, charge; empty: the "
                                             "game's table.")),
        ContentField("threat_agressive", N_("Threat test, aggressive prey"), "text",
                     required=False, help=N_("Optional: 8 words (blue die 0 to 7) among "
                                             "fuit, reste, attaque, charge; empty: the "
                                             "game's table.")),
        ContentField("idle_outcomes", N_("End-of-turn test"), "text", required=False,
                     help=N_("Optional: 8 words (blue die 0 to 7) among reste, erre-demi, "
                             "erre, rode; empty: the game's table.")),
        ContentField("idle_directions", N_("End-of-turn directions"), "text",
                     required=False, help=DIRECTION_HELP),
    ), RULE_SCENARIO, check=_check_scenario,
        listed=("width", "height", "turns", "north", "terrain", "prey"))


class ChasseSystem:
    key = "chasse"
    name_fr = "Chasse préhistorique"
    name_en = "Prehistoric hunt"
    summary = N_("Tribes of hunters bring food back to their camp: they move, throw and fight "
                 "on a ground measured in inches, while the prey flee, wander or charge by "
                 "themselves and fire spreads.")
    seed_file = "003_17f6fe9f5d5d7b1b.txt"
    uses_board = True
    board_defaults = setup.BOARD
    content_kinds = (_weapon_kind(), _prey_kind(), _scenario_kind(), _profile_kind())
    saves_match_as = "scenario"  # a GM keeps a hunt's ground as a campaign scenario
    starts_match_from = "scenario"  # « Lancer une chasse » on a scenario
    start_label = N_("Start a hunt")
    class_names = CLASS_NAMES
    speed_names = SPEED_NAMES

    def new_sheet(self) -> Sheet:
        return blank_sheet()

    def validate_sheet(self, sheet: Sheet, content: Content = NO_CONTENT) -> list[Problem]:
        return validate(sheet, content)

    def derived(self, sheet: Sheet, content: Content = NO_CONTENT) -> dict[str, Any]:
        return derived(sheet, content)

    def sheet_from_form(self, form: Mapping[str, str]) -> Sheet:
        return from_form(form)

    def validate_change(self, before: Sheet, after: Sheet,
                        content: Content = NO_CONTENT) -> list[Problem]:
        return validate_change(before, after, content)

    # Rolls from the sheet: fire and each weapon's to-hit (``sheet_rolls.py``).
    sheet_roll_options = rolls.OPTIONS
    sheet_rolls = staticmethod(rolls.sheet_rolls)
    roll_on_sheet = staticmethod(rolls.roll_on_sheet)

    def weapon_choices(self, content: Content = NO_CONTENT) -> list[tuple[str, str]]:
        return [(key, w["name"]) for key, w in hunter_weapons(content).items()]

    def weapon_table(self, keys: list[str], content: Content = NO_CONTENT) -> list[dict]:
        """The printable sheet's weapon lines: ranges, to hit and save by class."""
        known = hunter_weapons(content)
        return [known[key] for key in keys if key in known]

    def compendium(self, content: Content = NO_CONTENT) -> list[CompendiumSection]:
        """The weapon table (ranges, to hit and save by class) and the prey species (mass,
        temperament, speed, natural weapon), the campaign's own marked (house tables: the
        seed's are missing, § Tirs and § Les figurines)."""
        def by_class(values: Mapping[str, int]) -> str:
            return " / ".join(f"{values[c]}+" if values[c] else "*" for c in CLASSES)

        known = weapons(content)
        weapon_entries = tuple(CompendiumEntry(weapon["name"], (
            (N_("Range"), f'{weapon["throw"][0]}" / {weapon["throw"][1]}"'
             if weapon.get("throw") else N_("melee")),
            (N_("To hit (light / medium / heavy)"), by_class(weapon["to_hit"])),
            (N_("Save (light / medium / heavy; * none)"), by_class(weapon["save"]))),
            own=weapon.get("source") == "gm") for weapon in hunter_weapons(content).values())
        played = house_profiles(content)
        speeds = played["speed"]
        prey_entries = tuple(CompendiumEntry(prey["name"], (
            (N_("Mass"), f'M{prey["masse"]}'),
            (N_("Temperament"), TEMPERAMENT_NAMES.get(prey["temperament"], prey["temperament"])),
            (N_("Speed"), SPEED_NAMES.get(prey["speed"], prey["speed"])),
            ("Dmax", f'{speeds[prey["speed"]]["dmax"]}"'),
            (N_("Natural weapon"), known.get(prey["weapon"], {}).get("name", prey["weapon"]))),
            own=prey.get("source") == "gm") for prey in prey_species(content).values())
        species = prey_species(content)
        scenario_entries = []
        for entry in scenarios(content).values():
            counts: dict[str, int] = {}
            for placed in entry["prey"]:
                name = species.get(placed["species"], {}).get("name", placed["species"])
                counts[name] = counts.get(name, 0) + 1
            scenario_entries.append(CompendiumEntry(entry["name"], (
                (N_("Ground"), f'{entry["width"]} × {entry["height"]}"'),
                (N_("Turns"), entry["turns"]),
                (N_("North"), scenario.NORTH_NAMES[entry.get("north", "top")]),
                (N_("Prey"), ", ".join(f"{n} × {name}" for name, n in counts.items())),
                (N_("Terrain elements"), len(scenario.board_terrain(entry))),
                (N_("Own prey tables"), "reactions" in entry)),
                own=entry.get("source") == "gm", start_key=entry["key"]))
        return [CompendiumSection("weapon", N_("Weapons"), weapon_entries, RULE_WEAPONS),
                CompendiumSection("prey", N_("Prey species"), prey_entries, RULE_PREY),
                CompendiumSection("scenario", N_("Hunting scenarios"), tuple(scenario_entries),
                                  RULE_SCENARIO)]

    def demo_characters(self) -> list[DemoCharacter]:
        return [
            DemoCharacter("Ourk le Pisteur", {**blank_sheet(), "weapons": ["javelot", "couteau"]},
                          player=0),
            DemoCharacter("Ghâ la Chamane", {**blank_sheet(), "shaman": True,
                                             "weapons": ["fronde", "couteau"]}, player=0),
            DemoCharacter("Bronk", {**blank_sheet(), "profile": "pataud",
                                    "weapons": ["lance", "massue"]}, player=1),
        ]

    def demo_content(self) -> list[tuple[str, str, dict[str, Any]]]:
        """A GM's scenario in the demo campaign, written as a GM writes one (content page,
        *Scénarios de chasse*), so a newcomer finds one to read, edit and start a hunt from."""
        return [("scenario", "Le gué des aurochs", {
            "width": 40, "height": 30, "turns": 6, "north": "top", "camp_edge": "bottom",
            "terrain": "riviere 0 12 40 3 Le gué\narbre 4 4 7 5 Bosquet\n"
                       "buisson 26 18 5 3 Ronces\ninfranchissable 32 3 5 4 Rochers",
            "prey": "aurochs 18 6 harde dominant\naurochs 21 5 harde\naurochs 16 4 harde\n"
                    "loup 34 20 meute dominant\nloup 36 21 meute",
            "threat_placide": "", "threat_agressive": "", "idle_outcomes": "",
            "idle_directions": ""})]

    def demo_match(self, character_ids: Mapping[str, int]) -> DemoMatch:
        """The boar valley: scenario chosen, the hunt begun, the hunters moving up."""
        return DemoMatch("La vallée des sangliers", ("Ourk le Pisteur", "Ghâ la Chamane",
                                                     "Bronk"), steps=(
            DemoStep({"kind": "choose_scenario", "scenario": "vallee"}),
            DemoStep({"kind": "begin_hunt"}),
            DemoStep({"kind": "next_step"}, by=0),
            DemoStep({"kind": "move", "token": "t1", "x": 14, "y": 29}, by=0),
            DemoStep({"kind": "move", "token": "t2", "x": 26, "y": 29}, by=0),
        ))

    def content_from_match(self, state: Mapping[str, Any]) -> dict[str, Any]:
        """The hunt's ground, turns, north, prey and tables as a scenario's fields."""
        return scenario.item_from_state(state)

    @staticmethod
    def start(match_setup: MatchSetup, dice: Any) -> list[Event]:
        """The hunt opened, and when ``options["scenario"]`` names a scenario (a ready one
        or the campaign's), that scenario set up at once, as the GM's *Scénario* would."""
        events = setup.start(match_setup, dice)
        key = match_setup.options.get("scenario")
        if key:
            state_now = fold(CHASSE, events)
            events += actions.decide(state_now, {"kind": "choose_scenario", "scenario": key},
                                     Actor(None, is_gm=True), dice)
        return events

    decide = staticmethod(actions.decide)
    # a throw's odds before it is thrown (issue 27, docs/odds.md)
    odds = staticmethod(chasse_odds.odds)
    odds_kinds = chasse_odds.KINDS
    evolve = staticmethod(state.evolve)
    legal_actions = staticmethod(match.legal_actions)
    view = staticmethod(match.view)
    check_state = staticmethod(state_check.check_state)
    between_matches = staticmethod(match.between_matches)
    outcome = staticmethod(ending.outcome)  # app/rules/outcome.py


CHASSE = ChasseSystem()
