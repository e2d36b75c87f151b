"""Seeded hunts, played through the rules by a plain hunting tribe, and how they end (issue
25: "show with seeded hunts that prey stay in play until hunters reach them in most hunts").

    python -m app.rules.chasse.simulate [--hunts 20] [--seed 1]

prints one line per hunt — the scenario, how and when it ended, whether the hunters reached a
prey while it was still there, the prey killed, fled off the board and wandered off, the food
brought back — then the totals. The tribe walks at the nearest prey (or charges it when it
is within a charge's likely reach), throws and fights what the forms offer, butchers and
carries the meat home; the GM ends a decided hunt. Pure but for ``main``'s printing.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.rules.chasse.ending import decided
from app.rules.chasse.geometry import CONTACT, distance, o_pos
from app.rules.chasse.sheet import blank_sheet
from app.rules.chasse.state import carcasses, prey
from app.rules.dice import Dice, SeededDice
from app.rules.match import Actor, IllegalAction, MatchSetup, ParticipantSetup, apply, fold

SCENARIOS = ("vallee", "steppe", "mammouth")
TRIBE = (("Ourk", {"weapons": ["javelot", "couteau"]}),
         ("Ghâ", {"shaman": True, "weapons": ["fronde", "couteau"]}),
         ("Bronk", {"profile": "pataud", "weapons": ["lance", "massue"]}))
PLAYER = Actor(7, character_ids=frozenset({1, 2, 3}))
GM = Actor(1, is_gm=True)
ACTIONS_MAX = 600


@dataclass
class HuntReport:
    scenario: str
    seed: int
    reason: str
    rounds: int
    reached: bool  # a hunter threw at or fought a prey
    killed: int
    fled: int  # left the board fleeing (a hunter, a fire)
    wandered_off: int  # left the board wandering (never, since issue 25)
    food: int


def _tribe() -> MatchSetup:
    return MatchSetup("Chasse", tuple(
        ParticipantSetup(name, character_id=n + 1, owner_id=7, sheet={**blank_sheet(), **sheet})
        for n, (name, sheet) in enumerate(TRIBE)))


def _camp(state: Mapping[str, Any]) -> Mapping[str, Any] | None:
    return next((s for s in state["board"]["terrain"] if s.get("kind") == "camp"), None)


def _goal(state: Mapping[str, Any], hunter: Mapping[str, Any]) -> list[float] | None:
    """Where a hunter walks: home with meat, else to a carcass with meat, else to the
    nearest living prey."""
    camp = _camp(state)
    if hunter.get("carried") and camp is not None:
        return [camp["x"] + camp["w"] / 2, camp["y"] + camp["h"] / 2]
    meat = [c for c in carcasses(state) if c["kind"] == "prey"]  # type: ignore[arg-type]
    found = meat or prey(state)  # type: ignore[arg-type]
    if not found:
        return None
    return o_pos(min(found, key=lambda t: distance(o_pos(hunter), o_pos(t))))


def _walk(state: Mapping[str, Any], hunter: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Moves towards the hunter's goal, longest first (whole inches: the form's points)."""
    goal = _goal(state, hunter)
    if goal is None:
        return []
    here = o_pos(hunter)
    span = distance(here, goal)
    left = hunter["dmax"] - hunter.get("spent", 0)
    home = bool(hunter.get("carried"))
    step = min(left, span if home else max(span - CONTACT, 0))
    tries = []
    for length in (step, step - 0.5, step - 1, step - 2, step - 3):
        if length <= 0.5:
            continue
        x = here[0] + (goal[0] - here[0]) * length / span
        y = here[1] + (goal[1] - here[1]) * length / span
        for dx, dy in ((0, 0), (1, 0), (-1, 0), (0, 1), (0, -1)):
            tries.append({"kind": "move", "token": hunter["id"],
                          "x": max(0, round(x) + dx), "y": max(0, round(y) + dy)})
    return tries


def _choices(state: Mapping[str, Any], forms: list) -> list[dict[str, Any]]:
    """The tribe's wishes in order: fight, throw at a prey, butcher, pick up, charge or walk;
    else close the step."""
    found = {form.kind: form for form in forms}
    wishes: list[dict[str, Any]] = []
    if "melee" in found:
        for token, fight in found["melee"].choices["fights"].items():
            wishes.append({"kind": "melee", "token": token,
                           "target": fight["targets"][0][0], "weapon": fight["weapons"][0]})
    if "shoot" in found:
        for token, options in found["shoot"].choices["shots"].items():
            wishes += [{"kind": "shoot", "token": token, "target": option[0],
                        "weapon": option[2]} for option in options
                       if state["tokens"][option[0]]["kind"] == "prey"]
    if "butcher" in found:
        for token, meat in found["butcher"].choices["meat"].items():
            wishes.append({"kind": "butcher", "token": token,
                           "carcass": meat["carcasses"][0][0]})
    if "pick_up" in found:
        for token, items in found["pick_up"].choices["items"].items():
            wishes.append({"kind": "pick_up", "token": token, "item": items[0][0]})
    if "move" in found:
        move = found["move"].choices
        for token in move["tokens"]:
            hunter = state["tokens"][token]
            targets = [state["tokens"][t] for t, _name in move["targets"].get(token, [])
                       if state["tokens"][t]["kind"] == "prey"]
            close = [t for t in targets
                     if distance(o_pos(hunter), o_pos(t)) <= hunter["dmax"] + 3.5]
            if close and not hunter.get("carried"):
                wishes.append({"kind": "move", "token": token, "target": close[0]["id"]})
            wishes += _walk(state, hunter)
    for closing in ("next_step", "end_turn"):
        if closing in found:
            wishes.append({"kind": closing})
    return wishes


