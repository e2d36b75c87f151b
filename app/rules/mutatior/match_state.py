"""A Mutatior fight's state: reading it, and folding events into it (pure, no dice).

000_e34df4ff7a8d792c.txt: the state is described in ``match.py``; here are the helpers every
part of the table reads it with, the parsing of actions' fields, and ``evolve``: the events
carry every outcome (``decide`` computed them), so folding only copies them in.
"""

from __future__ import annotations

import marshal
import math
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

from app.rules import board
from app.rules.dice import Modifier, RollRecord
from app.rules.match import Actor, Event, IllegalAction, State, copy_state
from app.rules.mutatior import arena, combat, skills
from app.rules.mutatior.body import Mutant
from app.rules.mutatior.content import catalogue
from app.rules.mutatior.sheet import DAMAGE_ORDERS, limb_dict, limb_of

CONTACT_CM = 5  # house: two bases touch when their centres are this close (§ 1-3 au contact)
PLACEMENT_CM = 30  # § 1-3 Terrain et placement: enemies 30 cm apart
ROUNDING_CM = 0.5  # house: positions are whole cm, so a move may round up by half a cm
BOARD_CM = 60  # § 0- Généralités: a 60 cm sand box
BOARD_MAX = 1000
STAKE_MAX = 100_000
TEXT_MAX = 120
PIECES = {"chicken": ("poulet", arena.chicken_body), "cheerleader": ("pom-pom girl",
                                                                     arena.cheerleader_body)}
EVENT_VICTIM = {  # what each crowd event aims at (§ 3-3 événements)
    "jet_de_canette": "mutant", "sortie_du_samedi": "team", "huee": "withdrawn",
    "lancer_de_poulet": None, "chute_de_pom_pom_girl": None, "controle_de_police": "team",
    "ralenti": "feat", "projecteur": "mutant",
}
BET_KINDS = ("victory", "death", "secret", "spectator")


class IllegalFight(IllegalAction):
    """What the arena's rules refuse (besides ``IllegalMelee`` and friends)."""

    templates_en = {
        **arena.IllegalArena.templates_en,
        "not_in_setup": "this is done before the fight starts",
        "not_in_fight": "the fight has not started",
        "too_close": "{mutant} must stand at least {cm} cm from the enemies",
        "already_acted": "{mutant} has already attacked or shot this turn",
        "not_in_contact": "{mutant} is not in contact with {target}",
        "pending_first": "finish the exchange first: {mutant} may still attack",
        "not_allowed_limb": "this limb may not attack or be aimed at now",
        "no_chance": "your team has no crowd event to try",
        "bad_victim": "this crowd event cannot aim at that",
        "out_of_arena": "{mutant} is not in the arena",
        "already_sprinted": "{mutant} has already sprinted this turn",
        "already_placed": "{mutant} is already placed",
        "not_your_placement": "it is the turn of {team}'s team to place a figure",
        "uneven_teams": "{team}'s team breaks the team rules (see the arena panel); tick "
                        "that the trainers agree to fight anyway",
        "round_running": "the round is not over",
        "no_team": "you have no team in this fight",
        "decided": 'the fight is decided: all that is left is the GM\'s "End the fight"',
    }
    templates_fr = {
        **arena.IllegalArena.templates_fr,
        "not_in_setup": "cela se fait avant le début du combat",
        "not_in_fight": "le combat n'a pas commencé",
        "too_close": "{mutant} doit être à au moins {cm} cm des ennemis",
        "already_acted": "{mutant} a déjà attaqué ou tiré ce tour",
        "not_in_contact": "{mutant} n'est pas au contact de {target}",
        "pending_first": "finissez d'abord la passe : {mutant} peut encore attaquer",
        "not_allowed_limb": "ce membre ne peut pas attaquer ou être visé maintenant",
        "no_chance": "votre équipe n'a pas d'événement de foule à tenter",
        "bad_victim": "cet événement de foule ne peut pas viser cela",
        "out_of_arena": "{mutant} n'est pas dans l'arène",
        "already_sprinted": "{mutant} a déjà sprinté ce tour",
        "already_placed": "{mutant} est déjà placé",
        "not_your_placement": "c'est à l'équipe de {team} de poser une figurine",
        "uneven_teams": "l'équipe de {team} enfreint les règles des équipes (voir le panneau "
                        "de l'arène) ; cochez que les entraîneurs acceptent de combattre "
                        "quand même",
        "round_running": "le tour de jeu n'est pas fini",
        "no_team": "vous n'avez pas d'équipe dans ce combat",
        "decided": "le combat est joué : il ne reste au MJ qu'à le terminer",
    }


