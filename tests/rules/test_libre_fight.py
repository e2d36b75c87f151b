"""Free play: a fight that ends, and turns that skip who is out of it (issue 23).

The sides: the players' tokens together against the GM's (each player apart when the GM
has none on the board). When every side but one is at 0 hit points or out (the GM's words:
« KO », « mort »…), the fight is decided: no turn runs, the GM is offered to end the match
(or gives the next turn to go on).
"""

from __future__ import annotations

from app.rules.dice import ScriptedDice
from app.rules.libre.match import condition
from app.rules.match import Actor, MatchSetup, ParticipantSetup, apply, fold
from app.rules.registry import get_system

LIBRE = get_system("libre")
GM = Actor(1, is_gm=True)
PAUL = Actor(7, character_ids=frozenset({1}))


def ambush():
    """Aldo (Paul's), then the GM's goblin and wolf, turns in that order (round 1, Aldo)."""
    state = fold(LIBRE, LIBRE.start(MatchSetup("Embuscade", (
        ParticipantSetup("Aldo", 1, 7, {"hp": 12, "hp_max": 12}),)), ScriptedDice([])))
    for name, hp in (("Gobelin", 6), ("Loup", 8)):
        _, state = act(state, {"kind": "add_token", "name": name, "hp_max": hp})
    for token, value in (("t1", 20), ("t2", 10), ("t3", 5)):
        _, state = act(state, {"kind": "set_initiative", "token": token, "value": value})
    _, state = act(state, {"kind": "next_turn"})
    assert state["turn"] == "t1"
    return state


def act(state, action, actor=GM):
    events, after = apply(LIBRE, state, action, actor, ScriptedDice([]))
    assert fold(LIBRE, events, state) == after
    return events, after


def test_the_words_and_hit_points_that_put_a_token_out():
    assert condition({"hp": 0, "hp_max": 6, "statuses": ""}) == "out"
    assert condition({"hp": 3, "hp_max": 6, "statuses": "À terre, saignant"}) == "out"
    assert condition({"hp": 3, "hp_max": 6, "statuses": "Mort"}) == "dead"
    assert condition({"hp": 0, "hp_max": 0, "statuses": "porte"}) == "ok"  # no hit points


def test_a_token_out_of_the_fight_has_no_turn_to_play():
    state = ambush()
    _, state = act(state, {"kind": "set_statuses", "token": "t2", "statuses": "KO"})
    events, state = act(state, {"kind": "next_turn"}, PAUL)
    assert state["turn"] == "t3" and events[0].payload["skipped"] == ["Gobelin"]
    # Around the table: Aldo's turn opens round 2.
    _, state = act(state, {"kind": "next_turn"})
    assert (state["turn"], state["round"]) == ("t1", 2)


def test_every_other_side_out_decides_the_fight_and_the_gm_ends_it():
    state = ambush()
    assert LIBRE.outcome(state) is None
    _, state = act(state, {"kind": "adjust_hp", "token": "t2", "delta": -6})
    assert LIBRE.outcome(state) is None  # the wolf still stands
    events, state = act(state, {"kind": "set_statuses", "token": "t3", "statuses": "mort"})
    assert [e.kind for e in events] == ["statuses_set", "fight_decided"]
    assert events[1].payload["left"] == ["Aldo"]
    decided = LIBRE.outcome(state)
    assert decided.winners == ("Aldo",) and not decided.over
    # Nobody is asked to play on: no turn runs; the GM's end comes first, awaited.
    assert state["turn"] is None
    assert not {"next_turn", "delay"} & {f.kind for f in LIBRE.legal_actions(state, PAUL)}
    first = LIBRE.legal_actions(state, GM)[0]
    assert first.kind == "end_match" and first.choices == {"awaited": True, "left": ["Aldo"],
                                                           "gm": False}
    # The GM heals the wolf instead: the fight goes on from the next turn.
    _, state = act(state, {"kind": "set_statuses", "token": "t3", "statuses": ""})
    assert LIBRE.outcome(state) is None
    assert not LIBRE.legal_actions(state, GM)[0].choices.get("awaited")
    _, state = act(state, {"kind": "set_statuses", "token": "t3", "statuses": "mort"})
    _, state = act(state, {"kind": "end_match"})
    over = LIBRE.outcome(state)
    assert over.over and over.winners == ("Aldo",)


def test_the_players_fight_the_gms_creatures_together_or_each_other_alone():
    state = ambush()
    _, state = act(state, {"kind": "add_token", "name": "Brune", "hp_max": 10})
    state["tokens"]["t4"]["owner_id"] = 8  # Bruno's character, beside Paul's Aldo
    _, state = act(state, {"kind": "adjust_hp", "token": "t2", "delta": -6})
    events, state = act(state, {"kind": "adjust_hp", "token": "t3", "delta": -8})
    assert events[-1].kind == "fight_decided" and events[-1].payload["left"] == [
        "Aldo", "Brune"]
    # No creature of the GM's at all: a duel, each player a side.
    duel = fold(LIBRE, LIBRE.start(MatchSetup("Duel", (
        ParticipantSetup("Aldo", 1, 7, {"hp": 12, "hp_max": 12}),
        ParticipantSetup("Brune", 2, 8, {"hp": 10, "hp_max": 10}))), ScriptedDice([])))
    events, duel = act(duel, {"kind": "adjust_hp", "token": "t2", "delta": -10})
    assert LIBRE.outcome(duel).winners == ("Aldo",)


def test_the_gms_creatures_left_standing_are_named_to_nobody():
    state = ambush()
    events, state = act(state, {"kind": "set_statuses", "token": "t1", "statuses": "KO"})
    assert events[-1].payload == {"left": [], "gm": True}  # a creature may be hidden
    decided = LIBRE.outcome(state)
    assert decided.winners == () and "GM's creatures" in decided.reason


def test_one_side_alone_on_the_board_is_no_fight():
    state = fold(LIBRE, LIBRE.start(MatchSetup("Seul", (
        ParticipantSetup("Aldo", 1, 7, {"hp": 0, "hp_max": 12}),)), ScriptedDice([])))
    assert LIBRE.outcome(state) is None
    events, _ = act(state, {"kind": "adjust_hp", "token": "t1", "delta": 1}, PAUL)
    assert [e.kind for e in events] == ["hp_changed"]


def test_the_hit_points_form_proposes_the_nearest_foe_of_whose_turn_it_is():
    state = ambush()
    _, state = act(state, {"kind": "move", "token": "t2", "x": 0, "y": 80})
    form = next(f for f in LIBRE.legal_actions(state, GM) if f.kind == "adjust_hp")
    assert form.choices["default"] == "t3"  # Aldo's turn: the wolf is nearer than the goblin
    # A player's own tokens only: nobody of another side to propose.
    assert next(f for f in LIBRE.legal_actions(state, PAUL)
                if f.kind == "adjust_hp").choices["default"] is None
