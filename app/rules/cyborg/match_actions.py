"""Cyborg Anti-Alien at the table: judging actions (the only place dice are rolled).

Each handler checks the action against the rules and the state, rolls through the pure core
(``combat``, ``damage``, ``tests``, ``chases``, ``poisons``, ``progression``) and returns
events carrying every outcome and every number a log line needs to explain itself.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from app.rules.action_fields import choice_field, flag, int_field, require_gm, text_field
from app.rules.board import DECIDE as BOARD_DECIDE
from app.rules.cyborg import combat, progression
from app.rules.cyborg.checks import characteristic_test, opposed_test, skill_test
from app.rules.cyborg.combat import CombatError, attack_modifiers, modifier_table
from app.rules.cyborg.content import CHARACTERISTIC_NAMES, CHARACTERISTICS, MAX_RESISTANCE
from app.rules.cyborg.content import skills as skills_table
from app.rules.cyborg.damage import damage_points, wound
from app.rules.cyborg.match import (
    GRENADE_RADIUS,
    GROUPS,
    STATES,
    active_group,
    characteristic,
    evolve,
    in_combat,
    is_down,
    is_gone,
    may_act,
    outcome,
    participant,
    poison_effects,
    recovered,
    skill,
    usable_weapons,
    weapon_of,
)
from app.rules.cyborg.match_chase import (
    decide_chase_round,
    decide_end_chase,
    decide_manoeuvre,
    decide_ram,
    decide_shoot_vehicle,
    decide_start_chase,
)
from app.rules.cyborg.match_common import (
    NAME_MAX,
    TEXT_MAX,
    acting,
    all_rolls,
    armed,
    chosen_modifiers,
    controlled,
    key_field,
    refuse,
    rules_refusal,
    shot_record,
    situational,
    target_for,
    target_of,
    token_of,
)
from app.rules.cyborg.poisons import poisoned, poisons
from app.rules.cyborg.profiles import PROFILES
from app.rules.cyborg.sheet import draw_skills
from app.rules.dice import Dice, Modifier
from app.rules.match import Actor, Event, State, copy_state, handler_for
from app.rules.notes import note_event
from app.rules.purposes import Purpose

# — set-up and turns ——————————————————————————————————————————————————————————————

def _decide_add(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    require_gm(actor)
    profile = PROFILES.get(key_field(action, "profile"))
    if profile is None:
        raise refuse("bad_field", field="profile", reason=", ".join(PROFILES))
    name = text_field(action, "name", NAME_MAX, required=False) or profile.name
    group = action.get("group") or None
    if group is not None and group not in GROUPS:
        raise refuse("bad_field", field="group", reason=", ".join(GROUPS))
    board = state["board"]
    token = participant(f"t{state['next_token']}", name, profile.sheet, group=group,
                        x=int_field(action, "x", 0, board["width"], default=0),
                        y=int_field(action, "y", 0, board["height"], default=0),
                        content=None)
    return [Event("participant_added", {"token": token})]


def _decide_group(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    require_gm(actor)
    token = token_of(state, action)
    group = text_field(action, "group", 40)
    return [Event("group_set", {"token": token["id"], "name": token["name"], "group": group})]


def _decide_initiative(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """Each group adds its members' rapidité; the highest acts first, unless one attacks by
    surprise (Cyborg § (III) Combats / Déroulement). Members down do not count."""
    require_gm(actor)
    groups: dict[str, list[int]] = {}
    for token in state["tokens"].values():
        if not is_down(token):
            groups.setdefault(token["group"], []).append(characteristic(token, "rapidite"))
    surprise = key_field(action, "surprise") or None
    if surprise is not None and surprise not in groups:
        raise refuse("bad_field", field="surprise", reason=", ".join(groups))
    try:
        result = combat.initiative(dice, groups, surprise=surprise)
    except CombatError as error:
        raise rules_refusal(error) from error
    return [Event("initiative_rolled", {
        "order": list(result.order), "totals": result.totals, "surprise": surprise,
        "round": state["round"] + 1, "members": {g: len(v) for g, v in groups.items()},
        "rolls": [record.to_dict() for record in result.records]})]


def _decide_end_phase(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """The group acting now has declared and resolved everything: the next group acts; after
    the last, a new round. A strangled victim has one turn less to live each round."""
    group = active_group(state)
    if group is None:
        raise refuse("no_combat")
    if not actor.is_gm and not any(actor.controls(token) and token["group"] == group
                                   for token in state["tokens"].values()):
        raise refuse("not_your_turn")
    return [_phase_end(state)]


def _phase_end(state: State, *, auto: bool = False) -> Event:
    """The acting group's turn ends (``auto``: by itself, nobody in it could still act)."""
    group = active_group(state)
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
        payload["names"] = {tid: state["tokens"][tid]["name"] for tid in payload["turns_to_live"]}
    payload["next"] = initiative["order"][payload["active"]]
    if auto:
        payload["auto"] = True
    return Event("phase_ended", payload)


