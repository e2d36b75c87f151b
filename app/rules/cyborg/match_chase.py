"""Cyborg Anti-Alien at the table: chases (Cyborg § (IV) Poursuites) — the distance ladder
on foot and in vehicles, accidents (or, when the GM ticks it, recoverable mistakes),
manoeuvres and tours de force, ramming the pursued, shots between vehicles.
"""

from __future__ import annotations

from typing import Any

from app.rules.action_fields import choice_field, flag, int_field, require_gm, text_field
from app.rules.cyborg import chases
from app.rules.cyborg.combat import CombatError
from app.rules.cyborg.content import damage_correction
from app.rules.cyborg.match import (
    PUNCH,
    characteristic,
    is_down,
    skill,
    usable_weapons,
    weapon_of,
)
from app.rules.cyborg.match_common import (
    NAME_MAX,
    all_rolls,
    controlled,
    key_field,
    refuse,
    rules_refusal,
    shot_record,
    situational,
    target_for,
    target_of,
)
from app.rules.dice import Dice, Modifier
from app.rules.match import Actor, Event, State
from app.rules.purposes import Purpose


def decide_start_chase(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    require_gm(actor)
    if state.get("chase"):
        raise refuse("chase_running")
    pursuer, quarry = target_of(state, action, "pursuer"), target_of(state, action, "quarry")
    if pursuer["id"] == quarry["id"]:
        raise refuse("same_pursuer", field="quarry")
    mode = choice_field(action, "mode", ("foot", "vehicle"), "foot")
    distance = choice_field(action, "distance", chases.DISTANCES, "moyenne")
    vehicles = chases.all_vehicles(state.get("custom_vehicles"))
    # "Un échec implique un accident": the default; the GM ticks the text's milder reading
    # (a recoverable mistake, −1D10 structure) for the whole chase.
    chase: dict[str, Any] = {"mode": mode, "distance": distance, "rounds": 0,
                             "accidents": mode == "foot" or not flag(action, "recoverable")}
    for side, token in (("pursuer", pursuer), ("quarry", quarry)):
        entry: dict[str, Any] = {"driver": token["id"], "riders": [token["id"]],
                                 "vehicle": None, "structure": None, "wrecked": False}
        if mode == "vehicle":
            key = choice_field(action, f"{side}_vehicle", list(vehicles))
            vehicle = vehicles[key]
            entry.update(vehicle=key, vehicle_name=vehicle.name, skill=vehicle.skill,
                         structure=vehicle.structure, resistance=vehicle.resistance,
                         safety=vehicle.safety)
            passengers = action.get(f"{side}_passengers") or []
            if isinstance(passengers, str):
                passengers = [p.strip() for p in passengers.split(",") if p.strip()]
            passengers = [*passengers, *(tid for tid in state["tokens"]
                                         if flag(action, f"{side}_passenger_{tid}"))]
            for passenger in passengers if isinstance(passengers, list) else []:
                if isinstance(passenger, str) and passenger in state["tokens"] \
                        and passenger not in entry["riders"]:
                    entry["riders"].append(passenger)
        chase[side] = entry
    return [Event("chase_started", {"chase": chase, "pursuer_name": pursuer["name"],
                                    "quarry_name": quarry["name"]})]


def _chase(state: State) -> dict:
    chase = state.get("chase")
    if not chase:
        raise refuse("no_chase")
    return chase


def _accident(state: State, dice: Dice, chase: dict, side: str, payload: dict) -> None:
    """Every rider rolls the vehicle's safety; a failure costs 1D100 / 4 santé, not through
    the damage table (§ (IV) Accidents)."""
    entry = chase[side]
    vehicle = chases.all_vehicles(state.get("custom_vehicles"))[entry["vehicle"]]
    riders = [tid for tid in entry["riders"] if "dead" not in state["tokens"][tid]["states"]]
    harmed = chases.accident(dice, vehicle, len(riders))
    payload.setdefault("wrecked", []).append(side)
    for tid, harm in zip(riders, harmed, strict=True):
        before = payload.setdefault("harm", {}).get(tid, state["tokens"][tid]["sante"])
        payload["harm"][tid] = before - harm.damage
        payload.setdefault("accident", []).append({
            "token": tid, "name": state["tokens"][tid]["name"], "saved": harm.saved,
            "damage": harm.damage, "sante": before - harm.damage})
        payload["rolls"] += [record.to_dict() for record in harm.records]


def _failed(state: State, dice: Dice, chase: dict, side: str, test: Any, payload: dict) -> None:
    """A failed driving test outside the round (a manoeuvre, a ram): an accident, or in the
    GM's milder variant −1D10 structure (an accident at 0), as in a chase round."""
    drive = chases.failed_drive(dice, test, chase[side]["structure"], accidents=chase["accidents"])
    if drive.mistake is not None:
        payload["rolls"].append(drive.mistake.to_dict())
        payload.setdefault("mistakes", {})[side] = drive.mistake.total
        payload.setdefault("structure", {})[side] = drive.structure
    if drive.accident:
        _accident(state, dice, chase, side, payload)


def decide_chase_round(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """One round: on foot, rapidité against rapidité; in vehicles, the driving skills, a
    failure an accident (or, in the milder variant, −1D10 structure) (§ (IV) Déroulement)."""
    require_gm(actor)
    chase = _chase(state)
    pursuer = state["tokens"][chase["pursuer"]["driver"]]
    quarry = state["tokens"][chase["quarry"]["driver"]]
    if is_down(pursuer) or is_down(quarry):
        raise refuse("cannot_act", name=pursuer["name"] if is_down(pursuer) else quarry["name"])
    malus = int_field(action, "malus", -100, 100, default=0)
    other_malus = int_field(action, "other_malus", -100, 100, default=0)
    payload: dict[str, Any] = {"mode": chase["mode"], "before": chase["distance"],
                               "pursuer_name": pursuer["name"], "quarry_name": quarry["name"]}
    try:
        if chase["mode"] == "foot":
            result = chases.foot_round(dice, chase["distance"],
                                       characteristic(pursuer, "rapidite"),
                                       characteristic(quarry, "rapidite"),
                                       pursuer_malus=malus, quarry_malus=other_malus)
            payload.update(after=result.distance, winner=result.winner,
                           rolls=[record.to_dict() for record in result.records])
        else:
            drivers = []
            for side, token, extra in (("pursuer", pursuer, malus),
                                       ("quarry", quarry, other_malus)):
                gm = (Modifier(-extra, Purpose("GM")),) if extra else ()
                modifiers = situational(token) + gm
                drivers.append(chases.Driver(skill(token, chase[side]["skill"]),
                                             chase[side]["structure"], modifiers))
            result = chases.vehicle_round(dice, chase["distance"], drivers[0], drivers[1],
                                          accidents=chase["accidents"])
            payload.update(after=result.distance, winner=result.winner,
                           rolls=[record.to_dict() for record in result.records],
                           structure={"pursuer": result.pursuer.structure,
                                      "quarry": result.quarry.structure},
                           mistakes={side: (drive.mistake.total if drive.mistake else None)
                                     for side, drive in (("pursuer", result.pursuer),
                                                         ("quarry", result.quarry))})
            for side, drive in (("pursuer", result.pursuer), ("quarry", result.quarry)):
                if drive.accident:
                    _accident(state, dice, chase, side, payload)
    except chases.ChaseError as error:
        raise rules_refusal(error) from error
    return [Event("chase_round", payload)]


def decide_manoeuvre(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """A U-turn, tight turn, stunt or tour de force: a driving test of its own; a failure is
    the driver's accident, a successful tour de force the other vehicle's (§ (IV))."""
    chase = _chase(state)
    side = choice_field(action, "side", ("pursuer", "quarry"))
    driver = state["tokens"][chase[side]["driver"]]
    if not (actor.is_gm or actor.controls(driver)) or chase["mode"] != "vehicle":
        raise refuse("not_allowed")
    if is_down(driver):
        raise refuse("cannot_act", name=driver["name"])
    force = flag(action, "tour_de_force")
    try:
        test = chases.manoeuvre(dice, skill(driver, chase[side]["skill"]), tour_de_force=force,
                                alongside=chase["distance"] == chases.ALONGSIDE,
                                modifiers=situational(driver))
    except chases.ChaseError as error:
        raise rules_refusal(error) from error
    other = "quarry" if side == "pursuer" else "pursuer"
    payload: dict[str, Any] = {"side": side, "name": driver["name"], "tour_de_force": force,
                               "what": text_field(action, "what", NAME_MAX, required=False),
                               "success": test.success, "skill": test.target,
                               "rolls": [test.record.to_dict()]}
    if not test.success:
        _failed(state, dice, chase, side, test, payload)
    elif force:
        _accident(state, dice, chase, other, payload)
    return [Event("manoeuvre", payload)]


def decide_ram(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """« Heurter le poursuivi » (§ (IV) Déroulement): the pursuer that has closed a short
    distance rams the vehicle in front — a driving test; a success is the pursued vehicle's
    accident, a failure the rammer's failed driving test (``chases.ram``)."""
    chase = _chase(state)
    driver = state["tokens"][chase["pursuer"]["driver"]]
    if chase["mode"] != "vehicle" or not (actor.is_gm or actor.controls(driver)):
        raise refuse("not_allowed")
    if is_down(driver):
        raise refuse("cannot_act", name=driver["name"])
    if chase["pursuer"]["wrecked"] or chase["quarry"]["wrecked"]:
        raise refuse("wrecked")
    try:
        test = chases.ram(dice, skill(driver, chase["pursuer"]["skill"]),
                          caught_up=chase["distance"] == chases.ALONGSIDE,
                          modifiers=situational(driver))
    except chases.ChaseError as error:
        raise rules_refusal(error) from error
    payload: dict[str, Any] = {"name": driver["name"],
                               "vehicle_name": chase["pursuer"]["vehicle_name"],
                               "target_name": chase["quarry"]["vehicle_name"],
                               "success": test.success, "skill": test.target,
                               "score": test.record.total, "rolls": [test.record.to_dict()]}
    if test.success:
        _accident(state, dice, chase, "quarry", payload)
    else:
        _failed(state, dice, chase, "pursuer", test, payload)
    return [Event("rammed", payload)]


def decide_shoot_vehicle(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """From a moving vehicle at a moving one (−10 %, the driver −10 % more), no dodge; at the
    structure (the vehicle's resistance on the table; 0 is an accident) or at a rider
    (the vehicle's resistance added to theirs; above 10 nothing gets through) (§ (IV) Tirs)."""
    chase = _chase(state)
    shooter = controlled(state, action, actor)
    if is_down(shooter):
        raise refuse("cannot_act", name=shooter["name"])
    mine = next((side for side in ("pursuer", "quarry")
                 if shooter["id"] in chase[side]["riders"]), None)
    if mine is None or chase["mode"] != "vehicle":
        raise refuse("not_riding", name=shooter["name"])
    key = key_field(action, "weapon")
    if key not in usable_weapons(state, shooter) or key == PUNCH:
        raise refuse("not_your_weapon", name=shooter["name"])
    weapon = weapon_of(state, key)
    other = "quarry" if mine == "pursuer" else "pursuer"
    vehicles = chases.all_vehicles(state.get("custom_vehicles"))
    vehicle = vehicles[chase[other]["vehicle"]]
    modifiers = chases.shot_modifiers(driver=chase[mine]["driver"] == shooter["id"])
    modifiers += situational(shooter)  # the poison's symptoms are in ``skill`` already
    percent = skill(shooter, weapon.skill)
    aim = key_field(action, "aim") or "structure"
    payload: dict[str, Any] = {"shooter": shooter["id"], "name": shooter["name"],
                               "weapon_name": weapon.name, "skill": percent,
                               "modifiers": [m.to_dict()
                                             for m in modifiers],
                               "vehicle_name": vehicle.name, "aim": aim, "rolls": []}
    loaded = shooter["magazines"].get(key)
    if loaded is not None and loaded < 1:
        raise rules_refusal(CombatError("magazine_empty", left=loaded))
    try:
        if aim == "structure":
            shot = chases.shoot_structure(dice, weapon, percent, vehicle,
                                          chase[other]["structure"], modifiers)
            payload.update(hit=shot.test.success, damage=shot.damage,
                           structure={other: shot.structure}, factor=weapon.factor,
                           resistance=vehicle.resistance,
                           correction=damage_correction(weapon.factor, vehicle.resistance)
                           if shot.test.success else None,
                           rolls=[shot.test.record.to_dict()])
            if shot.accident:
                _accident(state, dice, chase, other, payload)
        else:
            target = target_of(state, {"target": aim})
            if target["id"] not in chase[other]["riders"]:
                raise refuse("not_riding", name=target["name"])
            result = chases.shoot_passenger(dice, weapon, percent, vehicle,
                                            target_for(state, target), modifiers)
            shot = shot_record({**target, "resistance": target["resistance"] + vehicle.resistance},
                         result, weapon)
            payload.update(shots=[shot], rolls=all_rolls([shot]))
    except chases.ChaseError as error:
        raise rules_refusal(error) from error
    if loaded is not None:
        payload["magazine"] = {"weapon": key, "left": loaded - 1}
    return [Event("vehicle_shot", payload)]


def decide_end_chase(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    require_gm(actor)
    chase = _chase(state)
    return [Event("chase_ended", {"distance": chase["distance"]})]


