"""Cyborg Anti-Alien at the table: the state, the fold, what each member may do, the view.

The state keeps the free-play shape the engine's board draws (``board``, ``tokens``,
``order``, ``turn``) and adds the game's own: each token is a participant with its santé,
wounds, lost limbs, magazines and states; ``initiative`` holds the groups' order and the
group acting now (Cyborg § (III) Combats / Déroulement); ``chase`` the running chase
(§ (IV) Poursuites); ``hour`` the mission clock for poisons (§ (V)) and first aid (§ (II)).
Deciding (dice) lives in ``match_actions.py``; this module is pure.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Mapping
from typing import Any

from app.rules.board import EVOLVE as BOARD_EVOLVE
from app.rules.board import mark_area, new_board
from app.rules.cyborg.chases import ALONGSIDE, DISTANCES, all_vehicles, custom_vehicles
from app.rules.cyborg.combat import melee_reach, modifier_table
from app.rules.cyborg.content import CHARACTERISTICS, Weapon, all_weapons, skills
from app.rules.cyborg.poisons import poisons, symptoms
from app.rules.cyborg.profiles import PROFILES
from app.rules.cyborg.sheet import derived, kind_of, missions_of
from app.rules.match import ActionForm, Actor, Event, MatchSetup, State
from app.rules.outcome import Outcome
from app.rules.system import N_

GROUPS = ("cyborgs", "aliens", "humains")
DEFAULT_GROUP = {"cyborg": "cyborgs", "alien": "aliens", "human": "humains"}
# States that stop a participant from acting (and from dodging). "fled": the GM's word that
# it left the scene (house: the text's fights end by flight too, docs/rules-notes.md).
DOWN = ("dead", "unconscious", "coma", "paralysed", "out_of_action", "fled")
STATES = ("dead", "unconscious", "coma", "paralysed", "out_of_action", "fled", "strangled",
          "immobilised", "hidden")
# Who is no longer there to be chosen: a target, a patient, a seeker…
GONE = ("dead", "fled")
GRENADE_RADIUS = 3  # Cyborg § (III) Catalogue des armes: "un rayon d'action de 3 mètres"
PUNCH = "poing"


# — participants ——————————————————————————————————————————————————————————————

def participant(token_id: str, name: str, sheet: Mapping[str, Any], *,
                character_id: int | None = None, owner_id: int | None = None,
                group: str | None = None, x: int = 0, y: int = 0,
                content: Any = None) -> dict[str, Any]:
    """A participant as the match keeps it, built once from its sheet (JSON only)."""
    sheet = dict(sheet or {})
    values = derived(sheet, content or {})
    kind = kind_of(sheet)
    custom = (sheet.get("custom_skill") or {}) if isinstance(sheet.get("custom_skill"),
                                                            dict) else {}
    held = {}
    for line in values["skills"]:
        skill = skills()[line["key"]]
        formula = list(custom.get("formula") or skill.formula) if skill.custom \
            else list(skill.formula)
        held[line["key"]] = {"name": line["name"], "formula": formula, "flat": skill.base,
                             "extra": line["total"] - line["base"]}
    catalogue = all_weapons(content)
    weapon_keys = [key for key in sheet.get("weapons", []) if key in catalogue]
    lost = [limb for limb in sheet.get("lost_limbs", []) if isinstance(limb, str)]
    locations = sheet.get("locations") if isinstance(sheet.get("locations"), list) else None
    sante_max = sheet.get("sante_max", 10)
    return {
        "id": token_id, "name": name, "character_id": character_id, "owner_id": owner_id,
        "kind": kind, "group": group or DEFAULT_GROUP[kind],
        "x": x, "y": y, "initiative": None,
        "humanoid": bool(sheet.get("humanoid", True)), "locations": locations,
        "characteristics": dict(values["characteristics"]),
        "skills": held,
        "sante": int(sheet.get("sante", sante_max)), "sante_max": int(sante_max),
        "resistance": int(values["resistance"]),
        "weapons": weapon_keys,
        "weapon_names": {key: catalogue[key].name for key in weapon_keys},
        "magazines": {key: catalogue[key].magazine for key in weapon_keys
                      if catalogue[key].magazine is not None},
        "lost_limbs": lost, "broken_limbs": [], "cut_in_two": False,
        "wound_paralysis": False,
        "penalties": {}, "skill_penalties": {},
        "states": ["dead"] if sheet.get("fate", "active") != "active" else [],
        "turns_to_live": None, "unbalanced_until": 0, "acted": False,
        "modifier": {"value": 0, "label": ""},
        "poisoning": None, "first_aid_day": None,
        "missions": missions_of(sheet) if kind == "cyborg" else 0,
    }


def characteristic(person: Mapping[str, Any], name: str) -> int:
    """The characteristic a test uses: the sheet's, the wounds' penalties, the poison's."""
    value = person["characteristics"].get(name, 0) + person["penalties"].get(name, 0)
    value += poison_effects(person)["characteristics"].get(name, 0)
    return max(0, value)


