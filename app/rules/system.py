"""The contract every game implements (``GameSystem``), and the plain data it speaks.

The platform only needs a system's names and its character sheet; the table engine adds
match set-up, legal actions, ``apply`` and viewer filtering (see ``docs/game-system.md``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from app.rules.dice import Dice
from app.rules.match import ActionForm, Actor, Event, MatchSetup, State

Sheet = dict[str, Any]


def N_(message: str) -> str:
    """Mark a message for translation; the web layer translates it when shown."""
    return message


@dataclass(frozen=True)
class Problem:
    """One broken rule in a sheet: where, what, and which rule says so."""

    field: str
    message: str
    rule: str
    params: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class DemoCharacter:
    name: str
    sheet: Sheet
    notes: str = ""
    # Which demo account plays it; None for a GM's non-player character.
    player: int | None = None


@dataclass(frozen=True)
class DemoStep:
    """One action of a demo match, taken by the GM (``by=None``) or by the demo player of
    that index (``DemoCharacter.player``)."""

    action: Mapping[str, Any]
    by: int | None = None


@dataclass(frozen=True)
class DemoMatch:
    """A match the demo opens and plays a little, so that a newcomer's first click lands on
    a living table. Its steps go through the table engine like anyone's actions, with
    ``SeededDice(seed)``: the same demo every time."""

    name: str
    # The demo characters seated, by name, in this order (the system's ids follow it).
    participants: tuple[str, ...]
    steps: tuple[DemoStep, ...] = ()
    options: Mapping[str, Any] = field(default_factory=dict)
    seed: int = 2026


@dataclass(frozen=True)
class ContentField:
    """One field of a custom content item, as its GM form shows it.

    ``kind``: ``"text"``, ``"int"`` (within ``low``..``high``), ``"choice"`` (one of
    ``choices``, each a ``(value, label msgid)`` pair), ``"bool"`` or ``"lines"`` (a text of
    several lines that the game reads, one element a line; ``help`` says how).
    """

    name: str
    label: str
    kind: str = "text"
    low: int | None = None
    high: int | None = None
    choices: tuple[tuple[str, str], ...] = ()
    required: bool = True
    help: str = ""  # a msgid shown under the input


@dataclass(frozen=True)
class ContentKind:
    """A kind of game content a GM may add to a campaign (weapons, vehicles, implants…)."""

    key: str
    label: str
    fields: tuple[ContentField, ...]
    # Where the catalogue of this kind comes from in the seed, shown beside the GM's items.
    rule: str = ""
    # The game's own check of a whole item, after each field passed its own: ``check(data,
    # content)`` returns the broken rules (``Problem``; the first is shown at its field).
    # ``content`` is the campaign's other custom content (a scenario names its species).
    check: Callable[[Mapping[str, Any], Content], list[Problem]] | None = None
    # The fields the GM's list of items shows as columns (all when empty): a kind with many
    # fields keeps its table readable; the edit page shows them all.
    listed: tuple[str, ...] = ()

    def listed_fields(self) -> tuple[ContentField, ...]:
        return tuple(f for f in self.fields if not self.listed or f.name in self.listed)


@dataclass(frozen=True)
class CompendiumEntry:
    """One thing of a game's catalogue as a player browses it: its name, its figures
    (``(label msgid, value)``; a text value is shown through the catalogue too, so a word
    such as "melee" reads « corps à corps »), what it does, and whether it is the campaign's
    own (custom content) rather than the game's."""

    name: str
    figures: tuple[tuple[str, Any], ...] = ()
    text: str = ""
    own: bool = False
    text_fr: str = ""  # the text in the seed's own French words, for French readers
    start_key: str = ""  # a new match may open with it set up (``starts_match_from``)


@dataclass(frozen=True)
class CompendiumSection:
    key: str
    title: str  # a msgid
    entries: tuple[CompendiumEntry, ...]
    rule: str = ""  # where the catalogue comes from (« Mutatior § 2-2 Organes »)
    # Filters the page offers on this section: (parameter, figure label msgid); a value is
    # one of the figure's comma-separated items (« Boxe, Karaté » is in Boxe and in Karaté).
    facets: tuple[tuple[str, str], ...] = ()


def content_compendium(kinds: tuple[ContentKind, ...],
                       content: Content) -> list[CompendiumSection]:
    """The compendium every game has without writing one: the campaign's own items of each
    content kind, with the fields the GM filled in. A game with a catalogue of its own
    defines ``compendium(content)`` (``docs/game-system.md``) and lists both."""
    sections = []
    for kind in kinds:
        entries = tuple(
            CompendiumEntry(str(item.get("name", "")), tuple(
                (field.label, item.get(field.name)) for field in kind.fields
                if item.get(field.name) not in (None, "")), own=True)
            for item in content.get(kind.key, []))
        sections.append(CompendiumSection(kind.key, kind.label, entries, kind.rule))
    return sections


@dataclass(frozen=True)
class SummaryMatch:
    """A match of the campaign as ``campaign_summary`` reads it: its id (the page links it),
    name, status and snapshot — the whole state: the game keeps only what every member may
    see."""

    id: int
    name: str
    status: str
    state: Mapping[str, Any]


@dataclass(frozen=True)
class SummaryCharacter:
    """A roster character as ``campaign_summary`` reads it."""

    id: int
    name: str
    sheet: Mapping[str, Any]


