"""Deciding a hunt's actions (the only place dice are rolled): the GM's set-up, each side's
player steps (seed § Séquence de jeu), and the GM's corrections."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from app.rules.action_fields import choice_field, flag, int_field, require_gm, text_field
from app.rules.board import DECIDE as BOARD_DECIDE
from app.rules.board import MoveTooFar, decide_add_terrain
from app.rules.chasse import combat, fire, steps
from app.rules.chasse.content import IDLE_OUTCOMES, TERRAIN_KINDS, THREAT_OUTCOMES
from app.rules.chasse.ending import decided, scores
from app.rules.chasse.fights import damage, enemies, in_contact, melee_round
from app.rules.chasse.geometry import (
    CONTACT,
    OVERLAP,
    base_in_the_way,
    distance,
    o_pos,
    path_cost,
    rounded,
    sight_blocker,
    walk,
)
from app.rules.chasse.match import AHEAD
from app.rules.chasse.resolve import Acc, d6
from app.rules.chasse.setup import camp_line, hunt_scenarios, prey_token, scenario_payload
from app.rules.chasse.state import (
    active_side,
    alive,
    bases,
    carcasses,
    controls_side,
    evolve,
    hunters,
)
from app.rules.chasse.state import prey as living_prey
from app.rules.dice import Dice
from app.rules.match import (
    FIELD_LABELS,
    Actor,
    Event,
    IllegalAction,
    State,
    copy_state,
    handler_for,
)
from app.rules.notes import note_event
from app.rules.purposes import Purpose

RULE_MOVE = "Chasse préhistorique § Déplacements des Chasseurs"
RULE_CHARGE = "Chasse préhistorique § Charge"
RULE_BUTCHER = "Chasse préhistorique § Pillage / dépeçage"
RULE_PICK = "Chasse préhistorique § Tirs (house: a thrown weapon is picked up again)"
PICK_STEPS = (4, 10)
NOTE_MAX = 500
GROUP_RANGE = 2.0


class HuntRefused(IllegalAction):
    templates_en: ClassVar[dict[str, str]] = {
        **IllegalAction.templates_en,
        "not_setup": "the hunt has already begun",
        "no_prey": "place at least one prey before the hunt begins",
        "wrong_step": "this belongs to another step of the turn",
        "already_done": "{name} has already done that this turn",
        "impassable": "impassable ground on the way",
        "charged_last_turn": "{name} charged last turn and may not charge again",
        "out_of_range": "out of range ({distance}\"): 1\" or less, or beyond {long}\"",
        "not_in_contact": "{name} is not in contact with {target}",
        "fire_too_far": "a fire is set within 2\" of the one who lights it",
        "cannot_carry": "{name} may take at most {n:more unit|more units} this turn",
        "nothing_to_throw": "{name} has no throwing weapon left in hand",
        "hidden": "{target} is hidden by {by}: no throw without a clear line",
        "unseen_charge": "{target} is hidden by {by}: a charge is declared against a target "
                         "the hunter sees",
        "decided": "nothing is left to play for in this hunt: the GM ends it",
        "charge_in_contact": "{name} is already in contact with {target}: a charge needs a run "
                             "(fight it at the melee step)",
        "blocked": "{by} is in the way of {name}: a figure neither walks through nor stops on "
                   "another (go round it, or stop in contact)",
        "occupied": "{by} already stands there: a figure never stands on another",
    }
    templates_fr: ClassVar[dict[str, str]] = {
        **IllegalAction.templates_fr,
        "not_setup": "la chasse a déjà commencé",
        "no_prey": "placez au moins une proie avant de commencer la chasse",
        "wrong_step": "cela se fait à une autre étape du tour",
        "already_done": "{name} l'a déjà fait ce tour-ci",
        "impassable": "un obstacle infranchissable barre le chemin",
        "charged_last_turn": "{name} a chargé au tour précédent et ne peut pas charger à nouveau",
        "out_of_range": "hors de portée ({distance}\") : à 1\" ou moins, ou au-delà de {long}\"",
        "not_in_contact": "{name} n'est pas au contact de {target}",
        "fire_too_far": "un feu s'allume à 2\" au plus de celui qui l'allume",
        "cannot_carry": "{name} peut encore prendre au plus {n:unité|unités} ce tour-ci",
        "nothing_to_throw": "{name} n'a plus d'arme de jet en main",
        "hidden": "{target} est caché par {by} : pas de tir sans ligne dégagée",
        "unseen_charge": "{target} est caché par {by} : une charge se déclare contre une "
                         "cible que le chasseur voit",
        "decided": "il ne reste rien à jouer dans cette chasse : le MJ y met fin",
        "charge_in_contact": "{name} est déjà au contact de {target} : une charge demande un "
                             "élan (combattez à l'étape des corps à corps)",
        "blocked": "{by} barre le chemin de {name} : une figurine ne traverse pas une autre et "
                   "ne s'arrête pas dessus (contournez-la, ou arrêtez-vous au contact)",
        "occupied": "{by} est déjà là : une figurine ne se pose jamais sur une autre",
    }


# — shared checks ——————————————————————————————————————————————————————————————

def _require_setup(state: State, actor: Actor) -> None:
    require_gm(actor)
    if state["status"] != "setup":
        raise HuntRefused("not_setup")


def _side_actor(state: State, actor: Actor) -> dict[str, Any]:
    side = active_side(state)
    if side is None:
        raise HuntRefused("wrong_step")
    if decided(state):
        raise HuntRefused("decided")
    if not controls_side(state, side, actor):
        raise HuntRefused("not_your_turn")
    return side


def _my_hunter(state: State, action: Mapping[str, Any], actor: Actor,
               step: int | None) -> dict[str, Any]:
    side = _side_actor(state, actor)
    if step is not None and state["step"] != step:
        raise HuntRefused("wrong_step")
    token = state["tokens"].get(action.get("token")) if isinstance(action.get("token"),
                                                                   str) else None
    if token is None or token["kind"] != "hunter" or not alive(token) or \
            token["side"] != side["id"]:
        raise HuntRefused("unknown_participant", participant=str(action.get("token"))[:40])
    if not actor.controls(token):
        raise HuntRefused("not_allowed")
    return token


def _target(state: State, action: Mapping[str, Any], hunter: dict[str, Any]) -> dict:
    token = state["tokens"].get(action.get("target")) if isinstance(action.get("target"),
                                                                    str) else None
    if token is None or not alive(token) or not enemies(hunter, token):
        raise HuntRefused("unknown_participant", participant=str(action.get("target"))[:40])
    return token


def _gm_modifier(state: State) -> tuple[tuple[int, str], ...]:
    modifier = state.get("modifier")
    return ((modifier["value"], modifier["label"]),) if modifier else ()


def _point(state: State, action: Mapping[str, Any]) -> list[float]:
    board = state["board"]
    return [float(int_field(action, "x", 0, board["width"])),
            float(int_field(action, "y", 0, board["height"]))]


# — the GM's set-up ————————————————————————————————————————————————————————————

def _choose_scenario(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    _require_setup(state, actor)
    known = hunt_scenarios(state)
    entry = known[choice_field(action, "scenario", list(known))]
    acc = Acc(state, evolve)
    payload = scenario_payload(entry)
    mine = [t for t in state["tokens"].values() if t["kind"] == "hunter"]
    spots = camp_line(payload["board"], len(mine))
    payload["placements"] = {t["id"]: spot for t, spot in zip(mine, spots, strict=True)}
    acc.emit("scenario_set", payload)
    for placed in entry["prey"]:
        acc.emit("prey_added", {"token": prey_token(
            acc.state, placed["species"], x=placed["x"], y=placed["y"],
            group=placed.get("group", ""), dominant=bool(placed.get("dominant")))})
    return acc.events


def _add_prey(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    _require_setup(state, actor)
    species = choice_field(action, "species", list(state["catalogue"]["prey"]))
    x, y = _point(state, action)
    below = base_in_the_way([x, y], [x, y], bases(state))
    if below is not None:
        raise HuntRefused("occupied", by=below["name"])
    group = text_field(action, "group", 40, required=False)
    members = [t for t in living_prey(state) if group and t.get("group") == group]
    token = prey_token(state, species, x=x, y=y, group=group, dominant=bool(group) and not
                       members)
    return [Event("prey_added", {"token": token})]


REACTION_TABLES = {"threat_placide": THREAT_OUTCOMES, "threat_agressive": THREAT_OUTCOMES,
                   "idle": IDLE_OUTCOMES}


def _set_reaction(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """The GM edits one cell of the prey tables for this hunt (house tables, issue 13:
    "editable per scenario"): which outcome a modified blue die gives."""
    _require_setup(state, actor)
    table = choice_field(action, "table", list(REACTION_TABLES))
    blue = int_field(action, "blue", 0, 7)
    outcome = choice_field(action, "outcome", list(REACTION_TABLES[table]))
    reactions = copy_state(state["reactions"])
    row = reactions["idle"]["outcomes"] if table == "idle" else \
        reactions["threat"][table.removeprefix("threat_")]
    before, row[blue] = row[blue], outcome
    return [Event("reactions_set", {"reactions": reactions, "table": table, "blue": blue,
                                    "before": before, "after": outcome})]


def _add_terrain(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """The GM draws the hunting ground (§ Le terrain de chasse): the shared board's shape
    with its kind (obstacle, impassable, difficult, tree, bush, river, camp)."""
    events = decide_add_terrain(state, action, actor)
    events[0].payload["terrain"]["kind"] = choice_field(action, "ground", TERRAIN_KINDS,
                                                        default="obstacle")
    return events


def _begin(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    _require_setup(state, actor)
    if not living_prey(state):
        raise HuntRefused("no_prey")
    acc = Acc(state, evolve)
    acc.emit("hunt_begun", {})
    acc.emit("turn_begun", {"active": 0, "round": 1,
                            "side": acc.state["sides"][0]["name"] if acc.state["sides"]
                            else ""})
    steps.run(acc, dice, 1)
    return acc.events


# — a side's steps —————————————————————————————————————————————————————————————

def _next_step(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    _side_actor(state, actor)
    if state["step"] >= 10:
        raise HuntRefused("wrong_step")
    acc = Acc(state, evolve)
    steps.leave(acc, dice)
    return acc.events


def _light_fire(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """§ Allumer un feu: 6, a shaman 3+, +1 per helper (3 at most)."""
    hunter = _my_hunter(state, action, actor, 2)
    if hunter["lit"]:
        raise HuntRefused("already_done", name=hunter["name"])
    where = _point(state, action)
    if distance(o_pos(hunter), where) > fire.SPREAD:
        raise HuntRefused("fire_too_far")
    helpers = [h["id"] for h in sorted(hunters(state, hunter["side"]), key=lambda h: h["id"])
               if h["id"] != hunter["id"] and not h["lit"]
               and distance(o_pos(h), o_pos(hunter)) <= fire.SPREAD][:fire.HELPERS_MAX]
    wanted = int_field(action, "helpers", 0, len(helpers), default=len(helpers))
    helpers = helpers[:wanted]
    target = fire.fire_target(hunter["shaman"])
    roll = d6(dice, Purpose("lighting a fire — {name}", name=hunter["name"]),
              modifiers=((len(helpers), Purpose("helpers")),), target=target)
    payload: dict[str, Any] = {"token": hunter["id"], "name": hunter["name"],
                               "helpers": helpers, "shaman": hunter["shaman"],
                               "target": target, "rolls": [roll], "rule": fire.RULE,
                               "success": roll["total"] >= target}
    if payload["success"]:
        payload["fire"] = fire.new_fire(state, x=where[0], y=where[1],
                                        label=f"feu de {hunter['name']}",
                                        side=hunter["side"])
    return [Event("fire_lit", payload)]


def _move(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """§ Déplacements des Chasseurs and § Charge (declared first, Dmax + D6, unmeasured)."""
    hunter = _my_hunter(state, action, actor, 4)
    spent = hunter.get("spent", 0)
    if hunter.get("charged") or spent >= hunter["dmax"]:
        raise HuntRefused("already_done", name=hunter["name"])
    terrain, board = state["board"]["terrain"], state["board"]
    acc = Acc(state, evolve)
    if action.get("target") not in (None, ""):
        if spent:  # "La charge doit être déclarée avant de bouger"
            raise HuntRefused("already_done", name=hunter["name"])
        target = _target(state, action, hunter)
        if hunter.get("charged_last"):
            raise HuntRefused("charged_last_turn", name=hunter["name"])
        if in_contact(hunter, target):  # § Charge: a move of 0" is no charge
            raise HuntRefused("charge_in_contact", name=hunter["name"], target=target["name"])
        # House: the charge is declared without measuring, but at a target the hunter sees
        # (the same line of sight as a throw: a wood or rocks between hide it).
        hidden = sight_blocker(o_pos(hunter), o_pos(target), terrain)
        if hidden is not None:
            raise HuntRefused("unseen_charge", target=target["name"],
                              by=hidden.get("label") or hidden.get("id", ""))
        roll = d6(dice, Purpose("charge — {name}", name=hunter["name"]))
        reach = hunter["dmax"] + roll["total"]
        towards = (target["x"] - hunter["x"], target["y"] - hunter["y"])
        others = [o_pos(f) for f in bases(state, {hunter["id"], target["id"]})]
        end, cost, _ = walk(o_pos(hunter), towards, reach, terrain, board,
                            stop_at=o_pos(target), figures=others)  # bases stop it
        success = distance(end, o_pos(target)) <= CONTACT + 0.01
        acc.emit("hunter_moved", {
            "token": hunter["id"], "name": hunter["name"], "from": o_pos(hunter), "to": end,
            "cost": cost, "dmax": hunter["dmax"], "crossed": [], "rolls": [roll],
            "rule": RULE_CHARGE,
            "charge": {"target": target["id"], "target_name": target["name"],
                       "reach": reach, "success": success}})
    else:
        to = _point(state, action)
        priced = path_cost(o_pos(hunter), to, terrain)
        if priced is None:
            raise HuntRefused("impassable")
        cost, crossed = priced
        if spent + cost > hunter["dmax"] + 1e-9:
            raise MoveTooFar(name=hunter["name"], asked=cost, allowed=hunter["dmax"] - spent,
                             unit=board["unit"], length=distance(o_pos(hunter), to))
        group = _followers(state, hunter, to) if flag(action, "group") else []
        moving = {hunter["id"], *(move["token"] for move in group)}
        blocker = base_in_the_way(o_pos(hunter), to, bases(state, moving))
        if blocker is not None:  # bases: no figure walks through or stops on another
            raise HuntRefused("blocked", name=hunter["name"], by=blocker["name"])
        acc.emit("hunter_moved", {"token": hunter["id"], "name": hunter["name"],
                                  "from": o_pos(hunter), "to": to, "cost": rounded(cost),
                                  "spent": rounded(spent + cost), "dmax": hunter["dmax"],
                                  "crossed": crossed, "rule": RULE_MOVE, "group": group})
    steps.bank(acc, hunter["side"])
    return acc.events


def _followers(state: State, leader: dict[str, Any], to: list[float]) -> list[dict]:
    """§ Déplacements des Chasseurs: a group of the same profile follows its "dominant",
    "les autres figurines restant à moins de 2''": the hunters of the side and profile within
    2" who have not moved make the same move when their own Dmax, the ground and the other
    bases allow (none walks through or stops on another: it stays, out of the group)."""
    dx, dy = to[0] - leader["x"], to[1] - leader["y"]
    moves: list[dict[str, Any]] = []
    taken = [list(to)]
    for other in sorted(hunters(state, leader["side"]), key=lambda h: int(h["id"][1:])):
        if other["id"] == leader["id"] or other["profile"] != leader["profile"] or \
                other.get("spent") or distance(o_pos(other), o_pos(leader)) > GROUP_RANGE:
            continue
        end = [rounded(min(max(other["x"] + dx, 0), state["board"]["width"])),
               rounded(min(max(other["y"] + dy, 0), state["board"]["height"]))]
        priced = path_cost(o_pos(other), end, state["board"]["terrain"])
        still = bases(state, {leader["id"], other["id"], *(m["token"] for m in moves)})
        if priced is None or priced[0] > other["dmax"] + 1e-9 or \
                base_in_the_way(o_pos(other), end, still) is not None or \
                any(distance(end, spot) < OVERLAP for spot in taken):
            continue
        taken.append(end)
        moves.append({"token": other["id"], "name": other["name"], "from": o_pos(other),
                      "to": end, "cost": rounded(priced[0])})
    return moves


def _shoot(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """§ Tirs, with two house rules: a wood or rocks between the thrower and the target hide
    it (``geometry.sight_blocker``), and a weapon that leaves the hand (javelin, spear,
    stone) stays in the prey it wounds or falls at its feet, until picked up."""
    hunter = _my_hunter(state, action, actor, 6)
    if hunter["shot"]:
        raise HuntRefused("already_done", name=hunter["name"])
    target = _target(state, action, hunter)
    catalogue = state["catalogue"]["weapons"]
    throwable = [k for k in hunter["weapons"] if (catalogue.get(k) or {}).get("throw")]
    if not throwable:
        raise HuntRefused("nothing_to_throw", name=hunter["name"])
    weapon = catalogue[choice_field(action, "weapon", throwable)]
    span = distance(o_pos(hunter), o_pos(target))
    if combat.shot_range(weapon, span) is None:
        raise HuntRefused("out_of_range", distance=rounded(span), long=weapon["throw"][1])
    hidden = sight_blocker(o_pos(hunter), o_pos(target), state["board"]["terrain"])
    if hidden is not None:
        raise HuntRefused("hidden", target=target["name"],
                          by=hidden.get("label") or hidden.get("id", ""))
    extra = _gm_modifier(state)
    result = combat.shoot(dice, shooter=hunter, target=target, weapon=weapon, extra=extra)
    payload = {"shooter": hunter["id"], "target": target["id"],
               "shooter_name": hunter["name"], "target_name": target["name"],
               "result": result, "rolls": result["rolls"],
               "damage": damage(state, [result]), "modifier_used": bool(extra),
               "rule": combat.RULE_SHOT}
    if weapon.get("leaves_hand"):
        payload["thrown"] = {"weapon": weapon["key"], "name": weapon["name"]}
        if result["outcome"] != "wound":  # it falls at the target's feet, thrower's side
            span = max(distance(o_pos(hunter), o_pos(target)), 1e-9)
            back = min(CONTACT, span) / span
            payload["thrown"]["item"] = {
                "id": f"w{state.get('next_item', 1)}", "weapon": weapon["key"],
                "name": weapon["name"],
                "x": rounded(target["x"] + (hunter["x"] - target["x"]) * back),
                "y": rounded(target["y"] + (hunter["y"] - target["y"]) * back)}
    return [Event("shot", payload)]


def _pick_up(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """House: a hunter in contact with a weapon on the ground picks it up (step 4, after or
    instead of its move, or step 10), at no cost."""
    hunter = _my_hunter(state, action, actor, None)
    if state["step"] not in PICK_STEPS:
        raise HuntRefused("wrong_step")
    found = {item["id"]: item for item in state.get("ground", [])}
    item = found.get(action.get("item")) if isinstance(action.get("item"), str) else None
    if item is None:
        raise HuntRefused("unknown_participant", participant=str(action.get("item"))[:40])
    if distance(o_pos(hunter), o_pos(item)) > CONTACT + 0.01:
        raise HuntRefused("not_in_contact", name=hunter["name"], target=item["name"])
    return [Event("weapon_picked", {"token": hunter["id"], "name": hunter["name"],
                                    "item": item["id"], "weapon": item["weapon"],
                                    "weapon_name": item["name"], "rule": RULE_PICK})]


def _melee(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    hunter = _my_hunter(state, action, actor, 7)
    if hunter["fought"]:
        raise HuntRefused("already_done", name=hunter["name"])
    target = _target(state, action, hunter)
    if not in_contact(hunter, target):
        raise HuntRefused("not_in_contact", name=hunter["name"], target=target["name"])
    usable = [k for k in hunter["weapons"]
              if (state["catalogue"]["weapons"].get(k) or {}).get("melee")] + ["mains_nues"]
    weapon = choice_field(action, "weapon", usable, default=usable[0])
    acc = Acc(state, evolve)
    melee_round(acc, dice, leader=hunter["id"], defender=target["id"], weapon=weapon,
                extra=_gm_modifier(state))
    return acc.events


def _butcher(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """§ Pillage / dépeçage: in contact; 3 units a turn when it has not moved, 1 when it has."""
    hunter = _my_hunter(state, action, actor, 10)
    carcass = state["tokens"].get(action.get("carcass")) if isinstance(
        action.get("carcass"), str) else None
    if carcass is None or carcass not in carcasses(state):
        raise HuntRefused("unknown_participant", participant=str(action.get("carcass"))[:40])
    if not in_contact(hunter, carcass):
        raise HuntRefused("not_in_contact", name=hunter["name"], target=carcass["name"])
    room = (1 if hunter["moved"] else 3) - hunter.get("picked", 0)
    room = min(room, carcass["food"])
    if room <= 0:
        raise HuntRefused("cannot_carry", name=hunter["name"], n=0)
    units = int_field(action, "units", 1, room, default=room)
    payload = {"token": hunter["id"], "name": hunter["name"], "carcass": carcass["id"],
               "carcass_name": carcass["name"], "units": units, "moved": hunter["moved"],
               "rule": RULE_BUTCHER}
    if carcass.get("stuck"):  # house: the weapons in the carcass come back with its meat
        known = state["catalogue"]["weapons"]
        payload["recovered"] = [{"weapon": key, "name": known.get(key, {}).get("name", key)}
                                for key in carcass["stuck"]]
    return [Event("butchered", payload)]


def _end_turn(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    _side_actor(state, actor)
    if state["step"] != 10:
        raise HuntRefused("wrong_step")
    acc = Acc(state, evolve)
    steps.pass_turn(acc, dice)
    return acc.events


# — the GM ————————————————————————————————————————————————————————————————————

def _modifier(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    require_gm(actor)
    return [Event("gm_modifier", {"value": int_field(action, "value", -3, 3),
                                  "label": text_field(action, "label", 80)})]


CORRECTABLE = {"wounds": (0, 5), "carried": (0, 50), "food": (0, 50)}


def _correct(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    require_gm(actor)
    token = state["tokens"].get(action.get("token")) if isinstance(action.get("token"),
                                                                   str) else None
    if token is None:
        raise HuntRefused("unknown_participant", participant=str(action.get("token"))[:40])
    field = choice_field(action, "field", [*CORRECTABLE, "x", "y"])
    if field in ("x", "y"):  # a figure put back where it should stand
        low, high = 0, state["board"]["width" if field == "x" else "height"]
    else:
        low, high = CORRECTABLE[field]
        high = min(high, token["masse"]) if field == "wounds" else high
    after = int_field(action, "value", low, high)
    return [Event("gm_corrected", {"token": token["id"], "name": token["name"],
                                   "field": field, "before": token.get(field, 0),
                                   "after": after,
                                   "reason": text_field(action, "reason", 200,
                                                        required=False)})]


def _note(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    return [note_event(action, actor, max_length=NOTE_MAX)]


def _end_hunt(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    require_gm(actor)
    return [Event("hunt_ended", {"reason": "gm", "result": scores(state)})]


Decision = Callable[[State, Mapping[str, Any], Actor, Dice], list[Event]]


def _side_step(step: int | None, handler: Decision) -> Decision:
    """A tribe's action at ``step``: taken from the player step before it (``match.AHEAD``:
    a walk at step 2, a fight at step 6), it closes the steps between first; after it, a
    step left with nothing to do passes by itself (``steps.settle``)."""
    def decide_it(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
        _side_actor(state, actor)
        acc = Acc(state, evolve)
        if step is not None and AHEAD.get(state["step"]) == step:
            steps.advance_to(acc, dice, step)
        acc.add(handler(acc.state, action, actor, dice))
        steps.settle(acc, dice)
        return acc.events
    return decide_it


DECIDE: dict[str, Decision] = {
    "choose_scenario": _choose_scenario,
    "add_prey": _add_prey,
    "set_reaction": _set_reaction,
    "begin_hunt": _begin,
    "next_step": _next_step,
    "light_fire": _side_step(2, _light_fire),
    "move": _side_step(4, _move),
    "shoot": _side_step(6, _shoot),
    "melee": _side_step(7, _melee),
    "butcher": _side_step(10, _butcher),
    "pick_up": _side_step(4, _pick_up),  # or at step 10
    "end_turn": _end_turn,
    "gm_modifier": _modifier,
    "correct": _correct,
    "note": _note,
    "end_hunt": _end_hunt,
    **BOARD_DECIDE,
    "add_terrain": _add_terrain,
}


FIELD_LABELS.update({"shot": ("Who throws what at whom", "Qui lance quoi sur qui"),
                     "fight": ("Who leads the attack", "Qui mène l'attaque")})
# The page's throw and melee forms post one choice, « hunter|target|weapon », so that only
# legal combinations are offered; the JSON API may send the three fields.
COMBINED = {"shoot": "shot", "melee": "fight"}


def _expand(action: Mapping[str, Any]) -> Mapping[str, Any]:
    name = COMBINED.get(action.get("kind"))  # type: ignore[arg-type]
    choice = action.get(name) if name else None
    if not isinstance(choice, str) or not choice:
        return action
    parts = choice.split("|")
    if len(parts) != 3:
        raise HuntRefused("bad_field", field=name, reason="hunter|target|weapon")
    return {**action, **dict(zip(("token", "target", "weapon"), parts, strict=True))}


def decide(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice) -> list[Event]:
    handler = handler_for(DECIDE, state, action, actor)
    return handler(state, _expand(action), actor, dice)
