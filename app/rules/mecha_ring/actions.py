"""Mecha-Ring's ``decide``: every action at the table, the only place dice are rolled.

Each handler checks the moment (``fight.step``, ``shop``), who acts, the cards and crédits,
then emits events carrying every outcome (the faces, the energy before and after, the card
won); ``Emitter`` folds them as they come, so a strike that ends a fight chains the bets, the
torses bought and the market in the same action (§ Tour de jeu, § Phase de marché).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from app.rules.action_fields import choice_field, flag, int_field, require_gm, text_field
from app.rules.dice import Dice
from app.rules.match import Actor, Event, State, copy_state, handler_for
from app.rules.mecha_ring import bots, reactions
from app.rules.mecha_ring.common import (
    Emitter,
    check_controls,
    draw_card,
    record,
    refuse,
    seat_of,
)
from app.rules.mecha_ring.content import MAX_ENERGY
from app.rules.mecha_ring.match import (
    VICTORY_POINTS,
    current_attacker,
    fighters,
    in_tournament,
    points,
    sfx_card,
)
from app.rules.mecha_ring.robot import (
    SLOT_FAMILY,
    SLOTS,
    card,
    legs_spendable,
    radar_spendable,
    radar_success,
    roll_pool,
    standing,
    strike,
    targets,
    total,
)
from app.rules.mecha_ring.setup import deal, start_fight
from app.rules.notes import note_event
from app.rules.purposes import Purpose

RECHARGE_COST = 10  # "en dépensant 10 crédits par point"
NOTE_MAX = 500


def _fight(state: State, step: str) -> dict[str, Any]:
    fight = state.get("fight")
    if state.get("phase") != "fight" or not fight or fight["step"] != step:
        raise refuse("wrong_step")
    return fight


# — the round's order ——————————————————————————————————————————————————————————————

def _roll_order(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice,
                em: Emitter) -> None:
    """"Chaque joueur lance autant de dés à 6 faces que sa valeur totale de Mouvement" (the
    server rolls it as soon as a round begins: ``settle``; this is for a table waiting on an
    older state)."""
    _fight(state, "order")
    seats = fighters(state)
    if not actor.is_gm and not any(actor.controls(state["tokens"][tid]) for tid in seats):
        raise refuse("not_allowed")
    roll_order(em, dice)


def roll_order(em: Emitter, dice: Dice, *, auto: bool = False) -> None:
    """The round's order by the Mouvement dice, ties re-rolled one die each."""
    from app.rules.mecha_ring.robot import order_by_movement

    state = em.state
    seats = fighters(state)
    parts = state["catalogue"]["parts"]
    pools = {tid: total(state["tokens"][tid]["robot"], parts, "mouvement") for tid in seats}
    order, rolled, tiebreaks = order_by_movement(dice, pools)
    rolls = [record(Purpose("Movement — {name}", name=state["tokens"][tid]["name"]),
                    rolled[tid]["dice"]) for tid in seats if rolled[tid]["dice"]]
    rolls += [record(Purpose("Tie — {name}", name=state["tokens"][tid]["name"]), [face])
              for round_ in tiebreaks for tid, face in round_.items()]
    em.emit("order_rolled", {"round": state["fight"]["round"], "order": order,
                             "dice": rolled, "pools": pools, "tiebreaks": tiebreaks,
                             "rolls": rolls, "spend_last": True,
                             **({"auto": True} if auto else {})})


def _climb(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice,
           em: Emitter) -> None:
    """"Chaque joueur (du dernier au premier) peut monter d'une place dans l'ordre du tour en
    dépensant un point d'énergie sur ses jambes"."""
    fight = _fight(state, "climb")
    tid = fight["climb_queue"][0]
    check_controls(state, actor, tid)
    climb = flag(action, "climb")
    order = list(fight["order"])
    spent: dict[str, Any] = {}
    if climb:
        place = order.index(tid)
        if place == 0:
            raise refuse("first_already")
        robot = state["tokens"][tid]["robot"]
        if not legs_spendable(robot, fight.get("spend_last", False)):
            raise refuse("no_energy")
        order[place - 1], order[place] = order[place], order[place - 1]
        spent = _last_point(state, tid, "jambes", order[place])
    em.emit("climbed", {"seat": tid, "climb": climb, "order": order,
                        "passed": order[order.index(tid) + 1] if climb else None, **spent})


def _last_point(state: State, tid: str, slot: str, to: str) -> dict[str, Any]:
    """A part spending its last point is destroyed and goes to the adversary's loot (§ Tour
    de jeu: "le joueur en donne la carte à son adversaire"; issue 25: the text, where a
    house rule used to forbid it): the payload's fields saying so, or none."""
    part = state["tokens"][tid]["robot"][slot]
    if part["energy"] > 1:
        return {}
    first = state["first_to_12"]
    if not first and points(state["tokens"][to]) + 1 >= VICTORY_POINTS:
        first = to
    return {"destroyed": part["card"], "to": to, "first_to_12": first}


# — an attack ——————————————————————————————————————————————————————————————————————