def _refuse(code: str, **fields: Any) -> IllegalFight:
    return IllegalFight(code, **fields)


# — reading the state ——————————————————————————————————————————————————————————————

def body_of(mutant: Mutant) -> dict[str, Any]:
    """A body as events carry it (what ``evolve`` merges over the one in the state)."""
    return {"limbs": [limb_dict(limb) for limb in mutant.limbs], "skills": list(mutant.skills),
            "xp": mutant.xp, "fame": mutant.fame, "frenzy": mutant.frenzy_turns}


def damage_order(state: State, tid: str) -> tuple[str, ...]:
    """§ 1-5 Dégâts: muscles, biomoteurs, lobes — or the owner's order when the GM lets owners
    choose ("sinon choisissez vous-même")."""
    order = state["bodies"][tid].get("order") or ""
    if state.get("owners_choose") and order in DAMAGE_ORDERS:
        return tuple(order.split(","))
    return combat.ORGAN_ORDER


def mutant(state: State, tid: str) -> Mutant:
    """A token's body as a ``Mutant``, its implants read in the catalogue of the campaign's
    content the match copied at its start.

    A throw asks for the same bodies some twenty times (who is alive, who is in reach…) and
    building one costs more than the rest of the throw: a ``Mutant`` is immutable, so the one
    made for the same name, body and content (``marshal``'s bytes of them) is handed again."""
    found = (state["tokens"][tid]["name"], state["bodies"][tid], state.get("content"))
    try:
        key = marshal.dumps(found)
    except ValueError:  # not plain JSON: built each time
        return _mutant(*found)
    return _remembered_mutant(key)


@lru_cache(maxsize=1024)
def _remembered_mutant(key: bytes) -> Mutant:
    return _mutant(*marshal.loads(key))  # noqa: S302 — bytes ``mutant`` just made


def _mutant(name: str, body: Mapping[str, Any], content: Mapping[str, Any] | None) -> Mutant:
    return Mutant(name, tuple(limb_of(limb) for limb in body["limbs"]), tuple(body["skills"]),
                  body.get("xp", 0), body.get("fame", 0), body.get("frenzy"),
                  catalogue=catalogue(content))


def _in_arena(state: State, tid: str) -> bool:
    return state["tokens"][tid]["status"] == "in"


def _alive(state: State, tid: str) -> bool:
    return _in_arena(state, tid) and not mutant(state, tid).dead


def fighters(state: State) -> list[str]:
    """Mutants in the arena and alive (crowd pieces excluded)."""
    return [tid for tid, token in state["tokens"].items()
            if token["kind"] == "mutant" and _alive(state, tid)]


def _targets(state: State) -> list[str]:
    """Everything in the arena that can be hit: living mutants and crowd pieces."""
    return [tid for tid in state["tokens"] if _alive(state, tid)]


def _distance(state: State, a: str, b: str) -> float:
    ta, tb = state["tokens"][a], state["tokens"][b]
    return math.hypot(ta["x"] - tb["x"], ta["y"] - tb["y"])


def _team(state: State, tid: str) -> str | None:
    return state["tokens"][tid].get("team")


def _enemies(state: State, a: str, b: str) -> bool:
    return _team(state, a) != _team(state, b)


