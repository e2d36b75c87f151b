"""Deciding Tiamat actions: initiative, attacks and their defence, combos and chains,
movement, tests, holds, finishing off, the GM's corrections. The only place dice roll.

An attack is declared (``attack``: the action and its cost are spent, nothing rolled yet),
then its target answers (``defend``: a defence technique or the défense instinctive), and
both précision rolls, the location, the puissance and every effect are rolled then, into one
``attack_resolved`` event. A target who cannot defend actively (no action left, KO, held)
answers with its défense instinctive at once.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.rules import notation
from app.rules.action_fields import flag, int_field, require_gm, text_field
from app.rules.dice import Dice, Modifier, RollRecord
from app.rules.match import (
    FIELD_LABELS,
    Actor,
    Event,
    IllegalAction,
    State,
    copy_state,
    handler_for,
)
from app.rules.purposes import Purpose
from app.rules.tiamat.combat import (
    ARMED_PARADES,
    GRAVE,
    RANGE_MODIFIERS,
    RULE_ATTACK,
    RULE_LETHAL,
    SITUATION_MODIFIERS,
    SITUATION_NAMES,
    TERRAIN_NAMES,
    TERRAINS,
    Damage,
    apply_damage,
    attack_problem,
    damage_expression,
    damage_pool,
    defence_problem,
    degagement_cost,
    drawn_weapon,
    fires,
    held_weapon,
    hold_of,
    is_down,
    lethal_attack,
    precision_pool,
    roll_location,
    rounds_left,
)
from app.rules.tiamat.content import (
    CHAR_NAMES,
    SKILL_NAMES,
    Hold,
    Technique,
    techniques,
)
from app.rules.tiamat.errors import TiamatRefusal
from app.rules.tiamat.match import active, defence_options, finishers, targetable
from app.rules.tiamat.pools import (
    DIFFICULTIES,
    DIFFICULTY_NAMES,
    Pool,
    opposed,
    pool,
    simple_test,
)
from app.rules.tiamat.sides import SIDES, decided, side_of
from app.rules.tiamat.talents import blind_fighter, has, once_left, test_dice
from app.rules.tiamat.turns import (
    RULE_INITIATIVE,
    delay_turn,
    end_match,
    end_turn,
    folded,
    follow_on,
    initiative,
    next_turn,
    refuse_when_decided,
    require_turn,
    skip_combo,
    standing_defence,
)

RULE_MOVES = "Tiamat § Combat « versus » / Mouvements"
RULE_FLEE = "Tiamat § Combat « Beat them all » / Exemple de combat (« prend la fuite »)"
RULE_PREPARE = "Tiamat § Combat « versus » / Se préparer"
RULE_POSTURE = "Tiamat § Combat « versus » / Posture"
RULE_COMBO = "Tiamat § Techniques / Combo / Les enchaînements"
RULE_KILL = "Tiamat § Combat « versus » / Mise à mort"
RULE_SUBMISSION = "Tiamat § Techniques / Attributs / Soumission"
RULE_BTA = "Tiamat § Combat « Beat them all »"
RULE_AMMO = "Tiamat § Armes / Munitions / Tir en rafale"
RULE_RUN = "Tiamat § Combat « versus » / Mouvements / Course ; Compétences / Course"
RULE_DURATION = "Tiamat § Techniques / Règles spéciales (« pendant 1D6 tours »)"
RULE_GOTONPO = "Tiamat § LISTE DES TECHNIQUES / GOTONPO"
RULE_KUSARIGAMA = "Tiamat § LISTE DES TECHNIQUES / CAPTURE DU KUSARIGAMA"

FOREVER = 10_000
NAME_MAX = 80


def _refuse(code: str, **fields: Any) -> TiamatRefusal:
    return TiamatRefusal(code, **fields)


def _participant(state: State, action: Mapping[str, Any], field: str) -> dict[str, Any]:
    pid = action.get(field)
    if not isinstance(pid, str) or pid not in state["participants"]:
        raise _refuse("unknown_participant", participant=str(pid)[:20])
    return state["participants"][pid]


def _control(actor: Actor, participant: Mapping[str, Any]) -> None:
    if not actor.controls(participant):
        raise _refuse("not_allowed")


def _technique(action: Mapping[str, Any], field: str = "technique") -> Technique:
    key = action.get(field)
    technique = techniques().get(key) if isinstance(key, str) else None
    if technique is None:
        raise _refuse("unknown_technique")
    return technique


def _rolls(*records: RollRecord | None) -> list[dict[str, Any]]:
    return [record.to_dict() for record in records if record is not None]


# — attacks —————————————————————————————————————————————————————————————————

def _check_attack(attacker: dict, target: dict, technique: Technique, *, free: bool,
                  chain: str | None = None) -> None:
    if attacker["id"] == target["id"]:
        raise _refuse("target_self")
    if not targetable(target):
        raise _refuse("target_out", name=target["name"])
    if technique.key not in attacker["techniques"] and not technique.standard and not free:
        raise _refuse("not_known", name=attacker["name"], technique=technique.name)
    if attacker["kind"] == "hommes_de_main" and (technique.energie or technique.furie):
        raise _refuse("henchmen_no_points")
    problem = attack_problem(attacker, target, technique, free=free, chain=chain)
    if problem:
        raise _refuse(problem, name=attacker["name"], technique=technique.name,
                      weapon=technique.weapon, target=target["name"])


def _modifiers(action: Mapping[str, Any], technique: Technique,
               attacker: Mapping[str, Any]) -> list[list]:
    """Ranged modifiers (« Attaque à distance ») and the GM's situational bonus; Œil d'aigle
    ignores long range, Vision du ki darkness (house talents). « Certaines armes n'ayant
    qu'une seule valeur de portée, comme les shurikens, ne subissent pas ce modificateur »:
    only a weapon with its three ranges (bout portant / courte / longue) takes one."""
    found: list[list] = []
    if technique.type == "distance" or (technique.also_ranged and flag(action, "ranged")):
        distance = _choice(action, "range", RANGE_NAMES, "courte")
        ignored = not three_ranges(attacker, technique) or (
            distance == "longue" and has(attacker, "oeil_d_aigle"))
        if RANGE_MODIFIERS[distance] and not ignored:
            found.append([RANGE_MODIFIERS[distance], {"bout_portant": "bout portant",
                                                      "longue": "longue portée"}[distance]])
        for key, value in SITUATION_MODIFIERS.items():
            if key == "obscurite" and has(attacker, "vision_du_ki"):
                continue
            if flag(action, f"situation_{key}"):
                found.append([value, SITUATION_NAMES[key]])
    bonus = int_field(action, "gm_modifier", -10, 10, 0)
    if bonus:
        found.append([bonus, "MJ"])
    return found


def three_ranges(attacker: Mapping[str, Any], technique: Technique) -> bool:
    """The technique fires the weapon in hand, and that weapon has three ranges (a
    technique's own range — Capture du Kusarigama's 4 m, Lancer de projectile — is one)."""
    weapon = held_weapon(attacker)
    return technique.puissance.weapon and weapon is not None and len(
        weapon.get("ranges") or ()) >= 3


def _ammunition(attacker: dict, technique: Technique, ranged: bool, dice: Dice,
                changes: dict[str, Any]) -> dict[str, Any] | None:
    """« Munitions »: a shot or a throw uses one round of the weapon in hand; « Tir en
    rafale … L'arme perd 2D6 munitions » (a burst with fewer left fires what is left)."""
    key = attacker.get("weapon")
    left = rounds_left(attacker, key)
    if left is None or not fires(technique, ranged):
        return None
    if left < 1:
        raise _refuse("no_ammo", name=attacker["name"], weapon=attacker["arsenal"][key]["name"])
    used, record = 1, None
    if technique.key == "tir_en_rafale":
        record = notation.roll("2d6", dice, purpose=Purpose("ammunition (burst)"))
        used = min(left, record.total)
    changes["ammo"] = {**(attacker.get("ammo") or {}), key: left - used}
    return {"weapon": attacker["arsenal"][key]["name"], "used": used, "left": left - used,
            "rolls": _rolls(record), "rule": RULE_AMMO}


def _declare(state: State, attacker: dict, target: dict, technique: Technique,
             action: Mapping[str, Any], *, free: bool, chain: str | None = None,
             dice: Dice) -> list[Event]:
    modifiers = _modifiers(action, technique, attacker)
    chosen = action.get("location") if technique.location == "choix" else None
    attributes = list(technique.attributes)
    if technique.also_attack:  # « En attaque la technique gagne l'attribut : attaque surprise »
        attributes = [a for a in attributes if a != "contre_attaque"]
    if lethal_attack(attacker, technique):
        attributes.append("letale")  # « un pistolet ajoute l'attribut Létale »
    chain_info = techniques()[chain].chain if chain else None
    if chain_info:
        attributes += list(chain_info.attributes)
    if state.get("round") == 1 and attacker["id"] not in state.get("surprised", []) and (
            target["id"] in state.get("surprised", [])):
        attributes.append("attaque_surprise")
    cost: dict[str, int] = {}
    changes: dict[str, Any] = {}
    if not free:
        changes["actions_left"] = attacker["actions_left"] - 1
        cost = dict(technique.cost)
    elif chain:
        cost = dict(techniques()[chain].cost)
    boost = 0
    if flag(action, "boost") and not free:  # house talent Boost d'énergie: +1D10, 2 énergie
        if not has(attacker, "boost_d_energie"):
            raise _refuse("no_talent", name=attacker["name"], talent="Boost d'énergie")
        cost["energie"] = cost.get("energie", 0) + 2
        boost = 1
    if "torse" in attacker["wounds"] and cost.get("energie"):
        cost["energie"] *= 2  # « Le coût de ses techniques … s'en trouve donc doublé »
    if cost.get("energie") and "terrorise" in (attacker.get("states") or {}):
        raise _refuse("terrorised", name=attacker["name"], technique=technique.name)
    if cost.get("energie") and attacker["energie"] < cost["energie"]:
        raise _refuse("no_energie", technique=technique.name)
    if cost.get("energie"):
        changes["energie"] = max(0, attacker["energie"] - cost["energie"])
    if cost.get("furie"):
        changes["furie"] = max(0, attacker["furie"] - cost["furie"])
    pending = {"attacker": attacker["id"], "target": target["id"], "technique": technique.key,
               "attributes": sorted(set(attributes)), "modifiers": modifiers,
               "location": chosen, "free": free, "chain": chain,
               "prepared": attacker["prepared"], "boost": boost,
               "ranged": technique.type == "distance" or (technique.also_ranged and (
                   flag(action, "ranged") or chain == "enchainement_d_iga"))}
    if attacker["prepared"]:
        changes["prepared"] = 0
    if pending["ranged"] and target.get("states", {}).get("court") == state["round"] and not (
            flag(action, "situation_cible_court")):
        pending["modifiers"].append([-3, SITUATION_NAMES["cible_court"]])  # « Course »
    if pending["ranged"] and is_down(target) and not flag(action, "situation_cible_a_terre"):
        pending["modifiers"].append([-2, SITUATION_NAMES["cible_a_terre"]])  # « Cible à terre »
    ammo = _ammunition(attacker, technique, pending["ranged"], dice, changes)
    if attacker.get("hanging") and technique.key != "shuriken":
        # Gotonpo: « s'il tente une autre action, il la terminera en rejoignant le sol ».
        changes["hanging"] = False
    revived = _exhausted({attacker["id"]: changes}, state)
    payload = {
        "attacker": attacker["name"], "target": target["name"], "technique": technique.name,
        "cost": cost, "free": free, "chain": chain and techniques()[chain].name,
        "attributes": pending["attributes"], "rule": RULE_ATTACK,
        "changes": {attacker["id"]: changes}, "set": {"pending": pending, "combo": None}}
    if ammo:
        payload["ammo"] = ammo
        payload["rolls"] = ammo.pop("rolls")
    if changes.get("hanging") is False:
        payload["lands"] = True
    if revived:
        payload["sursaut"] = revived
    return [Event("attack_declared", payload)]


