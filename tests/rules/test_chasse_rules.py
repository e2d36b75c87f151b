"""Chasse préhistorique: the seed's rules replayed with ScriptedDice
(seed 003_17f6fe9f5d5d7b1b.txt; section names as in the text)."""

from __future__ import annotations

import pytest

from app.rules.chasse import combat
from app.rules.chasse.content import mass_class, prey_species, scenarios, weapons
from app.rules.chasse.sheet import blank_sheet
from app.rules.dice import ScriptedDice
from app.rules.match import Actor, IllegalAction, MatchSetup, ParticipantSetup, apply, fold
from app.rules.registry import get_system

CHASSE = get_system("chasse")
GM = Actor(1, is_gm=True)
PAUL = Actor(7, character_ids=frozenset({11}))


def figure(token_id, x, y, masse=3, **extra):
    return {"id": token_id, "name": token_id, "x": x, "y": y, "masse": masse, **extra}


# — § Tirs ————————————————————————————————————————————————————————————————————

def test_a_javelin_at_4_inches_is_a_long_shot_that_needs_5():
    """§ Tirs: "un javelot lancé sur un gibier situé à 4" est un tir à longue portée, et doit
    donc obtenir un 5 ou plus pour toucher"."""
    javelot = weapons()["javelot"]
    hunter, boar = figure("t1", 0, 0, masse=2), figure("t2", 4, 0, masse=3)
    assert combat.shot_range(javelot, 4) == "long"
    missed = combat.shoot(ScriptedDice([4]), shooter=hunter, target=boar, weapon=javelot)
    assert missed["outcome"] == "miss" and missed["rolls"][0]["total"] == 3
    hit = combat.shoot(ScriptedDice([5, 1]), shooter=hunter, target=boar, weapon=javelot)
    assert hit["rolls"][0]["total"] == 4 >= hit["to_hit"] and hit["outcome"] == "wound"


def test_no_shot_within_1_inch_nor_beyond_long_range():
    javelot = weapons()["javelot"]
    assert combat.shot_range(javelot, 0.9) is None
    assert combat.shot_range(javelot, 3) == "short"
    assert combat.shot_range(javelot, 6.5) is None


def test_a_save_at_or_above_the_value_only_grazes():
    """§ Tirs: "Si le résultat obtenu est supérieur ou égal à la valeur de sauvegarde … la
    cible n'est qu'éraflée"; a boar (M3, moyen) saves a javelin on 5+."""
    javelot = weapons()["javelot"]
    hunter, boar = figure("t1", 0, 0), figure("t2", 2, 0, masse=3)
    assert combat.shoot(ScriptedDice([4, 5]), shooter=hunter, target=boar,
                        weapon=javelot)["outcome"] == "grazed"
    assert combat.shoot(ScriptedDice([4, 4]), shooter=hunter, target=boar,
                        weapon=javelot)["outcome"] == "wound"


def test_no_save_where_the_table_says_so():
    """(*) sauvegarde impossible: the spear-thrower against a light prey rolls no save."""
    spear = weapons()["propulseur"]
    result = combat.shoot(ScriptedDice([4]), shooter=figure("t1", 0, 0),
                          target=figure("t2", 3, 0, masse=2), weapon=spear)
    assert result["outcome"] == "wound" and len(result["rolls"]) == 1 and result["save"] == 0


def test_small_prey_costs_one_except_for_bows_and_slings():
    """§ Bonus et malus au tir: "petite bête (M1): enlever 1 point … sauf arcs et frondes"."""
    hare = figure("t2", 2, 0, masse=1)
    stone = combat.shoot(ScriptedDice([4]), shooter=figure("t1", 0, 0), target=hare,
                         weapon=weapons()["pierre"])
    assert stone["rolls"][0]["total"] == 3 and stone["outcome"] == "miss"
    sling = combat.shoot(ScriptedDice([4, 1]), shooter=figure("t1", 0, 0), target=hare,
                         weapon=weapons()["fronde"])
    assert sling["rolls"][0]["total"] == 4 and sling["outcome"] == "wound"


def test_the_boar_is_m3_as_the_text_says():
    """§ Les blessures: "un sanglier peut encaisser 3 blessures … 3 unités de nourriture"."""
    boar = prey_species()["sanglier"]
    assert boar["masse"] == 3 and boar["source"] == "seed"
    assert mass_class(3) == "moyen"


def test_every_house_entry_says_why():
    for entry in [*weapons().values(), *prey_species().values(), *scenarios().values()]:
        assert entry["source"] in ("seed", "house")
        assert entry.get("reason") or entry.get("section")


# — a hunt, step by step ————————————————————————————————————————————————————

def _hunt(sheet=None, scenario=None):
    setup = MatchSetup("Chasse", (ParticipantSetup(
        "Ourk", character_id=11, owner_id=7, sheet=sheet or blank_sheet()),))
    log = list(CHASSE.start(setup, ScriptedDice([])))
    state = fold(CHASSE, log)
    return state, log


def _do(state, log, action, faces, actor=GM):
    dice = ScriptedDice(faces)
    events, state = apply(CHASSE, state, action, actor, dice)
    dice.assert_exhausted()
    return state, log + events


def _last(log, kind):
    """The latest event of ``kind`` (steps with nothing to do pass by themselves after an
    action, so it is not always the last one)."""
    return next(event for event in reversed(log) if event.kind == kind)


def _lone_boar(state, log, x=24, y=20):
    return _do(state, log, {"kind": "add_prey", "species": "sanglier", "x": x, "y": y}, [])


def test_the_hunt_waits_for_its_prey_then_runs_the_automatic_steps():
    state, log = _hunt()
    with pytest.raises(IllegalAction):
        apply(CHASSE, state, {"kind": "begin_hunt"}, GM, ScriptedDice([]))
    state, log = _lone_boar(state, log)
    state, log = _do(state, log, {"kind": "begin_hunt"}, [])
    assert state["status"] == "running" and state["step"] == 2
    assert fold(CHASSE, log) == state


