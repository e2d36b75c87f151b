"""Fire (seed § Incendie): lighting, spreading, burning figures.

- Allumer un feu: a D6, 6 (a shaman 3+), +1 per helper (3 at most). House: helpers are
  hunters of the same side within 2" who have not tried this turn; the fire is set within 2"
  of the lighter.
- Propagation: an element (a tree or bush shape) within 2" of a flame catches on 5–6; a
  burning element goes out by itself after 3 turns (house, issue 25: the turns of the tribe
  whose fire it is — three rounds, however many tribes hunt; a fire that spread from another
  is that fire's tribe's, from a burning figure the tribe playing).
- Dégâts: a figure within 1" of a flame rolls a D6 at step 1 (the text: "à la fin du tour",
  listed as step 1 of the next sequence): 5–6 it catches fire and may spread at once, and is
  removed at its next step 1, unfit to butcher.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from app.rules.chasse.resolve import Acc, d6
from app.rules.chasse.state import alive
from app.rules.dice import Dice
from app.rules.purposes import Purpose

RULE = "Chasse préhistorique § Incendie"
FLAMMABLE = ("arbre", "buisson")
SPREAD = 2.0
BURN = 1.0
SCARE = 5.0  # § Déplacements des Proies: "à moins de 5'' d'un feu"
LIFE = 3
CATCH = 5
HELPERS_MAX = 3


def _rect_gap(a: Mapping[str, Any], b: Mapping[str, Any]) -> float:
    dx = max(b["x"] - (a["x"] + a["w"]), a["x"] - (b["x"] + b["w"]), 0)
    dy = max(b["y"] - (a["y"] + a["h"]), a["y"] - (b["y"] + b["h"]), 0)
    return math.hypot(dx, dy)


def _area(thing: Mapping[str, Any]) -> dict[str, float]:
    """A fire or element as a rectangle (a point fire or a figure is a zero-size one)."""
    return {"x": thing["x"], "y": thing["y"], "w": thing.get("w", 0), "h": thing.get("h", 0)}


def gap(a: Mapping[str, Any], b: Mapping[str, Any]) -> float:
    return _rect_gap(_area(a), _area(b))


def fire_target(shaman: bool) -> int:
    return 3 if shaman else 6


def new_fire(state: Mapping[str, Any], *, x: float, y: float, w: float = 0, h: float = 0,
             label: str = "", element: str | None = None,
             side: str | None = None) -> dict[str, Any]:
    """A fire of ``side`` (the tribe whose turns it lasts), ``LIFE`` of them."""
    return {"id": f"f{state['next_fire']}", "x": x, "y": y, "w": w, "h": h, "label": label,
            "element": element, "turns_left": LIFE, "side": side}


def _playing(state: Mapping[str, Any]) -> str | None:
    sides = state.get("sides") or []
    return sides[state["active"]]["id"] if sides else None


def _burning_elements(state: Mapping[str, Any]) -> set[str]:
    return {fire["element"] for fire in state["fires"] if fire.get("element")}


def _spread_from(acc: Acc, dice: Dice, source: Mapping[str, Any], label: str) -> None:
    """Every flammable element within 2" of ``source`` rolls: 5–6 it catches (a fire of the
    source fire's tribe, or of the tribe playing when a burning figure spreads it)."""
    side = source.get("side") if "turns_left" in source else _playing(acc.state)
    for shape in acc.state["board"]["terrain"]:
        if shape.get("kind") not in FLAMMABLE or shape["id"] in _burning_elements(acc.state):
            continue
        if gap(source, shape) > SPREAD:
            continue
        roll = d6(dice, Purpose("spread — {name}", name=shape.get("label") or shape["id"]),
                  target=CATCH)
        payload: dict[str, Any] = {"element": shape["id"], "label": shape.get("label", ""),
                                   "from": label, "rolls": [roll], "rule": RULE}
        if roll["total"] >= CATCH:
            payload["fire"] = new_fire(acc.state, x=shape["x"], y=shape["y"], w=shape["w"],
                                       h=shape["h"], label=shape.get("label", ""),
                                       element=shape["id"], side=side)
            acc.emit("fire_spread", payload)
        else:
            acc.emit("fire_spread", {**payload, "fire": None})


def step_one(acc: Acc, dice: Dice) -> None:
    """Step 1: the burning figures fall, fires age, spread, and burn who stands near."""
    for token in sorted(acc.state["tokens"].values(), key=lambda t: int(t["id"][1:])):
        if token.get("state") == "burning":
            acc.emit("figure_burnt", {"token": token["id"], "name": token["name"],
                                      "rule": RULE})
    playing = _playing(acc.state)
    aging = [f for f in acc.state["fires"] if f.get("side") in (None, playing)]
    if aging:  # a fire ages at its own tribe's step 1 ("Au bout de 3 tours")
        out = [f["id"] for f in aging if f["turns_left"] <= 1]
        acc.emit("fires_aged", {"out": out, "aged": [f["id"] for f in aging],
                                "labels": [f["label"] for f in aging if f["id"] in out],
                                "rule": RULE})
    for fire in list(acc.state["fires"]):
        if fire in acc.state["fires"]:
            _spread_from(acc, dice, fire, fire.get("label") or fire["id"])
    for token in sorted(acc.state["tokens"].values(), key=lambda t: int(t["id"][1:])):
        if not alive(token):
            continue
        near = [f for f in acc.state["fires"] if gap(f, token) <= BURN]
        if not near:
            continue
        roll = d6(dice, Purpose("fire — {name}", name=token["name"]), target=CATCH)
        caught = roll["total"] >= CATCH
        acc.emit("fire_check", {"token": token["id"], "name": token["name"], "caught": caught,
                                "rolls": [roll], "rule": RULE})
        if caught:  # "peut le propager immédiatement"
            _spread_from(acc, dice, token, token["name"])


def near_fire(state: Mapping[str, Any], token: Mapping[str, Any]) -> dict[str, Any] | None:
    """The closest fire less than 5" away, if any."""
    best = None
    for fire in state["fires"]:
        d = gap(fire, token)
        if d < SCARE and (best is None or d < best[0]):
            best = (d, fire)
    return best[1] if best else None


def fire_centre(fire: Mapping[str, Any]) -> list[float]:
    return [fire["x"] + fire.get("w", 0) / 2, fire["y"] + fire.get("h", 0) / 2]