def _declare(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice,
             em: Emitter) -> None:
    """The attacker picks an opponent and rolls the radar: "S'il obtient un ou plusieurs
    chiffre(s) impair(s), il peut choisir le morceau … sinon c'est le défenseur"."""
    fight = _fight(state, "attack")
    tid = current_attacker(state)
    if fight["pending"]:
        raise refuse("wrong_step")
    attacker = check_controls(state, actor, tid)
    opponents = [other for other in fighters(state) if other != tid]
    target = choice_field(action, "target", opponents)
    faces, count, success, forced = radar_roll(state, tid, dice)
    ask = not success and bool(radar_spendable(attacker["robot"], state["catalogue"]["parts"],
                                               last=True))
    em.emit("radar_rolled", {
        "attacker": tid, "defender": target, "faces": faces, "count": count,
        "success": success, "forced": forced, "jammed": attacker["buffs"]["jammed"],
        "chooser": tid if success else target, "ask_boost": ask,
        "rolls": [record(f"Radar — {attacker['name']}", faces)] if faces else []})


def radar_roll(state: State, tid: str, dice: Dice) -> tuple[list[int], int, bool, str | None]:
    """The attacker's radar: as many d6 as its total Radar, a success on any odd face; an
    SFX card played before forces it (a sure radar, a jamming). The faces, their count, the
    success and what forced it (``odds.py`` follows it too)."""
    attacker = state["tokens"][tid]
    count = total(attacker["robot"], state["catalogue"]["parts"], "radar")
    faces = roll_pool(dice, count)
    success = radar_success(faces)
    forced = None
    if attacker["buffs"]["sure_radar"]:
        success, forced = True, "sure"
    elif attacker["buffs"]["jammed"]:
        success, forced = False, "jammed"
    return faces, count, success, forced


def _boost(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice,
           em: Emitter) -> None:
    """"Le joueur peut transformer son échec au radar en réussite en dépensant un point
    d'énergie sur un morceau de robot ayant une valeur en radar" — asked of the attacker
    right after the failed roll, before the defender chooses (issue 25)."""
    fight = _fight(state, "attack")
    pending = fight["pending"]
    tid = current_attacker(state)
    if not pending or pending["step"] not in ("boost", "choose") or pending["success"] or \
            (pending["step"] == "choose" and pending["chooser"] == tid):
        raise refuse("wrong_step")
    attacker = check_controls(state, actor, tid)
    last = pending["step"] == "boost"  # a table of before keeps its house rule
    slot = choice_field(action, "slot", radar_spendable(attacker["robot"],
                                                        state["catalogue"]["parts"], last))
    em.emit("radar_boosted", {"attacker": tid, "slot": slot,
                              "energy_after": attacker["robot"][slot]["energy"] - 1,
                              **_last_point(state, tid, slot, pending["defender"])})
    if action.get("aim"):  # the part chosen in the same click (the boost's form offers it)
        _choose(copy_state(em.state), {"slot": action["aim"]}, actor, dice, em)


def _decline(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice,
             em: Emitter) -> None:
    """The attacker keeps its radar energy: the defender chooses the part."""
    fight = _fight(state, "attack")
    pending = fight["pending"]
    if not pending or pending["step"] != "boost":
        raise refuse("wrong_step")
    check_controls(state, actor, current_attacker(state))
    em.emit("boost_declined", {"attacker": current_attacker(state),
                               "defender": pending["defender"]})


def _choose(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice,
            em: Emitter) -> None:
    fight = _fight(state, "attack")
    pending = fight["pending"]
    if not pending or pending["step"] != "choose":
        raise refuse("wrong_step")
    check_controls(state, actor, pending["chooser"])
    robot = state["tokens"][pending["defender"]]["robot"]
    slot = action.get("slot")
    if slot not in targets(robot):
        raise refuse("not_a_target")
    # the strike waits for the reaction window after this step (``settle``)
    em.emit("part_chosen", {"attacker": current_attacker(state), "defender":
                            pending["defender"], "slot": slot, "by": pending["chooser"]})


def _resolve(em: Emitter, dice: Dice) -> None:
    """Attack dice against the aimed part's défense dice (§ Tour de jeu)."""
    state = em.state
    pending = state["fight"]["pending"]
    tid, target, slot = current_attacker(state), pending["defender"], pending["slot"]
    attacker, defender = state["tokens"][tid], state["tokens"][target]
    part = defender["robot"][slot]
    attack_dice, defence_dice = strike_dice(state, tid, target, slot)
    result = strike(dice, attack_dice, defence_dice)
    after = energy_after(part["energy"], result.damage)
    destroyed = part["card"] if after == 0 else None
    fell = destroyed is not None and slot == "torse"
    first = state["first_to_12"]
    if destroyed and not first and points(attacker) + 1 >= VICTORY_POINTS:
        first = tid
    rolls = [record(Purpose("Attack — {name}", name=attacker["name"]), list(result.attack))] \
        if result.attack else []
    if result.defence:
        rolls.append(record(Purpose("Defence — {name}", name=defender["name"]),
                            list(result.defence)))
    em.emit("struck", {
        "attacker": tid, "defender": target, "slot": slot, "card": part["card"],
        "attack": list(result.attack), "defence": list(result.defence),
        "attack_dice": attack_dice, "defence_dice": defence_dice,
        "attack_bonus": attacker["buffs"]["attack"], "defence_bonus":
        defender["buffs"]["defence"], "attack_total": sum(result.attack),
        "defence_total": sum(result.defence), "hit": result.hit, "sixes": result.sixes,
        "damage": result.damage, "energy_before": part["energy"], "energy_after": after,
        "destroyed": destroyed, "fell": fell, "first_to_12": first,
        "points": points(attacker) + (1 if destroyed else 0), "rolls": rolls})
    if len(fighters(em.state)) <= 1:
        _end_fight(em, dice)