def skill(person: Mapping[str, Any], key: str) -> int:
    """A skill's percentage now: its base from the characteristics as they are now (a lost leg
    lowers Esquive/Parade), the sheet's credit and rank bonus, the wounds' and poison's
    penalties. 0 for a skill not held."""
    held = person["skills"].get(key)
    if held is None:
        return 0
    now = {name: characteristic(person, name) for name in CHARACTERISTICS}
    base = held["flat"] + sum(now[name] for name in held["formula"])
    value = base + held["extra"] + person["skill_penalties"].get(key, 0)
    return max(0, value + poison_effects(person)["skills"])


def poison_effects(person: Mapping[str, Any]) -> dict[str, Any]:
    poisoning = person.get("poisoning")
    if not poisoning or poisoning.get("cured"):
        return {"skills": 0, "characteristics": {}, "symptoms": []}
    found: dict[str, Any] = {"skills": 0, "characteristics": {}, "symptoms": []}
    for key in poisons()[poisoning["poison"]].symptoms:
        symptom = symptoms()[key]
        found["symptoms"].append(symptom.name)
        found["skills"] += symptom.skills
        for name, value in symptom.characteristics.items():
            found["characteristics"][name] = found["characteristics"].get(name, 0) + value
    return found


def is_down(person: Mapping[str, Any]) -> bool:
    return any(state in person["states"] for state in DOWN)


def is_gone(person: Mapping[str, Any]) -> bool:
    return any(state in person["states"] for state in GONE)


def recovered(person: Mapping[str, Any], sante: int) -> list[str]:
    """The states that santé back at ``sante`` ends: a cyborg or an alien whose trunk was
    perforated (or burnt by a laser, acid…) "est paralysé jusqu'à récupération de points de
    vie" (Cyborg § (III) Calcul des dégâts, Perforation note 2) — it came at 0 santé or less,
    it ends when santé is above 0 again, by first aid or any healing. A paralysis the GM set
    by hand stays the GM's."""
    if person.get("wound_paralysis") and "paralysed" in person["states"] and sante > 0:
        return ["paralysed"]
    return []


def _recover(token: dict, states: list[str] | None) -> None:
    for name in states or []:
        if name in token["states"]:
            token["states"].remove(name)
        if name == "paralysed":
            token["wound_paralysis"] = False


def can_dodge(state: State, person: Mapping[str, Any]) -> bool:
    """Up, and not unbalanced by a defensive master stroke this round or the next."""
    return not is_down(person) and state["round"] > person["unbalanced_until"]


def weapon_of(state: State, key: str, person: Mapping[str, Any] | None = None) -> Weapon:
    """A weapon by key: the catalogue, the campaign's own (copied at start) or a fist."""
    if key == PUNCH:
        from app.rules.cyborg.combat import punch

        return punch(characteristic(person, "force") if person else 10)
    custom = state.get("custom_weapons", {}).get(key)
    if custom is not None:
        return Weapon(**custom)
    return all_weapons()[key]


def usable_weapons(state: State, person: Mapping[str, Any]) -> list[str]:
    """The weapons this participant can use: a one-armed fighter cannot hold a two-handed
    weapon (Cyborg § (III) Catalogue des armes, *: Tablée refuses rather than guess a malus);
    a fist is always there while an arm is."""
    one_armed = any(limb in person["lost_limbs"] + person["broken_limbs"]
                    for limb in ("right_arm", "left_arm"))
    found = [key for key in person["weapons"]
             if not (one_armed and weapon_of(state, key).two_handed)]
    both_gone = all(limb in person["lost_limbs"] for limb in ("right_arm", "left_arm"))
    return found + ([] if both_gone else [PUNCH])


# — set-up ————————————————————————————————————————————————————————————————————

def start(setup: MatchSetup, dice: Any) -> list[Event]:
    options = setup.options
    content = options.get("content") or {}
    board = new_board(options, unit="sq", width=40, height=30)
    custom = {key: weapon.__dict__ for key, weapon in all_weapons(content).items()
              if weapon.source == "gm"}
    vehicles = {key: vehicle.__dict__ for key, vehicle in custom_vehicles(content).items()}
    events = [Event("match_started", {"name": setup.name, "board": board,
                                      "custom_weapons": custom, "custom_vehicles": vehicles})]
    count = len(setup.participants)
    for index, entry in enumerate(setup.participants):
        x = round((index + 1) * board["width"] / (count + 1))
        token = participant(f"t{index + 1}", entry.name, entry.sheet,
                            character_id=entry.character_id, owner_id=entry.owner_id,
                            x=x, y=min(3, board["height"]), content=content)
        events.append(Event("participant_added", {"token": token}))
    return events


# — the fold (pure, no dice) ——————————————————————————————————————————————————————