def play_hunt(scenario: str, seed: int) -> HuntReport:
    dice = SeededDice(seed)
    state = fold(CHASSE, CHASSE.start(_tribe(), dice))
    log = []
    for action in ({"kind": "choose_scenario", "scenario": scenario}, {"kind": "begin_hunt"}):
        events, state = apply(CHASSE, state, action, GM, dice)
        log += events
    state, played = play_on(state, dice, PLAYER)
    return _report(scenario, seed, state, log + played)


def play_on(state: Mapping[str, Any], dice: Dice, player: Actor,
            actions_max: int = ACTIONS_MAX) -> tuple[dict[str, Any], list]:
    """The hunt from ``state`` (a hunt under way) played on by the tribe's wishes for the
    hunters ``player`` controls, until it ends (the GM ends a decided hunt) or after
    ``actions_max`` actions: the state then, and the events on the way."""
    log: list = []
    moved: set[str] = set()
    for _ in range(actions_max):
        if state["status"] == "finished":
            break
        if decided(state):
            events, state = apply(CHASSE, state, {"kind": "end_hunt"}, GM, dice)
            log += events
            break
        wishes = _choices(state, CHASSE.legal_actions(state, player))
        for wish in wishes:
            if wish["kind"] == "move" and "target" not in wish and wish["token"] in moved \
                    and state["step"] == 4:
                continue  # one walk a turn: the rest of the step is the next one's
            try:
                events, state = apply(CHASSE, state, wish, player, dice)
            except IllegalAction:
                continue
            log += events
            if wish["kind"] == "move":
                moved.add(wish["token"])
            if any(e.kind == "turn_begun" for e in events):
                moved.clear()
            break
        else:
            break  # nothing the tribe wishes is allowed: the hunt waits for people
    return dict(state), log


def _report(scenario: str, seed: int, state: Mapping[str, Any], log: list) -> HuntReport:
    fled = wandered = 0
    for event in log:
        if event.kind != "prey_reacted":
            continue
        gone = sum(1 for move in event.payload.get("moves", []) if move.get("gone"))
        if event.payload["outcome"] in ("fuit", "fuit_feu"):
            fled += gone
        else:
            wandered += gone
    reached = any(e.kind in ("shot", "melee") for e in log)
    killed = sum(1 for t in state["tokens"].values()
                 if t["kind"] == "prey" and t["state"] in ("dead", "burnt"))
    result = state.get("result") or {}
    return HuntReport(scenario, seed, result.get("reason") or "unfinished", state["round"],
                      reached, killed, fled, wandered,
                      sum(side["food"] for side in state["sides"]))


# — the table's simulations (app.rules.simulation) ——————————————————————————————————

REASONS = ("turns", "no_prey", "no_hunters", "back_at_camp", "gm", "unfinished")
DOWN = ("dead", "burnt")


def tribe_of(state: Mapping[str, Any]) -> Actor:
    """Who plays the hunters in a simulation: every hunter of the hunt (the players'
    characters; a figure no character plays is the GM's and waits)."""
    return Actor(None, character_ids=frozenset(
        token["character_id"] for token in state["tokens"].values()
        if token["kind"] == "hunter" and token.get("character_id") is not None))


def simulable(state: Mapping[str, Any]) -> bool:
    """A hunt under way, with a hunter still standing and something left to hunt."""
    return state.get("status") == "running" and not decided(state) \
        and bool(tribe_of(state).character_ids)


def play(state: Mapping[str, Any], seed: str) -> dict[str, int]:
    """The hunt from ``state`` to its end, the tribe playing every hunter (``_choices``) and
    the prey reacting by the rules: how it ended (``end:<reason>``), each prey of the start
    brought down (``down:<token>``), each hunter lost (``lost:<token>``), the food each
    tribe brought back (``food:<side>``) and the turns it took."""
    end, _log = play_on(state, SeededDice(seed), tribe_of(state))
    found: dict[str, int] = {"rounds": max(0, end["round"] - state["round"])}
    reason = (end.get("result") or {}).get("reason") or "unfinished"
    if reason == "gm":  # the GM's bot ended a decided hunt: why it was decided
        reason = decided({**end, "status": "running"}) or reason
    found["end:" + (reason if reason in REASONS else "unfinished")] = 1
    for tid, token in state["tokens"].items():
        after = end["tokens"].get(tid) or {}
        if token["kind"] == "prey" and token["state"] not in DOWN and after.get("state") in DOWN:
            found["down:" + tid] = 1
        if token["kind"] == "hunter" and token["state"] not in DOWN \
                and after.get("state") in DOWN:
            found["lost:" + tid] = 1
    before = {side["id"]: side["food"] for side in state["sides"]}
    for side in end["sides"]:
        found["food:" + side["id"]] = max(0, side["food"] - before.get(side["id"], 0))
    return found