def in_contact(state: State, tid: str) -> list[str]:
    """The targets touching ``tid`` that are not on its team (pieces are everyone's enemy)."""
    return [other for other in _targets(state) if other != tid and _enemies(state, tid, other)
            and _distance(state, tid, other) <= CONTACT_CM]


def _actor_teams(state: State, actor: Actor) -> list[str]:
    if actor.is_gm:
        return list(state["team_order"])
    return [key for key in state["team_order"]
            if any(actor.controls(state["tokens"][tid]) for tid in state["teams"][key]["members"])]


def _weather(state: State) -> arena.Weather:
    face = (state.get("weather") or {}).get("face", 5)
    return arena.WEATHERS[face]


def _pump_mods(state: State, tid: str) -> tuple[Modifier, ...]:
    mods = arena.pump_modifiers(_weather(state), mutant(state, tid))
    if tid in state["angry"]:
        mods += (skills.ANGRY,)
    return mods


def _record(record: RollRecord) -> dict[str, Any]:
    return record.to_dict()


def _sevens(state: State, tid: str, *records: RollRecord) -> dict[str, int]:
    """§ 3-3 événements: each natural 7 on 2d6 gives every opposing team one attempt."""
    sevens = sum(1 for record in records if arena.natural_seven(record))
    team = _team(state, tid)
    if not sevens or team is None:
        return {}
    return {key: sevens for key in state["team_order"] if key != team}


def _size(value: Any) -> int:
    """The board size the match was opened with (in cm), else the text's 60 cm sand box."""
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, int) and not isinstance(value, bool) and 20 <= value <= BOARD_MAX:
        return value
    return BOARD_CM


# — the fold (pure, no dice) ——————————————————————————————————————————————————————————

def evolve(state: State, event: Event) -> State:
    payload = event.payload
    if event.kind == "match_started":
        _started(state, payload)
        return state
    if "reroll_point" in payload:
        # The first event of a roll that may be re-rolled: keep the state before it (folded
        # here, not carried by the event, which every player may read).
        point = payload["reroll_point"]
        state["last_roll"] = None if point is None else {
            **copy_state(point), "before": {key: copy_state(value)
                                               for key, value in state.items()
                                               if key not in ("content", "last_roll")}}
    for tid, body in (payload.get("bodies") or {}).items():
        state["bodies"][tid] = {**state["bodies"].get(tid, {}), **body}
    for tid, status in (payload.get("statuses") or {}).items():
        state["tokens"][tid]["status"] = status
    for tid, xy in (payload.get("positions") or {}).items():
        state["tokens"][tid]["x"], state["tokens"][tid]["y"] = xy
    if "pending" in payload:
        state["pending"] = payload["pending"]
    if payload.get("activation") and state.get("activation"):
        state["activation"].update(payload["activation"])
    for team, count in (payload.get("chances") or {}).items():
        chances = state["crowd"]["chances"]
        chances[team] = max(0, chances.get(team, 0) + count)
    state["gains"].extend(payload.get("gains") or [])
    state["killed_by"].update(payload.get("killed_by") or {})
    for tid in payload.get("feats") or []:
        if tid not in state["feats"]:
            state["feats"].append(tid)
    for tid, limbs in (payload.get("used") or {}).items():
        state["used_limbs"].setdefault(tid, []).extend(limbs)
    if "grips" in payload:
        state["grips"] = payload["grips"]
    for tid in payload.get("modifiers_used") or []:
        state["modifiers"].pop(tid, None)
    for tid in payload.get("angry") or []:
        if tid not in state["angry"]:
            state["angry"].append(tid)
    for tid in payload.get("sponged") or []:
        if tid not in state["sponged"]:
            state["sponged"].append(tid)
    if "free_attacks" in payload:
        state["free_attacks"] = payload["free_attacks"]
    handler = _EVOLVE.get(event.kind)
    if handler is not None:
        handler(state, payload)
    state["order"] = _board_order(state)
    return state