def _gm_modifier_only(action: Mapping[str, Any], actor: Actor) -> None:
    """Only the GM adds a situational modifier (« Si le MJ estime que l'un des deux
    personnages a un avantage, il peut donner des points de bonus »)."""
    if action.get("gm_modifier") not in (None, "", 0, "0") and not actor.is_gm:
        raise _refuse("gm_only")


def _attack(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice
            ) -> list[Event]:
    events = declare_attack(state, action, actor, dice)
    return events + _auto_defence(state, events, dice)


def declare_attack(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice
                   ) -> list[Event]:
    """The attack declared (its cost spent, nothing rolled but a burst's rounds), before
    its target answers."""
    _gm_modifier_only(action, actor)
    attacker = require_turn(state, actor)
    target = _participant(state, action, "target")
    technique = _technique(action)
    drawn = drawn_weapon(attacker, technique)
    if drawn:
        attacker = {**attacker, "weapon": drawn}
    _check_attack(attacker, target, technique, free=False)
    events = _declare(state, attacker, target, technique, action, free=False, dice=dice)
    if drawn:
        events[0].payload["changes"][attacker["id"]]["weapon"] = drawn
        events[0].payload["drawn"] = attacker["arsenal"][drawn]["name"]
    return events


def _combo(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice) -> list[Event]:
    events = declare_combo(state, action, actor, dice)
    return events + _auto_defence(state, events, dice)


def declare_combo(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice
                  ) -> list[Event]:
    """« Combo »: the next technique is free (no action, no cost); a chain's finisher costs
    the chain's price instead and carries its bonus (« Les enchaînements »). Declared, before
    its target answers."""
    _gm_modifier_only(action, actor)
    combo = state.get("combo")
    if not combo or state.get("pending"):
        raise _refuse("no_combo")
    attacker = state["participants"][combo["pid"]]
    _control(actor, attacker)
    index = int_field(action, "option", 0, len(combo["options"]) - 1, 0)
    option = combo["options"][index]
    technique = techniques()[option["technique"]]
    target = state["participants"][combo["target"]]
    chain = option.get("chain")
    chain_info = techniques()[chain].chain if chain else None
    events: list[Event] = []
    if chain_info and chain_info.stand_up and is_down(attacker):
        # Enchaînement de la Panthère: « Il se relève ensuite gratuitement » before its blow.
        events.append(Event("manoeuvred", {"name": attacker["name"], "what": "stand_up",
                                           "free": True, "rule": RULE_COMBO,
                                           "changes": {attacker["id"]: {"posture": "debout"}}}))
        attacker = {**attacker, "posture": "debout"}
    if chain == "heritage_d_hanzo_hattori" and held_weapon(attacker):
        # « son sabre doit être dans son fourreau »: Nukitsuke draws it in the same blow.
        raise _refuse("must_be_sheathed", name=attacker["name"])
    if chain:
        price = techniques()[chain].cost
        if price.get("furie", 0) > attacker["furie"]:
            raise _refuse("no_furie", technique=techniques()[chain].name)
        if techniques()[chain].no_furie and attacker["furie"]:
            raise _refuse("no_furie_allowed", technique=techniques()[chain].name)
    drawn = drawn_weapon(attacker, technique)
    if drawn:
        attacker = {**attacker, "weapon": drawn}
    _check_attack(attacker, target, technique, free=True, chain=chain)
    declared = _declare(folded(state, events), attacker, target, technique, action, free=True,
                        chain=chain, dice=dice)
    if drawn:
        declared[0].payload["changes"][attacker["id"]]["weapon"] = drawn
        declared[0].payload["drawn"] = attacker["arsenal"][drawn]["name"]
    return events + declared


def automatic_answer(after: State) -> tuple[str | None, Technique | None]:
    """How the pending attack is answered at once: ``"forced"`` when its target has nothing
    to choose (no action left, KO, held, no defence usable: its défense instinctive),
    ``"standing"`` for a standing defence legal and affordable against it (« toujours parer
    avec … »), with that defence (None: the défense instinctive); ``(None, None)``: the
    target is asked."""
    defender = after["participants"][after["pending"]["target"]]
    options = defence_options(after)
    if defender["actions_left"] <= 0 or defender.get("ko") or defender.get("held_by") or (
            not options):
        return "forced", None
    standing = defender.get("standing_defence")
    if standing == "instinctive":
        return "standing", None
    if standing in options:
        return "standing", techniques()[standing]
    return None, None


def _auto_defence(state: State, declared: list[Event], dice: Dice) -> list[Event]:
    """The attack answered at once when ``automatic_answer`` says so; else it waits."""
    after = folded(state, declared)
    how, defence = automatic_answer(after)
    if how is None:
        return []
    return _resolve(after, defence, dice, standing=how == "standing")


def _defend(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice
            ) -> list[Event]:
    defence, hang = chosen_defence(state, action, actor)
    return _resolve(state, defence, dice, hang=hang)


def chosen_defence(state: State, action: Mapping[str, Any], actor: Actor
                   ) -> tuple[Technique | None, bool]:
    """The defence the form chooses against the pending attack (None: the défense
    instinctive), checked, and Gotonpo's « suspendu »."""
    pending = state.get("pending")
    if not pending:
        raise _refuse("nothing_to_defend")
    defender = state["participants"][pending["target"]]
    _control(actor, defender)
    choice = action.get("technique") or "instinctive"
    if flag(action, "hang") and choice != "gotonpo":
        raise _refuse("hang_gotonpo")
    if choice == "instinctive":
        return None, False
    technique = _technique(action)
    if technique.key not in defender["techniques"] and not technique.standard:
        raise _refuse("not_known", name=defender["name"], technique=technique.name)
    problem = defence_problem(defender, technique, techniques()[pending["technique"]],
                              tuple(pending["attributes"]), bool(pending.get("free")),
                              pending.get("ranged"))
    if problem:
        raise _refuse(problem, name=defender["name"], technique=technique.name,
                      weapon=technique.weapon)
    return technique, flag(action, "hang")


def _effects(state: State, attacker: dict, target: dict, technique: Technique,
             attributes: list[str], damage_loss: int, location: str | None, dice: Dice,
             chain: str | None, rolls: list[RollRecord],
             durations: dict[str, int] | None = None) -> tuple[dict, dict, list[str]]:
    """« Attributs »: what a hit does to the target (and the attacker) besides damage."""
    round_number = state["round"]
    t: dict[str, Any] = {}
    a: dict[str, Any] = {}
    notes: list[str] = []
    states = dict(target.get("states") or {})
    special = technique.special.lower()
    chain_info = techniques()[chain].chain if chain else None
    if "a_terre" in attributes:
        t["posture"] = "a_terre"
        notes.append("a_terre")
    if "assommante" in attributes:
        until = round_number + 1
        shared = (target.get("temp_wounds") or {}).get(location or "")
        if shared and _lasting_wound(technique):
            until = shared  # Coup dans l'entrejambe: one 1D6 for both (house)
            if durations is not None:
                durations["sonne"] = shared - round_number
        elif "1d6 tours" in special or (chain_info and chain_info.stun_d6):
            record = notation.roll("1d6", dice, purpose=Purpose("stunned (turns)"))
            rolls.append(record)
            until = round_number + record.total
            if durations is not None:
                durations["sonne"] = record.total
        if chain_info and chain_info.stun_fight:
            until = FOREVER
        if "sonne" not in states:
            # « Assommante : … perd donc une action pendant le reste du tour et le suivant »:
            # one of the actions it has left this turn (kept to defend, or its turn to come).
            t["actions_left"] = max(0, target.get("actions_left", 0) - 1)
        states["sonne"] = max(states.get("sonne", 0), until)
        notes.append("sonne")
    for attribute, name in (("terrorisante", "terrorise"), ("epuisante", "epuise"),
                            ("aveuglante", "aveugle")):
        if attribute == "terrorisante" and attribute in attributes and has(target, "zen"):
            notes.append("zen")  # house talent: Zen is never terrorisé
            continue
        if attribute in attributes:
            states[name] = max(states.get(name, 0), round_number + 1)
            notes.append(name)
            if name == "terrorise":  # « provoquée par un autre personnage »: who to face
                t["terrorised_by"] = attacker["id"]
    if "desarmante" in attributes and target.get("weapon"):
        t["weapon"] = None
        notes.append("desarme")
    if "choc" in attributes:
        notes.append("choc")
    if "soumission" in attributes:
        t["held_by"] = attacker["id"]
        t["held_with"] = "kusarigama" if technique.key == "capture_du_kusarigama" else None
        t["hold"] = technique.key  # how it is escaped (``Technique.hold``)
        t["escape_tries"] = target["characteristics"]["force"]
        notes.append("soumission")
    if "impulsion" in attributes:
        a["impulsion"] = attacker.get("impulsion", 0) + 1
        notes.append("impulsion")
    if "mouvement" in attributes:
        notes.append("mouvement")
    extra_furie = 0
    if "point de furie supplémentaire" in special:
        extra_furie += 1
    if chain_info and chain_info.furie_d6:
        record = notation.roll("1d6", dice, purpose=Purpose("extra fury"))
        rolls.append(record)
        extra_furie += record.total
    if extra_furie and "terrorise" not in states and target["kind"] != "hommes_de_main":
        t["furie"] = min(target["furie_max"], target["furie"] + extra_furie)
    if technique.key == "braquage" and target.get("weapon"):
        # « L'arme se retrouve dans les mains du personnage. »
        key = target["weapon"]
        spec = (target.get("arsenal") or {}).get(key)
        if spec:
            a["arsenal"] = {**attacker.get("arsenal", {}), key: spec}
            a["weapons"] = list(dict.fromkeys([*attacker.get("weapons", []), key]))
            a["weapon"] = key
            t["weapons"] = [w for w in target.get("weapons", []) if w != key]
            left = rounds_left(target, key)
            if left is not None:  # the magazine goes with the weapon
                a["ammo"] = {**(attacker.get("ammo") or {}), key: left}
            notes.append("weapon_taken")
    if technique.ends == "down":  # Ma-Sutemi-Waza, Elbow drop: the attacker goes down too
        a["posture"] = "a_terre"
    if states != (target.get("states") or {}):
        t["states"] = states
    return t, a, notes


