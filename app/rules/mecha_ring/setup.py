"""A tournament's set-up (§ Mise en place), all of it server-side with the dice: the draft
order by artificial implants, the draft of a torse then parts until every robot is complete,
the discards back on top, the hands (5 parts, 1 SFX), the market (players + 1), the starting
crédits by robot value and the challenger; then the first fight."""

from __future__ import annotations

from typing import Any

from app.rules.dice import Dice
from app.rules.match import Event, MatchSetup, copy_state
from app.rules.mecha_ring.common import Emitter, draw_card
from app.rules.mecha_ring.content import deck
from app.rules.mecha_ring.robot import SLOT_FAMILY, card, free_slot, robot_value

HAND_SIZE = 5  # "Chaque joueur pioche 5 cartes morceaux de robot et une carte SFX"
CREDITS_LOWEST, CREDITS_MIDDLE, CREDITS_HIGHEST = 100, 75, 50
DRAFT_LIMIT = 500  # a guard: a draft that cannot complete the robots stops (never loops)


def implants(sheet: Any) -> int:
    value = (sheet or {}).get("implants", 0) if isinstance(sheet, dict) else 0
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def start(setup: MatchSetup, dice: Dice) -> list[Event]:
    catalogue = deck((setup.options or {}).get("content"))
    seats = [{"id": f"t{index + 1}", "name": entry.name, "character_id": entry.character_id,
              "owner_id": entry.owner_id, "implants": implants(dict(entry.sheet or {}))}
             for index, entry in enumerate(setup.participants)]
    _check_table(catalogue, len(seats))
    # "en commençant par celui qui a le plus d'implants artificiels" (ties: seating order).
    order = [seat["id"] for seat in sorted(seats, key=lambda seat: -seat["implants"])]
    timer = _timer((setup.options or {}).get("turn_seconds"))
    now = (setup.options or {}).get("now")  # the server's clock (the table service's)
    em = Emitter({}, now if isinstance(now, (int, float)) and not isinstance(now, bool)
                 else None)
    em.emit("tournament_started", {"name": setup.name, "catalogue": catalogue, "seats": seats,
                                   "draft_order": order, "timer": timer})
    _draft(em, dice, order)
    for tid in order:
        deal(em, dice, tid, HAND_SIZE, sfx=1, actor=None)
    refill_market(em, dice, len(order) + 1)
    _credits(em, order)
    start_fight(em, 1)
    from app.rules.mecha_ring.actions import settle

    settle(em, dice)  # the first round's order needs nobody's decision: it is rolled
    return em.events


def _timer(seconds: Any) -> int:
    """The turn timer the host set when opening the tournament (house): 0, or 15 to 3600
    seconds for each decision (``actions.TIMER_MIN``/``TIMER_MAX``)."""
    from app.rules.mecha_ring.common import refuse

    if seconds in (None, "", 0):
        return 0
    if isinstance(seconds, bool) or not isinstance(seconds, int) or not 15 <= seconds <= 3600:
        raise refuse("bad_field", field="turn_seconds", reason="0, 15…3600")
    return seconds


def _check_table(catalogue: dict[str, Any], players: int) -> None:
    """§ Mise en place: "Le jeu peut se jouer de 2 à 4 joueurs"; and a deck (the host may
    have left cards out) must hold a torse a player and enough parts for the robots, the
    hands and the market."""
    from app.rules.mecha_ring.common import refuse
    from app.rules.mecha_ring.content import instances

    if not 2 <= players <= 4:
        raise refuse("players")
    parts = catalogue["parts"]
    torses = len(instances(parts, "torse"))
    others = len(instances(parts)) - torses
    needed = players * (4 + HAND_SIZE) + players + 1
    if torses < players or others < needed or not instances(catalogue["sfx"]):
        raise refuse("deck_too_small", players=players, torses=players, parts=needed)


