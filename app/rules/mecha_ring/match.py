"""Mecha-Ring at the table: the tournament's state, the fold, who acts now, the view.

One Tablée match is one tournament (2 to 4 players): set-up, then fights and market phases
until the end (§ Fin du tournoi). The state keeps the seats (``tokens``: robot, hands, crédits,
loot), the piles, the market, the running fight (``fight``) or market (``shop``). Deciding
(the dice) lives in ``actions.py``; this module is pure. Piles are unordered: the server draws
at random when it draws, so no deck order exists to leak; ``view`` hides the piles' contents
and the other players' hands.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from app.rules.match import Actor, Event, State, copy_state
from app.rules.mecha_ring import reactions
from app.rules.mecha_ring.content import MAX_ENERGY, instances, key_of
from app.rules.mecha_ring.robot import SLOTS, standing

VICTORY_POINTS = 12  # § But du jeu


# — reading the state ————————————————————————————————————————————————————————————

def seat_cards(state: State) -> Mapping[str, Any]:
    return state["catalogue"]["parts"]


def sfx_card(state: State, card_id: str) -> Mapping[str, Any]:
    return state["catalogue"]["sfx"][key_of(card_id)]


def points(seat: Mapping[str, Any]) -> int:
    """Victory points: one per card in the loot pile (§ Tour de jeu)."""
    return len(seat["loot"])


def in_tournament(state: State) -> list[str]:
    return [tid for tid in state["seats"] if not state["tokens"][tid]["out"]]


def fighters(state: State) -> list[str]:
    """Seats whose Combatank still stands in the running fight."""
    fight = state.get("fight") or {}
    return [tid for tid in fight.get("seats", [])
            if standing(state["tokens"][tid]["robot"])]


def current_attacker(state: State) -> str | None:
    fight = state.get("fight")
    if not fight or fight["step"] != "attack" or fight["attacker"] >= len(fight["order"]):
        return None
    return fight["order"][fight["attacker"]]


def whose_turn(state: State) -> str | None:
    """The seat the table waits for (None when anyone may act, e.g. repairs, or during a
    reaction window)."""
    if state.get("window"):
        return None
    if state.get("phase") == "market":
        shop = state["shop"]
        return shop["order"][shop["index"]] if shop["order"] else None
    fight = state.get("fight")
    if state.get("phase") != "fight" or not fight:
        return None
    if fight["step"] == "climb":
        return fight["climb_queue"][0] if fight["climb_queue"] else None
    if fight["step"] == "torse":
        return fight["due"]["seat"]
    if fight["step"] == "attack":
        pending = fight["pending"]
        if pending and pending["step"] in ("choose", "boost"):
            return pending["chooser"]
        if pending and pending["step"] == "window":
            return pending["defender"]
        return current_attacker(state)
    return None


# — the fold ——————————————————————————————————————————————————————————————————————

def evolve(state: State, event: Event) -> State:
    handler = _EVOLVE.get(event.kind)
    if handler is not None:
        handler(state, event.payload)
        if state.get("tokens") is not None:
            if state.get("window"):
                state["window"]["waiting"] = reactions.waiting(state)
            state["turn"] = whose_turn(state)
            _tick(state, event.payload)
    return state


def awaited(state: State) -> str | None:
    """What the table waits for now, as a key: the turn timer restarts when it changes."""
    if state.get("status") != "running" or not state.get("tokens"):
        return None
    window = state.get("window")
    if window:
        # a pass is secret (quiet): it must not restart the clock others see; a card played
        # in the window does (every player may answer it)
        return f"window|{window['after']}|{window.get('by')}|{window.get('plays', 0)}"
    if state.get("phase") == "market" and state.get("shop"):
        shop = state["shop"]
        return f"market|{shop['index']}|{shop['passes']}|{len(state['market'])}"
    fight = state.get("fight")
    if state.get("phase") != "fight" or not fight:
        return None
    if fight["step"] == "torse":
        return f"torse|{fight['number']}|{fight['due']['seat']}"
    pending = fight.get("pending") or {}
    return "|".join(str(part) for part in (
        "fight", fight["number"], fight["round"], fight["step"], fight["attacker"],
        pending.get("step"), pending.get("chooser"), ",".join(fight["climb_queue"][:1]),
        ",".join(fight["ready"])))


def _tick(state: State, p: dict) -> None:
    """The turn timer (house option, ``timer_set``): when what the table waits for changes,
    the decision now awaited gets ``timer`` seconds from the event's server time (``at``)."""
    seconds = state.get("timer") or 0
    if not seconds:
        state["clock"] = None
        return
    key = awaited(state)
    clock = state.get("clock") or {}
    if key is None:
        state["clock"] = None
    elif clock.get("key") != key and isinstance(p.get("at"), (int, float)):
        state["clock"] = {"key": key, "deadline": p["at"] + seconds}


