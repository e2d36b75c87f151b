"""Cyborg Anti-Alien at the table: judging actions (the only place dice are rolled).

Each handler checks the action against the rules and the state, rolls through the pure core
(``combat``, ``damage``, ``tests``, ``chases``, ``poisons``, ``progression``) and returns
events carrying every outcome and every number a log line needs to explain itself.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from app.rules.cyborg import chases, combat, progression
from app.rules.cyborg.combat import CombatError, Target, attack_modifiers, modifier_table
from app.rules.cyborg.content import CHARACTERISTICS, MAX_RESISTANCE
from app.rules.cyborg.damage import damage_points, wound
from app.rules.cyborg.match import (
    GRENADE_RADIUS,
    GROUPS,
    PUNCH,
    STATES,
    active_group,
    can_dodge,
    characteristic,
    in_combat,
    is_down,
    may_act,
    participant,
    skill,
    usable_weapons,
    weapon_of,
)
from app.rules.cyborg.poisons import poisoned, poisons
from app.rules.cyborg.profiles import PROFILES
from app.rules.cyborg.sheet import draw_skills
from app.rules.cyborg.tests import characteristic_test, opposed_test, skill_test
from app.rules.dice import Dice, Modifier
from app.rules.errors import RulesError
from app.rules.match import Actor, Event, IllegalAction, State

NAME_MAX = 80
TEXT_MAX = 500


class CyborgRefusal(IllegalAction):
    """The table refuses a Cyborg Anti-Alien action; the reason in both languages."""

    templates_en: ClassVar[dict[str, str]] = {
        **IllegalAction.templates_en,
        "cannot_act": "{name} cannot act now",
        "no_combat": "roll initiative first",
        "not_a_target": "{name} cannot be targeted",
        "not_your_weapon": "{name} cannot use this weapon",
        "first_aid_today": "first aid was already tried on {name} today",
        "no_chase": "no chase is running",
        "chase_running": "a chase is already running",
        "not_riding": "{name} is not in a vehicle of the chase",
        "gm_malus": "only the GM sets a test's malus",
        "rules": "{reason}",
    }
    templates_fr: ClassVar[dict[str, str]] = {
        **IllegalAction.templates_fr,
        "cannot_act": "{name} ne peut pas agir maintenant",
        "no_combat": "lancez d'abord l'initiative",
        "not_a_target": "{name} ne peut pas être pris pour cible",
        "not_your_weapon": "{name} ne peut pas utiliser cette arme",
        "first_aid_today": "les premiers soins ont déjà été tentés sur {name} aujourd'hui",
        "no_chase": "aucune poursuite en cours",
        "chase_running": "une poursuite est déjà en cours",
        "not_riding": "{name} n'est dans aucun véhicule de la poursuite",
        "gm_malus": "seul le MJ fixe le malus d'un test",
        "rules": "{reason}",
    }


def _refuse(code: str, **fields: Any) -> CyborgRefusal:
    return CyborgRefusal(code, **fields)


def _rules(error: RulesError) -> CyborgRefusal:
    return _refuse("rules", reason=str(error.message))


# — reading an action's fields ——————————————————————————————————————————————————————

def _int(action: Mapping[str, Any], field: str, low: int, high: int,
         default: int | None = None) -> int:
    value = action.get(field, default)
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        value = int(value)
    if (value == "" or value is None) and default is not None:
        value = default
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise _refuse("bad_field", field=field, reason=f"{low}…{high}")
    return value


def _text(action: Mapping[str, Any], field: str, max_length: int, *,
          required: bool = True) -> str:
    value = action.get(field, "")
    if not isinstance(value, str) or len(value.strip()) > max_length or (
            required and not value.strip()):
        raise _refuse("bad_field", field=field, reason=f"1…{max_length}")
    return value.strip()


def _choice(action: Mapping[str, Any], field: str, choices: tuple[str, ...] | list[str],
            default: str | None = None) -> str:
    value = action.get(field, default)
    if value not in choices:
        raise _refuse("bad_field", field=field, reason=", ".join(choices)[:200])
    return value


def _key(action: Mapping[str, Any], field: str) -> str:
    """A field that names something (a key, an id): text or nothing."""
    value = action.get(field)
    return value if isinstance(value, str) else ""


def _flag(action: Mapping[str, Any], field: str) -> bool:
    value = action.get(field, False)
    return value is True or value in ("on", "true", "1", "yes")


def _token(state: State, action: Mapping[str, Any], field: str = "token") -> dict:
    token_id = action.get(field)
    token = state["tokens"].get(token_id) if isinstance(token_id, str) else None
    if token is None:
        raise _refuse("unknown_participant", participant=str(token_id)[:40])
    return token


def _controlled(state: State, action: Mapping[str, Any], actor: Actor,
                field: str = "token") -> dict:
    token = _token(state, action, field)
    if not actor.controls(token):
        raise _refuse("not_allowed")
    return token


def _acting(state: State, action: Mapping[str, Any], actor: Actor) -> dict:
    """A participant of the actor's that may act now (up, its group's turn, not acted)."""
    token = _controlled(state, action, actor)
    if not may_act(state, token):
        raise _refuse("cannot_act", name=token["name"])
    return token


def _gm(actor: Actor) -> None:
    if not actor.is_gm:
        raise _refuse("gm_only")


def _target_of(state: State, action: Mapping[str, Any], field: str = "target") -> dict:
    target = _token(state, action, field)
    if "dead" in target["states"]:
        raise _refuse("not_a_target", name=target["name"])
    return target


def _situational(token: Mapping[str, Any]) -> tuple[Modifier, ...]:
    """The GM's standing modifier on this participant (darkness, cover…), if any."""
    value, label = token["modifier"]["value"], token["modifier"]["label"]
    return (Modifier(value, label or "MJ"),) if value else ()