def _phases_passing(state: State, events: list[Event]) -> list[Event]:
    """After an action, a group with nobody left who may act this round (everyone has acted,
    or is down) hands over by itself, as its « End the group's turn » would (house: a step
    with nothing to do passes; docs/games/cyborg.md). Never round after round when nobody
    at all can act."""
    if not events or not in_combat(state):
        return []
    after = copy_state(state)
    for event in events:
        after = evolve(after, event)
    passed: list[Event] = []
    order = (after.get("initiative") or {}).get("order") or []
    for _ in range(len(order)):
        if not in_combat(after) or not _anyone_up(after) or _group_may_act(after):
            break
        passed.append(_phase_end(after, auto=True))
        after = evolve(after, passed[-1])
    return passed


def _group_may_act(state: State) -> bool:
    return any(may_act(state, token) for token in state["tokens"].values())


def _anyone_up(state: State) -> bool:
    """Someone of a group in the initiative order can still act in a coming round."""
    order = state["initiative"]["order"]
    return any(not is_down(token) and token["group"] in order
               for token in state["tokens"].values())


def _decide_move(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    token = controlled(state, action, actor)
    if is_down(token) or (in_combat(state) and not actor.is_gm
                          and not may_act(state, token)):
        raise refuse("cannot_act", name=token["name"])
    board = state["board"]
    x = int_field(action, "x", 0, board["width"])
    y = int_field(action, "y", 0, board["height"])
    return [Event("token_moved", {"token": token["id"], "name": token["name"],
                                  "from": [token["x"], token["y"]], "to": [x, y]})]


# — combat ——————————————————————————————————————————————————————————————————————————

def _decide_attack(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """Cyborg § (III) Combats: d100 against the weapon's skill moved by the checked modifiers;
    the target's Esquive/Parade; the damage table; the wound at 0 santé or below."""
    if not in_combat(state):
        raise refuse("no_combat")
    action = armed(action)
    attacker = acting(state, action, actor)
    key = key_field(action, "weapon")
    if key not in usable_weapons(state, attacker):
        raise refuse("not_your_weapon", name=attacker["name"])
    weapon = weapon_of(state, key, attacker)
    target = target_of(state, action)
    if target["id"] == attacker["id"]:
        raise refuse("not_a_target", name=target["name"])
    kind = "melee" if weapon.kind == "melee" else "ranged"
    whole_body = _whole_body(action, actor, weapon)
    reach = _reach(state, action, actor, attacker, target) if kind == "melee" else None
    try:
        modifiers = attack_modifiers(kind, chosen_modifiers(action))
    except CombatError as error:
        raise rules_refusal(error) from error
    modifiers += situational(attacker)  # the poison's symptoms are in ``skill`` already
    percent = skill(attacker, weapon.skill)
    shots = int_field(action, "shots", 1, 5, default=1)
    payload: dict[str, Any] = {
        "attacker": attacker["id"], "attacker_name": attacker["name"], "weapon": key,
        "weapon_name": weapon.name, "damage_type": weapon.damage_type, "skill": percent,
        "skill_name": attacker["skills"].get(weapon.skill, {}).get("name", weapon.skill),
        "modifiers": [m.to_dict() for m in modifiers],
        "round": state["round"], "in_combat": True, "magazine": None, "burst": False,
        "area": None, "whole_body": whole_body, "reach": reach}
    if weapon.damage_type == "explosion" and weapon.kind == "ranged":
        payload.update(_explosion(state, dice, attacker, weapon, percent, modifiers, target))
    elif weapon.kind == "ranged":
        loaded = attacker["magazines"].get(key)
        try:
            volley = combat.fire(dice, weapon, percent, target_for(state, target),
                                 shots=shots, loaded=loaded, modifiers=modifiers,
                                 whole_body=whole_body)
        except CombatError as error:
            raise rules_refusal(error) from error
        if volley.burst:
            payload["modifiers"].append({"label": modifier_table()["rafale"].label,
                                         "value": modifier_table()["rafale"].value})
        payload.update(burst=volley.burst, magazine=volley.magazine, shots=[])
        sante = target["sante"]
        for result in volley.shots:
            shot = shot_record({**target, "sante": sante}, result, weapon)
            payload["shots"].append(shot)
            sante = shot["sante"]
    else:
        if shots != 1:
            raise refuse("bad_field", field="shots", reason="1")
        result = combat.attack(dice, weapon, percent, target_for(state, target), modifiers,
                               whole_body=whole_body)
        payload["shots"] = [shot_record(target, result, weapon)]
    payload["rolls"] = ([payload.pop("blast_roll")] if "blast_roll" in payload else []) \
        + all_rolls(payload["shots"])
    return [Event("attacked", payload)]


def _reach(state: State, action: Mapping[str, Any], actor: Actor, attacker: dict,
           target: dict) -> dict[str, Any]:
    """A melee attack needs contact (§ (III) Combats: "combat au corps à corps"; the
    distance is house, ``combat.MELEE_REACH``): out of reach it is refused, naming the
    distance, unless the GM ticks *override* (a whip, a leap…) — recorded in the event and
    said in the log. Only the GM may override."""
    override = flag(action, "override")
    if override and not actor.is_gm:
        raise refuse("gm_reach")
    unit = state["board"]["unit"]
    distance = round(math.dist((attacker["x"], attacker["y"]), (target["x"], target["y"])), 2)
    limit = combat.melee_reach(unit)
    reached = combat.in_reach(distance, unit)
    if not reached and not override:
        raise refuse("out_of_reach", name=attacker["name"], target=target["name"],
                     distance=distance, limit=limit, unit=unit)
    return {"distance": distance, "limit": limit, "unit": unit,
            "override": not reached}


def _whole_body(action: Mapping[str, Any], actor: Actor, weapon: Any) -> bool:
    """Broyage: "si c'est la cible dans sa totalité qui est écrasée, elle meurt" (§ (III)
    Calcul des dégâts). A GM weapon may crush by nature (a steamroller); otherwise the GM
    ticks it for the situation (a rock fall, a colossus' embrace); never a player."""
    if weapon.crushes:
        return True
    if not flag(action, "whole_body"):
        return False
    if not actor.is_gm:
        raise refuse("gm_crush")
    if weapon.damage_type != "broyage":
        raise refuse("bad_field", field="whole_body", reason="broyage")
    return True


def _explosion(state: State, dice: Dice, attacker: dict, weapon: Any, percent: int,
               modifiers: tuple[Modifier, ...], target: dict) -> dict[str, Any]:
    """A grenade or rocket: one attack roll at the target's place; everyone within the radius
    (3 board units: the text's "3 mètres", a unit being a metre) may dodge, and takes the
    table's damage; explosion at 0 santé is death (§ (III) Calcul des dégâts)."""
    loaded = attacker["magazines"].get(weapon.key)
    if loaded is not None and loaded < 1:
        raise rules_refusal(CombatError("magazine_empty", left=loaded))
    test = skill_test(dice, percent, modifiers,
                      purpose=Purpose("attack ({weapon})", weapon=weapon.name))
    shots = []
    caught = [token for token in state["tokens"].values()
              if not is_gone(token) and math.dist((token["x"], token["y"]),
                                                             (target["x"], target["y"]))
              <= GRENADE_RADIUS] if test.success else []
    for victim in sorted(caught, key=lambda token: int(token["id"][1:])):
        result = combat.Attack(weapon.key, test, sante=victim["sante"])
        defender = target_for(state, victim)
        if defender.can_dodge:
            result.defence = skill_test(dice, defender.esquive, purpose=Purpose("dodge/parry"))
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
        shot = shot_record(victim, result, weapon)
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
    action = armed(action)
    token = acting(state, action, actor)
    key = key_field(action, "weapon")
    if key not in token["magazines"]:
        raise refuse("not_your_weapon", name=token["name"])
    full = weapon_of(state, key).magazine
    return [Event("reloaded", {"token": token["id"], "name": token["name"], "weapon": key,
                               "weapon_name": weapon_of(state, key).name,
                               "before": token["magazines"][key], "magazine": full,
                               "in_combat": in_combat(state)})]


# — tests ———————————————————————————————————————————————————————————————————————————

def _decide_test(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """A characteristic test (1D20 + the GM's malus ≤ the characteristic, § (I)) or a skill
    test (d100 ≤ the skill, § (III)); only the GM sets a malus."""
    token = controlled(state, action, actor)
    if is_down(token):
        raise refuse("cannot_act", name=token["name"])
    malus = int_field(action, "malus", -100, 100, default=0)
    if malus and not actor.is_gm:
        raise refuse("gm_malus")
    test_kind = choice_field(action, "test", ("characteristic", "skill"), "characteristic")
    if test_kind == "characteristic":
        name = choice_field(action, "characteristic", CHARACTERISTICS)
        value = characteristic(token, name)
        result = characteristic_test(
            dice, value, malus,
            purpose=Purpose("test — {characteristic}", characteristic=CHARACTERISTIC_NAMES[name]))
        payload = {"token": token["id"], "name": token["name"], "test": test_kind,
                   "what": name, "value": value, "malus": malus,
                   "success": result.success, "score": result.score,
                   "rolls": [result.record.to_dict()]}
    else:
        key = choice_field(action, "skill", list(token["skills"]))
        value = skill(token, key)
        modifiers = situational(token) + (
            (Modifier(-malus, Purpose("GM")),) if malus else ())
        result = skill_test(dice, value, modifiers, purpose=token["skills"][key]["name"])
        payload = {"token": token["id"], "name": token["name"], "test": test_kind,
                   "what": token["skills"][key]["name"], "value": value, "malus": malus,
                   "target": result.target, "success": result.success,
                   "master": result.master, "score": result.record.total,
                   "rolls": [result.record.to_dict()]}
    visibility = "gm" if flag(action, "secret") and actor.is_gm else "public"
    return [Event("tested", payload, visibility=visibility)]


def _decide_opposed(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """Two characteristic tests, read as a chase round (§ (I), § (IV)): a lone success wins;
    two successes, the lower score; else nobody."""
    require_gm(actor)
    one, two = token_of(state, action), token_of(state, action, "other")
    first = choice_field(action, "characteristic", CHARACTERISTICS)
    second = choice_field(action, "other_characteristic", CHARACTERISTICS, first)
    result = opposed_test(dice, characteristic(one, first), characteristic(two, second),
                          first_malus=int_field(action, "malus", -100, 100, default=0),
                          second_malus=int_field(action, "other_malus", -100, 100, default=0),
                          purposes=(Purpose("{characteristic} ({name})", name=one["name"],
                                            characteristic=CHARACTERISTIC_NAMES[first]),
                                    Purpose("{characteristic} ({name})", name=two["name"],
                                            characteristic=CHARACTERISTIC_NAMES[second])))
    winner = {"first": one["name"], "second": two["name"], None: None}[result.winner]
    return [Event("opposed", {"token": one["id"], "name": one["name"], "what": first,
                              "other": two["id"], "other_name": two["name"],
                              "other_what": second, "winner": winner,
                              "scores": [result.first.score, result.second.score],
                              "values": [result.first.characteristic,
                                         result.second.characteristic],
                              "rolls": [record.to_dict() for record in result.records]})]


def _decide_camouflage(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """Camouflage against Repérage (§ (II) Les compétences, Camouflage): "Permet de se cacher
    dans n'importe quel milieu. Une personne doit réussir un jet de repérage pour détecter une
    personne camouflée avec succès." The hider rolls Camouflage: failed, it is in plain sight
    and nobody needs to look; hidden, each seeker rolls Repérage and a success spots it. It
    stays hidden while nobody has. Only the GM sets a malus; a seeker without Repérage looks
    with its 35 % base (docs/rules-notes.md)."""
    hider = controlled(state, action, actor)
    if is_down(hider):
        raise refuse("cannot_act", name=hider["name"])
    if "camouflage" not in hider["skills"]:
        raise refuse("no_camouflage", name=hider["name"])
    seekers = _seekers(state, action, hider)
    malus = int_field(action, "malus", -100, 100, default=0)
    seeker_malus = int_field(action, "seeker_malus", -100, 100, default=0)
    if (malus or seeker_malus) and not actor.is_gm:
        raise refuse("gm_malus")
    gm_malus = (Modifier(-malus, Purpose("GM")),) if malus else ()
    hide = skill_test(dice, skill(hider, "camouflage"), situational(hider) + gm_malus,
                      purpose=f"camouflage ({hider['name']})")
    rolls, looks = [hide.record.to_dict()], []
    if hide.success:
        for seeker in seekers:
            mods = situational(seeker) + ((Modifier(-seeker_malus, Purpose("GM")),) if seeker_malus
                                          else ())
            look = skill_test(dice, reperage(seeker), mods,
                              purpose=f"repérage ({seeker['name']})")
            rolls.append(look.record.to_dict())
            looks.append({"token": seeker["id"], "name": seeker["name"],
                          "score": look.record.total, "target": look.target,
                          "spotted": look.success})
    visibility = "gm" if flag(action, "secret") and actor.is_gm else "public"
    return [Event("camouflaged", {
        "token": hider["id"], "name": hider["name"], "score": hide.record.total,
        "target": hide.target, "success": hide.success, "looks": looks,
        "hidden": hide.success and not any(look["spotted"] for look in looks),
        "rolls": rolls}, visibility=visibility)]


def _seekers(state: State, action: Mapping[str, Any], hider: dict) -> list[dict]:
    """Who looks: ``seekers`` (a list of ids) or the form's ``seeker_<id>`` boxes."""
    raw = action.get("seekers")
    chosen = [raw] if isinstance(raw, str) else list(raw) if isinstance(raw, list) else []
    chosen += [tid for tid in state["tokens"] if flag(action, f"seeker_{tid}")]
    found = []
    for tid in dict.fromkeys(chosen):
        seeker = target_of(state, {"target": tid})
        if seeker["id"] == hider["id"]:
            raise refuse("not_a_target", name=seeker["name"])
        found.append(seeker)
    if not found:
        raise refuse("no_seeker")
    return found


def reperage(person: Mapping[str, Any]) -> int:
    """Repérage: the skill held, else its flat "pourcentage de base 35%" (§ (II) 24), which
    needs no characteristic: anyone looks with it."""
    if "reperage" in person["skills"]:
        return skill(person, "reperage")
    return max(0, skills_table()["reperage"].base + poison_effects(person)["skills"])


# — healing, poisons ——————————————————————————————————————————————————————————————

def _decide_first_aid(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """Premiers soins: one try a day per patient, 2D6 santé on a success (§ (II), § (VI) 1/)."""
    healer = acting(state, action, actor)
    if "premiers_soins" not in healer["skills"]:
        raise refuse("cannot_act", name=healer["name"])
    patient = target_of(state, action, "patient")
    day = state["hour"] // 24
    if patient["first_aid_day"] == day:
        raise refuse("first_aid_today", name=patient["name"])
    result = progression.first_aid(dice, skill(healer, "premiers_soins"), patient["sante"],
                                   patient["sante_max"])
    return [Event("first_aid", {"token": healer["id"], "name": healer["name"],
                                "patient": patient["id"], "patient_name": patient["name"],
                                "success": result.test.success, "healed": result.healed,
                                "before": patient["sante"], "sante": result.sante, "day": day,
                                "skill": skill(healer, "premiers_soins"),
                                "in_combat": in_combat(state),
                                "recovered": recovered(patient, result.sante),
                                "rolls": [record.to_dict() for record in result.records]})]


def _decide_poison(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    require_gm(actor)
    token = target_of(state, action, "token")
    key = choice_field(action, "poison", list(poisons()))
    found = poisoned(key, max(token["sante"], 0))
    entry = poisons()[key]
    return [Event("poisoned", {"token": token["id"], "name": token["name"],
                               "poison": entry.name, "factor": entry.factor,
                               "mode": entry.mode, "sante": token["sante"],
                               "poisoning": found.to_dict()})]


def _decide_hours(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """Hours go by: each running poison strikes once an hour (§ (V)); a new day lets first
    aid be tried again (§ (II) Premiers soins)."""
    require_gm(actor)
    hours = int_field(action, "hours", 1, 72)
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
    require_gm(actor)
    token = token_of(state, action)
    if not token["poisoning"] or token["poisoning"]["cured"]:
        raise refuse("illegal_action")
    return [Event("antidote", {"token": token["id"], "name": token["name"]})]


# — the GM's hand ——————————————————————————————————————————————————————————————————

def _decide_correct(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """The GM corrects a value; the log keeps the before, the after and the reason."""
    require_gm(actor)
    token = token_of(state, action)
    field = text_field(action, "field", 60)
    if field.startswith("magazine:"):
        weapon = field.split(":", 1)[1]
        if weapon not in token["magazines"]:
            raise refuse("bad_field", field="field", reason="magazine")
        full = weapon_of(state, weapon).magazine or 0
        before, after = token["magazines"][weapon], int_field(action, "value", 0, full)
    elif field in CHARACTERISTICS:
        before, after = token["characteristics"][field], int_field(action, "value", 0, 40)
    elif field == "sante":
        before, after = token["sante"], int_field(action, "value", -999, token["sante_max"])
    elif field == "sante_max":
        before = token["sante_max"]
        after = int_field(action, "value", max(1, token["sante"]), 999)
    elif field == "resistance":
        before, after = token["resistance"], int_field(action, "value", 0, MAX_RESISTANCE)
    else:
        raise refuse("bad_field", field="field", reason="sante, sante_max, resistance…")
    return [Event("corrected", {"token": token["id"], "name": token["name"], "field": field,
                                "before": before, "after": after,
                                "recovered": recovered(token, after) if field == "sante" else [],
                                "reason": text_field(action, "reason", TEXT_MAX, required=False)})]


def _decide_set_state(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    require_gm(actor)
    token = token_of(state, action)
    name = choice_field(action, "state", STATES)
    on = flag(action, "on")
    return [Event("state_set", {"token": token["id"], "name": token["name"], "state": name,
                                "on": on})]


def _decide_situational(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """A standing modifier on one participant's d100 tests (the tables' "ou plus", darkness,
    cover, a symptom…) until the GM changes it; 0 removes it."""
    require_gm(actor)
    token = token_of(state, action)
    value = int_field(action, "value", -100, 100)
    label = text_field(action, "label", NAME_MAX, required=bool(value))
    return [Event("modifier_set", {"token": token["id"], "name": token["name"],
                                   "value": value, "label": label})]


def _decide_note(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    return [note_event(action, actor, max_length=TEXT_MAX)]


# — the end —————————————————————————————————————————————————————————————————————————

def _decide_end_mission(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """The mission is over (§ (VI), § (VII)): each cyborg of the roster still alive recovers
    all its santé + 1D6 (the maximum rises), counts one more mission (ranks, their new skills
    drawn as at creation, the Vénérable-Shiba's followers, elimination after the 25th), and
    goes to the operating theatre for each lost limb or if cut in two. Broken limbs, burns
    and fractures heal. ``between_matches`` writes it all on the sheets."""
    require_gm(actor)
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
    require_gm(actor)
    return [Event("match_ended", {})]


def _decide_end_fight(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """The GM ends the fight, the mission goes on (docs/rules-notes.md): no group acts in
    turn any more, until the GM rolls initiative for the next fight."""
    require_gm(actor)
    if not in_combat(state):
        raise refuse("no_combat")
    judged = outcome(state)
    return [Event("fight_ended", {"round": state["round"],
                                  "winners": list(judged.winners) if judged else [],
                                  "reason": judged.reason if judged else None})]


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
    "camouflage": _decide_camouflage,
    "first_aid": _decide_first_aid,
    "poison": _decide_poison,
    "hours": _decide_hours,
    "antidote": _decide_antidote,
    "correct": _decide_correct,
    "set_state": _decide_set_state,
    "situational": _decide_situational,
    "note": _decide_note,
    **BOARD_DECIDE,
    "start_chase": decide_start_chase,
    "chase_round": decide_chase_round,
    "manoeuvre": decide_manoeuvre,
    "ram": decide_ram,
    "shoot_vehicle": decide_shoot_vehicle,
    "end_chase": decide_end_chase,
    "end_fight": _decide_end_fight,
    "end_mission": _decide_end_mission,
    "end_match": _decide_end,
}

ACTIONS = frozenset(_DECIDE)  # every action kind the table knows


def decide(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice) -> list[Event]:
    events = handler_for(_DECIDE, state, action, actor)(state, action, actor, dice)
    return events + _phases_passing(state, events)
