"""Mutatior as a GameSystem: the sheet, the table's decide/evolve, and the text's example fight
replayed through the table (000_e34df4ff7a8d792c.txt § Exemple de combat)."""

from __future__ import annotations

import copy

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.rules.dice import ScriptedDice, SeededDice
from app.rules.match import Actor, IllegalAction, MatchSetup, ParticipantSetup, apply, fold
from app.rules.mutatior import campaign
from app.rules.mutatior import match as table
from app.rules.mutatior.samples import grosbaf, zetzet
from app.rules.mutatior.sheet import limb_of, mutant_of, sheet_of
from app.rules.mutatior.system import MUTATIOR
from app.rules.registry import get_system
from app.rules.system import GameSystem

GM = Actor(1, is_gm=True)
PATOM = Actor(10, character_ids=frozenset({1}))
YETZAR = Actor(11, character_ids=frozenset({2}))


# — the sheet —

def test_registered_and_a_game_system():
    assert get_system("mutatior") is MUTATIOR
    assert isinstance(MUTATIOR, GameSystem)
    assert MUTATIOR.seed_file == "000_e34df4ff7a8d792c.txt" and MUTATIOR.uses_board


def test_new_sheet_and_demo_characters_are_valid_and_teams_fit_two_tonnes():
    assert MUTATIOR.validate_sheet(MUTATIOR.new_sheet()) == []
    demo = MUTATIOR.demo_characters()
    for character in demo:
        assert MUTATIOR.validate_sheet(character.sheet) == [], character.name
    for player in (0, 1):
        team = [c for c in demo if c.player == player]
        assert 3 <= len(team) <= 10
        assert sum(MUTATIOR.derived(c.sheet)["biomass"] for c in team) <= 2000
        skills = [s for c in team for s in c.sheet["skills"]]
        assert len(skills) == len(set(skills))


def test_the_sample_sheets_show_their_printed_figures():
    by_name = {c.name: MUTATIOR.derived(c.sheet) for c in MUTATIOR.demo_characters()}
    scarabator, nurglie = by_name["Scarabator"], by_name["Nurglie"]
    assert (scarabator["biomass"], scarabator["brain"], scarabator["pump"],
            scarabator["muscle_mass_kg"], scarabator["movement_cm"]) == (565, 5, 12, 310, 24)
    assert (nurglie["biomass"], nurglie["brain"], nurglie["pump"],
            nurglie["muscle_mass_kg"], nurglie["movement_cm"]) == (355, 1, 5, 260, 10)
    assert scarabator["popularity"] == 1 and scarabator["initiative_bonus"] == 5


def rules_of(problems):
    return {(p.field, p.rule.split(" § ")[-1]) for p in problems}


def test_every_broken_building_rule_is_reported_with_its_section():
    sheet = MUTATIOR.new_sheet()
    sheet["limbs"][0]["trunk"] = False  # no trunk
    sheet["limbs"][2]["lobes"] = 2  # lobes in a second limb
    sheet["limbs"][3].update(muscles=5, biomoteurs=4)  # a ninth organ
    sheet["limbs"][4]["muscles"] = 0  # a limb without muscle
    sheet["limbs"][5]["defensive"] = ["carapace", "carapace"]
    sheet["skills"] = []
    found = rules_of(MUTATIOR.validate_sheet(sheet))
    assert ("limbs", "2-1 Corps") in found
    assert ("brain", "2-2 Organes / Lobe") in found
    assert ("limbs.3", "2-1 Corps") in found
    assert ("limbs.4.muscles", "2-2 Organes / Muscle") in found
    assert ("limbs.5.defensive", "Terminologie / Implants défensifs") in found
    assert ("skills", "2-3 Compétences") in found


def test_shape_problems_come_before_the_rules_and_never_raise():
    for bad in ({"limbs": "x"}, {"limbs": [{"name": 3}], "skills": []}, [], {"xp": -1},
                {"limbs": [], "skills": [], "extra": 1}):
        problems = MUTATIOR.validate_sheet(bad)
        assert problems and all(p.message for p in problems)


def test_custom_implants_from_the_campaign_are_known_to_the_sheet():
    sheet = MUTATIOR.new_sheet()
    sheet["limbs"][2]["offensive"] = "gm-scie"
    assert any(p.field == "limbs.2.offensive" for p in MUTATIOR.validate_sheet(sheet))
    content = {"offensive_implant": [{"key": "gm-scie", "name": "Scie", "attack": 2,
                                      "weight_kg": 30, "source": "gm"}]}
    assert MUTATIOR.validate_sheet(sheet, content) == []
    assert MUTATIOR.derived(sheet, content)["biomass"] == \
        MUTATIOR.derived(MUTATIOR.new_sheet())["biomass"] + 30


def test_sheet_from_form_reads_limbs_skills_and_drops_empty_or_removed_rows():
    form = {"trunk": "0", "limb_0_name": "bide", "limb_0_muscles": "6", "limb_0_biomoteurs": "5",
            "limb_1_name": "tête", "limb_1_muscles": "2", "limb_1_lobes": "3",
            "limb_1_offensive": "corne", "limb_1_defensive_1": "carapace",
            "limb_2_name": "queue", "limb_2_muscles": "4", "limb_2_remove": "on",
            "limb_3_name": "", "limb_3_muscles": "",
            "limb_4_name": "bras", "limb_4_muscles": "x",
            "skill_coquet": "on", "xp": "3", "team": " Les Cornus "}
    sheet = MUTATIOR.sheet_from_form(form)
    assert [limb["name"] for limb in sheet["limbs"]] == ["bide", "tête", "bras"]
    assert sheet["limbs"][0]["trunk"] and not sheet["limbs"][1]["trunk"]
    assert sheet["limbs"][1]["offensive"] == "corne"
    assert sheet["limbs"][1]["defensive"] == ["carapace"]
    assert sheet["limbs"][2]["muscles"] == "x"  # kept as typed: validation says why
    assert sheet["skills"] == ["coquet"] and sheet["xp"] == 3 and sheet["team"] == "Les Cornus"
    assert any(p.field == "limbs.2.muscles" for p in MUTATIOR.validate_sheet(sheet))
    assert MUTATIOR.sheet_from_form({}) == {"limbs": [], "skills": [], "team": "",
                                           "damage_order": "", "dead": False, "xp": 0,
                                           "fame": 0, "reserve_kg": 0, "fights": 0,
                                           "grafts": 0}


# — the table —

def example_match(faces=(), *, zetzet_sheet=None, content=None):
    """Grosbaf (Patom's, character 1) and Zetzet (Yetzar's, character 2) in a 60 cm arena."""
    setup = MatchSetup("Le choc", (
        ParticipantSetup("Grosbaf", 1, 10, sheet_of(grosbaf())),
        ParticipantSetup("Zetzet", 2, 11, zetzet_sheet or sheet_of(zetzet()))),
        {"content": content} if content else {})
    return fold(MUTATIOR, MUTATIOR.start(setup, ScriptedDice(faces)))


def play(state, actor, action, faces):
    dice = ScriptedDice(faces)
    events, state = apply(MUTATIOR, state, action, actor, dice)
    dice.assert_exhausted()
    assert fold(MUTATIOR, events, copy.deepcopy(state)) is not None
    return events, state


def limb(state, tid, name):
    return next(entry for entry in state["bodies"][tid]["limbs"] if entry["name"] == name)