def evolve(state: State, event: Event) -> State:
    handler = _EVOLVE.get(event.kind)
    if handler is not None:
        handler(state, event.payload)
    return state


def _started(state: State, p: dict) -> None:
    state.update(name=p["name"], board=p["board"], tokens={}, order=[], turn=None, round=0,
                 next_token=1, status="running", notes=0, rolls=0, initiative=None,
                 chase=None, hour=0, custom_weapons=p.get("custom_weapons", {}),
                 custom_vehicles=p.get("custom_vehicles", {}), mission=None)


def _order(state: State) -> None:
    """Board order: the acting group's members first, then by group order, then by id."""
    initiative = state.get("initiative")
    rank = {group: i for i, group in enumerate(initiative["order"])} if initiative else {}
    state["order"] = sorted(state["tokens"], key=lambda tid: (
        rank.get(state["tokens"][tid]["group"], len(rank)), int(tid[1:])))


def _join_initiative(state: State, token: dict) -> None:
    """A group arriving in a running fight acts after the groups already in the order (house:
    the text rolls initiative once, at the start)."""
    initiative = state.get("initiative")
    if not initiative or token["group"] in initiative["order"]:
        return
    initiative["order"].append(token["group"])
    initiative["totals"][token["group"]] = token["characteristics"].get("rapidite", 0)
    token["initiative"] = initiative["totals"][token["group"]]


def _added(state: State, p: dict) -> None:
    token = copy.deepcopy(p["token"])
    state["tokens"][token["id"]] = token
    state["next_token"] = max(state["next_token"], int(token["id"][1:]) + 1)
    _join_initiative(state, token)
    _order(state)


def _group_set(state: State, p: dict) -> None:
    state["tokens"][p["token"]]["group"] = p["group"]
    _join_initiative(state, state["tokens"][p["token"]])
    _order(state)


def _initiative(state: State, p: dict) -> None:
    state["initiative"] = {"order": p["order"], "totals": p["totals"],
                           "surprise": p.get("surprise"), "active": 0}
    state["round"] = p["round"]
    for token in state["tokens"].values():
        token["acted"] = False
        token["initiative"] = p["totals"].get(token["group"])
    _order(state)


def _phase(state: State, p: dict) -> None:
    state["initiative"]["active"] = p["active"]
    if p["round"] != state["round"]:
        state["round"] = p["round"]
        for token in state["tokens"].values():
            token["acted"] = False
    for token_id, turns in p.get("turns_to_live", {}).items():
        token = state["tokens"][token_id]
        token["turns_to_live"] = turns
        if turns <= 0 and "dead" not in token["states"]:
            token["states"].append("dead")


def _moved(state: State, p: dict) -> None:
    token = state["tokens"][p["token"]]
    token["x"], token["y"] = p["to"]


def _hit(state: State, target_id: str, shot: Mapping[str, Any]) -> None:
    """One shot's outcome on its target: santé, then the wound if santé reached 0 or less."""
    target = state["tokens"][target_id]
    target["sante"] = shot["sante"]
    wound = shot.get("wound")
    if wound:
        _wound(target, wound)


def _wound(target: dict, wound: Mapping[str, Any]) -> None:
    for flag, name in (("dead", "dead"), ("unconscious", "unconscious"), ("coma", "coma"),
                       ("paralysed", "paralysed"), ("cut_in_two", "out_of_action")):
        if wound.get(flag) and name not in target["states"]:
            target["states"].append(name)
    if wound.get("paralysed"):
        target["wound_paralysis"] = True  # until santé is back above 0 (``recovered``)
    if wound.get("cut_in_two"):
        target["cut_in_two"] = True
    if wound.get("turns_to_live") is not None:
        target["turns_to_live"] = wound["turns_to_live"]
        if "strangled" not in target["states"]:
            target["states"].append("strangled")
    if wound.get("lost_limb") and wound["lost_limb"] not in target["lost_limbs"]:
        target["lost_limbs"].append(wound["lost_limb"])
    if wound.get("broken_limb") and wound["broken_limb"] not in target["broken_limbs"]:
        target["broken_limbs"].append(wound["broken_limb"])
    for name, value in (wound.get("penalties") or {}).items():
        target["penalties"][name] = target["penalties"].get(name, 0) + value
    for key, value in (wound.get("skill_penalties") or {}).items():
        # The left hand's −50 % is one penalty, however often the right arm is hit.
        target["skill_penalties"][key] = min(target["skill_penalties"].get(key, 0), value)


def _attacked(state: State, p: dict) -> None:
    attacker = state["tokens"][p["attacker"]]
    if p.get("in_combat"):
        attacker["acted"] = True
    if p.get("magazine") is not None:
        attacker["magazines"][p["weapon"]] = p["magazine"]
    for shot in p["shots"]:
        _hit(state, shot["target"], shot)
        if shot.get("attacker_unbalanced"):
            attacker["unbalanced_until"] = p["round"] + 1
    if p.get("area"):  # a grenade's blast, drawn on the board until the next one
        area = p["area"]
        mark_area(state, x=area["x"], y=area["y"], r=area["radius"],
                  label=p.get("weapon_name", ""))