def new_piles(catalogue: Mapping[str, Any]) -> dict[str, list[str]]:
    """Every card of the deck in its pile, sorted (the piles are unordered: a draw is at
    random, and the start's public event need not list the deck)."""
    parts = catalogue["parts"]
    return {"torse": sorted(instances(parts, "torse")),
            "parts": sorted(c for c in instances(parts) if parts[key_of(c)]["family"] != "torse"),
            "parts_top": [], "sfx": sorted(instances(catalogue["sfx"])), "sfx_discard": []}


def _take(state: State, pile: str, card: str) -> None:
    state["piles"][pile].remove(card)


def _started(state: State, p: dict) -> None:
    state.clear()
    state.update(name=p["name"], status="running", phase="setup",
                 catalogue=copy_state(p["catalogue"]), seats=list(p["draft_order"]),
                 tokens={}, piles=new_piles(p["catalogue"]), market=[], fight=None,
                 shop=None, first_to_12=None, result=None, turn=None, notes=0,
                 challenger=None, history=[], window=None, timer=p.get("timer") or 0,
                 clock=None)
    for seat in p["seats"]:
        state["tokens"][seat["id"]] = {
            **seat, "robot": {slot: None for slot in SLOTS}, "hand": [], "sfx_hand": [],
            "sfx_in_play": [], "credits": 0, "loot": [], "fight_loot": [],
            "buffs": {"attack": 0, "defence": 0, "sure_radar": False, "jammed": False},
            "out": False, "bot": False, "away": None}


def _drafted(state: State, p: dict) -> None:
    for step in p["steps"]:
        if "card" not in step:
            continue  # a discard, face down: ``discards_on_top`` names it, to the host only
        _take(state, step["from"], step["card"])
        if step["slot"]:
            state["tokens"][step["seat"]]["robot"][step["slot"]] = {
                "card": step["card"], "energy": MAX_ENERGY}
    if all("card" in step for step in p["steps"]):
        # A log from before the discards were face down names them here (taken above).
        state["piles"]["parts_top"] = list(p["discards"])


def _discards_on_top(state: State, p: dict) -> None:
    """§ Mise en place: "Toutes les cartes défaussées sont mélangées et remises sur le
    dessus de la pioche"."""
    for card_id in p["cards"]:
        _take(state, "parts", card_id)
    state["piles"]["parts_top"] = list(p["cards"])


def _dealt(state: State, p: dict) -> None:
    seat = state["tokens"][p["seat"]]
    for entry in p["cards"]:
        _take(state, entry["from"], entry["card"])
        seat["sfx_hand" if entry["from"] == "sfx" else "hand"].append(entry["card"])
    if p.get("reshuffled"):
        state["piles"]["sfx"] += state["piles"]["sfx_discard"]
        state["piles"]["sfx_discard"] = []


def _market_dealt(state: State, p: dict) -> None:
    for entry in p["cards"]:
        _take(state, entry["from"], entry["card"])
        state["market"].append(entry["card"])


def _credits(state: State, p: dict) -> None:
    for tid, amount in p["credits"].items():
        state["tokens"][tid]["credits"] += amount
    state["challenger"] = p["challenger"]


def _fight_started(state: State, p: dict) -> None:
    state["phase"] = "fight"
    state["shop"] = None
    state["challenger"] = p["challenger"]
    state["fight"] = {"number": p["number"], "round": 1, "step": "order", "order": [],
                      "rolls": {}, "climb_queue": [], "attacker": 0, "pending": None,
                      "ready": [], "fallen": [], "seats": list(p["seats"]),
                      "challenger": p["challenger"]}
    for tid in p["seats"]:
        state["tokens"][tid]["fight_loot"] = []
        state["tokens"][tid].pop("muted", None)  # asked again in the new fight


def _order_rolled(state: State, p: dict) -> None:
    fight = state["fight"]
    fight.update(step="climb", order=list(p["order"]), rolls=copy_state(p["dice"]),
                 tiebreaks=copy_state(p["tiebreaks"]),
                 climb_queue=[tid for tid in reversed(p["order"])], attacker=0, pending=None)
    if p.get("spend_last"):  # a part may spend its last point (the text; issue 25)
        fight["spend_last"] = True
    _skip_climbs(state)