def _board_order(state: State) -> list[str]:
    """What the board draws: the mutants still in the arena (the dead lie there) and the
    crowd's pieces while they are in."""
    return [tid for tid, token in state["tokens"].items() if token["status"] == "in"]


def _started(state: State, payload: dict) -> None:
    state.clear()
    state.update(name=payload["name"], board=payload["board"], tokens=payload["tokens"],
                 bodies=payload["bodies"], teams=payload["teams"],
                 team_order=payload["team_order"], content=payload.get("content") or {},
                 category_t=payload.get("category_t", 2), status="running", phase="setup",
                 weather=None, round=0, initiative=[], turn=None, activation=None,
                 pending=None, free_attacks=[], used_limbs={}, grips=[], angry=[],
                 crowd={"chances": {}, "failures": {}}, booed={}, spotlight=[], feats=[],
                 extra_xp={}, killed_by={}, modifiers={}, bets=[], police={}, gains=[],
                 results=None, next_piece=1, next_bet=1, sponged=[], notes=0, last_roll=None,
                 eaten=[])
    state["order"] = _board_order(state)


def _arena_set(state: State, payload: dict) -> None:
    state["board"].update(payload["board"])
    state["category_t"] = payload["category_t"]
    if payload.get("first_team"):
        state["first_team"] = payload["first_team"]
    state["owners_choose"] = bool(payload.get("owners_choose"))


def _placed(state: State, payload: dict) -> None:
    state["tokens"][payload["token"]]["start"] = list(payload["to"])
    state.setdefault("placed", []).append(payload["token"])


def _moved(state: State, payload: dict) -> None:
    state["activation"]["moved"] = payload["moved_total"]


def _rerolls_bought(state: State, payload: dict) -> None:
    team = state["teams"][payload["team"]]
    team["bought"] = sorted(set(team["bought"]) | set(payload["tokens"]))


def _bet_placed(state: State, payload: dict) -> None:
    state["bets"].append(payload["bet"])
    state["next_bet"] += 1


def _fight_started(state: State, payload: dict) -> None:
    state["phase"] = "fight"
    state["weather"] = payload["weather"]
    for team, count in payload["rerolls"].items():
        state["teams"][team]["rerolls"] = count


def _round_started(state: State, payload: dict) -> None:
    state["round"] = payload["round"]
    state["initiative"] = payload["initiative"]
    for tid, value in payload["values"].items():
        state["tokens"][tid]["initiative"] = value
    state["used_limbs"] = {}
    state["free_attacks"] = []  # owed at once, not kept for later rounds
    state["feats"] = []
    state["spotlight"] = []
    state["booed"] = payload["booed"]
    state["turn"] = None
    state["activation"] = None
    state["pending"] = None


def _turn_started(state: State, payload: dict) -> None:
    state["turn"] = payload["token"]
    state["activation"] = {"token": payload["token"], "allowance": payload["allowance"],
                           "moved": 0, "sprinted": False, "acted": False}
    state["pending"] = None


def _turn_ended(state: State, payload: dict) -> None:
    state["turn"] = None
    state["activation"] = None
    state["pending"] = None


def _piece_moved(state: State, payload: dict) -> None:
    if "pos" in payload:  # the chicken's place on its line through the centre
        state["tokens"][payload["token"]]["pos"] = payload["pos"]


def _piece_added(state: State, payload: dict) -> None:
    piece = payload["piece"]
    state["tokens"][piece["id"]] = piece
    state["bodies"][piece["id"]] = payload["body"]
    state["next_piece"] += 1