def strike_dice(state: State, tid: str, target: str, slot: str) -> tuple[int, int]:
    """How many dice a strike throws: the attacker's total Attaque, the aimed part's Défense,
    each with the SFX cards played and the host's modifier (``buffs``)."""
    attacker, defender = state["tokens"][tid], state["tokens"][target]
    parts = state["catalogue"]["parts"]
    part = defender["robot"][slot]
    return (total(attacker["robot"], parts, "attaque") + attacker["buffs"]["attack"],
            card(parts, part["card"])["defense"] + defender["buffs"]["defence"])


def energy_after(energy: int, damage: int) -> int:
    """"le morceau de robot visé perd un point d'énergie, plus un point supplémentaire par 6":
    never below 0, where the part is destroyed."""
    return max(0, energy - damage)


# — between rounds ————————————————————————————————————————————————————————————————

def _repair_seat(state: State, action: Mapping[str, Any], actor: Actor) -> dict[str, Any]:
    """Repairs happen between rounds (for a robot still standing, not yet ready) and, house,
    during the market phase (any robot still in the tournament)."""
    seat = seat_of(state, action, actor)
    if state.get("phase") == "market":
        if seat["out"]:
            raise refuse("fallen")
        return seat
    fight = _fight(state, "repairs")
    if not standing(seat["robot"]):
        raise refuse("fallen")
    if seat["id"] in fight["ready"]:
        raise refuse("wrong_step")
    return seat


def _install(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice,
             em: Emitter) -> None:
    """"S'il lui manque un morceau et que le joueur a un morceau de ce type dans sa main, il
    peut le remplacer (avec son énergie à 4)"."""
    seat = _repair_seat(state, action, actor)
    card_id = action.get("card")
    if card_id not in seat["hand"]:
        raise refuse("no_such_card")
    slot = action.get("slot")
    if slot not in SLOTS or SLOT_FAMILY[slot] != card(state["catalogue"]["parts"],
                                                       card_id)["family"]:
        raise refuse("wrong_slot")
    if seat["robot"][slot] is not None:
        raise refuse("slot_taken")
    em.emit("installed", {"seat": seat["id"], "card": card_id, "slot": slot})


def _recharge(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice,
              em: Emitter) -> None:
    """"On peut aussi recharger l'énergie manquante, en dépensant 10 crédits par point"."""
    seat = _repair_seat(state, action, actor)
    slot = action.get("slot")
    if slot not in SLOTS or seat["robot"][slot] is None:
        raise refuse("no_such_card")
    missing = MAX_ENERGY - seat["robot"][slot]["energy"]
    if missing <= 0:
        raise refuse("full_energy")
    count = int_field(action, "points", 1, missing, default=missing)
    cost = count * RECHARGE_COST
    if cost > seat["credits"]:
        raise refuse("too_poor", cost=cost, credits=seat["credits"])
    em.emit("recharged", {"seat": seat["id"], "slot": slot, "points": count, "cost": cost,
                          "energy_after": seat["robot"][slot]["energy"] + count})


def _ready(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice,
           em: Emitter) -> None:
    _fight(state, "repairs")
    seat = _repair_seat(state, action, actor)
    em.emit("ready", {"seat": seat["id"]})
    _next_round(em)


def _next_round(em: Emitter) -> None:
    """Every robot standing is ready: the next round begins."""
    fight = em.state["fight"]
    if all(tid in fight["ready"] for tid in fighters(em.state)):
        em.emit("round_started", {"round": fight["round"] + 1})


def nothing_to_repair(state: State, tid: str) -> bool:
    """Between rounds, a robot whose team can do nothing: no part in hand for a missing
    place, no energy it can pay to recharge, no SFX card it can play."""
    seat = state["tokens"][tid]
    parts = state["catalogue"]["parts"]
    fits = any(seat["robot"][slot] is None and SLOT_FAMILY[slot] == card(parts, c)["family"]
               for c in seat["hand"] for slot in SLOTS)
    missing = any(part and part["energy"] < MAX_ENERGY for part in seat["robot"].values())
    return not fits and not (missing and seat["credits"] >= RECHARGE_COST) and \
        not reactions.playable(state, tid)


def broke(state: State, tid: str) -> bool:
    """At the market, a buyer who can afford no card there and holds no crédits card to
    play (§ Phase de marché: "tant qu'il y a des joueurs qui veulent (et peuvent) se payer
    des pièces (les autres passent juste leur tour)")."""
    seat = state["tokens"][tid]
    parts = state["catalogue"]["parts"]
    if any(card(parts, c)["value"] <= seat["credits"] for c in state["market"]):
        return False
    return not holds_credits_card(state, tid)


def holds_credits_card(state: State, tid: str) -> bool:
    """Whether the seat could play a crédits card now (its cost paid from its crédits)."""
    return any(sfx_card(state, c)["effect"] == "credits" for c in reactions.playable(state, tid))


# — the end of a fight, the bets, the market ——————————————————————————————————————————

def _end_fight(em: Emitter, dice: Dice) -> None:
    """One Combatank stands: the bets ("chaque joueur gagne … la valeur des morceaux de robot
    placés dans son butin durant le précédent combat (le challenger double cette somme si il
    a gagné le combat)"), the end of the tournament if someone reached 12, else the torses
    the losers buy and the market (§ Phase de marché)."""
    state = em.state
    fight = state["fight"]
    standing_ = fighters(state)
    winner = standing_[0] if standing_ else None
    parts = state["catalogue"]["parts"]
    payouts = {}
    for tid in fight["seats"]:
        amount = sum(card(parts, c)["value"] for c in state["tokens"][tid]["fight_loot"])
        if tid == winner and tid == fight["challenger"]:
            amount *= 2
        payouts[tid] = amount
    em.emit("fight_ended", {"winner": winner, "fallen": list(fight["fallen"]),
                            "payouts": payouts, "challenger": fight["challenger"],
                            "doubled": winner == fight["challenger"],
                            "points": {tid: points(state["tokens"][tid])
                                       for tid in state["seats"]}})
    if em.state["first_to_12"]:
        _end_tournament(em, winner)
        return
    _draw_torses(em, dice)


