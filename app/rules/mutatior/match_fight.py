"""A Mutatior fight's actions: movement, melee, shooting, rounds and turns, turn skills, the
sponge. 000_e34df4ff7a8d792c.txt § 1- LES ACTIONS, § 2-3 Compétences, § 3-1 Jeter l'éponge.
Dice are rolled here (through the rules core); every outcome goes into the events.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from app.rules.action_fields import flag, int_field, require_gm
from app.rules.board import MoveTooFar
from app.rules.dice import Dice, Modifier, RollRecord
from app.rules.match import Actor, Event, State
from app.rules.mutatior import arena, combat, skills
from app.rules.mutatior.body import Mutant
from app.rules.mutatior.match_state import (
    CONTACT_CM,
    PLACEMENT_CM,
    ROUNDING_CM,
    _actor_teams,
    _alive,
    _cm,
    _controlled,
    _deaths,
    _distance,
    _enemies,
    _grip_holds,
    _in_arena,
    _limb_ref,
    _next_in_order,
    _phase,
    _pump_mods,
    _record,
    _refuse,
    _report,
    _sevens,
    _simulate,
    _targets,
    _team,
    _token,
    _weather,
    body_of,
    damage_order,
    fighters,
    in_contact,
    mutant,
    team_names,
)
from app.rules.purposes import Purpose

# — placement and movement —

def _decide_move(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    tid = _token(state, action)
    _controlled(state, tid, actor)
    board = state["board"]
    x = int_field(action, "x", 0, board["width"])
    y = int_field(action, "y", 0, board["height"])
    token = state["tokens"][tid]
    if state["phase"] == "setup":
        return _placement(state, tid, x, y, actor)
    if token["kind"] != "mutant":
        require_gm(actor)
        return [Event("piece_moved", {"token": tid, "name": token["name"],
                                      "from": [token["x"], token["y"]], "to": [x, y],
                                      "positions": {tid: [x, y]}})]
    activation = state.get("activation") or {}
    if activation.get("token") != tid:
        raise _refuse("not_your_turn")
    if activation.get("acted"):
        raise _refuse("already_acted", mutant=token["name"])
    step = math.hypot(x - token["x"], y - token["y"])
    left = activation["allowance"] - activation["moved"]
    if step > left + ROUNDING_CM:
        raise MoveTooFar(name=token["name"], asked=step, allowed=left, unit=board["unit"])
    before = set(in_contact(state, tid))
    moved = {**state, "tokens": {**state["tokens"], tid: {**token, "x": x, "y": y}}}
    left_behind = [other for other in before if other not in set(in_contact(moved, tid))
                   and state["tokens"][other]["kind"] == "mutant"]
    owed = [{"by": other, "against": tid,
             "left": combat.escape_attacks(mutant(state, tid), mutant(state, other))}
            for other in left_behind]
    payload: dict[str, Any] = {
        "token": tid, "name": token["name"], "from": [token["x"], token["y"]], "to": [x, y],
        "distance": _cm(step), "moved_total": _cm(activation["moved"] + step),
        "left": _cm(max(0, left - step)), "positions": {tid: [x, y]}}
    if owed:
        payload["free_attacks"] = state["free_attacks"] + owed
        payload["escape"] = [{"by": entry["by"], "name": state["tokens"][entry["by"]]["name"],
                              "count": entry["left"]} for entry in owed]
    return [Event("moved", payload)]


def _placement(state: State, tid: str, x: int, y: int, actor: Actor) -> list[Event]:
    """§ 1-3 Terrain et placement: each in turn places a figure (the eldest trainer's team
    first); enemy figures stand 30 cm apart."""
    token = state["tokens"][tid]
    if tid in state.get("placed", []):
        raise _refuse("already_placed", mutant=token["name"])
    turn = next_placer(state)
    if _team(state, tid) != turn:
        raise _refuse("not_your_placement", team=team_names(state)[turn]["captain"])
    for other, entry in state["tokens"].items():
        if entry["kind"] == "mutant" and _enemies(state, tid, other) \
                and math.hypot(entry["x"] - x, entry["y"] - y) < PLACEMENT_CM:
            raise _refuse("too_close", mutant=token["name"], cm=PLACEMENT_CM)
    return [Event("placed", {"token": tid, "name": token["name"],
                             "from": [token["x"], token["y"]], "to": [x, y],
                             "positions": {tid: [x, y]}})]


def next_placer(state: State) -> str | None:
    """Whose turn it is to place a figure: teams take turns from the eldest trainer's (the
    GM's choice, else the first), the team that has placed fewest goes next."""
    order = list(state["team_order"])
    first = state.get("first_team")
    if first in order:
        start = order.index(first)
        order = order[start:] + order[:start]
    placed = state.get("placed", [])
    waiting = [team for team in order if any(
        tid not in placed and _in_arena(state, tid) for tid in state["teams"][team]["members"])]
    if not waiting:
        return None
    count = {team: sum(1 for tid in state["teams"][team]["members"] if tid in placed)
             for team in waiting}
    return min(waiting, key=lambda team: (count[team], waiting.index(team)))