def test_lighting_a_fire_needs_a_6_or_a_shaman_3():
    """§ Allumer un feu: "sur un résultat de 6, ou … 3 ou plus si la figurine est un
    chamane"."""
    state, log = _hunt()
    state, log = _lone_boar(state, log)
    state, log = _do(state, log, {"kind": "begin_hunt"}, [])
    hunter = state["tokens"]["t1"]
    state, log = _do(state, log, {"kind": "light_fire", "token": "t1", "x": int(hunter["x"]),
                                  "y": int(hunter["y"]) - 1}, [5], actor=PAUL)
    assert state["fires"] == [] and _last(log, "fire_lit").payload["target"] == 6
    shaman, slog = _hunt({**blank_sheet(), "shaman": True})
    shaman, slog = _lone_boar(shaman, slog)
    shaman, slog = _do(shaman, slog, {"kind": "begin_hunt"}, [])
    shaman, slog = _do(shaman, slog, {"kind": "light_fire", "token": "t1", "x": 24,
                                      "y": 33}, [3], actor=PAUL)
    assert len(shaman["fires"]) == 1 and shaman["fires"][0]["turns_left"] == 3


def test_a_hunter_moves_at_most_dmax_and_an_obstacle_costs_2():
    """§ Déplacements des Chasseurs: Dmax 6" (house) and "enlevez 2'' … pour franchir un
    obstacle"."""
    state, log = _hunt()
    state, log = _do(state, log, {"kind": "add_terrain", "label": "Tronc", "x": 20, "y": 30,
                                  "w": 8, "h": 1}, [])
    assert state["board"]["terrain"][0]["kind"] == "obstacle"  # the default kind
    state, log = _lone_boar(state, log, 24, 5)
    state, log = _do(state, log, {"kind": "begin_hunt"}, [])
    state, log = _do(state, log, {"kind": "next_step"}, [], actor=PAUL)
    assert state["step"] == 4
    start = state["tokens"]["t1"]
    with pytest.raises(IllegalAction) as refused:
        apply(CHASSE, state, {"kind": "move", "token": "t1", "x": int(start["x"]),
                              "y": int(start["y"]) - 5}, PAUL, ScriptedDice([]))
    assert refused.value.code == "too_far"  # 5" + 2" for the log > 6"
    assert refused.value.message_fr() == (
        "Ourk ne peut pas aller si loin : le trajet demandé coûte 7 po (5 po en ligne droite, "
        "plus le terrain), il lui reste 6 po ce tour")
    # Ourk's whole Dmax spent, and nothing to throw, fight or butcher: the turn passes by
    # itself, the boar's end-of-turn test at step 9 (blue 1: it stays).
    state, log = _do(state, log, {"kind": "move", "token": "t1", "x": int(start["x"]),
                                  "y": int(start["y"]) - 4}, [1, 1], actor=PAUL)
    moved = _last(log, "hunter_moved").payload
    assert moved["cost"] == 6 and moved["crossed"] == ["Tronc"]
    assert (state["round"], state["step"]) == (2, 2)


def test_a_charge_adds_a_d6_and_gives_plus_one_in_the_first_round():
    """§ Charge: declared, Dmax + 1D6; +1 to hit in the first melee round; no charge the
    next turn."""
    state, log = _hunt({**blank_sheet(), "weapons": ["lance"]})
    state, log = _lone_boar(state, log, 24, 25)  # 9" north of Ourk (24, 34)
    state, log = _do(state, log, {"kind": "begin_hunt"}, [])
    state, log = _do(state, log, {"kind": "next_step"}, [], actor=PAUL)
    # The charge (red 3: 6 + 3 = 9") reaches the boar. Ourk has nothing left to do at step
    # 4: step 5, the boar is attacked: blue 1 (alone, no modifier) — the aggressive column
    # at 1 reads "fuit"; at step 8, attacked this turn, it tests again (blue 1: it flees
    # on); nothing else to do, the turn passes.
    state, log = _do(state, log, {"kind": "move", "token": "t1", "target": "t2"},
                     [3, 1, 2, 1, 2], actor=PAUL)
    charge = _last(log, "hunter_moved").payload["charge"]
    assert charge["reach"] == 9 and charge["success"]
    reacted = next(e for e in log if e.kind == "prey_reacted").payload
    assert reacted["outcome"] == "fuit" and reacted["test"]["modified"] == 1
    assert reacted["step"] == 5 and state["round"] == 2


def test_an_unthreatened_prey_makes_the_end_of_turn_test():
    """§ Déplacements des Proies: "Une Proie n'ayant pas eu l'obligation de se déplacer fera
    également un test à la fin du tour" (house table: blue 6 → erre, red 1 → nord)."""
    state, log = _hunt({**blank_sheet(), "weapons": ["lance"]})
    state, log = _lone_boar(state, log, 24, 26)  # 8" from Ourk
    state, log = _do(state, log, {"kind": "begin_hunt"}, [])
    state, log = _do(state, log, {"kind": "next_step"}, [], actor=PAUL)
    state, log = _do(state, log, {"kind": "move", "token": "t1", "x": 24, "y": 30}, [],
                     actor=PAUL)
    # Step 5: Ourk 4" away — not within 3": no test. Steps 6 and 7 have nothing to do and
    # pass by themselves; step 8 nothing; step 9: the end-of-turn test, blue 6 → "erre",
    # red 1 → north; step 10 has nothing to do: the turn passes.
    state, log = _do(state, log, {"kind": "next_step"}, [6, 1], actor=PAUL)
    wander = _last(log, "prey_reacted").payload
    assert wander["outcome"] == "erre" and wander["test"]["direction"] == "nord"
    assert state["tokens"]["t2"]["y"] == 18  # 26 − 8 (rapide: Dmax 8")
    assert state["board"]["trails"] == [{"x1": 24, "y1": 26, "x2": 24, "y2": 18}]
    assert fold(CHASSE, log) == state


def test_butchering_takes_3_units_without_moving_1_after_a_move():
    """§ Pillage / dépeçage: "Trois unités … si la figurine ne s'est pas déplacée durant ce
    tour, ou une seule si elle s'est déplacée"."""
    state, log = _hunt()
    state, log = _lone_boar(state, log, 24, 33)
    state["tokens"]["t2"].update(state="dead", food=3)
    state["tokens"]["t1"].update(step=10)
    state.update(status="running", step=10, round=1)
    with pytest.raises(IllegalAction) as refused:
        apply(CHASSE, state, {"kind": "butcher", "token": "t1", "carcass": "t2",
                              "units": 4}, PAUL, ScriptedDice([]))
    assert refused.value.code == "bad_field"
    _events, after = apply(CHASSE, state, {"kind": "butcher", "token": "t1", "carcass": "t2",
                                          "units": 3}, PAUL, ScriptedDice([]))
    assert after["tokens"]["t1"]["carried"] == 3 and after["tokens"]["t2"]["food"] == 0
    state["tokens"]["t1"]["moved"] = True
    _events, after = apply(CHASSE, state, {"kind": "butcher", "token": "t1", "carcass": "t2"},
                          PAUL, ScriptedDice([]))
    assert after["tokens"]["t1"]["carried"] == 1


