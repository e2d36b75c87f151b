"""The house bot: a seat the host gives to the table plays legal, sensible moves by itself
(issue: "so that one person can try a whole tournament alone and a group of two can play at
four"). House content, documented in docs/games/mecha_ring.md.

After every action, ``run`` lets the bots whose move the table waits for play, through the
same handlers as anyone (so the same checks, dice and events), its move marked
``bot: true``. A bot rolls the order, climbs with legs to spare, attacks the opponent easiest
to finish, aims at the weakest part (the defender offers its toughest), spends radar energy
when it can spare it, repairs and recharges keeping crédits for a torse, buys upgrades at the
market and passes; short for its torse after a fall, it plays its crédits card. It plays
every kind of SFX card, never spending the crédits it keeps for a torse (a card in play
first: it costs nothing more): before its attack, an attack card, a sure
radar when its radar is weak, a repair on a part at 2 energy or less; in a reaction window
(``reaction``, decided at once: nobody waits for a bot), a défense card when its part is about
to be struck, an attack card when it strikes, jamming the attacker about to aim, a repair, a
crédits card at the market when short, a sabotage of the leader's arm or head when rich.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from app.rules.dice import Dice
from app.rules.match import Actor, State, copy_state
from app.rules.mecha_ring.content import MAX_ENERGY, key_of
from app.rules.mecha_ring.match import current_attacker, fighters, points
from app.rules.mecha_ring.reactions import playable, sfx_targets
from app.rules.mecha_ring.robot import (
    SLOT_FAMILY,
    SLOTS,
    card,
    legs_spendable,
    radar_spendable,
    standing,
    targets,
    total,
)

BOT = Actor(None, is_gm=True)
MOVES_PER_ACTION = 80  # then a human (or the host's "let the bots play") continues
SFX_MARGIN = 20  # crédits a bot keeps beyond its reserve before it pays for an SFX card
DICE_BUDGET = 40  # dice an action may have thrown before a bot makes one more move
RECHARGE_COST = 10


def is_bot(state: State, tid: str | None) -> bool:
    return tid is not None and bool(state["tokens"][tid].get("bot"))


def _strength(state: State, card_id: str) -> int:
    found = card(state["catalogue"]["parts"], card_id)
    return found["mouvement"] + found["radar"] + found["attaque"] + found["defense"]


def reserve(state: State) -> int:
    """The crédits a bot keeps for the torse it must buy if it falls: the dearest torse of
    the deck (issue 25: it kept 40 for torses of up to 50, and went bankrupt)."""
    parts = state["catalogue"]["parts"]
    return max((card["value"] for card in parts.values() if card["family"] == "torse"),
               default=0)


def cheapest_torse(state: State) -> int:
    parts = state["catalogue"]["parts"]
    return min((card["value"] for card in parts.values() if card["family"] == "torse"),
               default=0)


def _spare(state: State, tid: str, effect: str) -> int:
    seat = state["tokens"][tid]
    return seat["credits"] - (0 if effect == "credits" else reserve(state) + SFX_MARGIN)


def _sfx(state: State, tid: str, effect: str, **aim: Any) -> dict[str, Any] | None:
    """Use the bot's card of this effect: one in play first (it costs nothing more), else the
    first in hand it can afford above its reserve; ``aim``: the target and slot."""
    seat = state["tokens"][tid]
    catalogue = state["catalogue"]["sfx"]
    for entry in seat["sfx_in_play"]:
        if catalogue[key_of(entry["card"])]["effect"] == effect:
            return {"kind": "use_sfx", "seat": tid, "card": entry["card"], **aim}
    for card_id in seat["sfx_hand"]:
        found = catalogue[key_of(card_id)]
        if found["effect"] == effect and found["cost"] <= _spare(state, tid, effect):
            return {"kind": "play_sfx", "seat": tid, "card": card_id, **aim}
    return None


def _credits_sfx(state: State, tid: str) -> dict[str, Any] | None:
    """A crédits card only when the bot is short (below twice its reserve): a card played is
    a card drawn, so a rich bot playing every crédits card would just churn the pile."""
    if state["tokens"][tid]["credits"] >= 2 * reserve(state):
        return None
    return _sfx(state, tid, "credits")


def _repair_sfx(state: State, tid: str) -> dict[str, Any] | None:
    """A repair card on the bot's weakest part (the torse first) at 2 energy or less."""
    robot = state["tokens"][tid]["robot"]
    low = [slot for slot in ("torse", *[s for s in SLOTS if s != "torse"])
           if robot[slot] and robot[slot]["energy"] <= 2]
    return _sfx(state, tid, "repair", slot=low[0]) if low else None