def _reloaded(state: State, p: dict) -> None:
    token = state["tokens"][p["token"]]
    token["magazines"][p["weapon"]] = p["magazine"]
    if p.get("in_combat"):
        token["acted"] = True


def _first_aid(state: State, p: dict) -> None:
    patient = state["tokens"][p["patient"]]
    patient["sante"] = p["sante"]
    patient["first_aid_day"] = p["day"]
    _recover(patient, p.get("recovered"))
    if p.get("in_combat"):
        state["tokens"][p["token"]]["acted"] = True


def _poisoned(state: State, p: dict) -> None:
    state["tokens"][p["token"]]["poisoning"] = dict(p["poisoning"])


def _hours(state: State, p: dict) -> None:
    state["hour"] = p["hour"]
    for token_id, change in p["tokens"].items():
        token = state["tokens"][token_id]
        token["sante"] = change["sante"]
        token["poisoning"]["hours"] += len(change["lost"])
        if change["dead"] and "dead" not in token["states"]:
            token["states"].append("dead")


def _antidote(state: State, p: dict) -> None:
    state["tokens"][p["token"]]["poisoning"]["cured"] = True


def _corrected(state: State, p: dict) -> None:
    token = state["tokens"][p["token"]]
    field = p["field"]
    if field.startswith("magazine:"):
        token["magazines"][field.split(":", 1)[1]] = p["after"]
    elif field in CHARACTERISTICS:
        token["characteristics"][field] = p["after"]
    else:
        token[field] = p["after"]
    _recover(token, p.get("recovered"))


def _state_set(state: State, p: dict) -> None:
    token = state["tokens"][p["token"]]
    if p["state"] == "paralysed":
        token["wound_paralysis"] = False  # set or cleared by hand: the GM's from now on
    if p["on"] and p["state"] not in token["states"]:
        token["states"].append(p["state"])
    elif not p["on"] and p["state"] in token["states"]:
        token["states"].remove(p["state"])
        if p["state"] == "strangled":
            token["turns_to_live"] = None


def _modifier(state: State, p: dict) -> None:
    state["tokens"][p["token"]]["modifier"] = {"value": p["value"], "label": p["label"]}


def _counter(key: str) -> Callable[[State, dict], None]:
    def handler(state: State, _p: dict) -> None:
        state[key] += 1
    return handler


def _chase_started(state: State, p: dict) -> None:
    state["chase"] = copy.deepcopy(p["chase"])


def _chase_round(state: State, p: dict) -> None:
    chase = state["chase"]
    chase["distance"] = p["after"]
    chase["rounds"] += 1
    _chase_harm(state, p)


def _chase_harm(state: State, p: dict) -> None:
    chase = state["chase"]
    for side, structure in (p.get("structure") or {}).items():
        chase[side]["structure"] = structure
    for side in p.get("wrecked") or []:
        chase[side]["wrecked"] = True
    for token_id, sante in (p.get("harm") or {}).items():
        state["tokens"][token_id]["sante"] = sante
    for token_id, wound in (p.get("wounds") or {}).items():
        _wound(state["tokens"][token_id], wound)
    for shot in p.get("shots") or []:
        _hit(state, shot["target"], shot)
    if p.get("magazine"):
        state["tokens"][p["shooter"]]["magazines"][p["magazine"]["weapon"]] = \
            p["magazine"]["left"]


def _camouflaged(state: State, p: dict) -> None:
    """Camouflage against Repérage: hidden while nobody looking has spotted it."""
    state["rolls"] += 1
    token = state["tokens"][p["token"]]
    if p["hidden"] and "hidden" not in token["states"]:
        token["states"].append("hidden")
    elif not p["hidden"] and "hidden" in token["states"]:
        token["states"].remove("hidden")


def _chase_ended(state: State, _p: dict) -> None:
    state["chase"] = None


def _mission_ended(state: State, p: dict) -> None:
    state["mission"] = copy.deepcopy(p["results"])
    state["status"] = "finished"


def _ended(state: State, _p: dict) -> None:
    state["status"] = "finished"


def _fight_ended(state: State, _p: dict) -> None:
    """The GM ended the fight: no group acts in turn until initiative is rolled again."""
    state["initiative"] = None
    for token in state["tokens"].values():
        token["acted"] = False
        token["initiative"] = None
    _order(state)


