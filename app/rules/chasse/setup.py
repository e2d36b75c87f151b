"""Opening a hunt: the hunters from the roster, the sides, the content copied into the log;
then the GM's scenario (ground, camp, prey) and prey (seed § Les figurines, § Le terrain de
chasse). Hunters stand along the south edge (the camp side) until the GM or their player
moves them; the north is the top of the board until a scenario puts it elsewhere."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.rules.board import new_board
from app.rules.chasse.content import (
    house_profiles,
    prey_species,
    profiles,
    reactions,
    scenarios,
    weapons,
)
from app.rules.chasse.scenario import board_terrain
from app.rules.dice import Dice
from app.rules.match import Event, MatchSetup

BOARD = {"unit": "in", "width": 48, "height": 36}


def start(setup: MatchSetup, dice: Dice) -> list[Event]:
    options = setup.options
    content = options.get("content") or {}
    board = {**new_board(options, **BOARD), "north": "top"}  # until a scenario says
    sides: list[dict[str, Any]] = []
    hunters = []
    for index, participant in enumerate(setup.participants):
        owner = participant.owner_id
        side = next((s for s in sides if s["owner_id"] == owner), None)
        if side is None:
            side = {"id": f"s{len(sides) + 1}", "owner_id": owner, "name": participant.name,
                    "food": 0, "store": 0}
            sides.append(side)
        # The tribe's store: the food its hunters brought back in earlier hunts (their sheets
        # keep it from hunt to hunt, ``between_matches``), shown beside this hunt's.
        food = (participant.sheet or {}).get("food")
        side["store"] += food if isinstance(food, int) and food > 0 else 0
        hunters.append(_hunter(index, participant.name, participant.character_id, owner,
                               side["id"], participant.sheet or {}, board,
                               len(setup.participants), house_profiles(content)["hunter"]))
    played = house_profiles(content)
    catalogue = {"weapons": weapons(content), "prey": prey_species(content),
                 # the movement profiles as this campaign plays them (the GM's changes)
                 "profiles": played,
                 # the campaign's own scenarios, copied like its weapons and species
                 "scenarios": {key: entry for key, entry in scenarios(content).items()
                               if entry.get("source") == "gm"}}
    rx = reactions()
    events = [Event("match_started", {
        "name": setup.name, "board": board, "catalogue": catalogue, "sides": sides,
        "reactions": {"threat": dict(rx["threat"]), "idle": dict(rx["idle"])}})]
    events += [Event("hunter_added", {"token": token}) for token in hunters]
    return events


def _hunter(index: int, name: str, character_id: int | None, owner: int | None, side: str,
            sheet: Mapping[str, Any], board: Mapping[str, Any], count: int,
            played: Mapping[str, Any]) -> dict[str, Any]:
    profile = sheet.get("profile", "standard")
    profile = profile if profile in played else "standard"
    data = played[profile]
    return {"id": f"t{index + 1}", "kind": "hunter", "name": name,
            "character_id": character_id, "owner_id": owner, "side": side,
            "profile": profile, "shaman": bool(sheet.get("shaman")),
            "weapons": list(sheet.get("weapons") or ["mains_nues"]),
            "masse": int(data["masse"]), "dmax": data["dmax"],
            "melee_bonus": data["melee_bonus"], "wounds": int(sheet.get("wounds") or 0),
            "x": round((index + 1) * board["width"] / (count + 1), 2),
            "y": max(board["height"] - 2, 0),
            # A hunter who died in an earlier hunt comes as a memory: it never acts.
            "state": "dead" if sheet.get("dead") else "ok", "food": 0, "carried": 0,
            "brought": 0,
            "moved": False, "fought": False, "shot": False, "lit": False, "picked": 0,
            "charged": False, "charged_last": False, "charge_target": None}


def prey_token(state: Mapping[str, Any], species_key: str, *, x: float, y: float,
               group: str = "", dominant: bool = False) -> dict[str, Any]:
    species = state["catalogue"]["prey"][species_key]
    # a match opened before the GM could change the profiles has none: the house ones
    speed = state["catalogue"].get("profiles", profiles())["speed"][species["speed"]]
    return {"id": f"t{state['next_token']}", "kind": "prey", "name": species["name"],
            "species": species_key, "temperament": species["temperament"],
            "speed": species["speed"], "dmax": speed["dmax"], "masse": species["masse"],
            "weapon": species["weapon"], "wounds": 0, "x": x, "y": y, "group": group,
            "dominant": dominant, "state": "ok", "reacted": False, "attacked": False,
            "fled_fire": False, "fought": False}


def hunt_scenarios(state: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The ready hunts and the campaign's own, as copied when the match began."""
    return {**scenarios(), **state["catalogue"].get("scenarios", {})}


def scenario_payload(entry: Mapping[str, Any]) -> dict[str, Any]:
    terrain = board_terrain(entry)
    payload = {"scenario": {"key": entry["key"], "name": entry["name"],
                            "turns": entry["turns"]},
               "board": {"unit": "in", "width": entry["width"], "height": entry["height"],
                         "north": entry.get("north", "top"), "terrain": terrain}}
    if "reactions" in entry:  # a scenario's own prey tables (checked at load)
        payload["reactions"] = {"threat": dict(entry["reactions"]["threat"]),
                                "idle": dict(entry["reactions"]["idle"])}
    return payload


def camp_line(board: Mapping[str, Any], count: int) -> list[list[float]]:
    """Where ``count`` hunters stand in the camp: spread along its long side, 1" inside its
    edge that faces the hunting ground (the bottom edge, 3" in, when there is no camp)."""
    camp = next((shape for shape in board.get("terrain", []) if shape.get("kind") == "camp"),
                None)
    if camp is None:
        return [[round((n + 1) * board["width"] / (count + 1), 2), board["height"] - 3]
                for n in range(count)]
    if camp["w"] >= camp["h"]:
        low = camp["y"] + camp["h"] / 2 > board["height"] / 2
        y = camp["y"] + min(1, camp["h"] / 2) if low else \
            camp["y"] + camp["h"] - min(1, camp["h"] / 2)
        return [[round(camp["x"] + (n + 1) * camp["w"] / (count + 1), 2), round(y, 2)]
                for n in range(count)]
    right = camp["x"] + camp["w"] / 2 > board["width"] / 2
    x = camp["x"] + min(1, camp["w"] / 2) if right else \
        camp["x"] + camp["w"] - min(1, camp["w"] / 2)
    return [[round(x, 2), round(camp["y"] + (n + 1) * camp["h"] / (count + 1), 2)]
            for n in range(count)]
