"""A Mutatior fight's surroundings: the crowd's events, the GM's hand, and the end of the fight
with its settlement (000_e34df4ff7a8d792c.txt § 3-2 Fin du carnage, § 3-3 Les paris et
événements).
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from app.rules.action_fields import choice_field, flag, int_field, require_gm, text_field
from app.rules.dice import Dice, RollRecord
from app.rules.match import Actor, Event, State
from app.rules.mutatior import arena, campaign, skills
from app.rules.mutatior.match_state import (
    EVENT_VICTIM,
    PIECES,
    TEXT_MAX,
    _deaths,
    _limb_ref,
    _phase,
    _record,
    _refuse,
    _report,
    _team,
    _team_field,
    _token,
    body_of,
    fighters,
    mutant,
)
from app.rules.notes import note_event

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
    attempt = arena.try_event(key, dice, earlier_failures=failures(state, team, key))
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


def failures(state: State, team: str, key: str) -> int:
    """The team's failed attempts at this event so far in the fight (each adds +1 to the dice
    of its next try)."""
    return state["crowd"].get("failures", {}).get(team, {}).get(key, 0)


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
    require_gm(actor)
    tid = _token(state, action)
    value = int_field(action, "value", -10, 10)
    reason = text_field(action, "reason", TEXT_MAX)
    return [Event("modifier_set", {"token": tid, "name": state["tokens"][tid]["name"],
                                   "value": value, "reason": reason})]


def _decide_gm_correct(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """The GM corrects a count of lost organs in a limb (a forgotten wound, a mistake)."""
    require_gm(actor)
    tid, limb_name = _limb_ref(state, action, "limb")
    organ = choice_field(action, "organ", ("muscles", "biomoteurs", "lobes"))
    body = mutant(state, tid)
    limb = body.limb(limb_name)
    after = int_field(action, "lost", 0, getattr(limb, organ))
    before = getattr(limb, f"lost_{organ}")
    fixed = body.with_limb(replace(limb, **{f"lost_{organ}": after}))
    reason = text_field(action, "reason", TEXT_MAX, required=False)
    payload = {"token": tid, "name": body.name, "limb": limb_name, "organ": organ,
               "before": before, "after": after, "reason": reason,
               "bodies": {tid: body_of(fixed)}}
    return [Event("gm_corrected", payload)]


def _decide_note(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    return [note_event(action, actor, max_length=TEXT_MAX)]


# — the end (§ 3-2 Fin du carnage, § 3-3 Les paris) —

def _decide_end_fight(state: State, action, actor: Actor, dice: Dice) -> list[Event]:
    """The GM closes the fight: a winner (the team left standing, or the GM's choice), or both
    trainers stop (−1 XP per creature still alive). Then XP, biomass, prizes, bets."""
    require_gm(actor)
    if state.get("phase") == "over":
        raise _refuse("match_over")
    stop = flag(action, "both_stop")
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
    # § 3-2: a killed creature gives its killers a remaining limb of their choice
    # (``spoil_<token>``), by default the heaviest; a surviving Voleur takes the next heaviest.
    spoils = {}
    for tid, choices in spoil_choices(state).items():
        chosen = action.get(f"spoil_{tid}")
        first = chosen if chosen in choices else choices[0]
        spoils[state["tokens"][tid]["name"]] = [first, *[c for c in choices if c != first]]
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


def spoil_choices(state: State) -> dict[str, list[str]]:
    """Each killed creature's living limbs, heaviest first: what its killers may take."""
    choices = {}
    for tid in state["killed_by"]:
        corpse = mutant(state, tid)
        living = sorted((limb for limb in corpse.limbs if not limb.dead),
                        key=lambda limb: -corpse.limb_biomass(limb))
        if living:
            choices[tid] = [limb.name for limb in living]
    return choices


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