_EVOLVE: dict[str, Callable[[State, dict], None]] = {
    "match_started": _started,
    "participant_added": _added,
    "group_set": _group_set,
    "initiative_rolled": _initiative,
    "phase_ended": _phase,
    "token_moved": _moved,
    "attacked": _attacked,
    "reloaded": _reloaded,
    "tested": _counter("rolls"),
    "opposed": _counter("rolls"),
    "camouflaged": _camouflaged,
    "first_aid": _first_aid,
    "poisoned": _poisoned,
    "hours_passed": _hours,
    "antidote": _antidote,
    "corrected": _corrected,
    "state_set": _state_set,
    "modifier_set": _modifier,
    "note_added": _counter("notes"),
    "chase_started": _chase_started,
    "chase_round": _chase_round,
    "manoeuvre": _chase_harm,
    "rammed": _chase_harm,
    "vehicle_shot": _chase_harm,
    "chase_ended": _chase_ended,
    **BOARD_EVOLVE,
    "mission_ended": _mission_ended,
    "match_ended": _ended,
    "fight_ended": _fight_ended,
}


# — who acts now ——————————————————————————————————————————————————————————————————

def active_group(state: State) -> str | None:
    initiative = state.get("initiative")
    if not initiative or not initiative["order"]:
        return None
    return initiative["order"][initiative["active"]]


def may_act(state: State, person: Mapping[str, Any]) -> bool:
    """Up, and — once initiative is rolled — in the group acting now and not acted yet this
    round (Cyborg § (III) Déroulement: each group declares and resolves its actions)."""
    if is_down(person):
        return False
    group = active_group(state)
    return group is None or (person["group"] == group and not person["acted"])


def in_combat(state: State) -> bool:
    return active_group(state) is not None


def may_ram(state: State, actor: Actor) -> bool:
    """The pursuer's driver (or the GM) may ram the vehicle in front once it has closed a
    short distance, both vehicles still on the road (Cyborg § (IV) Déroulement)."""
    chase = state.get("chase")
    if not chase or chase["mode"] != "vehicle" or chase["distance"] != ALONGSIDE:
        return False
    driver = state["tokens"][chase["pursuer"]["driver"]]
    return (actor.is_gm or actor.controls(driver)) and not is_down(driver) \
        and not chase["pursuer"]["wrecked"] and not chase["quarry"]["wrecked"]


# — how a fight stands (issue 23) ——————————————————————————————————————————————————
# Cyborg § (III) Combats / Déroulement has the groups act in turn until the fight is over,
# but gives no rule for its end: the mission goes on after it (a chase, a search, the return).
# A fight is decided when one side has nobody left who can fight — dead, unconscious, in a
# coma, paralysed, out of action, or fled (the GM's *States*) —; the GM is then offered to
# end the fight (the mission goes on) or the mission (docs/rules-notes.md). The sides are
# the cyborgs' group (the GM moves an ally into it with *Group*) and everyone else (the
# aliens, the humans, any group of the GM's).

CYBORGS = GROUPS[0]


def side_of(person: Mapping[str, Any]) -> str:
    return CYBORGS if person["group"] == CYBORGS else "others"


def standing_groups(state: State) -> dict[str, list[str]]:
    """Each side's groups that still have someone able to fight, in the order of play."""
    standing: dict[str, list[str]] = {CYBORGS: [], "others": []}
    for tid in state.get("order", []):
        person = state["tokens"][tid]
        groups = standing[side_of(person)]
        if not is_down(person) and person["group"] not in groups:
            groups.append(person["group"])
    return standing


def _both_sides(state: State) -> bool:
    return {side_of(person) for person in state.get("tokens", {}).values()} == {CYBORGS,
                                                                               "others"}


def fight_decided(state: State) -> bool:
    """A fight (initiative rolled) where one side has nobody left who can fight."""
    if not in_combat(state) or not _both_sides(state):
        return False
    return not all(standing_groups(state).values())


def outcome(state: State) -> Outcome | None:
    """Who is left standing: in a decided fight (the GM is offered to end it), and once
    the match is over (its mission ended, or the GM ended the match)."""
    finished = state.get("status") == "finished"
    if not (finished or fight_decided(state)):
        return None
    winners, reason = _winners(state) if _both_sides(state) else ((), "")
    if not finished:
        return Outcome(winners, reason)
    if state.get("mission") is not None:
        return Outcome(winners, N_("The GM ended the mission."), over=True)
    return Outcome(winners, N_("The GM ended the match."), over=True)


def _winners(state: State) -> tuple[tuple[str, ...], str]:
    standing = standing_groups(state)
    if standing[CYBORGS] and not standing["others"]:
        return (CYBORGS,), N_("No opponent of the cyborgs can fight any more.")
    if standing["others"] and not standing[CYBORGS]:
        return tuple(standing["others"]), N_("No cyborg can fight any more.")
    return (), N_("Nobody can fight any more, on either side.")


# — the forms ————————————————————————————————————————————————————————————————————

def _names(state: State, ids: list[str]) -> list[list[str]]:
    return [[tid, state["tokens"][tid]["name"]] for tid in ids]


