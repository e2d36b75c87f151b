"""Seeded Mutatior fights played through the rules by a house bot on both sides, and how they
end (issue 27: "simulate N fights between two mutants or two teams with legal play on both
sides; the bookmaker panel quotes odds from it").

    python -m app.rules.mutatior.simulate [--fights 100] [--seed 1]

plays the demo's two teams (§ 3 Campagne: two 2-tonne teams) from the placement to the end
and prints how often each team won and each mutant died. ``play_on`` plays any position of a
match on (the table's simulations, ``app.rules.simulation``).

The bot plays for the GM, who controls every mutant, and asks the rules for what it may do
(``legal_actions``) before each action, which ``decide`` then judges like anyone's:

- set-up: each team places its figures where they stand (they enter 30 cm apart, § 1-3
  Terrain et placement), then the fight starts (an uneven pair of teams agreed to, as the GM
  may tick it, § 3 Campagne);
- every mutant gets the standing orders « frappe aussitôt » (``match_flow``): a second
  attack, a counter-attack and a free attack are struck with its strongest limb at the enemy
  limb that defends worst (``match_flow.chosen_strike``, § 1-3);
- on its turn a mutant in contact strikes the same way; else it walks at the nearest enemy
  (sprinting first, § 1-2 Mouvement, when only a sprint brings it into contact), strikes if
  it got there, else shoots (§ 1-4 Tir) at the enemy brain that is weakest, then ends its
  turn;
- a crowd chance (a natural 7, § 3-3) is spent on a « Jet de canette » at the enemy creature
  with the fewest lobes left, or passed when none is left;
- never a re-roll, a bet, the sponge or a GM's correction: they are choices of people.

A fight ends when the rules say it is decided (§ 3-2 Fin du carnage: one team left, or
none); one still running after ``ROUNDS_MAX`` rounds counts as undecided. Pure but for
``main``'s printing.
"""

from __future__ import annotations

import argparse
import math
from collections import Counter
from collections.abc import Mapping
from typing import Any

from app.rules.dice import Dice, SeededDice
from app.rules.match import (
    Actor,
    IllegalAction,
    MatchSetup,
    ParticipantSetup,
    State,
    copy_state,
    fold,
    fold_one,
)
from app.rules.mutatior import match_flow
from app.rules.mutatior.match_fight import attack_options, shoot_options
from app.rules.mutatior.match_state import CONTACT_CM, PLACEMENT_CM, fighters, mutant

BOT = Actor(None, is_gm=True)
ROUNDS_MAX = 30
"""Rounds after which a fight still running counts as undecided (two mutants that cannot
hurt each other would otherwise fight for ever)."""
ACTIONS_MAX = 4000
REACH = CONTACT_CM - 0.75
"""How close a walker aims to stop from its enemy's centre: in contact (§ 1-3), with room
for the whole centimetres a position is rounded to."""


def _system():
    from app.rules.registry import get_system

    return get_system("mutatior")


# — the bot's choices ——————————————————————————————————————————————————————————————

def _distance(state: State, a: str, b: str) -> float:
    ta, tb = state["tokens"][a], state["tokens"][b]
    return math.hypot(ta["x"] - tb["x"], ta["y"] - tb["y"])


def _enemies(state: State, tid: str) -> list[str]:
    team = state["tokens"][tid].get("team")
    return [other for other in fighters(state) if state["tokens"][other].get("team") != team]


def _fewest_lobes(state: State, candidates: list[str]) -> str:
    return min(candidates, key=lambda tid: (mutant(state, tid).live_brain, candidates.index(tid)))


def _placements(state: State) -> list[dict[str, Any]]:
    """Each figure where it entered, in the placing order the rules ask (§ 1-3)."""
    from app.rules.mutatior.match_fight import next_placer

    team = next_placer(state)
    if team is None:
        return []
    placed = set(state.get("placed", []))
    for tid in state["teams"][team]["members"]:
        token = state["tokens"][tid]
        if tid in placed or token["status"] != "in":
            continue
        return [{"kind": "move", "token": tid, "x": round(token["x"]), "y": round(token["y"])},
                *_spread(state, tid)]
    return []