def _decide_sprint(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """§ 1-2 Mouvement: a pump roll to move as far again; Coureur effréné may try a third
    move (another pump roll; failing it costs a biomoteur); gel may make it fall."""
    tid = _active(state, action, actor)
    activation = state["activation"]
    if activation["sprinted"]:
        raise _refuse("already_sprinted", mutant=state["tokens"][tid]["name"])
    body = mutant(state, tid)
    weather = _weather(state)
    third = flag(action, "third") and body.has("coureur_effrene")
    extra = (skills.ANGRY,) if tid in state["angry"] else ()
    result = arena.move(body, weather, dice, sprint=True, third=third, pump_mods=extra)
    step = body.movement_cm(arena.movement_factor(weather, body))
    allowance = _cm(step * result.moves)
    records = [roll.record for roll in result.pump_rolls]
    records += [r for r in (result.fall, result.fall_location, result.fall_damage) if r]
    payload: dict[str, Any] = {
        "token": tid, "name": body.name, "moves": result.moves, "allowance": allowance,
        "infarctus": sum(1 for roll in result.pump_rolls if roll.infarctus),
        "fell": bool(result.fall_report), "rolls": [_record(r) for r in records],
        "bodies": {tid: body_of(result.mutant)},
        "activation": {"sprinted": True, "allowance": allowance},
        "chances": _sevens(state, tid, *[roll.record for roll in result.pump_rolls])}
    if result.fall_report:
        payload["fall"] = _report(result.fall_report)
    payload.update(_deaths(state, {tid: result.mutant}, killer_team=None))
    return [Event("sprinted", payload)]


def _active(state: State, action, actor: Actor) -> str:
    _phase(state, "fight")
    tid = _token(state, action)
    _controlled(state, tid, actor)
    activation = state.get("activation") or {}
    if activation.get("token") != tid:
        raise _refuse("not_your_turn")
    if activation.get("acted"):
        raise _refuse("already_acted", mutant=state["tokens"][tid]["name"])
    if state.get("pending"):
        raise _refuse("pending_first", mutant=state["tokens"][state["pending"]["by"]]["name"])
    return tid


# — melee (§ 1-3) —

def attack_options(state: State, tid: str) -> tuple[list[str], list[str]]:
    """The limbs ``tid`` may attack with now and the enemy limbs it may aim at
    (``"token:limb"`` values), following the turn, a pending follow-up or a free attack."""
    if not _alive(state, tid):
        return [], []
    mode = _attack_mode(state, tid)
    if mode is None:
        return [], []
    pending = state.get("pending") or {}
    body = mutant(state, tid)
    used = set(state["used_limbs"].get(tid, []))
    gripped = {grip["limb"] for grip in state["grips"] if grip["victim"] == tid}
    only_with = pending.get("only_with") if mode == "pending" else None
    limbs = []
    for limb in body.limbs:
        if limb.trunk or limb.dead or limb.live_muscles <= 0 or limb.name in gripped:
            continue
        if only_with is not None:
            if limb.name != only_with:
                continue
        elif limb.name in used or (mode == "pending" and limb.name == pending.get("not_with")):
            continue
        limbs.append(f"{tid}:{limb.name}")
    if mode == "pending":
        enemies = [pending["against"]] if _alive(state, pending["against"]) else []
    elif mode == "free":
        enemies = [entry["against"] for entry in state["free_attacks"]
                   if entry["by"] == tid and _alive(state, entry["against"])]
    else:
        enemies = in_contact(state, tid)
        if not enemies and body.frenzy_turns is not None:
            # § 2-3 Lobotomie: without lobes it attacks whatever touches it, enemies first.
            enemies = [other for other in _targets(state) if other != tid
                       and _distance(state, tid, other) <= CONTACT_CM]
    targets = []
    for enemy in dict.fromkeys(enemies):
        for limb in mutant(state, enemy).limbs:
            if limb.dead:
                continue
            if mode == "pending":
                if pending.get("only_at") and limb.name != pending["only_at"]:
                    continue
                if not pending.get("only_at") and limb.name == pending.get("not_at"):
                    continue
            targets.append(f"{enemy}:{limb.name}")
    return (limbs, targets) if limbs and targets else ([], [])


def _attack_mode(state: State, tid: str) -> str | None:
    if state.get("phase") != "fight":
        return None
    pending = state.get("pending")
    if pending:
        return "pending" if pending["by"] == tid else None
    if any(entry["by"] == tid for entry in state["free_attacks"]):
        return "free"
    activation = state.get("activation") or {}
    if activation.get("token") == tid and not activation.get("acted"):
        return "turn"
    return None


def _decide_attack(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    _phase(state, "fight")
    tid, _limb = _limb_ref(state, action, "limb")
    _controlled(state, tid, actor)
    return strike(state, action, dice)


def strike(state: State, action, dice: Dice) -> list[Event]:
    """A melee attack by the limb ``action["limb"]`` on ``action["target"]`` (``"m1:tête"``
    each), whoever asks: its owner, or its standing orders (``match_flow``)."""
    tid, limb = _limb_ref(state, action, "limb")
    target, target_limb = _limb_ref(state, action, "target")
    mode = _attack_mode(state, tid)
    if mode is None:
        raise _refuse("not_your_turn")
    limbs, targets = attack_options(state, tid)
    if f"{target}:{target_limb}" not in targets and mode == "turn" \
            and target not in in_contact(state, tid):
        raise _refuse("not_in_contact", mutant=state["tokens"][tid]["name"],
                      target=state["tokens"][target]["name"])
    attacker, defender = mutant(state, tid), mutant(state, target)
    # The core's own checks first (dead, trunk, dead limb, no muscle), with their reasons.
    combat.check_attack(attacker, limb, defender, target_limb)
    if f"{tid}:{limb}" not in limbs or f"{target}:{target_limb}" not in targets:
        raise _refuse("not_allowed_limb")
    pending = state.get("pending") if mode == "pending" else None
    events: list[Event] = []
    if pending and pending.get("needs_pump"):
        roll = combat.pump_roll(attacker, dice, modifiers=_pump_mods(state, tid),
                                purpose=Purpose("pump (second attack)"
                                                 if pending["kind"] == "second_attack"
                                                 else "pump (counter-attack)"))
        after = combat.apply_infarctus(attacker) if roll.infarctus else attacker
        payload: dict[str, Any] = {"token": tid, "name": attacker.name, "for": pending["kind"],
                                   "success": roll.success, "infarctus": roll.infarctus,
                                   "rolls": [_record(roll.record)],
                                   "chances": _sevens(state, tid, roll.record)}
        if roll.infarctus:
            payload["bodies"] = {tid: body_of(after)}
            payload.update(_deaths(state, {tid: after}, killer_team=None))
        if not roll.success:
            payload["pending"] = None
            events.append(Event("follow_up_failed", payload))
            return events
        events.append(Event("pump_rolled", payload))
        attacker = after
        if attacker.dead:
            return events
    return events + _clash_events(state, tid, limb, target, target_limb, attacker, defender,
                                  mode, pending, action, dice)


def _clash_events(state: State, tid: str, limb: str, target: str, target_limb: str,
                  attacker: Mutant, defender: Mutant, mode: str, pending: dict | None,
                  action, dice: Dice) -> list[Event]:
    rolls: list[RollRecord] = []
    attack_mods: list[Modifier] = []
    sevens: dict[str, int] = {}
    surge = None
    if flag(action, "surge") and attacker.has("afflux_sanguin"):
        surge = skills.afflux_sanguin(attacker, limb, dice, _pump_mods(state, tid))
        rolls.append(surge.roll.record)
        sevens = _add(sevens, _sevens(state, tid, surge.roll.record))
        if surge.roll.infarctus:
            attacker = combat.apply_infarctus(attacker)
        if surge.modifier:
            attack_mods.append(surge.modifier)
    gm_attack = state["modifiers"].get(tid)
    gm_defence = state["modifiers"].get(target)
    if gm_attack:
        attack_mods.append(Modifier(gm_attack["value"], gm_attack["reason"]))
    defence_mods = [Modifier(gm_defence["value"], gm_defence["reason"])] if gm_defence else []
    used = sorted({tid, target} & set(state["modifiers"]))
    result = combat.clash(attacker, limb, defender, target_limb, dice,
                          attack_modifiers=attack_mods, defence_modifiers=defence_mods)
    rolls += [result.attack, result.defence]
    number = 2 if pending and pending["kind"] == "second_attack" else 1
    counter = bool(pending and pending["kind"] == "counter")
    payload: dict[str, Any] = {
        "token": tid, "name": attacker.name, "limb": limb, "target": target,
        "target_name": defender.name, "target_limb": target_limb, "mode": mode,
        "number": number, "counter": counter, "winner": result.winner,
        "attack": result.attack.total, "defence": result.defence.total,
        "damage": result.damage, "surge": surge.modifier is not None if surge else None,
        "used": {tid: [limb]}, "modifiers_used": used}
    bodies = {tid: attacker}
    team = _team(state, tid)
    follow = combat.FollowUp(None)
    tie = None
    if result.winner == combat.ATTACKER:
        defender, report = combat.apply_damage(defender, target_limb, result.damage,
                                               damage_order(state, target))
        payload["report"] = _report(report)
        bodies[target] = defender
        held = skills.grip(result, attacker)
        if held is not None and not defender.dead:
            payload["grips"] = state["grips"] + [{"holder": tid, "tentacle": limb,
                                                  "victim": target, "limb": target_limb}]
            payload["gripped"] = True
        if report.limb_died or report.killed:
            payload["feats"] = [tid]
        extra, defender = _after_hit(state, target, target_limb, defender, tid, dice)
        bodies[target] = defender
        payload.update(extra)
        rolls += [RollRecord.from_dict(r) for r in extra.pop("rolls", [])]
    elif result.winner is None:
        tie = combat.tie_break(attacker, defender, dice,
                               attacker_modifiers=_pump_mods(state, tid),
                               defender_modifiers=_pump_mods(state, target))
        rolls += [tie.attacker_roll.record, tie.defender_roll.record]
        sevens = _add(sevens, _sevens(state, tid, tie.attacker_roll.record))
        sevens = _add(sevens, _sevens(state, target, tie.defender_roll.record))
        if tie.attacker_roll.infarctus:
            bodies[tid] = attacker = combat.apply_infarctus(attacker)
        if tie.defender_roll.infarctus:
            bodies[target] = defender = combat.apply_infarctus(defender)
        payload["tie_winner"] = tie.winner
    if mode != "free" and state["tokens"][target]["kind"] == "mutant":
        follow = combat.follow_up(result, attacker, defender, attack_number=number,
                                  counter=counter, tie=tie)
        follow = skills.obsede(follow, result, attacker)
    payload["pending"] = _pending(state, follow, tid, target)
    if payload.get("sponged"):  # Coquet left the arena: the exchange is over
        payload["pending"] = None
    if mode == "free":
        payload["free_attacks"] = _spend_free(state, tid, target)
    elif mode == "turn" or (pending and pending["kind"] == "second_attack"):
        # § 1-1: the creature loses the initiative on a miss or after its second attack;
        # either way its attack of the turn is done.
        payload["activation"] = {"acted": True}
    payload["chances"] = sevens
    payload["rolls"] = [_record(r) for r in rolls]
    payload["bodies"] = {key: body_of(value) for key, value in bodies.items()}
    deaths = _deaths(state, bodies, killer_team=team, killer=tid)
    if "feats" in deaths and "feats" in payload:
        deaths["feats"] = sorted(set(deaths["feats"]) | set(payload["feats"]))
    if "grips" in deaths and "grips" in payload:
        deaths["grips"] = [grip for grip in payload["grips"]
                           if _grip_holds(state, grip, bodies)]
    payload.update(deaths)
    events = [Event("attacked", payload)]
    events += _piece_prizes(state, target, defender, tid, dice)
    return events


def _add(a: dict[str, int], b: dict[str, int]) -> dict[str, int]:
    return {key: a.get(key, 0) + b.get(key, 0) for key in {*a, *b}}


def _pending(state: State, follow: combat.FollowUp, attacker: str,
             defender: str) -> dict | None:
    if follow.kind is None:
        return None
    by = attacker if follow.kind == "second_attack" else defender
    against = defender if by == attacker else attacker
    return {"kind": follow.kind, "by": by, "against": against,
            "needs_pump": follow.needs_pump_roll, "not_with": follow.not_with,
            "not_at": follow.not_at, "only_with": follow.only_with, "only_at": follow.only_at}


def _spend_free(state: State, tid: str, target: str) -> list[dict]:
    owed = []
    spent = False
    for entry in state["free_attacks"]:
        if not spent and entry["by"] == tid and entry["against"] == target:
            spent = True
            if entry["left"] > 1:
                owed.append({**entry, "left": entry["left"] - 1})
            continue
        owed.append(entry)
    return owed


def _after_hit(state: State, target: str, target_limb: str, defender: Mutant, attacker: str,
               dice: Dice) -> tuple[dict[str, Any], Mutant]:
    """Coquet hit on the head, Lobotomie losing its last lobe (§ 2-3)."""
    extra: dict[str, Any] = {}
    rolls = []
    if defender.has("coquet") and not defender.dead \
            and skills.is_head(defender.limb(target_limb)):
        vanity = skills.coquet(defender, dice)
        rolls.append(vanity.record)
        extra["coquet"] = "sponge" if vanity.sponge else "angry"
        if not vanity.sponge:
            extra["angry"] = [target]
        else:  # it throws in the sponge (§ 3-1): the mercy roll against its attacker
            contact = _distance(state, target, attacker) <= CONTACT_CM
            mercy = arena.throw_sponge(defender, mutant(state, attacker), dice,
                                       in_contact=contact)
            rolls += list(mercy.rolls)
            extra["statuses"] = {target: "out"}
            extra["sponged"] = [target]
            if mercy.given is not None and not mercy.given.trunk:
                given = mercy.given
                extra["coquet_gave"] = given.name
                extra["gains"] = [{"team": _team(state, attacker),
                                   "kg": defender.limb_biomass(given), "why": "sponge_limb"}]
                defender = defender.with_limb(replace(
                    given, lost_muscles=given.muscles, lost_biomoteurs=given.biomoteurs,
                    lost_lobes=given.lobes))
    frenzied, record = skills.lobotomie_frenzy(defender, dice)
    if record is not None:
        rolls.append(record)
        extra["frenzy_turns"] = frenzied.frenzy_turns
        defender = frenzied
    if rolls:
        extra["rolls"] = [_record(r) for r in rolls]
    return extra, defender


def _piece_prizes(state: State, target: str, body: Mutant, killer: str,
                  dice: Dice) -> list[Event]:
    """§ 3-3: the first to kill the chicken gains 3d6 kg; the cheerleader's killer gains a
    point of popularity."""
    kind = state["tokens"][target]["kind"]
    if kind == "mutant" or not body.dead:
        return []
    team = _team(state, killer)
    if kind == "chicken":
        record = arena.chicken_prize(dice)
        return [Event("piece_prize", {"piece": kind, "token": killer,
                                      "name": state["tokens"][killer]["name"], "kg": record.total,
                                      "rolls": [_record(record)],
                                      "gains": [{"team": team, "kg": record.total,
                                                 "why": "chicken"}]})]
    fan = arena.cheerleader_killed(mutant(state, killer))
    return [Event("piece_prize", {"piece": kind, "token": killer,
                                  "name": state["tokens"][killer]["name"], "fame": 1,
                                  "bodies": {killer: {**state["bodies"][killer],
                                                      "fame": fan.fame}}})]


def _decide_decline(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """The one who may attack again (second attack or counter) lets it go."""
    pending = state.get("pending")
    if not pending:
        raise _refuse("illegal_action")
    _controlled(state, pending["by"], actor)
    return decline(state)


def decline(state: State, why: str | None = None) -> list[Event]:
    """The follow-up under way is let go; ``why`` says it went by itself (``"orders"``: the
    mutant's standing orders, ``"nothing"``: no limb or target left for it)."""
    pending = state["pending"]
    payload: dict[str, Any] = {"token": pending["by"],
                               "name": state["tokens"][pending["by"]]["name"],
                               "for": pending["kind"], "pending": None, "auto": why}
    if pending["kind"] == "second_attack":
        payload["activation"] = {"acted": True}
    return [Event("follow_up_declined", payload)]


def _decide_skip_free(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    tid = _token(state, action)
    _controlled(state, tid, actor)
    if not any(entry["by"] == tid for entry in state["free_attacks"]):
        raise _refuse("illegal_action")
    return skip_free(state, tid)


def skip_free(state: State, tid: str, why: str | None = None) -> list[Event]:
    """``tid`` lets its free attacks go (``why`` as for ``decline``)."""
    return [Event("free_attacks_skipped", {
        "token": tid, "name": state["tokens"][tid]["name"], "auto": why,
        "free_attacks": [e for e in state["free_attacks"] if e["by"] != tid]})]


# — shooting (§ 1-4) —

def shoot_options(state: State, tid: str) -> tuple[list[str], list[str]]:
    activation = state.get("activation") or {}
    if state.get("phase") != "fight" or activation.get("token") != tid \
            or activation.get("acted") or state.get("pending") or not _alive(state, tid):
        return [], []
    body = mutant(state, tid)
    limbs = [f"{tid}:{limb.name}" for limb in body.limbs if limb.live_biomoteurs > 0]
    targets = [f"{other}:{limb.name}" for other in _targets(state)
               if other != tid and _enemies(state, tid, other)
               for limb in mutant(state, other).limbs if not limb.dead]
    return (limbs, targets) if limbs and targets else ([], [])


def _decide_shoot(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    tid, limb = _limb_ref(state, action, "limb")
    target, aimed = _limb_ref(state, action, "target")
    action = {**action, "token": tid}
    _active(state, action, actor)
    limbs, targets = shoot_options(state, tid)
    shooter, victim = mutant(state, tid), mutant(state, target)
    if f"{tid}:{limb}" not in limbs:
        raise combat.IllegalMelee("limb_cannot_shoot", limb=limb)
    if f"{target}:{aimed}" not in targets:
        raise _refuse("not_allowed_limb")
    mods = list(arena.shot_modifiers(_weather(state), shooter))
    gm = state["modifiers"].get(tid)
    if gm:
        mods.append(Modifier(gm["value"], gm["reason"]))
    shot = combat.shoot(shooter, limb, victim, dice, aimed_limb=aimed, modifiers=mods)
    rolls = [r for r in (shot.roll, shot.location, shot.damage) if r]
    payload: dict[str, Any] = {
        "token": tid, "name": shooter.name, "limb": limb, "target": target,
        "target_name": victim.name, "aimed": aimed, "outcome": shot.outcome,
        "hit_limb": shot.target_limb, "activation": {"acted": True},
        "modifiers_used": [tid] if gm else []}
    bodies: dict[str, Mutant] = {}
    if shot.damage is not None and shot.target_limb:
        victim, report = combat.apply_damage(victim, shot.target_limb, shot.damage.total,
                                             damage_order(state, target))
        payload["report"] = _report(report)
        bodies[target] = victim
        if report.limb_died or report.killed:
            payload["feats"] = [tid]
        extra, victim = _after_hit(state, target, shot.target_limb, victim, tid, dice)
        bodies[target] = victim
        rolls += [RollRecord.from_dict(r) for r in extra.pop("rolls", [])]
        payload.update(extra)
    payload["rolls"] = [_record(r) for r in rolls]
    payload["bodies"] = {key: body_of(value) for key, value in bodies.items()}
    deaths = _deaths(state, bodies, killer_team=_team(state, tid), killer=tid)
    if "feats" in deaths and "feats" in payload:
        deaths["feats"] = sorted(set(deaths["feats"]) | set(payload["feats"]))
    payload.update(deaths)
    return [Event("shot", payload), *_piece_prizes(state, target, victim, tid, dice)]


# — turns and rounds —

def _decide_new_round(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    _phase(state, "fight")
    if state.get("turn") is not None:
        raise _refuse("round_running")
    if not actor.is_gm and not _actor_teams(state, actor):
        raise _refuse("not_allowed")
    if state.get("decided"):
        raise _refuse("decided")
    return _round_events(state, dice)


def _round_events(state: State, dice: Dice) -> list[Event]:
    """Start of a round: the crowd's pieces act (the chicken walks 2d6 cm, the cheerleader
    tries to climb out on a 6), boos are served, then d6 + brain for everyone (§ 1-1)."""
    events: list[Event] = []
    center = (state["board"]["width"] / 2, state["board"]["height"] / 2)
    for tid, token in state["tokens"].items():
        if token["status"] != "in" or not _alive(state, tid):
            continue
        if token["kind"] == "chicken":
            record = combat._roll(dice, Purpose("chicken"), 2)
            pos = token["pos"]
            towards = 1 if pos < 0 else -1 if pos > 0 else 1
            there = max(-token["radius"], min(token["radius"], pos + towards * record.total))
            x = round(center[0] + token["axis"][0] * -there)
            y = round(center[1] + token["axis"][1] * -there)
            events.append(Event("piece_moved", {
                "token": tid, "name": token["name"], "from": [token["x"], token["y"]],
                "to": [x, y], "walked": record.total, "positions": {tid: [x, y]},
                "pos": there, "rolls": [_record(record)]}))
        elif token["kind"] == "cheerleader":
            record = arena.cheerleader_climbs(dice)
            events.append(Event("piece_climbs", {
                "token": tid, "name": token["name"], "out": record.total == 6,
                "rolls": [_record(record)],
                "statuses": {tid: "gone"} if record.total == 6 else {}}))
    booed = {tid: left - 1 for tid, left in state["booed"].items() if left > 1}
    weather = _weather(state)
    living = [mutant(state, tid) for tid in fighters(state)]
    mods = {}
    for tid in fighters(state):
        body = mutant(state, tid)
        extra = arena.initiative_modifiers(weather, body)
        if tid in state["spotlight"]:
            extra += (arena.SPOTLIGHT,)
        if extra:
            mods[body.name] = extra
    result = combat.initiative(living, dice, modifiers=mods)
    by_name = {state["tokens"][tid]["name"]: tid for tid in fighters(state)}
    order = [by_name[name] for name in result.order]
    values = {}
    for record in result.rolls:
        name = (record.purpose or "").removeprefix("initiative relance ").removeprefix(
            "initiative ")
        if name in by_name:
            values[by_name[name]] = record.total
    events.append(Event("round_started", {
        "round": state["round"] + 1, "initiative": order, "values": values,
        "names": [state["tokens"][tid]["name"] for tid in order], "booed": booed,
        "rolls": [_record(r) for r in result.rolls],
        "chances": {}}))
    after = _simulate(state, events)
    if order:
        events += _turn_start(after, order[0], dice)
    return events


def _turn_start(state: State, tid: str, dice: Dice) -> list[Event]:
    """A mutant's initiative: its tentacles drain what they hold, Gélatine expansive and
    Régénération regrow an organ, a frenzied Lobotomie counts down (§ 2-2, § 2-3)."""
    body = mutant(state, tid)
    bodies: dict[str, Mutant] = {}
    effects: list[dict[str, Any]] = []
    for grip in state["grips"]:
        if grip["holder"] == tid and _grip_holds(state, grip, bodies):
            victim = bodies.get(grip["victim"]) or mutant(state, grip["victim"])
            bodies[grip["victim"]] = skills.grip_drain(
                skills.Grip(body.name, grip["tentacle"], victim.name, grip["limb"]), victim)
            effects.append({"effect": "grip", "victim": victim.name, "limb": grip["limb"]})
    if body.has("gelatine_expansive"):
        regrown = skills.gelatine_expansive(body)
        if regrown.live_brain > body.live_brain:
            effects.append({"effect": "gelatine"})
            body = regrown
    if body.has("regeneration"):
        regrown = skills.regeneration(body)
        if regrown.live_muscles > body.live_muscles:
            effects.append({"effect": "regeneration"})
            body = regrown
    frenzy = state["bodies"][tid].get("frenzy")
    if frenzy is not None:
        isolated = not in_contact(state, tid)
        body = skills.lobotomie_tick(body, isolated=isolated)
        frenzy = body.frenzy_turns
        effects.append({"effect": "frenzy", "left": frenzy, "isolated": isolated})
    bodies[tid] = body
    weather = _weather(state)
    allowance = _cm(body.movement_cm(arena.movement_factor(weather, body)))
    payload: dict[str, Any] = {
        "token": tid, "name": body.name, "allowance": allowance, "effects": effects,
        "bodies": {key: body_of(value) for key, value in bodies.items()}}
    payload.update(_deaths(state, bodies, killer_team=_team(state, tid), killer=tid))
    return [Event("turn_started", payload)]


def _decide_end_turn(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    _phase(state, "fight")
    current = state.get("turn")
    if current is None:
        raise _refuse("illegal_action")
    if not actor.is_gm and not actor.controls(state["tokens"][current]):
        raise _refuse("not_your_turn")
    if state.get("pending"):
        raise _refuse("pending_first", mutant=state["tokens"][state["pending"]["by"]]["name"])
    return end_turn(state, dice)


def end_turn(state: State, dice: Dice, why: str | None = None) -> list[Event]:
    """The active mutant's turn ends and the next one's starts; ``why``: it ended by itself
    (``"nothing"``: nothing was left to do, ``"lost"``: the mutant died or left)."""
    current = state["turn"]
    following = _next_in_order(state, current)
    events = [Event("turn_ended", {"token": current, "name": state["tokens"][current]["name"],
                                   "next": following, "auto": why,
                                   "next_name": state["tokens"][following]["name"]
                                   if following else None})]
    if following:
        events += _turn_start(_simulate(state, events), following, dice)
    return events


# — skills used on the mutant's own turn (§ 2-3 Compétences) —

TURN_SKILLS = ("cerveau_mobile", "charognard", "instinct_vicieux")


def skill_options(state: State, tid: str) -> dict[str, Any]:
    """What the active mutant's turn skills may do now (each once per turn)."""
    activation = state.get("activation") or {}
    if state.get("phase") != "fight" or activation.get("token") != tid \
            or state.get("pending") or not _alive(state, tid):
        return {}
    body = mutant(state, tid)
    used = set(activation.get("skills", []))
    options: dict[str, Any] = {}
    if body.has("cerveau_mobile") and "cerveau_mobile" not in used:
        sources = [limb.name for limb in body.limbs if limb.live_lobes > 0]
        from_trunk = any(body.limb(name).trunk for name in sources)
        # Every appendage hangs on the trunk: lobes go trunk ↔ appendage (skills.py).
        targets = [limb.name for limb in body.living_limbs
                   if limb.name not in sources and (limb.trunk or from_trunk)]
        if sources and targets:
            options["cerveau_mobile"] = {"sources": sources, "targets": targets}
    if body.has("charognard") and "charognard" not in used and not activation.get("acted") \
            and not activation.get("moved"):
        corpses = [other for other, token in state["tokens"].items()
                   if token["kind"] == "mutant" and token["status"] == "in" and other != tid
                   and mutant(state, other).dead and other not in state.get("eaten", [])
                   and _distance(state, tid, other) <= CONTACT_CM]
        if corpses:
            options["charognard"] = {"corpses": corpses}
    if body.has("instinct_vicieux") and "instinct_vicieux" not in used:
        limbs = [f"{other}:{limb.name}" for other in fighters(state)
                 if _enemies(state, tid, other) for limb in mutant(state, other).living_limbs]
        if limbs:
            options["instinct_vicieux"] = {"limbs": limbs}
    return options


def _decide_skill(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """Cerveau mobile (the lobes move together to a connected limb with room), Charognard
    (devour a corpse in contact instead of anything else this turn), Instinct vicieux (2d6
    under the brain: does that enemy limb hold biomoteurs?)."""
    _phase(state, "fight")
    tid = _token(state, action)
    _controlled(state, tid, actor)
    skill = action.get("skill")
    options = skill_options(state, tid).get(skill) if skill in TURN_SKILLS else None
    if options is None:
        raise _refuse("illegal_action")
    body = mutant(state, tid)
    payload: dict[str, Any] = {"token": tid, "name": body.name, "skill": skill,
                               "activation": {"skills": [*state["activation"].get("skills", []),
                                                         skill]}}
    if skill == "cerveau_mobile":
        source, target = action.get("source"), action.get("to")
        if source not in options["sources"] or target not in options["targets"]:
            raise _refuse("not_allowed_limb")
        moved = skills.cerveau_mobile(body, source, target)
        payload.update(source=source, to=target, bodies={tid: body_of(moved)})
    elif skill == "charognard":
        corpse = action.get("corpse")
        if corpse not in options["corpses"]:
            raise _refuse("bad_victim")
        fed, regained = skills.charognard(body, mutant(state, corpse))
        payload.update(corpse=corpse, corpse_name=state["tokens"][corpse]["name"],
                       regained=regained, bodies={tid: body_of(fed)}, eaten=corpse)
        payload["activation"]["acted"] = True
        payload["activation"]["moved"] = state["activation"]["allowance"]
    else:
        ref = action.get("limb")
        if ref not in options["limbs"]:
            raise _refuse("not_allowed_limb")
        enemy, _, limb_name = ref.partition(":")
        instinct = skills.instinct_vicieux(body, mutant(state, enemy), limb_name, dice)
        payload.update(target_name=state["tokens"][enemy]["name"], limb=limb_name,
                       success=instinct.success, answer=instinct.has_biomoteurs,
                       rolls=[_record(instinct.record)],
                       chances=_sevens(state, tid, instinct.record))
        return [Event("skill_used", payload, visibility="self")]
    return [Event("skill_used", payload)]


# — leaving: the sponge (§ 3-1) —

def _decide_sponge(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """A creature asks the crowd for mercy: in contact, d6 + lobes each (the enemy first);
    losing, it cedes a living limb of its choice. Out of contact it simply leaves."""
    _phase(state, "fight")
    tid = _token(state, action)
    _controlled(state, tid, actor)
    if not _alive(state, tid) or state["tokens"][tid]["kind"] != "mutant":
        raise _refuse("out_of_arena", mutant=state["tokens"][tid]["name"])
    if state.get("pending") and tid in (state["pending"]["by"], state["pending"]["against"]):
        raise _refuse("pending_first", mutant=state["tokens"][state["pending"]["by"]]["name"])
    body = mutant(state, tid)
    enemies = [other for other in in_contact(state, tid)
               if state["tokens"][other]["kind"] == "mutant"]
    give = action.get("give") or None
    if give is not None and (not isinstance(give, str) or give not in
                             {limb.name for limb in body.living_limbs if not limb.trunk}):
        raise arena.IllegalArena("no_living_limb", mutant=body.name, limb=str(give)[:40])
    booed = arena.Booed(body.name, state["booed"][tid]) if tid in state["booed"] else None
    enemy = enemies[0] if enemies else None
    result = arena.throw_sponge(body, mutant(state, enemy) if enemy else body, dice,
                                in_contact=bool(enemy), give=give, booed=booed)
    payload: dict[str, Any] = {"token": tid, "name": body.name, "unharmed": result.unharmed,
                               "enemy": enemy,
                               "enemy_name": state["tokens"][enemy]["name"] if enemy else None,
                               "rolls": [_record(r) for r in result.rolls],
                               "statuses": {tid: "out"}}
    if result.given is not None:
        given = result.given
        if given.trunk:  # house: the trunk holds the body together; the next smallest goes
            given = min((limb for limb in body.living_limbs if not limb.trunk),
                        key=lambda limb: limb.live_organs, default=given)
        payload["given"] = given.name
        kg = body.limb_biomass(given)
        payload["gains"] = [{"team": _team(state, enemy), "kg": kg, "why": "sponge_limb",
                             "limb": given.name, "mutant": body.name}]
        emptied = replace(given, lost_muscles=given.muscles, lost_biomoteurs=given.biomoteurs,
                          lost_lobes=given.lobes)
        payload["bodies"] = {tid: body_of(body.with_limb(emptied))}
    if state.get("turn") == tid:
        following = _next_in_order(state, tid)
        events = [Event("sponge_thrown", payload)]
        after = _simulate(state, events)
        if following:
            events += _turn_start(after, following, dice)
        return events
    return [Event("sponge_thrown", payload)]