def to_the_second_round(state):
    """Placement, the fight starts (beau temps), a first round to close in."""
    _, state = play(state, PATOM, {"kind": "move", "token": "m1", "x": 30, "y": 20}, [])
    _, state = play(state, YETZAR, {"kind": "move", "token": "m2", "x": 30, "y": 50}, [])
    # Weather 5 (beau temps); initiative Grosbaf 6 + 1 = 7, Zetzet 1 + 3 = 4.
    events, state = play(state, GM, {"kind": "start_fight", "uneven": True}, [5, 6, 1])
    assert [e.kind for e in events] == ["fight_started", "round_started", "turn_started"]
    assert state["weather"]["key"] == "beau_temps" and state["turn"] == "m1"
    _, state = play(state, PATOM, {"kind": "move", "token": "m1", "x": 30, "y": 32}, [])
    _, state = play(state, PATOM, {"kind": "end_turn", "token": "m1"}, [])
    _, state = play(state, YETZAR, {"kind": "move", "token": "m2", "x": 30, "y": 36}, [])
    # Everyone has played: round 2 starts by itself (§ 1-1), Grosbaf has the first
    # initiative again (5 + 1 against 2 + 3).
    events, state = play(state, YETZAR, {"kind": "end_turn", "token": "m2"}, [5, 2])
    assert [e.kind for e in events] == ["turn_ended", "round_started", "turn_started"]
    assert state["initiative"] == ["m1", "m2"] and state["turn"] == "m1"
    return state


def test_grosbaf_against_zetzet_through_the_table():
    state = to_the_second_round(example_match())
    # Grosbaf tries to impale Zetzet's torso: 7 + 1 (horn) + 3 = 11 against 6 + 2 = 8.
    events, state = play(state, PATOM, {"kind": "attack", "limb": "m1:tête",
                                        "target": "m2:torse"}, [3, 2])
    hit = events[0].payload
    assert (hit["attack"], hit["defence"], hit["damage"]) == (11, 8, 3)
    assert hit["rolls"][0]["modifiers"] == [{"value": 7, "label": "muscles"},
                                            {"value": 1, "label": "corne"}]
    assert limb(state, "m2", "torse")["lost_muscles"] == 3
    assert state["pending"]["kind"] == "second_attack" and state["pending"]["needs_pump"]
    # The head may not attack again, nor the torso be aimed at.
    forms = {f.kind: f for f in MUTATIOR.legal_actions(state, PATOM)}
    assert "m1:tête" not in forms["attack"].choices["limbs"]
    assert "m2:torse" not in forms["attack"].choices["targets"]
    assert "end_turn" not in forms and "decline" in forms
    # The claws' second attack: the pump roll 4 + 5 = 9 against a pump of 6 fails.
    events, state = play(state, PATOM, {"kind": "attack", "limb": "m1:bras gauche",
                                        "target": "m2:tête"}, [4, 5])
    # Grosbaf has attacked and nothing is left for him to do: his turn ends by itself.
    assert [e.kind for e in events] == ["follow_up_failed", "turn_ended", "turn_started"]
    assert events[0].payload["rolls"][0]["total"] == 9 and state["pending"] is None
    assert events[1].payload["auto"] == "nothing"
    assert state["turn"] == "m2"
    # Zetzet bites Grosbaf's leg: 5 + 4 = 9 against 6 + 3 = 9; both pump rolls succeed,
    # Zetzet's 2 is lower than Grosbaf's 4: Zetzet attacks again, without a pump roll.
    events, state = play(state, YETZAR, {"kind": "attack", "limb": "m2:tête",
                                         "target": "m1:jambe gauche"}, [4, 3, 1, 1, 1, 3])
    bite = events[0].payload
    assert (bite["attack"], bite["defence"], bite["winner"], bite["tie_winner"]) == (
        9, 9, None, "attacker")
    assert state["pending"] == {"kind": "second_attack", "by": "m2", "against": "m1",
                                "needs_pump": False, "not_with": "tête",
                                "not_at": "jambe gauche", "only_with": None, "only_at": None}
    # The tail on Grosbaf's head: 4 + 2 = 6 against 7 + 1 = 8: Grosbaf may counter on a pump
    # roll, with another limb than his head, on another limb than the tail.
    events, state = play(state, YETZAR, {"kind": "attack", "limb": "m2:queue",
                                         "target": "m1:tête"}, [2, 1])
    assert events[0].payload["winner"] == "defender"
    assert state["pending"]["kind"] == "counter" and state["pending"]["by"] == "m1"
    assert state["pending"]["needs_pump"]
    options = MUTATIOR.legal_actions(state, PATOM)
    attack = next(f for f in options if f.kind == "attack")
    assert "m1:tête" not in attack.choices["limbs"]
    assert "m2:queue" not in attack.choices["targets"]
    assert not [f for f in MUTATIOR.legal_actions(state, YETZAR) if f.kind == "attack"]


def test_a_re_roll_plays_the_last_action_again_and_is_spent():
    state = to_the_second_round(example_match())
    # Zetzet's team weighs 300 kg against 500: four free re-rolls (one per 50 kg).
    assert state["teams"]["owner-11"]["rerolls"] == 4
    _, state = play(state, PATOM, {"kind": "attack", "limb": "m1:tête",
                                   "target": "m2:torse"}, [3, 2])
    assert limb(state, "m2", "torse")["lost_muscles"] == 3
    assert [f.kind for f in MUTATIOR.legal_actions(state, YETZAR)].count("reroll") == 1
    assert not [f for f in MUTATIOR.legal_actions(state, PATOM) if f.kind == "reroll"]
    # Yetzar re-rolls: 1 + 8 = 9 against 6 + 6 = 12, the torso is whole again and Zetzet
    # may counter-attack.
    events, state = play(state, YETZAR, {"kind": "reroll", "team": "owner-11"}, [1, 6])
    assert [e.kind for e in events][:2] == ["rerolled", "attacked"]
    assert limb(state, "m2", "torse")["lost_muscles"] == 0
    assert state["teams"]["owner-11"]["rerolls"] == 3
    assert state["pending"]["kind"] == "counter" and state["pending"]["by"] == "m2"
    assert fold(MUTATIOR, events, copy.deepcopy(state)) is not None
    assert "before" not in MUTATIOR.view(state, PATOM)["last_roll"]
    # The events carry no copy of the state (players read them: secret bets stay secret).
    assert all("before" not in str(e.payload.get("reroll_point")) for e in events)
    # Any other action closes the window.
    _, state = play(state, YETZAR, {"kind": "decline"}, [])
    assert not [f for f in MUTATIOR.legal_actions(state, YETZAR) if f.kind == "reroll"]


def test_turn_skills_cerveau_mobile_and_instinct_vicieux():
    state = to_the_second_round(example_match())
    body = state["bodies"]["m1"]
    body["skills"] = ["cerveau_mobile", "instinct_vicieux"]
    forms = {f.kind: f for f in MUTATIOR.legal_actions(state, PATOM)}
    assert forms["use_skill"].choices["cerveau_mobile"] == {"sources": ["tête"],
                                                            "targets": ["tronc"]}
    _, state = play(state, PATOM, {"kind": "use_skill", "token": "m1",
                                   "skill": "cerveau_mobile", "source": "tête",
                                   "to": "tronc"}, [])
    assert limb(state, "m1", "tronc")["lobes"] == 1 and limb(state, "m1", "tête")["lobes"] == 0
    # Once per turn; Instinct vicieux: 2d6 = 2 is not under a brain of 1.
    with pytest.raises(IllegalAction):
        play(state, PATOM, {"kind": "use_skill", "token": "m1", "skill": "cerveau_mobile",
                            "source": "tronc", "to": "tête"}, [])
    events, state = play(state, PATOM, {"kind": "use_skill", "token": "m1",
                                        "skill": "instinct_vicieux", "limb": "m2:queue"},
                         [1, 1])
    assert events[0].visibility == "self" and events[0].payload["success"] is False