def test_a_hunter_may_turn_as_often_as_it_likes_within_dmax():
    """§ Déplacements des Chasseurs: "autant de changements de directions que nécessaires";
    a charge is declared before moving."""
    state, log = _hunt()
    state, log = _lone_boar(state, log, 40, 5)
    state, log = _do(state, log, {"kind": "begin_hunt"}, [])
    state, log = _do(state, log, {"kind": "next_step"}, [], actor=PAUL)
    state, log = _do(state, log, {"kind": "move", "token": "t1", "x": 24, "y": 31}, [],
                     actor=PAUL)
    state, log = _do(state, log, {"kind": "move", "token": "t1", "x": 26, "y": 31}, [],
                     actor=PAUL)
    assert state["tokens"]["t1"]["spent"] == 5
    for action in ({"kind": "move", "token": "t1", "x": 28, "y": 31},
                   {"kind": "move", "token": "t1", "target": "t2"}):
        with pytest.raises(IllegalAction):
            apply(CHASSE, state, action, PAUL, ScriptedDice([]))


def test_the_gm_edits_the_prey_table_of_a_hunt_and_the_prey_obey_it():
    """The reaction table is house content, editable per hunt: a placid lone prey that
    would flee on a blue 1 charges when the GM makes that cell "charge"."""
    state, log = _hunt()
    state, log = _do(state, log, {"kind": "add_prey", "species": "mammouth", "x": 24,
                                  "y": 30}, [])
    with pytest.raises(IllegalAction):
        apply(CHASSE, state, {"kind": "set_reaction", "table": "idle", "blue": 1,
                              "outcome": "charge"}, GM, ScriptedDice([]))
    state, log = _do(state, log, {"kind": "set_reaction", "table": "threat_placide",
                                  "blue": 1, "outcome": "charge"}, [])
    assert state["reactions"]["threat"]["placide"][1] == "charge"
    state, log = _do(state, log, {"kind": "begin_hunt"}, [])
    state, log = _do(state, log, {"kind": "next_step"}, [], actor=PAUL)
    state, log = _do(state, log, {"kind": "move", "token": "t1", "x": 24, "y": 32}, [],
                     actor=PAUL)
    # Step 5: Ourk 2" away: blue 1 → charge, red 1: 5 + 1" → contact, engaged; the fight is
    # the melee step's (Ourk, in contact, cannot throw at step 6: it waits at 7).
    state, log = _do(state, log, {"kind": "next_step"}, [1, 1], actor=PAUL)
    assert state["step"] == 7 and state["tokens"]["t2"]["engaged"] == "t1"
    # Ourk does not fight: leaving step 7 the mammoth attacks, its charge's +1 in this first
    # round: the tusks hit a light figure on 4: 3 + 1; Ourk's save 6: 2 fails; his javelin
    # (in melee) against the heavy mammoth: 4+, he rolls 1. At step 8 it tests again (blue
    # 1: "charge" — but it has fought this turn: it stays).
    state, log = _do(state, log, {"kind": "next_step"}, [3, 2, 1, 1, 1], actor=PAUL)
    melee = next(e for e in log if e.kind == "melee").payload
    assert melee["charged"] and melee["results"][0]["outcome"] == "wound"
    assert state["tokens"]["t1"]["wounds"] == 1
    assert [e.kind for e in log].count("melee") == 1


def test_a_scenario_brings_its_own_prey_tables():
    state, log = _hunt()
    state, log = _do(state, log, {"kind": "choose_scenario", "scenario": "steppe"}, [])
    assert state["reactions"]["idle"]["directions"][0] == "sud"
    assert len([t for t in state["tokens"].values() if t["kind"] == "prey"]) == 5


# — § Incendie ——————————————————————————————————————————————————————————————————

def _burning_hunt(faces_for_fire):
    """A shaman lights a fire 2" north of himself, 1.4" from a bush, 4" south of a hare."""
    state, log = _hunt({**blank_sheet(), "shaman": True})
    state, log = _do(state, log, {"kind": "add_terrain", "label": "Buisson", "x": 25, "y": 29,
                                  "w": 2, "h": 2, "ground": "buisson"}, [])
    with pytest.raises(IllegalAction):
        apply(CHASSE, state, {"kind": "add_terrain", "x": 1, "y": 1, "w": 1, "h": 1,
                              "ground": "lave"}, GM, ScriptedDice([]))
    state, log = _do(state, log, {"kind": "add_prey", "species": "lievre", "x": 24,
                                  "y": 28}, [])
    state, log = _do(state, log, {"kind": "begin_hunt"}, [])
    state, log = _do(state, log, {"kind": "light_fire", "token": "t1", "x": 24, "y": 32},
                     faces_for_fire, actor=PAUL)
    return state, log


def test_prey_within_5_inches_of_a_fire_flee_it_and_skip_the_test():
    """Step 3 and § Déplacements des Proies: "si elles se trouvent à moins de 5'' d'un feu";
    "une Proie ayant dû fuir à cause d'un incendie ne fait pas ce test"."""
    state, log = _burning_hunt([4])  # Ourk has no fire left to light: step 3 follows
    fled = next(e for e in log if e.kind == "prey_reacted").payload
    assert fled["outcome"] == "fuit_feu" and fled["moves"][0]["to"] == [24, 18]
    assert state["tokens"]["t2"]["fled_fire"]


