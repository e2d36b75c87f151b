"""Tiamat at the table: the state, its fold, the forms a viewer may use, what they may see,
and what a fight writes back on the sheets. Deciding actions: ``match_actions``.

Every event carries its outcome as plain values (``changes``: participant id → fields and
their new values; ``set``: match fields), so ``evolve`` only copies them in: pure, no dice.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from functools import cache
from typing import Any

from app.rules.dice import Dice
from app.rules.match import ActionForm, Actor, Event, MatchSetup, State, copy_state
from app.rules.tiamat.combat import (
    LOCATION_NAMES,
    RANGE_MODIFIERS,
    SITUATION_MODIFIERS,
    TERRAINS,
    attack_problem,
    defence_problem,
    degagement_cost,
    hold_of,
    is_down,
    rounds_left,
    weapon_ok,
)
from app.rules.tiamat.content import (
    ARMOURS,
    CHAR_NAMES,
    all_weapons,
    standard_techniques,
    techniques,
    weapon_spec,
)
from app.rules.tiamat.sheet import characteristics, derived
from app.rules.tiamat.sides import OPPONENTS, PLAYERS, active, decided, outcome, side_of

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
        # The side it fights on (``sides.py``): the players' fighters against the others.
        "side": PLAYERS if kind == "pj" or owner_id is not None else OPPONENTS,
        "fled": False,  # « prend la fuite »: out of the fight
        # « toujours parer avec … »: the defence that answers an attack by itself when it is
        # legal and affordable (a technique, "instinctive", or None: ask its player).
        "standing_defence": None,
        "hold": None,  # the technique holding it (``Technique.hold``: how it escapes)
        "terrorised_by": None, "fear_tried": 0,  # « Terrorisé »: whom to overcome, when tried
        "free_move": False,  # henchmen: « une action de mouvement gratuite » this round
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
        member = copy_state(payload["participant"])
        state["participants"][member["id"]] = member
        return state
    for pid, fields in (payload.get("changes") or {}).items():
        participant = state["participants"].get(pid)
        if participant is not None:
            participant.update(copy_state(fields))
    for key, value in (payload.get("set") or {}).items():
        state[key] = copy_state(value)
    if event.kind == "orders_written" and "set" not in payload:
        # The writer's own orders join the others' (a log from before carries the whole map
        # under ``set``, folded above as it always was).
        state["orders"] = {**(state.get("orders") or {}), payload["participant"]:
                           payload["orders"]}
    if event.kind == "match_ended":
        state["status"] = "finished"
    return state


# — who may act ————————————————————————————————————————————————————————————————

# The standard techniques a fighter reaches for first, after its own (a weapon's in hand
# before the bare hands'): the form's first choice is the likely one.
STANDARD_ORDER = ("attaque_armee", "visee", "tir_en_rafale", "coup_de_poing", "coup_de_pied",
                  "lancer_de_projectile", "attaque_avec_arme_improvisee", "gifle")


@cache
def _standard_in_order() -> list[str]:
    """The standard techniques, likely ones first (the catalogue does not change: sorted
    once, not at every defence a throw weighs)."""
    return sorted(standard_techniques(), key=lambda k: (
        STANDARD_ORDER.index(k) if k in STANDARD_ORDER else len(STANDARD_ORDER), k))


def _repertoire(participant: Mapping[str, Any]) -> list[str]:
    """The techniques a fighter may reach for: its own, then the standard ones (henchmen use
    none that costs énergie or furie, « Beat them all § Points d'énergie »)."""
    keys = list(dict.fromkeys(participant["techniques"] + _standard_in_order()))
    if participant["kind"] != "hommes_de_main":
        return keys
    return [k for k in keys if not (techniques()[k].energie or techniques()[k].furie)]


def usable_attacks(state: State, pid: str) -> list[str]:
    """The attacks this fighter may make now, whatever the target; one needing the weapon in
    its hand first."""
    participant = state["participants"][pid]
    found = [key for key in _repertoire(participant)
             if attack_problem(participant, None, techniques()[key]) is None]
    armed = [key for key in found if techniques()[key].weapon and participant.get("weapon")]
    return armed + [key for key in found if key not in armed]


def targetable(participant: Mapping[str, Any]) -> bool:
    """In the fight, or KO and alive (« S'il subit une attaque létale, il meurt »: only a
    lethal technique reaches it, ``combat.target_problem``)."""
    return active(participant) or (participant.get("ko") and not participant.get("dead")
                                   and not participant.get("fled")
                                   and participant.get("kind") != "hommes_de_main")


def attack_choices(state: State, pid: str) -> tuple[list[str], list[str]]:
    """(techniques, targets) for the attack form: only pairs the rules accept now — a
    technique usable against at least one fighter there, a target at least one offered
    technique can reach (never a fighter out of the fight)."""
    participants = state["participants"]
    me = participants[pid]
    targets = [q for q, p in participants.items() if q != pid and targetable(p)]
    allowed = {(key, q) for key in usable_attacks(state, pid) for q in targets
               if attack_problem(me, participants[q], techniques()[key]) is None}
    return ([key for key in usable_attacks(state, pid) if any(k == key for k, _ in allowed)],
            [q for q in targets if any(t == q for _, t in allowed)])


def defence_options(state: State) -> list[str]:
    pending = state.get("pending")
    if not pending:
        return []
    defender = state["participants"][pending["target"]]
    attack = techniques()[pending["technique"]]
    return [key for key in _repertoire(defender)
            if defence_problem(defender, techniques()[key], attack,
                               tuple(pending["attributes"]), bool(pending.get("free")),
                               pending.get("ranged")) is None]


def known_defences(participant: Mapping[str, Any]) -> list[str]:
    """The defences a fighter could answer with in this fight (the weapon or device it asks
    for is carried): the choices of its standing defence."""
    arsenal = participant.get("arsenal") or {}
    return [key for key in _repertoire(participant) if techniques()[key].is_defence
            and any(weapon_ok(techniques()[key], spec, arsenal)
                    for spec in (None, *arsenal.values()))]


def later_fighters(state: State, pid: str) -> list[str]:
    """Who has not played yet this round, after ``pid``: whom it may wait for."""
    order = state.get("order") or []
    start = order.index(pid) + 1 if pid in order else len(order)
    return [q for q in order[start:] if active(state["participants"][q])]


def legal_actions(state: State, actor: Actor) -> list[ActionForm]:
    if actor.is_spectator or state.get("status") == "finished":
        return []
    if decided(state):
        return _after_the_fight(state, actor)
    if state.get("pending"):
        return _while_pending(state, actor)
    forms: list[ActionForm] = []
    participants = state.get("participants", {})
    combo = state.get("combo")
    if combo and actor.controls(participants[combo["pid"]]):
        forms += _combo_forms(state, combo)
    if actor.is_gm and not state.get("turn"):
        forms.append(ActionForm("roll_initiative", "Roll initiative",
                                "tiamat/_initiative.html", {"participants": [
                                    pid for pid, p in participants.items() if active(p)]}))
    turn = state.get("turn")
    if turn and actor.controls(participants[turn]) and active(participants[turn]):
        forms += _turn_forms(state, turn)
    tied = [pid for group in state.get("simultaneous") or [] for pid in group
            if actor.controls(participants[pid])]
    if tied:
        forms.append(ActionForm("write_orders", "Secret orders", "tiamat/_orders.html",
                                {"participants": tied}))
    if actor.is_gm and state.get("orders"):
        forms.append(ActionForm("reveal_orders", "Reveal the orders", "tiamat/_reveal.html",
                                {}))
    forms += _always(state, actor)
    if actor.is_gm:
        forms += _gm_tools(state)
    return forms


def _names(state: State) -> dict[str, str]:
    return {pid: p["name"] for pid, p in state.get("participants", {}).items()}


def _while_pending(state: State, actor: Actor) -> list[ActionForm]:
    """An attack waits for its target's defence: only the defence, and the GM's
    corrections."""
    pending = state["pending"]
    forms: list[ActionForm] = []
    if actor.controls(state["participants"][pending["target"]]):
        options = defence_options(state)
        forms.append(ActionForm("defend", "Defend", "tiamat/_defend.html", {
            "options": options, "pending": pending, "names": _names(state),
            "gotonpo": "gotonpo" in options}))
    if actor.is_gm:
        forms.append(ActionForm("gm_adjust", "Correct a value", "tiamat/_adjust.html",
                                {"participants": list(state["participants"])}))
    return forms


def finishers(state: State, actor: Actor, target: Mapping[str, Any]) -> list[str]:
    """The fighters this actor plays that may finish ``target`` off once the fight is
    decided: still in the fight, on another side."""
    return [pid for pid, p in state["participants"].items() if actor.controls(p)
            and active(p) and side_of(p) != side_of(target)]


def _after_the_fight(state: State, actor: Actor) -> list[ActionForm]:
    """One side can no longer fight: nobody is asked to play; the GM is awaited to end the
    match (its form first), and may still correct a value to let the fight go on. A winner
    may still finish off a beaten enemy (« Mise à mort »)."""
    forms: list[ActionForm] = []
    if actor.is_gm:
        forms.append(ActionForm("end_match", "End the match", "tiamat/_end.html", {
            "awaited": True, "outcome": outcome(state).to_dict()}))
    participants = state["participants"]
    beaten = [pid for pid, p in participants.items() if p.get("ko") and not p.get("dead")
              and not p.get("fled") and finishers(state, actor, p)]
    if beaten:
        killers = list(dict.fromkeys(k for pid in beaten
                                     for k in finishers(state, actor, participants[pid])))
        forms.append(ActionForm("coup_de_grace", "Finish off", "tiamat/_coup_de_grace.html",
                                {"targets": beaten, "names": _names(state),
                                 "killers": killers, "after": True}))
    forms += _always(state, actor)
    if actor.is_gm:
        forms += [form for form in _gm_tools(state) if form.kind != "end_match"]
    return forms


def _combo_forms(state: State, combo: Mapping[str, Any]) -> list[ActionForm]:
    """The free follow-up on offer, and a way to let it go (so the turn may move on)."""
    return [ActionForm("combo", "Combo", "tiamat/_combo.html", {
                "options": combo["options"], "target": combo["target"],
                "names": _names(state)}),
            ActionForm("skip_combo", "Do not chain", "tiamat/_skip_combo.html", {})]


def _turn_forms(state: State, turn: str) -> list[ActionForm]:
    """What the fighter whose turn it is may do: a held fighter only tries to break free."""
    participants = state["participants"]
    me = participants[turn]
    forms: list[ActionForm] = []
    if me.get("held_by"):
        if me["actions_left"] > 0:
            forms.append(ActionForm("escape", "Break free", "tiamat/_escape.html", {
                "degagement": "degagement" in me["techniques"]
                and me["energie"] >= degagement_cost(me)
                and "terrorise" not in me["states"],
                "test": CHAR_NAMES[hold_of(me).test]}))
    elif me["actions_left"] > 0:
        forms += _action_forms(state, turn)
    finishable = [pid for pid, p in participants.items()
                  if p.get("ko") and not p.get("dead") and not p.get("fled") and pid != turn]
    if finishable and me["actions_left"] == me["actions"] and not me.get("held_by"):
        forms.append(ActionForm("coup_de_grace", "Finish off", "tiamat/_coup_de_grace.html",
                                {"targets": finishable, "names": _names(state)}))
    forms.append(ActionForm("end_turn", "End the turn", "tiamat/_end_turn.html", {}))
    return forms


def _action_forms(state: State, turn: str) -> list[ActionForm]:
    participants = state["participants"]
    me = participants[turn]
    forms: list[ActionForm] = []
    attacks, targets = attack_choices(state, turn)
    if attacks and targets:
        catalogue = techniques()
        forms.append(ActionForm("attack", "Attack", "tiamat/_attack.html", {
            "attacker": turn, "techniques": attacks, "targets": targets, "names": _names(state),
            "ranges": list(RANGE_MODIFIERS), "situations": list(SITUATION_MODIFIERS),
            "locations": list(LOCATION_NAMES),
            # which optional fields the offered techniques read
            "aimed": any(catalogue[k].location == "choix" for k in attacks),
            "ranged": any(catalogue[k].type == "distance" or catalogue[k].also_ranged
                          for k in attacks),
            "throwable": any(catalogue[k].also_ranged for k in attacks),
            "boost": "boost_d_energie" in me["talents"]}))
    held = (me.get("arsenal") or {}).get(me.get("weapon") or "")
    forms.append(ActionForm("manoeuvre", "Move or get ready", "tiamat/_manoeuvre.html",
                            {"weapons": [k for k in me["weapons"] if me["arsenal"].get(
                                k, {}).get("kind") != "artifice"],
                             "posture": me["posture"], "free_move": bool(me.get("free_move")),
                             "weapon_names": {k: w["name"] for k, w in me["arsenal"].items()},
                             "terrains": list(TERRAINS),
                             "reload": bool(held and held.get("reload") and (
                                 rounds_left(me, me["weapon"]) or 0) < held["ammo"])}))
    chained = [pid for pid, p in participants.items() if active(p)
               and p.get("held_by") == turn and p.get("held_with") == "kusarigama"]
    if chained:
        forms.append(ActionForm("kusarigama_throw", "Throw with the kusarigama",
                                "tiamat/_kusarigama.html",
                                {"targets": chained, "names": _names(state)}))
    if not is_down(me):
        forms.append(ActionForm("jump", "Jump", "tiamat/_jump.html", {
            "free": me["characteristics"]["habilete"],
            "most": me["characteristics"]["habilete"] + 5}))
    source = participants.get(me.get("terrorised_by") or "")
    if "terrorise" in me["states"] and source and me.get("fear_tried") != state["round"]:
        forms.append(ActionForm("overcome_fear", "Overcome the fear",
                                "tiamat/_overcome_fear.html", {"source": source["name"]}))
    later = later_fighters(state, turn)
    if later:
        forms.append(ActionForm("delay_turn", "Play after another fighter",
                                "tiamat/_delay_turn.html",
                                {"fighters": later, "names": _names(state)}))
    return forms


def _always(state: State, actor: Actor) -> list[ActionForm]:
    """What a player (or the GM) may do at any moment of the fight: a test, and each of
    their fighters' standing defence."""
    participants = state.get("participants", {})
    own = [pid for pid, p in participants.items() if actor.controls(p)]
    if not own:
        return []
    testers = own
    if state.get("round") and not decided(state) and not actor.is_gm:
        testers = [pid for pid in own if pid == state.get("turn")]  # a test is an action
    forms = [ActionForm("test", "Test", "tiamat/_test.html", {
        "participants": testers, "helpers": [pid for pid, p in participants.items()
                                             if actor.controls(p) and active(p)]})
             ] if testers else []
    defenders = [pid for pid in own if active(participants[pid])]
    if defenders and not decided(state):
        forms.append(ActionForm("standing_defence", "Standing defence",
                                "tiamat/_standing_defence.html", {
                                    "participants": defenders, "names": _names(state),
                                    "options": {pid: known_defences(participants[pid])
                                                for pid in defenders},
                                    "current": {pid: participants[pid].get(
                                        "standing_defence") for pid in defenders},
                                    "setting": True}))
    return forms


def _gm_tools(state: State) -> list[ActionForm]:
    participants = state.get("participants", {})
    ids = list(participants)
    return [
        ActionForm("gm_adjust", "Correct a value", "tiamat/_adjust.html",
                   {"participants": ids}),
        ActionForm("opposed", "Opposed roll", "tiamat/_opposed.html", {"participants": ids}),
        ActionForm("recover", "Rest and recovery", "tiamat/_recover.html",
                   {"participants": [pid for pid, p in participants.items()
                                     if p["kind"] != "hommes_de_main"]}),
        ActionForm("end_match", "End the match", "tiamat/_end.html", {}),
    ]


def view(state: State, viewer: Actor) -> State:
    """Secret orders (« inscrivent secrètement leurs actions ») stay with their writer and the
    GM until revealed: others only learn that orders were written. A standing defence is its
    fighter's player's and the GM's: an attacker learns it when it answers."""
    if viewer.is_gm:
        return state
    participants = state.get("participants") or {}
    orders = state.get("orders") or {}
    hidden = [pid for pid, p in participants.items()
              if p.get("standing_defence") and not viewer.controls(p)]
    if not orders and not hidden:
        return state
    shown = copy.copy(state)
    if orders:
        shown["orders"] = {pid: (text if viewer.controls(participants[pid]) else "")
                           for pid, text in orders.items()}
    if hidden:
        shown["participants"] = {pid: ({**p, "standing_defence": None} if pid in hidden
                                       else p) for pid, p in participants.items()}
    return shown


def between_matches(state: State, sheets: Mapping[int, dict]) -> dict[int, dict]:
    """Write the fight back: santé, énergie and grave wounds as they are; furie is lost
    after the fight (« A la fin d'un combat, le personnage perd tous ses points de furie »)."""
    changed: dict[int, dict] = {}
    for participant in state.get("participants", {}).values():
        sheet = sheets.get(participant.get("character_id"))
        if sheet is None or participant["kind"] == "hommes_de_main":
            continue
        new = copy_state(sheet)
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