def test_coquet_hit_on_the_head_gets_angry_or_throws_in_the_sponge():
    state = to_the_second_round(example_match())
    state["bodies"]["m2"]["skills"] = ["coquet"]
    # Grosbaf's horn on Zetzet's head: 7 + 1 + 1 = 9 against 5 + 3 = 8, one damage; Coquet
    # rolls 2, neither a 6 nor above its 3 lobes: it gets angry.
    events, state = play(state, PATOM, {"kind": "attack", "limb": "m1:tête",
                                        "target": "m2:tête"}, [1, 3, 2])
    assert events[0].payload["coquet"] == "angry" and state["angry"] == ["m2"]
    # Letting the second attack go, Grosbaf has nothing left to do: Zetzet's turn.
    events, state = play(state, PATOM, {"kind": "decline"}, [])
    assert [e.kind for e in events] == ["follow_up_declined", "turn_ended", "turn_started"]
    # Angry, its pump rolls are harder: 4 + 4 = 8 would do on its pump of 8, but + 2 = 10.
    events, state = play(state, YETZAR, {"kind": "sprint", "token": "m2"}, [4, 4])
    assert events[0].payload["moves"] == 1
    assert events[0].payload["rolls"][0]["modifiers"] == [{
        "value": 2, "label": "coquet énervé",
        "label_message": {"id": "{skill}, angry", "params": {"skill": "coquet"}}}]


def test_coquet_throws_in_the_sponge_and_the_exchange_ends():
    state = to_the_second_round(example_match())
    state["bodies"]["m2"]["skills"] = ["coquet"]
    # 9 against 8 on the head; Coquet rolls a 6: the sponge; the mercy roll: Grosbaf 1 + 1,
    # Zetzet 4 + 2 (its head lost a muscle, its lobes are whole): it leaves unharmed.
    events, state = play(state, PATOM, {"kind": "attack", "limb": "m1:tête",
                                        "target": "m2:tête"}, [1, 3, 6, 1, 4])
    payload = events[0].payload
    assert payload["coquet"] == "sponge" and "coquet_gave" not in payload
    assert state["tokens"]["m2"]["status"] == "out" and state["sponged"] == ["m2"]
    # Zetzet was its team's only creature: the fight is decided (§ 3-2), no turn runs, and
    # the GM is offered to end it.
    assert [e.kind for e in events][-1] == "fight_decided"
    assert state["pending"] is None and state["turn"] is None
    assert MUTATIOR.outcome(state).winners == ("Grosbaf",)
    assert not [f for f in MUTATIOR.legal_actions(state, PATOM) if f.kind != "note"]


def test_a_frenzied_lobotomie_attacks_whatever_touches_it_friends_too():
    setup = MatchSetup("Frénésie", (
        ParticipantSetup("Grosbaf", 1, 10, sheet_of(grosbaf())),
        ParticipantSetup("Zetzet", 2, 10, sheet_of(zetzet())),
        ParticipantSetup("Nurglie", 3, 11, MUTATIOR.demo_characters()[1].sheet)))
    state = fold(MUTATIOR, MUTATIOR.start(setup, ScriptedDice([])))
    state["tokens"]["m1"].update(x=30, y=30)
    state["tokens"]["m2"].update(x=30, y=34)
    zet = state["bodies"]["m2"]
    zet["skills"] = ["lobotomie"]
    zet["frenzy"] = 3
    next(x for x in zet["limbs"] if x["name"] == "tête")["lost_lobes"] = 3
    state.update(phase="fight", turn="m2", activation={
        "token": "m2", "allowance": 16, "moved": 0, "sprinted": False, "acted": False})
    assert not table.mutant(state, "m2").dead  # alive on its frenzy
    limbs, targets = table.attack_options(state, "m2")
    assert limbs and {ref.partition(":")[0] for ref in targets} == {"m1"}  # its team mate


def test_a_dead_limb_cannot_attack_and_the_trunk_never_does():
    state = to_the_second_round(example_match())
    with pytest.raises(IllegalAction) as refusal:
        play(state, PATOM, {"kind": "attack", "limb": "m1:tronc", "target": "m2:torse"}, [])
    assert refusal.value.code == "trunk_never_attacks"
    with pytest.raises(IllegalAction) as refusal:
        play(state, YETZAR, {"kind": "attack", "limb": "m2:tête", "target": "m1:tronc"}, [])
    assert refusal.value.code == "not_your_turn"


def test_every_viewer_sees_each_team_against_the_weight_category():
    weights = MUTATIOR.view(example_match(), PATOM)["weights"]
    assert weights["owner-10"]["kg"] == 500 and weights["owner-10"]["limit"] == 2000
    # One mutant is not a team: 3 to 10 (§ 3 Campagne).
    assert [p["message"] for p in weights["owner-10"]["problems"]] == [
        "A team has %(low)s to %(high)s mutants."]
    # The GM starts the fight anyway: the warning is overruled and shown no more.
    fighting = to_the_second_round(example_match())
    assert MUTATIOR.view(fighting, PATOM)["weights"]["owner-10"]["problems"] == []


def test_the_gm_draws_walls_on_the_shared_board():
    state = example_match()
    _, state = play(state, GM, {"kind": "add_terrain", "label": "caisse", "x": 5, "y": 5,
                                "w": 4, "h": 3}, [])
    assert state["board"]["terrain"] == [{"id": "z1", "label": "caisse", "x": 5, "y": 5,
                                          "w": 4, "h": 3}]
    forms = {f.kind: f for f in MUTATIOR.legal_actions(state, GM)}
    assert forms["remove_terrain"].template == "board/_remove_terrain.html"
    with pytest.raises(IllegalAction):
        play(state, PATOM, {"kind": "add_terrain", "x": 1, "y": 1, "w": 1, "h": 1}, [])
    _, state = play(state, GM, {"kind": "remove_terrain", "terrain": "z1"}, [])
    assert state["board"]["terrain"] == []


def test_placement_keeps_enemies_30_cm_apart():
    state = example_match()
    with pytest.raises(IllegalAction) as refusal:
        play(state, PATOM, {"kind": "move", "token": "m1", "x": 30, "y": 40}, [])
    assert refusal.value.code == "too_close"


def test_placement_goes_in_turns_from_the_eldest_trainer():
    state = example_match()
    with pytest.raises(IllegalAction) as refusal:
        play(state, YETZAR, {"kind": "move", "token": "m2", "x": 30, "y": 50}, [])
    assert refusal.value.code == "not_your_placement"
    # The GM says Yetzar is the eldest: his team places first.
    _, state = play(state, GM, {"kind": "set_arena", "width": 60, "height": 60,
                                "category_t": 1, "first_team": "owner-11"}, [])
    assert [f.choices["tokens"] for f in MUTATIOR.legal_actions(state, YETZAR)
            if f.kind == "move"] == [["m2"]]
    assert not [f for f in MUTATIOR.legal_actions(state, PATOM) if f.kind == "move"]
    _, state = play(state, YETZAR, {"kind": "move", "token": "m2", "x": 30, "y": 50}, [])
    with pytest.raises(IllegalAction) as refusal:
        play(state, GM, {"kind": "move", "token": "m2", "x": 30, "y": 52}, [])
    assert refusal.value.code == "already_placed"
    _, state = play(state, PATOM, {"kind": "move", "token": "m1", "x": 30, "y": 10}, [])
    assert state["placed"] == ["m2", "m1"] and state["category_t"] == 1


def test_moving_is_limited_to_the_pump_and_leaving_a_melee_owes_attacks():
    state = to_the_second_round(example_match())
    with pytest.raises(IllegalAction) as refusal:
        play(state, PATOM, {"kind": "move", "token": "m1", "x": 30, "y": 10}, [])
    assert refusal.value.code == "too_far"
    # The refusal says both distances: the one asked for and the one left (issue 23).
    assert refusal.value.message_fr() == ("Grosbaf ne peut pas aller si loin : le déplacement "
                                          "demandé fait 22 cm, il lui reste 12 cm ce tour")
    # Grosbaf leaves the melee: Zetzet (2 appendages against 5) gets at least one attack.
    events, state = play(state, PATOM, {"kind": "move", "token": "m1", "x": 30, "y": 24}, [])
    assert events[0].payload["escape"][0]["count"] == 1
    forms = {f.kind: f for f in MUTATIOR.legal_actions(state, YETZAR)}
    assert forms["attack"].choices["mode"] == "free"


