"""Seeded tournaments of house bots, played through the rules, and how they end (issue 25:
"Tune the house prices and the bot with simulations so that most tournaments end on 12 points
at 2, 3 and 4 players; the simulation is a command that prints how tournaments end").

    python -m app.rules.mecha_ring.simulate [--tournaments 30] [--seed 1]

prints, for 2, 3 and 4 players, how many tournaments ended on 12 victory points (champion,
overtaken or without the title: § Fin du tournoi) and how many by bankruptcy (the last valid
Combatank: "Si un joueur n'a plus les moyens d'acheter le torse pioché, il a perdu par
abandon"), with the fights they took. Pure but for ``main``'s printing.
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.rules.dice import Dice, SeededDice
from app.rules.match import (
    Actor,
    IllegalAction,
    MatchSetup,
    ParticipantSetup,
    State,
    apply,
    copy_state,
    fold,
)

HOST = Actor(1, is_gm=True)
ACTIONS_MAX = 400  # « let the bots play » nudges: a tournament never needs as many
ON_POINTS = ("champion", "overtaken", "no_title")


@dataclass
class TournamentReport:
    players: int
    seed: int
    reason: str  # champion, overtaken, no_title, alone, or unfinished
    fights: int


def _system():
    from app.rules.registry import get_system

    return get_system("mecha_ring")


def play_tournament(players: int, seed: int) -> TournamentReport:
    mecha = _system()
    setup = MatchSetup("Tournoi", tuple(
        ParticipantSetup(f"Robot {n + 1}", character_id=n + 1, owner_id=None,
                         sheet={"implants": n}) for n in range(players)))
    dice = SeededDice(seed)
    state = play_on(fold(mecha, mecha.start(setup, dice)), dice)
    reason = (state.get("result") or {}).get("reason") or "unfinished"
    return TournamentReport(players, seed, reason, len(state.get("history") or []))


def play_on(state: State, dice: Dice, actions_max: int = ACTIONS_MAX) -> State:
    """The tournament from ``state`` to its end with every seat given to the house bot (the
    host's « robots de la maison »), nudged on by the host's « let the bots play » until it
    ends, or after ``actions_max`` nudges, or when the bots have nothing left to do."""
    mecha = _system()
    for tid in list(state["seats"]):
        if not state["tokens"][tid].get("bot") and not state["tokens"][tid].get("out"):
            try:
                _events, state = apply(mecha, state, {"kind": "set_bot", "seat": tid,
                                                      "on": "on"}, HOST, dice)
            except IllegalAction:
                continue
    for _ in range(actions_max):
        if state["status"] == "finished":
            break
        try:
            _events, state = apply(mecha, state, {"kind": "let_bots_play"}, HOST, dice)
        except IllegalAction:
            break
    return state


# — the table's simulations (app.rules.simulation) ——————————————————————————————————

HIDDEN_PILES = ("torse", "parts", "parts_top", "sfx")


def simulable(state: Mapping[str, Any]) -> bool:
    """A tournament under way with two Combatanks or more still in it."""
    return state.get("status") == "running" and state.get("phase") in ("fight", "market") \
        and sum(1 for tid in state["seats"] if not state["tokens"][tid]["out"]) >= 2


def fill(view: State, viewer: Actor, dice: Dice) -> State:
    """A whole tournament ``viewer``'s view could be: the cards they cannot see — the piles
    but the open ones, the other players' hands — dealt at random from the cards of the deck
    that are nowhere in sight (``match.view`` shows their counts). Piles are unordered (a
    draw is at random), so who holds which unseen card is all there is to choose."""
    from app.rules.mecha_ring.content import instances, key_of

    state = copy_state(view)
    catalogue = state["catalogue"]
    parts, sfx = set(instances(catalogue["parts"])), set(instances(catalogue["sfx"]))
    seen: set[str] = set(state["market"])
    for seat in state["tokens"].values():
        seen |= {part["card"] for part in seat["robot"].values() if part}
        seen |= set(seat["loot"]) | set(seat["fight_loot"])
        seen |= {entry["card"] for entry in seat["sfx_in_play"]}
        for hand in ("hand", "sfx_hand"):
            if isinstance(seat[hand], list):
                seen |= set(seat[hand])
    for pile in state["piles"].values():
        if isinstance(pile, list):
            seen |= set(pile)

    def shuffled(cards: set[str]) -> list[str]:
        deck = sorted(cards)  # then a Fisher-Yates shuffle with the run's own dice
        for last in range(len(deck) - 1, 0, -1):
            other = dice.roll(last + 1)[0] - 1
            deck[last], deck[other] = deck[other], deck[last]
        return deck

    torses = shuffled({c for c in parts - seen if catalogue["parts"][key_of(c)]["family"]
                       == "torse"})
    others = shuffled({c for c in parts - seen if catalogue["parts"][key_of(c)]["family"]
                       != "torse"})
    cards = shuffled(sfx - seen)

    def deal(deck: list[str], held: Any) -> Any:
        """``held`` cards off the top of ``deck`` where the view shows a count; a list (the
        viewer's own hand, an open pile) stays as it is."""
        if not isinstance(held, int):
            return held
        taken, deck[:] = deck[:held], deck[held:]
        return taken

    for seat in state["tokens"].values():
        seat.setdefault("muted", [])
        seat["hand"] = deal(others, seat["hand"])
        seat["sfx_hand"] = deal(cards, seat["sfx_hand"])
    for name in HIDDEN_PILES:
        pile = state["piles"].get(name)
        if isinstance(pile, int):
            state["piles"][name] = deal(torses if name == "torse" else cards if name == "sfx"
                                        else others, pile)
    window = state.get("window")
    if window:
        state["window"] = {key: value for key, value in window.items()
                           if key not in ("mine", "host_view")}
    return state


def play(state: State, seed: str) -> dict[str, int]:
    """The tournament from ``state`` to its end, every seat a house bot: who wins the fight
    under way (or the next one: ``fight:<seat>``), who wins the tournament (``win:<seat>``,
    ``unfinished`` when it does not end), each seat's victory points at the end
    (``points:<seat>``) and the fights it took."""
    end = play_on(state, SeededDice(seed))
    fought = (end.get("history") or [])[len(state.get("history") or []):]
    found: dict[str, int] = {"fights": len(fought)}
    first = fought[0].get("winner") if fought else None
    found["fight:" + first if first else "fight:none"] = 1
    winner = (end.get("result") or {}).get("winner") if end["status"] == "finished" else None
    found["win:" + winner if winner else "unfinished"] = 1
    for tid in state["seats"]:
        found["points:" + tid] = len(end["tokens"][tid]["loot"])
    return found


def figures(tally: Any, state: Mapping[str, Any]) -> Any:
    """Who wins this fight (the next one at the market) and the tournament, with the
    bookmaker's quote, and each seat's victory points at the end."""
    from app.rules.odds.action import Amount, Phrase
    from app.rules.simulation import Figures, Line, Section
    from app.rules.system import N_

    seats = [tid for tid in state["seats"] if not state["tokens"][tid]["out"]]
    name = {tid: state["tokens"][tid]["name"] for tid in state["seats"]}
    fight = [Line("fight:" + tid, name[tid], tally.share("fight:" + tid), quote=True)
             for tid in seats]
    if tally.sums.get("fight:none"):
        fight.append(Line("fight:none", Phrase(N_("No fight is fought to its end")),
                          tally.share("fight:none")))
    title = N_("The next fight") if state.get("phase") == "market" else N_("This fight")
    tournament = [Line("win:" + tid, name[tid], tally.share("win:" + tid), quote=True)
                  for tid in seats]
    if tally.sums.get("unfinished"):
        tournament.append(Line("unfinished", Phrase(N_("Not over when the bots stopped")),
                               tally.share("unfinished")))
    points = [Line("points:" + tid, name[tid], mean=tally.mean("points:" + tid))
              for tid in seats]
    return Figures((
        Section("fight", Phrase(title), tuple(fight)),
        Section("tournament", Phrase(N_("The tournament")), tuple(tournament)),
        Section("points", Phrase(N_("Victory points at the end, on average")), tuple(points)),
    ), (Phrase(N_("%(fights)s more fight on average"), {"fights": Amount(tally.mean("fights"))},
               plural="%(fights)s more fights on average", count="fights"),))


def simulate(tournaments: int = 30, seed: int = 1,
             sizes: tuple[int, ...] = (2, 3, 4)) -> dict[int, list[TournamentReport]]:
    return {size: [play_tournament(size, seed + n) for n in range(tournaments)]
            for size in sizes}


def table(found: dict[int, list[TournamentReport]]) -> list[str]:
    lines = [f"{'players':>7}  {'on 12 points':>12}  {'bankruptcy':>10}  {'unfinished':>10}"
             f"  {'fights (mean)':>13}  detail"]
    for size, reports in found.items():
        reasons = Counter(report.reason for report in reports)
        points = sum(reasons[reason] for reason in ON_POINTS)
        fights = sum(report.fights for report in reports) / (len(reports) or 1)
        detail = ", ".join(f"{reason} {count}" for reason, count in sorted(reasons.items()))
        lines.append(f"{size:>7}  {points:>6} / {len(reports):<3}  {reasons['alone']:>10}  "
                     f"{reasons['unfinished']:>10}  {fights:>13.1f}  {detail}")
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--tournaments", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    for line in table(simulate(args.tournaments, args.seed)):
        print(line)


if __name__ == "__main__":
    main()