def _weapon_for(state: State, tid: str, weapons: list[list[str]], foe: str | None) -> str:
    """The weapon a form proposes against ``foe``: a melee one when it is in contact, else
    a firearm (a grenade's blast hurts everyone around: never by default)."""
    tokens = state["tokens"]
    keys = [key for key, _name in weapons]
    if foe is None:
        return keys[0]
    distance = math.dist((tokens[tid]["x"], tokens[tid]["y"]),
                         (tokens[foe]["x"], tokens[foe]["y"]))
    wanted = "melee" if distance <= melee_reach(state["board"]["unit"]) else "ranged"
    return next((key for key in keys if weapon_of(state, key, tokens[tid]).kind == wanted
                 and weapon_of(state, key, tokens[tid]).damage_type != "explosion"), keys[0])


def _nearest_foe(state: State, tid: str, candidates: list[str]) -> str | None:
    """The participant of another group nearest to ``tid`` — one in sight before a hidden
    one, so that the form's default never points at a camouflaged alien."""
    tokens = state["tokens"]
    me = tokens[tid]
    foes = [other for other in candidates if tokens[other]["group"] != me["group"]]
    return min(foes, key=lambda other: ("hidden" in tokens[other]["states"],
                                        math.dist((me["x"], me["y"]),
                                                  (tokens[other]["x"], tokens[other]["y"])),
                                        candidates.index(other)), default=None)


def legal_actions(state: State, actor: Actor) -> list[ActionForm]:
    """Only what this actor may do now, with only legal choices in each form."""
    if actor.is_spectator or state.get("status") == "finished":
        return []
    tokens = state["tokens"]
    mine = [tid for tid in state["order"] if actor.controls(tokens[tid])]
    up = [tid for tid in state["order"] if not is_gone(tokens[tid])]
    acting = [tid for tid in mine if may_act(state, tokens[tid])]
    # The table waits for whoever has someone to play in the group acting now (a player's
    # own, the GM's creatures), unless the fight is decided: then only the GM's end.
    awaited = bool(acting) and in_combat(state) and not fight_decided(state) and (
        not actor.is_gm or any(tokens[tid]["owner_id"] is None for tid in acting))
    forms: list[ActionForm] = []
    if acting and in_combat(state):
        forms.append(_attack_form(state, actor, acting, up, awaited))
        reloadable = {tid: [[key, weapon_of(state, key).name]
                            for key in tokens[tid]["magazines"]
                            if tokens[tid]["magazines"][key] < (weapon_of(state, key).magazine
                                                                or 0)]
                      for tid in acting}
        reloadable = {tid: found for tid, found in reloadable.items() if found}
        if reloadable:
            forms.append(ActionForm("reload", "Reload", "cyborg/_reload.html",
                                    {"tokens": list(reloadable), "weapons": reloadable,
                                     "awaited": awaited}))
    movers = [tid for tid in mine if not is_down(tokens[tid]) and (
        actor.is_gm or may_act(state, tokens[tid]) or not in_combat(state))]
    movers.sort(key=lambda tid: tid not in acting)  # the GM's list: who acts now first
    if movers:
        forms.append(ActionForm("move", "Move", "cyborg/_move.html",
                                {"tokens": movers, "awaited": awaited}))
    testers = [tid for tid in mine if not is_down(tokens[tid])]
    if testers:
        forms.append(ActionForm("test", "Test", "cyborg/_test.html", {
            "tokens": testers, "characteristics": list(CHARACTERISTICS),
            "skills": {tid: [[key, held["name"]] for key, held in tokens[tid]["skills"].items()]
                       for tid in testers}, "malus": actor.is_gm}))
    hiders = [tid for tid in testers if "camouflage" in tokens[tid]["skills"]]
    if hiders and len(up) >= 2:
        forms.append(ActionForm("camouflage", "Camouflage against Repérage",
                                "cyborg/_camouflage.html",
                                {"tokens": hiders,
                                 "seekers": [tid for tid in up if hiders != [tid]],
                                 "malus": actor.is_gm}))
    healers = [tid for tid in acting if "premiers_soins" in tokens[tid]["skills"]]
    day = state["hour"] // 24
    patients = [tid for tid in up if tokens[tid]["first_aid_day"] != day
                and tokens[tid]["sante"] < tokens[tid]["sante_max"]]
    if healers and patients:
        forms.append(ActionForm("first_aid", "First aid", "cyborg/_first_aid.html",
                                {"tokens": healers, "patients": patients,
                                 "awaited": awaited}))
    if in_combat(state) and (actor.is_gm or any(tokens[tid]["group"] == active_group(state)
                                                for tid in mine)):
        forms.append(ActionForm("end_phase", "End the group's turn", "cyborg/_end_phase.html",
                                {"group": active_group(state), "awaited": awaited}))
    chase = state.get("chase")
    if chase:
        shooters = [tid for tid in mine if not is_down(tokens[tid])
                    and any(tid in chase[side]["riders"] for side in ("pursuer", "quarry"))]
        if shooters and chase["mode"] == "vehicle":
            forms.append(ActionForm("shoot_vehicle", "Shoot between vehicles",
                                    "cyborg/_shoot_vehicle.html", {
                                        "tokens": shooters,
                                        "weapons": {tid: [[key, weapon_of(state, key).name]
                                                          for key in usable_weapons(
                                                              state, tokens[tid])
                                                          if key != PUNCH
                                                          and weapon_of(state, key).kind
                                                          == "ranged"]
                                                    for tid in shooters},
                                        "targets": [tid for side in ("pursuer", "quarry")
                                                    for tid in chase[side]["riders"]
                                                    if tid in up]}))
        if may_ram(state, actor):
            forms.append(ActionForm("ram", "Ram the pursued", "cyborg/_ram.html", {
                "driver": chase["pursuer"]["driver"],
                "vehicle": chase["pursuer"]["vehicle_name"],
                "target": chase["quarry"]["vehicle_name"]}))
    forms.append(ActionForm("note", "Add a note", "cyborg/_note.html"))
    if actor.is_gm:
        forms += _gm_forms(state)
        if fight_decided(state):  # what the table awaits now: the GM ends the fight
            ends = [form for form in forms if form.kind in END_FORMS]
            forms = ends + [form for form in forms if form.kind not in END_FORMS]
    return forms


