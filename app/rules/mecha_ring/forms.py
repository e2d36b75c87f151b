"""Mecha-Ring's ``legal_actions``: only what this viewer may do now, with only legal choices.

The forms carry names, never keys, for the page (game terms keep their French names).
"""

from __future__ import annotations

from app.rules.match import ActionForm, Actor, State
from app.rules.mecha_ring.actions import RECHARGE_COST, TIMER_MAX, TIMER_MIN
from app.rules.mecha_ring.bots import next_move, stand_in, waiting_seat
from app.rules.mecha_ring.content import MAX_ENERGY
from app.rules.mecha_ring.match import current_attacker, fighters, in_tournament, sfx_card
from app.rules.mecha_ring.reactions import relevant
from app.rules.mecha_ring.robot import (
    SLOT_FAMILY,
    SLOTS,
    card,
    legs_spendable,
    radar_spendable,
    standing,
    targets,
)


def _mine(state: State, actor: Actor) -> list[str]:
    return [tid for tid in state["seats"] if actor.controls(state["tokens"][tid])]


def legal_actions(state: State, actor: Actor) -> list[ActionForm]:
    if actor.is_spectator or state.get("status") != "running" or not state.get("tokens"):
        return []
    mine = _mine(state, actor)
    forms: list[ActionForm] = []
    phase = state.get("phase")
    window = state.get("window")
    if window:
        forms += _window_forms(state, actor)
    elif phase == "fight":
        forms += _fight_forms(state, actor, mine)
    elif phase == "market":
        forms += _market_forms(state, actor, mine)
    if phase in ("fight", "market"):
        forms += _sfx_forms(state, mine)
    if phase == "fight" and not window:
        forms += _torse_forms(state, mine)
    clock = state.get("clock")
    turn = state.get("turn")
    held = turn is not None and state["tokens"][turn].get("away") == "wait"  # never times out
    if clock and not held and (actor.is_gm or mine):
        forms.append(ActionForm("timeout", "Time is up", "mecha_ring/_timeout.html",
                                {"deadline": clock["deadline"]}))
    away = [tid for tid in mine if state["tokens"][tid].get("away")
            and (not actor.is_gm or state["tokens"][tid].get("owner_id") in (None,
                                                                            actor.user_id))]
    if away:
        forms.append(ActionForm("back", "I am back", "mecha_ring/_back.html",
                                {"seats": away}))
    forms.append(ActionForm("note", "Add a note", "mecha_ring/_note.html"))
    if actor.is_gm:
        forms.append(ActionForm("correct", "Correct a value", "mecha_ring/_correct.html",
                                {"seats": [tid for tid in state["seats"]],
                                 "fields": {tid: ["credits"] + [
                                     slot for slot in SLOTS
                                     if state["tokens"][tid]["robot"][slot]]
                                     for tid in state["seats"]}}))
        forms.append(ActionForm("modifier", "Situational modifier",
                                "mecha_ring/_modifier.html",
                                {"seats": in_tournament(state)}))
        forms.append(ActionForm("set_bot", "House bots", "mecha_ring/_set_bot.html",
                                {"seats": [[tid, bool(state["tokens"][tid].get("bot"))]
                                           for tid in in_tournament(state)]}))
        forms.append(ActionForm("away", "A player is away", "mecha_ring/_away.html",
                                {"seats": [[tid, state["tokens"][tid].get("away")]
                                           for tid in in_tournament(state)]}))
        forms.append(ActionForm("set_timer", "Turn timer", "mecha_ring/_set_timer.html",
                                {"seconds": state.get("timer") or 0,
                                 "low": TIMER_MIN, "high": TIMER_MAX}))
        waiting = waiting_seat(state)
        if waiting is not None and stand_in(state) is not None:
            forms.append(ActionForm("stand_in", "Play this move for them",
                                    "mecha_ring/_stand_in.html", {"seat": waiting}))
        if next_move(state) is not None:
            forms.append(ActionForm("let_bots_play", "Let the bots play",
                                    "mecha_ring/_let_bots_play.html"))
        forms.append(ActionForm("end_match", "End the tournament", "mecha_ring/_end.html"))
    return forms


