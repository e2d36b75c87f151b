"""Chasse préhistorique, the house rules around § Tirs: a wood or rocks between thrower and
target hide it; a javelin or a spear leaves the hand, lies where it fell or stays in the prey,
and is picked up again or recovered at butchering; the scenario's north turns the prey's
compass (§ Le terrain de chasse)."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.rules.chasse.geometry import sight_blocker
from app.rules.chasse.sheet import blank_sheet
from app.rules.dice import ScriptedDice
from app.rules.match import Actor, IllegalAction, MatchSetup, ParticipantSetup, apply, fold
from app.rules.registry import get_system

CHASSE = get_system("chasse")
GM = Actor(1, is_gm=True)
PAUL = Actor(7, character_ids=frozenset({11}))
WOOD = {"kind": "arbre", "label": "Bois", "x": 20, "y": 30, "w": 8, "h": 2}


def _hunt(weapons, terrain=(), boar=(24, 28)):
    """Ourk (at 24, 34) faces a lone boar 6" north, at step 6 of the first turn."""
    setup = MatchSetup("Chasse", (ParticipantSetup(
        "Ourk", character_id=11, owner_id=7, sheet={**blank_sheet(), "weapons": weapons}),))
    log = list(CHASSE.start(setup, ScriptedDice([])))
    state = fold(CHASSE, log)
    for shape in terrain:
        state, log = _do(state, log, {**shape, "kind": "add_terrain",
                                      "ground": shape["kind"]}, [])
    state, log = _do(state, log, {"kind": "add_prey", "species": "sanglier", "x": boar[0],
                                  "y": boar[1]}, [])
    state, log = _do(state, log, {"kind": "begin_hunt"}, [])
    state, log = _do(state, log, {"kind": "next_step"}, [], PAUL)  # 2 → 4
    state, log = _do(state, log, {"kind": "move", "token": "t1", "x": 24, "y": 33}, [], PAUL)
    state, log = _do(state, log, {"kind": "next_step"}, [], PAUL)  # → 6 (boar 5" away)
    assert state["step"] == 6
    return state, log


def _do(state, log, action, faces, actor=GM):
    dice = ScriptedDice(faces)
    events, state = apply(CHASSE, state, action, actor, dice)
    dice.assert_exhausted()
    return state, log + events


def _forms(state, actor=PAUL):
    return {form.kind: form for form in CHASSE.legal_actions(state, actor)}


def _refused(state, action, code):
    before = copy.deepcopy(state)
    with pytest.raises(IllegalAction) as refused:
        apply(CHASSE, state, action, PAUL, ScriptedDice([6, 6]))
    assert refused.value.code == code
    assert state == before  # a refused throw changes nothing


def test_a_wood_hides_the_prey_behind_it_a_bush_does_not():
    assert sight_blocker([24, 33], [24, 28], [WOOD]) is WOOD
    assert sight_blocker([24, 33], [24, 28], [{**WOOD, "kind": "buisson"}]) is None
    assert sight_blocker([24, 31], [24, 28], [WOOD]) is None  # at the wood's edge
    state, _log = _hunt(["javelot"], terrain=[{**WOOD, "kind": "buisson", "y": 29}])
    assert _forms(state)["shoot"].choices["shots"]["t1"] == [
        ["t2", "Sanglier", "javelot", 5.0, False]]
    hidden = copy.deepcopy(state)  # the same ground with a wood where the bush stands
    hidden["board"]["terrain"][0]["kind"] = "arbre"
    assert "shoot" not in _forms(hidden)  # the only target is hidden: no throw offered
    _refused(hidden, {"kind": "shoot", "token": "t1", "target": "t2", "weapon": "javelot"},
             "hidden")


def test_a_missed_javelin_lies_at_the_prey_feet_until_picked_up():
    state, log = _hunt(["javelot", "couteau"])
    # 2 − 1 (long) misses; the turn runs on: at step 8 the boar, attacked, flees (blue 1).
    state, log = _do(state, log, {"kind": "shoot", "token": "t1", "target": "t2",
                                  "weapon": "javelot"}, [2, 1, 1], PAUL)
    ourk = state["tokens"]["t1"]
    assert ourk["weapons"] == ["couteau"]
    # It falls at the boar's feet (24, 28), 1" on the thrower's side.
    assert state["ground"] == [{"id": "w1", "weapon": "javelot", "name": "Javelot",
                                "x": 24, "y": 29}]
    assert state["board"]["marks"] == [{"x": 24, "y": 29, "label": "Javelot"}]
    shot = [e for e in log if e.kind == "shot"][-1]
    assert shot.payload["thrown"]["item"]["id"] == "w1"
    assert fold(CHASSE, log) == state
    # Without a throwing weapon in hand, no throw (next turn: the form is gone, a forced one
    # is refused).
    state["tokens"]["t1"]["shot"] = False
    state["step"] = 6
    assert "shoot" not in _forms(state)
    _refused(state, {"kind": "shoot", "token": "t1", "target": "t2", "weapon": "javelot"},
             "nothing_to_throw")