# A campaign's custom content as the rules see it: kind key → items, each a dict with
# ``key`` (a slug unique in its kind), ``name``, the kind's fields and ``source = "gm"``.
Content = Mapping[str, list[dict[str, Any]]]
NO_CONTENT: Content = {}


@runtime_checkable
class GameSystem(Protocol):
    key: str
    name_fr: str
    name_en: str
    # The rule text it implements, under shared/seeds/ (None for house systems).
    seed_file: str | None
    uses_board: bool
    # What the GM may add per campaign (empty for none); the platform stores, validates
    # by ``ContentField`` and hands it to the rules as ``Content``.
    content_kinds: tuple[ContentKind, ...]

    def new_sheet(self) -> Sheet:
        """A blank, valid sheet for a new character."""

    def validate_sheet(self, sheet: Sheet, content: Content = NO_CONTENT) -> list[Problem]:
        """Every problem with ``sheet``; an empty list means it is valid. ``content`` is the
        campaign's custom content (a sheet may use a GM's weapon or implant)."""

    def derived(self, sheet: Sheet, content: Content = NO_CONTENT) -> dict[str, Any]:
        """Values computed from the sheet (shown, never stored)."""

    def sheet_from_form(self, form: Mapping[str, str]) -> Sheet:
        """Build a sheet from the edit form's fields (strings); never raises."""

    def demo_characters(self) -> list[DemoCharacter]:
        """Ready characters for the demo campaign."""

    # — the table (docs/game-system.md) —

    def start(self, setup: MatchSetup, dice: Dice) -> list[Event]:
        """The events that open a match (participants placed, anything rolled at set-up).

        ``setup.options["content"]`` holds the campaign's custom ``Content``: copy what the
        match needs into the events, so folding the log never depends on later edits."""

    def legal_actions(self, state: State, actor: Actor) -> list[ActionForm]:
        """What ``actor`` may do now; the page offers only these forms."""

    def decide(self, state: State, action: Mapping[str, Any], actor: Actor,
               dice: Dice) -> list[Event]:
        """Judge an action: the events it causes, or ``IllegalAction`` with the reason.

        The only place dice are rolled; every outcome goes into the events.
        """

    def evolve(self, state: State, event: Event) -> State:
        """Fold one event into the state: pure, no dice (may update ``state`` in place)."""

    def view(self, state: State, viewer: Actor) -> State:
        """What ``viewer`` may see of the state (hidden hands, secret positions…)."""

    # — optional members (the platform looks them up with getattr) —
    #
    # ``roll_sheet(self, dice, chosen) -> tuple[Sheet, list[RollRecord]]``: for games whose
    #   creation rolls dice (characteristics, santé, talents…): ``chosen`` with what the dice
    #   decide rolled into it. The platform creates the character with this sheet and signs
    #   the rolls into the campaign's roll log.
    # ``rolled_fields: tuple[str, ...]``: top-level sheet keys a player may not change once
    #   set (the rolled ones); only the GM may, and the platform refuses it from a player.
    # ``chooses_before_rolling: bool``: the new-character page is the whole builder and the
    #   dice complete it (Tiamat); else the dice come first (Cyborg).
    # ``sheet_rolls(sheet, content)``, ``roll_on_sheet(sheet, key, options, dice, *, name,
    #   content)``, ``sheet_roll_options``: rolls from a sheet (``app/rules/sheet_rolls.py``).
    # ``board_defaults: Mapping[str, Any]``: the new-match form's board (``unit``, ``width``,
    #   ``height``) for a game on a board; else 120 × 80 cm.
    # ``demo_match(self, character_ids: Mapping[str, int]) -> DemoMatch | None``: the match
    #   the demo campaign opens with its ready characters (demo character name → id), and
    #   the steps that bring it to a living table (initiative rolled, a few moves…).
    # ``validate_change(before, after, content) -> list[Problem]``: what is wrong with how a
    #   player changed a saved sheet (the game's rules between matches: healing paid for,
    #   organs that may not move…). Checked on a player's save, after ``validate_sheet``,
    #   and on a player's new character as a change from ``new_sheet()`` (no experience or
    #   money the rules did not give); the GM's edits are corrections and are not judged.
    # ``compendium(self, content) -> list[CompendiumSection]``: the game's catalogue as a
    #   player browses it (weapons, implants, skills… with their figures), the campaign's
    #   own items (``content``) among them, marked ``own``. Without it, the platform lists
    #   the campaign's items of each content kind (``content_compendium``).
    # ``check_state(self, state) -> list[Problem]``: every value of a state the game's pages
    #   and rules could not read (a token at ``x: "abc"``, a turn on nobody), each at its
    #   path in the state, with the bounds its actions enforce (``app.rules.state_check``).
    #   A campaign import runs it after every event and refuses the file at the first one.
    # ``campaign_summary(self, matches: list[SummaryMatch], characters:
    #   list[SummaryCharacter]) -> Mapping[str, Any] | None``: the game's panel on the
    #   campaign page (``systems/<key>/_campaign.html``) and ``GET /api/v1/campaigns/{id}/
    #   summary``: standings, history… from the campaign's matches of this game, oldest first,
    #   and its roster. JSON-only data, and only what every member may see. Without it (or
    #   ``None``) there is no panel and the API answers ``summary: null``.

    def between_matches(self, state: State, sheets: Mapping[int, Sheet]) -> dict[int, Sheet]:
        """When a match ends: the sheets it changes (wounds, experience, money…), by
        character id. Sheets not in the answer are left as they are."""