def _skip_climbs(state: State) -> None:
    """Nobody left who may climb (first place, or no leg energy to spend): attacks begin."""
    from app.rules.mecha_ring.robot import legs_spendable

    fight = state["fight"]
    while fight["climb_queue"]:
        tid = fight["climb_queue"][0]
        if fight["order"].index(tid) > 0 and legs_spendable(state["tokens"][tid]["robot"],
                                                            fight.get("spend_last", False)):
            return
        fight["climb_queue"].pop(0)
    fight["step"] = "attack"
    _skip_fallen_attackers(state)


def _climbed(state: State, p: dict) -> None:
    fight = state["fight"]
    tid = p["seat"]
    if p["climb"]:
        state["tokens"][tid]["robot"]["jambes"]["energy"] -= 1
        fight["order"] = list(p["order"])
        _spent_out(state, tid, "jambes", p)
    fight["climb_queue"].pop(0)
    _skip_climbs(state)


def _skip_fallen_attackers(state: State) -> None:
    fight = state["fight"]
    while fight["attacker"] < len(fight["order"]) and not standing(
            state["tokens"][fight["order"][fight["attacker"]]]["robot"]):
        fight["attacker"] += 1
    if fight["attacker"] >= len(fight["order"]):
        fight["step"] = "repairs"
        fight["ready"] = []
        fight["pending"] = None


def _radar(state: State, p: dict) -> None:
    attacker = state["tokens"][p["attacker"]]
    if p.get("forced") == "sure":
        attacker["buffs"]["sure_radar"] = False
    if p.get("jammed"):
        attacker["buffs"]["jammed"] = False
    # the attacker first says whether it spends radar energy (issue 25: the text's order,
    # no race with the defender), when it may
    asked = p.get("ask_boost", False)
    state["fight"]["pending"] = {"defender": p["defender"],
                                 "step": "boost" if asked else "choose",
                                 "chooser": p["attacker"] if asked else p["chooser"],
                                 "success": p["success"], "slot": None}


def _spent_out(state: State, tid: str, slot: str, p: dict) -> None:
    """A part that spent its last point is destroyed: "le joueur en donne la carte à son
    adversaire" — the one it climbed over, or the defender it aims at (``to``)."""
    if not p.get("destroyed"):
        return
    state["tokens"][tid]["robot"][slot] = None
    winner = state["tokens"][p["to"]]
    winner["loot"].append(p["destroyed"])
    winner["fight_loot"].append(p["destroyed"])
    if p.get("first_to_12") and not state["first_to_12"]:
        state["first_to_12"] = p["first_to_12"]


def _boosted(state: State, p: dict) -> None:
    state["tokens"][p["attacker"]]["robot"][p["slot"]]["energy"] -= 1
    pending = state["fight"]["pending"]
    pending.update(chooser=p["attacker"], success=True, step="choose")
    _spent_out(state, p["attacker"], p["slot"], p)


def _boost_declined(state: State, p: dict) -> None:
    """The attacker keeps its radar energy: the defender chooses the part."""
    pending = state["fight"]["pending"]
    pending.update(chooser=pending["defender"], step="choose")


def _chosen(state: State, p: dict) -> None:
    pending = state["fight"]["pending"]
    pending["slot"] = p["slot"]
    pending["step"] = "window"


def _struck(state: State, p: dict) -> None:
    fight = state["fight"]
    attacker = state["tokens"][p["attacker"]]
    defender = state["tokens"][p["defender"]]
    attacker["buffs"]["attack"] = 0
    defender["buffs"]["defence"] = 0
    part = defender["robot"][p["slot"]]
    part["energy"] = p["energy_after"]
    if p["destroyed"]:
        defender["robot"][p["slot"]] = None
        attacker["loot"].append(p["destroyed"])
        attacker["fight_loot"].append(p["destroyed"])
    if p["fell"] and p["defender"] not in fight["fallen"]:
        fight["fallen"].append(p["defender"])
    if p.get("first_to_12") and not state["first_to_12"]:
        state["first_to_12"] = p["first_to_12"]
    fight["pending"] = None
    fight["attacker"] += 1
    _skip_fallen_attackers(state)