def _poison_mod(token: Mapping[str, Any]) -> tuple[Modifier, ...]:
    from app.rules.cyborg.match import poison_effects

    effects = poison_effects(token)
    return (Modifier(effects["skills"], ", ".join(effects["symptoms"])),) \
        if effects["skills"] else ()


def _chosen_modifiers(action: Mapping[str, Any]) -> dict[str, int | None]:
    """The checked modifier boxes: ``modifiers`` (a JSON list, or a dict key → value) or the
    form's ``mod_<key>`` boxes with an optional harsher ``modv_<key>``."""
    chosen: dict[str, int | None] = {}
    raw = action.get("modifiers")
    if isinstance(raw, list):
        chosen.update({str(key): None for key in raw})
    elif isinstance(raw, dict):
        for key, value in raw.items():
            chosen[str(key)] = value if isinstance(value, int) and not isinstance(
                value, bool) else None
    for key in modifier_table():
        if _flag(action, f"mod_{key}"):
            value = action.get(f"modv_{key}")
            chosen[key] = _int(action, f"modv_{key}", -100, 100) \
                if value not in (None, "") else None
    return chosen


def _target_for(state: State, target: dict, *, dodge: bool = True,
                extra_resistance: int = 0) -> Target:
    return Target(esquive=skill(target, "esquive_parade"),
                  resistance=target["resistance"] + extra_resistance, sante=target["sante"],
                  constitution=characteristic(target, "constitution"),
                  can_dodge=dodge and can_dodge(state, target),
                  lost_limbs=tuple(target["lost_limbs"]), humanoid=target["humanoid"])


def _wound_dict(target: Mapping[str, Any], found: Any) -> dict[str, Any] | None:
    if found is None:
        return None
    data = found.to_dict() if hasattr(found, "to_dict") else dict(found)
    if target.get("locations") and data.get("location"):
        data["location_name"] = target["locations"][data["location"] - 1]
    return data


def _shot(target: dict, result: combat.Attack, weapon: Any) -> dict[str, Any]:
    """One attack as the log reads it: the d100s, the cell of the damage table, the wound."""
    resistance = target["resistance"]
    return {"target": target["id"], "target_name": target["name"],
            "attack": result.attack.record.to_dict(),
            "defence": result.defence.record.to_dict() if result.defence else None,
            "hit": result.hit, "master": result.attack.master and result.hit,
            "damage": result.damage, "factor": weapon.factor, "resistance": resistance,
            "cell": damage_points(weapon.factor, resistance) if resistance <= MAX_RESISTANCE
            else 0,
            "sante_before": target["sante"], "sante": result.sante if result.hit
            else target["sante"],
            "wound": _wound_dict(target, result.wound),
            "attacker_unbalanced": result.attacker_unbalanced,
            "notes": list(result.notes)}


def _all_rolls(shots: list[dict]) -> list[dict]:
    rolls = []
    for shot in shots:
        rolls += [shot["attack"]] if shot["attack"] else []
        rolls += [shot["defence"]] if shot["defence"] else []
        rolls += (shot["wound"] or {}).get("rolls", [])
    return rolls


# — set-up and turns ——————————————————————————————————————————————————————————————