def test_a_sprint_is_a_pump_roll_and_a_natural_seven_opens_a_crowd_event():
    state = to_the_second_round(example_match())
    events, state = play(state, PATOM, {"kind": "sprint", "token": "m1"}, [3, 4])
    assert events[0].payload["moves"] == 1  # a natural 7 always fails
    assert state["crowd"]["chances"] == {"owner-11": 1}
    assert any(f.kind == "crowd_event" for f in MUTATIOR.legal_actions(state, YETZAR))
    # Projecteur (6): 2d6 = 8 succeeds; Grosbaf has −4 at his next initiative.
    events, state = play(state, YETZAR, {"kind": "crowd_event", "team": "owner-11",
                                         "event": "projecteur", "victim": "m1"}, [4, 4])
    assert events[0].payload["success"] and state["spotlight"] == ["m1"]
    assert state["crowd"]["chances"]["owner-11"] == 0


def test_a_team_that_failed_an_event_gets_one_more_on_the_dice_of_its_retry():
    state = to_the_second_round(example_match())
    # Grosbaf's natural 7 on a sprint: Yetzar's team may stir the crowd.
    _, state = play(state, PATOM, {"kind": "sprint", "token": "m1"}, [3, 4])
    events, state = play(state, YETZAR, {"kind": "crowd_event", "team": "owner-11",
                                         "event": "projecteur", "victim": "m1"}, [2, 3])
    assert not events[0].payload["success"]  # 5 against 6
    assert state["crowd"]["failures"] == {"owner-11": {"projecteur": 1}}
    # Next round, Grosbaf's sprint rolls another natural 7: a new chance.
    _, state = play(state, PATOM, {"kind": "end_turn", "token": "m1"}, [])
    _, state = play(state, YETZAR, {"kind": "end_turn", "token": "m2"}, [5, 2])
    _, state = play(state, PATOM, {"kind": "sprint", "token": "m1"}, [5, 2])
    form = next(f for f in MUTATIOR.legal_actions(state, YETZAR) if f.kind == "crowd_event")
    assert form.choices["retries"] == {"owner-11": {"projecteur": 1}}
    # The retry: 2 + 3 + 1 = 6 against 6, it works; Grosbaf will have −4.
    events, state = play(state, YETZAR, {"kind": "crowd_event", "team": "owner-11",
                                         "event": "projecteur", "victim": "m1"}, [2, 3])
    roll = events[0].payload["rolls"][0]
    assert events[0].payload["success"] and (roll["total"], roll["target"]) == (6, 6)
    assert state["spotlight"] == ["m1"]
    assert state["crowd"]["failures"] == {"owner-11": {"projecteur": 1}}  # a success adds none


def test_under_the_heat_every_pump_roll_is_one_harder():
    state = example_match()
    _, state = play(state, GM, {"kind": "start_fight", "uneven": True}, [6, 6, 1])
    assert state["weather"]["key"] == "canicule" and state["turn"] == "m1"
    # Grosbaf's pump is 6: 3 + 3 = 6 would do, + 1 in the heat is 7.
    events, state = play(state, PATOM, {"kind": "sprint", "token": "m1"}, [3, 3])
    assert events[0].payload["moves"] == 1
    assert events[0].payload["rolls"][0]["modifiers"] == [{"value": 1, "label": "canicule"}]


def test_under_the_rain_only_a_creature_over_400_kg_now_gets_bogged_down():
    state = example_match()
    # Pluie; Grosbaf (500 kg) 6 + 1 − 1 = 6, Zetzet (300 kg) 1 + 3 = 4.
    events, state = play(state, GM, {"kind": "start_fight", "uneven": True}, [3, 6, 1])
    rolls = next(e for e in events if e.kind == "round_started").payload["rolls"]
    assert [(r["total"], r["modifiers"][-1]["label"]) for r in rolls] == [
        (6, "pluie"), (4, "cerveau")]
    # Both legs torn off (12 muscles, 120 kg): Grosbaf weighs 380 kg now, his sheet 500.
    for leg in ("jambe gauche", "jambe droite"):
        _, state = play(state, GM, {"kind": "gm_correct", "limb": f"m1:{leg}",
                                    "organ": "muscles", "lost": 6}, [])
    _, state = play(state, PATOM, {"kind": "end_turn", "token": "m1"}, [])
    events, state = play(state, YETZAR, {"kind": "end_turn", "token": "m2"}, [6, 1])
    rolls = next(e for e in events if e.kind == "round_started").payload["rolls"]
    assert [r["total"] for r in rolls] == [7, 4]
    assert all(m["label"] != "pluie" for r in rolls for m in r["modifiers"])


def test_the_chicken_lands_far_from_the_creatures_and_walks_each_round():
    state = to_the_second_round(example_match())
    state["crowd"]["chances"]["owner-10"] = 1
    events, state = play(state, PATOM, {"kind": "crowd_event", "team": "owner-10",
                                        "event": "lancer_de_poulet"}, [3, 4])
    assert [e.kind for e in events] == ["crowd_attempt", "piece_added"]
    chicken = state["tokens"]["p1"]
    assert chicken["kind"] == "chicken" and "p1" in state["order"]
    _, state = play(state, PATOM, {"kind": "end_turn", "token": "m1"}, [])
    before = (state["tokens"]["p1"]["x"], state["tokens"]["p1"]["y"])
    # The last turn ends: the next round starts by itself, the chicken walks first.
    events, state = play(state, YETZAR, {"kind": "end_turn", "token": "m2"}, [3, 3, 5, 2])
    walked = next(e for e in events if e.kind == "piece_moved")
    assert walked.payload["walked"] == 6
    after = (state["tokens"]["p1"]["x"], state["tokens"]["p1"]["y"])
    assert round(((after[0] - before[0]) ** 2 + (after[1] - before[1]) ** 2) ** 0.5) == 6
    # It goes on from there, 12 cm a round, crosses the centre and walks back.
    radius, pos, signs = chicken["radius"], state["tokens"]["p1"]["pos"], []
    for _ in range(4):
        _, state = play(state, GM, {"kind": "end_turn"}, [])
        _, state = play(state, GM, {"kind": "end_turn"}, [6, 6, 5, 2])
        towards = 1 if pos < 0 else -1
        pos = max(-radius, min(radius, pos + towards * 12))
        assert state["tokens"]["p1"]["pos"] == pytest.approx(pos)
        signs.append(pos > 0)
    assert signs == [False, False, True, False]


def test_bets_settle_at_the_end_and_secret_bets_stay_secret():
    state = example_match()
    _, state = play(state, PATOM, {"kind": "place_bet", "bet": "victory", "stake": 20}, [])
    events, state = play(state, YETZAR, {"kind": "place_bet", "bet": "secret", "stake": 10,
                                         "mutant": "m2"}, [])
    assert events[0].visibility == "self"
    assert len(MUTATIOR.view(state, PATOM)["bets"]) == 1
    assert len(MUTATIOR.view(state, YETZAR)["bets"]) == 2
    _, state = play(state, GM, {"kind": "start_fight", "uneven": True}, [5, 6, 1])
    # Both survive: 2d6 each, the prizes (2d6 × 5 and 1d6 × 5 for each tied team), then
    # Grosbaf's Chouchou du public (1d6 × popularity).
    events, state = play(state, GM, {"kind": "end_fight", "winner": "owner-10"},
                         [1, 1, 2, 2, 3, 3, 4, 4, 5, 6, 2])
    results = state["results"]
    assert results["winner"] == "owner-10"
    nets = {bet["id"]: bet["net"] for bet in results["bets"]}
    assert nets == {1: 20, 2: 10}  # victory won; secret: 10 // popularity 1
    assert state["status"] == "finished" and MUTATIOR.legal_actions(state, GM) == []