def state_malus(fighter: Mapping[str, Any], technique: Any) -> int:
    """The D10 a wound or a state takes from a technique's précision (« États »): a grave
    wound to the head, 1D10 « à toutes ses actions »; aveuglé, 1D10 on actions « impliquant
    l'Habileté, la Rapidité et la Perception » (Combat aveugle: none); épuisé, 1D10 « en
    Rapidité »."""
    char = technique.precision.char
    states = fighter.get("states") or {}
    return (("tete" in (fighter.get("wounds") or []))
            + ("aveugle" in states and not blind_fighter(fighter)
               and char in ("habilete", "rapidite", "perception"))
            + ("epuise" in states and char == "rapidite"))


@dataclass(frozen=True)
class Exchange:
    """What an attack and its answer throw before anything else: the attacker's précision
    pool, the defence's (None: a KO target, inert), an attack that cannot be stopped by this
    defence (« imparable », « inévitable ») and a surprise. ``_resolve`` rolls it; the odds
    (``app.rules.tiamat.odds``) work out the same pools exactly."""

    attack: Pool
    defence: Pool | None
    auto_fail: str | None
    surprise: bool
    helpers: int


def exchange(state: State, defence: Technique | None) -> Exchange:
    """The pools of the pending attack answered by ``defence`` (None: the défense
    instinctive) — « Résolution d'une attaque », « Attaque surprise », « Agir en équipe »."""
    pending = state["pending"]
    attacker = state["participants"][pending["attacker"]]
    defender = state["participants"][pending["target"]]
    technique = techniques()[pending["technique"]]
    attributes = pending["attributes"]
    chain = pending.get("chain")
    chain_info = techniques()[chain].chain if chain else None
    henchmen_attack = attacker["kind"] == "hommes_de_main"
    helpers = max(0, attacker["members"] - attacker["down"] - 1) if henchmen_attack else 0
    attack_d10 = pending["prepared"] + helpers + (chain_info.precision_d10 if chain_info else 0)
    attack_d10 += pending.get("boost", 0)
    attack_d10 -= state_malus(attacker, technique)
    # the pending attack (state) keeps the GM's bonus as "MJ": said in the reader's words
    labels = tuple(Modifier(value, Purpose("GM") if label == "MJ" else label)
                   for value, label in pending["modifiers"])
    attack = precision_pool(
        attacker, technique, extra_d10=attack_d10,
        extra_d6=(chain_info.precision_d6 if chain_info else 0) + attacker.get("next_d6", 0),
        modifiers=labels)
    surprise = "attaque_surprise" in attributes and "sixieme_sens" not in defender["talents"]
    auto_fail = None
    answer: Pool | None
    if defence is None and defender.get("ko"):
        # « KO … il est inerte et ne peut plus rien faire »: no défense instinctive.
        answer = None
    elif defence is None:
        d10 = 1 if surprise else defender["defense_instinctive"] + has(
            defender, "instinct_de_survie")  # house talent: +1D10
        drunk = (Modifier(-1, "ivre"),) if "ivre" in defender["states"] else ()
        answer = Pool(d10 - (1 if "tete" in defender["wounds"] else 0), labels=drunk)
    else:
        counter = "contre_attaque" in defence.attributes
        if defence.type == "parade" and "imparable" in attributes and not counter:
            auto_fail = "imparable"
        if defence.type == "esquive" and "inevitable" in attributes and not counter:
            auto_fail = "inevitable"
        extra = defender["prepared"] + (helpers_of(defender))
        if technique.key == "do_giri" and defence.type == "esquive":
            extra -= 1  # « un malus d'1D10 s'il tente une esquive contre un Do giri »
        extra -= state_malus(defender, defence)
        answer = precision_pool(defender, defence, extra_d10=extra,
                                extra_d6=defender.get("next_d6", 0), single_die=surprise)
    return Exchange(attack, answer, auto_fail, surprise, helpers)


def defence_changes(defender: Mapping[str, Any], defence: Technique) -> dict[str, Any]:
    """What answering with a defence technique spends: an action, its énergie (doubled by a
    torso wound) or furie, the preparation and Tai-sabaki's D6; Nukitsuke draws the sword
    in the same movement."""
    changes: dict[str, Any] = {"actions_left": defender["actions_left"] - 1}
    cost = dict(defence.cost)
    if "torse" in defender["wounds"] and cost.get("energie"):
        cost["energie"] *= 2
    if cost.get("energie"):
        changes["energie"] = max(0, defender["energie"] - cost["energie"])
    if cost.get("furie"):
        changes["furie"] = max(0, defender["furie"] - cost["furie"])
    if defender["prepared"]:
        changes["prepared"] = 0
    if defender.get("next_d6"):
        changes["next_d6"] = 0
    drawn = drawn_weapon(defender, defence)
    if drawn:
        changes["weapon"] = drawn
    return changes