END_FORMS = ("end_fight", "end_mission")


def _attack_form(state: State, actor: Actor, acting: list[str], up: list[str],
                 awaited: bool) -> ActionForm:
    """The attack: each attacker's own weapons (an empty magazine is not offered: the panel
    proposes to reload it instead), the targets it may choose — never itself when it is the
    only attacker —, the nearest foe first."""
    tokens = state["tokens"]
    weapons = {tid: [[key, weapon_of(state, key, tokens[tid]).name]
                     for key in usable_weapons(state, tokens[tid])
                     if tokens[tid]["magazines"].get(key, 1) > 0] for tid in acting}
    targets = [tid for tid in up if acting != [tid]]
    nearest = {tid: _nearest_foe(state, tid, targets) for tid in acting}
    return ActionForm("attack", "Attack", "cyborg/_attack.html", {
        "tokens": acting, "weapons": weapons, "targets": targets,
        # The form's defaults: the nearest participant of another group, and a weapon that
        # reaches it.
        "nearest": nearest,
        "preferred": {tid: _weapon_for(state, tid, weapons[tid], nearest[tid])
                      for tid in acting if weapons[tid]},
        "modifiers": [[entry.key, entry.label, entry.value, entry.table, entry.at_least]
                      for entry in modifier_table().values() if entry.key != "rafale"],
        "radius": GRENADE_RADIUS,
        # The GM says when a broyage crushes the whole target (§ (III) Broyage).
        "crush": actor.is_gm,
        # A melee blow needs contact; the GM alone may allow one from further. Both are said
        # only while the weapon chosen is a melee one ("t1:key", as the list sends them).
        "reach": {"limit": melee_reach(state["board"]["unit"]),
                  "unit": state["board"]["unit"]},
        "melee": [f"{tid}:{key}" for tid in acting for key, _name in weapons[tid]
                  if weapon_of(state, key, tokens[tid]).kind == "melee"],
        "override": actor.is_gm, "awaited": awaited})


