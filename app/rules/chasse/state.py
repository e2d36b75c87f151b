"""A hunt's state and its fold (pure, no dice): figures, fires, sides, the ten steps.

State: ``board`` (inches; terrain shapes carry a ``kind``), ``tokens`` (hunters, prey and
carcasses by id), ``order`` (the figures drawn on the board), ``sides`` (one per player, in
turn order: seed § Séquence de jeu "Chacun à son tour"), ``active`` (the side playing),
``step`` (1–10), ``round``, ``fires``, ``catalogue`` (weapons and prey species copied at the
start, GM content included), ``reactions`` (the prey tables), ``scenario``, ``modifier``
(a GM's situational modifier waiting for the next hunter's roll) and ``result``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from app.rules.match import Event, State

STEPS = 10
INTERACTIVE = (2, 4, 6, 7, 10)
HUNTER_TURN_FLAGS = {"moved": False, "spent": 0, "fought": False, "shot": False, "lit": False,
                     "picked": 0, "charged": False, "charge_target": None}
PREY_TURN_FLAGS = {"reacted": False, "attacked": False, "fled_fire": False, "fought": False}


def alive(token: dict[str, Any]) -> bool:
    return token.get("state") == "ok"


def hunters(state: State, side: str | None = None) -> list[dict[str, Any]]:
    return [t for t in state["tokens"].values() if t["kind"] == "hunter" and alive(t)
            and (side is None or t["side"] == side)]


def prey(state: State) -> list[dict[str, Any]]:
    return [t for t in state["tokens"].values() if t["kind"] == "prey" and alive(t)]


def bases(state: State, excluding: set[str] | frozenset[str] = frozenset()
          ) -> list[dict[str, Any]]:
    """The figures standing on the ground with their base (§ Matériel: "soclés
    individuellement"): the living and the burning; a carcass lies flat, a figure gone or
    burnt is off the board."""
    return [t for t in state["tokens"].values() if t.get("state") in ("ok", "burning")
            and t["id"] not in excluding]


def carcasses(state: State) -> list[dict[str, Any]]:
    return [t for t in state["tokens"].values() if t.get("state") == "dead"
            and t.get("food", 0) > 0]


def active_side(state: State) -> dict[str, Any] | None:
    sides = state.get("sides") or []
    return sides[state["active"]] if sides and state.get("status") == "running" else None


def controls_side(state: State, side: dict[str, Any], actor: Any) -> bool:
    """The GM, or the player of any of the side's hunters (fallen ones too: their player
    still closes the turn)."""
    return actor.is_gm or any(actor.controls(t) for t in state["tokens"].values()
                              if t["kind"] == "hunter" and t["side"] == side["id"])


def group_members(state: State, token: dict[str, Any]) -> list[dict[str, Any]]:
    """The living prey of a token's group (itself alone when it has none)."""
    if not token.get("group"):
        return [token]
    return sorted((t for t in prey(state) if t.get("group") == token["group"]),
                  key=lambda t: _number(t["id"]))


def _number(token_id: str) -> int:
    return int(token_id[1:])