def _decide_add(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    _gm(actor)
    profile = PROFILES.get(_key(action, "profile"))
    if profile is None:
        raise _refuse("bad_field", field="profile", reason=", ".join(PROFILES))
    name = _text(action, "name", NAME_MAX, required=False) or profile.name
    group = action.get("group") or None
    if group is not None and group not in GROUPS:
        raise _refuse("bad_field", field="group", reason=", ".join(GROUPS))
    board = state["board"]
    token = participant(f"t{state['next_token']}", name, profile.sheet, group=group,
                        x=_int(action, "x", 0, board["width"], default=0),
                        y=_int(action, "y", 0, board["height"], default=0),
                        content=None)
    return [Event("participant_added", {"token": token})]


def _decide_group(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    _gm(actor)
    token = _token(state, action)
    group = _text(action, "group", 40)
    return [Event("group_set", {"token": token["id"], "name": token["name"], "group": group})]


def _decide_initiative(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """Each group adds its members' rapidité; the highest acts first, unless one attacks by
    surprise (Règles § (III) Combats / Déroulement). Members down do not count."""
    _gm(actor)
    groups: dict[str, list[int]] = {}
    for token in state["tokens"].values():
        if not is_down(token):
            groups.setdefault(token["group"], []).append(characteristic(token, "rapidite"))
    surprise = _key(action, "surprise") or None
    if surprise is not None and surprise not in groups:
        raise _refuse("bad_field", field="surprise", reason=", ".join(groups))
    try:
        result = combat.initiative(dice, groups, surprise=surprise)
    except CombatError as error:
        raise _rules(error) from error
    return [Event("initiative_rolled", {
        "order": list(result.order), "totals": result.totals, "surprise": surprise,
        "round": state["round"] + 1, "members": {g: len(v) for g, v in groups.items()},
        "rolls": [record.to_dict() for record in result.records]})]


def _decide_end_phase(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """The group acting now has declared and resolved everything: the next group acts; after
    the last, a new round. A strangled victim has one turn less to live each round."""
    group = active_group(state)
    if group is None:
        raise _refuse("no_combat")
    if not actor.is_gm and not any(actor.controls(token) and token["group"] == group
                                   for token in state["tokens"].values()):
        raise _refuse("not_your_turn")
    initiative = state["initiative"]
    following = initiative["active"] + 1
    new_round = following >= len(initiative["order"])
    payload: dict[str, Any] = {"group": group, "active": 0 if new_round else following,
                               "round": state["round"] + (1 if new_round else 0)}
    if new_round:
        payload["turns_to_live"] = {
            tid: token["turns_to_live"] - 1 for tid, token in state["tokens"].items()
            if token["turns_to_live"] is not None and "strangled" in token["states"]
            and "dead" not in token["states"]}
    payload["next"] = initiative["order"][payload["active"]]
    return [Event("phase_ended", payload)]


def _decide_move(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    token = _controlled(state, action, actor)
    if is_down(token) or (in_combat(state) and not actor.is_gm
                          and not may_act(state, token)):
        raise _refuse("cannot_act", name=token["name"])
    board = state["board"]
    x = _int(action, "x", 0, board["width"])
    y = _int(action, "y", 0, board["height"])
    return [Event("token_moved", {"token": token["id"], "name": token["name"],
                                  "from": [token["x"], token["y"]], "to": [x, y]})]


# — combat ——————————————————————————————————————————————————————————————————————————

def _decide_attack(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """Règles § (III) Combats: d100 against the weapon's skill moved by the checked modifiers;
    the target's Esquive/Parade; the damage table; the wound at 0 santé or below."""
    if not in_combat(state):
        raise _refuse("no_combat")
    attacker = _acting(state, action, actor)
    key = _key(action, "weapon")
    if key not in usable_weapons(state, attacker):
        raise _refuse("not_your_weapon", name=attacker["name"])
    weapon = weapon_of(state, key, attacker)
    target = _target_of(state, action)
    if target["id"] == attacker["id"]:
        raise _refuse("not_a_target", name=target["name"])
    kind = "melee" if weapon.kind == "melee" else "ranged"
    try:
        modifiers = attack_modifiers(kind, _chosen_modifiers(action))
    except CombatError as error:
        raise _rules(error) from error
    modifiers += _situational(attacker) + _poison_mod(attacker)
    percent = skill(attacker, weapon.skill)
    shots = _int(action, "shots", 1, 5, default=1)
    payload: dict[str, Any] = {
        "attacker": attacker["id"], "attacker_name": attacker["name"], "weapon": key,
        "weapon_name": weapon.name, "damage_type": weapon.damage_type, "skill": percent,
        "skill_name": attacker["skills"].get(weapon.skill, {}).get("name", weapon.skill),
        "modifiers": [{"label": m.label, "value": m.value} for m in modifiers],
        "round": state["round"], "in_combat": True, "magazine": None, "burst": False,
        "area": None}
    if weapon.damage_type == "explosion" and weapon.kind == "ranged":
        payload.update(_explosion(state, dice, attacker, weapon, percent, modifiers, target))
    elif weapon.kind == "ranged":
        loaded = attacker["magazines"].get(key)
        try:
            volley = combat.fire(dice, weapon, percent, _target_for(state, target),
                                 shots=shots, loaded=loaded, modifiers=modifiers)
        except CombatError as error:
            raise _rules(error) from error
        if volley.burst:
            payload["modifiers"].append({"label": modifier_table()["rafale"].label,
                                         "value": modifier_table()["rafale"].value})
        payload.update(burst=volley.burst, magazine=volley.magazine, shots=[])
        sante = target["sante"]
        for result in volley.shots:
            shot = _shot({**target, "sante": sante}, result, weapon)
            payload["shots"].append(shot)
            sante = shot["sante"]
    else:
        if shots != 1:
            raise _refuse("bad_field", field="shots", reason="1")
        result = combat.attack(dice, weapon, percent, _target_for(state, target), modifiers)
        payload["shots"] = [_shot(target, result, weapon)]
    payload["rolls"] = ([payload.pop("blast_roll")] if "blast_roll" in payload else []) \
        + _all_rolls(payload["shots"])
    return [Event("attacked", payload)]


def _explosion(state: State, dice: Dice, attacker: dict, weapon: Any, percent: int,
               modifiers: tuple[Modifier, ...], target: dict) -> dict[str, Any]:
    """A grenade or rocket: one attack roll at the target's place; everyone within the radius
    (3 board units: the text's "3 mètres", a unit being a metre) may dodge, and takes the
    table's damage; explosion at 0 santé is death (§ (III) Calcul des dégâts)."""
    loaded = attacker["magazines"].get(weapon.key)
    if loaded is not None and loaded < 1:
        raise _rules(CombatError("magazine_empty", left=loaded))
    test = skill_test(dice, percent, modifiers, purpose=f"attaque ({weapon.name})")
    shots = []
    caught = [token for token in state["tokens"].values()
              if "dead" not in token["states"] and math.dist((token["x"], token["y"]),
                                                             (target["x"], target["y"]))
              <= GRENADE_RADIUS] if test.success else []
    for victim in sorted(caught, key=lambda token: int(token["id"][1:])):
        result = combat.Attack(weapon.key, test, sante=victim["sante"])
        defender = _target_for(state, victim)
        if defender.can_dodge:
            result.defence = skill_test(dice, defender.esquive, purpose="esquive/parade")
        if result.hit:
            if test.master:
                result.notes.append("Master stroke: double damage.")
            result.damage = damage_points(weapon.factor, victim["resistance"],
                                          master=test.master)
            result.sante = victim["sante"] - result.damage
            if result.damage and result.sante <= 0:
                result.wound = wound(dice, weapon.damage_type,
                                     constitution=characteristic(victim, "constitution"),
                                     lost_limbs=victim["lost_limbs"],
                                     humanoid=victim["humanoid"])
        shot = _shot(victim, result, weapon)
        shot["attack"] = None  # one roll for the whole blast, kept once below
        shots.append(shot)
    if not shots:
        shots.append({"target": target["id"], "target_name": target["name"], "attack": None,
                      "defence": None, "hit": False, "master": False, "damage": 0,
                      "factor": weapon.factor, "resistance": target["resistance"], "cell": 0,
                      "sante_before": target["sante"], "sante": target["sante"],
                      "wound": None, "attacker_unbalanced": False, "notes": []})
    return {"shots": shots, "magazine": None if loaded is None else loaded - 1,
            "area": {"x": target["x"], "y": target["y"], "radius": GRENADE_RADIUS,
                     "attack": test.record.to_dict(),
                     "caught": [token["id"] for token in caught]},
            "blast_roll": test.record.to_dict()}


def _decide_reload(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """Reloading is the participant's action of the round (docs/games/cyborg.md)."""
    token = _acting(state, action, actor)
    key = _key(action, "weapon")
    if key not in token["magazines"]:
        raise _refuse("not_your_weapon", name=token["name"])
    full = weapon_of(state, key).magazine
    return [Event("reloaded", {"token": token["id"], "name": token["name"], "weapon": key,
                               "weapon_name": weapon_of(state, key).name,
                               "before": token["magazines"][key], "magazine": full,
                               "in_combat": in_combat(state)})]


# — tests ———————————————————————————————————————————————————————————————————————————

def _decide_test(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """A characteristic test (1D20 + the GM's malus ≤ the characteristic, § (I)) or a skill
    test (d100 ≤ the skill, § (III)); only the GM sets a malus."""
    token = _controlled(state, action, actor)
    if is_down(token):
        raise _refuse("cannot_act", name=token["name"])
    malus = _int(action, "malus", -100, 100, default=0)
    if malus and not actor.is_gm:
        raise _refuse("gm_malus")
    test_kind = _choice(action, "test", ("characteristic", "skill"), "characteristic")
    if test_kind == "characteristic":
        name = _choice(action, "characteristic", CHARACTERISTICS)
        value = characteristic(token, name)
        result = characteristic_test(dice, value, malus, purpose=name)
        payload = {"token": token["id"], "name": token["name"], "test": test_kind,
                   "what": name, "value": value, "malus": malus,
                   "success": result.success, "score": result.score,
                   "rolls": [result.record.to_dict()]}
    else:
        key = _choice(action, "skill", list(token["skills"]))
        value = skill(token, key)
        modifiers = _situational(token) + _poison_mod(token) + (
            (Modifier(-malus, "MJ"),) if malus else ())
        result = skill_test(dice, value, modifiers, purpose=token["skills"][key]["name"])
        payload = {"token": token["id"], "name": token["name"], "test": test_kind,
                   "what": token["skills"][key]["name"], "value": value, "malus": malus,
                   "target": result.target, "success": result.success,
                   "master": result.master, "score": result.record.total,
                   "rolls": [result.record.to_dict()]}
    visibility = "gm" if _flag(action, "secret") and actor.is_gm else "public"
    return [Event("tested", payload, visibility=visibility)]


def _decide_opposed(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """Two characteristic tests, read as a chase round (§ (I), § (IV)): a lone success wins;
    two successes, the lower score; else nobody."""
    _gm(actor)
    one, two = _token(state, action), _token(state, action, "other")
    first = _choice(action, "characteristic", CHARACTERISTICS)
    second = _choice(action, "other_characteristic", CHARACTERISTICS, first)
    result = opposed_test(dice, characteristic(one, first), characteristic(two, second),
                          first_malus=_int(action, "malus", -100, 100, default=0),
                          second_malus=_int(action, "other_malus", -100, 100, default=0),
                          purposes=(f"{first} ({one['name']})", f"{second} ({two['name']})"))
    winner = {"first": one["name"], "second": two["name"], None: None}[result.winner]
    return [Event("opposed", {"token": one["id"], "name": one["name"], "what": first,
                              "other": two["id"], "other_name": two["name"],
                              "other_what": second, "winner": winner,
                              "scores": [result.first.score, result.second.score],
                              "values": [result.first.characteristic,
                                         result.second.characteristic],
                              "rolls": [record.to_dict() for record in result.records]})]


# — healing, poisons ——————————————————————————————————————————————————————————————

def _decide_first_aid(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """Premiers soins: one try a day per patient, 2D6 santé on a success (§ (II), § (VI) 1/)."""
    healer = _acting(state, action, actor)
    if "premiers_soins" not in healer["skills"]:
        raise _refuse("cannot_act", name=healer["name"])
    patient = _target_of(state, action, "patient")
    day = state["hour"] // 24
    if patient["first_aid_day"] == day:
        raise _refuse("first_aid_today", name=patient["name"])
    result = progression.first_aid(dice, skill(healer, "premiers_soins"), patient["sante"],
                                   patient["sante_max"])
    return [Event("first_aid", {"token": healer["id"], "name": healer["name"],
                                "patient": patient["id"], "patient_name": patient["name"],
                                "success": result.test.success, "healed": result.healed,
                                "before": patient["sante"], "sante": result.sante, "day": day,
                                "skill": skill(healer, "premiers_soins"),
                                "in_combat": in_combat(state),
                                "rolls": [record.to_dict() for record in result.records]})]


def _decide_poison(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    _gm(actor)
    token = _target_of(state, action, "token")
    key = _choice(action, "poison", list(poisons()))
    found = poisoned(key, max(token["sante"], 0))
    entry = poisons()[key]
    return [Event("poisoned", {"token": token["id"], "name": token["name"],
                               "poison": entry.name, "factor": entry.factor,
                               "mode": entry.mode, "sante": token["sante"],
                               "poisoning": found.to_dict()})]


def _decide_hours(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """Hours go by: each running poison strikes once an hour (§ (V)); a new day lets first
    aid be tried again (§ (II) Premiers soins)."""
    _gm(actor)
    hours = _int(action, "hours", 1, 72)
    changes = {}
    for tid, token in state["tokens"].items():
        poisoning = token["poisoning"]
        if not poisoning or poisoning["cured"] or "dead" in token["states"]:
            continue
        from app.rules.cyborg.poisons import Poisoning, pass_hours

        running = Poisoning(**poisoning)
        result = pass_hours(running, token["sante"], hours)
        if result.lost:
            changes[tid] = {"name": token["name"], "sante": result.sante,
                            "lost": list(result.lost), "dead": result.dead}
    return [Event("hours_passed", {"hours": hours, "hour": state["hour"] + hours,
                                   "tokens": changes})]


def _decide_antidote(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    _gm(actor)
    token = _token(state, action)
    if not token["poisoning"] or token["poisoning"]["cured"]:
        raise _refuse("illegal_action")
    return [Event("antidote", {"token": token["id"], "name": token["name"]})]


# — the GM's hand ——————————————————————————————————————————————————————————————————

def _decide_correct(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """The GM corrects a value; the log keeps the before, the after and the reason."""
    _gm(actor)
    token = _token(state, action)
    field = _text(action, "field", 60)
    if field.startswith("magazine:"):
        weapon = field.split(":", 1)[1]
        if weapon not in token["magazines"]:
            raise _refuse("bad_field", field="field", reason="magazine")
        full = weapon_of(state, weapon).magazine or 0
        before, after = token["magazines"][weapon], _int(action, "value", 0, full)
    elif field in CHARACTERISTICS:
        before, after = token["characteristics"][field], _int(action, "value", 0, 40)
    elif field == "sante":
        before, after = token["sante"], _int(action, "value", -999, token["sante_max"])
    elif field == "sante_max":
        before = token["sante_max"]
        after = _int(action, "value", max(1, token["sante"]), 999)
    elif field == "resistance":
        before, after = token["resistance"], _int(action, "value", 0, MAX_RESISTANCE)
    else:
        raise _refuse("bad_field", field="field", reason="sante, sante_max, resistance…")
    return [Event("corrected", {"token": token["id"], "name": token["name"], "field": field,
                                "before": before, "after": after,
                                "reason": _text(action, "reason", TEXT_MAX, required=False)})]


def _decide_set_state(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    _gm(actor)
    token = _token(state, action)
    name = _choice(action, "state", STATES)
    on = _flag(action, "on")
    return [Event("state_set", {"token": token["id"], "name": token["name"], "state": name,
                                "on": on})]


def _decide_situational(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """A standing modifier on one participant's d100 tests (the tables' "ou plus", darkness,
    cover, a symptom…) until the GM changes it; 0 removes it."""
    _gm(actor)
    token = _token(state, action)
    value = _int(action, "value", -100, 100)
    label = _text(action, "label", NAME_MAX, required=bool(value))
    return [Event("modifier_set", {"token": token["id"], "name": token["name"],
                                   "value": value, "label": label})]


def _decide_note(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    visibility = "gm" if _flag(action, "gm_only") and actor.is_gm else "public"
    return [Event("note_added", {"text": _text(action, "text", TEXT_MAX), "by": actor.user_id},
                  visibility=visibility)]


def _decide_terrain(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    _gm(actor)
    board = state["board"]
    shape = {"id": f"z{len(board['terrain']) + 1}",
             "label": _text(action, "label", NAME_MAX, required=False),
             "x": _int(action, "x", 0, board["width"]), "y": _int(action, "y", 0, board["height"]),
             "w": _int(action, "w", 1, board["width"]), "h": _int(action, "h", 1, board["height"])}
    while shape["id"] in {terrain["id"] for terrain in board["terrain"]}:
        shape["id"] += "'"
    return [Event("terrain_added", {"terrain": shape})]


# — chases ——————————————————————————————————————————————————————————————————————————

def _decide_start_chase(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    _gm(actor)
    if state.get("chase"):
        raise _refuse("chase_running")
    pursuer, quarry = _target_of(state, action, "pursuer"), _target_of(state, action, "quarry")
    if pursuer["id"] == quarry["id"]:
        raise _refuse("bad_field", field="quarry", reason="≠")
    mode = _choice(action, "mode", ("foot", "vehicle"), "foot")
    distance = _choice(action, "distance", chases.DISTANCES, "moyenne")
    vehicles = chases.all_vehicles(state.get("custom_vehicles"))
    chase: dict[str, Any] = {"mode": mode, "distance": distance, "rounds": 0,
                             "accidents": _flag(action, "accidents") or mode == "foot"}
    for side, token in (("pursuer", pursuer), ("quarry", quarry)):
        entry: dict[str, Any] = {"driver": token["id"], "riders": [token["id"]],
                                 "vehicle": None, "structure": None, "wrecked": False}
        if mode == "vehicle":
            key = _choice(action, f"{side}_vehicle", list(vehicles))
            vehicle = vehicles[key]
            entry.update(vehicle=key, vehicle_name=vehicle.name, skill=vehicle.skill,
                         structure=vehicle.structure, resistance=vehicle.resistance,
                         safety=vehicle.safety)
            passengers = action.get(f"{side}_passengers") or []
            if isinstance(passengers, str):
                passengers = [p.strip() for p in passengers.split(",") if p.strip()]
            passengers = [*passengers, *(tid for tid in state["tokens"]
                                         if _flag(action, f"{side}_passenger_{tid}"))]
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
        raise _refuse("no_chase")
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


def _decide_chase_round(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """One round: on foot, rapidité against rapidité; in vehicles, the driving skills, a
    failure an accident (or, in the milder variant, −1D10 structure) (§ (IV) Déroulement)."""
    _gm(actor)
    chase = _chase(state)
    pursuer = state["tokens"][chase["pursuer"]["driver"]]
    quarry = state["tokens"][chase["quarry"]["driver"]]
    if is_down(pursuer) or is_down(quarry):
        raise _refuse("cannot_act", name=pursuer["name"] if is_down(pursuer) else quarry["name"])
    malus = _int(action, "malus", -100, 100, default=0)
    other_malus = _int(action, "other_malus", -100, 100, default=0)
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
                modifiers = _situational(token) + ((Modifier(-extra, "MJ"),) if extra else ())
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
        raise _rules(error) from error
    return [Event("chase_round", payload)]


def _decide_manoeuvre(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """A U-turn, tight turn, stunt or tour de force: a driving test of its own; a failure is
    the driver's accident, a successful tour de force the other vehicle's (§ (IV))."""
    chase = _chase(state)
    side = _choice(action, "side", ("pursuer", "quarry"))
    driver = state["tokens"][chase[side]["driver"]]
    if not (actor.is_gm or actor.controls(driver)) or chase["mode"] != "vehicle":
        raise _refuse("not_allowed")
    if is_down(driver):
        raise _refuse("cannot_act", name=driver["name"])
    force = _flag(action, "tour_de_force")
    try:
        test = chases.manoeuvre(dice, skill(driver, chase[side]["skill"]), tour_de_force=force,
                                alongside=chase["distance"] == chases.ALONGSIDE,
                                modifiers=_situational(driver))
    except chases.ChaseError as error:
        raise _rules(error) from error
    other = "quarry" if side == "pursuer" else "pursuer"
    payload: dict[str, Any] = {"side": side, "name": driver["name"], "tour_de_force": force,
                               "what": _text(action, "what", NAME_MAX, required=False),
                               "success": test.success, "skill": test.target,
                               "rolls": [test.record.to_dict()]}
    if not test.success:
        _accident(state, dice, chase, side, payload)
    elif force:
        _accident(state, dice, chase, other, payload)
    return [Event("manoeuvre", payload)]


def _decide_shoot_vehicle(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """From a moving vehicle at a moving one (−10 %, the driver −10 % more), no dodge; at the
    structure (the vehicle's resistance on the table; 0 is an accident) or at a rider
    (the vehicle's resistance added to theirs; above 10 nothing gets through) (§ (IV) Tirs)."""
    chase = _chase(state)
    shooter = _controlled(state, action, actor)
    if is_down(shooter):
        raise _refuse("cannot_act", name=shooter["name"])
    mine = next((side for side in ("pursuer", "quarry")
                 if shooter["id"] in chase[side]["riders"]), None)
    if mine is None or chase["mode"] != "vehicle":
        raise _refuse("not_riding", name=shooter["name"])
    key = _key(action, "weapon")
    if key not in usable_weapons(state, shooter) or key == PUNCH:
        raise _refuse("not_your_weapon", name=shooter["name"])
    weapon = weapon_of(state, key)
    other = "quarry" if mine == "pursuer" else "pursuer"
    vehicles = chases.all_vehicles(state.get("custom_vehicles"))
    vehicle = vehicles[chase[other]["vehicle"]]
    modifiers = chases.shot_modifiers(driver=chase[mine]["driver"] == shooter["id"])
    modifiers += _situational(shooter) + _poison_mod(shooter)
    percent = skill(shooter, weapon.skill)
    aim = _key(action, "aim") or "structure"
    payload: dict[str, Any] = {"shooter": shooter["id"], "name": shooter["name"],
                               "weapon_name": weapon.name, "skill": percent,
                               "modifiers": [{"label": m.label, "value": m.value}
                                             for m in modifiers],
                               "vehicle_name": vehicle.name, "aim": aim, "rolls": []}
    loaded = shooter["magazines"].get(key)
    if loaded is not None and loaded < 1:
        raise _rules(CombatError("magazine_empty", left=loaded))
    try:
        if aim == "structure":
            shot = chases.shoot_structure(dice, weapon, percent, vehicle,
                                          chase[other]["structure"], modifiers)
            payload.update(hit=shot.test.success, damage=shot.damage,
                           structure={other: shot.structure}, factor=weapon.factor,
                           resistance=vehicle.resistance,
                           rolls=[shot.test.record.to_dict()])
            if shot.accident:
                _accident(state, dice, chase, other, payload)
        else:
            target = _target_of(state, {"target": aim})
            if target["id"] not in chase[other]["riders"]:
                raise _refuse("not_riding", name=target["name"])
            result = chases.shoot_passenger(dice, weapon, percent, vehicle,
                                            _target_for(state, target), modifiers)
            shot = _shot({**target, "resistance": target["resistance"] + vehicle.resistance},
                         result, weapon)
            payload.update(shots=[shot], rolls=_all_rolls([shot]))
    except chases.ChaseError as error:
        raise _rules(error) from error
    if loaded is not None:
        payload["magazine"] = {"weapon": key, "left": loaded - 1}
    return [Event("vehicle_shot", payload)]


def _decide_end_chase(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    _gm(actor)
    chase = _chase(state)
    return [Event("chase_ended", {"distance": chase["distance"]})]


# — the end —————————————————————————————————————————————————————————————————————————

def _decide_end_mission(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """The mission is over (§ (VI), § (VII)): each cyborg of the roster still alive recovers
    all its santé + 1D6 (the maximum rises), counts one more mission (ranks, their new skills
    drawn as at creation, the Vénérable-Shiba's followers, elimination after the 25th), and
    goes to the operating theatre for each lost limb or if cut in two. Broken limbs, burns
    and fractures heal. ``between_matches`` writes it all on the sheets."""
    _gm(actor)
    results: dict[str, Any] = {}
    rolls: list[dict] = []
    for tid in sorted(state["tokens"], key=lambda t: int(t[1:])):
        token = state["tokens"][tid]
        if token["kind"] != "cyborg" or token["character_id"] is None:
            continue
        if "dead" in token["states"]:
            results[tid] = {"name": token["name"], "fate": "dead",
                            "sante_max": token["sante_max"], "missions": None,
                            "lost_limbs": token["lost_limbs"]}
            continue
        result: dict[str, Any] = {"name": token["name"], "fate": "active", "notes": []}
        recovery = progression.between_missions(dice, token["sante_max"])
        rolls.append(recovery.record.to_dict())
        result.update(sante_max=recovery.sante_max, gain=recovery.record.total)
        done = token.get("missions", 0)
        promotion = progression.mission_accomplished(dice, done)
        rolls += [record.to_dict() for record in promotion.records]
        result.update(missions=promotion.missions,
                      ranks=[rank.name for rank in promotion.reached],
                      followers=promotion.followers)
        new_count = sum(rank.new_skills for rank in promotion.reached)
        if new_count:
            drawn, records = draw_skills(dice, tuple(token["skills"]), new_count)
            rolls += [record.to_dict() for record in records]
            result["new_skills"] = drawn
        if promotion.eliminated:
            result["fate"] = "eliminated"
        lost = list(token["lost_limbs"])
        result["surgery"] = []
        result["surgery_bonus"] = {}
        if token["cut_in_two"]:
            operation = progression.surgery(dice, None, cut_in_two=True)
            rolls.append(operation.record.to_dict())
            result["surgery"].append({"limb": "cut_in_two", "face": operation.record.total,
                                      "note": operation.note})
            if operation.dead:
                result["fate"] = "euthanised"
        for limb in list(lost):
            if result["fate"] != "active":
                break
            operation = progression.surgery(dice, limb)
            rolls.append(operation.record.to_dict())
            result["surgery"].append({"limb": limb, "face": operation.record.total,
                                      "note": operation.note})
            if operation.dead:
                result["fate"] = "dead"
            elif operation.restored:
                lost.remove(limb)
                for name, value in operation.bonus.items():
                    result["surgery_bonus"][name] = result["surgery_bonus"].get(name, 0) + value
        result["lost_limbs"] = lost
        results[tid] = result
    return [Event("mission_ended", {"results": results, "rolls": rolls})]


def _decide_end(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    _gm(actor)
    return [Event("match_ended", {})]


_DECIDE: dict[str, Callable[[State, Mapping[str, Any], Actor, Dice], list[Event]]] = {
    "add_participant": _decide_add,
    "set_group": _decide_group,
    "roll_initiative": _decide_initiative,
    "end_phase": _decide_end_phase,
    "move": _decide_move,
    "attack": _decide_attack,
    "reload": _decide_reload,
    "test": _decide_test,
    "opposed": _decide_opposed,
    "first_aid": _decide_first_aid,
    "poison": _decide_poison,
    "hours": _decide_hours,
    "antidote": _decide_antidote,
    "correct": _decide_correct,
    "set_state": _decide_set_state,
    "situational": _decide_situational,
    "note": _decide_note,
    "add_terrain": _decide_terrain,
    "start_chase": _decide_start_chase,
    "chase_round": _decide_chase_round,
    "manoeuvre": _decide_manoeuvre,
    "shoot_vehicle": _decide_shoot_vehicle,
    "end_chase": _decide_end_chase,
    "end_mission": _decide_end_mission,
    "end_match": _decide_end,
}


def decide(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice) -> list[Event]:
    kind = action.get("kind")
    handler = _DECIDE.get(kind) if isinstance(kind, str) else None
    if handler is None:
        raise _refuse("unknown_action", kind=str(kind)[:40])
    if actor.is_spectator:
        raise _refuse("spectator")
    if state.get("status") == "finished":
        raise _refuse("match_over")
    return handler(state, action, actor, dice)