def _gm_forms(state: State) -> list[ActionForm]:
    tokens = state["tokens"]
    everyone = list(state["order"])
    up = [tid for tid in everyone if not is_gone(tokens[tid])]
    groups = sorted({tokens[tid]["group"] for tid in everyone} | set(GROUPS))
    present = sorted({tokens[tid]["group"] for tid in up})
    forms = [
        ActionForm("roll_initiative", "Initiative", "cyborg/_initiative.html",
                   {"groups": present}),
        ActionForm("add_participant", "Add a participant", "cyborg/_add.html",
                   {"profiles": [[key, profile.name] for key, profile in PROFILES.items()],
                    "groups": list(GROUPS)}),
    ]
    if everyone:
        forms += [
            ActionForm("set_group", "Group", "cyborg/_group.html",
                       {"tokens": everyone, "groups": groups}),
            ActionForm("opposed", "Opposed test", "cyborg/_opposed.html",
                       {"tokens": up, "characteristics": list(CHARACTERISTICS)}),
            ActionForm("situational", "Situational modifier", "cyborg/_situational.html",
                       {"tokens": up}),
            ActionForm("correct", "Correct a value", "cyborg/_correct.html",
                       {"tokens": everyone, "fields": ["sante", "sante_max", "resistance",
                                                       *CHARACTERISTICS],
                        "magazines": {tid: list(tokens[tid]["magazines"]) for tid in everyone}}),
            ActionForm("set_state", "States", "cyborg/_state.html",
                       {"tokens": everyone, "states": list(STATES)}),
            ActionForm("poison", "Poison", "cyborg/_poison.html",
                       {"tokens": up, "poisons": [[key, entry.name, entry.factor, entry.mode]
                                                  for key, entry in poisons().items()]}),
            ActionForm("hours", "Time passes", "cyborg/_hours.html", {"hour": state["hour"]}),
        ]
        cured = [tid for tid in up if tokens[tid]["poisoning"]
                 and not tokens[tid]["poisoning"]["cured"]]
        if cured:
            forms.append(ActionForm("antidote", "Antidote", "cyborg/_antidote.html",
                                    {"tokens": cured}))
    chase = state.get("chase")
    vehicles = all_vehicles(state.get("custom_vehicles"))
    if chase is None and len(up) >= 2:
        forms.append(ActionForm("start_chase", "Start a chase", "cyborg/_chase.html", {
            "tokens": up, "distances": list(DISTANCES),
            "vehicles": [[key, vehicle.name] for key, vehicle in vehicles.items()]}))
    elif chase is not None:
        if chase["distance"] in DISTANCES or chase["distance"] == "cote_a_cote":
            forms.append(ActionForm("chase_round", "Chase round", "cyborg/_chase_round.html",
                                    {"mode": chase["mode"]}))
            if chase["mode"] == "vehicle":
                forms.append(ActionForm("manoeuvre", "Manoeuvre", "cyborg/_manoeuvre.html",
                                        {"sides": ["pursuer", "quarry"],
                                         "alongside": chase["distance"] == "cote_a_cote"}))
        forms.append(ActionForm("end_chase", "End the chase", "cyborg/_end_chase.html"))
    forms.append(ActionForm("add_terrain", "Add cover", "board/_terrain.html"))
    terrain = [shape["id"] for shape in state["board"]["terrain"]]
    if terrain:
        forms.append(ActionForm("remove_terrain", "Remove cover", "board/_remove_terrain.html",
                                {"terrain": terrain}))
    decided = fight_decided(state)
    if in_combat(state):
        forms.append(ActionForm("end_fight", "End the fight", "cyborg/_end_fight.html",
                                {"awaited": decided}))
    forms += [ActionForm("end_mission", "End of mission", "cyborg/_end_mission.html",
                         {"awaited": decided}),
              ActionForm("end_match", "End the match", "cyborg/_end.html")]
    return forms


# — view and between matches ————————————————————————————————————————————————————

def view(state: State, viewer: Actor) -> State:
    """Nothing in the state is secret: the aliens' true look is the GM's to describe."""
    return state


def between_matches(state: State, sheets: Mapping[int, dict]) -> dict[int, dict]:
    """Write the match back on the sheets (Cyborg § (VI) Régénération, § (VII) Progression).

    After "end of mission": the rolls it made (recovery + 1D6, ranks, new skills, surgery)
    are applied. After a plain end: santé as it is now, limbs lost, death.
    """
    changed: dict[int, dict] = {}
    results = state.get("mission") or {}
    for token in state.get("tokens", {}).values():
        sheet = sheets.get(token.get("character_id"))
        if sheet is None:
            continue
        new = copy.deepcopy(sheet)
        result = results.get(token["id"])
        if result is not None and result.get("missions") is None:
            result = None  # died during the mission: nothing to recover, only the fate
        if result is None:
            new["sante"] = min(token["sante"], new.get("sante_max", token["sante"]))
            if new.get("kind", "cyborg") == "cyborg":
                new["lost_limbs"] = sorted(set(token["lost_limbs"]))
        else:
            new["sante_max"] = new["sante"] = result["sante_max"]
            if result.get("missions") is not None:
                new["missions"] = result["missions"]
            if result.get("new_skills"):
                new["skills"] = {**new.get("skills", {}),
                                 **{key: 0 for key in result["new_skills"]}}
                new["drawn"] = list(new.get("drawn") or [
                    key for key in new.get("skills", {})
                    if key not in ("arme_blanche", "arme_a_feu", "esquive_parade")
                    and key not in result["new_skills"]]) + list(result["new_skills"])
            if result.get("followers"):
                new["followers"] = min(6, new.get("followers", 0) + result["followers"])
            new["lost_limbs"] = sorted(result.get("lost_limbs", []))
            bonus = dict(new.get("surgery_bonus") or {})
            for name, value in (result.get("surgery_bonus") or {}).items():
                bonus[name] = bonus.get(name, 0) + value
            if bonus:
                new["surgery_bonus"] = bonus
        fate = (result or {}).get("fate") or ("dead" if "dead" in token["states"] else None)
        fate = fate or (results.get(token["id"]) or {}).get("fate")
        if fate and fate != "active":
            new["fate"] = fate
        if new != sheet:
            changed[token["character_id"]] = new
    return changed