def test_fire_spreads_on_5_or_6_and_goes_out_after_3_turns():
    """§ Incendie: an element within 2" of a flame catches on 5–6; "Au bout de 3 tours, un
    élément enflammé s'éteint de lui-même"; a figure within 1" catches fire on 5–6."""
    state, log = _burning_hunt([3])
    fire = state["fires"][0]
    assert fire["turns_left"] == 3
    # Step 3 came with the fire (the hare fled it). Close the moves: steps 6, 7, 8, 9 (the
    # hare, having fled, does not test) and 10 have nothing to do and pass. Next turn, step
    # 1: the fire ages (2 left), the bush 1" away rolls 5 and catches; Ourk, 2" from the
    # fire and 3.2" from the bush, is out of the 1" of the flames.
    state, log = _do(state, log, {"kind": "next_step"}, [5], actor=PAUL)
    assert [f["turns_left"] for f in state["fires"]] == [2, 3]
    spread = next(e for e in log if e.kind == "fire_spread").payload
    assert spread["element"] == "z1" and spread["fire"]["label"] == "Buisson"
    assert state["board"]["areas"][1]["label"].startswith("🔥 Buisson")


def test_a_player_does_not_write_food_hunts_or_wounds():
    before = blank_sheet()
    assert CHASSE.validate_change(before, {**before, "weapons": ["arc"]}) == []
    fields = {p.field for p in CHASSE.validate_change(before, {**before, "food": 9,
                                                                "hunts": 2})}
    assert fields == {"food", "hunts"}


def test_the_sheet_lists_every_broken_rule():
    problems = CHASSE.validate_sheet({"profile": "geant", "shaman": False,
                                      "weapons": ["arc", "arc", "lance", "dents"],
                                      "wounds": 2, "food": -1, "hunts": 0, "dead": False})
    fields = sorted(p.field for p in problems)
    assert fields == ["food", "profile", "weapons", "weapons", "weapons"]
    assert CHASSE.validate_sheet({**blank_sheet(), "wounds": 2})[0].field == "wounds"
    assert CHASSE.derived({**blank_sheet(), "profile": "pataud", "weapons": ["javelot"]}) \
        ["throws"] == [{"name": "Javelot", "short": 3, "long": 6}]


def test_a_figure_within_1_inch_catches_fire_and_is_removed_unfit_to_butcher():
    """§ Incendie / Dégâts dus au feu: 5–6, "retirée du jeu le tour suivant. Une figurine
    brûlée est impropre au dépeçage"."""
    tribe = Actor(7, character_ids=frozenset({11, 12}))
    setup = MatchSetup("Chasse", (
        ParticipantSetup("Ourk", character_id=11, owner_id=7,
                         sheet={**blank_sheet(), "shaman": True}),
        ParticipantSetup("Ghâ", character_id=12, owner_id=7, sheet=blank_sheet())))
    log = list(CHASSE.start(setup, ScriptedDice([])))
    state = fold(CHASSE, log)
    state, log = _do(state, log, {"kind": "add_prey", "species": "mammouth", "x": 24,
                                  "y": 2}, [])
    state, log = _do(state, log, {"kind": "begin_hunt"}, [])
    assert state["tokens"]["t1"]["x"] == 16
    state, log = _do(state, log, {"kind": "light_fire", "token": "t1", "x": 16, "y": 33},
                     [3], actor=tribe)
    # Ghâ may still light one: step 2 waits. Then the moves; the mammoth, far away, makes
    # its end-of-turn test at step 9: blue 1 → reste; the other steps have nothing to do:
    # the next turn's step 1 burns Ourk (6).
    state, log = _do(state, log, {"kind": "next_step"}, [], actor=tribe)
    state, log = _do(state, log, {"kind": "next_step"}, [1, 1, 6], actor=tribe)
    assert state["tokens"]["t1"]["state"] == "burning"
    lighting = next(f for f in CHASSE.legal_actions(state, tribe) if f.kind == "light_fire")
    assert lighting.choices["tokens"] == [["t2", "Ghâ"]]  # a burning figure acts no more
    state, log = _do(state, log, {"kind": "next_step"}, [], actor=tribe)
    state, log = _do(state, log, {"kind": "next_step"}, [1, 1], actor=tribe)  # fire: 1 left
    assert state["tokens"]["t1"]["state"] == "burnt" and state["tokens"]["t1"]["food"] == 0
    assert "t1" not in state["order"]
    assert fold(CHASSE, log) == state


def test_a_dead_hunter_never_acts_and_a_tribe_back_home_ends_the_hunt():
    state, log = _hunt({**blank_sheet(), "dead": True})
    assert state["tokens"]["t1"]["state"] == "dead"
    alive_setup = MatchSetup("Chasse", (ParticipantSetup("Ourk", character_id=11, owner_id=7,
                                                         sheet=blank_sheet()),))
    log = list(CHASSE.start(alive_setup, ScriptedDice([])))
    state = fold(CHASSE, log)
    state, log = _do(state, log, {"kind": "choose_scenario", "scenario": "mammouth"}, [])
    state, log = _do(state, log, {"kind": "begin_hunt"}, [])
    for _turn in range(2):  # Ourk stays in camp two turns; the mammoth browses (blue 1)
        state, log = _do(state, log, {"kind": "next_step"}, [], actor=PAUL)
        state, log = _do(state, log, {"kind": "next_step"}, [1, 1], actor=PAUL)
    assert state["status"] == "finished" and log[-1].payload["reason"] == "back_at_camp"
    assert state["result"]["sides"][0]["food"] == 0


def test_the_gm_corrects_a_value_and_it_is_in_the_log():
    state, log = _hunt()
    state, log = _lone_boar(state, log)
    state, log = _do(state, log, {"kind": "begin_hunt"}, [])
    state, log = _do(state, log, {"kind": "correct", "token": "t2", "field": "wounds",
                                  "value": 3, "reason": "tombé du ravin"}, [])
    assert state["tokens"]["t2"]["state"] == "dead" and state["tokens"]["t2"]["food"] == 3
    state, log = _do(state, log, {"kind": "correct", "token": "t2", "field": "x",
                                  "value": 30}, [])
    assert state["tokens"]["t2"]["x"] == 30 and log[-1].payload["before"] == 24
    with pytest.raises(IllegalAction):
        apply(CHASSE, state, {"kind": "correct", "token": "t2", "field": "wounds",
                              "value": 4}, GM, ScriptedDice([]))
    with pytest.raises(IllegalAction):
        apply(CHASSE, state, {"kind": "correct", "token": "t2", "field": "x", "value": 3},
              PAUL, ScriptedDice([]))