def _fight_forms(state: State, actor: Actor, mine: list[str]) -> list[ActionForm]:
    fight = state["fight"]
    tokens = state["tokens"]
    parts = state["catalogue"]["parts"]
    forms: list[ActionForm] = []
    step = fight["step"]
    if step == "order" and (actor.is_gm or any(tid in fighters(state) for tid in mine)):
        forms.append(ActionForm("roll_order", "Roll the order", "mecha_ring/_roll_order.html"))
    elif step == "climb" and fight["climb_queue"] and fight["climb_queue"][0] in mine:
        tid = fight["climb_queue"][0]
        place = fight["order"].index(tid)
        last = fight.get("spend_last", False)
        forms.append(ActionForm("climb", "Climb one place", "mecha_ring/_climb.html", {
            "seat": tid, "can_climb": place > 0 and legs_spendable(tokens[tid]["robot"], last),
            "over": fight["order"][place - 1] if place > 0 else None}))
    elif step == "attack":
        tid = current_attacker(state)
        pending = fight["pending"]
        if pending is None and tid in mine:
            forms.append(ActionForm("attack", "Attack", "mecha_ring/_attack.html", {
                "seat": tid, "targets": [other for other in fighters(state) if other != tid]}))
        elif pending and pending["step"] == "boost" and tid in mine:
            forms += [ActionForm("boost_radar", "Spend radar energy",
                                 "mecha_ring/_boost_radar.html",
                                 {"seat": tid, "slots": radar_spendable(
                                     tokens[tid]["robot"], parts, last=True),
                                  "defender": pending["defender"],
                                  "aims": targets(tokens[pending["defender"]]["robot"])}),
                      ActionForm("decline_boost", "Let the defender choose",
                                 "mecha_ring/_decline_boost.html",
                                 {"seat": tid, "defender": pending["defender"]})]
        elif pending and pending["step"] == "choose":
            if pending["chooser"] in mine:
                robot = tokens[pending["defender"]]["robot"]
                forms.append(ActionForm("choose_part", "Choose the part hit",
                                        "mecha_ring/_choose_part.html", {
                                            "defender": pending["defender"],
                                            "slots": targets(robot)}))
            spend = radar_spendable(tokens[tid]["robot"], parts) if tid else []
            if pending["chooser"] != tid and tid in mine and spend:
                forms.append(ActionForm("boost_radar", "Spend radar energy",
                                        "mecha_ring/_boost_radar.html",
                                        {"seat": tid, "slots": spend}))
    elif step == "repairs":
        waiting = [tid for tid in mine if tid in fighters(state)
                   and tid not in fight["ready"]]
        forms += _repair_forms(state, waiting)
        if waiting:
            forms.append(ActionForm("ready", "Ready for the next round",
                                    "mecha_ring/_ready.html", {"seats": waiting}))
    return forms


def _torse_forms(state: State, mine: list[str]) -> list[ActionForm]:
    """A loser short for the torse drawn: the crédits card is played through the SFX form
    (offered first, ``_sfx_forms``); this one gives the torse up (§ Phase de marché)."""
    fight = state["fight"]
    due = fight.get("due") if fight["step"] == "torse" else None
    if not due or due["seat"] not in mine:
        return []
    return [ActionForm("give_up_torse", "Give up the torse", "mecha_ring/_give_up_torse.html",
                       {"seat": due["seat"], "card": due["card"], "cost": due["cost"],
                        "credits": state["tokens"][due["seat"]]["credits"]})]


def _window_forms(state: State, actor: Actor) -> list[ActionForm]:
    """The reaction window: the seats asked may pass (or play, ``_sfx_forms``); the host may
    close it. Whom else the window waits for is not said (it would tell of their hands)."""
    window = state["window"]
    tokens = state["tokens"]
    asked = [tid for tid in window["waiting"] if actor.controls(tokens[tid]) and (
        not actor.is_gm or tokens[tid].get("owner_id") in (None, actor.user_id))]
    forms: list[ActionForm] = []
    if asked:
        # the cards that can change the next step: named, and each may be muted this fight
        cards = {tid: relevant(state, tid) if window.get("relevant") else [] for tid in asked}
        forms.append(ActionForm("pass_reaction", "No reaction", "mecha_ring/_pass_reaction.html",
                                {"seats": asked, "after": window["after"], "cards": cards,
                                 "awaited": True}))
    if actor.is_gm:
        forms.append(ActionForm("close_window", "Close the reaction window",
                                "mecha_ring/_close_window.html"))
    return forms