def _draw_torses(em: Emitter, dice: Dice) -> None:
    """§ Phase de marché: "Chaque joueur ayant perdu …, en commençant par celui qui a perdu le
    premier …, doit piocher un torse …, et en payer le coût à la banque. Si un joueur n'a plus
    les moyens d'acheter le torse pioché, il a perdu par abandon." House: a loser short of
    crédits who holds a crédits card they can pay may play it first (§ Cartes SFX: "à tout
    moment"): the table waits for them (``torso_due``, settled by ``_settle_torse``) before
    the next loser draws. Then the market opens."""
    parts = em.state["catalogue"]["parts"]
    for tid in _to_draw(em.state):
        seat = em.state["tokens"][tid]
        found = draw_card(copy_state(em.state["piles"]), dice, "torse")
        if found is None:
            em.emit("torso_drawn", {"seat": tid, "card": None, "cost": 0, "paid": False,
                                    "empty": True})
            continue
        cost = card(parts, found["card"])["value"]
        paid = cost <= seat["credits"]
        if not paid and holds_credits_card(em.state, tid):
            em.emit("torso_due", {"seat": tid, "card": found["card"], "cost": cost,
                                  "credits": seat["credits"]})
            return
        # Not paid: set aside face up (``aside``), never back in the pile, whose cards the
        # players do not see (docs/rules-notes.md § Mecha-Ring).
        em.emit("torso_drawn", {"seat": tid, "card": found["card"], "cost": cost,
                                "paid": paid, "credits": seat["credits"],
                                **({} if paid else {"aside": True})})
    fight = em.state["fight"]
    left = in_tournament(em.state)
    winner = fight["winner"]
    if len(left) <= 1:
        em.emit("tournament_ended", {"winner": left[0] if left else winner, "champion": None,
                                     "reason": "alone", "points": _points(em.state)})
        return
    order = [tid for tid in fight["fallen"] if tid in left] + ([winner] if winner in left
                                                               else [])
    em.emit("market_opened", {"order": order})


def _to_draw(state: State) -> list[str]:
    """The losers, in the order they fell, who have not drawn their torse yet (one paid has
    a torse, one unpaid is out)."""
    tokens = state["tokens"]
    return [tid for tid in state["fight"]["fallen"]
            if not tokens[tid]["out"] and tokens[tid]["robot"]["torse"] is None]


def _settle_torse(em: Emitter, dice: Dice) -> bool:
    """The torse a loser waits to pay (``torso_due``): paid as soon as their crédits cover it;
    out ("il a perdu par abandon") once they hold no crédits card they can play. Then the
    next loser draws. False while the table still waits for them."""
    due = em.state["fight"]["due"]
    seat = em.state["tokens"][due["seat"]]
    if due["cost"] <= seat["credits"]:
        em.emit("torso_paid", {"seat": due["seat"], "card": due["card"], "cost": due["cost"]})
    elif not holds_credits_card(em.state, due["seat"]):
        em.emit("torso_unpaid", {"seat": due["seat"], "card": due["card"], "cost": due["cost"],
                                 "credits": seat["credits"], "reason": "short"})
    else:
        return False
    _draw_torses(em, dice)
    return True


def _give_up_torse(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice,
                   em: Emitter) -> None:
    """The loser waiting to pay their torse does not play their crédits card: "il a perdu par
    abandon" (§ Phase de marché)."""
    due = _fight(state, "torse")["due"]
    seat = check_controls(state, actor, due["seat"])
    em.emit("torso_unpaid", {"seat": seat["id"], "card": due["card"], "cost": due["cost"],
                             "credits": seat["credits"], "reason": "gave_up"})
    _draw_torses(em, dice)


def _points(state: State) -> dict[str, int]:
    return {tid: points(state["tokens"][tid]) for tid in state["seats"]}


def _end_tournament(em: Emitter, winner: str | None) -> None:
    """§ Fin du tournoi: the first to 12 is champion only by winning the fight under way; else
    they win the game but not the title — unless the fight's winner has more points, who is
    then winner and champion."""
    state = em.state
    first = state["first_to_12"]
    score = _points(state)
    if winner == first:
        champion, game, reason = first, first, "champion"
    elif winner is not None and score[winner] > score[first]:
        champion, game, reason = winner, winner, "overtaken"
    else:
        champion, game, reason = None, first, "no_title"
    em.emit("tournament_ended", {"winner": game, "champion": champion, "reason": reason,
                                 "first_to_12": first, "fight_winner": winner,
                                 "points": score})


def _buyer(state: State, actor: Actor) -> dict[str, Any]:
    shop = state.get("shop")
    if state.get("phase") != "market" or not shop:
        raise refuse("wrong_step")
    return check_controls(state, actor, shop["order"][shop["index"]])


