"""Simulations: many fights, hunts or tournaments played on from one position by the house
bots through the rules (issue 27, docs/odds.md § Simulations and the bookmaker).

Each is checked for sense (every run ends one way, the stronger side wins more), for
reproducibility (a seed gives the same counts, however the runs are cut in pieces), and for
secrecy (a player's simulation reads their view only: hidden cards and figures change
nothing in its figures).
"""

from __future__ import annotations

import copy
from fractions import Fraction

from app.rules import simulation
from app.rules.chasse import simulate as chasse_sim
from app.rules.dice import SeededDice
from app.rules.map_view import view as seen_by
from app.rules.match import Actor, Event, MatchSetup, ParticipantSetup, apply, fold
from app.rules.mecha_ring import simulate as mecha_sim
from app.rules.mecha_ring.content import instances
from app.rules.mutatior import simulate as mutatior_sim
from app.rules.mutatior.samples import grosbaf, scarabator, zetzet
from app.rules.mutatior.sheet import sheet_of
from app.rules.registry import get_system

MUTATIOR, CHASSE, MECHA = (get_system(key) for key in ("mutatior", "chasse", "mecha_ring"))


# — Mutatior ————————————————————————————————————————————————————————————————————

def arena(*teams):
    """Mutants in teams (each a list of samples), one trainer per team, in the set-up."""
    participants, n = [], 0
    for owner, team in enumerate(teams):
        for mutant in team:
            n += 1
            participants.append(ParticipantSetup(mutant.name, n, 10 + owner, sheet_of(mutant)))
    return fold(MUTATIOR, MUTATIOR.start(MatchSetup("Arène", tuple(participants)),
                                         SeededDice(0)))


def test_two_mutants_fight_to_the_end_and_each_fight_ends_one_way():
    state = arena([grosbaf()], [zetzet()])
    tally = simulation.simulate("mutatior", state, 12, seed=3)
    ends = [key for key in tally.sums if key.startswith("win:")] + ["no_winner", "undecided"]
    assert sum(tally.share(key) for key in ends) == 1
    assert tally.runs == 12 and tally.sums["rounds"] > 12
    # a dead mutant ends its fight: each fight has a loser or two
    assert tally.sums.get("dead:m1", 0) + tally.sums.get("dead:m2", 0) >= \
        12 - tally.sums.get("undecided", 0)


def test_the_stronger_team_wins_more_often():
    state = arena([scarabator(), grosbaf()], [zetzet()])
    tally = simulation.simulate("mutatior", state, 16, seed=1)
    strong, weak = (tally.share("win:" + team) for team in state["team_order"])
    assert strong >= Fraction(3, 4) > weak
    figures = mutatior_sim.figures(tally, state)
    victory = figures.sections[0]
    assert [line.chance for line in victory.lines] == [strong, weak]
    assert all(line.quote for line in victory.lines)
    assert simulation.quote(strong) == 1 / strong and simulation.quote(Fraction(0)) is None


def test_a_seed_gives_the_same_fights_however_they_are_cut():
    state = arena([grosbaf()], [zetzet()])
    whole = simulation.simulate("mutatior", state, 8, seed="abc")
    again = simulation.simulate("mutatior", state, 8, seed="abc")
    pieces = simulation.Tally()
    for first, count in ((0, 3), (3, 1), (4, 4)):
        pieces.merge(simulation.Tally.from_dict(simulation.run_chunk(
            "mutatior", state, None, "abc", first, count)))
    assert whole == again == pieces
    assert simulation.simulate("mutatior", state, 8, seed="abd") != whole
    assert state == arena([grosbaf()], [zetzet()])  # the position itself is left as it was


def test_the_bot_plays_what_apply_would_play(monkeypatch):
    """The bot folds each action's events into its own copy (no copy per action): the fight
    ends exactly as it does through ``apply``."""
    state = arena([grosbaf(), scarabator()], [zetzet()])
    quick = [mutatior_sim.play_on(state, SeededDice(seed)) for seed in range(3)]

    def slow(system, current, action, dice):
        return apply(system, current, action, mutatior_sim.BOT, dice)[1]

    monkeypatch.setattr(mutatior_sim, "step", slow)
    assert [mutatior_sim.play_on(state, SeededDice(seed)) for seed in range(3)] == quick
    assert all(MUTATIOR.outcome(end) is not None for end in quick)


def test_a_fight_under_way_is_played_on_from_where_it_stands():
    state = mutatior_sim.play_on(arena([grosbaf()], [zetzet()]), SeededDice(5), rounds_max=1)
    assert state["phase"] == "fight" and state["round"] == 2
    assert simulation.simulable("mutatior", state)
    tally = simulation.simulate("mutatior", state, 4, seed=1)
    assert tally.runs == 4 and tally.sums["rounds"] >= 0
    decided = mutatior_sim.play_on(state, SeededDice(1))
    assert not simulation.simulable("mutatior", decided)  # nothing left to play


# — Chasse préhistorique ————————————————————————————————————————————————————————————

def hunt():
    dice = SeededDice(1)
    state = fold(CHASSE, CHASSE.start(chasse_sim._tribe(), dice))
    for action in ({"kind": "choose_scenario", "scenario": "vallee"}, {"kind": "begin_hunt"}):
        state = apply(CHASSE, state, action, chasse_sim.GM, dice)[1]
    return state