def _promote(state: State) -> None:
    """§ Déplacements des Chasseurs: a group follows its "dominant"; when it falls, the next
    living member (lowest id) leads (house)."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for token in prey(state):
        if token.get("group"):
            groups.setdefault(token["group"], []).append(token)
    for members in groups.values():
        if not any(t.get("dominant") for t in members):
            min(members, key=lambda t: _number(t["id"]))["dominant"] = True


def _started(state: State, p: dict) -> None:
    state.clear()
    state.update(name=p["name"], board=p["board"], catalogue=p["catalogue"],
                 reactions=p["reactions"], sides=p["sides"], tokens={}, order=[], fires=[],
                 status="setup", step=0, round=0, active=0, scenario=None, modifier=None,
                 result=None, next_token=1, next_fire=1, notes=0)


def _add_token(state: State, p: dict) -> None:
    token = dict(p["token"])
    state["tokens"][token["id"]] = token
    state["order"].append(token["id"])
    state["next_token"] = max(state["next_token"], _number(token["id"]) + 1)


def _scenario_set(state: State, p: dict) -> None:
    state["scenario"] = p["scenario"]
    state["board"].update(p["board"])
    for token_id, (x, y) in p.get("placements", {}).items():
        state["tokens"][token_id].update(x=x, y=y)
    if "reactions" in p:
        state["reactions"] = p["reactions"]


def _hunt_begun(state: State, p: dict) -> None:
    state.update(status="running", round=1, active=0, step=1)


def _turn_begun(state: State, p: dict) -> None:
    state.update(active=p["active"], round=p["round"], step=1)
    if p.get("keep_trails"):  # the last turn's prey moves stay drawn until new ones come
        state["trails_stale"] = True
        for token in state["tokens"].values():  # last turn's engagements are over
            token.pop("engaged", None)
            if token["kind"] == "prey":
                token.pop("charge_target", None)
    else:  # a log from before
        state["board"]["trails"] = []
    side = state["sides"][p["active"]]["id"]
    for token in state["tokens"].values():
        if token["kind"] == "prey":
            token.update(PREY_TURN_FLAGS)
        elif token["side"] == side:
            charged = token.get("charged", False)
            token.update(HUNTER_TURN_FLAGS)
            token["charged_last"] = charged  # § Charge: not two turns in a row


def _step(state: State, p: dict) -> None:
    state["step"] = p["step"]


def _fire_lit(state: State, p: dict) -> None:
    state["tokens"][p["token"]]["lit"] = True
    for helper in p.get("helpers", []):
        state["tokens"][helper]["lit"] = True
    if p.get("fire"):
        _fire_add(state, p)


def _fire_add(state: State, p: dict) -> None:
    if not p.get("fire"):  # the element did not catch
        return
    fire = dict(p["fire"])
    state["fires"].append(fire)
    state["next_fire"] = max(state["next_fire"], int(fire["id"][1:]) + 1)


def _fires_aged(state: State, p: dict) -> None:
    out = set(p.get("out", []))
    aged = p.get("aged")  # a log from before ages every fire
    for fire in state["fires"]:
        if aged is None or fire["id"] in aged:
            fire["turns_left"] -= 1
    state["fires"] = [f for f in state["fires"] if f["id"] not in out]


def _fire_check(state: State, p: dict) -> None:
    if p["caught"]:
        state["tokens"][p["token"]]["state"] = "burning"


def _burnt(state: State, p: dict) -> None:
    token = state["tokens"][p["token"]]
    token.update(state="burnt", food=0)
    state["order"] = [tid for tid in state["order"] if tid != token["id"]]
    _promote(state)


def _moved(state: State, p: dict) -> None:
    token = state["tokens"][p["token"]]
    token["x"], token["y"] = p["to"]
    token["moved"] = True
    token["spent"] = p.get("spent", p["cost"])
    for follower in p.get("group", []):
        other = state["tokens"][follower["token"]]
        other["x"], other["y"] = follower["to"]
        other.update(moved=True, spent=follower["cost"])
    charge = p.get("charge")
    if charge:
        token["charged"] = True
        token["charge_target"] = charge["target"] if charge["success"] else None
        state["tokens"][charge["target"]]["attacked"] = True


def _prey_reacted(state: State, p: dict) -> None:
    if state.pop("trails_stale", False):
        state["board"]["trails"] = []
    engaged = p.get("engaged")
    if engaged:  # in contact: it fights at the melee step (or at once after it)
        lead = state["tokens"][p["token"]]
        lead["engaged"] = engaged["target"]
        if engaged["charge"]:
            lead["charge_target"] = engaged["target"]
    for member in p.get("members", [p["token"]]):
        state["tokens"][member]["reacted"] = True
        if p.get("cause") == "fire":
            state["tokens"][member]["fled_fire"] = True
    for move in p.get("moves", []):
        token = state["tokens"][move["token"]]
        if move["from"] != move["to"]:  # drawn on the board until the next turn
            state["board"].setdefault("trails", []).append(
                {"x1": move["from"][0], "y1": move["from"][1], "x2": move["to"][0],
                 "y2": move["to"][1]})
        token["x"], token["y"] = move["to"]
        if move.get("gone"):
            token["state"] = "gone"
            state["order"] = [tid for tid in state["order"] if tid != token["id"]]
    _promote(state)


def _damage(state: State, p: dict) -> None:
    for hurt in p.get("damage", []):
        token = state["tokens"][hurt["token"]]
        token["wounds"] = hurt["wounds"]
        if hurt["dead"]:
            # The body is meat (§ Les blessures); a hunter's load falls beside it.
            token.update(state="dead", food=int(token["masse"]) + token.get("carried", 0),
                         carried=0)
    if p.get("modifier_used"):
        state["modifier"] = None
    _promote(state)


def _shot(state: State, p: dict) -> None:
    shooter, target = state["tokens"][p["shooter"]], state["tokens"][p["target"]]
    shooter["shot"] = True
    target["attacked"] = True
    thrown = p.get("thrown")
    if thrown:  # the weapon left the hand: on the ground, or in the target it wounded
        shooter["weapons"].remove(thrown["weapon"])
        if thrown.get("item"):
            _drop(state, thrown["item"])
        else:
            target.setdefault("stuck", []).append(thrown["weapon"])
    _damage(state, p)


def _drop(state: State, item: dict) -> None:
    state.setdefault("ground", []).append(dict(item))
    state["next_item"] = max(state.get("next_item", 1), int(item["id"][1:]) + 1)
    _draw_ground(state)


def _draw_ground(state: State) -> None:
    """The weapons lying on the ground, as marks on the shared board."""
    state["board"]["marks"] = [{"x": item["x"], "y": item["y"], "label": item["name"]}
                               for item in state.get("ground", [])]


def _picked(state: State, p: dict) -> None:
    state["ground"] = [item for item in state.get("ground", []) if item["id"] != p["item"]]
    state["tokens"][p["token"]]["weapons"].append(p["weapon"])
    _draw_ground(state)


def _melee(state: State, p: dict) -> None:
    fighting = [p["leader"], p["defender"]]
    if p.get("supporters_fight"):  # the supporters fought this round (issue 25)
        fighting += p["supporters"]
    for token_id in fighting:
        token = state["tokens"][token_id]
        token["fought"] = True
        if token["kind"] == "hunter" or p.get("supporters_fight"):
            token["charge_target"] = None  # the charge's +1 was its first round's
    state["tokens"][p["defender"]]["attacked"] = True
    _damage(state, p)


def _butchered(state: State, p: dict) -> None:
    hunter, carcass = state["tokens"][p["token"]], state["tokens"][p["carcass"]]
    carcass["food"] -= p["units"]
    if p.get("recovered"):
        hunter["weapons"].extend(item["weapon"] for item in p["recovered"])
        carcass["stuck"] = []
    hunter["carried"] = hunter.get("carried", 0) + p["units"]
    hunter["picked"] = hunter.get("picked", 0) + p["units"]


def _banked(state: State, p: dict) -> None:
    hunter = state["tokens"][p["token"]]
    hunter["carried"] = 0
    hunter["brought"] = hunter.get("brought", 0) + p["units"]
    for side in state["sides"]:
        if side["id"] == hunter["side"]:
            side["food"] += p["units"]


def _modifier(state: State, p: dict) -> None:
    state["modifier"] = {"value": p["value"], "label": p["label"]}


def _corrected(state: State, p: dict) -> None:
    token = state["tokens"][p["token"]]
    token[p["field"]] = p["after"]
    if p["field"] == "wounds":
        dead = p["after"] >= token["masse"]
        if dead and alive(token):
            token.update(state="dead", food=token["masse"] if token["kind"] == "prey" else 0)
        elif not dead and token["state"] == "dead":
            token["state"] = "ok"
            if token["id"] not in state["order"]:
                state["order"].append(token["id"])
    _promote(state)


def _reactions(state: State, p: dict) -> None:
    state["reactions"] = p["reactions"]


def _note(state: State, p: dict) -> None:
    state["notes"] += 1


def _ended(state: State, p: dict) -> None:
    state.update(status="finished", result={**p["result"], "reason": p["reason"]})


def _terrain(kind: str) -> Callable[[State, dict], None]:
    from app.rules.board import EVOLVE
    return EVOLVE[kind]


EVOLVE: dict[str, Callable[[State, dict], None]] = {
    "match_started": _started,
    "hunter_added": _add_token,
    "prey_added": _add_token,
    "scenario_set": _scenario_set,
    "hunt_begun": _hunt_begun,
    "turn_begun": _turn_begun,
    "step_begun": _step,
    "fire_lit": _fire_lit,
    "fire_spread": _fire_add,
    "fires_aged": _fires_aged,
    "fire_check": _fire_check,
    "figure_burnt": _burnt,
    "hunter_moved": _moved,
    "prey_reacted": _prey_reacted,
    "shot": _shot,
    "melee": _melee,
    "butchered": _butchered,
    "weapon_picked": _picked,
    "food_banked": _banked,
    "gm_modifier": _modifier,
    "gm_corrected": _corrected,
    "reactions_set": _reactions,
    "note_added": _note,
    "hunt_ended": _ended,
    "terrain_added": _terrain("terrain_added"),
    "terrain_removed": _terrain("terrain_removed"),
}


FIRE_EVENTS = ("fire_lit", "fire_spread", "fires_aged")


def _draw_fires(state: State) -> None:
    """The burning elements and fires as circles on the shared board (``board.areas``)."""
    state["board"]["areas"] = [
        {"x": f["x"] + f.get("w", 0) / 2, "y": f["y"] + f.get("h", 0) / 2,
         "r": max(f.get("w", 0), f.get("h", 0), 2) / 2,
         "label": f"🔥 {f.get('label') or f['id']} ({f['turns_left']})"}
        for f in state["fires"]]


def evolve(state: State, event: Event) -> State:
    handler = EVOLVE.get(event.kind)
    if handler is not None:
        handler(state, event.payload)
        if event.kind in FIRE_EVENTS:
            _draw_fires(state)
    return state