def _sabotage_sfx(state: State, tid: str) -> dict[str, Any] | None:
    """Sabotage the leader's strongest arm or head (the part it hits or aims with)."""
    options = sfx_targets(state, tid, "sabotage") or []
    if not options:
        return None
    parts = state["catalogue"]["parts"]
    tokens = state["tokens"]
    other, slot = max(options, key=lambda o: (
        points(tokens[o[0]]), card(parts, tokens[o[0]]["robot"][o[1]]["card"])["attaque"]
        + card(parts, tokens[o[0]]["robot"][o[1]]["card"])["radar"],
        tokens[o[0]]["robot"][o[1]]["energy"]))
    return _sfx(state, tid, "sabotage", target=other, slot=slot)


def reaction(state: State, window: Mapping[str, Any] | None = None) -> dict[str, Any] | None:
    """The SFX a house bot plays in the open reaction window (or ``window``), if any: a
    shield when its part is about to be struck, more dice when it strikes, jamming the
    attacker about to aim, a repair on a part at 2 energy or less, crédits at the market,
    a sabotage on the leader when crédits are to spare. None: the bots let play go on."""
    window = window if window is not None else state.get("window")
    if not window or state.get("status") != "running":
        return None
    tokens = state["tokens"]
    fight = state.get("fight") if state.get("phase") == "fight" else None
    pending = (fight or {}).get("pending") or {}
    for tid in state["seats"]:
        seat = tokens[tid]
        if not seat.get("bot") or seat["out"] or tid == window.get("by") \
                or tid in window.get("passed", []) or not playable(state, tid):
            continue
        move = _reaction_of(state, tid, fight, pending)
        if move is not None:
            return move
    return None


def _reaction_of(state: State, tid: str, fight: Mapping[str, Any] | None,
                 pending: Mapping[str, Any]) -> dict[str, Any] | None:
    tokens = state["tokens"]
    buffs = tokens[tid]["buffs"]
    striking = bool(fight) and pending.get("step") == "window"
    if striking and pending["defender"] == tid and not buffs["defence"] and (
            move := _sfx(state, tid, "defence")):
        return move
    if striking and current_attacker(state) == tid and not buffs["attack"] and (
            move := _sfx(state, tid, "attack")):
        return move
    attacker = current_attacker(state) if fight and not pending else None
    if attacker and attacker != tid and tid in fighters(state) and \
            not tokens[attacker]["buffs"]["jammed"] and \
            not tokens[attacker]["buffs"]["sure_radar"] and \
            total(tokens[attacker]["robot"], state["catalogue"]["parts"], "radar") > 0 and (
                move := _sfx(state, tid, "jam", target=attacker)):
        return move
    if (not fight or standing(tokens[tid]["robot"])) and (move := _repair_sfx(state, tid)):
        return move
    if state.get("phase") == "market" and (move := _credits_sfx(state, tid)):
        return move
    if tokens[tid]["credits"] >= 2 * reserve(state):
        return _sabotage_sfx(state, tid)
    return None


def due_torse(state: State) -> dict[str, Any]:
    """A loser short for the torse drawn plays a crédits card (every crédits it has is spare:
    the torse is what it keeps them for); none left: it gives the torse up."""
    tid = state["fight"]["due"]["seat"]
    return _sfx(state, tid, "credits") or {"kind": "give_up_torse", "seat": tid}


