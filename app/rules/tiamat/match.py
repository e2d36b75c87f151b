"""Tiamat at the table: the state, its fold, the forms a viewer may use, what they may see,
and what a fight writes back on the sheets. Deciding actions: ``match_actions``.

Every event carries its outcome as plain values (``changes``: participant id → fields and
their new values; ``set``: match fields), so ``evolve`` only copies them in: pure, no dice.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from app.rules.dice import Dice
from app.rules.match import ActionForm, Actor, Event, MatchSetup, State
from app.rules.tiamat.combat import (
    LOCATION_NAMES,
    RANGE_MODIFIERS,
    SITUATION_MODIFIERS,
    TERRAINS,
    attack_problem,
    defence_problem,
    degagement_cost,
    rounds_left,
)
from app.rules.tiamat.content import (
    ARMOURS,
    all_weapons,
    standard_techniques,
    techniques,
    weapon_spec,
)
from app.rules.tiamat.sheet import characteristics, derived

RULE_FURIE = "Tiamat § Conception du personnage / Points de furie"


def participant_from(pid: str, name: str, sheet: Mapping[str, Any],
                     character_id: int | None, owner_id: int | None,
                     content: Mapping[str, Any] | None = None) -> dict[str, Any]:
    d = derived(sheet)
    catalogue = all_weapons(content)
    kind = sheet.get("kind", "pj")
    henchmen = kind == "hommes_de_main"
    weapons = [w for w in sheet.get("weapons") or [] if w in catalogue]
    armour = ARMOURS.get(sheet.get("armour") or "aucune", ARMOURS["aucune"])
    known = [t for t in sheet.get("techniques") or [] if t in techniques()]
    actions = int(sheet.get("actions_override") or d["actions"]) if kind != "pj" else d[
        "actions"]
    sante_max = d["sante_max"]
    return {
        "id": pid, "name": name, "character_id": character_id, "owner_id": owner_id,
        "kind": kind, "characteristics": characteristics(sheet),
        "skills": dict(sheet.get("skills") or {}), "techniques": known,
        "talents": d["talents"],
        "sante": sante_max if sheet.get("sante") is None else int(sheet["sante"]),
        "sante_max": sante_max,
        "energie": 0 if henchmen else (d["energie_max"] if sheet.get("energie") is None
                                       else int(sheet["energie"])),
        "energie_max": 0 if henchmen else d["energie_max"],
        "furie": 0 if henchmen else int(sheet.get("furie") or 0),
        "furie_max": 0 if henchmen else d["furie_max"],
        "actions": actions, "actions_left": 0,
        "defense_instinctive": max(1, actions - 1),
        "armour": armour.protection, "armour_name": armour.name,
        "weapons": weapons, "weapon": None,
        "arsenal": {key: weapon_spec(catalogue[key]) for key in weapons},
        "posture": "debout", "states": {}, "sexe": str(sheet.get("sexe") or ""),
        "wounds": list(sheet.get("wounds") or []), "ko": False, "dead": False,
        "initiative": None, "impulsion": 0, "prepared": 0, "chain": [],
        "members": int(sheet.get("members") or 0) if henchmen else 0, "down": 0,
        "move": d["move"], "run": d["run"], "held_by": None, "escape_tries": 0,
        "held_with": None,  # "kusarigama" when caught by Capture du Kusarigama
        "quadruped": bool(sheet.get("quadruped")), "next_d6": 0,
        # « Munitions »: shots left per weapon carried (full magazines at the start).
        "ammo": {key: catalogue[key].ammo for key in weapons if catalogue[key].ammo},
        # Grave wounds that last « 1D6 tours » (Nukite, Coup dans l'entrejambe): location →
        # last round; they also sit in ``wounds`` while they last.
        "temp_wounds": {},
        "hanging": False,  # Gotonpo: « suspendu d'une main à un élément du décor »
        "talent_used": [],  # talents that work once a fight (Ténacité, Sursaut d'énergie)
    }


def start(setup: MatchSetup, dice: Dice) -> list[Event]:
    events = [Event("match_started", {"name": setup.name})]
    for index, entry in enumerate(setup.participants, start=1):
        events.append(Event("participant_added", {"participant": participant_from(
            f"p{index}", entry.name, entry.sheet or {}, entry.character_id, entry.owner_id,
            setup.options.get("content"))}))
    return events


# — the fold ————————————————————————————————————————————————————————————————————

def evolve(state: State, event: Event) -> State:
    payload = event.payload
    if event.kind == "match_started":
        state.update(name=payload["name"], status="running", round=0, participants={},
                     order=[], turn=None, pending=None, combo=None, surprised=[],
                     simultaneous=[], orders={}, orders_revealed={})
        return state
    if event.kind == "participant_added":
        member = copy.deepcopy(payload["participant"])
        state["participants"][member["id"]] = member
        return state
    for pid, fields in (payload.get("changes") or {}).items():
        participant = state["participants"].get(pid)
        if participant is not None:
            participant.update(copy.deepcopy(fields))
    for key, value in (payload.get("set") or {}).items():
        state[key] = copy.deepcopy(value)
    if event.kind == "match_ended":
        state["status"] = "finished"
    return state


# — who may act ————————————————————————————————————————————————————————————————

def active(participant: Mapping[str, Any]) -> bool:
    if participant.get("kind") == "hommes_de_main":
        return participant["down"] < participant["members"]
    return not participant.get("ko") and not participant.get("dead")


def usable_attacks(state: State, pid: str, *, free_options: list[dict] | None = None
                   ) -> list[str]:
    participant = state["participants"][pid]
    keys = list(dict.fromkeys(participant["techniques"] + standard_techniques()))
    catalogue = techniques()
    henchmen = participant["kind"] == "hommes_de_main"
    found = []
    for key in keys:
        technique = catalogue[key]
        if henchmen and (technique.energie or technique.furie):
            continue  # « n'utilisent pas les techniques nécessitant la dépense de tels points »
        if attack_problem(participant, None, technique) is None:
            found.append(key)
    return found


def defence_options(state: State) -> list[str]:
    pending = state.get("pending")
    if not pending:
        return []
    defender = state["participants"][pending["target"]]
    attack = techniques()[pending["technique"]]
    keys = list(dict.fromkeys(defender["techniques"] + standard_techniques()))
    henchmen = defender["kind"] == "hommes_de_main"
    found = []
    for key in keys:
        technique = techniques()[key]
        if henchmen and (technique.energie or technique.furie):
            continue
        if defence_problem(defender, technique, attack, tuple(pending["attributes"]),
                           bool(pending.get("free")), pending.get("ranged")) is None:
            found.append(key)
    return found


def legal_actions(state: State, actor: Actor) -> list[ActionForm]:
    if actor.is_spectator or state.get("status") == "finished":
        return []
    forms: list[ActionForm] = []
    participants = state.get("participants", {})
    pending = state.get("pending")
    ids = list(participants)
    names = {pid: p["name"] for pid, p in participants.items()}
    if pending:
        defender = participants[pending["target"]]
        if actor.controls(defender):
            options = defence_options(state)
            forms.append(ActionForm("defend", "Defend", "tiamat/_defend.html", {
                "options": options, "pending": pending,
                "names": names, "gotonpo": "gotonpo" in options}))
        if actor.is_gm:
            forms.append(ActionForm("gm_adjust", "Correct a value", "tiamat/_adjust.html",
                                    {"participants": ids}))
        return forms
    combo = state.get("combo")
    turn = state.get("turn")
    if combo and actor.controls(participants[combo["pid"]]):
        forms.append(ActionForm("combo", "Combo", "tiamat/_combo.html", {
            "options": combo["options"], "target": combo["target"], "names": names}))
    if actor.is_gm:
        forms.append(ActionForm("roll_initiative", "Roll initiative",
                                "tiamat/_initiative.html", {"participants": [
                                    pid for pid, p in participants.items() if active(p)]}))
    if turn and actor.controls(participants[turn]) and active(participants[turn]):
        me = participants[turn]
        targets = [pid for pid, p in participants.items() if pid != turn and active(p)]
        if me.get("held_by"):
            if me["actions_left"] > 0:
                forms.append(ActionForm("escape", "Break free", "tiamat/_escape.html", {
                    "degagement": "degagement" in me["techniques"]
                    and me["energie"] >= degagement_cost(me)
                    and "terrorise" not in me["states"]}))
        elif me["actions_left"] > 0:
            attacks = usable_attacks(state, turn)
            if attacks and targets:
                forms.append(ActionForm("attack", "Attack", "tiamat/_attack.html", {
                    "techniques": attacks, "targets": targets, "names": names,
                    "ranges": list(RANGE_MODIFIERS), "situations": list(SITUATION_MODIFIERS),
                    "locations": list(LOCATION_NAMES),
                    "boost": "boost_d_energie" in me["talents"]}))
            held = (me.get("arsenal") or {}).get(me.get("weapon") or "")
            forms.append(ActionForm("manoeuvre", "Move or get ready", "tiamat/_manoeuvre.html",
                                    {"weapons": [k for k in me["weapons"] if me["arsenal"].get(
                                        k, {}).get("kind") != "artifice"],
                                     "posture": me["posture"],
                                     "weapon_names": {k: w["name"] for k, w in me[
                                         "arsenal"].items()},
                                     "terrains": list(TERRAINS),
                                     "reload": bool(held and held.get("reload") and (
                                         rounds_left(me, me["weapon"]) or 0) < held["ammo"])}))
            chained = [pid for pid, p in participants.items()
                       if p.get("held_by") == turn and p.get("held_with") == "kusarigama"]
            if chained:
                forms.append(ActionForm("kusarigama_throw", "Throw with the kusarigama",
                                        "tiamat/_kusarigama.html",
                                        {"targets": chained, "names": names}))
            if me["posture"] != "a_terre":
                forms.append(ActionForm("jump", "Jump", "tiamat/_jump.html", {
                    "free": me["characteristics"]["habilete"],
                    "most": me["characteristics"]["habilete"] + 5}))
        finishable = [pid for pid, p in participants.items()
                      if p.get("ko") and not p.get("dead") and pid != turn]
        if finishable and me["actions_left"] == me["actions"]:
            forms.append(ActionForm("coup_de_grace", "Finish off", "tiamat/_coup_de_grace.html",
                                    {"targets": finishable, "names": names}))
        forms.append(ActionForm("end_turn", "End the turn", "tiamat/_end_turn.html", {}))
    tied = [pid for group in state.get("simultaneous") or [] for pid in group
            if actor.controls(participants[pid])]
    if tied:
        forms.append(ActionForm("write_orders", "Secret orders", "tiamat/_orders.html",
                                {"participants": tied}))
    if actor.is_gm and state.get("orders"):
        forms.append(ActionForm("reveal_orders", "Reveal the orders", "tiamat/_reveal.html",
                                {}))
    if actor.is_gm or any(actor.controls(p) for p in participants.values()):
        own = [pid for pid, p in participants.items() if actor.controls(p)]
        forms.append(ActionForm("test", "Test", "tiamat/_test.html", {"participants": own}))
    if actor.is_gm:
        forms.append(ActionForm("gm_adjust", "Correct a value", "tiamat/_adjust.html",
                                {"participants": ids}))
        forms.append(ActionForm("opposed", "Opposed roll", "tiamat/_opposed.html",
                                {"participants": ids}))
        forms.append(ActionForm("recover", "Rest and recovery", "tiamat/_recover.html",
                                {"participants": [pid for pid, p in participants.items()
                                                  if p["kind"] != "hommes_de_main"]}))
        forms.append(ActionForm("end", "End the match", "tiamat/_end.html", {}))
    return forms


def view(state: State, viewer: Actor) -> State:
    """Secret orders (« inscrivent secrètement leurs actions ») stay with their writer and the
    GM until revealed: others only learn that orders were written."""
    orders = state.get("orders") or {}
    if viewer.is_gm or not orders:
        return state
    shown = copy.copy(state)
    shown["orders"] = {pid: (text if viewer.controls(state["participants"][pid]) else "")
                       for pid, text in orders.items()}
    return shown


def between_matches(state: State, sheets: Mapping[int, dict]) -> dict[int, dict]:
    """Write the fight back: santé, énergie and grave wounds as they are; furie is lost
    after the fight (« A la fin d'un combat, le personnage perd tous ses points de furie »)."""
    changed: dict[int, dict] = {}
    for participant in state.get("participants", {}).values():
        sheet = sheets.get(participant.get("character_id"))
        if sheet is None or participant["kind"] == "hommes_de_main":
            continue
        new = copy.deepcopy(sheet)
        new["sante"] = 0 if participant["dead"] else participant["sante"]
        new["energie"] = participant["energie"]
        new["furie"] = 0
        # A grave wound that lasts « 1D6 tours » is over with the fight.
        new["wounds"] = sorted(set(participant["wounds"]) - set(
            participant.get("temp_wounds") or {}))
        if participant["dead"]:
            new["dead"] = True
        changed[participant["character_id"]] = new
    return changed