def _installed(state: State, p: dict) -> None:
    seat = state["tokens"][p["seat"]]
    seat["hand"].remove(p["card"])
    if p.get("replaced"):
        seat["hand"].append(p["replaced"])
    seat["robot"][p["slot"]] = {"card": p["card"], "energy": MAX_ENERGY}


def _recharged(state: State, p: dict) -> None:
    seat = state["tokens"][p["seat"]]
    seat["robot"][p["slot"]]["energy"] += p["points"]
    seat["credits"] -= p["cost"]


def _ready(state: State, p: dict) -> None:
    fight = state["fight"]
    if p["seat"] not in fight["ready"]:
        fight["ready"].append(p["seat"])


def _round(state: State, p: dict) -> None:
    fight = state["fight"]
    fight.update(round=p["round"], step="order", order=[], rolls={}, climb_queue=[],
                 attacker=0, pending=None, ready=[])


def _fight_ended(state: State, p: dict) -> None:
    fight = state["fight"]
    fight["step"] = "over"
    fight["pending"] = None
    fight["winner"] = p["winner"]
    for tid, amount in p["payouts"].items():
        state["tokens"][tid]["credits"] += amount
    state["history"].append({"fight": fight["number"], "winner": p["winner"],
                             "fallen": list(p["fallen"]), "payouts": dict(p["payouts"]),
                             "challenger": p["challenger"], "rounds": fight["round"]})


def _torso(state: State, p: dict) -> None:
    seat = state["tokens"][p["seat"]]
    if p["card"] is None:  # the torse pile is empty (house): out of the tournament
        seat["out"] = True
        return
    _take(state, "torse", p["card"])
    if p["paid"]:
        seat["credits"] -= p["cost"]
        seat["robot"]["torse"] = {"card": p["card"], "energy": MAX_ENERGY}
        return
    seat["out"] = True  # cannot pay: out of the tournament
    if p.get("aside"):  # the torse shown lies face up beside the ring (house)
        state["piles"].setdefault("torse_aside", []).append(p["card"])
    else:  # a log from before: it went back to its pile
        state["piles"]["torse"].append(p["card"])


def _torso_due(state: State, p: dict) -> None:
    """A loser short of crédits for the torse drawn, with a crédits card to play: the table
    waits for them (house, docs/rules-notes.md § Mecha-Ring)."""
    _take(state, "torse", p["card"])
    state["fight"].update(step="torse", due={"seat": p["seat"], "card": p["card"],
                                             "cost": p["cost"]})


def _torso_paid(state: State, p: dict) -> None:
    seat = state["tokens"][p["seat"]]
    seat["credits"] -= p["cost"]
    seat["robot"]["torse"] = {"card": p["card"], "energy": MAX_ENERGY}
    state["fight"].update(step="over", due=None)


def _torso_unpaid(state: State, p: dict) -> None:
    """Not paid after all ("il a perdu par abandon"): out, the torse set aside face up."""
    state["tokens"][p["seat"]]["out"] = True
    state["piles"].setdefault("torse_aside", []).append(p["card"])
    state["fight"].update(step="over", due=None)


def _market_opened(state: State, p: dict) -> None:
    state["phase"] = "market"
    state["shop"] = {"order": list(p["order"]), "index": 0, "passes": 0}


def _next_buyer(state: State) -> None:
    shop = state["shop"]
    shop["index"] = (shop["index"] + 1) % len(shop["order"])


def _bought(state: State, p: dict) -> None:
    seat = state["tokens"][p["seat"]]
    state["market"].remove(p["card"])
    seat["credits"] -= p["cost"]
    if p["place"] == "hand":
        seat["hand"].append(p["card"])
    else:
        if p.get("replaced"):
            seat["hand"].append(p["replaced"])
        seat["robot"][p["place"]] = {"card": p["card"], "energy": MAX_ENERGY}
    if p.get("refill"):
        _take(state, p["refill"]["from"], p["refill"]["card"])
        state["market"].append(p["refill"]["card"])
    state["shop"]["passes"] = 0
    _next_buyer(state)


def _passed(state: State, p: dict) -> None:
    state["shop"]["passes"] += 1
    _next_buyer(state)