def test_between_matches_writes_wounds_xp_and_biomass_to_valid_sheets():
    state = to_the_second_round(example_match())
    _, state = play(state, PATOM, {"kind": "attack", "limb": "m1:tête",
                                   "target": "m2:torse"}, [3, 2])
    _, state = play(state, PATOM, {"kind": "decline"}, [])
    # 2d6 per survivor, the éclopé (Zetzet's team), the tafiotte (Grosbaf's), Chouchou.
    _, state = play(state, GM, {"kind": "end_fight", "winner": "owner-10"},
                    [1, 1, 2, 2, 3, 3, 4, 5])
    sheets = {1: sheet_of(grosbaf()), 2: sheet_of(zetzet())}
    changed = MUTATIOR.between_matches(state, sheets)
    assert set(changed) == {1, 2}
    for sheet in changed.values():
        assert MUTATIOR.validate_sheet(sheet) == []
    assert next(x for x in changed[2]["limbs"] if x["name"] == "torse")["lost_muscles"] == 3
    assert changed[1]["xp"] == 1 and changed[2]["xp"] == 1
    assert changed[1]["reserve_kg"] > 0
    assert changed[1]["fights"] == changed[2]["fights"] == 1
    # From now on Zetzet's trainer is judged: his torse heals only if the reserve pays 30 kg.
    back = changed[2]
    healed = copy.deepcopy(back)
    next(x for x in healed["limbs"] if x["name"] == "torse")["lost_muscles"] = 0
    assert MUTATIOR.validate_change(back, back) == []
    assert [p.field for p in MUTATIOR.validate_change(back, healed)] == ["reserve_kg"]
    assert back["reserve_kg"] >= 30
    assert MUTATIOR.validate_change(back, {**healed, "reserve_kg": back["reserve_kg"] - 30}) == []


def test_a_kill_gives_the_killers_the_limb_they_choose():
    state = to_the_second_round(example_match())
    for organ, lost in (("muscles", 6), ("biomoteurs", 3)):
        _, state = play(state, GM, {"kind": "gm_correct", "limb": "m2:torse", "organ": organ,
                                    "lost": lost}, [])
    # 11 against 8: three damage in a torso with one organ left: the trunk is empty.
    events, state = play(state, PATOM, {"kind": "attack", "limb": "m1:tête",
                                        "target": "m2:torse"}, [3, 2])
    assert events[0].payload["report"]["killed"]
    assert state["killed_by"] == {"m2": "owner-10"} and state["pending"] is None
    end = next(f for f in MUTATIOR.legal_actions(state, GM) if f.kind == "end_fight")
    assert end.choices["spoils"] == {"m2": ["queue", "tête"]}  # heaviest first
    # 2d6 for Grosbaf, both prizes to his team, Chouchou du public.
    _, state = play(state, GM, {"kind": "end_fight", "spoil_m2": "tête"}, [1, 1, 2, 2, 3, 4])
    assert state["results"]["winner"] == "owner-10"  # the only team standing
    spoils = [g for g in state["gains"] if g.get("params", {}).get("limb")]
    assert [(g["team"], g["params"]["limb"], g["kg"]) for g in spoils] == [
        ("owner-10", "tête", 80)]
    remains = next(g for g in state["gains"] if g["why"] == "The remains of %(mutant)s.")
    assert (remains["team"], remains["kg"]) == ("owner-11", 100)  # the tail's 4 + 4 organs
    changed = MUTATIOR.between_matches(state, {1: sheet_of(grosbaf()), 2: sheet_of(zetzet())})
    assert changed[2]["dead"] and MUTATIOR.validate_sheet(changed[2]) == []


CREST = {"special_organ": [{"key": "gm-crete", "name": "Crête", "weight_kg": 30,
                            "source": "gm"}]}


def test_the_campaigns_own_implants_weigh_in_every_part_of_the_table():
    """The campaign's content is handed to the rules with the match, not found in the air:
    the form the GM reads and the end the table settles weigh a limb alike."""
    sheet = sheet_of(zetzet())
    next(x for x in sheet["limbs"] if x["name"] == "tête")["special"] = "gm-crete"
    state = to_the_second_round(example_match(zetzet_sheet=sheet, content=CREST))
    for organ, lost in (("muscles", 6), ("biomoteurs", 3)):
        _, state = play(state, GM, {"kind": "gm_correct", "limb": "m2:torse", "organ": organ,
                                    "lost": lost}, [])
    _, state = play(state, PATOM, {"kind": "attack", "limb": "m1:tête",
                                   "target": "m2:torse"}, [3, 2])
    # The head weighs 5 muscles + 3 lobes + the GM's 30 kg crest = 110 kg, the tail 100 kg.
    end = next(f for f in MUTATIOR.legal_actions(state, GM) if f.kind == "end_fight")
    assert end.choices["spoils"] == {"m2": ["tête", "queue"]}
    _, state = play(state, GM, {"kind": "end_fight"}, [1, 1, 2, 2, 3, 4])
    spoils = [g for g in state["gains"] if g.get("params", {}).get("limb")]
    assert [(g["params"]["limb"], g["kg"]) for g in spoils] == [("tête", 110)]
    assert MUTATIOR.view(state, GM)["weights"]["owner-11"]["kg"] == 300 + 30


def test_the_catalogue_is_an_argument_of_the_rules_core():
    from app.rules.mutatior.combat import apply_damage
    from app.rules.mutatior.content import catalogue

    content = {"defensive_implant": [{"key": "gm-cuir", "name": "Cuir", "armour": 2,
                                      "weight_kg": 5, "source": "gm"}]}
    sheet = sheet_of(zetzet())
    sheet["limbs"][0]["defensive"] = ["gm-cuir"]
    plain, campaigns = mutant_of(sheet), mutant_of(sheet, catalogue=catalogue(content))
    assert (plain.biomass, campaigns.biomass) == (300, 305)
    assert [p.field for p in MUTATIOR.validate_sheet(sheet)] == ["limbs.0.defensive"]
    assert MUTATIOR.validate_sheet(sheet, content) == []
    _, report = apply_damage(campaigns, "torse", 3)
    assert (report.armour, report.lost["muscles"]) == (2, 1)
    _, report = apply_damage(plain, "torse", 3)
    assert (report.armour, report.lost["muscles"]) == (0, 3)
    assert MUTATIOR.implant_names(content)["gm-cuir"] == "Cuir"
    assert "gm-cuir" not in MUTATIOR.implant_names()
    assert ("gm-cuir", "Cuir") in MUTATIOR.catalogue(content)["implants"]["defensive"]


def test_owners_choose_the_damage_order_when_the_gm_allows_it():
    sheet = sheet_of(zetzet(), damage_order="biomoteurs,muscles,lobes")
    assert MUTATIOR.validate_sheet(sheet) == []
    assert [p.field for p in MUTATIOR.validate_sheet({**sheet, "damage_order": "x"})] == [
        "damage_order"]
    for allowed, lost in ((False, (3, 0)), (True, (0, 3))):
        setup = MatchSetup("Le choc", (
            ParticipantSetup("Grosbaf", 1, 10, sheet_of(grosbaf())),
            ParticipantSetup("Zetzet", 2, 11, sheet)))
        state = fold(MUTATIOR, MUTATIOR.start(setup, ScriptedDice([])))
        _, state = play(state, GM, {"kind": "set_arena", "width": 60, "height": 60,
                                    "owners_choose": "1" if allowed else ""}, [])
        state = to_the_second_round(state)
        _, state = play(state, PATOM, {"kind": "attack", "limb": "m1:tête",
                                       "target": "m2:torse"}, [3, 2])
        torse = limb(state, "m2", "torse")
        assert (torse["lost_muscles"], torse["lost_biomoteurs"]) == lost