def _buy(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice,
         em: Emitter) -> None:
    """"acheter un morceau de robot au marché, en payant la valeur en crédits … il le place au
    choix dans son Combatank ou dans sa main, et remplace la carte prise au marché"."""
    seat = _buyer(state, actor)
    card_id = action.get("card")
    if card_id not in state["market"]:
        raise refuse("no_such_card")
    found = card(state["catalogue"]["parts"], card_id)
    if found["value"] > seat["credits"]:
        raise refuse("too_poor", cost=found["value"], credits=seat["credits"])
    place = action.get("place") or "hand"
    replaced = None
    if place != "hand":
        if place not in SLOTS or SLOT_FAMILY[place] != found["family"]:
            raise refuse("wrong_slot")
        current = seat["robot"][place]
        if current is not None and place == "torse" and not standing(seat["robot"]):
            raise refuse("slot_taken")
        replaced = current["card"] if current else None
    piles = copy_state(state["piles"])
    refill = draw_card(piles, dice, "parts_top", "parts")
    em.emit("bought", {"seat": seat["id"], "card": card_id, "cost": found["value"],
                       "place": place, "replaced": replaced, "refill": refill})


def _pass(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice,
          em: Emitter) -> None:
    """"La phase de marché se poursuit tant qu'il y a des joueurs qui veulent (et peuvent) se
    payer des pièces": a full turn of passes closes it; then each draws an SFX and the next
    fight begins ("A la fin de chaque phase de marché … pioche une carte SFX")."""
    seat = _buyer(state, actor)
    em.emit("passed", {"seat": seat["id"]})
    _close_market(em, dice, actor)


def _close_market(em: Emitter, dice: Dice, actor: Actor | None) -> None:
    """A full turn of passes closes the market: an SFX card each, and the next fight."""
    shop = em.state["shop"]
    if shop["passes"] >= len(shop["order"]):
        em.emit("market_closed", {})
        for tid in in_tournament(em.state):
            deal(em, dice, tid, 0, sfx=1, actor=actor)
        start_fight(em, em.state["fight"]["number"] + 1)


# — SFX cards ———————————————————————————————————————————————————————————————————————

def _sfx_target(state: State, action: Mapping[str, Any], seat: dict, sfx: Mapping[str, Any]
                ) -> dict[str, Any]:
    effect = sfx["effect"]
    if effect == "repair":
        slot = action.get("slot")
        part = seat["robot"].get(slot) if slot in SLOTS else None
        if part is None:
            raise refuse("no_such_card")
        if part["energy"] >= MAX_ENERGY:
            raise refuse("full_energy")
        return {"slot": slot, "before": part["energy"],
                "after": min(MAX_ENERGY, part["energy"] + sfx["amount"])}
    if effect in ("jam", "sabotage"):
        others = [tid for tid in in_tournament(state) if tid != seat["id"]]
        target = choice_field(action, "target", others)
        if effect == "jam":
            return {"target": target}
        robot = state["tokens"][target]["robot"]
        slot = action.get("slot")
        if slot not in SLOTS or slot == "torse" or robot.get(slot) is None or \
                robot[slot]["energy"] <= 1:
            raise refuse("not_a_target")
        before = robot[slot]["energy"]
        return {"target": target, "slot": slot, "before": before,
                "after": max(min(before, 1), before - sfx["amount"])}
    return {}


def _play_sfx(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice,
              em: Emitter) -> None:
    """"Ces cartes … peuvent être jouées à tout moment, même quand c'est le tour de jeu d'un
    autre joueur. Les cartes SFX ont un coût que le joueur doit payer au moment où il les
    joue" — then "le joueur en tire une autre pour sa main". House: a multi-use card is used
    once when played (one energy spent), then by ``use_sfx``."""
    if state.get("phase") not in ("fight", "market"):
        raise refuse("wrong_step")
    seat = seat_of(state, action, actor)
    if seat["out"]:
        raise refuse("fallen")
    card_id = action.get("card")
    if card_id not in seat["sfx_hand"]:
        raise refuse("no_such_card")
    sfx = sfx_card(state, card_id)
    if sfx["cost"] > seat["credits"]:
        raise refuse("too_poor", cost=sfx["cost"], credits=seat["credits"])
    em.emit("sfx_played", {"seat": seat["id"], "card": card_id, "name": sfx["name"],
                           "cost": sfx["cost"], "effect": sfx["effect"], "amount": sfx["amount"],
                           "uses": sfx["uses"], "from_hand": True,
                           **_sfx_target(state, action, seat, sfx)})
    deal(em, dice, seat["id"], 0, sfx=1, actor=actor)


def _use_sfx(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice,
             em: Emitter) -> None:
    """A multi-use card in play: "en dépensant un point d'énergie à chaque fois sur la carte"."""
    if state.get("phase") not in ("fight", "market"):
        raise refuse("wrong_step")
    seat = seat_of(state, action, actor)
    card_id = action.get("card")
    if card_id not in [entry["card"] for entry in seat["sfx_in_play"]]:
        raise refuse("no_such_card")
    sfx = sfx_card(state, card_id)
    em.emit("sfx_played", {"seat": seat["id"], "card": card_id, "name": sfx["name"], "cost": 0,
                           "effect": sfx["effect"], "amount": sfx["amount"],
                           "uses": sfx["uses"], "from_hand": False,
                           **_sfx_target(state, action, seat, sfx)})


# — the host (GM) ———————————————————————————————————————————————————————————————————

def _correct(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice,
             em: Emitter) -> None:
    """The host settles what the text leaves open or fixes a slip: crédits or a part's
    energy, recorded as an event."""
    require_gm(actor)
    seat = seat_of(state, action, actor)
    field = choice_field(action, "field", ["credits", *[slot for slot in SLOTS
                                                        if seat["robot"][slot]]])
    if field == "credits":
        before, after = seat["credits"], int_field(action, "value", 0, 100000)
    else:
        before = seat["robot"][field]["energy"]
        after = int_field(action, "value", 1, MAX_ENERGY)
    em.emit("corrected", {"seat": seat["id"], "field": field, "before": before,
                          "after": after})