def _repair_forms(state: State, seats: list[str]) -> list[ActionForm]:
    tokens = state["tokens"]
    parts = state["catalogue"]["parts"]
    forms: list[ActionForm] = []
    installs = {}
    for tid in seats:
        robot = tokens[tid]["robot"]
        options = [[c, slot] for c in tokens[tid]["hand"] for slot in SLOTS
                   if robot[slot] is None and SLOT_FAMILY[slot] == card(parts, c)["family"]]
        if options:
            installs[tid] = options
    if installs:
        forms.append(ActionForm("install", "Replace a missing part", "mecha_ring/_install.html",
                                {"seats": list(installs), "options": installs}))
    recharges = {}
    for tid in seats:
        seat = tokens[tid]
        affordable = seat["credits"] // RECHARGE_COST
        options = [[slot, min(MAX_ENERGY - seat["robot"][slot]["energy"], affordable)]
                   for slot in SLOTS if seat["robot"][slot]
                   and seat["robot"][slot]["energy"] < MAX_ENERGY and affordable > 0]
        if options:
            recharges[tid] = options
    if recharges:
        forms.append(ActionForm("recharge", "Recharge energy", "mecha_ring/_recharge.html",
                                {"seats": list(recharges), "options": recharges,
                                 "price": RECHARGE_COST}))
    return forms


def _market_forms(state: State, actor: Actor, mine: list[str]) -> list[ActionForm]:
    shop = state["shop"]
    tokens = state["tokens"]
    parts = state["catalogue"]["parts"]
    forms: list[ActionForm] = []
    buyer = shop["order"][shop["index"]]
    if buyer in mine:
        seat = tokens[buyer]
        offers = [[c, ["hand"] + [slot for slot in SLOTS if slot != "torse"
                                  and SLOT_FAMILY[slot] == card(parts, c)["family"]]]
                  for c in state["market"] if card(parts, c)["value"] <= seat["credits"]]
        if offers:
            forms.append(ActionForm("buy", "Buy a part", "mecha_ring/_buy.html",
                                    {"seat": buyer, "offers": offers}))
        forms.append(ActionForm("pass", "Pass", "mecha_ring/_pass.html", {"seat": buyer}))
    forms += _repair_forms(state, [tid for tid in mine if not tokens[tid]["out"]
                                   and standing(tokens[tid]["robot"])])
    return forms


def _sfx_forms(state: State, mine: list[str]) -> list[ActionForm]:
    tokens = state["tokens"]
    players = [tid for tid in mine if not tokens[tid]["out"]]
    due = (state.get("fight") or {}).get("due")
    if due:  # the loser short for a torse first: the host may hold every seat
        players.sort(key=lambda tid: tid != due["seat"])
    hands = {tid: [c for c in tokens[tid]["sfx_hand"]
                   if sfx_card(state, c)["cost"] <= tokens[tid]["credits"]] for tid in players}
    hands = {tid: cards for tid, cards in hands.items() if cards}
    in_play = {tid: [entry["card"] for entry in tokens[tid]["sfx_in_play"]]
               for tid in players if tokens[tid]["sfx_in_play"]}
    forms: list[ActionForm] = []
    others = in_tournament(state)
    if hands:
        forms.append(ActionForm("play_sfx", "Play an SFX card", "mecha_ring/_play_sfx.html",
                                {"seats": list(hands), "cards": hands, "opponents": others}))
    if in_play:
        forms.append(ActionForm("use_sfx", "Use an SFX card in play",
                                "mecha_ring/_use_sfx.html",
                                {"seats": list(in_play), "cards": in_play,
                                 "opponents": others}))
    return forms