def _resolve(state: State, defence: Technique | None, dice: Dice, *, hang: bool = False,
             standing: bool = False) -> list[Event]:
    """Précision against the defence (« strictement supérieur » hits), then location,
    puissance − (endurance + armure), furie, grave wounds, KO, death and the attributes."""
    pending = state["pending"]
    attacker = state["participants"][pending["attacker"]]
    defender = state["participants"][pending["target"]]
    technique = techniques()[pending["technique"]]
    attributes = list(pending["attributes"])
    chain = pending.get("chain")
    rolls: list[RollRecord] = []
    pools = exchange(state, defence)
    helpers, surprise, auto_fail = pools.helpers, pools.surprise, pools.auto_fail
    attack_roll = pools.attack.roll(dice, Purpose("accuracy — {technique}",
                                                  technique=technique.name))
    rolls.append(attack_roll)
    d_changes: dict[str, Any] = {}
    a_changes: dict[str, Any] = {"next_d6": 0} if attacker.get("next_d6") else {}
    if technique.user == "down" and technique.ends == "standing":
        # Panthère bondissante: « Que l'attaque soit un succès ou non, il termine l'action
        # debout ».
        a_changes["posture"] = "debout"
    if pools.defence is None:
        defence_roll = None
    elif defence is None:
        defence_roll = pools.defence.roll(dice, Purpose("instinctive defence"))
    else:
        d_changes = defence_changes(defender, defence)
        defence_roll = pools.defence.roll(dice, Purpose("defence — {technique}",
                                                        technique=defence.name))
    defence_total = defence_roll.total if defence_roll else 0
    if defence_roll:
        rolls.append(defence_roll)
    hit = auto_fail is not None or attack_roll.total > defence_total
    countered = (defence is not None and auto_fail is None and (
        "contre_attaque" in defence.attributes) and defence_total > attack_roll.total)
    payload: dict[str, Any] = {
        "attacker": attacker["name"], "target": defender["name"], "technique": technique.name,
        "defence": defence.name if defence else None, "attack_total": attack_roll.total,
        "defence_total": defence_total, "auto_fail": auto_fail, "hit": hit,
        "surprise": surprise, "helpers": helpers, "chain": chain and techniques()[chain].name,
        "rule": RULE_ATTACK}
    if standing:
        payload["standing"] = True
    if defence_roll is None:
        payload["inert"] = True
    changes: dict[str, dict[str, Any]] = {attacker["id"]: a_changes, defender["id"]: d_changes}
    combo: dict[str, Any] | None = None
    attacker_chain = list(attacker.get("chain") or [])
    defender_chain = list(defender.get("chain") or [])
    if countered:
        payload["countered"] = True
        striker = {**defender, **d_changes}  # a sword drawn by the counter strikes with it
        counter = counter_attributes(striker, defence)
        _strike(state, striker, attacker, defence, counter, dice, rolls,
                payload, changes, pending_location=None, prefix="counter_")
        if defence.ends == "standing":
            changes[defender["id"]]["posture"] = "debout"
        attacker_chain = []
        defender_chain.append(defence.key)
        combo = _combo_offer(defender, attacker, defender_chain, defence)
    elif hit:
        _strike(state, attacker, defender, technique, attributes, dice, rolls, payload,
                changes, pending_location=pending.get("location"), prefix="",
                chain=chain)
        if technique.ends == "standing":  # Nukitsuke: « termine son action debout »
            changes[attacker["id"]]["posture"] = "debout"
        attacker_chain = [] if chain else [*attacker_chain, technique.key]
        if not chain:
            combo = _combo_offer(attacker, defender, attacker_chain, technique)
    else:
        attacker_chain = []
        if (defence is not None and defence.type == "parade" and "letale" in attributes
                and defence.key not in ARMED_PARADES):
            _lethal_parry(state, attacker, defender, technique, defence, dice, rolls,
                          payload, changes)
        if defence is not None:
            defender_chain.append(defence.key)
            combo = _combo_offer(defender, attacker, defender_chain, defence)
            if defence.key == "gotonpo":
                # « le personnage se téléporte à Volonté x 4 mètres. Il ne s'agit pas d'un
                # mouvement … peut se retrouver suspendu d'une main à un élément du décor ».
                payload["teleport"] = {"metres": defender["characteristics"]["volonte"] * 4,
                                       "hanging": hang, "rule": RULE_GOTONPO}
                changes[defender["id"]]["hanging"] = hang
            if defence.key == "metsubushi":
                states = dict(attacker.get("states") or {})
                states["aveugle"] = state["round"] + 1
                changes[attacker["id"]]["states"] = states
            if defence.key == "makibishi":
                changes[attacker["id"]]["actions_left"] = max(
                    0, changes[attacker["id"]].get("actions_left", attacker["actions_left"])
                    - 1)
            if defence.key == "tai_sabaki":  # « 1D6 de bonus à son prochain jet »
                changes[defender["id"]]["next_d6"] = defender.get("next_d6", 0) + 1
            if "impulsion" in defence.attributes:
                changes[defender["id"]]["impulsion"] = defender.get("impulsion", 0) + 1
    if defence is not None and defence.key == "plongeon":
        changes[defender["id"]]["posture"] = "a_terre"
    if defence is not None and defence.key == "roulade" and changes[defender["id"]].get(
            "posture") == "a_terre":
        changes[defender["id"]]["posture"] = defender["posture"]  # « ne peut être mis à terre »
    if defence is not None and defender.get("hanging") and "hanging" not in changes[
            defender["id"]]:
        changes[defender["id"]]["hanging"] = False  # any other action ends on the ground
        payload["lands"] = defender["name"]
    changes[attacker["id"]]["chain"] = attacker_chain
    changes[defender["id"]]["chain"] = defender_chain
    fell = []
    for pid, fields in changes.items():  # « tant qu'il ne possède pas de point de furie »
        merged = {**state["participants"][pid], **fields}
        if merged.get("hanging") and (merged["furie"] > 0 or merged.get("ko")):
            fields["hanging"] = False
            fell.append(merged["name"])
    if fell:
        payload["fell"] = fell
    turn = state.get("turn")
    if combo and not active({**state["participants"][combo["target"]],
                             **changes.get(combo["target"], {})}):
        combo = None  # no follow-up against a fighter the blow put out of the fight
    following: dict[str, Any] = {"pending": None, "combo": combo}
    turn_p = state["participants"].get(turn) if turn else None
    if countered and defence.key == "ma_sutemi_waza" and turn == attacker["id"]:
        # « Le tour de jeu de l'adversaire prend fin immédiatement » (its actions left stay
        # for defending).
        following["turn"] = next_turn(state, turn)
    elif turn_p is not None:
        merged = {**turn_p, **changes.get(turn, {})}
        if (merged.get("ko") or merged.get("dead") or (
                merged["kind"] == "hommes_de_main" and merged["down"] >= merged["members"])):
            following["turn"] = next_turn(state, turn)
    revived = _exhausted(changes, state)
    if revived:
        payload["sursaut"] = revived
    payload.update(rolls=_rolls(*rolls), changes={k: v for k, v in changes.items() if v},
                   set=following, combo=[o["technique"] for o in (combo or {}).get(
                       "options", [])])
    return [Event("attack_resolved", payload)]


def counter_attributes(striker: Mapping[str, Any], defence: Technique) -> list[str]:
    """A counter-attack's attributes: the defence's own (« En défense … contre-attaque »:
    not its surprise), and Létale by its weapon."""
    counter = [a for a in defence.attributes if not (
        defence.also_attack and a == "attaque_surprise")]
    if lethal_attack(striker, defence):
        counter.append("letale")
    return counter


def _lethal_parry(state: State, attacker: dict, defender: dict, technique: Technique,
                  defence: Technique, dice: Dice, rolls: list[RollRecord], payload: dict,
                  changes: dict) -> None:
    """« Dommages létaux »: a lethal blow parried bare-handed still rolls its damage; the
    defender opposes (Puissance de la parade + armure) and loses the margin of failure."""
    attack = damage_pool(attacker, technique, dice=dice,
                         purpose=Purpose("power — {technique}", technique=technique.name))
    parry = damage_pool(defender, defence, dice=dice,
                        purpose=Purpose("power — {technique}", technique=defence.name))
    if attack is None:
        return
    rolls += [record for record in (attack, parry) if record is not None]
    merged = {**defender, **changes.get(defender["id"], {})}
    resisted, loss, dead = parry_damage(defender, merged, attack.total,
                                        parry.total if parry else 0)
    payload["lethal_parry"] = {"attack": attack.total, "parry": resisted, "loss": loss,
                               "rule": RULE_LETHAL}
    if loss <= 0 or defender["kind"] == "hommes_de_main":
        return
    t = changes.setdefault(defender["id"], {})
    t["sante"] = merged["sante"] - loss
    if "terrorise" not in merged.get("states", {}):
        t["furie"] = min(defender["furie_max"], merged["furie"] + 1)
    if dead:
        t.update(ko=True, dead=True, posture="a_terre", actions_left=0)
        payload["lethal_parry"]["dead"] = True


def parry_damage(defender: Mapping[str, Any], merged: Mapping[str, Any], attack: int,
                 parry: int) -> tuple[int, int, bool]:
    """« Dommages létaux » parried bare-handed: (Puissance de la parade + armure, santé lost,
    death). A group of henchmen loses nothing this way."""
    resisted = parry + int(defender.get("armour", 0))
    loss = min(max(0, attack - resisted), merged["sante"])
    dead = loss > 0 and defender["kind"] != "hommes_de_main" and merged["sante"] - loss <= 0
    return resisted, loss, dead


def _exhausted(changes: dict[str, dict[str, Any]], state: State) -> list[str]:
    """« Lorsqu'elle tombe à zéro, le personnage est épuisé » (until the end of the fight).
    Returns who used Sursaut d'énergie instead."""
    revived: list[str] = []
    for pid, fields in changes.items():
        before = state["participants"][pid]
        if fields.get("energie") == 0 and before["energie"] > 0 and before["energie_max"]:
            if once_left({**before, **fields}, "sursaut_d_energie"):
                # house talent Sursaut d'énergie: once a fight, Volonté énergie comes back.
                fields["energie"] = min(before["energie_max"],
                                        before["characteristics"]["volonte"])
                fields["talent_used"] = [*(before.get("talent_used") or []),
                                         "sursaut_d_energie"]
                revived.append(before["name"])
                continue
            states = dict(fields.get("states") or before.get("states") or {})
            states["epuise"] = FOREVER
            fields["states"] = states
    return revived


def helpers_of(participant: Mapping[str, Any]) -> int:
    """« Chaque homme de mains en plus du premier ajoute un 1D10 de bonus »."""
    if participant["kind"] != "hommes_de_main":
        return 0
    return max(0, participant["members"] - participant["down"] - 1)


def _strike(state: State, attacker: dict, target: dict, technique: Technique,
            attributes: list[str], dice: Dice, rolls: list[RollRecord], payload: dict,
            changes: dict, *, pending_location: str | None, prefix: str,
            chain: str | None = None) -> None:
    """A blow that went through: location, puissance, damage and the attributes."""
    tech = technique
    location, loc_roll = strike_location(dice, target, tech, chain, pending_location)
    if loc_roll:
        rolls.append(loc_roll)
    expression, rage = strike_power(attacker, tech, chain, location)
    if rage:
        payload[prefix + "rage"] = True
    record = None if expression is None else notation.roll(
        expression, dice, purpose=Purpose("power — {technique}", technique=tech.name))
    if record:
        rolls.append(record)
    t = dict(changes.get(target["id"]) or {})
    hurt, damage = strike_damage(target, {**target, **t}, record, location, tech, attributes)
    payload[prefix + "damage"] = hurt
    if damage is None:
        if hurt["henchman_out"]:
            t["down"] = target["down"] + 1
    else:
        if hurt.get("tenacite"):
            t["talent_used"] = [*(target.get("talent_used") or []), "tenacite"]
        t["sante"] = target["sante"] - damage.loss
        if damage.furie_gained:
            t["furie"] = min(target["furie_max"], target["furie"] + damage.furie_gained)
        temporary = damage.grave and location and _lasting_wound(tech) and (
            damage.loss < GRAVE) and location not in target["wounds"]
        if damage.grave and location and temporary:
            # « l'équivalent d'une blessure grave dont les effets durent 1D6 tours »
            lasting = notation.roll("1d6", dice, purpose=Purpose("grave wound (turns)"))
            rolls.append(lasting)
            t["temp_wounds"] = {**(target.get("temp_wounds") or {}),
                                location: state["round"] + lasting.total}
            payload[prefix + "damage"]["wound_rounds"] = lasting.total
        elif damage.grave and location and location in (target.get("temp_wounds") or {}):
            t["temp_wounds"] = {w: u for w, u in target["temp_wounds"].items()
                                if w != location}  # a real grave wound there now
        if damage.grave and location:
            t["wounds"] = sorted(set(target["wounds"]) | {location})
            if location == "torse":
                lost = notation.roll("1d6", dice, purpose=Purpose("energy lost (torso wound)"))
                rolls.append(lost)
                t["energie"] = max(0, target["energie"] - lost.total)
                payload[prefix + "damage"]["energie_lost"] = lost.total
            if location.startswith("jambe"):
                t["posture"] = "a_terre"
        if damage.ko:
            t.update(ko=True, posture="a_terre", held_by=None, actions_left=0)
        if damage.dead:
            t.update(dead=True, ko=True, actions_left=0)
        if target.get("held_by") is None and target["id"] in [
                p.get("held_by") for p in state["participants"].values()] and damage.loss:
            for other in state["participants"].values():  # a hurt holder lets go
                if other.get("held_by") == target["id"] and other["id"] != attacker["id"]:
                    changes.setdefault(other["id"], {})["held_by"] = None
    durations: dict[str, int] = {}
    eff_t, eff_a, notes = _effects(state, attacker, {**target, **t}, tech, attributes,
                                   0, location, dice, chain, rolls, durations)
    if durations:
        payload[prefix + "durations"] = durations
    t.update(eff_t)
    changes[target["id"]] = t
    changes[attacker["id"]] = {**changes.get(attacker["id"], {}), **eff_a}
    payload[prefix + "effects"] = notes