@pytest.mark.parametrize("action", [
    {"kind": "remove_terrain", "terrain": ["z1"]},
    {"kind": "gm_correct", "limb": ["m2:torse"], "organ": "muscles", "lost": 1},
    {"kind": "attack", "limb": {"m1": "tête"}, "target": "m2:torse"},
    {"kind": "place_bet", "bet": ["victory"], "stake": 5},
    {"kind": "crowd_event", "team": "owner-10", "event": {}},
])
def test_malformed_actions_are_refused_not_crashed(action):
    state = to_the_second_round(example_match())
    with pytest.raises(IllegalAction):
        MUTATIOR.decide(state, action, GM, ScriptedDice([]))


def test_gm_modifier_and_correction_are_events():
    state = to_the_second_round(example_match())
    _, state = play(state, GM, {"kind": "gm_modifier", "token": "m1", "value": 2,
                                "reason": "en hauteur"}, [])
    events, state = play(state, PATOM, {"kind": "attack", "limb": "m1:tête",
                                        "target": "m2:torse"}, [3, 2])
    assert {"value": 2, "label": "en hauteur"} in events[0].payload["rolls"][0]["modifiers"]
    assert state["modifiers"] == {}
    events, state = play(state, GM, {"kind": "gm_correct", "limb": "m2:torse",
                                     "organ": "muscles", "lost": 1, "reason": "erreur"}, [])
    assert events[0].payload["before"] == 5 and limb(state, "m2", "torse")["lost_muscles"] == 1
    with pytest.raises(IllegalAction):
        play(state, PATOM, {"kind": "gm_correct", "limb": "m2:torse", "organ": "muscles",
                            "lost": 0}, [])


# — invariants —

def _random_fight(seed: int, steps: int):
    state = example_match()
    dice = SeededDice(seed)
    _, state = apply(MUTATIOR, state, {"kind": "start_fight", "uneven": True}, GM, dice)
    seen = [copy.deepcopy(state)]
    for _ in range(steps):
        forms = {f.kind: f for f in MUTATIOR.legal_actions(state, GM)}
        if "attack" in forms:
            form = forms["attack"]
            pick = dice.roll(len(form.choices["targets"]))[0] - 1
            action = {"kind": "attack", "limb": form.choices["limbs"][0],
                      "target": form.choices["targets"][pick]}
        elif "crowd_event" in forms:
            action = {"kind": "pass_crowd", "team": forms["crowd_event"].choices["teams"][0]}
        elif "move" in forms and state["activation"]["moved"] == 0:
            tid = state["turn"]
            other = next(t for t in table.fighters(state) if t != tid) \
                if len(table.fighters(state)) > 1 else tid
            me, them = state["tokens"][tid], state["tokens"][other]
            dx, dy = them["x"] - me["x"], them["y"] - me["y"]
            far = (dx * dx + dy * dy) ** 0.5 or 1
            go = max(0.0, min(state["activation"]["allowance"] - 0.5, far - 3))
            action = {"kind": "move", "token": tid, "x": round(me["x"] + dx / far * go),
                      "y": round(me["y"] + dy / far * go)}
        elif "decline" in forms:
            action = {"kind": "decline"}
        elif "end_turn" in forms:
            action = {"kind": "end_turn"}
        elif "new_round" in forms:
            action = {"kind": "new_round"}
        else:
            break
        acting = state.get("turn")
        _events, state = apply(MUTATIOR, state, action, GM, dice)
        if acting is not None and action["kind"] in ("attack", "move") and \
                action.get("limb", acting + ":").startswith(acting + ":"):
            assert not table.mutant(seen[-1], acting).dead  # a dead mutant never acts
        seen.append(copy.deepcopy(state))
    return seen


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000))
def test_no_negative_counter_and_the_dead_never_act(seed):
    for state in _random_fight(seed, 40):
        for tid, body in state["bodies"].items():
            for entry in body["limbs"]:
                for organ in ("muscles", "biomoteurs", "lobes"):
                    assert 0 <= entry[f"lost_{organ}"] <= entry[organ]
        assert all(n >= 0 for n in state["crowd"]["chances"].values())
        assert all(team["rerolls"] >= 0 for team in state["teams"].values())
        if state.get("activation"):
            assert 0 <= state["activation"]["moved"] <= state["activation"]["allowance"] + 0.5
        if state["turn"] is not None:
            assert not table.mutant(state, state["turn"]).dead
        for form in MUTATIOR.legal_actions(state, GM):
            if form.kind == "attack":
                assert not table.mutant(state, form.choices["token"]).dead
        assert fold(MUTATIOR, [], state) == state


def _demo_match():
    parts = tuple(ParticipantSetup(c.name, index + 1, 10 + c.player, c.sheet)
                  for index, c in enumerate(MUTATIOR.demo_characters()))
    events = MUTATIOR.start(MatchSetup("Démo", parts), ScriptedDice([]))
    return events, fold(MUTATIOR, events)


def _random_action(state, forms, dice):
    """Any form the GM is offered, filled with random legal-looking choices."""
    def pick(options):
        return options[dice.roll(len(options))[0] - 1]
    attack = [f for f in forms if f.kind == "attack"]
    rare = {"sponge", "gm_modifier"}
    if attack and dice.roll(6)[0] > 1:  # fights are mostly blows
        form = attack[0]
    else:
        usual = [f for f in forms if f.kind not in rare]
        form = pick(forms if not usual or dice.roll(20)[0] == 1 else usual)
    c, kind = form.choices, form.kind
    action = {"kind": kind}
    if kind in ("attack", "shoot"):
        action.update(limb=pick(c["limbs"]), target=pick(c["targets"]))
        if c.get("surge"):
            action["surge"] = pick(["1", ""])
    elif kind == "move":
        tid = pick(c["tokens"])
        me = state["tokens"][tid]
        others = [t for t in table.fighters(state)
                  if t != tid and state["tokens"][t]["team"] != me["team"]] or [tid]
        them = state["tokens"][min(others, key=lambda t: (state["tokens"][t]["x"] - me["x"]) ** 2
                                   + (state["tokens"][t]["y"] - me["y"]) ** 2)]
        left = c.get("left", 5)
        dx, dy = them["x"] - me["x"], them["y"] - me["y"]
        far = (dx * dx + dy * dy) ** 0.5 or 1
        go = max(0.0, min(float(left) - 0.5, far - 3))
        action.update(token=tid, x=max(0, round(me["x"] + dx / far * go)),
                      y=max(0, round(me["y"] + dy / far * go)))
    elif kind == "sprint":
        action.update(token=c["token"], third=pick(["1", ""]))
    elif kind == "crowd_event":
        action.update(team=pick(c["teams"]), event=pick(c["events"]),
                      victim=pick(c["mutants"] + c["withdrawn"] + c["feats"]
                                  + c["victim_teams"] + [""]))
    elif kind in ("pass_crowd", "reroll"):
        action["team"] = pick(c["teams"])
    elif kind in ("sponge",):
        action["token"] = pick(c["tokens"])
    elif kind in ("skip_free_attacks", "end_turn"):
        action["token"] = c["token"]
    elif kind == "use_skill":
        skill = pick([key for key in table.TURN_SKILLS if key in c])
        action.update(token=c["token"], skill=skill)
        if skill == "cerveau_mobile":
            action.update(source=pick(c[skill]["sources"]), to=pick(c[skill]["targets"]))
        elif skill == "charognard":
            action["corpse"] = pick(c[skill]["corpses"])
        else:
            action["limb"] = pick(c[skill]["limbs"])
    elif kind == "gm_modifier":
        action.update(token=pick(c["tokens"]), value=pick([-2, 1, 3]), reason="test")
    return action


FIGHT_KINDS = {"attack", "shoot", "move", "sprint", "crowd_event", "pass_crowd", "reroll",
               "sponge", "skip_free_attacks", "end_turn", "use_skill", "decline", "new_round",
               "gm_modifier"}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 100_000))