def test_a_hunt_is_played_on_to_its_end():
    state = hunt()
    assert simulation.simulable("chasse", state)
    tally = simulation.simulate("chasse", state, 6, seed=2)
    ends = [key for key in tally.sums if key.startswith("end:")]
    assert sum(tally.share(key) for key in ends) == 1 and "end:unfinished" not in ends
    assert tally == simulation.simulate("chasse", state, 6, seed=2)
    figures = chasse_sim.figures(tally, state)
    assert [section.key for section in figures.sections] == ["down", "lost", "food", "end"]
    assert [line.name for line in figures.sections[0].lines] == ["Sanglier 1", "Sanglier 2",
                                                                 "Lièvre"]


def test_a_hidden_prey_is_not_in_a_players_hunt():
    """A prey the GM veiled is not in the player's view: their simulation hunts without it
    (it is never brought down there), the GM's hunts it."""
    state = fold(CHASSE, [Event("figure_veiled", {"token": "t6", "hidden": True})], hunt())
    player = chasse_sim.PLAYER
    view = seen_by(CHASSE, copy.deepcopy(state), player)
    assert "t6" not in view["tokens"]
    theirs = simulation.simulate("chasse", view, 6, seed=4, viewer=player)
    gms = simulation.simulate("chasse", state, 6, seed=4)
    assert "down:t6" not in theirs.sums and "down:t6" in gms.sums
    names = [line.name for section in chasse_sim.figures(theirs, view).sections
             for line in section.lines]
    assert "Lièvre" not in names


# — Mecha-Ring ——————————————————————————————————————————————————————————————————————

def tournament(players=3, seed=3):
    setup = MatchSetup("T", tuple(ParticipantSetup(f"Robot {n + 1}", character_id=n + 1,
                                                   owner_id=10 + n, sheet={"implants": n})
                                  for n in range(players)))
    return fold(MECHA, MECHA.start(setup, SeededDice(seed)))


PLAYER = Actor(10, character_ids=frozenset({1}))


def cards(state):
    held = []
    for seat in state["tokens"].values():
        held += [part["card"] for part in seat["robot"].values() if part]
        held += seat["hand"] + seat["sfx_hand"] + seat["loot"]
        held += [entry["card"] for entry in seat["sfx_in_play"]]
    for pile in state["piles"].values():
        held += pile
    return sorted(held + state["market"])


def test_a_players_view_is_filled_with_the_cards_they_cannot_see():
    state = tournament()
    view = seen_by(MECHA, copy.deepcopy(state), PLAYER)
    assert isinstance(view["tokens"]["t2"]["hand"], int) and isinstance(
        view["piles"]["parts"], int)
    whole = mecha_sim.fill(view, PLAYER, SeededDice("x"))
    assert whole["tokens"]["t1"]["hand"] == state["tokens"]["t1"]["hand"]
    for tid, seat in state["tokens"].items():
        assert len(whole["tokens"][tid]["hand"]) == len(seat["hand"])
        assert len(whole["tokens"][tid]["sfx_hand"]) == len(seat["sfx_hand"])
    for name, pile in state["piles"].items():
        assert len(whole["piles"][name]) == len(pile)
    catalogue = state["catalogue"]
    assert cards(whole) == cards(state) == sorted(instances(catalogue["parts"])
                                                  + instances(catalogue["sfx"]))
    other = mecha_sim.fill(view, PLAYER, SeededDice("y"))
    assert other["tokens"]["t2"]["hand"] != whole["tokens"]["t2"]["hand"] or \
        other["piles"]["parts"] != whole["piles"]["parts"]


def test_hidden_cards_do_not_leak_into_a_players_figures():
    """Two tournaments a player cannot tell apart (another player's hand and the pile
    swapped a card) give them the same figures: a run starts from their view, completed
    by ``fill`` with cards dealt from what they cannot see."""
    state = tournament()
    swapped = copy.deepcopy(state)
    hand, pile = swapped["tokens"]["t2"]["hand"], swapped["piles"]["parts"]
    hand[0], pile[0] = pile[0], hand[0]
    views = [seen_by(MECHA, copy.deepcopy(one), PLAYER) for one in (state, swapped)]
    assert views[0] == views[1]
    theirs = [simulation.simulate("mecha_ring", view, 2, seed=9, viewer=PLAYER)
              for view in views]
    assert theirs[0] == theirs[1]
    assert mecha_sim.figures(theirs[0], views[0]) == mecha_sim.figures(theirs[1], views[1])


def test_a_tournament_is_played_on_by_the_house_bots():
    state = tournament(players=2)
    assert simulation.simulable("mecha_ring", state)
    tally = simulation.simulate("mecha_ring", state, 3, seed=1)
    wins = [key for key in tally.sums if key.startswith("win:")]
    assert sum(tally.share(key) for key in wins) + tally.share("unfinished") == 1
    fights = [key for key in tally.sums if key.startswith("fight:")]
    assert sum(tally.share(key) for key in fights) == 1
    assert tally.sums["fights"] >= 3
    figures = mecha_sim.figures(tally, state)
    assert [section.key for section in figures.sections] == ["fight", "tournament", "points"]
    assert not state["tokens"]["t1"]["bot"]  # the match's own seats stay as they were