def _modifier(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice,
              em: Emitter) -> None:
    """The host's situational modifier (the text has none; a house tool for what the table
    agrees on: a slippery ring, a cheering crowd): dice more or fewer on a Combatank's next
    attack or défense, recorded as an event."""
    require_gm(actor)
    seat = seat_of(state, action, actor)
    roll = choice_field(action, "roll", ["attack", "defence"])
    amount = int_field(action, "dice", -3, 3)
    if amount == 0:
        raise refuse("bad_field", field="dice", reason="-3…-1, 1…3")
    em.emit("modifier_set", {"seat": seat["id"], "roll": roll, "dice": amount,
                             "reason": text_field(action, "reason", 120, required=False)})


def _note(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice,
          em: Emitter) -> None:
    note = note_event(action, actor, max_length=NOTE_MAX)
    em.emit(note.kind, note.payload, note.visibility)


def _set_bot(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice,
             em: Emitter) -> None:
    """The host gives a seat to the house bot, or takes it back (``bots.py``)."""
    require_gm(actor)
    seat = seat_of(state, action, actor)
    on = flag(action, "on")
    em.emit("bot_set", {"seat": seat["id"], "on": on})


def _let_bots_play(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice,
                   em: Emitter) -> None:
    """The host nudges the bots on when they stopped after their moves' limit."""
    require_gm(actor)
    if bots.next_move(state) is None:
        raise refuse("wrong_step")


def _stand_in(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice,
              em: Emitter) -> None:
    """The host lets the table go on without an absent player: the house bot makes the one
    move awaited from that seat (the seat stays its player's)."""
    require_gm(actor)
    move = bots.stand_in(state)
    if move is None:
        raise refuse("wrong_step")
    bots.play_once(em, dice, HANDLERS, move)


def _end(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice,
         em: Emitter) -> None:
    """The host stops the tournament: the most victory points wins, no title (house)."""
    require_gm(actor)
    score = _points(state)
    leader = max(state["seats"], key=lambda tid: score[tid]) if state["seats"] else None
    em.emit("tournament_ended", {"winner": leader, "champion": None, "reason": "host",
                                 "points": score})


# — reaction windows (§ Cartes SFX) ——————————————————————————————————————————————————

FLOW_KINDS = frozenset({"roll_order", "climb", "attack", "boost_radar", "decline_boost",
                        "choose_part", "give_up_torse",
                        "install", "recharge", "ready", "buy", "pass", "stand_in"})


def _step_by(event: Event) -> str | None:
    """The seat whose step an event ends (not asked in the window it opens)."""
    p = event.payload
    if event.kind in ("radar_rolled", "struck"):
        return p["attacker"]
    if event.kind == "part_chosen":
        return None  # the attacker and the defender may both answer the aim
    return p.get("seat")


def _open_window(em: Emitter, event: Event) -> None:
    """After a step of play, the table pauses for whoever holds a card that can change the
    next step (``reactions.relevant``) or a house bot that wants to play one. Nobody: no
    window, play goes on."""
    state = em.state
    if state.get("status") != "running" or state.get("phase") not in ("fight", "market") \
            or state.get("window"):
        return
    if event.kind == "climbed" and not event.payload["climb"] and \
            state["fight"]["step"] != "attack":
        return  # keeping one's place changes nothing to react to
    window = {"after": event.kind, "by": _step_by(event), "passed": [], "relevant": True}
    if reactions.waiting(state, window) or bots.reaction(state, window) is not None:
        em.emit("window_opened", {"after": event.kind, "by": window["by"], "relevant": True})


def settle(em: Emitter, dice: Dice, since: int = 0) -> None:
    """What follows a move by itself: a window opens after a new step; an open window closes
    once nobody is waited on (every person passed or played, no bot wants to play); a strike
    aimed before the window is rolled once it closes; and the steps nobody has anything to
    decide in pass by themselves (issue 23): the order of a round is rolled, a player who
    can afford nothing at the market passes, a robot with nothing to repair is ready."""
    for _ in range(200):  # each turn of the loop emits an event or returns
        state = em.state
        if state.get("status") != "running":
            return
        steps = [event for event in em.events[since:] if event.kind in reactions.STEP_KINDS]
        since = len(em.events)
        window = state.get("window")
        if steps and not window:
            _open_window(em, steps[-1])
            if em.state.get("window"):
                continue
        if window:
            if window["waiting"] or bots.reaction(state) is not None:
                return
            em.emit("window_closed", {"reason": "all"})
            continue
        if not _goes_on(em, dice):
            return


def _goes_on(em: Emitter, dice: Dice) -> bool:
    """Play the one step that needs nobody's decision, if any (see ``settle``)."""
    state = em.state
    fight = state.get("fight") if state.get("phase") == "fight" else None
    if fight and fight["step"] == "attack" and (fight.get("pending") or {}).get("step") == \
            "window":
        _resolve(em, dice)
        return True
    if fight and fight["step"] == "order":
        roll_order(em, dice, auto=True)
        return True
    if fight and fight["step"] == "torse":
        return _settle_torse(em, dice)
    if fight and fight["step"] == "repairs":
        idle = [tid for tid in fighters(state) if tid not in fight["ready"]
                and not state["tokens"][tid].get("bot") and nothing_to_repair(state, tid)]
        if idle:
            em.emit("ready", {"seat": idle[0], "auto": True})
            _next_round(em)
            return True
    if state.get("phase") == "market" and state.get("shop"):
        shop = state["shop"]
        buyer = shop["order"][shop["index"]]
        if broke(state, buyer):
            em.emit("passed", {"seat": buyer, "auto": "broke"})
            _close_market(em, dice, None)
            return True
    return False