def test_the_gms_weapons_and_prey_join_the_hunt():
    content = {"weapon": [{"key": "gm-boomerang", "name": "Boomerang", "source": "gm",
                           "melee": False, "short": 4, "long": 8, "no_small_malus": True,
                           "to_hit_leger": 4, "to_hit_moyen": 4, "to_hit_lourd": 5,
                           "save_leger": 5, "save_moyen": 4, "save_lourd": 3}],
               "prey": [{"key": "gm-megaloceros", "name": "Mégacéros", "source": "gm",
                         "masse": 4, "temperament": "placide", "speed": "rapide",
                         "weapon": "cornes"}]}
    sheet = {**blank_sheet(), "weapons": ["gm-boomerang"]}
    assert CHASSE.validate_sheet(sheet, content) == []
    assert CHASSE.validate_sheet(sheet)[0].field == "weapons"
    setup = MatchSetup("Chasse", (ParticipantSetup("Ourk", character_id=11, owner_id=7,
                                                   sheet=sheet),), {"content": content})
    log = list(CHASSE.start(setup, ScriptedDice([])))
    state = fold(CHASSE, log)
    state, log = _do(state, log, {"kind": "add_prey", "species": "gm-megaloceros", "x": 24,
                                  "y": 27}, [])
    assert state["tokens"]["t2"]["masse"] == 4 and state["tokens"]["t2"]["dmax"] == 8
    state, log = _do(state, log, {"kind": "begin_hunt"}, [])
    for faces in ([], [], []):  # 2 → 4 → (5: 7" away, no test) 6
        if state["step"] == 6:
            break
        state, log = _do(state, log, {"kind": "next_step"}, faces, actor=PAUL)
    # The throw (6, save 1: a wound); then the turn runs on: at step 8 the wounded
    # Mégacéros tests (blue 1: placid, it flees).
    state, log = _do(state, log, {"kind": "shoot", "token": "t1", "target": "t2",
                                  "weapon": "gm-boomerang"}, [6, 1, 1, 1], actor=PAUL)
    assert _last(log, "shot").payload["result"]["to_hit"] == 5  # lourd (M4)
    assert state["tokens"]["t2"]["wounds"] == 1


def test_a_hunter_a_prey_attacked_at_step_5_leads_its_own_attack_at_step_7():
    """§ Séquence de jeu: step 5 "Réactions des cibles attaqués" — the boar attacks; step 7
    "Résolutions des corps à corps" — the fight is resolved there, and the hunter who
    charged leads it with its charge's +1 (§ Charge: "lors du premier tour du combat")."""
    state, log = _hunt({**blank_sheet(), "weapons": ["lance"]})
    state, log = _lone_boar(state, log, 24, 25)
    state, log = _do(state, log, {"kind": "begin_hunt"}, [])
    state, log = _do(state, log, {"kind": "next_step"}, [], actor=PAUL)
    # The charge (red 3) reaches the boar; step 5: blue 3 (alone) → attaque: in contact
    # already, it engages without moving; nothing to throw: the table waits at step 7.
    state, log = _do(state, log, {"kind": "move", "token": "t1", "target": "t2"}, [3, 3, 1],
                     actor=PAUL)
    assert state["step"] == 7 and "melee" not in [e.kind for e in log]
    # Ourk leads: his spear 3 + 1 (charge) = 4 hits the boar (moyen: 4+), whose save 4
    # fails (5+ needed); the tusks strike back once, 2: a miss. At step 8 the wounded boar
    # flees (blue 1).
    state, log = _do(state, log, {"kind": "melee", "token": "t1", "target": "t2",
                                  "weapon": "lance"}, [3, 4, 2, 1, 1], actor=PAUL)
    melee = next(e for e in log if e.kind == "melee").payload
    assert melee["leader"] == "t1" and melee["charged"]
    assert melee["results"][0]["rolls"][0]["total"] == 4
    assert melee["results"][0]["outcome"] == "wound" and melee["results"][1]["outcome"] == \
        "miss"
    assert state["tokens"]["t2"]["wounds"] == 1


def test_a_group_of_hunters_follows_its_dominant():
    """§ Déplacements des Chasseurs: "ne considérer que le chef … Les autres figurines
    restant à moins de 2'' de ce dernier"."""
    tribe = Actor(7, character_ids=frozenset({11, 12, 13}))
    setup = MatchSetup("Chasse", tuple(
        ParticipantSetup(name, character_id=cid, owner_id=7, sheet=sheet)
        for name, cid, sheet in (("Ourk", 11, blank_sheet()), ("Ghâ", 12, blank_sheet()),
                                 ("Bronk", 13, {**blank_sheet(), "profile": "pataud"}))))
    log = list(CHASSE.start(setup, ScriptedDice([])))
    state = fold(CHASSE, log)
    state, log = _lone_boar(state, log, 40, 2)
    state, log = _do(state, log, {"kind": "begin_hunt"}, [])
    for token_id, x in (("t1", 20), ("t2", 21), ("t3", 22)):  # the GM gathers them
        state, log = _do(state, log, {"kind": "correct", "token": token_id, "field": "x",
                                      "value": x}, [])
    state, log = _do(state, log, {"kind": "next_step"}, [], actor=tribe)
    state, log = _do(state, log, {"kind": "move", "token": "t1", "x": 20, "y": 30,
                                  "group": "on"}, [], actor=tribe)
    assert [m["token"] for m in log[-1].payload["group"]] == ["t2"]  # Bronk is a Pataud
    assert (state["tokens"]["t2"]["x"], state["tokens"]["t2"]["y"]) == (21, 30)
    assert state["tokens"]["t3"]["y"] == 34 and not state["tokens"]["t3"]["moved"]
    assert fold(CHASSE, log) == state