def _crowd_attempt(state: State, payload: dict) -> None:
    if not payload["success"]:  # a retry of this event by this team gets +1 on the dice
        failed = state["crowd"].setdefault("failures", {}).setdefault(payload["team"], {})
        failed[payload["event"]] = failed.get(payload["event"], 0) + 1
    effect = payload.get("effect") or {}
    if effect.get("spotlight"):
        state["spotlight"].append(effect["spotlight"])
    if effect.get("slow_motion"):
        tid = effect["slow_motion"]
        state["extra_xp"][tid] = state["extra_xp"].get(tid, 0) + 1
    if effect.get("police"):
        team = effect["police"]["team"]
        state["police"][team] = state["police"].get(team, 0) + effect["police"]["kg"]
    if effect.get("booed"):
        state["booed"][effect["booed"]] = 2
        if effect["booed"] in state["sponged"]:
            state["sponged"].remove(effect["booed"])


def _sponge(state: State, payload: dict) -> None:
    state["sponged"].append(payload["token"])
    state["booed"].pop(payload["token"], None)
    if state["turn"] == payload["token"]:
        state["turn"] = None
        state["activation"] = None


def _rerolled(state: State, payload: dict) -> None:
    content = state.get("content") or {}
    restored = copy_state(state["last_roll"]["before"])
    state.clear()
    state.update(restored, content=content, last_roll=None)
    team = state["teams"][payload["team"]]
    if payload["spent"] == "free":
        team["rerolls"] = max(0, team["rerolls"] - 1)
    else:
        team["bought"] = [tid for tid in team["bought"] if tid != payload["spent"]]


def _skill_used(state: State, payload: dict) -> None:
    if payload.get("eaten"):
        state.setdefault("eaten", []).append(payload["eaten"])


def _modifier_set(state: State, payload: dict) -> None:
    state["modifiers"][payload["token"]] = {"value": payload["value"],
                                            "reason": payload["reason"]}


def _noted(state: State, _payload: dict) -> None:
    state["notes"] += 1


def _fight_ended(state: State, payload: dict) -> None:
    state["phase"] = "over"
    state["status"] = "finished"
    state["turn"] = None
    state["activation"] = None
    state["pending"] = None
    state["results"] = payload["results"]


def _orders_set(state: State, payload: dict) -> None:
    """A mutant's standing orders (``match_flow``)."""
    state.setdefault("standing", {})[payload["token"]] = {"strike": payload["strike"],
                                                          "limb": payload["limb"]}


def _fight_decided(state: State, payload: dict) -> None:
    """The fight is played out (``match_flow.decided``): no turn runs until it resumes or
    the GM ends it."""
    state.update(decided=True, turn=None, activation=None, pending=None, free_attacks=[])


def _fight_resumed(state: State, payload: dict) -> None:
    state["decided"] = False


_EVOLVE: dict[str, Callable[[State, dict], None]] = {
    "arena_set": _arena_set,
    "terrain_added": board.terrain_added,
    "terrain_removed": board.terrain_removed,
    "placed": _placed,
    "moved": _moved,
    "rerolls_bought": _rerolls_bought,
    "bet_placed": _bet_placed,
    "fight_started": _fight_started,
    "round_started": _round_started,
    "turn_started": _turn_started,
    "turn_ended": _turn_ended,
    "piece_added": _piece_added,
    "piece_moved": _piece_moved,
    "crowd_attempt": _crowd_attempt,
    "sponge_thrown": _sponge,
    "skill_used": _skill_used,
    "modifier_set": _modifier_set,
    "rerolled": _rerolled,
    "note_added": _noted,
    "fight_ended": _fight_ended,
    "orders_set": _orders_set,
    "fight_decided": _fight_decided,
    "fight_resumed": _fight_resumed,
}


NAMES_TEAMS = frozenset({"rerolled", "entrance_prize", "rerolls_bought", "bet_placed",
                         "fight_started", "crowd_attempt", "crowd_passed", "fight_ended",
                         "piece_prize", "sponge_thrown", "fight_decided", "fight_resumed"})


def team_names(state: State) -> dict[str, dict[str, str]]:
    """Each team's name: the one its sheets give, else its trainer's ("Alice's team"), else
    (the GM's creatures, an older match) its first mutant's."""
    return {key: {"label": team.get("label") or "",
                  "captain": team.get("trainer")
                  or (state["tokens"][team["members"][0]]["name"] if team["members"] else key)}
            for key, team in state["teams"].items()}


