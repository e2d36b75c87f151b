"""A Mutatior fight at the table: the arena on the board, turns, melee, shots, the crowd.

000_e34df4ff7a8d792c.txt § 0- Généralités (arena, placement), § 1- LES ACTIONS (initiative,
movement, melee, shooting, damage, pump roll), § 2-3 Compétences, § 3 Campagne (weather,
crowd events, re-rolls, sponge, boos, end of the fight, bets). The dice and numbers come from
the rules core (``combat``, ``arena``, ``skills``, ``campaign``); this module decides who may
do what and when, and records every outcome in the events (``decide`` rolls, ``evolve`` only
copies outcomes into the state).

State (JSON): ``tokens`` (mutants ``m1``…, crowd pieces ``p1``…; the board draws ``order``),
``bodies`` (each token's limbs with their lost organs, skills, xp, fame, frenzy), ``teams``,
``phase`` (``setup`` → ``fight`` → ``over``), ``initiative`` and ``turn``, ``activation`` (the
active mutant's movement left and whether it has attacked or shot), ``pending`` (a second
attack, a counter-attack), ``free_attacks`` (owed for leaving a melee), ``crowd``, ``bets``,
``gains`` and, at the end, ``results`` (read by ``between_matches``).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from app.rules.dice import Dice, Modifier, RollRecord
from app.rules.match import ActionForm, Actor, Event, IllegalAction, MatchSetup, State
from app.rules.mutatior import arena, campaign, combat, skills
from app.rules.mutatior.body import CATEGORIES_T, Mutant, free_rerolls, validate_team
from app.rules.mutatior.content import custom_implants
from app.rules.mutatior.sheet import limb_dict, limb_of, shape_problems

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
        "too_far": "{mutant} can move {left} cm more this turn",
        "already_acted": "{mutant} has already attacked or shot this turn",
        "not_in_contact": "{mutant} is not in contact with {target}",
        "pending_first": "finish the exchange first: {mutant} may still attack",
        "not_allowed_limb": "this limb may not attack or be aimed at now",
        "no_chance": "your team has no crowd event to try",
        "bad_victim": "this crowd event cannot aim at that",
        "out_of_arena": "{mutant} is not in the arena",
        "already_sprinted": "{mutant} has already sprinted this turn",
        "round_running": "the round is not over",
        "no_team": "you have no team in this fight",
    }
    templates_fr = {
        **arena.IllegalArena.templates_fr,
        "not_in_setup": "cela se fait avant le début du combat",
        "not_in_fight": "le combat n'a pas commencé",
        "too_close": "{mutant} doit être à au moins {cm} cm des ennemis",
        "too_far": "{mutant} peut encore se déplacer de {left} cm ce tour",
        "already_acted": "{mutant} a déjà attaqué ou tiré ce tour",
        "not_in_contact": "{mutant} n'est pas au contact de {target}",
        "pending_first": "finissez d'abord la passe : {mutant} peut encore attaquer",
        "not_allowed_limb": "ce membre ne peut pas attaquer ou être visé maintenant",
        "no_chance": "votre équipe n'a pas d'événement de foule à tenter",
        "bad_victim": "cet événement de foule ne peut pas viser cela",
        "out_of_arena": "{mutant} n'est pas dans l'arène",
        "already_sprinted": "{mutant} a déjà sprinté ce tour",
        "round_running": "le tour de jeu n'est pas fini",
        "no_team": "vous n'avez pas d'équipe dans ce combat",
    }


def _refuse(code: str, **fields: Any) -> IllegalFight:
    return IllegalFight(code, **fields)


# — reading the state ——————————————————————————————————————————————————————————————

def body_of(mutant: Mutant) -> dict[str, Any]:
    return {"limbs": [limb_dict(limb) for limb in mutant.limbs], "skills": list(mutant.skills),
            "xp": mutant.xp, "fame": mutant.fame, "frenzy": mutant.frenzy_turns}


def mutant(state: State, tid: str) -> Mutant:
    body = state["bodies"][tid]
    return Mutant(state["tokens"][tid]["name"], tuple(limb_of(limb) for limb in body["limbs"]),
                  tuple(body["skills"]), body.get("xp", 0), body.get("fame", 0),
                  body.get("frenzy"))


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


# — set-up ————————————————————————————————————————————————————————————————————————

def start(setup: MatchSetup, dice: Dice) -> list[Event]:
    """The teams enter: each trainer's mutants (or a sheet's team name) make a team, lined up
    on opposite edges 30 cm apart or more (§ 1-3 Terrain et placement); the GM then sets the
    arena, awards the entrance prize and starts the fight (weather, first initiative)."""
    options = setup.options or {}
    content = options.get("content") or {}
    width, height = (_size(options.get(key)) for key in ("width", "height"))
    board = {"unit": "cm", "width": width, "height": height, "terrain": []}
    tokens, bodies, teams, order = {}, {}, {}, []
    names: set[str] = set()
    with custom_implants(content):
        for index, participant in enumerate(setup.participants):
            sheet = dict(participant.sheet or {})
            if shape_problems(sheet) or sheet.get("dead"):
                continue  # a broken or dead mutant does not enter the arena
            tid = f"m{index + 1}"
            name = participant.name
            while name in names:
                name += "′"
            names.add(name)
            team = (sheet.get("team") or "").strip() or (
                f"owner-{participant.owner_id}" if participant.owner_id is not None else "gm")
            if team not in teams:
                teams[team] = {"label": (sheet.get("team") or "").strip(),
                               "owner_id": participant.owner_id, "members": [],
                               "rerolls": 0, "bought": []}
                order.append(team)
            teams[team]["members"].append(tid)
            tokens[tid] = {"id": tid, "name": name, "kind": "mutant",
                           "character_id": participant.character_id,
                           "owner_id": participant.owner_id, "team": team, "status": "in",
                           "x": 0, "y": 0, "start": [0, 0], "initiative": None}
            body = {"limbs": [dict(limb) for limb in sheet.get("limbs", [])],
                    "skills": list(sheet.get("skills", [])), "xp": sheet.get("xp", 0),
                    "fame": sheet.get("fame", 0), "frenzy": None}
            bodies[tid] = body
    # Lined up along opposite edges (the first team at the top), spread evenly.
    for number, team in enumerate(order):
        members = teams[team]["members"]
        y = 5 if number % 2 == 0 else height - 5
        if number >= 2:
            y = height // 2
        for position, tid in enumerate(members):
            x = round((position + 1) * width / (len(members) + 1))
            x = min(width, x + (number // 2) * 3)
            tokens[tid].update(x=x, y=y, start=[x, y])
    return [Event("match_started", {"name": setup.name, "board": board, "tokens": tokens,
                                    "bodies": bodies, "teams": teams, "team_order": order,
                                    "content": content, "category_t": 2})]


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
    if "bodies" in payload:
        state["bodies"].update(payload["bodies"])
    for tid, status in (payload.get("statuses") or {}).items():
        state["tokens"][tid]["status"] = status
    for tid, xy in (payload.get("positions") or {}).items():
        state["tokens"][tid]["x"], state["tokens"][tid]["y"] = xy
    if "reroll_point" in payload:
        state["last_roll"] = copy.deepcopy(payload["reroll_point"])
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
                 crowd={"chances": {}, "attempts": {}}, booed={}, spotlight=[], feats=[],
                 extra_xp={}, killed_by={}, modifiers={}, bets=[], police={}, gains=[],
                 results=None, next_piece=1, next_bet=1, sponged=[], notes=0, last_roll=None,
                 eaten=[])
    state["order"] = _board_order(state)


def _arena_set(state: State, payload: dict) -> None:
    state["board"].update(payload["board"])
    state["category_t"] = payload["category_t"]


def _terrain_added(state: State, payload: dict) -> None:
    state["board"]["terrain"].append(payload["terrain"])


def _terrain_removed(state: State, payload: dict) -> None:
    state["board"]["terrain"] = [shape for shape in state["board"]["terrain"]
                                 if shape["id"] != payload["terrain"]]


def _placed(state: State, payload: dict) -> None:
    state["tokens"][payload["token"]]["start"] = list(payload["to"])


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


def _piece_added(state: State, payload: dict) -> None:
    piece = payload["piece"]
    state["tokens"][piece["id"]] = piece
    state["bodies"][piece["id"]] = payload["body"]
    state["next_piece"] += 1


def _crowd_attempt(state: State, payload: dict) -> None:
    attempts = state["crowd"]["attempts"]
    attempts[payload["event"]] = attempts.get(payload["event"], 0) + 1
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
    restored = copy.deepcopy(payload["restore"])
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


_EVOLVE: dict[str, Callable[[State, dict], None]] = {
    "arena_set": _arena_set,
    "terrain_added": _terrain_added,
    "terrain_removed": _terrain_removed,
    "placed": _placed,
    "moved": _moved,
    "rerolls_bought": _rerolls_bought,
    "bet_placed": _bet_placed,
    "fight_started": _fight_started,
    "round_started": _round_started,
    "turn_started": _turn_started,
    "turn_ended": _turn_ended,
    "piece_added": _piece_added,
    "crowd_attempt": _crowd_attempt,
    "sponge_thrown": _sponge,
    "skill_used": _skill_used,
    "modifier_set": _modifier_set,
    "rerolled": _rerolled,
    "note_added": _noted,
    "fight_ended": _fight_ended,
}


# — deciding (dice are rolled here only) ————————————————————————————————————————————

def decide(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice) -> list[Event]:
    kind = action.get("kind")
    handler = _DECIDE.get(kind) if isinstance(kind, str) else None
    if handler is None:
        raise _refuse("unknown_action", kind=str(kind)[:40])
    if actor.is_spectator:
        raise _refuse("spectator")
    if state.get("status") == "finished":
        raise _refuse("match_over")
    with custom_implants(state.get("content")):
        if kind == "reroll":
            events = _decide_reroll(state, action, actor, dice)
        else:
            events = _judged(state, action, actor, dice, handler)
    for event in events:  # the log names teams without the state at hand
        if event.kind in NAMES_TEAMS:
            event.payload["team_names"] = team_names(state)
    return events


def _judged(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice,
            handler: Callable[..., list[Event]]) -> list[Event]:
    """The handler's events, the turn passing if its mutant died, and the re-roll point: a
    roll of the fight may be re-rolled at once, and only at once (§ 3 Relances)."""
    events = handler(state, action, actor, dice)
    events += _dead_turn_passes(state, events, dice)
    if events and state.get("phase") == "fight":
        events[0].payload["reroll_point"] = _reroll_point(state, action, actor) \
            if action.get("kind") in REROLLABLE else None
    return events


REROLLABLE = frozenset({"attack", "shoot", "sprint", "sponge", "crowd_event"})


def _reroll_point(state: State, action: Mapping[str, Any], actor: Actor) -> dict[str, Any]:
    """What a re-roll needs: the action, who did it, the teams whose creatures rolled (each
    with its creature, for a bought re-roll), and the state before it."""
    rollers: list[str] = []
    for field in ("limb", "target", "token"):
        value = action.get(field)
        if isinstance(value, str):
            tid = value.partition(":")[0]
            if tid in state["tokens"] and state["tokens"][tid]["kind"] == "mutant":
                rollers.append(tid)
    mutants = {}
    for tid in rollers:
        mutants.setdefault(_team(state, tid), tid)
    if action.get("kind") == "crowd_event" and isinstance(action.get("team"), str):
        mutants.setdefault(action["team"], None)
    before = {key: copy.deepcopy(value) for key, value in state.items()
              if key not in ("content", "last_roll")}
    return {"action": {key: value for key, value in action.items()
                       if key not in ("seq", "idempotency_key", "csrf_token")},
            "actor": {"user_id": actor.user_id, "is_gm": actor.is_gm,
                      "character_ids": sorted(actor.character_ids)},
            "teams": sorted(mutants), "mutants": mutants, "before": before}


def reroll_teams(state: State, actor: Actor) -> list[str]:
    """The actor's teams that may re-roll the last roll now (and still have a re-roll)."""
    point = state.get("last_roll")
    if not point or state.get("phase") != "fight":
        return []
    teams = []
    for team in point["teams"]:
        if team not in _actor_teams(state, actor):
            continue
        own = state["teams"][team]
        if own["rerolls"] > 0 or point["mutants"].get(team) in own["bought"]:
            teams.append(team)
    return teams


