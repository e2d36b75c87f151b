"""Hunting scenarios: the ready ones (``data/scenarios.toml``) and a campaign GM's own
(custom content of kind ``scenario``), checked by one set of rules (seed § Le terrain de
chasse: the ground "au bon vouloir du scénariste", "la seule obligation est de bien désigner
où se trouve le nord").

A scenario: the board's size in inches, the number of turns, where the north is (an edge of
the board), the hunters' camp (a ``camp`` terrain element, or a camp edge that draws one),
the terrain elements, the prey placed with their groups and dominants, and optionally its own
prey reaction tables. A GM writes the elements and the prey one per line:

- terrain: ``kind x y width height label`` — ``arbre 8 10 6 5 Bosquet``;
- prey: ``species x y group dominant`` — ``sanglier 24 8 harde dominant``
  (species by its key or its name; the group and the word ``dominant`` are optional).

Fields are separated by spaces, or by ``;`` when a name holds spaces
(``Cheval sauvage; 12; 6; troupeau``); a decimal takes a point or a comma.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping
from typing import Any

from app.rules.chasse.content import (
    DIRECTIONS,
    IDLE_OUTCOMES,
    TERRAIN_KINDS,
    THREAT_OUTCOMES,
    reactions,
)
from app.rules.system import N_, Problem

RULE = N_("Chasse préhistorique § Le terrain de chasse (scenarios are house content: the "
          "text leaves the ground to the scenario's author)")
NORTHS = ("top", "right", "bottom", "left")
NORTH_NAMES = {"top": N_("top of the board"), "right": N_("right edge"),
               "bottom": N_("bottom of the board"), "left": N_("left edge")}
CAMP_DEPTH = 4
SIZE = (12, 120)
TURNS = (1, 30)
LINES_MAX = 60
TERRAIN_WORDS = {**{kind: kind for kind in TERRAIN_KINDS},
                 "tree": "arbre", "trees": "arbre", "bush": "buisson", "river": "riviere",
                 "impassable": "infranchissable", "difficult": "difficile", "rocks":
                 "infranchissable"}
REACTION_FIELDS = {"threat_placide": (THREAT_OUTCOMES, 8), "threat_agressive":
                   (THREAT_OUTCOMES, 8), "idle_outcomes": (IDLE_OUTCOMES, 8),
                   "idle_directions": (tuple(DIRECTIONS), 6)}


def folded(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.casefold().strip())
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def _problem(field: str, message: str, **params: Any) -> Problem:
    return Problem(field, message, RULE, params)


def _number(text: str) -> float | None:
    try:
        value = float(text.replace(",", "."))
    except ValueError:
        return None
    return value if value == value and abs(value) < 10_000 else None  # NaN, absurd


def _split(line: str) -> list[str]:
    if ";" in line:
        return [part.strip() for part in line.split(";")]
    return line.split()


def _lines(text: str) -> list[tuple[int, str]]:
    return [(n, line.strip()) for n, line in enumerate(str(text or "").splitlines(), 1)
            if line.strip() and not line.strip().startswith("#")]


def parse_terrain(text: str) -> tuple[list[dict[str, Any]], list[Problem]]:
    """``kind x y w h label`` per line."""
    found, problems = [], []
    for n, line in _lines(text)[:LINES_MAX + 1]:
        parts = _split(line)
        kind = TERRAIN_WORDS.get(folded(parts[0])) if parts else None
        if kind is None:
            problems.append(_problem("terrain", N_(
                "Terrain, line %(line)s: “%(word)s” is not a kind of ground (obstacle, "
                "infranchissable, difficile, arbre, buisson, riviere, camp)."),
                line=n, word=parts[0][:30] if parts else ""))
            continue
        numbers = [_number(part) for part in parts[1:5]]
        if len(numbers) < 4 or any(value is None for value in numbers):
            problems.append(_problem("terrain", N_(
                "Terrain, line %(line)s: give the kind, then x, y, width and height in "
                "inches, then a label."), line=n))
            continue
        x, y, w, h = (float(v) for v in numbers)  # type: ignore[arg-type]
        found.append({"kind": kind, "x": x, "y": y, "w": w, "h": h,
                      "label": " ".join(parts[5:])[:40], "line": n})
    return found, problems


def _species_key(word: str, species: Mapping[str, Mapping[str, Any]]) -> str | None:
    wanted = folded(word)
    for key, entry in species.items():
        if wanted in (folded(key), folded(entry.get("name", ""))):
            return key
    return None


def parse_prey(text: str, species: Mapping[str, Mapping[str, Any]]) -> tuple[
        list[dict[str, Any]], list[Problem]]:
    """``species x y [group] [dominant]`` per line."""
    found, problems = [], []
    for n, line in _lines(text)[:LINES_MAX + 1]:
        parts = _split(line)
        key = _species_key(parts[0], species) if parts else None
        if key is None:
            problems.append(_problem("prey", N_(
                "Prey, line %(line)s: “%(word)s” is not a prey species of this campaign."),
                line=n, word=parts[0][:30] if parts else ""))
            continue
        numbers = [_number(part) for part in parts[1:3]]
        if len(numbers) < 2 or any(value is None for value in numbers):
            problems.append(_problem("prey", N_(
                "Prey, line %(line)s: give the species, then x and y in inches, then "
                "optionally a group and the word dominant."), line=n))
            continue
        rest = parts[3:]
        dominant = bool(rest) and folded(rest[-1]) in ("dominant", "dominante")
        group = " ".join(rest[:-1] if dominant else rest)[:40]
        placed = {"species": key, "x": float(numbers[0]),  # type: ignore[arg-type]
                  "y": float(numbers[1]), "line": n}  # type: ignore[arg-type]
        if group:
            placed["group"] = group
        if dominant:
            placed["dominant"] = True
        found.append(placed)
    return found, problems


def camp_shape(edge: str, width: float, height: float) -> dict[str, Any]:
    """The camp drawn along a board edge, ``CAMP_DEPTH`` inches deep."""
    depth = CAMP_DEPTH
    shape = {"bottom": (0, height - depth, width, depth), "top": (0, 0, width, depth),
             "left": (0, 0, depth, height), "right": (width - depth, 0, depth, height)}[edge]
    return {"kind": "camp", "label": "Camp", "x": shape[0], "y": shape[1], "w": shape[2],
            "h": shape[3]}


def _inside(point: tuple[float, float], shape: Mapping[str, Any]) -> bool:
    return (shape["x"] < point[0] < shape["x"] + shape["w"]
            and shape["y"] < point[1] < shape["y"] + shape["h"])


def problems_of(entry: Mapping[str, Any], species: Iterable[str]) -> list[Problem]:
    """Every broken rule of a scenario (a ready one or a GM's), with where it is."""
    problems: list[Problem] = []
    width, height = entry.get("width"), entry.get("height")
    for field, value in (("width", width), ("height", height)):
        if not isinstance(value, int | float) or not SIZE[0] <= value <= SIZE[1]:
            problems.append(_problem(field, N_("The ground measures %(low)s to %(high)s "
                                               "inches a side."), low=SIZE[0], high=SIZE[1]))
    if problems:
        return problems
    turns = entry.get("turns")
    if not isinstance(turns, int) or not TURNS[0] <= turns <= TURNS[1]:
        problems.append(_problem("turns", N_("A hunt lasts %(low)s to %(high)s turns."),
                                 low=TURNS[0], high=TURNS[1]))
    if entry.get("north", "top") not in NORTHS:
        problems.append(_problem("north", N_("Say where the north is.")))
    terrain = list(entry.get("terrain", []))
    for index, shape in enumerate(terrain, 1):
        where = shape.get("line", index)
        if shape.get("kind") not in TERRAIN_KINDS:
            problems.append(_problem("terrain", N_("Terrain, line %(where)s: unknown kind of "
                                                   "ground."), where=where))
        elif shape["w"] <= 0 or shape["h"] <= 0 or shape["x"] < 0 or shape["y"] < 0 or \
                shape["x"] + shape["w"] > width + 1e-9 or shape["y"] + shape["h"] > height + 1e-9:
            problems.append(_problem("terrain", N_(
                "Terrain, line %(where)s: the element must have a size and lie on the %(width)s × "
                "%(height)s\" ground."), where=where, width=width, height=height))
    if len(terrain) > LINES_MAX:
        problems.append(_problem("terrain", N_("At most %(n)s terrain elements."),
                                 n=LINES_MAX))
    edge = entry.get("camp_edge") or ""
    if edge and edge not in NORTHS:
        problems.append(_problem("camp_edge", N_("Choose the edge of the hunters' camp.")))
    if not edge and not any(shape.get("kind") == "camp" for shape in terrain):
        problems.append(_problem("camp_edge", N_(
            "The hunters need a camp: choose its edge or draw a camp element.")))
    placed = list(entry.get("prey", []))
    known = set(species)
    if not placed:
        problems.append(_problem("prey", N_("Place at least one prey.")))
    if len(placed) > LINES_MAX:
        problems.append(_problem("prey", N_("At most %(n)s prey."), n=LINES_MAX))
    dominants: dict[str, int] = {}
    for index, prey in enumerate(placed, 1):
        where = prey.get("line", index)
        point = (prey.get("x", -1), prey.get("y", -1))
        if prey.get("species") not in known:
            problems.append(_problem("prey", N_("Prey, line %(where)s: unknown species."),
                                     where=where))
        elif not (0 <= point[0] <= width and 0 <= point[1] <= height):
            problems.append(_problem("prey", N_(
                "Prey, line %(where)s: the point %(x)s, %(y)s is off the %(width)s × %(height)s\" "
                "ground."), where=where, x=point[0], y=point[1], width=width, height=height))
        elif any(shape.get("kind") == "infranchissable" and _inside(point, shape)
                 for shape in terrain):
            problems.append(_problem("prey", N_("Prey, line %(where)s: it stands on impassable "
                                                "ground."), where=where))
        if prey.get("dominant"):
            if not prey.get("group"):
                problems.append(_problem("prey", N_(
                    "Prey, line %(where)s: a dominant leads a group: give the group's name."),
                    where=where))
            dominants[prey.get("group", "")] = dominants.get(prey.get("group", ""), 0) + 1
    for group, count in sorted(dominants.items()):
        if group and count > 1:
            problems.append(_problem("prey", N_("The group %(group)s has %(n)s dominants: "
                                                "one leads it."), group=group, n=count))
    tables = entry.get("reactions")
    if tables is not None:
        problems += reaction_problems(tables)
    return problems


def reaction_problems(tables: Mapping[str, Any]) -> list[Problem]:
    rows = {"threat_placide": tables.get("threat", {}).get("placide"),
            "threat_agressive": tables.get("threat", {}).get("agressive"),
            "idle_outcomes": tables.get("idle", {}).get("outcomes"),
            "idle_directions": tables.get("idle", {}).get("directions")}
    problems = []
    for field, (allowed, size) in REACTION_FIELDS.items():
        row = rows[field]
        if not isinstance(row, list) or len(row) != size or not set(row) <= set(allowed):
            problems.append(_problem(field, N_(
                "Give %(n)s words, each one of: %(words)s."), n=size,
                words=", ".join(word.replace("_", "-") for word in allowed)))
    return problems


ENGLISH_DIRECTIONS = {"north": "nord", "east": "est", "south": "sud", "west": "ouest"}


def _words(text: object) -> list[str]:
    words = [folded(word).replace("-", "_")  # « erre-demi » as the GM writes it
             for word in str(text or "").replace(",", " ").split()]
    return [ENGLISH_DIRECTIONS.get(word, word) for word in words]


def from_item(item: Mapping[str, Any], species: Mapping[str, Mapping[str, Any]]) -> tuple[
        dict[str, Any], list[Problem]]:
    """A GM's scenario item (content fields) as a scenario, and what is wrong with it."""
    terrain, problems = parse_terrain(item.get("terrain", ""))
    placed, more = parse_prey(item.get("prey", ""), species)
    problems += more
    width, height = item.get("width"), item.get("height")
    edge = item.get("camp_edge") or ""
    entry: dict[str, Any] = {
        "key": item.get("key", ""), "name": item.get("name", ""), "source": "gm",
        "width": width, "height": height, "turns": item.get("turns"),
        "north": item.get("north") or "top", "camp_edge": edge,
        "terrain": terrain, "prey": placed}
    if any(str(item.get(field) or "").strip() for field in REACTION_FIELDS):
        base = reactions()
        rows = {field: _words(item.get(field)) for field in REACTION_FIELDS}
        entry["reactions"] = {
            "threat": {"placide": rows["threat_placide"] or list(base["threat"]["placide"]),
                       "agressive": rows["threat_agressive"]
                       or list(base["threat"]["agressive"])},
            "idle": {"outcomes": rows["idle_outcomes"] or list(base["idle"]["outcomes"]),
                     "directions": rows["idle_directions"]
                     or list(base["idle"]["directions"])}}
    if not problems:
        problems = problems_of(entry, species)
    return entry, problems


def board_terrain(entry: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The scenario's elements as board shapes (with the camp its edge draws)."""
    shapes = [dict(shape) for shape in entry["terrain"]]
    if entry.get("camp_edge"):
        shapes.insert(0, camp_shape(entry["camp_edge"], entry["width"], entry["height"]))
    return [{"id": f"z{n + 1}", "label": shape.get("label", ""), "kind": shape["kind"],
             "x": shape["x"], "y": shape["y"], "w": shape["w"], "h": shape["h"]}
            for n, shape in enumerate(shapes)]


def _text_number(value: float) -> str:
    return f"{value:g}"


def _plain(text: str) -> str:
    """A name as one field of a line (no separator, no line break inside)."""
    return " ".join(str(text).replace(";", ",").split())


def item_from_state(state: Mapping[str, Any]) -> dict[str, Any]:
    """A match's ground as a GM scenario's fields (to save it in the campaign): its board,
    turns, north, the terrain drawn, the living prey where they stand, and its prey tables
    when they differ from the game's."""
    board = state["board"]
    terrain = "\n".join(
        "; ".join([shape.get("kind") or "obstacle", *(_text_number(shape[k])
                                                      for k in ("x", "y", "w", "h")),
                   _plain(shape.get("label", ""))]).rstrip("; ")
        for shape in board.get("terrain", []))
    lines = []
    for token_id in state.get("order", []):
        token = state["tokens"][token_id]
        if token.get("kind") != "prey" or token.get("state") != "ok":
            continue
        parts = [token["species"], _text_number(token["x"]), _text_number(token["y"])]
        if token.get("group"):
            parts.append(_plain(token["group"]))
            if token.get("dominant"):
                parts.append("dominant")
        lines.append("; ".join(parts))
    scenario = state.get("scenario") or {}
    fields: dict[str, Any] = {
        "width": round(board["width"]), "height": round(board["height"]),
        "turns": int(scenario.get("turns") or 8), "north": board.get("north", "top"),
        "camp_edge": "", "terrain": terrain, "prey": "\n".join(lines)}
    tables, base = state.get("reactions") or {}, reactions()
    rows = {"threat_placide": (tables.get("threat", {}).get("placide"),
                               base["threat"]["placide"]),
            "threat_agressive": (tables.get("threat", {}).get("agressive"),
                                 base["threat"]["agressive"]),
            "idle_outcomes": (tables.get("idle", {}).get("outcomes"),
                              base["idle"]["outcomes"]),
            "idle_directions": (tables.get("idle", {}).get("directions"),
                                base["idle"]["directions"])}
    for field, (mine, theirs) in rows.items():
        fields[field] = " ".join(word.replace("_", "-") for word in mine) \
            if mine and list(mine) != list(theirs) else ""
    return fields


def compass(board: Mapping[str, Any], direction: str) -> tuple[float, float]:
    """A compass direction on the board, turned so that the north is where the scenario
    put it (top by default)."""
    x, y = DIRECTIONS[direction]
    for _ in range(NORTHS.index(board.get("north", "top"))):
        x, y = -y, x  # a quarter turn clockwise (y grows downwards)
    return (x + 0.0, y + 0.0)
