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

Here: the set-up, ``decide`` (with re-rolls), the legal forms, ``view`` and
``between_matches``. Reading the state and ``evolve`` are in ``match_state``; the fight's
actions in ``match_fight``; the crowd, the GM's hand and the end in ``match_arena``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from app.rules import board
from app.rules.action_fields import choice_field, flag, int_field, require_gm, text_field
from app.rules.dice import Dice
from app.rules.match import ActionForm, Actor, Event, MatchSetup, State, handler_for
from app.rules.mutatior import arena, campaign, combat, match_flow
from app.rules.mutatior.body import CATEGORIES_T, free_rerolls, validate_team
from app.rules.mutatior.match_arena import (
    _decide_crowd,
    _decide_end_fight,
    _decide_gm_correct,
    _decide_gm_modifier,
    _decide_note,
    _decide_pass_crowd,
    spoil_choices,
)
from app.rules.mutatior.match_fight import (
    _attack_mode,
    _decide_attack,
    _decide_decline,
    _decide_end_turn,
    _decide_move,
    _decide_new_round,
    _decide_shoot,
    _decide_skill,
    _decide_skip_free,
    _decide_sponge,
    _decide_sprint,
    _round_events,
    attack_options,
    next_placer,
    shoot_options,
    skill_options,
)
from app.rules.mutatior.match_state import (
    BET_KINDS,
    BOARD_MAX,
    NAMES_TEAMS,
    STAKE_MAX,
    TEXT_MAX,
    _actor_teams,
    _alive,
    _cm,
    _in_arena,
    _phase,
    _record,
    _refuse,
    _simulate,
    _size,
    _targets,
    _team,
    _team_field,
    evolve,
    fighters,
    mutant,
    team_names,
)
from app.rules.mutatior.sheet import shape_problems
from app.rules.purposes import Purpose
from app.rules.system import N_

__all__ = ["attack_options", "between_matches", "decide", "evolve", "fighters",
           "legal_actions", "mutant", "shoot_options", "start", "team_weights", "view"]


# — set-up ————————————————————————————————————————————————————————————————————————