def aim(state: State) -> str:
    """The part the pending chooser picks: the defender offers its toughest; the attacker
    aims at the weakest part *but* the torse — every part destroyed is a victory point and
    crédits of bets, the torse ends the fight and the harvest (issue 25's economy) — unless
    its own unit centrale is at risk (2 energy or less) or the torse is all that is left."""
    pending = state["fight"]["pending"]
    parts = state["catalogue"]["parts"]
    robot = state["tokens"][pending["defender"]]["robot"]
    options = targets(robot)
    if pending["chooser"] == pending["defender"]:
        return max(options, key=lambda s: (s != "torse", card(
            parts, robot[s]["card"])["defense"], robot[s]["energy"]))
    own = state["tokens"][pending["chooser"]]["robot"]["torse"]
    hurry = own is None or own["energy"] <= 2
    return min(options, key=lambda s: ((s != "torse") if hurry else (s == "torse"),
                                       robot[s]["energy"],
                                       card(parts, robot[s]["card"])["defense"]))


def _fight_move(state: State) -> dict[str, Any] | None:
    fight = state["fight"]
    tokens = state["tokens"]
    parts = state["catalogue"]["parts"]
    step = fight["step"]
    if step == "order" and any(is_bot(state, tid) for tid in fighters(state)):
        return {"kind": "roll_order"}
    if step == "climb" and fight["climb_queue"] and is_bot(state, fight["climb_queue"][0]):
        tid = fight["climb_queue"][0]
        legs = tokens[tid]["robot"]["jambes"]
        climb = fight["order"].index(tid) > 0 and legs_spendable(tokens[tid]["robot"]) \
            and legs["energy"] >= 3
        return {"kind": "climb", "climb": climb}
    if step == "attack":
        tid = current_attacker(state)
        pending = fight["pending"]
        if pending is None and is_bot(state, tid):
            buffs = tokens[tid]["buffs"]
            if not buffs["attack"] and (boost := _sfx(state, tid, "attack")):
                return boost
            radar = total(tokens[tid]["robot"], parts, "radar")
            if radar <= 1 and not buffs["sure_radar"] and not buffs["jammed"] and (
                    sure := _sfx(state, tid, "sure_radar")):
                return sure
            if (fix := _repair_sfx(state, tid)) is not None:
                return fix
            if (bonus := _credits_sfx(state, tid)) is not None:
                return bonus  # short: the next torse, the repairs
            others = [other for other in fighters(state) if other != tid]
            # the torse in reach first, then the leader on victory points
            target = max(others, key=lambda o: ("torse" in targets(tokens[o]["robot"]),
                                                points(tokens[o]), -others.index(o)))
            return {"kind": "attack", "target": target}
        spare = [slot for slot in radar_spendable(tokens[tid]["robot"], parts)
                 if tokens[tid]["robot"][slot]["energy"] >= 3] if tid else []
        if pending and pending["step"] == "boost" and is_bot(state, tid):
            return {"kind": "boost_radar", "slot": spare[0]} if spare else \
                {"kind": "decline_boost"}
        if pending and pending["step"] == "choose":
            if pending["chooser"] != tid and is_bot(state, tid) and spare and \
                    not pending["success"]:  # a table of before: no boost step
                return {"kind": "boost_radar", "slot": spare[0]}
            if is_bot(state, pending["chooser"]):
                return {"kind": "choose_part", "slot": aim(state)}
    if step == "torse" and is_bot(state, fight["due"]["seat"]):
        return due_torse(state)
    if step == "repairs":
        for tid in fighters(state):
            if is_bot(state, tid) and tid not in fight["ready"]:
                return _repair(state, tid) or {"kind": "ready", "seat": tid}
    return None


def _repair(state: State, tid: str) -> dict[str, Any] | None:
    seat = state["tokens"][tid]
    parts = state["catalogue"]["parts"]
    for card_id in seat["hand"]:
        for slot in SLOTS:
            if seat["robot"][slot] is None and SLOT_FAMILY[slot] == card(parts,
                                                                         card_id)["family"]:
                return {"kind": "install", "seat": tid, "card": card_id, "slot": slot}
    spendable = (seat["credits"] - reserve(state)) // RECHARGE_COST
    for slot in ("torse", *[s for s in SLOTS if s != "torse"]):
        part = seat["robot"][slot]
        if part and part["energy"] < MAX_ENERGY and spendable > 0:
            return {"kind": "recharge", "seat": tid, "slot": slot,
                    "points": min(spendable, MAX_ENERGY - part["energy"])}
    return None