def test_random_demo_fights_keep_every_invariant_and_fold_from_the_log(seed):
    events, state = _demo_match()
    dice = SeededDice(seed)
    # The demo teams keep the team rules: their fight starts without the trainers' consent.
    new, state = apply(MUTATIOR, state, {"kind": "start_fight"}, GM, dice)
    events += new
    for _ in range(120):
        forms = [f for f in MUTATIOR.legal_actions(state, GM) if f.kind in FIGHT_KINDS]
        if dice.roll(6)[0] == 1:  # now and then, the usual flow first
            forms = [f for f in forms if f.kind in ("end_turn", "new_round")] or forms
        if not forms:
            break
        action = _random_action(state, forms, dice)
        before = copy.deepcopy(state)
        try:
            new, state = apply(MUTATIOR, state, action, GM, dice)
        except IllegalAction:
            assert state == before  # a refusal changes nothing
            continue
        events += new
        for tid, body in state["bodies"].items():
            for entry in body["limbs"]:
                for organ in ("muscles", "biomoteurs", "lobes"):
                    assert 0 <= entry[f"lost_{organ}"] <= entry[organ]
        if state["turn"] is not None:
            assert table._alive(state, state["turn"])
        if action["kind"] in ("attack", "shoot"):
            attacker = action["limb"].partition(":")[0]
            assert not table.mutant(before, attacker).dead
    new, state = apply(MUTATIOR, state, {"kind": "end_fight", "both_stop": "1"}, GM, dice)
    events += new
    assert fold(MUTATIOR, events) == state  # the log is the truth
    sheets = {c.character_id: c.sheet for c in
              (ParticipantSetup(d.name, i + 1, None, d.sheet)
               for i, d in enumerate(MUTATIOR.demo_characters()))}
    for sheet in MUTATIOR.between_matches(state, sheets).values():
        assert MUTATIOR.validate_sheet(sheet) == []


# — between fights: how a player may change a saved mutant (§ 3-2 Fin du carnage) —

def _wounded(**extra) -> dict:
    """Grosbaf back from a fight: 3 muscles and a biomoteur lost in the trunk, 2 muscles in the
    left leg, the right leg dead; 100 kg in reserve."""
    sheet = sheet_of(grosbaf(), reserve_kg=100, fights=1, **extra)
    limbs = {limb["name"]: limb for limb in sheet["limbs"]}
    limbs["tronc"].update(lost_muscles=3, lost_biomoteurs=1)
    limbs["jambe gauche"]["lost_muscles"] = 2
    limbs["jambe droite"]["lost_muscles"] = 6
    return sheet


def _limb(sheet: dict, name: str) -> dict:
    return next(limb for limb in sheet["limbs"] if limb["name"] == name)


def _rules(problems) -> list[tuple[str, str]]:
    return [(p.field, p.rule.split("§ ")[1]) for p in problems]


def test_a_change_the_rules_allow_passes_and_the_team_name_is_free():
    before = _wounded()
    assert MUTATIOR.validate_sheet(before) == []
    after = {**copy.deepcopy(before), "team": "Les cornus",
             "damage_order": "lobes,muscles,biomoteurs"}
    assert MUTATIOR.validate_change(before, after) == []


def test_healing_is_paid_from_the_reserve_at_the_organs_weights():
    """§ 3-2 Soins: the same price as campaign.heal (3 muscles + 1 biomoteur = 45 kg)."""
    before = _wounded()
    _, cost = campaign.heal(mutant_of(before), "tronc")
    assert cost == 3 * 10 + 15
    after = copy.deepcopy(before)
    _limb(after, "tronc").update(lost_muscles=0, lost_biomoteurs=0)
    assert MUTATIOR.validate_change(before, {**after, "reserve_kg": 100 - cost}) == []
    unpaid = MUTATIOR.validate_change(before, after)
    assert _rules(unpaid) == [("reserve_kg", "3-2 Fin du carnage / Gain de biomasse")]
    assert unpaid[0].params == {"cost": 45, "reserve": 55}
    poor = MUTATIOR.validate_change({**before, "reserve_kg": 40}, {**after, "reserve_kg": 0})
    assert _rules(poor) == [("reserve_kg", "3-2 Fin du carnage / Soins")]
    assert poor[0].params == {"cost": 45, "reserve": 40}


def test_wounds_and_biomass_are_not_added_by_the_player():
    before = _wounded()
    hurt = copy.deepcopy(before)
    _limb(hurt, "bras droit")["lost_muscles"] = 1
    assert _rules(MUTATIOR.validate_change(before, hurt)) == [
        ("limbs.3.lost_muscles", "3-2 Fin du carnage / Soins")]
    richer = {**copy.deepcopy(before), "reserve_kg": 150}
    assert [p.field for p in MUTATIOR.validate_change(before, richer)] == ["reserve_kg"]


def test_muscles_never_move_but_lobes_and_biomoteurs_do():
    before = _wounded()
    moved = copy.deepcopy(before)
    _limb(moved, "bras gauche")["muscles"] = 5
    _limb(moved, "bras droit")["muscles"] = 7
    assert [p.field for p in MUTATIOR.validate_change(before, moved)] == [
        "limbs.2.muscles", "limbs.3.muscles"]
    brain = copy.deepcopy(before)
    _limb(brain, "tête")["lobes"] = 0
    _limb(brain, "bras droit")["lobes"] = 1
    assert MUTATIOR.validate_sheet(brain) == []
    assert MUTATIOR.validate_change(before, brain) == []
    pump = copy.deepcopy(before)  # 5 living biomoteurs of the trunk, 2 go to the arm
    _limb(pump, "tronc").update(biomoteurs=4, lost_biomoteurs=1)
    _limb(pump, "bras gauche")["biomoteurs"] = 2
    assert MUTATIOR.validate_sheet(pump) == []
    assert MUTATIOR.validate_change(before, pump) == []


def test_organs_are_not_bought_for_a_living_limb_nor_thrown_away():
    before = _wounded()
    more = copy.deepcopy(before)
    _limb(more, "bras droit")["biomoteurs"] = 1
    problems = MUTATIOR.validate_change(before, more)
    assert [(p.field, p.params.get("n")) for p in problems] == [("biomoteurs", 1)]
    less = copy.deepcopy(before)
    _limb(less, "tronc").update(biomoteurs=5, lost_biomoteurs=1)
    assert [(p.field, p.params["n"]) for p in MUTATIOR.validate_change(before, less)] == [
        ("biomoteurs", 1)]


def test_a_dead_limb_is_replaced_at_its_full_weight_a_living_one_keeps_its_implants():
    before = _wounded()
    new_leg = {**_limb(before, "jambe droite"), "lost_muscles": 0, "muscles": 5,
               "defensive": ["carapace"]}
    _, cost = campaign.replace_dead_limb(mutant_of(before), "jambe droite",
                                         limb_of(new_leg))
    assert cost == 5 * 10 + 15
    after = copy.deepcopy(before)
    after["limbs"][5] = new_leg
    assert MUTATIOR.validate_change(before, {**after, "reserve_kg": 100 - cost}) == []
    half = copy.deepcopy(before)
    _limb(half, "jambe droite")["lost_muscles"] = 3
    assert [p.field for p in MUTATIOR.validate_change(before, {**half, "reserve_kg": 40})] == [
        "limbs.5"]
    clawed = copy.deepcopy(before)
    _limb(clawed, "bras droit")["offensive"] = "griffes"
    assert _rules(MUTATIOR.validate_change(before, clawed)) == [
        ("limbs.3", "3-2 Fin du carnage / Soins")]
    gone = copy.deepcopy(before)
    del gone["limbs"][3]
    assert [p.params for p in MUTATIOR.validate_change(before, gone)] == [{"limb": "bras droit"}]
    renamed = copy.deepcopy(before)
    _limb(renamed, "bras droit")["name"] = "bras griffu"
    assert MUTATIOR.validate_change(before, renamed) == []