def _names(tokens: list[Mapping[str, Any]]) -> dict[str, str]:
    """Each figure's name, numbered where several share it (« Sanglier 1 », « Sanglier 2 »)."""
    counts: dict[str, int] = {}
    for token in tokens:
        counts[token["name"]] = counts.get(token["name"], 0) + 1
    seen: dict[str, int] = {}
    names = {}
    for token in tokens:
        if counts[token["name"]] > 1:
            seen[token["name"]] = seen.get(token["name"], 0) + 1
            names[token["id"]] = f"{token['name']} {seen[token['name']]}"
        else:
            names[token["id"]] = token["name"]
    return names


def figures(tally: Any, state: Mapping[str, Any]) -> Any:
    """The prey brought down, the hunters lost, the food each tribe brings back and how the
    hunt ends, over the runs."""
    from app.rules.odds.action import Amount, Phrase
    from app.rules.simulation import Figures, Line, Section
    from app.rules.system import N_

    tokens = [t for t in state["tokens"].values() if t["state"] not in DOWN]
    names = _names([t for t in state["tokens"].values() if t["kind"] in ("prey", "hunter")])
    game = [Line("down:" + t["id"], names[t["id"]], tally.share("down:" + t["id"]))
            for t in tokens if t["kind"] == "prey" and t["state"] != "gone"]
    lost = [Line("lost:" + t["id"], names[t["id"]], tally.share("lost:" + t["id"]))
            for t in tokens if t["kind"] == "hunter" and t["state"] != "gone"]
    food = [Line("food:" + side["id"], Phrase(N_("Tribe of %(name)s"), {"name": side["name"]}),
                 mean=tally.mean("food:" + side["id"])) for side in state["sides"]]
    words = {"turns": N_("the scenario's turns are played"),
             "no_prey": N_("nothing is left to hunt or carry"),
             "no_hunters": N_("no hunter is left standing"),
             "back_at_camp": N_("every hunter is back at camp"),
             "gm": N_("the GM ended it"), "unfinished": N_("still running when the bot stopped")}
    ends = [Line("end:" + reason, Phrase(words[reason]), tally.share("end:" + reason))
            for reason in REASONS if tally.sums.get("end:" + reason)]
    return Figures((
        Section("down", Phrase(N_("Prey brought down")), tuple(game)),
        Section("lost", Phrase(N_("Hunters lost")), tuple(lost)),
        Section("food", Phrase(N_("Food brought back to camp, on average")), tuple(food)),
        Section("end", Phrase(N_("How the hunt ends")), tuple(ends)),
    ), (Phrase(N_("%(turns)s turn on average"), {"turns": Amount(tally.mean("rounds"))},
               plural="%(turns)s turns on average", count="turns"),))


def simulate(hunts: int = 20, seed: int = 1) -> list[HuntReport]:
    """``hunts`` hunts, the ready scenarios in turn, each with its own seed."""
    return [play_hunt(SCENARIOS[n % len(SCENARIOS)], seed + n) for n in range(hunts)]


def table(reports: list[HuntReport]) -> list[str]:
    lines = [f"{'scenario':<10}{'seed':>5}  {'ended':<13}{'turns':>6}{'reached':>9}"
             f"{'killed':>8}{'fled':>6}{'wandered off':>14}{'food':>6}"]
    for r in reports:
        lines.append(f"{r.scenario:<10}{r.seed:>5}  {r.reason:<13}{r.rounds:>6}"
                     f"{'yes' if r.reached else 'no':>9}{r.killed:>8}{r.fled:>6}"
                     f"{r.wandered_off:>14}{r.food:>6}")
    count = len(reports) or 1
    reached = sum(r.reached for r in reports)
    lines.append(f"{len(reports)} hunts: the hunters reached a prey in {reached} "
                 f"({math.floor(100 * reached / count)} %); prey killed "
                 f"{sum(r.killed for r in reports)}, fled off the board "
                 f"{sum(r.fled for r in reports)}, wandered off "
                 f"{sum(r.wandered_off for r in reports)}; food brought back "
                 f"{sum(r.food for r in reports)}")
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hunts", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    for line in table(simulate(args.hunts, args.seed)):
        print(line)


def _system():
    from app.rules.registry import get_system

    return get_system("chasse")


CHASSE = _system()

if __name__ == "__main__":
    main()