def _market_move(state: State) -> dict[str, Any] | None:
    shop = state["shop"]
    tid = shop["order"][shop["index"]]
    if not is_bot(state, tid):
        return None
    seat = state["tokens"][tid]
    parts = state["catalogue"]["parts"]
    bonus = _credits_sfx(state, tid)
    if bonus:
        return bonus
    repair = _repair(state, tid) if seat["robot"]["torse"] else None
    if repair and repair["kind"] == "install":
        return repair
    best: tuple[tuple[bool, int], dict[str, Any]] | None = None
    for card_id in state["market"]:
        found = card(parts, card_id)
        for slot in SLOTS:
            if SLOT_FAMILY[slot] != found["family"] or slot == "torse":
                continue
            current = seat["robot"][slot]
            # a missing place is worth the crédits of a cheap torse, not of the dearest
            keep = cheapest_torse(state) if current is None else reserve(state)
            if found["value"] > seat["credits"] - keep:
                continue
            gain = _strength(state, card_id) - (_strength(state, current["card"])
                                                if current else 0)
            # a missing place first: a robot of a torse alone loses its next fight at once
            rank = (current is None, gain)
            if gain > 1 and (best is None or rank > best[0]):
                best = (rank, {"kind": "buy", "card": card_id, "place": slot})
    return best[1] if best else {"kind": "pass"}


def next_move(state: State) -> dict[str, Any] | None:
    if state.get("status") != "running":
        return None
    if state.get("window"):
        return reaction(state)
    if state.get("phase") == "fight" and state.get("fight"):
        return _fight_move(state)
    if state.get("phase") == "market" and state.get("shop"):
        return _market_move(state)
    return None


def waiting_seat(state: State) -> str | None:
    """The seat a human's move is awaited from (for the host's "play this move for them")."""
    from app.rules.mecha_ring.match import whose_turn

    if state.get("status") != "running" or state.get("window"):
        return None
    tid = whose_turn(state)
    fight = state.get("fight")
    if tid is None and state.get("phase") == "fight" and fight:
        if fight["step"] == "order":
            tid = next(iter(fighters(state)), None)
        elif fight["step"] == "repairs":
            tid = next((seat for seat in fighters(state) if seat not in fight["ready"]), None)
    return None if tid is None or is_bot(state, tid) else tid


def stand_in(state: State) -> dict[str, Any] | None:
    """The move the house bot would make for the awaited human seat (once)."""
    tid = waiting_seat(state)
    if tid is None:
        return None
    trial = copy_state(state)
    trial["tokens"][tid]["bot"] = True
    return next_move(trial)


def play_once(em: Any, dice: Dice, handlers: Mapping[str, Callable[..., None]],
              move: dict[str, Any]) -> None:
    first = len(em.events)
    handlers[move["kind"]](copy_state(em.state), move, BOT, dice, em)
    if len(em.events) > first:
        # the bot's own move says so in the log; what follows from it (a fight's end,
        # the bets…) is the table's
        em.events[first].payload["bot"] = True


class CountingDice:
    """The action's dice, counted: the bots stop before the table's cap on the dice of one
    action (``app.services.dice_cap``, 100 by default) could refuse the whole action."""

    def __init__(self, dice: Dice) -> None:
        self.dice, self.thrown = dice, 0

    def roll(self, sides: int, *, count: int = 1) -> list[int]:
        faces = self.dice.roll(sides, count=count)
        self.thrown += count
        return faces


def run(em: Any, dice: CountingDice, handlers: Mapping[str, Callable[..., None]],
        settle: Callable[..., None], limit: int = MOVES_PER_ACTION) -> int:
    """Let the bots play while the table waits for them and the action's dice allow (at most
    ``DICE_BUDGET`` thrown before a bot's move); how many moves they made. A move the table's
    dice cap refuses is undone and the bots stop there (the host's "let the bots play", or the
    next action, goes on)."""
    for done in range(limit):
        move = next_move(em.state)
        if move is None or dice.thrown >= DICE_BUDGET:
            return done
        mark = (len(em.events), copy_state(em.state))
        try:
            play_once(em, dice, handlers, move)
            settle(em, dice, mark[0])
        except Exception as error:
            if getattr(error, "code", None) != "too_many_dice":
                raise
            del em.events[mark[0]:]
            em.state = mark[1]
            return done
    return limit