def _decide_reroll(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """§ 3 Relances: the team spends a re-roll (its creature's bought one first, else a free
    one) and the last action is played again from where it started, with new dice."""
    point = state.get("last_roll")
    if not point:
        raise _refuse("illegal_action")
    team = _team_field(state, action, actor)
    if team not in reroll_teams(state, actor):
        raise arena.IllegalArena("reroll_spent", mutant=team_names(state)[team]["captain"])
    creature = point["mutants"].get(team)
    spent = creature if creature in state["teams"][team]["bought"] else "free"
    first = Event("rerolled", {"team": team, "spent": spent, "kind": point["action"]["kind"],
                               "restore": point["before"]})
    after = _simulate(state, [first])
    original = Actor(point["actor"]["user_id"], is_gm=point["actor"]["is_gm"],
                     character_ids=frozenset(point["actor"]["character_ids"]))
    handler = _DECIDE[point["action"]["kind"]]
    return [first, *_judged(after, point["action"], original, dice, handler)]


def _dead_turn_passes(state: State, events: list[Event], dice: Dice) -> list[Event]:
    """A mutant that dies (or leaves) during its own turn loses it: the next one plays."""
    if not events or state.get("phase") != "fight":
        return []
    after = _simulate(state, events)
    current = after.get("turn")
    if after.get("phase") != "fight" or current is None or after.get("pending") \
            or _alive(after, current):
        return []
    following = _next_in_order(after, current)
    passed = [Event("turn_ended", {"token": current, "name": after["tokens"][current]["name"],
                                   "next": following, "lost": True,
                                   "next_name": after["tokens"][following]["name"]
                                   if following else None})]
    if following:
        passed += _turn_start(_simulate(after, passed), following, dice)
    return passed


NAMES_TEAMS = frozenset({"rerolled", "entrance_prize", "rerolls_bought", "bet_placed",
                         "fight_started", "crowd_attempt", "crowd_passed", "fight_ended",
                         "piece_prize", "sponge_thrown"})


def team_names(state: State) -> dict[str, dict[str, str]]:
    """Each team's name: the one its sheets give, else its first mutant's ("X's team")."""
    return {key: {"label": team.get("label") or "",
                  "captain": state["tokens"][team["members"][0]]["name"]
                  if team["members"] else key}
            for key, team in state["teams"].items()}


def _int(action: Mapping[str, Any], field: str, low: int, high: int,
         default: int | None = None) -> int:
    value = action.get(field, default)
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        value = int(value.strip())
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise _refuse("bad_field", field=field, reason=f"{low}…{high}")
    return value


def _text(action: Mapping[str, Any], field: str, *, required: bool = True) -> str:
    value = action.get(field, "")
    if not isinstance(value, str) or len(value.strip()) > TEXT_MAX or (
            required and not value.strip()):
        raise _refuse("bad_field", field=field, reason=f"1…{TEXT_MAX}")
    return value.strip()


def _flag(action: Mapping[str, Any], field: str) -> bool:
    value = action.get(field, False)
    if isinstance(value, bool):
        return value
    return isinstance(value, str) and value.strip().lower() in ("1", "on", "true", "yes")


def _gm(actor: Actor) -> None:
    if not actor.is_gm:
        raise _refuse("gm_only")


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


# — set-up actions (GM) —

def _decide_set_arena(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """§ 0- Généralités: a 60 cm sand box by default, any size the GM has; § 3: the weight
    category (1, 2 or 3 tonnes)."""
    _gm(actor)
    _phase(state, "setup")
    board = {"width": _int(action, "width", 20, BOARD_MAX),
             "height": _int(action, "height", 20, BOARD_MAX)}
    category = _int(action, "category_t", 1, 3, default=state["category_t"])
    return [Event("arena_set", {"board": board, "category_t": category})]


def _decide_terrain(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    _gm(actor)
    board = state["board"]
    shape = {"id": f"z{len(board['terrain']) + 1}-{state['round']}-{state['notes']}",
             "label": _text(action, "label", required=False),
             "x": _int(action, "x", 0, board["width"]), "y": _int(action, "y", 0, board["height"]),
             "w": _int(action, "w", 1, board["width"]), "h": _int(action, "h", 1, board["height"])}
    existing = {terrain["id"] for terrain in board["terrain"]}
    while shape["id"] in existing:
        shape["id"] += "'"
    return [Event("terrain_added", {"terrain": shape})]


def _decide_remove_terrain(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    _gm(actor)
    terrain = action.get("terrain")
    if terrain not in {shape["id"] for shape in state["board"]["terrain"]}:
        raise _refuse("bad_field", field="terrain", reason="?")
    return [Event("terrain_removed", {"terrain": terrain})]


def _decide_entrance_prize(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """§ 1-3 Terrain et placement: the best entrance wins 2d6 kg of biomass (GM's choice)."""
    _gm(actor)
    _phase(state, "setup")
    team = _team_field(state, action, actor)
    if any(gain["why"] == "entrance" for gain in state["gains"]):
        raise _refuse("illegal_action")
    record = combat._roll(dice, "prix de l'entrée", 2)
    return [Event("entrance_prize", {"team": team, "kg": record.total,
                                     "rolls": [_record(record)],
                                     "gains": [{"team": team, "kg": record.total,
                                                "why": "entrance"}]})]


def _decide_buy_rerolls(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """§ 3 Relances: one per creature for 10 % of its biomass, or 50 kg for all."""
    _phase(state, "setup")
    team = _team_field(state, action, actor)
    members = state["teams"][team]["members"]
    raw = action.get("tokens", [])
    chosen = members if action.get("all") in (True, "1", "on") else (
        [raw] if isinstance(raw, str) else list(raw) if isinstance(raw, list) else [])
    chosen = [tid for tid in chosen if tid in members and tid not in state["teams"][team]["bought"]]
    if not chosen:
        raise _refuse("bad_field", field="tokens", reason="?")
    team_mutants = [mutant(state, tid) for tid in members]
    names, price = arena.buy_rerolls(team_mutants, [state["tokens"][t]["name"] for t in chosen])
    return [Event("rerolls_bought", {"team": team, "tokens": chosen, "names": sorted(names),
                                     "price": price,
                                     "gains": [{"team": team, "kg": -price, "why": "rerolls"}]})]


def _decide_bet(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """§ 3-3 Les paris, placed before the fight: on one's victory, on an enemy creature's
    death, secretly on one's own creature; the GM records the spectators' bets."""
    _phase(state, "setup")
    kind = action.get("bet")
    if kind not in BET_KINDS:
        raise _refuse("bad_field", field="bet", reason=", ".join(BET_KINDS))
    stake = _int(action, "stake", 1, STAKE_MAX)
    if kind == "spectator":
        _gm(actor)
        bettor_team, label = None, _text(action, "label")
    else:
        teams = _actor_teams(state, actor)
        if not teams:
            raise _refuse("no_team")
        bettor_team = action.get("bettor_team") if actor.is_gm else teams[0]
        if bettor_team not in state["teams"]:
            raise _refuse("bad_field", field="bettor_team", reason="?")
        label = ""
    team = action.get("team") if kind in ("victory", "spectator") else None
    target = action.get("mutant") if kind in ("death", "secret") else None
    if kind == "victory":
        team = bettor_team
    names = {key: [state["tokens"][tid]["name"] for tid in value["members"]]
             for key, value in state["teams"].items()}
    target_name = state["tokens"][target]["name"] if target in state["tokens"] else None
    problems = campaign.check_bet(campaign.Bet("x", kind, stake, team, target_name), names,
                                  bettor_team)
    if problems:
        raise _refuse("bad_field", field=problems[0].field, reason=problems[0].message)
    bet = {"id": state["next_bet"], "kind": kind, "stake": stake, "team": team,
           "mutant": target, "bettor_team": bettor_team, "bettor": actor.user_id,
           "label": label}
    return [Event("bet_placed", {"bet": bet}, visibility="self" if kind == "secret" else "public")]


def _decide_start_fight(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """§ 3 météo: 1d6 on the first turn; § 3 Relances: the lighter teams' free re-rolls;
    then the first round's initiative."""
    _gm(actor)
    _phase(state, "setup")
    if not fighters(state):
        raise _refuse("illegal_action")
    roll = arena.roll_weather(dice)
    teams = {key: [mutant(state, tid) for tid in value["members"]]
             for key, value in state["teams"].items()}
    rerolls = {}
    for key, own in teams.items():
        heaviest = max((other for name, other in teams.items() if name != key),
                       key=lambda group: sum(m.biomass for m in group), default=[])
        rerolls[key] = free_rerolls(own, heaviest)
    weather = {"face": roll.weather.face, "key": roll.weather.key, "name": roll.weather.name}
    events = [Event("fight_started", {"weather": weather, "rerolls": rerolls,
                                      "rolls": [_record(roll.record)]})]
    after = _simulate(state, events)
    return events + _round_events(after, dice)


def _simulate(state: State, events: list[Event]) -> State:
    current = copy.deepcopy(state)
    for event in events:
        current = evolve(current, event)
    return current


# — placement and movement —

def _decide_move(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    tid = _token(state, action)
    _controlled(state, tid, actor)
    board = state["board"]
    x = _int(action, "x", 0, board["width"])
    y = _int(action, "y", 0, board["height"])
    token = state["tokens"][tid]
    if state["phase"] == "setup":
        return _placement(state, tid, x, y, actor)
    if token["kind"] != "mutant":
        _gm(actor)
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
        raise _refuse("too_far", mutant=token["name"], left=_cm(left))
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


def _cm(value: float) -> float | int:
    rounded = round(value, 1)
    return int(rounded) if float(rounded).is_integer() else rounded


def _placement(state: State, tid: str, x: int, y: int, actor: Actor) -> list[Event]:
    """§ 1-3 Terrain et placement: enemy figures stand 30 cm apart."""
    token = state["tokens"][tid]
    for other, entry in state["tokens"].items():
        if entry["kind"] == "mutant" and _enemies(state, tid, other) \
                and math.hypot(entry["x"] - x, entry["y"] - y) < PLACEMENT_CM:
            raise _refuse("too_close", mutant=token["name"], cm=PLACEMENT_CM)
    return [Event("placed", {"token": tid, "name": token["name"],
                             "from": [token["x"], token["y"]], "to": [x, y],
                             "positions": {tid: [x, y]}})]


def _decide_sprint(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """§ 1-2 Mouvement: a pump roll to move as far again; Coureur effréné may try a third
    move (another pump roll; failing it costs a biomoteur); gel may make it fall."""
    tid = _active(state, action, actor)
    activation = state["activation"]
    if activation["sprinted"]:
        raise _refuse("already_sprinted", mutant=state["tokens"][tid]["name"])
    body = mutant(state, tid)
    weather = _weather(state)
    third = _flag(action, "third") and body.has("coureur_effrene")
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
    tid, limb = _limb_ref(state, action, "limb")
    target, target_limb = _limb_ref(state, action, "target")
    _controlled(state, tid, actor)
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
                                purpose=("pompe (deuxième attaque)"
                                         if pending["kind"] == "second_attack"
                                         else "pompe (contre-attaque)"))
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
    if _flag(action, "surge") and attacker.has("afflux_sanguin"):
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
        defender, report = combat.apply_damage(defender, target_limb, result.damage)
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
        else:
            extra["statuses"] = {target: "out"}
            extra["coquet_left"] = True
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
    payload: dict[str, Any] = {"token": pending["by"],
                               "name": state["tokens"][pending["by"]]["name"],
                               "for": pending["kind"], "pending": None}
    if pending["kind"] == "second_attack":
        payload["activation"] = {"acted": True}
    return [Event("follow_up_declined", payload)]


def _decide_skip_free(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    tid = _token(state, action)
    _controlled(state, tid, actor)
    if not any(entry["by"] == tid for entry in state["free_attacks"]):
        raise _refuse("illegal_action")
    return [Event("free_attacks_skipped", {
        "token": tid, "name": state["tokens"][tid]["name"],
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
        victim, report = combat.apply_damage(victim, shot.target_limb, shot.damage.total)
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
            record = combat._roll(dice, "poulet", 2)
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
    following = _next_in_order(state, current)
    events = [Event("turn_ended", {"token": current, "name": state["tokens"][current]["name"],
                                   "next": following,
                                   "next_name": state["tokens"][following]["name"]
                                   if following else None})]
    if following:
        events += _turn_start(_simulate(state, events), following, dice)
    return events


def _next_in_order(state: State, current: str) -> str | None:
    order = state["initiative"]
    index = order.index(current) if current in order else -1
    for tid in order[index + 1:]:
        if _alive(state, tid):
            return tid
    return None


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
        kg = campaign.limb_biomass(given)
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


# — the crowd (§ 3-3 événements) —

def _decide_crowd(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    _phase(state, "fight")
    team = _team_field(state, action, actor)
    if state["crowd"]["chances"].get(team, 0) <= 0:
        raise _refuse("no_chance")
    key = action.get("event")
    if key not in arena.EVENTS:
        raise arena.IllegalArena("unknown_event", event=str(key)[:40])
    victim = _victim(state, key, action.get("victim"), team)
    attempt = arena.try_event(key, dice,
                              earlier_attempts=state["crowd"]["attempts"].get(key, 0))
    rolls = [attempt.record]
    payload: dict[str, Any] = {"team": team, "event": key, "name": attempt.event.name,
                               "success": attempt.success, "victim": victim,
                               "chances": {team: -1}}
    effect: dict[str, Any] = {}
    if attempt.success:
        effect, more = _crowd_effect(state, key, victim, team, dice, payload)
        rolls += more
    payload["effect"] = effect
    payload["rolls"] = [_record(r) for r in rolls]
    events = [Event("crowd_attempt", payload)]
    if effect.get("piece"):
        events.append(Event("piece_added", effect.pop("piece")))
    return events


def _victim(state: State, key: str, victim: Any, team: str) -> str | None:
    kind = EVENT_VICTIM[key]
    if kind is None:
        return None
    if kind == "team":
        if victim not in state["teams"]:
            raise _refuse("bad_victim")
        return victim
    if not isinstance(victim, str) or victim not in state["tokens"]:
        raise _refuse("bad_victim")
    if kind == "mutant" and victim not in fighters(state):
        raise _refuse("bad_victim")
    if kind == "withdrawn" and victim not in state["sponged"]:
        raise _refuse("bad_victim")
    if kind == "feat" and victim not in state["feats"]:
        raise _refuse("bad_victim")
    return victim


def _crowd_effect(state: State, key: str, victim: str | None, team: str, dice: Dice,
                  payload: dict) -> tuple[dict[str, Any], list[RollRecord]]:
    if key == "jet_de_canette":
        body = mutant(state, victim)
        head = next((limb.name for limb in body.living_limbs if skills.is_head(limb)),
                    body.living_limbs[0].name)
        hit = arena.can_hit(body, head, dice)
        rolls = [r for r in (hit.roll, hit.damage) if r]
        effect: dict[str, Any] = {"can": {"limb": head, "hit": hit.hit}}
        if hit.hit and hit.mutant is not None:
            effect["can"]["report"] = _report(hit.report)
            payload["bodies"] = {victim: body_of(hit.mutant)}
            payload.update(_deaths(state, {victim: hit.mutant}, killer_team=None))
        return effect, rolls
    if key == "sortie_du_samedi":
        crowd = arena.saturday_crowd(dice)
        payload["gains"] = [{"team": team, "kg": crowd.trigger_kg, "why": "saturday"},
                            {"team": victim, "kg": crowd.other_kg, "why": "saturday"}]
        return {"saturday": {"trigger": crowd.trigger_kg, "other": crowd.other_kg}}, list(
            crowd.rolls)
    if key == "huee":
        token = state["tokens"][victim]
        payload["statuses"] = {victim: "in"}
        payload["positions"] = {victim: list(token["start"])}
        return {"booed": victim}, []
    if key == "controle_de_police":
        record = arena.police_check(dice)
        return {"police": {"team": victim, "kg": record.total}}, [record]
    if key == "ralenti":
        return {"slow_motion": victim}, []
    if key == "projecteur":
        return {"spotlight": victim}, []
    return {"piece": _new_piece(state, "chicken" if key == "lancer_de_poulet"
                                else "cheerleader")}, []


def _new_piece(state: State, kind: str) -> dict[str, Any]:
    """The chicken lands on the edge farthest from the creatures; the cheerleader falls on the
    edge too (we use the same point: the GM may drag her elsewhere)."""
    width, height = state["board"]["width"], state["board"]["height"]
    center = (width / 2, height / 2)
    candidates = [(width / 2, 1), (width / 2, height - 1), (1, height / 2), (width - 1, height / 2),
                  (2, 2), (width - 2, 2), (2, height - 2), (width - 2, height - 2)]
    living = [state["tokens"][tid] for tid in fighters(state)]

    def room(point: tuple[float, float]) -> float:
        return min((math.hypot(point[0] - t["x"], point[1] - t["y"]) for t in living),
                   default=0)
    x, y = max(candidates, key=room)
    radius = math.hypot(x - center[0], y - center[1]) or 1
    axis = [(x - center[0]) / radius, (y - center[1]) / radius]
    tid = f"p{state['next_piece']}"
    name, body = PIECES[kind]
    piece = {"id": tid, "name": name, "kind": kind, "character_id": None, "owner_id": None,
             "team": None, "status": "in", "x": round(x), "y": round(y), "start": [round(x),
                                                                                  round(y)],
             "initiative": None, "axis": axis, "pos": -radius, "radius": radius}
    return {"piece": piece, "body": body_of(body())}


def _decide_pass_crowd(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    team = _team_field(state, action, actor)
    if state["crowd"]["chances"].get(team, 0) <= 0:
        raise _refuse("no_chance")
    return [Event("crowd_passed", {"team": team, "chances": {team: -1}})]


# — the GM's hand —

def _decide_gm_modifier(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """A situational modifier (high ground, a wall…) on the mutant's next attack, defence or
    shot roll, with its reason; it is spent by that roll."""
    _gm(actor)
    tid = _token(state, action)
    value = _int(action, "value", -10, 10)
    return [Event("modifier_set", {"token": tid, "name": state["tokens"][tid]["name"],
                                   "value": value, "reason": _text(action, "reason")})]


def _decide_gm_correct(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """The GM corrects a count of lost organs in a limb (a forgotten wound, a mistake)."""
    _gm(actor)
    tid, limb_name = _limb_ref(state, action, "limb")
    organ = action.get("organ")
    if organ not in ("muscles", "biomoteurs", "lobes"):
        raise _refuse("bad_field", field="organ", reason="muscles, biomoteurs, lobes")
    body = mutant(state, tid)
    limb = body.limb(limb_name)
    after = _int(action, "lost", 0, getattr(limb, organ))
    before = getattr(limb, f"lost_{organ}")
    fixed = body.with_limb(replace(limb, **{f"lost_{organ}": after}))
    payload = {"token": tid, "name": body.name, "limb": limb_name, "organ": organ,
               "before": before, "after": after, "reason": _text(action, "reason",
                                                                  required=False),
               "bodies": {tid: body_of(fixed)}}
    return [Event("gm_corrected", payload)]


def _decide_note(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    return [Event("note_added", {"text": _text(action, "text"), "by": actor.user_id},
                  visibility="gm" if actor.is_gm and _flag(action, "gm_only") else "public")]


# — the end (§ 3-2 Fin du carnage, § 3-3 Les paris) —

def _decide_end_fight(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """The GM closes the fight: a winner (the team left standing, or the GM's choice), or both
    trainers stop (−1 XP per creature still alive). Then XP, biomass, prizes, bets."""
    _gm(actor)
    if state.get("phase") == "over":
        raise _refuse("match_over")
    stop = _flag(action, "both_stop")
    winner = action.get("winner") or None
    standing = sorted({_team(state, tid) for tid in fighters(state)})
    if winner is None and not stop and len(standing) == 1:
        winner = standing[0]
    if winner is not None and winner not in state["teams"]:
        raise _refuse("bad_field", field="winner", reason="?")
    teams = {key: [mutant(state, tid) for tid in value["members"]]
             for key, value in state["teams"].items()}
    result = campaign.FightResult(
        teams, winner if not stop else None,
        killed_by={state["tokens"][tid]["name"]: team
                   for tid, team in state["killed_by"].items()},
        extra_xp={state["tokens"][tid]["name"]: n for tid, n in state["extra_xp"].items()})
    names = {state["tokens"][tid]["name"]: tid for team in state["teams"].values()
             for tid in team["members"]}
    xp = {names[name]: m.xp for name, m in campaign.experience(result).items()}
    if stop:  # the crowd takes a point from every creature still in the arena
        for tid in fighters(state):
            xp[tid] = max(0, xp.get(tid, mutant(state, tid).xp) - 1)
    # § 3-2: a killed creature gives its killers a remaining limb: the heaviest (house).
    spoils = {}
    for name, _team_key in result.killed_by.items():
        corpse = result.mutant(name)
        living = sorted((limb for limb in corpse.limbs if not limb.dead),
                        key=lambda limb: -campaign.limb_biomass(limb))
        spoils[name] = [limb.name for limb in living[:2]]
    gains = list(campaign.biomass_gains(result, dice, spoils=spoils))
    gains += campaign.prizes(result, dice)
    gains += campaign.chouchou_du_public(result, dice)
    rolls = [gain.record for gain in gains if gain.record is not None]
    own = (campaign.N_("%(mutant)s survived."), campaign.N_("A gift for %(mutant)s."))
    listed = [{"team": gain.team, "kg": gain.kg, "why": gain.why, "params": dict(gain.params),
               "mutant": names.get(str(gain.params.get("mutant", "")))
               if gain.why in own else None} for gain in gains]
    bets, net = _settle(state, result)
    for team, kg in net.items():
        if kg:
            listed.append({"team": team, "kg": kg, "why": "bets"})
    all_gains = state["gains"] + listed
    credits = _credits(state, all_gains, result)
    results = {"winner": result.winner, "both_stop": stop, "xp": xp, "credits": credits,
               "dead": [tid for tid in names.values() if mutant(state, tid).dead],
               "bets": bets}
    return [Event("fight_ended", {"winner": result.winner, "both_stop": stop,
                                  "gains": listed, "results": results,
                                  "rolls": [_record(r) for r in rolls]})]


def _settle(state: State, result: campaign.FightResult) -> tuple[list[dict], dict[str, int]]:
    owners = {key: key for key in state["teams"]}
    bets = []
    for bet in state["bets"]:
        bettor = bet["bettor_team"] or f"spectator:{bet['id']}"
        name = state["tokens"][bet["mutant"]]["name"] if bet.get("mutant") else None
        bets.append(campaign.Bet(bettor, bet["kind"], bet["stake"], bet.get("team"), name))
    net = campaign.settle_bets(bets, result, owners=owners,
                               police={team: kg for team, kg in state["police"].items()})
    lines = []
    for bet, rules_bet in zip(state["bets"], bets, strict=True):
        alone = campaign.settle_bets([rules_bet], result, owners=owners)
        lines.append({"id": bet["id"], "net": alone.get(rules_bet.bettor, 0)})
    teams_net = {team: kg for team, kg in net.items() if team in state["teams"]}
    return lines, teams_net


def _credits(state: State, gains: list[dict], result: campaign.FightResult) -> dict[str, int]:
    """Where each kilogram goes on the sheets: a survivor's own 2d6 and a dead one's remains to
    that mutant; the team's other gains to its captain (its first mutant still alive, else its
    first mutant)."""
    credits: dict[str, int] = {}
    for gain in gains:
        tid = gain.get("mutant")
        team = gain.get("team")
        if tid is None:
            if team not in state["teams"]:
                continue
            members = state["teams"][team]["members"]
            tid = next((m for m in members if not mutant(state, m).dead), members[0])
        credits[tid] = credits.get(tid, 0) + gain["kg"]
    return credits


# — the table's dispatch —

_DECIDE: dict[str, Callable[[State, Mapping[str, Any], Actor, Dice], list[Event]]] = {
    "set_arena": _decide_set_arena,
    "add_terrain": _decide_terrain,
    "remove_terrain": _decide_remove_terrain,
    "entrance_prize": _decide_entrance_prize,
    "buy_rerolls": _decide_buy_rerolls,
    "place_bet": _decide_bet,
    "start_fight": _decide_start_fight,
    "move": _decide_move,
    "sprint": _decide_sprint,
    "attack": _decide_attack,
    "decline": _decide_decline,
    "skip_free_attacks": _decide_skip_free,
    "shoot": _decide_shoot,
    "end_turn": _decide_end_turn,
    "new_round": _decide_new_round,
    "sponge": _decide_sponge,
    "crowd_event": _decide_crowd,
    "pass_crowd": _decide_pass_crowd,
    "gm_modifier": _decide_gm_modifier,
    "gm_correct": _decide_gm_correct,
    "note": _decide_note,
    "reroll": _decide_reroll,
    "use_skill": _decide_skill,
    "end_fight": _decide_end_fight,
}


def legal_actions(state: State, actor: Actor) -> list[ActionForm]:
    """Only what the rules allow this actor now (the page shows only these)."""
    if actor.is_spectator or state.get("status") == "finished":
        return []
    forms: list[ActionForm] = []
    mine = [tid for tid in state["tokens"] if actor.controls(state["tokens"][tid])
            and state["tokens"][tid]["kind"] == "mutant"]
    teams = _actor_teams(state, actor)
    phase = state.get("phase")
    if phase == "setup":
        placeable = [tid for tid in mine if _in_arena(state, tid)]
        if placeable:
            forms.append(ActionForm("move", "Place a mutant", "mutatior/_move.html",
                                    {"tokens": placeable, "setup": True}))
        if teams:
            forms.append(ActionForm("place_bet", "Bet", "mutatior/_bet.html", {
                "teams": teams, "kinds": [k for k in BET_KINDS
                                          if k != "spectator" or actor.is_gm]}))
            forms.append(ActionForm("buy_rerolls", "Buy re-rolls", "mutatior/_rerolls.html",
                                    {"teams": teams}))
        if actor.is_gm:
            forms += [ActionForm("set_arena", "Arena", "mutatior/_arena.html"),
                      ActionForm("add_terrain", "Add terrain", "mutatior/_terrain.html")]
            if not any(gain["why"] == "entrance" for gain in state["gains"]):
                forms.append(ActionForm("entrance_prize", "Entrance prize",
                                        "mutatior/_entrance.html"))
            forms.append(ActionForm("start_fight", "Start the fight", "mutatior/_start.html"))
    elif phase == "fight":
        forms += _fight_forms(state, actor, mine, teams)
    if actor.is_gm:
        terrain = [shape["id"] for shape in state["board"]["terrain"]]
        if terrain:
            forms.append(ActionForm("remove_terrain", "Remove terrain",
                                    "mutatior/_remove_terrain.html", {"terrain": terrain}))
        if phase == "fight":
            alive = _targets(state)
            forms += [ActionForm("gm_modifier", "Situational modifier",
                                 "mutatior/_gm_modifier.html", {"tokens": alive}),
                      ActionForm("gm_correct", "Correct a wound", "mutatior/_gm_correct.html",
                                 {"limbs": [f"{tid}:{limb['name']}" for tid in state["tokens"]
                                            for limb in state["bodies"][tid]["limbs"]]}),
                      ActionForm("end_fight", "End the fight", "mutatior/_end_fight.html",
                                 {"teams": list(state["team_order"])})]
    forms.append(ActionForm("note", "Add a note", "mutatior/_note.html"))
    return forms


def _fight_forms(state: State, actor: Actor, mine: list[str],
                 teams: list[str]) -> list[ActionForm]:
    forms: list[ActionForm] = []
    pending = state.get("pending")
    current = state.get("turn")
    # One attack form at a time: the exchange under way first, then a free attack owed,
    # then the active mutant's own attack.
    candidates = ([pending["by"]] if pending else []) + [
        entry["by"] for entry in state["free_attacks"]] + ([current] if current else [])
    for tid in dict.fromkeys(candidates):
        if not actor.controls(state["tokens"][tid]):
            continue
        limbs, targets = attack_options(state, tid)
        if limbs:
            mode = _attack_mode(state, tid)
            forms.append(ActionForm("attack", "Attack", "mutatior/_attack.html", {
                "token": tid, "limbs": limbs, "targets": targets, "mode": mode,
                "pending": pending if mode == "pending" else None,
                "surge": mutant(state, tid).has("afflux_sanguin")}))
            break
    if pending and actor.controls(state["tokens"][pending["by"]]):
        forms.append(ActionForm("decline", "Let it go", "mutatior/_decline.html",
                                {"pending": pending}))
    for tid in sorted({entry["by"] for entry in state["free_attacks"]}):
        if actor.controls(state["tokens"][tid]):
            forms.append(ActionForm("skip_free_attacks", "Skip the free attacks",
                                    "mutatior/_skip_free.html", {"token": tid}))
    activation = state.get("activation") or {}
    if current and actor.controls(state["tokens"][current]) and not pending:
        if not activation.get("acted"):
            left = activation["allowance"] - activation["moved"]
            if left > 0:
                forms.append(ActionForm("move", "Move", "mutatior/_move.html",
                                        {"tokens": [current], "left": _cm(left)}))
            if not activation.get("sprinted"):
                forms.append(ActionForm("sprint", "Sprint", "mutatior/_sprint.html", {
                    "token": current,
                    "third": mutant(state, current).has("coureur_effrene")}))
            limbs, targets = shoot_options(state, current)
            if limbs:
                forms.append(ActionForm("shoot", "Shoot", "mutatior/_shoot.html",
                                        {"token": current, "limbs": limbs,
                                         "targets": targets}))
        turn_skills = skill_options(state, current)
        if turn_skills:
            forms.append(ActionForm("use_skill", "Use a skill", "mutatior/_skill.html",
                                    {"token": current, **turn_skills}))
        forms.append(ActionForm("end_turn", "End the turn", "mutatior/_end_turn.html",
                                {"token": current}))
    if current is None and (actor.is_gm or teams):
        forms.append(ActionForm("new_round", "Next round", "mutatior/_new_round.html"))
    busy = {pending["by"], pending["against"]} if pending else set()
    sponge = [tid for tid in mine if tid in fighters(state) and tid not in state["booed"]
              and tid not in busy]
    if sponge:
        forms.append(ActionForm("sponge", "Throw in the sponge", "mutatior/_sponge.html",
                                {"tokens": sponge}))
    rerolls = reroll_teams(state, actor)
    if rerolls:
        forms.append(ActionForm("reroll", "Re-roll", "mutatior/_reroll.html",
                                {"teams": rerolls, "kind": state["last_roll"]["action"]["kind"]}))
    crowd = [team for team in teams if state["crowd"]["chances"].get(team, 0) > 0]
    if crowd:
        forms.append(ActionForm("crowd_event", "Crowd event", "mutatior/_crowd.html", {
            "teams": crowd, "events": list(arena.EVENTS),
            "mutants": fighters(state), "withdrawn": list(state["sponged"]),
            "feats": [tid for tid in state["feats"] if tid in state["tokens"]],
            "victim_teams": list(state["team_order"])}))
        forms.append(ActionForm("pass_crowd", "Pass", "mutatior/_pass_crowd.html",
                                {"teams": crowd}))
    if actor.is_gm:
        pieces = [tid for tid in state["tokens"] if state["tokens"][tid]["kind"] != "mutant"
                  and _alive(state, tid)]
        if pieces:
            forms.append(ActionForm("move", "Move a crowd piece", "mutatior/_move.html",
                                    {"tokens": pieces, "pieces": True}))
    return _merge_moves(forms)


def _merge_moves(forms: list[ActionForm]) -> list[ActionForm]:
    """One ``move`` form (the board drags through it): the active mutant and the pieces."""
    moves = [form for form in forms if form.kind == "move"]
    if len(moves) < 2:
        return forms
    tokens = [tid for form in moves for tid in form.choices["tokens"]]
    merged = ActionForm("move", "Move", "mutatior/_move.html",
                        {**moves[0].choices, "tokens": tokens})
    first = forms.index(moves[0])
    rest = [form for form in forms if form.kind != "move"]
    rest.insert(first, merged)
    return rest


def view(state: State, viewer: Actor) -> State:
    """Secret bets are seen by their bettor and the GM only (§ 3-3: "secrètement")."""
    if viewer.is_gm:
        return state
    bets = [bet for bet in state.get("bets") or []
            if bet["kind"] != "secret" or bet["bettor"] == viewer.user_id]
    last = state.get("last_roll")
    if last:  # the state before the roll holds the bets too
        last = {key: value for key, value in last.items() if key != "before"}
    return {**state, "bets": bets, "last_roll": last}


def between_matches(state: State, sheets: Mapping[int, dict]) -> dict[int, dict]:
    """§ 3-2 Fin du carnage: each mutant leaves with its wounds (lost organs, dead limbs), its
    experience, its popularity, the biomass credited to it, and dead if it died."""
    results = state.get("results") or {}
    changed = {}
    for tid, token in state.get("tokens", {}).items():
        sheet = sheets.get(token.get("character_id")) if token["kind"] == "mutant" else None
        if sheet is None or tid not in state["bodies"]:
            continue
        body = state["bodies"][tid]
        dead = tid in results.get("dead", []) or mutant(state, tid).dead
        xp = results.get("xp", {}).get(tid, body.get("xp", 0))
        reserve = max(0, int(sheet.get("reserve_kg", 0) or 0)
                      + results.get("credits", {}).get(tid, 0))
        changed[token["character_id"]] = {
            **sheet, "limbs": [dict(limb) for limb in body["limbs"]], "xp": max(0, xp),
            "fame": body.get("fame", 0), "reserve_kg": reserve, "dead": bool(dead)}
    return changed


def team_problems(state: State) -> dict[str, list]:
    """§ 3 Campagne: each team against the fight's weight category (shown, not enforced)."""
    category = state.get("category_t", 2)
    if category not in CATEGORIES_T:
        return {}
    with custom_implants(state.get("content")):
        return {key: validate_team([mutant(state, tid) for tid in team["members"]], category)
                for key, team in state["teams"].items()}