def _draft(em: Emitter, dice: Dice, order: list[str]) -> None:
    """"piocher d'abord une carte Torse, puis piocher une carte « morceau de robot » et la
    placer si possible dans son Combatank, ou bien la défausser s'il a déjà cette pièce, et
    ainsi de suite jusqu'à ce que les robots de tous soient entièrement prêts"."""
    piles = copy_state(em.state["piles"])
    robots = {tid: copy_state(em.state["tokens"][tid]["robot"]) for tid in order}
    parts = em.state["catalogue"]["parts"]
    steps: list[dict[str, Any]] = []
    discards: list[str] = []
    for tid in order:
        found = draw_card(piles, dice, "torse")
        if found:
            robots[tid]["torse"] = {"card": found["card"], "energy": 4}
            steps.append({"seat": tid, **found, "slot": "torse"})
    for _ in range(DRAFT_LIMIT):
        waiting = [tid for tid in order if any(part is None for slot, part in robots[tid].items()
                                               if slot != "torse")]
        if not waiting or not piles["parts"]:
            break
        for tid in waiting:
            found = draw_card(piles, dice, "parts")
            if found is None:
                break
            slot = free_slot(robots[tid], card(parts, found["card"])["family"])
            if slot is not None and SLOT_FAMILY[slot] != "torse":
                robots[tid][slot] = {"card": found["card"], "energy": 4}
                steps.append({"seat": tid, **found, "slot": slot})
            else:  # a discard, face down (house): only its count and its drawer are public
                discards.append(found["card"])
                steps.append({"seat": tid, "from": found["from"], "slot": None})
    em.emit("drafted", {"steps": steps, "discards": [step["seat"] for step in steps
                                                     if step["slot"] is None]})
    if discards:
        # The discards go on top of the pile: the next parts dealt come from them, so who
        # knew them would know those hands (``view`` hides the piles): the host's only.
        em.emit("discards_on_top", {"cards": discards}, "gm")


def deal(em: Emitter, dice: Dice, tid: str, count: int, *, sfx: int, actor) -> None:
    """Cards into a hand: parts from the discards put on top first, then the pile; SFX from
    their pile (its discards shuffled back when it runs out — house)."""
    from app.rules.mecha_ring.common import private

    piles = copy_state(em.state["piles"])
    cards = [found for _ in range(count)
             if (found := draw_card(piles, dice, "parts_top", "parts"))]
    reshuffled = False
    for _ in range(sfx):
        found = draw_card(piles, dice, "sfx")
        if found is None and piles["sfx_discard"] and not reshuffled:
            reshuffled = True
            piles["sfx"], piles["sfx_discard"] = piles["sfx_discard"], []
            # the reshuffle must happen before the draw in the fold too: deal it separately
            em.emit("dealt", {"seat": tid, "cards": cards, "reshuffled": True},
                    private(em.state, actor, tid))
            cards = []
            found = draw_card(piles, dice, "sfx")
        if found:
            cards.append(found)
    if cards:
        em.emit("dealt", {"seat": tid, "cards": cards, "count": len(cards)},
                private(em.state, actor, tid))


def refill_market(em: Emitter, dice: Dice, count: int) -> None:
    piles = copy_state(em.state["piles"])
    cards = [found for _ in range(count)
             if (found := draw_card(piles, dice, "parts_top", "parts"))]
    if cards:
        em.emit("market_dealt", {"cards": cards})


def values(state: dict, seats: list[str]) -> dict[str, int]:
    parts = state["catalogue"]["parts"]
    return {tid: robot_value(state["tokens"][tid]["robot"], parts) for tid in seats}


def challenger(state: dict, seats: list[str]) -> str | None:
    """"Le joueur dont le Combatank a la plus faible valeur est considéré comme le challenger"
    (ties: the first of them in the draft order — house)."""
    found = values(state, seats)
    return min(seats, key=lambda tid: found[tid]) if seats else None


def _credits(em: Emitter, order: list[str]) -> None:
    found = values(em.state, order)
    low, high = min(found.values()), max(found.values())
    credits = {tid: CREDITS_MIDDLE if low == high else CREDITS_LOWEST if value == low
               else CREDITS_HIGHEST if value == high else CREDITS_MIDDLE
               for tid, value in found.items()}
    em.emit("credits_given", {"credits": credits, "values": found,
                              "challenger": challenger(em.state, order)})


def start_fight(em: Emitter, number: int) -> None:
    seats = [tid for tid in em.state["seats"] if not em.state["tokens"][tid]["out"]]
    em.emit("fight_started", {"number": number, "seats": seats,
                              "challenger": challenger(em.state, seats),
                              "values": values(em.state, seats)})