def test_a_new_limb_only_with_greffon_one_at_a_time_and_paid():
    tail = {"name": "queue", "trunk": False, "tentacle": False, "muscles": 3, "biomoteurs": 0,
            "lobes": 0, "lost_muscles": 0, "lost_biomoteurs": 0, "lost_lobes": 0,
            "offensive": "gm-dard", "defensive": [], "special": ""}
    content = {"offensive_implant": [{"key": "gm-dard", "name": "Dard", "attack": 2,
                                      "weight_kg": 12, "source": "gm"}]}
    before = _wounded()
    grafted = {**copy.deepcopy(before), "limbs": [*before["limbs"], tail], "reserve_kg": 58,
               "grafts": 1}
    assert MUTATIOR.validate_sheet(grafted, content) == []
    assert _rules(MUTATIOR.validate_change(before, grafted, content)) == [
        ("limbs", "3-2 Fin du carnage / Soins")]
    greffon = {**before, "skills": ["chouchou_du_public", "greffon"]}
    grafted["skills"] = greffon["skills"]
    assert MUTATIOR.validate_change(greffon, grafted, content) == []  # 3 muscles + 12 kg
    uncounted = MUTATIOR.validate_change(greffon, {**grafted, "grafts": 0}, content)
    assert [(p.field, p.params) for p in uncounted] == [("grafts", {"n": 0, "expected": 1})]
    again = {**grafted, "reserve_kg": 16, "grafts": 2,
             "limbs": [*grafted["limbs"], {**tail, "name": "queue 2"}]}
    assert _rules(MUTATIOR.validate_change(grafted, again, content)) == [
        ("limbs", "2-3 Compétences / Greffon")]
    assert MUTATIOR.validate_change({**grafted, "fights": 2}, {**again, "fights": 2},
                                    content) == []


def test_a_new_skill_costs_six_xp_and_skills_and_popularity_stay():
    before = _wounded(xp=7)
    learnt = {**copy.deepcopy(before), "skills": ["chouchou_du_public", "greffon"], "xp": 1}
    assert MUTATIOR.validate_change(before, learnt) == []
    assert [p.field for p in MUTATIOR.validate_change(before, {**learnt, "xp": 7})] == ["xp"]
    poor = {**before, "xp": 5}
    assert _rules(MUTATIOR.validate_change(poor, {**learnt, "xp": 0})) == [
        ("skills", "3-2 Fin du carnage / expérience")]
    assert [p.field for p in MUTATIOR.validate_change(before, {**before, "xp": 9})] == ["xp"]
    swapped = {**before, "skills": ["greffon"], "xp": 1}
    assert [p.field for p in MUTATIOR.validate_change(before, swapped)] == ["skills"]
    assert [p.field for p in MUTATIOR.validate_change(before, {**before, "fame": 2})] == ["fame"]


def test_recycling_gives_back_the_remaining_biomass_and_the_dead_stay_dead():
    before = _wounded()
    worth = campaign.recycle(mutant_of(before))
    assert worth == mutant_of(before).biomass - 5 * 10 - 15 - 6 * 10
    recycled = {**copy.deepcopy(before), "dead": True, "reserve_kg": 100 + worth}
    assert MUTATIOR.validate_change(before, recycled) == []
    cheat = {**recycled, "reserve_kg": 100 + worth + 1}
    assert _rules(MUTATIOR.validate_change(before, cheat)) == [
        ("dead", "3-2 Fin du carnage / Soins")]
    raised = {**copy.deepcopy(recycled), "dead": False, "reserve_kg": 100 + worth}
    assert _rules(MUTATIOR.validate_change(recycled, raised)) == [
        ("dead", "3-2 Fin du carnage / Gain de biomasse")]
    assert MUTATIOR.validate_change(recycled, {**recycled, "team": "Morts"}) == []


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 6)), min_size=6, max_size=6),
       st.integers(0, 400))
def test_healing_everything_at_the_campaign_price_always_passes(wounds, reserve):
    """Whatever the wounds of a living mutant, healing every limb and paying campaign.heal's
    price passes when the reserve holds it, and is refused (on the reserve) when it does not."""
    before = sheet_of(grosbaf(), reserve_kg=reserve, fights=2)
    for limb, (muscles, biomoteurs) in zip(before["limbs"], wounds, strict=True):
        limb.update(lost_muscles=min(muscles, limb["muscles"] - 1),
                    lost_biomoteurs=min(biomoteurs, max(0, limb["biomoteurs"] - 1)))
    mutant, cost = mutant_of(before), 0
    for limb in mutant.limbs:
        mutant, price = campaign.heal(mutant, limb.name)
        cost += price
    after = {**before, "limbs": [{**limb, "lost_muscles": 0, "lost_biomoteurs": 0,
                                  "lost_lobes": 0} for limb in before["limbs"]],
             "reserve_kg": max(0, reserve - cost)}
    problems = MUTATIOR.validate_change(before, after)
    assert problems == [] if cost <= reserve else [p.field for p in problems] == ["reserve_kg"]


def test_before_its_first_fight_a_mutant_is_built_freely_but_gains_come_from_fights():
    """§ 2- Genèse des mutants: until it has fought (``fights`` = 0) the trainer reshapes it at
    will; XP, popularity, fights and biomass still come from the table (or the GM)."""
    before = MUTATIOR.new_sheet()
    rebuilt = copy.deepcopy(before)
    rebuilt["limbs"][2]["muscles"] = 6
    rebuilt["limbs"][3]["muscles"] = 2
    rebuilt["skills"] = ["gros_tas"]
    assert MUTATIOR.validate_change(before, rebuilt) == []
    cheat = {**rebuilt, "xp": 6, "reserve_kg": 50, "fights": 1, "fame": 1}
    assert sorted(p.field for p in MUTATIOR.validate_change(before, cheat)) == [
        "fame", "fights", "reserve_kg", "xp"]
    fought = {**_wounded(), "fights": 3}
    assert [p.field for p in MUTATIOR.validate_change(fought, {**fought, "fights": 0})] == [
        "fights"]


FIELDS = ("muscles", "biomoteurs", "lobes", "lost_muscles", "lost_biomoteurs", "lost_lobes")


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.sampled_from(FIELDS), st.integers(-2, 2)),
                max_size=4), st.sampled_from([0, 0, 0, -10, -1, 1, 15]))
def test_no_save_a_player_makes_creates_living_biomass_for_free(edits, slack):
    """Whatever a player types, a save that passes never gives the mutant more living biomass
    than the reserve paid (moves are free, care is paid, nothing is conjured)."""
    before = _wounded()
    after = copy.deepcopy(before)
    for index, key, delta in edits:
        limb = after["limbs"][index]
        limb[key] = max(0, limb[key] + delta)
    gained = mutant_of(after).live_biomass - mutant_of(before).live_biomass
    after["reserve_kg"] = max(0, before["reserve_kg"] - gained + slack)
    if MUTATIOR.validate_sheet(after) or MUTATIOR.validate_change(before, after):
        return
    assert gained <= before["reserve_kg"] - after["reserve_kg"]
    assert all(new["muscles"] == old["muscles"]
               for old, new in zip(before["limbs"], after["limbs"], strict=True))


def test_the_rules_keep_no_hidden_context():
    """The rules are pure functions of their arguments: no module of the rules package reads
    a context variable (a campaign's content travels as an argument)."""
    import ast
    from pathlib import Path

    import app.rules

    found = []
    for path in Path(app.rules.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [alias.name for alias in node.names] if isinstance(
                node, ast.Import | ast.ImportFrom) else []
            module = node.module if isinstance(node, ast.ImportFrom) else None
            if "contextvars" in (module, *names):
                found.append(path.name)
    assert found == []