def _asked(state: State, action: Mapping[str, Any], actor: Actor) -> list[str]:
    """The seats this actor answers for in the open window: their own (the host: the seats
    no player owns, e.g. their robot; for the others the host closes the window)."""
    window = state.get("window")
    if not window:
        raise refuse("wrong_step")
    seats = [tid for tid in window["waiting"] if actor.controls(state["tokens"][tid]) and (
        not actor.is_gm or state["tokens"][tid].get("owner_id") in (None, actor.user_id))]
    wanted = action.get("seat")
    if isinstance(wanted, str) and wanted:
        if wanted not in state["tokens"]:
            raise refuse("unknown_participant", participant=wanted[:40])
        seats = [tid for tid in seats if tid == wanted] or (
            [wanted] if wanted in window["waiting"] and actor.is_gm else [])
    if not seats:
        raise refuse("not_asked")
    return seats


def _pass_reaction(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice,
                   em: Emitter) -> None:
    """« Pas de réaction »: the player lets play go on, and may add « never ask me this fight »
    for some of the cards they were asked about (``mute``). Only they and the host see it
    (that they were asked tells something of their hand): ``quiet``, for the others it does
    not exist — no log line, nothing in their stream, not even « something secret »."""
    muted = action.get("mute")
    muted = [muted] if isinstance(muted, str) and muted else muted
    if muted is not None and not isinstance(muted, list):
        raise refuse("bad_field", field="mute", reason="card")
    for tid in _asked(state, action, actor):
        mine = [card_id for card_id in reactions.relevant(state, tid) if card_id in muted] \
            if muted else []
        if mine:  # « never ask me this fight » for these cards
            em.emit("reaction_muted", {"seat": tid, "cards": mine}, "quiet")
        em.emit("reaction_passed", {"seat": tid}, "quiet")


def _close_window(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice,
                  em: Emitter) -> None:
    """The host closes the window without waiting for everyone (house)."""
    require_gm(actor)
    if not state.get("window"):
        raise refuse("wrong_step")
    em.emit("window_closed", {"reason": "host"})


# — the turn timer and absent players (house) ——————————————————————————————————————

TIMER_MIN, TIMER_MAX = 15, 3600


def _set_timer(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice,
               em: Emitter) -> None:
    """The host sets the turn timer (0: none): each decision the table waits for gets that
    many seconds of the server's clock, then ``timeout`` applies its default."""
    require_gm(actor)
    seconds = int_field(action, "seconds", 0, TIMER_MAX)
    if 0 < seconds < TIMER_MIN:
        raise refuse("bad_field", field="seconds", reason=f"0, {TIMER_MIN}…{TIMER_MAX}")
    em.emit("timer_set", {"seconds": seconds})


def _check_present(state: State, tid: str) -> str:
    seat = state["tokens"][tid]
    if seat.get("away") == "wait":
        raise refuse("away_waits", name=seat["name"])
    return tid


def _timeout(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice,
             em: Emitter) -> None:
    """The time of the awaited decision is up (the server's clock, never the page's): its
    default is applied and explained — a window closes; the order is rolled; the climber
    keeps their place; the attacker lets their attack go; the chooser's part is the one the
    house bot would pick; the robots not ready are ready; the buyer passes; a loser short for
    their torse plays their crédits card (the house bot's move: nobody would rather be out).
    A seat marked away (the table waits) never times out."""
    clock = state.get("clock")
    if not state.get("timer") or not clock or em.now is None:
        raise refuse("no_timer")
    if em.now < clock["deadline"]:
        raise refuse("not_yet", seconds=math.ceil(clock["deadline"] - em.now))
    if state.get("window"):
        em.emit("window_closed", {"reason": "timeout"})
        return
    if state.get("phase") == "market" and state.get("shop"):
        shop = state["shop"]
        tid = _check_present(state, shop["order"][shop["index"]])
        _late(em, tid, "market")
        _pass(copy_state(em.state), {}, bots.BOT, dice, em)
        return
    fight = state.get("fight")
    if state.get("phase") != "fight" or not fight:
        raise refuse("wrong_step")
    step, pending = fight["step"], fight["pending"]
    if step == "order":
        em.emit("timed_out", {"step": "order"})
        _roll_order(copy_state(em.state), {}, bots.BOT, dice, em)
    elif step == "climb":
        tid = _check_present(state, fight["climb_queue"][0])
        _late(em, tid, "climb")
        _climb(copy_state(em.state), {"climb": ""}, bots.BOT, dice, em)
    elif step == "attack" and pending is None:
        tid = _check_present(state, current_attacker(state))
        _late(em, tid, "attack")
        em.emit("attack_skipped", {"seat": tid})
    elif step == "attack" and pending["step"] == "boost":
        tid = _check_present(state, current_attacker(state))
        _late(em, tid, "boost")
        _decline(copy_state(em.state), {}, bots.BOT, dice, em)
    elif step == "attack" and pending["step"] == "choose":
        tid = _check_present(state, pending["chooser"])
        _late(em, tid, "choose")
        _choose(copy_state(em.state), {"slot": bots.aim(state)}, bots.BOT, dice, em)
    elif step == "torse":
        tid = _check_present(state, fight["due"]["seat"])
        _late(em, tid, "torse")
        move = bots.due_torse(em.state)
        bots.play_once(em, dice, HANDLERS, move)
    elif step == "repairs":
        seats = [tid for tid in fighters(state) if tid not in fight["ready"]
                 and state["tokens"][tid].get("away") != "wait"]
        if not seats:
            _check_present(state, next(tid for tid in fighters(state)
                                       if tid not in fight["ready"]))
        em.emit("timed_out", {"seats": seats, "step": "repairs"})
        for tid in seats:
            _ready(copy_state(em.state), {"seat": tid}, bots.BOT, dice, em)
    else:
        raise refuse("wrong_step")
    _hand_to_the_bot(em)