def test_a_hunter_in_contact_picks_the_javelin_up():
    state, log = _hunt(["javelot"])
    state, log = _do(state, log, {"kind": "shoot", "token": "t1", "target": "t2",
                                  "weapon": "javelot"}, [1, 1, 1], PAUL)
    # Step 10 (the GM puts Ourk beside it): the pick-up is offered, then done.
    state["step"] = 10
    far = {"kind": "pick_up", "token": "t1", "item": "w1"}
    _refused(state, far, "not_in_contact")
    state["tokens"]["t1"].update(x=24, y=30)
    assert _forms(state)["pick_up"].choices["items"] == {"t1": [["w1", "Javelot"]]}
    state, log = _do(state, log, far, [], PAUL)
    assert state["tokens"]["t1"]["weapons"] == ["javelot"]
    assert state["ground"] == [] and state["board"]["marks"] == []
    assert fold(CHASSE, log)["tokens"]["t1"]["weapons"] == ["javelot"]
    state["step"] = 7
    _refused(state, far, "wrong_step")


def test_a_javelin_that_wounds_stays_in_the_prey_and_comes_back_at_butchering():
    state, log = _hunt(["javelot"], boar=(24, 30))  # 3": short range
    state["tokens"]["t2"]["wounds"] = 2
    state, log = _do(state, log, {"kind": "shoot", "token": "t1", "target": "t2",
                                  "weapon": "javelot"}, [6, 1], PAUL)  # hit, save fails
    boar = state["tokens"]["t2"]
    assert boar["state"] == "dead" and boar["stuck"] == ["javelot"]
    assert state["tokens"]["t1"]["weapons"] == [] and state.get("ground", []) == []
    state["step"] = 10
    state["tokens"]["t1"].update(x=24, y=31)
    events, after = apply(CHASSE, state, {"kind": "butcher", "token": "t1", "carcass": "t2",
                                          "units": 1}, PAUL, ScriptedDice([]))
    assert events[0].payload["recovered"] == [{"weapon": "javelot", "name": "Javelot"}]
    assert after["tokens"]["t1"]["weapons"] == ["javelot"]
    assert after["tokens"]["t2"]["stuck"] == []


def test_a_sling_stays_in_hand():
    state, log = _hunt(["fronde"])
    state, log = _do(state, log, {"kind": "shoot", "token": "t1", "target": "t2",
                                  "weapon": "fronde"}, [1, 1, 1], PAUL)
    assert state["tokens"]["t1"]["weapons"] == ["fronde"] and not state.get("ground")


def test_the_scenarios_north_turns_the_end_of_turn_wandering():
    """§ Le terrain de chasse: the north is where the scenario puts it; a prey that wanders
    "nord" on a ground whose north is its right edge walks towards the right."""
    setup = MatchSetup("Chasse", (ParticipantSetup(
        "Ourk", character_id=11, owner_id=7, sheet=blank_sheet()),))
    log = list(CHASSE.start(setup, ScriptedDice([])))
    state = fold(CHASSE, log)
    state["board"]["north"] = "right"
    state["reactions"]["idle"] = {"outcomes": ["erre"] * 8, "directions": ["nord"] * 6}
    state, log = _do(state, log, {"kind": "add_prey", "species": "sanglier", "x": 10,
                                  "y": 10}, [])
    state, log = _do(state, log, {"kind": "begin_hunt"}, [])
    state, log = _do(state, log, {"kind": "next_step"}, [], PAUL)  # 2 → 4
    state, log = _do(state, log, {"kind": "next_step"}, [3, 1], PAUL)  # … 9: the test
    boar = state["tokens"]["t2"]
    assert boar["y"] == 10 and boar["x"] > 10


points = st.tuples(st.integers(0, 48), st.integers(0, 36))


@settings(max_examples=200, deadline=None)
@given(a=points, b=points, x=st.integers(0, 40), y=st.integers(0, 30), w=st.integers(1, 8),
       h=st.integers(1, 6), kind=st.sampled_from(["arbre", "infranchissable", "buisson",
                                                   "riviere", "obstacle"]))
def test_sight_is_the_same_both_ways_and_only_woods_and_rocks_hide(a, b, x, y, w, h, kind):
    shape = {"kind": kind, "x": x, "y": y, "w": w, "h": h}
    there, back = sight_blocker(a, b, [shape]), sight_blocker(b, a, [shape])
    assert (there is None) == (back is None)
    if kind not in ("arbre", "infranchissable"):
        assert there is None