def _sfx_played(state: State, p: dict) -> None:
    seat = state["tokens"][p["seat"]]
    if p.get("from_hand", True):
        seat["sfx_hand"].remove(p["card"])
        seat["credits"] -= p["cost"]
        if p["uses"]:
            seat["sfx_in_play"].append({"card": p["card"], "energy": p["uses"]})
    if p["uses"]:
        entry = next(e for e in seat["sfx_in_play"] if e["card"] == p["card"])
        entry["energy"] -= 1
        if entry["energy"] <= 0:
            seat["sfx_in_play"].remove(entry)
            state["piles"]["sfx_discard"].append(p["card"])
    else:
        state["piles"]["sfx_discard"].append(p["card"])
    window = state.get("window")
    if window:  # a card played in a window: those who passed may answer it
        window["passed"] = [p["seat"]]
        window["plays"] = window.get("plays", 0) + 1
    _effect(state, p)


def _effect(state: State, p: dict) -> None:
    seat = state["tokens"][p["seat"]]
    effect = p["effect"]
    if effect in ("repair", "sabotage"):
        target = state["tokens"][p.get("target") or p["seat"]]
        target["robot"][p["slot"]]["energy"] = p["after"]
    elif effect == "attack":
        seat["buffs"]["attack"] += p["amount"]
    elif effect == "defence":
        seat["buffs"]["defence"] += p["amount"]
    elif effect == "sure_radar":
        seat["buffs"]["sure_radar"] = True
    elif effect == "jam":
        state["tokens"][p["target"]]["buffs"]["jammed"] = True
    elif effect == "credits":
        seat["credits"] += p["amount"]


def _market_closed(state: State, p: dict) -> None:
    state["shop"] = None
    state["phase"] = "between"


def _tournament_ended(state: State, p: dict) -> None:
    state["phase"] = "over"
    state["status"] = "finished"
    state["result"] = {"winner": p["winner"], "champion": p["champion"],
                       "reason": p["reason"], "points": dict(p["points"])}
    if state.get("fight"):
        state["fight"]["pending"] = None


def _corrected(state: State, p: dict) -> None:
    seat = state["tokens"][p["seat"]]
    if p["field"] == "credits":
        seat["credits"] = p["after"]
    else:
        seat["robot"][p["field"]]["energy"] = p["after"]


def _modifier(state: State, p: dict) -> None:
    state["tokens"][p["seat"]]["buffs"][p["roll"]] += p["dice"]


def _bot_set(state: State, p: dict) -> None:
    state["tokens"][p["seat"]]["bot"] = p["on"]


def _note(state: State, p: dict) -> None:
    state["notes"] += 1


def _window_opened(state: State, p: dict) -> None:
    state["window"] = {"after": p["after"], "by": p.get("by"), "passed": [], "waiting": [],
                       "plays": 0}
    if p.get("relevant"):  # asks only whose card can change the next step (issue 25)
        state["window"]["relevant"] = True


def _reaction_muted(state: State, p: dict) -> None:
    """« Never ask me this fight » for these cards (their player's and the host's to know:
    the event is ``quiet``)."""
    seat = state["tokens"][p["seat"]]
    seat["muted"] = sorted({*seat.get("muted", []), *p["cards"]})


def _reaction_passed(state: State, p: dict) -> None:
    window = state.get("window")
    if window and p["seat"] not in window["passed"]:
        window["passed"].append(p["seat"])


def _window_closed(state: State, p: dict) -> None:
    state["window"] = None


def _attack_skipped(state: State, p: dict) -> None:
    fight = state["fight"]
    fight["pending"] = None
    fight["attacker"] += 1
    _skip_fallen_attackers(state)


def _timer_set(state: State, p: dict) -> None:
    state["timer"] = p["seconds"]
    state["clock"] = None  # ``_tick`` starts it again from this event


def _seat_away(state: State, p: dict) -> None:
    seat = state["tokens"][p["seat"]]
    seat["away"] = p["mode"]
    if p["mode"] == "bot":
        seat["bot"] = True


def _seat_back(state: State, p: dict) -> None:
    seat = state["tokens"][p["seat"]]
    if (state.get("late") or {}).get("seat") == p["seat"]:
        state["late"] = None
    if seat.get("away") == "bot":
        seat["bot"] = False
    seat["away"] = None


def _timed_out(state: State, p: dict) -> None:
    """A seat's time ran out (``row``: how many times in a row; a log from before only
    explains, what follows it changes the state)."""
    if "row" in p:
        state["late"] = {"seat": p["seat"], "row": p["row"]}


def _present(state: State, p: dict) -> None:
    state["late"] = None


def _nothing(state: State, p: dict) -> None:
    """An event that only explains: what follows it changes the state."""