def strike_location(dice: Dice, target: Mapping[str, Any], technique: Technique,
                    chain: str | None, chosen: str | None) -> tuple[str, RollRecord | None]:
    """Where a blow that went through lands (« Localisation »): a chain's own location, or
    the technique's table (a 1D10), or the location chosen."""
    chain_info = techniques()[chain].chain if chain else None
    if chain_info and chain_info.location:
        return ("torse" if chain_info.location == "haut" else chain_info.location), None
    return roll_location(dice, technique, target["posture"] == "a_terre", chosen)


def strike_power(attacker: Mapping[str, Any], technique: Technique, chain: str | None,
                 location: str) -> tuple[str | None, bool]:
    """The puissance the blow rolls there (« Dommages »: a chain's bonus D6, Tsuki's D6 to
    the head, the house talent Rage du taureau), and whether the rage added its D6."""
    chain_info = techniques()[chain].chain if chain else None
    extra_d6 = chain_info.puissance_d6 if chain_info else 0
    if technique.key == "tsuki" and location == "tete":
        extra_d6 += 1  # « Ajoute 1D6 à la puissance de l'arme si l'attaque touche la tête »
    rage = bool(has(attacker, "rage_du_taureau") and attacker["furie_max"]
                and not technique.puissance.none
                and attacker["furie"] * 2 >= attacker["furie_max"])
    if rage:
        extra_d6 += 1  # house talent: Rage du taureau
    return damage_expression(attacker, technique, extra_d6=extra_d6), rage


def strike_damage(target: Mapping[str, Any], merged: Mapping[str, Any],
                  record: RollRecord | None, location: str, technique: Technique,
                  attributes: Sequence[str]) -> tuple[dict[str, Any], Damage | None]:
    """What the puissance does (« Dommages », « Hommes de main », « KO »): the log's
    damage record, and the ``Damage`` (None for a group of henchmen, where any loss — or a
    surprise — puts one out). Ténacité (house talent) leaves 1 santé once a fight."""
    if target["kind"] == "hommes_de_main":
        endurance = target["characteristics"]["endurance"]
        armour = 0 if "fracassante" in attributes else target["armour"]
        loss = max(0, (record.total if record else 0) - endurance - armour)
        out = loss >= 1 or "attaque_surprise" in attributes
        return {"roll": record and record.total, "endurance": endurance, "armour": armour,
                "loss": loss, "location": location, "henchman_out": out,
                "dead": out and "letale" in attributes}, None
    damage = apply_damage(merged, record, location, tuple(attributes))
    if "blessure" in attributes and "équivalent d'une blessure grave" in technique.special:
        damage.grave = True
    hurt = {"roll": record and record.total, "endurance": damage.endurance,
            "armour": damage.armour, "loss": damage.loss, "location": location,
            "grave": damage.grave, "ko": damage.ko, "dead": damage.dead,
            "sante_before": target["sante"], "sante": target["sante"] - damage.loss}
    if damage.ko and once_left(target, "tenacite"):
        # house talent Ténacité: once a fight, the blow leaves 1 santé.
        damage.loss = max(0, target["sante"] - 1)
        damage.ko = damage.dead = False
        hurt.update(loss=damage.loss, sante=1, ko=False, dead=False, tenacite=True)
    return hurt, damage


def _lasting_wound(technique: Technique) -> bool:
    """Nukite (« l'équivalent d'une blessure grave dont les effets durent 1D6 tours ») and
    Coup dans l'entrejambe (« subit les effets d'une blessure grave aux jambes pendant 1D6
    tours »): a grave wound that ends by itself."""
    special = technique.special.lower()
    return "blessure grave" in special and "1d6 tours" in special


def _combo_offer(fighter: Mapping[str, Any], target: Mapping[str, Any], progress: list[str],
                 technique: Technique) -> dict[str, Any] | None:
    """After a success: the technique's own combo, and any chain whose steps were just
    completed in order (« Pour réussir un enchaînement … toutes toucher … dans le bon
    ordre »)."""
    options: list[dict[str, Any]] = []
    if technique.combo and technique.type != "enchainement":
        options += [{"technique": key, "chain": None} for key in technique.combo]
    for key in fighter.get("techniques") or []:
        chain = techniques()[key].chain
        if chain and len(progress) >= len(chain.steps) and tuple(
                progress[-len(chain.steps):]) == chain.steps:
            options += [{"technique": finisher, "chain": key} for finisher in chain.finisher]
    if not options or fighter["kind"] == "hommes_de_main":
        return None
    return {"pid": fighter["id"], "target": target["id"], "options": options}


# — moving, preparing, posture, weapons ————————————————————————————————————————

MANOEUVRES = ("move", "run", "stand_up", "go_down", "kneel", "prepare", "draw", "reload",
              "flee")


def _not_held(me: Mapping[str, Any]) -> None:
    """« Soumission : l'adversaire ne peut plus rien faire … mis à part tenter … de se
    libérer »: every other action of a held fighter is refused, whatever the path."""
    if me.get("held_by"):
        raise _refuse("held", name=me["name"])


def _run_test(me: Mapping[str, Any], terrain: str, dice: Dice) -> tuple[dict, bool]:
    """« Sur certains terrains, le personnage doit faire un test d'Habileté pour ne pas
    tomber. S'il échoue à ce test, il se retrouve en position « A terre » »: Habileté +
    Course (« Courir en évitant des obstacles »), Course du jaguar +1D10 (house)."""
    difficulty = TERRAINS[terrain]
    jaguar = "course_du_jaguar" in me["talents"]
    malus = ("tete" in me["wounds"]) + ("aveugle" in me["states"] and not blind_fighter(me))
    test = simple_test(dice, me["characteristics"]["habilete"] - malus + jaguar, difficulty,
                       skill=int(me["skills"].get("course", 0)) - ("ivre" in me["states"]),
                       skill_name="Course", purpose=Purpose("running — {name}", name=me["name"]))
    return {"terrain": terrain, "difficulty": difficulty, "total": test.record.total,
            "success": test.success, "jaguar": jaguar, "rolls": _rolls(test.record)}, \
        test.success


def _manoeuvre(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice
               ) -> list[Event]:
    me = require_turn(state, actor)
    what = _choice(action, "what", MANOEUVRES)
    _not_held(me)
    if me["actions_left"] < 1:
        raise _refuse("no_action_left", name=me["name"])
    changes: dict[str, Any] = {"actions_left": me["actions_left"] - 1}
    info: dict[str, Any] = {"name": me["name"], "what": what, "rule": RULE_MOVES}
    if me.get("hanging"):
        changes["hanging"] = False  # Gotonpo: any other action ends on the ground
        info["lands"] = True
    if what == "flee":
        # « Le troisième prend la fuite »: the fighter (a group: those still standing)
        # leaves the fight, out of it for good; a fighter on the ground stands up first.
        if is_down(me):
            raise _refuse("attacker_down", name=me["name"])
        changes.update(fled=True, actions_left=0)
        info["rule"] = RULE_FLEE
    elif what == "move":
        if is_down(me):
            raise _refuse("attacker_down", name=me["name"])
        info["metres"] = me["move"]
        if me.get("free_move"):
            # « Les hommes de mains ont tous droit à une action de mouvement gratuite »
            changes.update(actions_left=me["actions_left"], free_move=False)
            info.update(free=True, rule=RULE_BTA)
    elif what == "run":
        if is_down(me):
            raise _refuse("attacker_down", name=me["name"])
        if any(w.startswith("jambe") for w in me["wounds"]):
            raise _refuse("cannot_run", name=me["name"])  # « Le personnage ne peut plus courir »
        if me["actions_left"] < me["actions"]:
            raise _refuse("run_full_turn")
        terrain = _choice(action, "terrain", TERRAIN_NAMES, "plat")
        changes["actions_left"] = 0
        states = dict(me["states"])
        states["court"] = state["round"]
        changes["states"] = states
        info["metres"] = me["run"]
        if TERRAINS[terrain]:
            info["test"], kept = _run_test(me, terrain, dice)
            info["rolls"] = info["test"].pop("rolls")
            info["rule"] = RULE_RUN
            if not kept:
                changes["posture"] = "a_terre"
    elif what == "stand_up":
        changes["posture"] = "debout"
        info["rule"] = RULE_POSTURE
        if "vivacite_du_chat" in me["talents"]:  # house: « en parfait équilibre »
            changes["actions_left"] = me["actions_left"]
            info["talent"] = "vivacite_du_chat"
    elif what in ("go_down", "kneel"):
        changes["posture"] = "a_terre" if what == "go_down" else "a_genoux"
        info["rule"] = RULE_POSTURE
    elif what == "prepare":
        bonus = 2 if "concentration" in me["talents"] else 1  # house: Concentration
        changes["prepared"] = me["prepared"] + bonus
        info["bonus"] = bonus
        info["rule"] = RULE_PREPARE
    elif what == "reload":
        key = me.get("weapon")
        spec = (me.get("arsenal") or {}).get(key or "")
        if not spec or not spec.get("ammo") or not spec.get("reload"):
            raise _refuse("cannot_reload", name=me["name"])
        left = rounds_left(me, key)
        if left == spec["ammo"]:
            raise _refuse("already_loaded", name=me["name"], weapon=spec["name"])
        changes["ammo"] = {**(me.get("ammo") or {}), key: spec["ammo"]}
        info.update(weapon=spec["name"], before=left, after=spec["ammo"], rule=RULE_AMMO)
    else:
        weapon = action.get("weapon") or None
        wieldable = [key for key in me["weapons"]
                     if me["arsenal"].get(key, {}).get("kind") != "artifice"]
        if weapon is not None and weapon not in wieldable:  # a ninja's device is not held
            raise _refuse("bad_field", field="weapon", choices=[
                me["arsenal"].get(key, {}).get("name", key) for key in wieldable])
        changes["weapon"] = weapon
        info["weapon"] = me["arsenal"][weapon]["name"] if weapon else None
        info["rule"] = "Tiamat § Combat « versus » / Actions de combat possibles"
    return [Event("manoeuvred", {**info, "changes": {me["id"]: changes},
                                 "set": {"combo": None}})]