def _phase(state: State, phase: str) -> None:
    if state.get("phase") != phase:
        raise _refuse("not_in_setup" if phase == "setup" else "not_in_fight")


def _token(state: State, action: Mapping[str, Any], field: str = "token") -> str:
    tid = action.get(field)
    if not isinstance(tid, str) or tid not in state["tokens"]:
        raise _refuse("unknown_participant", participant=str(tid)[:40])
    return tid


def _controlled(state: State, tid: str, actor: Actor) -> None:
    if not actor.controls(state["tokens"][tid]):
        raise _refuse("not_allowed")


def _limb_ref(state: State, action: Mapping[str, Any], field: str) -> tuple[str, str]:
    """``"m1:tête"`` → (token, limb)."""
    value = action.get(field)
    if not isinstance(value, str) or ":" not in value:
        raise _refuse("bad_field", field=field, reason="token:limb")
    tid, _, limb = value.partition(":")
    if tid not in state["tokens"]:
        raise _refuse("unknown_participant", participant=tid[:40])
    if limb not in {entry["name"] for entry in state["bodies"][tid]["limbs"]}:
        raise combat.IllegalMelee("unknown_limb", mutant=state["tokens"][tid]["name"],
                                  limb=limb[:40])
    return tid, limb


def _team_field(state: State, action: Mapping[str, Any], actor: Actor, field: str = "team",
                *, own: bool = True) -> str:
    team = action.get(field)
    if not isinstance(team, str) or team not in state["teams"]:
        raise _refuse("bad_field", field=field, reason="?")
    if own and team not in _actor_teams(state, actor):
        raise _refuse("not_allowed")
    return team


def _simulate(state: State, events: list[Event]) -> State:
    current = copy_state(state)
    for event in events:
        current = evolve(current, event)
    return current


def _cm(value: float) -> float | int:
    rounded = round(value, 1)
    return int(rounded) if float(rounded).is_integer() else rounded


# — damage bookkeeping —

def _report(report: combat.DamageReport) -> dict[str, Any]:
    return {"limb": report.limb, "incoming": report.incoming, "armour": report.armour,
            "lost": dict(report.lost), "wasted": report.wasted, "limb_died": report.limb_died,
            "killed": report.killed, "death_reasons": list(report.death_reasons)}


def _deaths(state: State, bodies: Mapping[str, Mutant], *, killer_team: str | None,
            killer: str | None = None) -> dict[str, Any]:
    """Who died with these new bodies: killed_by, feats (Ralenti), grips that end."""
    out: dict[str, Any] = {}
    killed = [tid for tid, body in bodies.items()
              if body.dead and not mutant(state, tid).dead]
    if killed and killer_team:
        out["killed_by"] = {tid: killer_team for tid in killed
                            if state["tokens"][tid]["kind"] == "mutant"}
    if killed and killer:
        out["feats"] = [killer]
    if killed:
        out["statuses"] = {tid: "gone" for tid in killed
                           if state["tokens"][tid]["kind"] != "mutant"}
    grips = [grip for grip in state["grips"] if _grip_holds(state, grip, bodies)]
    if grips != state["grips"]:
        out["grips"] = grips
    return out


def _grip_holds(state: State, grip: dict, bodies: Mapping[str, Mutant]) -> bool:
    holder = bodies.get(grip["holder"]) or mutant(state, grip["holder"])
    victim = bodies.get(grip["victim"]) or mutant(state, grip["victim"])
    return skills.grip_holds(skills.Grip(holder.name, grip["tentacle"], victim.name,
                                         grip["limb"]), holder, victim)


def _next_in_order(state: State, current: str) -> str | None:
    order = state["initiative"]
    index = order.index(current) if current in order else -1
    for tid in order[index + 1:]:
        if _alive(state, tid):
            return tid
    return None