def test_tribes_take_turns_and_may_throw_at_each_other():
    """§ Séquence de jeu: "Chacun à son tour"; the issue: hunters of different players may
    fight each other."""
    bruno = Actor(8, character_ids=frozenset({13}))
    setup = MatchSetup("Chasse", (
        ParticipantSetup("Ourk", character_id=11, owner_id=7,
                         sheet={**blank_sheet(), "weapons": ["javelot"]}),
        ParticipantSetup("Bronk", character_id=13, owner_id=8,
                         sheet={**blank_sheet(), "profile": "pataud"})))
    log = list(CHASSE.start(setup, ScriptedDice([])))
    state = fold(CHASSE, log)
    assert [s["name"] for s in state["sides"]] == ["Ourk", "Bronk"]
    state, log = _lone_boar(state, log, 24, 2)
    state, log = _do(state, log, {"kind": "begin_hunt"}, [])
    with pytest.raises(IllegalAction) as refused:
        apply(CHASSE, state, {"kind": "next_step"}, bruno, ScriptedDice([]))
    assert refused.value.code == "not_your_turn"
    assert {f.kind for f in CHASSE.legal_actions(state, bruno)} == {"note"}
    # Ourk stays put: his step 4 closed, nothing to do until the boar's end-of-turn test
    # (blue 1) and the end of the turn.
    state, log = _do(state, log, {"kind": "next_step"}, [], actor=PAUL)
    state, log = _do(state, log, {"kind": "next_step"}, [1, 1], actor=PAUL)
    assert state["active"] == 1 and state["round"] == 1 and state["step"] == 2
    # Ourk (16, 34) and Bronk (32, 34) are 16" apart: Bronk walks his 5" towards him, and
    # with nothing else to do his turn ends.
    state, log = _do(state, log, {"kind": "next_step"}, [], actor=bruno)
    state, log = _do(state, log, {"kind": "move", "token": "t2", "x": 27, "y": 34}, [1, 1],
                     actor=bruno)
    assert state["active"] == 0 and state["round"] == 2
    # Ourk walks his 6" (straight from step 2): at step 6 Bronk is in reach.
    state, log = _do(state, log, {"kind": "move", "token": "t1", "x": 22, "y": 34}, [],
                     actor=PAUL)
    assert state["step"] == 6
    shoot = next(f for f in CHASSE.legal_actions(state, PAUL) if f.kind == "shoot")
    assert ["t2", "Bronk", "javelot", 5.0, True] in shoot.choices["shots"]["t1"]
    state, log = _do(state, log, {"kind": "shoot", "token": "t1", "target": "t2",
                                  "weapon": "javelot"}, [6, 1, 1, 1], actor=PAUL)
    assert _last(log, "shot").payload["result"]["range"] == "long"  # 5": 6 − 1 = 5 ≥ 4
    assert state["tokens"]["t2"]["wounds"] == 1  # Bronk is M3: moyen, save 5+ failed


def test_the_tribe_keeps_its_food_from_hunt_to_hunt():
    """§ The end (issue 13): "a campaign keeps the tribe's hunters and food from hunt to hunt"
    (house): the sheets add what each hunter brought back; the next hunt shows the tribe's
    store from them beside its own food."""
    state, _log = _hunt({**blank_sheet(), "food": 4, "hunts": 2})
    assert state["sides"][0]["store"] == 4 and state["sides"][0]["food"] == 0
    state["tokens"]["t1"]["brought"] = 3
    after = CHASSE.between_matches(state, {11: {**blank_sheet(), "food": 4, "hunts": 2}})
    assert (after[11]["food"], after[11]["hunts"]) == (7, 3)
    state, _log = _hunt(after[11])
    assert state["sides"][0]["store"] == 7


# — how a hunt ends (issue 23: fights end) ————————————————————————————————————————

def test_a_hunt_with_nothing_left_to_hunt_is_decided_and_the_gm_ends_it():
    """Every prey fled and no meat is left: nobody is asked to play on (no step, no
    « next step »), the GM's « End the hunt » is the awaited form, a forced step is refused;
    the outcome names the tribe that brought food back, and is over once ended."""
    state, log = _hunt()
    state, log = _lone_boar(state, log)
    state, log = _do(state, log, {"kind": "begin_hunt"}, [])
    assert CHASSE.outcome(state) is None
    state["tokens"]["t2"]["state"] = "gone"  # the boar fled off the board
    state["sides"][0]["food"] = 3
    decided = CHASSE.outcome(state)
    assert decided is not None and not decided.over and decided.winners == ("Ourk",)
    assert decided.reason == "nothing is left to hunt or carry"
    assert [f.kind for f in CHASSE.legal_actions(state, PAUL)] == ["note"]
    gm_forms = CHASSE.legal_actions(state, GM)
    assert gm_forms[0].kind == "end_hunt" and gm_forms[0].choices["awaited"]
    assert CHASSE.view(state, PAUL)["decided"] == "no_prey"
    with pytest.raises(IllegalAction) as refused:
        apply(CHASSE, state, {"kind": "next_step"}, PAUL, ScriptedDice([]))
    assert refused.value.code == "decided"
    _events, ended = apply(CHASSE, state, {"kind": "end_hunt"}, GM, ScriptedDice([]))
    over = CHASSE.outcome(ended)
    assert over.over and over.winners == ("Ourk",) and over.reason == "the GM ended it"


def test_a_hunt_whose_hunters_all_fell_is_decided_without_a_winner():
    state, log = _hunt()
    state, log = _lone_boar(state, log)
    state, log = _do(state, log, {"kind": "begin_hunt"}, [])
    state, log = _do(state, log, {"kind": "correct", "token": "t1", "field": "wounds",
                                  "value": 2}, [])
    decided = CHASSE.outcome(state)
    assert decided.winners == () and decided.reason == "no hunter is left standing"
    assert not decided.over


def test_ties_share_the_win_and_nobody_wins_without_food():
    from app.rules.chasse.ending import _winners

    rows = [{"side": "s1", "name": "A", "food": 2, "dead": []},
            {"side": "s2", "name": "B", "food": 2, "dead": []},
            {"side": "s3", "name": "C", "food": 2, "dead": ["x"]}]
    assert _winners({"sides": rows, "ranking": ["s1", "s2", "s3"]}) == ("A", "B")
    assert _winners({"sides": [{**rows[0], "food": 0}], "ranking": ["s1"]}) == ()


# — § combats: several against one, charges (issue 25) ————————————————————————————

def _two_hunters_on_a_boar():
    """Ourk (spear) and Ghâ (knife), of one tribe, both in contact with a boar, at step 7."""
    tribe = Actor(7, character_ids=frozenset({11, 12}))
    setup = MatchSetup("Chasse", (
        ParticipantSetup("Ourk", character_id=11, owner_id=7,
                         sheet={**blank_sheet(), "weapons": ["lance"]}),
        ParticipantSetup("Ghâ", character_id=12, owner_id=7,
                         sheet={**blank_sheet(), "weapons": ["couteau"]})))
    state = fold(CHASSE, CHASSE.start(setup, ScriptedDice([])))
    state, _log = _lone_boar(state, [], 24, 20)
    state, _log = _do(state, [], {"kind": "begin_hunt"}, [])
    state["tokens"]["t1"].update(x=24, y=21)
    state["tokens"]["t2"].update(x=25, y=20)
    state["step"] = 7
    return state, tribe