def _at_step_4(terrain=()):
    """Ourk (at 24, 34) at step 4 of the first turn, a lone boar 9" north (24, 25)."""
    setup = MatchSetup("Chasse", (ParticipantSetup(
        "Ourk", character_id=11, owner_id=7, sheet={**blank_sheet(), "weapons": ["lance"]}),))
    log = list(CHASSE.start(setup, ScriptedDice([])))
    state = fold(CHASSE, log)
    for shape in terrain:
        state, log = _do(state, log, {**shape, "kind": "add_terrain",
                                      "ground": shape["kind"]}, [])
    state, log = _do(state, log, {"kind": "add_prey", "species": "sanglier", "x": 24,
                                  "y": 25}, [])
    state, log = _do(state, log, {"kind": "begin_hunt"}, [])
    state, log = _do(state, log, {"kind": "next_step"}, [], PAUL)  # 2 → 4
    assert state["step"] == 4
    return state, log


def test_a_charge_is_declared_only_against_a_target_in_sight():
    """§ Charge: "déclarée avant de bouger, sans mesurer la distance" — house: declared
    without measuring, but at a target the hunter sees (a wood between hides the boar; the
    hunter may still walk round it)."""
    wood = {**WOOD, "y": 29}  # between Ourk (24, 34) and the boar (24, 25)
    state, _log = _at_step_4([wood])
    move = _forms(state)["move"]
    assert move.choices["targets"]["t1"] == []  # no charge offered
    before = copy.deepcopy(state)
    with pytest.raises(IllegalAction) as refused:
        apply(CHASSE, state, {"kind": "move", "token": "t1", "target": "t2"}, PAUL,
              ScriptedDice([6]))
    assert refused.value.code == "unseen_charge" and refused.value.fields["by"] == "Bois"
    assert "Bois" in refused.value.message_fr() and "voit" in refused.value.message_fr()
    assert state == before  # nothing rolled, nothing moved
    # Behind a bush the boar is seen: the charge is offered and rolls its D6.
    state, log = _at_step_4([{**wood, "kind": "buisson"}])
    assert _forms(state)["move"].choices["targets"]["t1"] == [["t2", "Sanglier"]]
    state, log = _do(state, log, {"kind": "move", "token": "t1", "target": "t2"},
                     [3, 1, 1, 1, 1], PAUL)  # then the boar flees at steps 5 and 8
    charge = next(e for e in log if e.kind == "hunter_moved").payload["charge"]
    assert charge["reach"] == 9


def _two_tribes():
    """Paul's Ghâ (a sling) and Bruno's Bronk, the only figure in her reach; a hare beyond
    it, and a boar in reach of Ourk's javelin but not of her sling's short side."""
    paul = Actor(7, character_ids=frozenset({11, 12}))
    setup = MatchSetup("Chasse", (
        ParticipantSetup("Ghâ", character_id=11, owner_id=7,
                         sheet={**blank_sheet(), "weapons": ["fronde"]}),
        ParticipantSetup("Ourk", character_id=12, owner_id=7,
                         sheet={**blank_sheet(), "weapons": ["javelot"]}),
        ParticipantSetup("Bronk", character_id=13, owner_id=8, sheet=blank_sheet())))
    state = fold(CHASSE, CHASSE.start(setup, ScriptedDice([])))
    state, _log = _do(state, [], {"kind": "add_prey", "species": "lievre", "x": 2, "y": 2},
                      [])
    state, _log = _do(state, [], {"kind": "begin_hunt"}, [])
    for token, x, y in (("t1", 10, 30), ("t2", 40, 30), ("t3", 20, 30)):
        state["tokens"][token].update(x=x, y=y)
    state["step"] = 6
    return state, paul


def test_a_throw_offers_only_what_each_hunter_may_throw_and_warns_about_a_hunter():
    """Issue 23 (H10_chasse_alice_throw_form.png): the throw form offered Ghâ's only target,
    Bronk of the other tribe, without a word, beside targets of other hunters. Each option is
    one hunter's legal throw; a target that is a hunter says so, and when only hunters are
    in reach the form warns first and stays folded."""
    from app.web.templating import templates

    state, paul = _two_tribes()
    shoot = _forms(state, paul)["shoot"]
    assert shoot.choices["shots"] == {"t1": [["t3", "Bronk", "fronde", 10.0, True]]}
    item = {"form": shoot, "key": "k", "error": None, "error_field": None, "values": {}}
    html = templates.env.get_template("systems/chasse/actions/_shoot.html").render(
        item=item, state=state, url="/m", seq=1, csrf_token="c", CSRF_FIELD="csrf_token")
    options = [" ".join(line.split()) for line in html.split("<option")[1:]]
    assert len(options) == 1 and 'value="t1|t3|fronde"' in options[0]
    assert "Ghâ → Bronk, Fronde (10\")" in options[0]  # French: the default language
    assert "un chasseur d'une autre tribu" in options[0]
    assert 'id="shoot-warning"' in html and "<details" in html and " open>" not in html
    # the throw the option sends is the one the rules take
    _events, after = apply(CHASSE, state, {"kind": "shoot", "shot": "t1|t3|fronde"}, paul,
                           ScriptedDice([1, 1, 1]))
    assert after["tokens"]["t1"]["shot"]