def start(setup: MatchSetup, dice: Dice) -> list[Event]:
    """The teams enter: each trainer's mutants (or a sheet's team name) make a team, lined up
    on opposite edges 30 cm apart or more (§ 1-3 Terrain et placement); the GM then sets the
    arena, awards the entrance prize and starts the fight (weather, first initiative)."""
    options = setup.options or {}
    content = options.get("content") or {}
    width, height = (_size(options.get(key)) for key in ("width", "height"))
    sand_box = {"unit": "cm", "width": width, "height": height, "terrain": []}
    tokens, bodies, teams, order = {}, {}, {}, []
    names: set[str] = set()
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
            trainers = options.get("trainers") or {}
            teams[team] = {"label": (sheet.get("team") or "").strip(),
                           # § 3- Campagne: a team is its trainer's (the GM's for NPCs).
                           "trainer": str(trainers.get(str(participant.owner_id), ""))[:80]
                           if participant.owner_id is not None else "",
                           "owner_id": participant.owner_id, "members": [],
                           "rerolls": 0, "bought": []}
            order.append(team)
        teams[team]["members"].append(tid)
        tokens[tid] = {"id": tid, "name": name, "kind": "mutant",
                       "character_id": participant.character_id,
                       "owner_id": participant.owner_id, "team": team, "status": "in",
                       "x": 0, "y": 0, "start": [0, 0], "initiative": None}
        body = {"limbs": [dict(limb) for limb in sheet.get("limbs", [])],
                "order": sheet.get("damage_order") or "",
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
    return [Event("match_started", {"name": setup.name, "board": sand_box, "tokens": tokens,
                                    "bodies": bodies, "teams": teams, "team_order": order,
                                    "content": content, "category_t": 2})]


# — deciding (dice are rolled here only) ————————————————————————————————————————————

def decide(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice) -> list[Event]:
    kind = action.get("kind")
    handler = handler_for(_DECIDE, state, action, actor)
    # Fields are plain values (a list only for the creatures buying re-rolls): anything else
    # is left out, so the checks below refuse it as missing rather than stumble on it.
    action = {key: value for key, value in action.items()
              if value is None or isinstance(value, (str, int, float))
              or (key == "tokens" and isinstance(value, list)
                  and all(isinstance(item, str) for item in value))}
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
    if action.get("kind") != "note":  # a note changes nothing of the fight
        events += match_flow.settle(state, events, dice)
    if events and state.get("phase") == "fight":
        events[0].payload["reroll_point"] = _reroll_point(state, action, actor) \
            if action.get("kind") in REROLLABLE else None
    return events


REROLLABLE = frozenset({"attack", "shoot", "sprint", "sponge", "crowd_event"})


def _reroll_point(state: State, action: Mapping[str, Any], actor: Actor) -> dict[str, Any]:
    """What a re-roll needs: the action, who did it, the teams whose creatures rolled (each
    with its creature, for a bought re-roll); ``evolve`` keeps the state before it."""
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
    return {"action": {key: value for key, value in action.items()
                       if key not in ("seq", "idempotency_key", "csrf_token")},
            "actor": {"user_id": actor.user_id, "is_gm": actor.is_gm,
                      "character_ids": sorted(actor.character_ids)},
            "teams": sorted(mutants), "mutants": mutants}


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
    first = Event("rerolled", {"team": team, "spent": spent, "kind": point["action"]["kind"]})
    after = _simulate(state, [first])
    original = Actor(point["actor"]["user_id"], is_gm=point["actor"]["is_gm"],
                     character_ids=frozenset(point["actor"]["character_ids"]))
    handler = _DECIDE[point["action"]["kind"]]
    return [first, *_judged(after, point["action"], original, dice, handler)]


# — set-up actions (GM) —

def _decide_set_arena(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """§ 0- Généralités: a 60 cm sand box by default, any size the GM has; § 3: the weight
    category (1, 2 or 3 tonnes)."""
    require_gm(actor)
    _phase(state, "setup")
    size = {"width": int_field(action, "width", 20, BOARD_MAX),
            "height": int_field(action, "height", 20, BOARD_MAX)}
    category = int_field(action, "category_t", 1, 3, default=state["category_t"])
    choose = flag(action, "owners_choose")
    first = action.get("first_team") or None
    if first is not None and (first not in state["teams"] or state.get("placed")):
        raise _refuse("bad_field", field="first_team", reason="?")
    return [Event("arena_set", {"board": size, "category_t": category,
                                "first_team": first, "owners_choose": choose})]


def _decide_entrance_prize(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """§ 1-3 Terrain et placement: the best entrance wins 2d6 kg of biomass (GM's choice)."""
    require_gm(actor)
    _phase(state, "setup")
    team = _team_field(state, action, actor)
    if any(gain["why"] == "entrance" for gain in state["gains"]):
        raise _refuse("illegal_action")
    record = combat._roll(dice, Purpose("entrance prize"), 2)
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
    kind = choice_field(action, "bet", BET_KINDS)
    stake = int_field(action, "stake", 1, STAKE_MAX)
    if kind == "spectator":
        require_gm(actor)
        bettor_team, label = None, text_field(action, "label", TEXT_MAX)
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


def _uneven(state: State) -> bool:
    return any(weight["problems"] for weight in team_weights(state).values())


def _check_teams(state: State) -> None:
    names = team_names(state)
    for key, weight in team_weights(state).items():
        if weight["problems"]:
            raise _refuse("uneven_teams", team=names[key]["captain"])


def _decide_start_fight(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """§ 3 météo: 1d6 on the first turn; § 3 Relances: the lighter teams' free re-rolls;
    then the first round's initiative."""
    require_gm(actor)
    _phase(state, "setup")
    if not fighters(state):
        raise _refuse("illegal_action")
    # § 3 Campagne: teams of 3 to 10 within the weight category, no skill shared. Teams that
    # break them fight only when the trainers agree (the GM ticks it, and the log says so).
    agreed = flag(action, "uneven")
    if not agreed:
        _check_teams(state)
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
                                      "uneven_agreed": agreed and _uneven(state),
                                      "rolls": [_record(roll.record)]})]
    after = _simulate(state, events)
    return events + _round_events(after, dice)


# — the table's dispatch —

_DECIDE: dict[str, Callable[[State, Mapping[str, Any], Actor, Dice], list[Event]]] = {
    "set_arena": _decide_set_arena,
    "add_terrain": board.decide_add_terrain,  # the board every game shares
    "remove_terrain": board.decide_remove_terrain,
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
    "set_orders": match_flow._decide_orders,
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
        turn = next_placer(state)
        placeable = [tid for tid in mine if _in_arena(state, tid)
                     and tid not in state.get("placed", []) and _team(state, tid) == turn]
        if placeable:
            forms.append(ActionForm("move", N_("Place a mutant"), "mutatior/_move.html",
                                    {"tokens": placeable, "setup": True}))
        if teams:
            forms.append(ActionForm("place_bet", N_("Bet"), "mutatior/_bet.html", {
                "teams": teams, "kinds": [k for k in BET_KINDS
                                          if k != "spectator" or actor.is_gm]}))
            forms.append(ActionForm("buy_rerolls", N_("Buy re-rolls"), "mutatior/_rerolls.html",
                                    {"teams": teams}))
        if actor.is_gm:
            forms += [ActionForm("set_arena", N_("Arena"), "mutatior/_arena.html"),
                      ActionForm("add_terrain", N_("Add terrain"), "board/_terrain.html")]
            if state["team_order"] and not any(gain["why"] == "entrance"
                                               for gain in state["gains"]):
                forms.append(ActionForm("entrance_prize", N_("Entrance prize"),
                                        "mutatior/_entrance.html"))
            if fighters(state):
                forms.append(ActionForm("start_fight", N_("Start the fight"),
                                        "mutatior/_start.html", {"uneven": _uneven(state)}))
    elif phase == "fight":
        forms += _fight_forms(state, actor, mine, teams)
    forms += _orders_form(state, mine)
    if actor.is_gm:
        terrain = [shape["id"] for shape in state["board"]["terrain"]]
        if terrain:
            forms.append(ActionForm("remove_terrain", N_("Remove terrain"),
                                    "board/_remove_terrain.html", {"terrain": terrain}))
        if phase == "fight":
            alive = _targets(state)
            if alive:
                forms.append(ActionForm("gm_modifier", N_("Situational modifier"),
                                        "mutatior/_gm_modifier.html", {"tokens": alive}))
            forms.append(ActionForm("gm_correct", N_("Correct a wound"),
                                    "mutatior/_gm_correct.html",
                                    {"limbs": [f"{tid}:{limb['name']}"
                                               for tid in state["tokens"]
                                               for limb in state["bodies"][tid]["limbs"]]}))
            forms = _with_end_form(state, forms)
    forms.append(ActionForm("note", N_("Add a note"), "mutatior/_note.html"))
    return forms


def _with_end_form(state: State, forms: list[ActionForm]) -> list[ActionForm]:
    """The GM's « Terminer le combat »: once the fight is decided (§ 3-2), it is what the
    table awaits, first in the GM's panel; before, one of the GM's tools."""
    decided = match_flow.decided(state)
    standing = match_flow.standing_teams(state)
    end = ActionForm("end_fight", N_("End the fight"), "mutatior/_end_fight.html",
                     {"teams": list(state["team_order"]), "spoils": spoil_choices(state),
                      "awaited": decided, "winner": standing[0] if len(standing) == 1
                      else None})
    return [end, *forms] if decided else [*forms, end]


def _orders_form(state: State, mine: list[str]) -> list[ActionForm]:
    """Standing orders for the trainer's mutants still in the arena, from the set-up until
    the fight is decided (``match_flow``)."""
    if state.get("phase") not in ("setup", "fight") or match_flow.decided(state):
        return []
    living = [tid for tid in mine if _alive(state, tid)]
    if not living:
        return []
    return [ActionForm("set_orders", N_("Standing orders"), "mutatior/_orders.html", {
        "tokens": living, "strikes": list(match_flow.STRIKES),
        "limbs": {tid: match_flow.order_limbs(state, tid) for tid in living},
        "orders": {tid: dict(match_flow.orders(state, tid)) for tid in living},
        "setting": True})]


def _fight_forms(state: State, actor: Actor, mine: list[str],
                 teams: list[str]) -> list[ActionForm]:
    if match_flow.decided(state):
        return _decided_forms(state, actor, teams)
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
            forms.append(ActionForm("attack", N_("Attack"), "mutatior/_attack.html", {
                "token": tid, "limbs": limbs, "targets": targets, "mode": mode,
                "pending": pending if mode == "pending" else None,
                "surge": mutant(state, tid).has("afflux_sanguin")}))
            break
    if pending and actor.controls(state["tokens"][pending["by"]]):
        forms.append(ActionForm("decline", N_("Let it go"), "mutatior/_decline.html",
                                {"pending": pending}))
    for tid in sorted({entry["by"] for entry in state["free_attacks"]}):
        if actor.controls(state["tokens"][tid]):
            forms.append(ActionForm("skip_free_attacks", N_("Skip the free attacks"),
                                    "mutatior/_skip_free.html", {"token": tid}))
    activation = state.get("activation") or {}
    if current and actor.controls(state["tokens"][current]) and not pending:
        if not activation.get("acted"):
            left = activation["allowance"] - activation["moved"]
            if left > 0:
                forms.append(ActionForm("move", N_("Move"), "mutatior/_move.html",
                                        {"tokens": [current], "left": _cm(left)}))
            if not activation.get("sprinted"):
                forms.append(ActionForm("sprint", N_("Sprint"), "mutatior/_sprint.html", {
                    "token": current,
                    "third": mutant(state, current).has("coureur_effrene")}))
            limbs, targets = shoot_options(state, current)
            if limbs:
                forms.append(ActionForm("shoot", N_("Shoot"), "mutatior/_shoot.html",
                                        {"token": current, "limbs": limbs,
                                         "targets": targets}))
        turn_skills = skill_options(state, current)
        if turn_skills:
            forms.append(ActionForm("use_skill", N_("Use a skill"), "mutatior/_skill.html",
                                    {"token": current, **turn_skills}))
        forms.append(ActionForm("end_turn", N_("End the turn"), "mutatior/_end_turn.html",
                                {"token": current}))
    if current is None and (actor.is_gm or teams):
        forms.append(ActionForm("new_round", N_("Next round"), "mutatior/_new_round.html"))
    busy = {pending["by"], pending["against"]} if pending else set()
    sponge = [tid for tid in mine if tid in fighters(state) and tid not in state["booed"]
              and tid not in busy]
    if sponge:
        forms.append(ActionForm("sponge", N_("Throw in the sponge"), "mutatior/_sponge.html",
                                {"tokens": sponge}))
    forms += _crowd_forms(state, actor, teams)
    if actor.is_gm:
        pieces = [tid for tid in state["tokens"] if state["tokens"][tid]["kind"] != "mutant"
                  and _alive(state, tid)]
        if pieces:
            forms.append(ActionForm("move", N_("Move a crowd piece"), "mutatior/_move.html",
                                    {"tokens": pieces, "pieces": True}))
    return _merge_moves(forms)


def _decided_forms(state: State, actor: Actor, teams: list[str]) -> list[ActionForm]:
    """A decided fight has no turns: what may still change it is a re-roll of the roll
    that decided it (§ 3 Relances) and the crowd (§ 3-3: a Huée brings a creature back)."""
    return _crowd_forms(state, actor, teams)


def _crowd_forms(state: State, actor: Actor, teams: list[str]) -> list[ActionForm]:
    """A re-roll of the last roll, and the crowd events a team may try (§ 3, § 3-3)."""
    forms = []
    rerolls = reroll_teams(state, actor)
    if rerolls:
        forms.append(ActionForm("reroll", N_("Re-roll"), "mutatior/_reroll.html",
                                {"teams": rerolls, "kind": state["last_roll"]["action"]["kind"]}))
    crowd = [team for team in teams if state["crowd"]["chances"].get(team, 0) > 0]
    if crowd:
        forms.append(ActionForm("crowd_event", N_("Crowd event"), "mutatior/_crowd.html", {
            "teams": crowd, "events": list(arena.EVENTS),
            "mutants": fighters(state), "withdrawn": list(state["sponged"]),
            "feats": [tid for tid in state["feats"] if tid in state["tokens"]],
            "victim_teams": list(state["team_order"]),
            "retries": {team: dict(state["crowd"].get("failures", {}).get(team, {}))
                        for team in crowd}}))
        forms.append(ActionForm("pass_crowd", N_("Pass"), "mutatior/_pass_crowd.html",
                                {"teams": crowd}))
    return forms


def _merge_moves(forms: list[ActionForm]) -> list[ActionForm]:
    """One ``move`` form (the board drags through it): the active mutant and the pieces."""
    moves = [form for form in forms if form.kind == "move"]
    if len(moves) < 2:
        return forms
    tokens = [tid for form in moves for tid in form.choices["tokens"]]
    merged = ActionForm("move", N_("Move"), "mutatior/_move.html",
                        {**moves[0].choices, "tokens": tokens})
    first = forms.index(moves[0])
    rest = [form for form in forms if form.kind != "move"]
    rest.insert(first, merged)
    return rest


def view(state: State, viewer: Actor) -> State:
    """Secret bets are seen by their bettor and the GM only (§ 3-3: "secrètement"); every
    viewer also gets each team's weight against the category (``weights``, computed)."""
    if not state.get("teams"):
        return state
    shown = {**state, "weights": team_weights(state),
             "placer": next_placer(state) if state.get("phase") == "setup" else None}
    if viewer.is_gm:
        return shown
    shown["bets"] = [bet for bet in state.get("bets") or []
                     if bet["kind"] != "secret" or bet["bettor"] == viewer.user_id]
    last = state.get("last_roll")
    if last:  # the state before the roll holds the bets too
        shown["last_roll"] = {key: value for key, value in last.items() if key != "before"}
    return shown


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def between_matches(state: State, sheets: Mapping[int, dict]) -> dict[int, dict]:
    """§ 3-2 Fin du carnage: each mutant leaves with its wounds (lost organs, dead limbs), its
    experience, its popularity, the biomass credited to it, and dead if it died; ``fights``
    counts the fights it came back from (a trainer's care is judged from the first one on,
    and Greffon allows one graft per fight, ``changes.validate_change``)."""
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
            "fame": body.get("fame", 0), "reserve_kg": reserve, "dead": bool(dead),
            "fights": _count(sheet.get("fights")) + 1}
    return changed


def team_weights(state: State) -> dict[str, dict[str, Any]]:
    """§ 3 Campagne: each team's biomass against the fight's category, with the team rules it
    breaks (shown to everyone, not enforced: the table may agree to an uneven fight). Once the
    GM starts the fight anyway, the warning is overruled and no longer shown."""
    category = state.get("category_t", 2)
    weights = {}
    for key, team in state["teams"].items():
        mutants = [mutant(state, tid) for tid in team["members"]]
        problems = validate_team(mutants, category) if (
            category in CATEGORIES_T and state.get("phase") == "setup") else []
        weights[key] = {"kg": sum(m.biomass for m in mutants), "limit": category * 1000,
                        "problems": [{"message": p.message, "params": dict(p.params),
                                      "rule": p.rule} for p in problems]}
    return weights