# — holds, finishing off, tests ———————————————————————————————————————————————————

def _escape(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice
            ) -> list[Event]:
    """« Soumission »: a try is an action, an opposed test (the initiator loses ties): Force
    / Force, one try a turn, as many tries as the victim's Force, then KO — or what the hold
    says instead (Prise de l'ours: Endurance / Endurance, 1 énergie a try; Portes de
    l'enfer: 1 santé a try, sonné when released; Prise du sommeil: épuisé when released)."""
    me = require_turn(state, actor)
    holder_id = me.get("held_by")
    if not holder_id:
        raise _refuse("not_held", name=me["name"])
    if me["actions_left"] <= 0:  # a try is an action (Règles de combat § Soumission)
        raise _refuse("no_action_left", name=me["name"])
    holder = state["participants"][holder_id]
    hold = hold_of(me)
    # « … ou en utilisant la technique de Krav-maga « Dégagement » »: its précision (Force
    # + 2D6) instead, for its 3 énergie; it is not one of the tries (house: a failed
    # Dégagement brings no KO nearer).
    technique = techniques()["degagement"] if flag(action, "degagement") else None
    energie = degagement_cost(me) if technique else 0
    if technique and technique.key not in me["techniques"]:
        raise _refuse("not_known", name=me["name"], technique=technique.name)
    if technique and "terrorise" in me["states"]:
        raise _refuse("terrorised", name=me["name"], technique=technique.name)
    if technique and me["energie"] < energie:
        raise _refuse("no_energie", name=me["name"], technique=technique.name)
    char = "force" if technique else hold.test
    mine = pool(dice, me["characteristics"][char], d6=technique.precision.d6 if technique
                else 0, purpose=Purpose("breaking free ({char})", char=CHAR_NAMES[char]))
    theirs = pool(dice, holder["characteristics"][char],
                  purpose=Purpose("holding on ({char})", char=CHAR_NAMES[char]))
    free = mine.total > theirs.total
    tries = me["escape_tries"] - (0 if technique else 1)
    spent = me["actions_left"] - 1 if free or not hold.per_turn else 0
    changes: dict[str, Any] = {"actions_left": spent, "escape_tries": tries}
    if technique:
        changes["energie"] = me["energie"] - energie
    paid = _try_cost(me, hold, changes)
    dead = changes.get("dead", False)
    if free:
        changes.update(held_by=None, **_released(state, me, hold))
    elif tries <= 0 and not changes.get("ko"):
        changes.update(ko=True, held_by=None, posture="a_terre", actions_left=0)
    payload = {"name": me["name"], "holder": holder["name"],
               "technique": technique.name if technique else None,
               "characteristic": CHAR_NAMES[char], "free": free, "tries_left": tries,
               "ko": bool(changes.get("ko")), "dead": dead, "paid": paid,
               "released": hold.released if free else None,
               "rolls": _rolls(mine, theirs), "rule": RULE_SUBMISSION,
               "changes": {me["id"]: changes}}
    revived = _exhausted({me["id"]: changes}, state)
    if revived:
        payload["sursaut"] = revived
    return [Event("escape_tried", payload)]


def _try_cost(me: Mapping[str, Any], hold: Hold, changes: dict[str, Any]) -> dict[str, int]:
    """What a try costs the victim: « Il perd 1 point d'énergie à chaque tentative » (Prise
    de l'ours), « Il perd 1 point de santé à chaque tentative » (Portes de l'enfer, a lethal
    hold: at 0 santé the victim dies, « Dommages létaux »)."""
    if hold.try_cost == "energie":
        changes["energie"] = max(0, changes.get("energie", me["energie"]) - 1)
        return {"energie": 1}
    if hold.try_cost == "sante":
        changes["sante"] = max(0, me["sante"] - 1)
        if changes["sante"] == 0:
            changes.update(ko=True, dead=True, held_by=None, posture="a_terre",
                           actions_left=0)
        return {"sante": 1}
    return {}


def _released(state: State, me: Mapping[str, Any], hold: Hold) -> dict[str, Any]:
    """What a hold leaves when it lets go: « Lorsqu'il se libère, l'adversaire est sonné
    jusqu'à la fin de son prochain tour » (Portes de l'enfer); « Une fois libéré,
    l'adversaire est épuisé comme s'il n'avait plus de point d'énergie » (Prise du sommeil:
    until the fight ends, « épuisé »)."""
    if hold.released == "sonne":
        return {"states": {**me["states"], "sonne": state["round"] + 1}}
    if hold.released == "epuise":
        return {"states": {**me["states"], "epuise": FOREVER}}
    return {}


def _overcome_fear(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice
                   ) -> list[Event]:
    """« Terrorisé … Dans le cas où la terreur est provoquée par un autre personnage ou un
    animal, le personnage peut faire un test d'opposition (Volonté/Tempérament) à chaque tour
    pour vaincre sa peur mais cela compte comme une action »: on its turn, once a round,
    Volonté against the Tempérament of who terrorised it (the initiator loses ties); ivre,
    −1 and +1D6 (« pour résister à l'état Terrorisé »); a success ends the state."""
    me = require_turn(state, actor)
    _not_held(me)
    source = state["participants"].get(me.get("terrorised_by") or "")
    if "terrorise" not in me["states"] or source is None:
        raise _refuse("not_terrorised", name=me["name"])
    if me.get("fear_tried") == state["round"]:
        raise _refuse("fear_once", name=me["name"])
    if me["actions_left"] < 1:
        raise _refuse("no_action_left", name=me["name"])
    drunk = "ivre" in me["states"]
    mine = pool(dice, me["characteristics"]["volonte"], d6=int(drunk),
                labels=(Modifier(-1, "ivre"),) if drunk else (),
                purpose=Purpose("overcoming fear — {name}", name=me["name"]))
    theirs = pool(dice, source["characteristics"]["temperament"],
                  purpose=Purpose("frightening — {name}", name=source["name"]))
    won = opposed(mine, theirs)
    changes: dict[str, Any] = {"actions_left": me["actions_left"] - 1,
                               "fear_tried": state["round"]}
    if won:
        changes["states"] = {k: v for k, v in me["states"].items() if k != "terrorise"}
    return [Event("fear_fought", {
        "name": me["name"], "source": source["name"], "total": mine.total,
        "against": theirs.total, "won": won, "rolls": _rolls(mine, theirs),
        "rule": "Tiamat § États / Terrorisé", "changes": {me["id"]: changes},
        "set": {"combo": None}})]


def _kusarigama_throw(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice
                     ) -> list[Event]:
    """Capture du Kusarigama: « Il peut aussi faire un jet d'opposition Force/Force pour
    projeter son adversaire à terre » — one action (house), the thrower initiates and loses
    ties (« Jet d'opposition »); the chain still holds the target."""
    me = require_turn(state, actor)
    _not_held(me)
    target = _participant(state, action, "target")
    if target.get("held_by") != me["id"] or target.get("held_with") != "kusarigama":
        raise _refuse("not_chained", name=target["name"])
    if me["actions_left"] < 1:
        raise _refuse("no_action_left", name=me["name"])
    mine = pool(dice, me["characteristics"]["force"],
                purpose=Purpose("throwing (Force) — {name}", name=me["name"]))
    theirs = pool(dice, target["characteristics"]["force"],
                  purpose=Purpose("resisting (Force) — {name}", name=target["name"]))
    thrown = opposed(mine, theirs)
    changes: dict[str, dict[str, Any]] = {me["id"]: {"actions_left": me["actions_left"] - 1}}
    if thrown:
        changes[target["id"]] = {"posture": "a_terre"}
    if me.get("hanging"):
        changes[me["id"]]["hanging"] = False
    return [Event("kusarigama_thrown", {
        "name": me["name"], "target": target["name"], "thrown": thrown,
        "total": mine.total, "against": theirs.total, "rolls": _rolls(mine, theirs),
        "rule": RULE_KUSARIGAMA, "changes": changes, "set": {"combo": None}})]


def _coup_de_grace(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice
                   ) -> list[Event]:
    """« Mise à mort »: the whole turn spent on a KO enemy kills it. Once the fight is
    decided there are no turns: a winner still standing finishes off a beaten enemy."""
    target = _participant(state, action, "target")
    if not target.get("ko") or target.get("dead"):
        raise _refuse("not_ko", name=target["name"])
    if decided(state):
        me = _finisher(state, action, actor, target)
        changes: dict[str, dict[str, Any]] = {target["id"]: {"dead": True}}
    else:
        me = require_turn(state, actor)
        _not_held(me)
        if me["actions_left"] < me["actions"]:
            raise _refuse("full_turn")
        changes = {me["id"]: {"actions_left": 0}, target["id"]: {"dead": True}}
    return [Event("finished_off", {"name": me["name"], "target": target["name"],
                                   "rule": RULE_KILL, "changes": changes})]


def _finisher(state: State, action: Mapping[str, Any], actor: Actor,
              target: Mapping[str, Any]) -> dict[str, Any]:
    """Who finishes off ``target`` after the fight: the fighter named (``participant``),
    else the first one the actor plays that still stands on another side."""
    able = finishers(state, actor, target)
    chosen = action.get("participant") or (able[0] if able else None)
    if chosen not in able:
        raise _refuse("not_allowed")
    return state["participants"][chosen]