LATE_TIMES = 2  # decisions in a row whose time ran out: the house bot takes the seat


def _late(em: Emitter, tid: str, step: str) -> None:
    """The seat's time ran out: how many times in a row (``row``; reset when its player
    acts: ``seat_present``)."""
    late = em.state.get("late") or {}
    row = late.get("row", 0) + 1 if late.get("seat") == tid else 1
    em.emit("timed_out", {"seat": tid, "step": step, "row": row})


def _hand_to_the_bot(em: Emitter) -> None:
    """Issue 25: an absent player no longer holds up the table — a seat whose time ran out
    twice in a row is played by the house bot until its player says they are back."""
    late = em.state.get("late") or {}
    seat = em.state["tokens"].get(late.get("seat")) if late else None
    if seat and late["row"] >= LATE_TIMES and not seat.get("bot") and not seat["out"]:
        em.emit("seat_away", {"seat": seat["id"], "mode": "bot", "reason": "timeouts"})


def _present(state: State, action: Mapping[str, Any], actor: Actor, em: Emitter) -> None:
    """A late seat's player acts again: their count of missed decisions starts over."""
    late = state.get("late") or {}
    seat = state["tokens"].get(late.get("seat")) if late else None
    if seat and not actor.is_gm and actor.controls(seat) and \
            action.get("kind") not in ("note", "timeout"):
        em.emit("seat_present", {"seat": seat["id"]})


def _away(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice,
          em: Emitter) -> None:
    """The host marks a player away: the table waits for them (``wait``), or the house bot
    plays their seat until they come back (``bot``)."""
    require_gm(actor)
    seat = seat_of(state, action, actor)
    mode = choice_field(action, "mode", ["wait", "bot", "back"])
    if mode == "back":
        if not seat.get("away"):
            raise refuse("not_away")
        em.emit("seat_back", {"seat": seat["id"]})
    elif seat.get("away") == mode:
        raise refuse("wrong_step")
    else:
        em.emit("seat_away", {"seat": seat["id"], "mode": mode})


def _back(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice,
          em: Emitter) -> None:
    """The player is back (they say so, or the host does): the seat is theirs again."""
    seat = seat_of(state, action, actor)
    if not seat.get("away"):
        raise refuse("not_away")
    em.emit("seat_back", {"seat": seat["id"]})


HANDLERS = {
    "roll_order": _roll_order, "climb": _climb, "attack": _declare, "boost_radar": _boost,
    "decline_boost": _decline,
    "choose_part": _choose, "take_strike": _pass_reaction, "install": _install,
    "recharge": _recharge, "ready": _ready, "buy": _buy, "pass": _pass,
    "play_sfx": _play_sfx, "use_sfx": _use_sfx, "correct": _correct, "note": _note,
    "end_match": _end, "set_bot": _set_bot, "modifier": _modifier, "let_bots_play": _let_bots_play,
    "stand_in": _stand_in, "pass_reaction": _pass_reaction, "close_window": _close_window,
    "set_timer": _set_timer, "timeout": _timeout, "away": _away, "back": _back,
    "give_up_torse": _give_up_torse,
}


# The page's forms post one ``choice`` ("t1|bras_scie#2|bras_g") where the JSON API may send
# the fields themselves.
CHOICE_FIELDS = {"install": ("seat", "card", "slot"), "recharge": ("seat", "slot"),
                 "buy": ("card", "place"), "play_sfx": ("seat", "card"),
                 "use_sfx": ("seat", "card"), "correct": ("seat", "field")}


def _expand(action: Mapping[str, Any]) -> Mapping[str, Any]:
    names = CHOICE_FIELDS.get(action.get("kind"))  # type: ignore[arg-type]
    choice = action.get("choice")
    if not names or not isinstance(choice, str) or not choice:
        return action
    parts = choice.split("|")
    if len(parts) != len(names):
        raise refuse("bad_field", field="choice", reason="|".join(names))
    return {**action, **dict(zip(names, parts, strict=True))}


def decide(state: State, action: Mapping[str, Any], actor: Actor, dice: Dice,
           now: float | None = None) -> list[Event]:
    """``now``: the server's clock in seconds (the service's, injected; tests move it); the
    turn timer reads it, and events carry it (``at``) only while a timer is set."""
    handler = handler_for(HANDLERS, state, action, actor)
    action = _expand(action)
    if state.get("window") and action.get("kind") in FLOW_KINDS:
        raise refuse("window_open")
    em = Emitter(state, now)
    counted = bots.CountingDice(dice)
    _present(state, action, actor, em)
    handler(copy_state(em.state) if em.events else state, action, actor, counted, em)
    settle(em, counted)
    bots.run(em, counted, HANDLERS, settle)
    return em.events