def test_several_against_one_fight_once_behind_one_leader():
    """§ combats: "Si plusieurs figurines combattent un même adversaire, choisir celle qui mène
    l'attaque, et appliquer +1 au jet pour toucher par figurine supplémentaire soutenant le
    combat" — Ghâ supports Ourk's attack (+1) and does not lead one of her own; the boar
    strikes back once, at the leader."""
    state, tribe = _two_hunters_on_a_boar()
    melee = next(f for f in CHASSE.legal_actions(state, tribe) if f.kind == "melee")
    assert melee.choices["fights"]["t1"]["targets"] == [["t3", "Sanglier", ["Ghâ"]]]
    events, _after = apply(CHASSE, state, {"kind": "melee", "token": "t1", "target": "t3",
                                           "weapon": "lance"}, tribe,
                           ScriptedDice([1, 1, 1, 1]))
    fight = next(e for e in events if e.kind == "melee")
    assert fight.payload["supporters"] == ["t2"] and len(fight.payload["results"]) == 2
    assert fight.payload["results"][0]["rolls"][0]["total"] == 2  # 1 + 1 (soutien)
    assert [e.kind for e in events].count("melee") == 1
    fought = fold(CHASSE, [fight], state)
    assert fought["tokens"]["t2"]["fought"]
    assert "melee" not in {f.kind for f in CHASSE.legal_actions(fought, tribe)}
    with pytest.raises(IllegalAction) as refused:
        apply(CHASSE, fought, {"kind": "melee", "token": "t2", "target": "t3"}, tribe,
              ScriptedDice([6, 6]))
    assert refused.value.code == "already_done"


def test_no_charge_from_contact_and_no_throw_in_contact():
    """§ Charge: a charge is a run — a hunter already in contact has none to make (the form
    offers no such target; a forced one is refused, nothing rolled); § Tirs: "à condition de
    ne pas être à moins de 1" de sa cible" — in contact (1") no javelin is thrown."""
    state, log = _hunt({**blank_sheet(), "weapons": ["javelot", "lance"]})
    state, log = _lone_boar(state, log, 24, 33)  # Ourk stands at (24, 34): in contact
    state, log = _do(state, log, {"kind": "begin_hunt"}, [])
    state, log = _do(state, log, {"kind": "next_step"}, [], actor=PAUL)
    move = next(f for f in CHASSE.legal_actions(state, PAUL) if f.kind == "move")
    assert move.choices["targets"]["t1"] == []
    with pytest.raises(IllegalAction) as refused:
        apply(CHASSE, state, {"kind": "move", "token": "t1", "target": "t2"}, PAUL,
              ScriptedDice([6]))
    assert refused.value.code == "charge_in_contact"
    state["step"] = 6
    assert "shoot" not in {f.kind for f in CHASSE.legal_actions(state, PAUL)}
    with pytest.raises(IllegalAction) as refused:
        apply(CHASSE, state, {"kind": "shoot", "token": "t1", "target": "t2",
                              "weapon": "javelot"}, PAUL, ScriptedDice([6, 6]))
    assert refused.value.code == "out_of_range"


def test_a_prey_in_contact_that_rolls_charge_gets_no_charge_bonus():
    """§ Déplacements des Proies, Charge: "+1 … lors du premier tour du combat" — a boar
    already in contact that rolls « charge » runs nowhere: it fights without the +1."""
    state, log = _hunt({**blank_sheet(), "weapons": ["lance"]})
    state, log = _lone_boar(state, log, 24, 33)
    state, log = _do(state, log, {"kind": "begin_hunt"}, [])
    state, log = _do(state, log, {"kind": "next_step"}, [], actor=PAUL)
    # Step 5: a hunter within 3": blue 6 (aggressive) → charge; it engages, no move. Ourk
    # lets the melee step go: leaving it the boar attacks (2: a miss), Ourk strikes back
    # (1: a miss); at step 8 it tests again (blue 1: it flees).
    state, log = _do(state, log, {"kind": "next_step"}, [6, 1], actor=PAUL)
    reacted = _last(log, "prey_reacted").payload
    assert reacted["outcome"] == "charge" and reacted["engaged"] == {
        "target": "t1", "charge": False, "when": "step_7"}
    state, log = _do(state, log, {"kind": "next_step"}, [2, 1, 1, 1], actor=PAUL)
    fight = _last(log, "melee").payload
    assert fight["leader"] == "t2" and not fight["charged"]
    assert fight["results"][0]["rolls"][0]["total"] == 2  # no +1


# — bases (§ Matériel: "soclés individuellement"; issue 25) ——————————————————————————

def test_a_figure_neither_walks_through_nor_stops_on_another():
    state, log = _hunt()
    state, log = _lone_boar(state, log, 24, 31)  # 3" north of Ourk (24, 34)
    with pytest.raises(IllegalAction) as refused:  # the GM places none on another either
        apply(CHASSE, state, {"kind": "add_prey", "species": "loup", "x": 24, "y": 31}, GM,
              ScriptedDice([]))
    assert refused.value.code == "occupied"
    state, log = _do(state, log, {"kind": "begin_hunt"}, [])
    for to in ((24, 29), (24, 31)):  # through it, onto it
        with pytest.raises(IllegalAction) as refused:
            apply(CHASSE, state, {"kind": "move", "token": "t1", "x": to[0], "y": to[1]},
                  PAUL, ScriptedDice([]))
        assert refused.value.code == "blocked" and refused.value.fields["by"] == "Sanglier"
    assert "Sanglier barre le chemin d'Ourk" in refused.value.message_fr()
    # round it, or stop in contact (its base touching the boar's)
    state, log = _do(state, log, {"kind": "move", "token": "t1", "x": 24, "y": 32}, [],
                     actor=PAUL)
    assert (state["tokens"]["t1"]["x"], state["tokens"]["t1"]["y"]) == (24, 32)