_EVOLVE: dict[str, Callable[[State, dict], None]] = {
    "tournament_started": _started,
    "drafted": _drafted,
    "discards_on_top": _discards_on_top,
    "dealt": _dealt,
    "market_dealt": _market_dealt,
    "credits_given": _credits,
    "fight_started": _fight_started,
    "order_rolled": _order_rolled,
    "climbed": _climbed,
    "radar_rolled": _radar,
    "radar_boosted": _boosted,
    "boost_declined": _boost_declined,
    "part_chosen": _chosen,
    "struck": _struck,
    "installed": _installed,
    "recharged": _recharged,
    "ready": _ready,
    "round_started": _round,
    "fight_ended": _fight_ended,
    "torso_drawn": _torso,
    "torso_due": _torso_due,
    "torso_paid": _torso_paid,
    "torso_unpaid": _torso_unpaid,
    "market_opened": _market_opened,
    "bought": _bought,
    "passed": _passed,
    "sfx_played": _sfx_played,
    "market_closed": _market_closed,
    "tournament_ended": _tournament_ended,
    "corrected": _corrected,
    "note_added": _note,
    "bot_set": _bot_set,
    "modifier_set": _modifier,
    "window_opened": _window_opened,
    "reaction_passed": _reaction_passed,
    "reaction_muted": _reaction_muted,
    "window_closed": _window_closed,
    "attack_skipped": _attack_skipped,
    "timer_set": _timer_set,
    "timed_out": _timed_out,
    "seat_present": _present,
    "seat_away": _seat_away,
    "seat_back": _seat_back,
}


# — what a viewer sees —————————————————————————————————————————————————————————————

# Piles every player sees card by card, face up: the SFX cards played and the torses drawn
# but not paid (``sfx_played`` and ``torso_drawn`` name each to everyone).
OPEN_PILES = frozenset({"sfx_discard", "torse_aside"})


def view(state: State, viewer: Actor) -> State:
    """Hands and piles are secret (issue: "hands and the order of the decks are never sent to
    anyone else"): a player sees their own hands, the counts of the others' and of the piles
    (the ``OPEN_PILES`` face up); the GM (the host) sees everything."""
    if not state.get("tokens"):
        return state
    window = state.get("window")
    if viewer.is_gm:  # the host sees whom the window waits for, and theirs
        return state if not window else {**state, "window": {**window, "mine": [
            tid for tid in window["waiting"]
            if state["tokens"][tid].get("owner_id") in (None, viewer.user_id)],
            "host_view": True}}
    # A new dict wherever the view differs; the rest is the state's own (callers copy).
    shown = {**state, "piles": {name: list(cards) if name in OPEN_PILES else len(cards)
                                for name, cards in state["piles"].items()},
             "tokens": {tid: seat if viewer.controls(seat) else _hidden_hands(seat)
                        for tid, seat in state["tokens"].items()}}
    if window:
        # who may react depends on the hands: a player learns only about their own seats
        mine = [tid for tid in window["waiting"] if viewer.controls(state["tokens"][tid])]
        shown["window"] = {"after": window["after"], "by": window.get("by"),
                           "plays": window.get("plays", 0),
                           **({"relevant": True} if window.get("relevant") else {}),
                           "waiting": mine, "mine": mine, "passed": [
                               tid for tid in window["passed"]
                               if viewer.controls(state["tokens"][tid])]}
    return shown


def _hidden_hands(seat: Mapping[str, Any]) -> dict[str, Any]:
    """Another team's seat as a player sees it: the hands as counts; which cards it asked not
    to be asked about is not shown at all (they are cards of its hand)."""
    shown = {key: value for key, value in seat.items() if key != "muted"}
    shown.update(hand=len(seat["hand"]), sfx_hand=len(seat["sfx_hand"]))
    return shown


def between_matches(state: State, sheets: Mapping[int, dict]) -> dict[int, dict]:
    """The tournament's record on each team's sheet (§ Fin du tournoi)."""
    result = state.get("result")
    changed: dict[int, dict] = {}
    if not result:
        return changed
    for tid, seat in state["tokens"].items():
        sheet = sheets.get(seat.get("character_id"))
        if sheet is None:
            continue
        new = copy_state(sheet)
        new["tournaments"] = int(new.get("tournaments", 0)) + 1
        if result["winner"] == tid:
            new["wins"] = int(new.get("wins", 0)) + 1
        if result["champion"] == tid:
            new["titles"] = int(new.get("titles", 0)) + 1
        new["best_points"] = max(int(new.get("best_points", 0)), points(seat))
        changed[seat["character_id"]] = new
    return changed