def _test(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice) -> list[Event]:
    """« Jet de dés simple »: Caractéristique x D10 + Compétence against a difficulty, with
    bonus dice. « Agir en équipe »: the fighters of the match who help (``helper_<id>``) —
    « Le jet de dé sera effectué par celui dont la caractéristique nécessaire est la plus
    élevée. Tous les personnages ayant une compétence utilisable … l'ajoute en bonus. Chaque
    personnage en plus du premier ajoute un D10 »; helpers from outside the fight
    (``helpers``) add their D10 only. In a round a test is an action of each member
    (``_test_costs``)."""
    who = _participant(state, action, "participant")
    _control(actor, who)
    characteristic = _choice(action, "characteristic", CHAR_NAMES)
    skill = action.get("skill") or ""
    if skill and skill not in SKILL_NAMES:
        raise _refuse("bad_field", field="skill")
    difficulty = _choice(action, "difficulty", DIFFICULTY_NAMES, "difficile")
    team = [who, *_team(state, action, actor, who)]
    outside = int_field(action, "helpers", 0, 10, 0)
    bonus = int_field(action, "bonus_dice", -5, 5, 0)
    changes = _test_costs(state, team, actor)
    # the highest characteristic rolls (the one asking, on a tie)
    roller = max(team, key=lambda m: (m["characteristics"][characteristic], m is who))
    level = sum(int(m["skills"].get(skill, 0)) for m in team) if skill else 0
    malus = ("tete" in roller["wounds"]) + ("aveugle" in roller["states"] and characteristic in (
        "habilete", "rapidite", "perception")) + ("epuise" in roller["states"] and (
            characteristic == "rapidite"))
    level -= "ivre" in roller["states"]  # « un malus d'un point dans toutes ses actions »
    gifts = test_dice(roller, characteristic, skill or None)  # house talents: +1D10 each
    helpers = len(team) - 1 + outside
    test = simple_test(dice, roller["characteristics"][characteristic] - malus + len(gifts),
                       DIFFICULTIES[difficulty], skill=level,
                       skill_name=SKILL_NAMES.get(skill), extra_d10=bonus, helpers=helpers,
                       purpose=Purpose("test — {name}", name=roller["name"]))
    payload: dict[str, Any] = {
        "name": who["name"], "characteristic": CHAR_NAMES[characteristic],
        "skill": SKILL_NAMES.get(skill), "level": level,
        "difficulty": DIFFICULTIES[difficulty], "helpers": helpers,
        "total": test.record.total, "success": test.success, "margin": test.margin,
        "rolls": _rolls(test.record), "talents": gifts,
        "rule": "Tiamat § Tests et Actions / Jet de dés simple"}
    if len(team) > 1:
        payload.update(team=[m["name"] for m in team[1:]], roller=roller["name"],
                       rule="Tiamat § Tests et Actions / Agir en équipe")
    if changes:
        payload.update(changes=changes, action=True)
    return [Event("tested", payload)]


def _team(state: State, action: Mapping[str, Any], actor: Actor, who: Mapping[str, Any]
          ) -> list[dict[str, Any]]:
    """The fighters of the match ticked as helpers: still in the fight, played by the one
    asking (or the GM)."""
    team = []
    for pid, fighter in state["participants"].items():
        if pid == who["id"] or not flag(action, f"helper_{pid}"):
            continue
        _control(actor, fighter)
        if not active(fighter):
            raise _refuse("target_out", name=fighter["name"])
        team.append(fighter)
    return team


def _test_costs(state: State, team: list[dict[str, Any]], actor: Actor
                ) -> dict[str, dict[str, Any]]:
    """« Autre (utiliser une compétence …) » is one of a round's actions: the one asking
    tests on its turn and spends an action, each helper one it kept. Outside a round (or
    once the fight is decided) a test costs nothing; the GM may call for a test at any
    moment of a round (« Les choix de la caractéristique … sont à l'appréciation du MJ »),
    which costs nothing either when it is not the fighter's turn."""
    if not state.get("round") or decided(state):
        return {}
    who = team[0]
    if state.get("turn") != who["id"]:
        if actor.is_gm:
            return {}
        raise _refuse("not_your_turn")
    changes = {}
    for member in team:
        _not_held(member)
        if member["actions_left"] < 1:
            raise _refuse("no_action_left", name=member["name"])
        changes[member["id"]] = {"actions_left": member["actions_left"] - 1}
    return changes


def _opposed(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice
              ) -> list[Event]:
    """« Jet d'opposition (Caractéristique 1 + Compétence 1 / Caractéristique 2 +
    Compétence 2) »: the best score wins, the initiator loses ties; the GM may give one side
    bonus points. A surprise attack, an intimidation, fear overcome (Volonté / Tempérament)."""
    require_gm(actor)
    sides = []
    skills = {side: action.get(f"skill_{side}") or "" for side in ("a", "b")}
    for side in ("a", "b"):
        who = _participant(state, action, f"participant_{side}")
        characteristic = _choice(action, f"characteristic_{side}", CHAR_NAMES)
        skill = skills[side]
        if skill and skill not in SKILL_NAMES:
            raise _refuse("bad_field", field=f"skill_{side}")
        bonus = int_field(action, f"bonus_{side}", -10, 10, 0)
        level = int(who["skills"].get(skill, 0)) if skill else 0
        # « Ivre »: « un malus d'un point dans toutes ses actions », but « un bonus d'1D6
        # pour résister aux tests d'intimidation et pour résister à l'état Terrorisé »: the
        # side facing an Intimidation, or the terrorised initiator overcoming its fear.
        drunk = "ivre" in who["states"]
        resisting = drunk and ((side == "b" and skills["a"] == "intimidation") or (
            side == "a" and "terrorise" in who["states"]))
        labels = tuple(Modifier(value, label) for value, label in (
            (level, SKILL_NAMES.get(skill)), (bonus, Purpose("GM")), (-drunk, "ivre"))
            if value)
        gifts = test_dice(who, characteristic, skill or None)  # house talents
        record = pool(dice, who["characteristics"][characteristic] + len(gifts),
                      d6=int(resisting), labels=labels,
                      purpose=Purpose("opposed test — {name}", name=who["name"]))
        sides.append((who, characteristic, SKILL_NAMES.get(skill), record))
    (a, char_a, skill_a, roll_a), (b, char_b, skill_b, roll_b) = sides
    if a["id"] == b["id"]:
        raise _refuse("target_self")
    return [Event("opposed_rolled", {
        "initiator": a["name"], "opponent": b["name"], "char_a": CHAR_NAMES[char_a],
        "char_b": CHAR_NAMES[char_b],
        "skill_a": skill_a, "skill_b": skill_b, "total_a": roll_a.total,
        "total_b": roll_b.total, "initiator_wins": roll_a.total > roll_b.total,
        "rolls": _rolls(roll_a, roll_b), "rule": "Tiamat § Tests et Actions / Jet d'opposition"})]


JUMP_DIFFICULTIES = (4, 6, 8, 10, 15)  # « Saut »: Habileté +1 … +5 mètres


def _jump(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice) -> list[Event]:
    """« Saut »: Habileté metres without a roll; each metre more raises the difficulty a
    level (4, 6, 8, 10, 15), Habileté + Acrobatie; one action."""
    me = require_turn(state, actor)
    _not_held(me)
    if me["actions_left"] < 1:
        raise _refuse("no_action_left", name=me["name"])
    if is_down(me):
        raise _refuse("attacker_down", name=me["name"])
    habilete = me["characteristics"]["habilete"]
    metres = int_field(action, "metres", 1, habilete + len(JUMP_DIFFICULTIES))
    changes: dict[str, Any] = {"actions_left": me["actions_left"] - 1}
    payload: dict[str, Any] = {"name": me["name"], "metres": metres, "free": metres <= habilete,
                               "rule": "Tiamat § Combat « versus » / Mouvements / Saut"}
    if metres > habilete:
        difficulty = JUMP_DIFFICULTIES[metres - habilete - 1]
        acrobatie = int(me["skills"].get("acrobatie", 0))
        monkey = has(me, "agilite_du_singe")  # house talent: +1D10
        payload["talent"] = monkey
        test = simple_test(dice, habilete + monkey, difficulty, skill=acrobatie,
                           skill_name="Acrobatie", purpose=Purpose("jump — {name}",
                                                                   name=me["name"]))
        payload.update(difficulty=difficulty, total=test.record.total, success=test.success,
                       rolls=_rolls(test.record))
        if not test.success:
            changes["posture"] = "a_terre"
    return [Event("jumped", {**payload, "changes": {me["id"]: changes},
                             "set": {"combo": None}})]


ORDERS_MAX = 500


def _write_orders(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice
                  ) -> list[Event]:
    """« Les joueurs inscrivent secrètement leurs actions dans l'ordre où elles seront
    exécutées »: a fighter still tied at initiative writes its orders; only its player and the
    GM read them until the GM reveals them all. The event carries the writer's orders only
    (``evolve`` adds them to the others'): its reader must not find the other fighters'."""
    who = _participant(state, action, "participant")
    _control(actor, who)
    if not any(who["id"] in group for group in state.get("simultaneous") or []):
        raise _refuse("not_simultaneous", name=who["name"])
    text = text_field(action, "orders", ORDERS_MAX, multiline=True)
    visibility = "gm" if actor.is_gm else "self"
    return [Event("orders_written", {"participant": who["id"], "name": who["name"],
                                     "orders": text, "rule": RULE_INITIATIVE}, visibility)]


def _reveal_orders(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice
                   ) -> list[Event]:
    """The GM reads every written order aloud: « on exécute en même temps les premières
    actions inscrites puis les secondes etc. »."""
    require_gm(actor)
    orders = dict(state.get("orders") or {})
    if not orders:
        raise _refuse("no_orders")
    names = {pid: state["participants"][pid]["name"] for pid in orders}
    return [Event("orders_revealed", {"orders": orders, "names": names,
                                      "rule": RULE_INITIATIVE,
                                      "set": {"orders": {}, "orders_revealed": orders}})]


ADJUSTABLE = ("sante", "energie", "furie", "actions_left", "down")
# What the GM types for a posture, a state or KO: the game's words as the page shows them
# (« à terre », « sonné »), accents and case optional; the key is also read (the API).
POSTURE_WORDS = {"debout": "debout", "a_terre": "à terre", "a_genoux": "à genoux"}
STATE_WORDS = {"sonne": "sonné", "terrorise": "terrorisé", "epuise": "épuisé",
               "aveugle": "aveuglé", "ivre": "ivre", "empoisonne": "empoisonné",
               "malade": "malade", "aucun": "aucun"}