def _spread(state: State, tid: str) -> list[dict[str, Any]]:
    """Other places on its own half of the arena, should an enemy stand too close (a GM moved
    a figure): the rules refuse less than 30 cm from an enemy."""
    board = state["board"]
    token = state["tokens"][tid]
    top = token["y"] <= board["height"] / 2
    rows = range(2, board["height"] // 2, 4) if top else \
        range(board["height"] - 2, board["height"] // 2, -4)
    enemies = [other for other, entry in state["tokens"].items()
               if entry["kind"] == "mutant" and entry.get("team") != token.get("team")
               and other in state.get("placed", [])]
    tries = []
    for y in rows:
        for x in range(2, board["width"] - 1, 4):
            if all(math.hypot(state["tokens"][e]["x"] - x, state["tokens"][e]["y"] - y)
                   >= PLACEMENT_CM for e in enemies):
                tries.append({"kind": "move", "token": tid, "x": x, "y": y})
    return tries[:6]


def _walk(state: State, tid: str, target: str) -> list[dict[str, Any]]:
    """Moves towards ``target``, the longest first: into contact when it is in reach."""
    activation = state["activation"]
    left = activation["allowance"] - activation["moved"]
    token, goal = state["tokens"][tid], state["tokens"][target]
    span = _distance(state, tid, target)
    if left <= 0.5 or span <= CONTACT_CM:
        return []
    length = min(left, span - REACH)
    board = state["board"]
    tries = []
    for cut in (0, 0.5, 1, 1.5, 2.5):
        step = length - cut
        if step <= 0.5:
            break
        x = token["x"] + (goal["x"] - token["x"]) * step / span
        y = token["y"] + (goal["y"] - token["y"]) * step / span
        for dx, dy in ((0, 0), (1, 0), (-1, 0), (0, 1), (0, -1)):
            px = min(max(round(x) + dx, 0), board["width"])
            py = min(max(round(y) + dy, 0), board["height"])
            if math.hypot(px - token["x"], py - token["y"]) <= left + 0.5 \
                    and (px, py) != (token["x"], token["y"]):
                tries.append({"kind": "move", "token": tid, "x": px, "y": py})
    return tries


def _shot(state: State, tid: str) -> dict[str, Any] | None:
    """§ 1-4 Tir: from the limb with the most biomoteurs, aimed at the weakest enemy brain."""
    limbs, targets = shoot_options(state, tid)
    if not limbs:
        return None
    body = mutant(state, tid)
    limb = max(limbs, key=lambda ref: body.limb(ref.partition(":")[2]).live_biomoteurs)
    enemies = [ref.partition(":")[0] for ref in targets]
    enemies = [e for e in dict.fromkeys(enemies) if state["tokens"][e]["kind"] == "mutant"]
    if not enemies:
        return None
    victim = _fewest_lobes(state, enemies)
    foe = mutant(state, victim)
    brains = [f"{victim}:{limb_.name}" for limb_ in foe.limbs
              if limb_.live_lobes > 0 and f"{victim}:{limb_.name}" in targets]
    aimed = brains[0] if brains else next(ref for ref in targets
                                          if ref.startswith(victim + ":"))
    return {"kind": "shoot", "limb": limb, "target": aimed}


def wishes(state: State) -> list[dict[str, Any]]:
    """What the bot would do now, best first (the first the rules accept is played)."""
    phase = state.get("phase")
    if phase == "setup":
        placing = _placements(state)
        return placing or [{"kind": "start_fight", "uneven": "on"}]
    if phase != "fight" or match_flow.decided(state):
        return []
    chances = {team: left for team, left in state["crowd"]["chances"].items() if left > 0}
    for team in chances:
        foes = [tid for tid in fighters(state) if state["tokens"][tid].get("team") != team]
        if foes:
            return [{"kind": "crowd_event", "team": team, "event": "jet_de_canette",
                     "victim": _fewest_lobes(state, foes)}, {"kind": "pass_crowd", "team": team}]
        return [{"kind": "pass_crowd", "team": team}]
    pending = state.get("pending")
    if pending:
        chosen = match_flow.chosen_strike(state, pending["by"])
        return [chosen, {"kind": "decline"}] if chosen else [{"kind": "decline"}]
    for entry in state.get("free_attacks") or []:
        chosen = match_flow.chosen_strike(state, entry["by"])
        skip = {"kind": "skip_free_attacks", "token": entry["by"]}
        return [chosen, skip] if chosen else [skip]
    current = state.get("turn")
    if current is None:
        return [{"kind": "new_round"}]
    activation = state.get("activation") or {}
    end = {"kind": "end_turn"}
    if activation.get("acted"):
        return [end]
    if attack_options(state, current)[0]:
        chosen = match_flow.chosen_strike(state, current)
        return [chosen, end] if chosen else [end]
    foes = _enemies(state, current)
    if not foes:
        return [end]
    target = min(foes, key=lambda other: (_distance(state, current, other), foes.index(other)))
    span = _distance(state, current, target)
    left = activation["allowance"] - activation["moved"]
    found: list[dict[str, Any]] = []
    if not activation.get("sprinted") and not activation.get("moved") \
            and left < span - REACH <= 2 * left:
        found.append({"kind": "sprint", "token": current})
    found += _walk(state, current, target)
    shot = _shot(state, current)
    return found + ([shot] if shot else []) + [end]


# — playing a position on ——————————————————————————————————————————————————————————

def step(system: Any, state: State, action: Mapping[str, Any], dice: Dice) -> State:
    """``apply`` without its copy: the rules' ``decide`` judges the action, and its events
    are folded into ``state`` itself (``play_on`` copies the position once; a refused action
    raises before anything changes)."""
    for event in system.decide(state, action, BOT, dice):
        state = fold_one(system, state, event)
    return state


def play_on(state: State, dice: Dice, *, rounds_max: int = ROUNDS_MAX,
            actions_max: int = ACTIONS_MAX) -> State:
    """The fight from ``state`` (any position: the set-up, a fight under way) until the rules
    say it is decided, after ``rounds_max`` rounds, or when the bot has nothing to do.
    ``state`` itself is left as it was."""
    system = _system()
    state = copy_state(state)
    ordered = False
    for _ in range(actions_max):
        if state.get("phase") == "fight" and not ordered:
            ordered = True
            if fighters(state) and not match_flow.decided(state):
                state = step(system, state, {"kind": "set_orders", "strike": "always"}, dice)
            continue
        if state.get("phase") == "fight" and state.get("round", 0) > rounds_max:
            break
        for wish in wishes(state):
            try:
                state = step(system, state, wish, dice)
            except IllegalAction:
                continue
            break
        else:
            break
    return state


def facts(state: State, start: State) -> dict[str, int]:
    """How the fight ended, as counts the table's simulations add up: ``win:<team>`` (the one
    team left), ``no_winner`` (none left), ``undecided`` (still running at the cap),
    ``dead:<token>`` for each mutant of ``start`` dead at the end, ``rounds``."""
    found: dict[str, int] = {"rounds": max(0, state.get("round", 0) - start.get("round", 0))}
    if match_flow.decided(state) or state.get("phase") == "over":
        standing = match_flow.standing_teams(state)
        found["win:" + standing[0] if len(standing) == 1 else "no_winner"] = 1
    else:
        found["undecided"] = 1
    for tid, token in start["tokens"].items():
        if token["kind"] == "mutant" and mutant(state, tid).dead:
            found["dead:" + tid] = 1
    return found


def simulable(state: Mapping[str, Any]) -> bool:
    """A fight to play on: two teams or more, in the set-up or fighting, not yet decided."""
    return len(state.get("team_order") or []) >= 2 and state.get("phase") in ("setup", "fight") \
        and not match_flow.decided(state) and len(fighters(state)) >= 2


def play(state: State, seed: str) -> dict[str, int]:
    """One fight from ``state`` with its own seeded dice (``app.rules.simulation``)."""
    return facts(play_on(state, SeededDice(seed)), state)


def figures(tally: Any, state: State) -> Any:
    """The bookmaker's figures: each team's chance of winning with its quote (§ 3-3 Les
    paris: the bets on a victory), a fight with no team left or still undecided, and each
    creature's chance of dying (the death bets and the secret ones)."""
    from app.rules.mutatior.match_state import team_names
    from app.rules.odds.action import Amount, Phrase
    from app.rules.simulation import Figures, Line, Section
    from app.rules.system import N_

    names = team_names(state)

    def team_name(team: str) -> str | Phrase:
        return names[team]["label"] or Phrase(N_("%(name)s's team"),
                                              {"name": names[team]["captain"]})

    victory = [Line("win:" + team, team_name(team), tally.share("win:" + team), quote=True)
               for team in state["team_order"]]
    if tally.sums.get("no_winner"):
        victory.append(Line("no_winner", Phrase(N_("No creature left standing")),
                            tally.share("no_winner")))
    if tally.sums.get("undecided"):
        victory.append(Line("undecided", Phrase(N_("Still fighting after %(rounds)s rounds"),
                                                {"rounds": ROUNDS_MAX}), tally.share("undecided")))
    living = [tid for team in state["team_order"] for tid in state["teams"][team]["members"]
              if tid in fighters(state)]
    deaths = [Line("dead:" + tid, state["tokens"][tid]["name"], tally.share("dead:" + tid))
              for tid in living]
    return Figures((
        Section("victory", Phrase(N_("Who wins")), tuple(victory)),
        Section("deaths", Phrase(N_("Chance of dying")), tuple(deaths)),
    ), (Phrase(N_("%(rounds)s round on average"), {"rounds": Amount(tally.mean("rounds"))},
               plural="%(rounds)s rounds on average", count="rounds"),))


# — the command ————————————————————————————————————————————————————————————————

def demo_fight() -> State:
    """The demo's two teams at the start of the set-up (player 0's and player 1's)."""
    system = _system()
    participants = tuple(
        ParticipantSetup(character.name, character_id=n + 1, owner_id=10 + (character.player or 0),
                         sheet=character.sheet)
        for n, character in enumerate(system.demo_characters()))
    return fold(system, system.start(MatchSetup("Le choc", participants), SeededDice(0)))


def simulate(fights: int = 100, seed: int = 1, start: State | None = None) -> Counter[str]:
    position = start if start is not None else demo_fight()
    total: Counter[str] = Counter()
    for n in range(fights):
        total.update(play(position, f"{seed}:{n}"))
    return total


def table(total: Counter[str], position: State, fights: int) -> list[str]:
    names = {team: (value.get("label") or team) for team, value in position["teams"].items()}
    lines = [f"{fights} fights: rounds {total['rounds'] / max(fights, 1):.1f} on average; "
             f"no winner {total['no_winner']}, undecided {total['undecided']}"]
    for team in position["team_order"]:
        lines.append(f"  {names[team]:<24} won {total['win:' + team]:>5} "
                     f"({100 * total['win:' + team] / max(fights, 1):.0f} %)")
        for tid in position["teams"][team]["members"]:
            name = position["tokens"][tid]["name"]
            lines.append(f"    {name:<22} died {total['dead:' + tid]:>5}")
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--fights", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    position = demo_fight()
    for line in table(simulate(args.fights, args.seed, position), position, args.fights):
        print(line)


if __name__ == "__main__":
    main()