def test_a_charge_and_a_prey_walk_stop_at_a_base_in_the_way():
    tribe = Actor(7, character_ids=frozenset({11, 12}))
    setup = MatchSetup("Chasse", (
        ParticipantSetup("Ourk", character_id=11, owner_id=7,
                         sheet={**blank_sheet(), "weapons": ["lance"]}),
        ParticipantSetup("Ghâ", character_id=12, owner_id=7,
                         sheet={**blank_sheet(), "weapons": ["couteau"]})))
    state = fold(CHASSE, CHASSE.start(setup, ScriptedDice([])))
    state, log = _lone_boar(state, [], 16, 26)  # 8" north of Ourk (16, 34)
    state, log = _do(state, log, {"kind": "begin_hunt"}, [])
    state["tokens"]["t2"].update(x=16, y=30)  # Ghâ stands between them
    state, log = _do(state, log, {"kind": "next_step"}, [], actor=tribe)
    # red 6: 12" of charge, but Ghâ's base stops Ourk 1" short of her: no contact
    events, _after = apply(CHASSE, state, {"kind": "move", "token": "t1", "target": "t3"},
                           tribe, ScriptedDice([6, 1, 1]))
    charge = next(e for e in events if e.kind == "hunter_moved").payload
    assert charge["to"] == [16, 31] and not charge["charge"]["success"]
    # the boar wanders south (house table: blue 6 → erre, red 4 → sud) into Ghâ: it stops
    # in contact with her base
    state["reactions"]["idle"]["directions"] = ["sud"] * 6
    state, log = _do(state, log, {"kind": "next_step"}, [6, 4], actor=tribe)  # → 6 … 9
    boar = state["tokens"]["t3"]
    assert (boar["x"], boar["y"]) == (16, 29)


def test_a_herd_keeps_together_and_no_two_bases_stack():
    """§ Déplacements des Chasseurs: the others "restant à moins de 2'' de ce dernier" — a
    herd whose dominant is stopped by rocks keeps within 2" of it, each on its own spot."""
    from app.rules.chasse.geometry import distance, o_pos

    state, log = _hunt()
    state, log = _do(state, log, {"kind": "add_terrain", "label": "Rochers", "x": 10, "y": 8,
                                  "w": 30, "h": 2, "ground": "infranchissable"}, [])
    for x, y in ((24, 14), (26, 14), (22, 14), (24, 16)):  # the first is the dominant
        state, log = _do(state, log, {"kind": "add_prey", "species": "renne", "x": x, "y": y,
                                      "group": "troupeau"}, [])
    state["reactions"]["idle"] = {"outcomes": ["erre"] * 8, "directions": ["nord"] * 6}
    state, log = _do(state, log, {"kind": "begin_hunt"}, [])
    state, log = _do(state, log, {"kind": "next_step"}, [], actor=PAUL)
    state, log = _do(state, log, {"kind": "next_step"}, [1, 1], actor=PAUL)  # they wander
    herd = [t for t in state["tokens"].values() if t["kind"] == "prey"]
    lead = next(t for t in herd if t["dominant"])
    assert lead["y"] == 10  # against the rocks
    assert all(distance(o_pos(t), o_pos(lead)) <= 2 + 1e-9 for t in herd)
    spots = [o_pos(t) for t in state["tokens"].values()]
    assert all(distance(a, b) >= 0.99 for i, a in enumerate(spots) for b in spots[i + 1:])


# — prey leave the board only when they flee (issue 25) ————————————————————————————

def test_a_wandering_prey_stops_at_the_edge_a_fleeing_one_leaves():
    state, log = _hunt()
    state, log = _lone_boar(state, log, 24, 3)  # 3" from the north edge
    state["reactions"]["idle"] = {"outcomes": ["erre"] * 8, "directions": ["nord"] * 6}
    state, log = _do(state, log, {"kind": "begin_hunt"}, [])
    state, log = _do(state, log, {"kind": "next_step"}, [], actor=PAUL)
    state, log = _do(state, log, {"kind": "next_step"}, [6, 1], actor=PAUL)
    boar = state["tokens"]["t2"]
    assert boar["state"] == "ok" and (boar["x"], boar["y"]) == (24, 0)
    # a flight carries it off (the GM puts Ourk beside it: blue 1, it flees north)
    state["tokens"]["t1"].update(x=24, y=2)
    state["step"] = 4
    state, log = _do(state, log, {"kind": "next_step"}, [1, 1], actor=PAUL)
    assert state["tokens"]["t2"]["state"] == "gone"


def test_seeded_hunts_keep_their_prey_until_the_hunters_reach_them():
    """The command ``python -m app.rules.chasse.simulate`` plays seeded hunts: no prey
    wanders off the board, and the hunters reach a prey in most hunts."""
    from app.rules.chasse.simulate import simulate, table

    reports = simulate(6, seed=1)
    assert all(report.wandered_off == 0 for report in reports)
    assert sum(report.reached for report in reports) >= 5
    lines = table(reports)
    assert lines[0].split()[:3] == ["scenario", "seed", "ended"] and len(lines) == 8


def test_a_fire_lasts_three_of_its_tribes_turns_however_many_tribes_hunt():
    """§ Incendie: "Au bout de 3 tours, un élément enflammé s'éteint de lui-même" — house
    (issue 25): the turns of the tribe that lit it, so three rounds with two tribes (it
    went out after a round and a half when every tribe's turn counted)."""
    bruno = Actor(8, character_ids=frozenset({13}))
    setup = MatchSetup("Chasse", (
        ParticipantSetup("Ourk", character_id=11, owner_id=7,
                         sheet={**blank_sheet(), "shaman": True}),
        ParticipantSetup("Bronk", character_id=13, owner_id=8, sheet=blank_sheet())))
    log = list(CHASSE.start(setup, ScriptedDice([])))
    state, log = _lone_boar(fold(CHASSE, log), log, 40, 2)
    state, log = _do(state, log, {"kind": "begin_hunt"}, [])
    state, log = _do(state, log, {"kind": "light_fire", "token": "t1", "x": 16, "y": 32},
                     [3], actor=PAUL)
    assert state["fires"][0]["side"] == "s1"
    for _round in range(2):  # each tribe stays in its camp; the boar browses (blue 1)
        for actor in (PAUL, bruno):
            if state["step"] == 2:
                state, log = _do(state, log, {"kind": "next_step"}, [], actor=actor)
            state, log = _do(state, log, {"kind": "next_step"}, [1, 1], actor=actor)
    assert state["round"] == 3 and state["active"] == 0
    assert [f["turns_left"] for f in state["fires"]] == [1]  # its third turn: still burning
    assert fold(CHASSE, log) == state