# An English reader's words for the same things (the help says « none » clears the states).
ALIASES = {"none": "aucun", "standing": "debout", "on_the_ground": "a_terre", "down": "a_terre",
           "players": "joueurs", "opponents": "adversaires"}
WOUND_WORDS = {"tete": "tête", "torse": "torse", "bras_droit": "bras droit",
               "bras_gauche": "bras gauche", "jambe_droite": "jambe droite",
               "jambe_gauche": "jambe gauche", "aucun": "aucune", "aucune": "aucune"}
SEXE_WORDS = {"masculin": "masculin", "feminin": "féminin", "non_precise": "non précisé"}
KO_WORDS = {"oui": "oui", "non": "non", "on": "on", "off": "off", "yes": "yes", "no": "no",
            "true": "true", "false": "false", "1": "1", "0": "0"}


RANGE_NAMES = {"courte": "courte", "bout_portant": "bout portant", "longue": "longue"}
# The fields of Tiamat's forms as the page labels them, for a refusal to name them so.
FIELD_LABELS.update({
    "participant": ("Who", "Qui"), "participant_a": ("Who acts", "Qui agit"),
    "participant_b": ("Who opposes", "Qui s'oppose"),
    "characteristic_a": ("Characteristic", "Caractéristique"),
    "characteristic_b": ("Characteristic", "Caractéristique"),
    "skill_a": ("Skill", "Compétence"), "skill_b": ("Skill", "Compétence"),
    "bonus_a": ("Bonus points (GM)", "Points de bonus (MJ)"),
    "bonus_b": ("Bonus points (GM)", "Points de bonus (MJ)"),
    "technique": ("Technique", "Technique"), "option": ("Technique", "Technique"),
    "metres": ("Length in metres", "Longueur en mètres"),
    "amount": ("How many hours or days", "Combien d'heures ou de jours"),
    "rounds": ("Rounds (states)", "Tours (états)"),
    "helpers": ("Helpers", "Équipiers"),
    "bonus_dice": ("Bonus or malus dice (D10)", "Dés de bonus ou de malus (D10)"),
    "difficulty": ("Difficulty", "Difficulté"),
    "gm_modifier": ("Situational modifier (GM)", "Modificateur de situation (MJ)"),
    "range": ("Range", "Portée"), "location": ("Location", "Localisation"),
    "orders": ("Orders", "Ordres"), "weapon": ("Weapon", "Arme"),
})


def _choice(action: Mapping[str, Any], field: str, choices: Mapping[str, str] | Sequence[str],
            default: str | None = None) -> str:
    """One of the keys a form offers. Refused with the game's words for them when they are
    named (« très difficile (10) »), else as « not one of those offered »; never the keys."""
    value = action.get(field, default)
    if value in choices:
        return value
    if isinstance(choices, Mapping):
        raise IllegalAction("bad_field", field=field, choices=list(choices.values()))
    raise IllegalAction("bad_field", field=field)


def _word(action: Mapping[str, Any], field: str, words: Mapping[str, str]) -> str:
    """The key of a word typed as the page names it; refused with the words if unknown."""
    typed = unicodedata.normalize("NFKD", str(action.get(field, "")).strip().lower())
    plain = "".join(c for c in typed if not unicodedata.combining(c))
    key = "_".join(plain.replace("-", " ").replace("_", " ").split())
    key = ALIASES.get(key, key) if key not in words else key
    if key not in words:
        raise IllegalAction("bad_field", field=field, choices=list(words.values()))
    return key


def _gm_adjust(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice
               ) -> list[Event]:
    """The GM corrects a value, changes a posture or a state, recorded with a reason."""
    require_gm(actor)
    who = _participant(state, action, "participant")
    field = _choice(action, "field", (*ADJUSTABLE, "posture", "state", "ko", "wound",
                                      "sexe", "side", "fled"))
    reason = text_field(action, "reason", 200, required=False)
    changes: dict[str, Any] = {}
    rolls: list[RollRecord] = []
    rounds = None
    before: Any
    if field in ADJUSTABLE:
        high = {"sante": who["sante_max"], "energie": who["energie_max"],
                "furie": who["furie_max"], "actions_left": who["actions"],
                "down": who["members"]}[field]
        value = int_field(action, "value", 0, high)
        before, changes[field] = who[field], value
        if field == "sante" and value > 0 and who["ko"] and not who["dead"]:
            changes["ko"] = False  # « Il ne se réveillera que lorsqu'il aura regagné 1 point »
    elif field == "posture":
        before = who["posture"]
        changes["posture"] = _word(action, "value", POSTURE_WORDS)
    elif field == "sexe":
        # The GM's word on « La cible doit être de sexe masculin » (Coup dans l'entrejambe).
        before = who.get("sexe", "")
        word = _word(action, "value", SEXE_WORDS)
        changes["sexe"] = "" if word == "non_precise" else word
    elif field == "side":
        # An ally of the players, or a duel between two player characters (``sides.py``).
        before = side_of(who)
        changes["side"] = _word(action, "value", SIDES)
    elif field == "fled":
        before = bool(who.get("fled"))
        changes["fled"] = _word(action, "value", KO_WORDS) in ("oui", "on", "true", "yes", "1")
    elif field == "ko":
        before = who["ko"]
        value = action.get("value")
        changes["ko"] = value if isinstance(value, bool) else (
            _word(action, "value", KO_WORDS) in ("oui", "on", "true", "yes", "1"))
    elif field == "wound":
        # The GM clears every grave wound (« aucune ») or gives one, lasting.
        where = _word(action, "value", WOUND_WORDS)
        before = list(who["wounds"])
        changes["wounds"] = [] if where in ("aucun", "aucune") else sorted(
            set(who["wounds"]) | {where})
        changes["temp_wounds"] = {} if where in ("aucun", "aucune") else {
            w: u for w, u in (who.get("temp_wounds") or {}).items() if w != where}
    else:
        name = _word(action, "value", STATE_WORDS)
        if name in ("empoisonne", "malade") and has(who, "immunite_biologique"):
            raise _refuse("immune", name=who["name"])  # house talent Immunité biologique
        rounds = int_field(action, "rounds", 0, 100, 1)
        if flag(action, "roll_rounds") and name != "aucun":
            # « pendant 1D6 tours »: the server rolls the duration and logs it.
            record = notation.roll("1d6", dice,
                                   purpose=Purpose("{state} (turns)", state=STATE_WORDS[name]))
            rolls.append(record)
            rounds = record.total
        before = dict(who["states"])
        states = {} if name == "aucun" else {**who["states"],
                                              name: state["round"] + rounds}
        changes["states"] = states
    return [Event("gm_adjusted", {"name": who["name"], "field": field, "before": before,
                                  "after": next(iter(changes.values())), "reason": reason,
                                  "rolls": _rolls(*rolls),
                                  "rounds": rounds if field == "state" else None,
                                  "changes": {who["id"]: changes}})]


RECOVERY = ("rest_hours", "sleep_hours", "rest_days", "calm")


def _recover(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice
             ) -> list[Event]:
    """The GM lets time pass (« Points d'énergie », « Points de santé », « Points de
    furie »): an hour of rest gives 1 énergie, an hour of sleep Volonté x 2, a day of rest
    1D6 santé; an hour without fighting calms the furie down. Never above the maximum."""
    require_gm(actor)
    if state.get("pending"):
        raise _refuse("attack_pending")
    who = _participant(state, action, "participant")
    what = _choice(action, "what", RECOVERY)
    amount = int_field(action, "amount", 1, 30, 1)
    changes: dict[str, Any] = {}
    rolls: list[RollRecord] = []
    if what == "rest_hours":
        changes["energie"] = min(who["energie_max"], who["energie"] + amount)
    elif what == "sleep_hours":
        gain = amount * who["characteristics"]["volonte"] * 2
        changes["energie"] = min(who["energie_max"], who["energie"] + gain)
    elif what == "rest_days":
        record = notation.roll(f"{amount}d6", dice, purpose=Purpose("health regained (rest)"))
        rolls.append(record)
        changes["sante"] = min(who["sante_max"], who["sante"] + record.total)
        if who["ko"] and not who["dead"] and changes["sante"] > 0:
            changes["ko"] = False
    else:
        changes["furie"] = 0
    if changes.get("energie", 0) > 0 and who["states"].get("epuise") == FOREVER:
        changes["states"] = {k: v for k, v in who["states"].items() if k != "epuise"}
    return [Event("recovered", {"name": who["name"], "what": what, "amount": amount,
                                "before": {k: who[k] for k in changes if k in who},
                                "after": {k: v for k, v in changes.items() if k != "states"},
                                "rolls": _rolls(*rolls),
                                "rule": "Tiamat § Conception du personnage / Points de santé, "
                                        "d'énergie et de furie",
                                "changes": {who["id"]: changes}})]


HANDLERS: dict[str, Callable[..., list[Event]]] = {
    "roll_initiative": initiative, "end_turn": end_turn, "attack": _attack,
    "combo": _combo, "defend": _defend, "manoeuvre": _manoeuvre, "escape": _escape,
    "coup_de_grace": _coup_de_grace, "kusarigama_throw": _kusarigama_throw, "test": _test,
    "gm_adjust": _gm_adjust, "end_match": end_match,
    "end": end_match,  # the name the API knew first
    "recover": _recover, "opposed": _opposed, "jump": _jump,
    "write_orders": _write_orders, "reveal_orders": _reveal_orders,
    "skip_combo": skip_combo, "standing_defence": standing_defence, "delay_turn": delay_turn,
    "overcome_fear": _overcome_fear,
}


def decide(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice) -> list[Event]:
    """The action's events, then what follows by itself (``turns.follow_on``)."""
    handler = handler_for(HANDLERS, state, action, actor)
    refuse_when_decided(state, action["kind"])
    events = handler(copy_state(state), action, actor, dice)
    return events + follow_on(state, events, dice)
