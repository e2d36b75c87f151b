"""Chasse préhistorique: Hypothesis over the strikes and the prey walks — whatever the dice
and the figures, a strike's outcome follows its rolls, and a walk never leaves its budget,
the board or crosses impassable ground."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from app.rules.chasse import combat
from app.rules.chasse.content import mass_class, weapons
from app.rules.chasse.geometry import distance, path_cost, walk
from app.rules.dice import ScriptedDice

WEAPONS = sorted(key for key, w in weapons().items() if w["melee"])
BOARD = {"width": 48, "height": 36}
ROCK = {"id": "z1", "kind": "infranchissable", "x": 20, "y": 10, "w": 6, "h": 6}
BUSH = {"id": "z2", "kind": "buisson", "x": 10, "y": 20, "w": 4, "h": 4}


@given(st.sampled_from(WEAPONS), st.integers(1, 5), st.integers(1, 6), st.integers(1, 6),
       st.integers(-3, 3))
def test_a_strike_follows_its_dice(key, masse, hit_face, save_face, modifier):
    weapon = weapons()[key]
    dice = ScriptedDice([hit_face, save_face])
    result = combat.strike(dice, attacker={"id": "a", "name": "A"},
                           defender={"id": "d", "name": "D", "masse": masse}, weapon=weapon,
                           modifiers=((modifier, "mj"),), purpose="test")
    klass = mass_class(masse)
    if hit_face + modifier < weapon["to_hit"][klass]:
        assert result["outcome"] == "miss" and len(result["rolls"]) == 1
    elif weapon["save"][klass] == 0:
        assert result["outcome"] == "wound" and len(result["rolls"]) == 1
    else:
        saved = save_face >= weapon["save"][klass]
        assert result["outcome"] == ("grazed" if saved else "wound")


@given(st.floats(0, 48), st.floats(0, 36), st.floats(-1, 1), st.floats(-1, 1),
       st.floats(0, 16), st.booleans())
def test_a_walk_keeps_to_its_budget_and_the_board(x, y, dx, dy, budget, jumps):
    start = [x, y]
    if path_cost(start, start, [ROCK]) is None:
        return  # starting inside the rocks: never placed there
    end, spent, _gone = walk(start, (dx, dy), budget, [ROCK, BUSH], BOARD, jumps=jumps)
    assert spent <= budget + 0.01
    assert distance(start, end) <= budget + 0.01
    assert 0 <= end[0] <= 48 and 0 <= end[1] <= 36
    assert path_cost(start, end, [ROCK]) is not None
