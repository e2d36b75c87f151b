"""Cyborg Anti-Alien as a GameSystem: the sheet, its form, and the table's decide/evolve with
scripted dice (the seed's armoured door and a laboratory fight), plus invariants."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.rules.cyborg.match_actions import ACTIONS
from app.rules.cyborg.profiles import PROFILES
from app.rules.cyborg.sheet import validate
from app.rules.dice import ScriptedDice, SeededDice
from app.rules.match import Actor, IllegalAction, MatchSetup, ParticipantSetup, apply, fold
from app.rules.registry import get_system
from app.rules.system import GameSystem

CYBORG = get_system("cyborg")
GM = Actor(1, is_gm=True)
ALICE = Actor(7, character_ids=frozenset({10}))


def door_cyborg() -> dict:
    """Kenji with the seed's force 13 (Cyborg § (I): the armoured door)."""
    sheet = copy.deepcopy(PROFILES["kenji"].sheet)
    sheet["characteristics"]["force"] = 13
    return sheet


def lab(*extra: ParticipantSetup) -> dict:
    setup = MatchSetup("Laboratoire", (
        ParticipantSetup("Kenji", 10, 7, door_cyborg()),
        ParticipantSetup("Pieuvre", 11, None, PROFILES["pieuvre"].sheet), *extra))
    return fold(CYBORG, CYBORG.start(setup, ScriptedDice([])))


def act(state: dict, action: dict, faces=(), actor: Actor = GM) -> tuple[list, dict]:
    dice = ScriptedDice(faces)
    events, after = apply(CYBORG, state, action, actor, dice)
    dice.assert_exhausted()
    assert fold(CYBORG, events, state) == after
    return events, after


def next_to(state: dict, mover: str, other: str = "t1") -> dict:
    """The GM moves ``mover`` onto the square beside ``other``: in reach of a melee blow."""
    there = state["tokens"][other]
    _, state = act(state, {"kind": "move", "token": mover, "x": there["x"] + 1,
                           "y": there["y"]})
    return state


class TestSystem:
    def test_it_is_registered_with_its_seed(self) -> None:
        assert isinstance(CYBORG, GameSystem)
        assert (CYBORG.key, CYBORG.name_fr, CYBORG.seed_file, CYBORG.uses_board) == (
            "cyborg", "Cyborg Anti-Alien", "001_616c5a18be6336a5.txt", True)
        assert {kind.key for kind in CYBORG.content_kinds} == {
            "weapon_ranged", "weapon_melee", "vehicle_ground", "vehicle_air"}

    def test_roll_sheet_rolls_what_the_text_rolls(self) -> None:
        chosen = {**CYBORG.new_sheet(), "custom_skill": {
            "name": "Jonglage", "formula": ["dexterite", "dexterite", "rapidite"]},
            "characteristics": dict.fromkeys(CYBORG.characteristic_names, 18)}
        sheet, rolls = CYBORG.roll_sheet(SeededDice(5), chosen)
        assert CYBORG.validate_sheet(sheet) == []
        # Skill 25 is named before the dice; the characteristics are theirs.
        assert sheet["custom_skill"]["name"] == "Jonglage"
        assert sheet["characteristics"] == {key: r.total for key, r in zip(
            CYBORG.characteristic_names, rolls[:6], strict=True)}
        assert [r.expression for r in rolls[:7]] == ["4d6kh3"] * 6 + ["10d4+10"]
        assert all(r.expression == "1d20+1d6-1" for r in rolls[7:])
        assert len(sheet["drawn"]) == 3
        assert {"characteristics", "sante_max", "drawn"} <= set(CYBORG.rolled_fields)

    def test_the_demo_has_two_cyborgs_for_the_players_and_gm_profiles(self) -> None:
        demo = CYBORG.demo_characters()
        assert [c.player for c in demo if c.player is not None] == [0, 1]
        kinds = {c.sheet.get("kind", "cyborg") for c in demo if c.player is None}
        assert kinds == {"alien", "human"}
        assert any(c.sheet.get("humanoid") is False and c.sheet.get("locations") for c in demo)
        assert all(CYBORG.validate_sheet(c.sheet) == [] for c in demo)

    def test_the_form_reads_back_the_sheet(self) -> None:
        sheet = PROFILES["kenji"].sheet
        form = {f"char_{k}": str(v) for k, v in sheet["characteristics"].items()}
        form |= {"sante": "38", "sante_max": "38", "resistance": "7", "missions": "0",
                 "custom_name": "Au choix du joueur", "drawn": "premiers_soins, conduite, reperage",
                 "custom_formula_1": "intelligence", "custom_formula_2": "volonte",
                 "custom_formula_3": "dexterite", "kind": "cyborg", "fate": "active",
                 "humanoid_shown": "1", "humanoid": "on", "rank_picks": ""}
        form |= {f"skill_{k}": str(v) for k, v in sheet["skills"].items()}
        form |= {f"weapon_{n}": key for n, key in enumerate(sheet["weapons"])}
        read = CYBORG.sheet_from_form(form)
        assert CYBORG.validate_sheet(read) == []
        assert read["skills"] == sheet["skills"] and read["weapons"] == sheet["weapons"]
        assert CYBORG.sheet_from_form({"char_force": "x"})["characteristics"]["force"] == "x"
        assert CYBORG.sheet_from_form({**form, "weapon_extra": "blaster"})["weapons"][-1] == (
            "gm:blaster")

    def test_santé_max_may_pass_50_after_missions(self) -> None:
        sheet = copy.deepcopy(PROFILES["kenji"].sheet)
        sheet["sante_max"] = sheet["sante"] = 51
        assert [p.field for p in validate(sheet)] == ["sante_max"]
        sheet["missions"] = 1
        assert validate(sheet) == []
        sheet["sante_max"] = sheet["sante"] = 57
        assert [p.field for p in validate(sheet)] == ["sante_max"]

    def test_ranks_give_their_bonuses_in_derived(self) -> None:
        sheet = copy.deepcopy(PROFILES["kenji"].sheet)
        before = {line["key"]: line["total"] for line in CYBORG.derived(sheet)["skills"]}
        sheet.update(missions=3, rank_picks=["force", "rapidite"])
        values = CYBORG.derived(sheet)
        assert values["rank"] == "Initié"
        assert values["characteristics"]["force"] == 15
        # +5 % on every skill, and the +1s raise the bases that use them.
        assert values["skills"][0]["total"] == before["arme_blanche"] + 5 + 2
        sheet["rank_picks"] = ["force", "rapidite", "dexterite"]
        assert [p.field for p in validate(sheet)] == ["rank_picks"]

    def test_a_lost_leg_and_the_left_hand_in_derived(self) -> None:
        sheet = copy.deepcopy(PROFILES["kenji"].sheet)
        sheet["lost_limbs"] = ["right_arm", "left_leg"]
        values = CYBORG.derived(sheet)
        assert values["characteristics"]["rapidite"] == 12 - 5
        firearm = next(line for line in values["skills"] if line["key"] == "arme_a_feu")
        assert firearm["penalty"] == -50
        assert validate(sheet) == []

    def test_gm_custom_weapons_are_valid_on_a_sheet_and_reach_the_table(self) -> None:
        content = {"weapon_ranged": [{"key": "blaster", "name": "Blaster", "source": "gm",
                                      "damage_type": "brulure", "factor": "L",
                                      "magazine": 10, "shots_per_turn": 2}]}
        sheet = copy.deepcopy(PROFILES["pieuvre"].sheet)
        sheet["weapons"].append("gm:blaster")
        assert validate(sheet) != [] and validate(sheet, content) == []
        setup = MatchSetup("x", (ParticipantSetup("P", 1, None, sheet),),
                           {"content": content})
        state = fold(CYBORG, CYBORG.start(setup, ScriptedDice([])))
        assert state["tokens"]["t1"]["magazines"]["gm:blaster"] == 10
        assert state["custom_weapons"]["gm:blaster"]["factor"] == "L"


class TestTheTable:
    def test_the_armoured_door_at_the_table(self) -> None:
        """Cyborg § (I): force 13, the GM's malus 3, the d20 shows 9: 12 < 13, a success."""
        state = lab()
        events, state = act(state, {"kind": "test", "token": "t1", "test": "characteristic",
                                    "characteristic": "force", "malus": 3}, [9])
        payload = events[0].payload
        assert (payload["value"], payload["malus"], payload["score"], payload["success"]) == (
            13, 3, 12, True)
        with pytest.raises(IllegalAction) as refused:
            act(state, {"kind": "test", "token": "t1", "characteristic": "force",
                        "malus": 3}, actor=ALICE)
        assert refused.value.code == "gm_malus"

    def test_a_laboratory_fight(self) -> None:
        state = lab()
        assert "attack" not in {f.kind for f in CYBORG.legal_actions(state, ALICE)}
        events, state = act(state, {"kind": "roll_initiative"})
        assert events[0].payload["order"] == ["cyborgs", "aliens"]  # rapidité 12 against 11
        assert events[0].payload["totals"] == {"cyborgs": 12, "aliens": 11}
        # Two shots of the sawn-off shotgun in the dark (Arme à feu 72 − 15 = 57): a hit the
        # octopus fails to dodge (G × 3 = 8), then a master stroke (40: units 0, 16).
        events, state = act(state, {"kind": "attack", "token": "t1", "weapon":
                                    "fusil_a_canon_scie", "target": "t2", "shots": 2,
                                    "mod_obscurite": "on"}, [23, 80, 40, 55], actor=ALICE)
        # Kenji was the only cyborg who could act: the aliens' turn comes by itself.
        assert [e.kind for e in events] == ["attacked", "phase_ended"]
        assert events[1].payload["auto"] and events[1].payload["next"] == "aliens"
        shots = events[0].payload["shots"]
        assert [(s["hit"], s["damage"], s["sante"]) for s in shots] == [
            (True, 8, 22), (True, 16, 6)]
        assert shots[0]["attack"]["target"] == 57 and shots[1]["master"]
        assert state["tokens"]["t1"]["magazines"]["fusil_a_canon_scie"] == 0
        assert state["tokens"]["t1"]["acted"]
        with pytest.raises(IllegalAction):
            act(state, {"kind": "attack", "token": "t1", "weapon": "poing", "target": "t2"},
                actor=ALICE)
        # "L'alien se jeta sur le cyborg" (§ (III) Ambiance): from beside him it lashes
        # (Arme blanche 55): 30 hits; Kenji parries with 20 — units 0, a
        # defensive master stroke: the octopus cannot dodge next turn.
        state = next_to(state, "t2")
        events, state = act(state, {"kind": "attack", "token": "t2", "weapon": "tentacules",
                                    "target": "t1"}, [30, 20])
        assert events[0].payload["shots"][0]["attacker_unbalanced"]
        assert state["tokens"]["t2"]["unbalanced_until"] == 2
        assert state["round"] == 2  # the octopus has acted: round 2 began by itself
        # Round 2: the empty shotgun is not offered; reloading it is.
        forms = {form.kind: form for form in CYBORG.legal_actions(state, ALICE)}
        assert "fusil_a_canon_scie" not in dict(forms["attack"].choices["weapons"]["t1"])
        assert forms["reload"].choices["weapons"]["t1"] == [["fusil_a_canon_scie",
                                                             "Fusil à canon scié"]]
        # Kenji attacks alone: the form never offers him as his own target; decide refuses.
        assert "t1" not in forms["attack"].choices["targets"]
        with pytest.raises(IllegalAction):
            act(state, {"kind": "attack", "token": "t1", "weapon": "poing", "target": "t1"},
                actor=ALICE)
        # The chainsaw (Arme blanche 60, déchirure H): 12 hits, no dodge; 6 − 9 = −3: the
        # octopus's own location table, 5 is its "manteau": cut in two, constitution + 4
        # (15 + 4 = 19 > 15) fails: dead.
        events, state = act(state, {"kind": "attack", "token": "t1", "weapon": "tronconneuse",
                                    "target": "t2"}, [12, 5, 15], actor=ALICE)
        shot = events[0].payload["shots"][0]
        assert shot["defence"] is None and shot["damage"] == 9 and shot["sante"] == -3
        assert shot["wound"]["location_name"] == "manteau" and shot["wound"]["dead"]
        assert "dead" in state["tokens"]["t2"]["states"]
        with pytest.raises(IllegalAction) as refused:
            act(state, {"kind": "attack", "token": "t1", "weapon": "poing", "target": "t2"},
                actor=ALICE)
        assert refused.value.code in ("cannot_act", "not_a_target")

    def test_a_burst_rolls_every_round_and_empties_the_magazine(self) -> None:
        sheet = copy.deepcopy(PROFILES["infiltre"].sheet)  # pistolet-mitrailleur, 50 rounds
        state = lab(ParticipantSetup("Infiltré", 12, None, sheet))
        _, state = act(state, {"kind": "roll_initiative", "surprise": "aliens"})
        assert state["initiative"]["order"][0] == "aliens"
        # Arme à feu 49 + 5 (burst) = 54; three rounds, each rolled; Kenji dodges with 40.
        events, state = act(state, {"kind": "attack", "token": "t3", "weapon":
                                    "pistolet_mitrailleur", "target": "t1", "shots": 3},
                            [54, 99, 55, 10, 38])
        payload = events[0].payload
        assert payload["burst"] and payload["magazine"] == 47
        assert [s["hit"] for s in payload["shots"]] == [True, False, False]
        assert state["tokens"]["t1"]["sante"] == 38 - 3  # F against resistance 7

    def test_a_melee_attack_out_of_reach_is_refused_in_words_and_changes_nothing(self) -> None:
        """Contact (house, docs/rules-notes.md): 1.5 squares between centres at most."""
        state = lab()
        _, state = act(state, {"kind": "roll_initiative"})  # the cyborgs first (12 > 11)
        before = copy.deepcopy(state)
        punch = {"kind": "attack", "token": "t1", "weapon": "poing", "target": "t2"}
        for where, distance_fr, distance_en in (((13, 3), "14 cases", "14 squares"),
                                                ((25, 3), "2 cases", "2 squares"),
                                                ((25, 5), "2,8 cases", "2.8 squares")):
            moved = state
            if where != (13, 3):
                _, moved = act(state, {"kind": "move", "token": "t1", "x": where[0],
                                       "y": where[1]}, actor=ALICE)
            snapshot = copy.deepcopy(moved)
            with pytest.raises(IllegalAction) as refused:
                act(moved, punch, actor=ALICE)
            assert refused.value.code == "out_of_reach"
            assert refused.value.message_fr() == (
                f"Kenji est à {distance_fr} de Pieuvre : une attaque au corps à corps demande "
                "le contact, 1,5 case au plus (approchez-vous, ou le MJ l'autorise)")
            assert refused.value.message.startswith(f"Kenji is {distance_en} from Pieuvre")
            assert "1.5 squares at most" in refused.value.message
            assert moved == snapshot  # nothing changed
        assert state == before

    def test_a_melee_attack_in_reach_a_ranged_one_at_any_distance(self) -> None:
        state = lab()
        _, state = act(state, {"kind": "roll_initiative"})
        # Ranged: the shotgun at 14 squares is not a melee blow.
        events, _ = act(state, {"kind": "attack", "token": "t1", "weapon": "fusil_a_canon_scie",
                                "target": "t2"}, [99], actor=ALICE)
        assert events[0].payload["reach"] is None
        # On the diagonal square (1.41): in reach; on the same square too.
        for x, y, distance in ((26, 4, 1.41), (27, 3, 0.0), (26, 3, 1.0)):
            _, moved = act(state, {"kind": "move", "token": "t1", "x": x, "y": y}, actor=ALICE)
            events, after = act(moved, {"kind": "attack", "token": "t1", "weapon": "poing",
                                        "target": "t2"}, [99], actor=ALICE)
            assert events[0].payload["reach"] == {"distance": distance, "limit": 1.5,
                                                  "unit": "sq", "override": False}
            assert after["tokens"]["t1"]["acted"]

    def test_only_the_gm_allows_a_melee_attack_out_of_reach(self) -> None:
        state = lab()
        _, state = act(state, {"kind": "roll_initiative"})
        forms = {f.kind: f for f in CYBORG.legal_actions(state, ALICE)}
        assert forms["attack"].choices["override"] is False
        assert forms["attack"].choices["reach"] == {"limit": 1.5, "unit": "sq"}
        assert next(f for f in CYBORG.legal_actions(state, GM)
                    if f.kind == "attack").choices["override"] is True
        snapshot = copy.deepcopy(state)
        with pytest.raises(IllegalAction) as refused:
            act(state, {"kind": "attack", "token": "t1", "weapon": "poing", "target": "t2",
                        "override": "on"}, actor=ALICE)
        assert refused.value.code == "gm_reach"
        assert refused.value.message_fr() == ("seul le MJ autorise une attaque au corps à "
                                              "corps hors de portée")
        assert state == snapshot
        # The GM allows Kenji's punch from 14 squares (a leap): rolled, and the event says so.
        events, state = act(state, {"kind": "attack", "token": "t1", "weapon": "poing",
                                    "target": "t2", "override": "on"}, [23, 80], actor=GM)
        assert events[0].payload["reach"] == {"distance": 14.0, "limit": 1.5, "unit": "sq",
                                              "override": True}
        assert events[0].payload["shots"][0]["hit"]

    def test_the_attack_form_aims_at_the_nearest_foe_by_default(self) -> None:
        """« Cible » defaults to the nearest participant of another group, never a friend."""
        state = lab(ParticipantSetup("Sora", 13, 7, PROFILES["sora"].sheet))
        _, state = act(state, {"kind": "add_participant", "profile": "infiltre", "x": 14,
                               "y": 3})
        _, state = act(state, {"kind": "move", "token": "t3", "x": 11, "y": 3})
        _, state = act(state, {"kind": "roll_initiative"})
        forms = {f.kind: f for f in CYBORG.legal_actions(state, Actor(
            7, character_ids=frozenset({10, 13})))}
        # Kenji (10, 3): Sora beside him is a friend; the alien at (14, 3) is nearer than
        # the octopus at (20, 3).
        assert forms["attack"].choices["nearest"] == {"t1": "t4", "t3": "t4"}
        # Hidden, the alien is not the default any more: the octopus in sight is.
        _, state = act(state, {"kind": "set_state", "token": "t4", "state": "hidden",
                               "on": "on"})
        forms = {f.kind: f for f in CYBORG.legal_actions(state, Actor(
            7, character_ids=frozenset({10, 13})))}
        assert forms["attack"].choices["nearest"] == {"t1": "t2", "t3": "t2"}

    def test_a_grenade_hits_everyone_in_its_radius(self) -> None:
        state = lab()
        _, state = act(state, {"kind": "move", "token": "t1", "x": 20, "y": 3})
        _, state = act(state, {"kind": "roll_initiative"})
        # The octopus stands at (27, 3); Kenji at 7 squares is out of the 3 m blast. 15 hits;
        # the octopus dodges with 30 (70 fails): K × 3 = 12.
        events, state = act(state, {"kind": "attack", "token": "t1", "weapon":
                                    "lance_grenades", "target": "t2"}, [15, 70], actor=ALICE)
        area = events[0].payload["area"]
        assert area["caught"] == ["t2"] and state["tokens"]["t2"]["sante"] == 18
        assert state["tokens"]["t1"]["magazines"]["lance_grenades"] == 3
        # The blast is drawn on the board, centred on the target, with its radius.
        (drawn,) = state["board"]["areas"]
        target = state["tokens"]["t2"]
        assert (drawn["x"], drawn["y"], drawn["r"]) == (target["x"], target["y"], area["radius"])

    def test_a_chase_on_foot_ends_when_the_pursuer_catches_up(self) -> None:
        state = lab()
        _, state = act(state, {"kind": "start_chase", "pursuer": "t1", "quarry": "t2",
                               "mode": "foot", "distance": "courte"})
        # Kenji (rapidité 12) rolls 5, the octopus (11) 18: the pursuer closes the distance.
        events, state = act(state, {"kind": "chase_round"}, [5, 18])
        assert events[0].payload["after"] == "rattrape"
        assert "chase_round" not in {f.kind for f in CYBORG.legal_actions(state, GM)}

    def test_the_same_pursuer_and_quarry_is_refused_in_words(self) -> None:
        with pytest.raises(IllegalAction) as refused:
            act(lab(), {"kind": "start_chase", "pursuer": "t1", "quarry": "t1"})
        assert refused.value.code == "same_pursuer"
        assert refused.value.message_fr() == ("la proie ne peut pas être son propre poursuivant "
                                              ": choisissez deux participants différents")

    def test_a_vehicle_chase_with_an_accident(self) -> None:
        state = lab(ParticipantSetup("Vigile", 12, None, PROFILES["vigile"].sheet))
        _, state = act(state, {"kind": "start_chase", "pursuer": "t1", "quarry": "t2",
                               "mode": "vehicle", "distance": "moyenne",
                               "pursuer_vehicle": "dark_jet_45", "quarry_vehicle": "moto",
                               "quarry_passenger_t3": "on"})
        assert state["chase"]["quarry"]["riders"] == ["t2", "t3"]
        # Conduite 46 for Kenji: 30 passes; the octopus has no Conduite (0): 50 fails — an
        # accident; each rider's safety roll (moto, 0) fails: 1D100 / 4 = 41 / 4 = 10 for the
        # octopus, 20 / 4 = 5 for the guard on the back.
        events, state = act(state, {"kind": "chase_round"}, [30, 50, 3, 41, 1, 20])
        payload = events[0].payload
        assert [harm["damage"] for harm in payload["accident"]] == [10, 5]
        assert (state["tokens"]["t2"]["sante"], state["tokens"]["t3"]["sante"]) == (20, 5)
        assert state["chase"]["quarry"]["wrecked"]

    def test_poison_first_aid_and_the_end_of_the_mission(self) -> None:
        state = lab()
        _, state = act(state, {"kind": "poison", "token": "t1", "poison": "arsenic"})
        # Santé 38 / 5 = 7: N against 7 = 11 an hour; two hours: 16.
        events, state = act(state, {"kind": "hours", "hours": 2})
        assert events[0].payload["tokens"]["t1"]["lost"] == [11, 11]
        assert state["tokens"]["t1"]["sante"] == 16
        _, state = act(state, {"kind": "antidote", "token": "t1"})
        # Premiers soins 41 on himself: 11 succeeds, 2D6 = 3 + 4.
        events, state = act(state, {"kind": "first_aid", "token": "t1", "patient": "t1"},
                            [11, 3, 4], actor=ALICE)
        assert state["tokens"]["t1"]["sante"] == 23
        with pytest.raises(IllegalAction) as refused:
            act(state, {"kind": "first_aid", "token": "t1", "patient": "t1"}, actor=ALICE)
        assert refused.value.code == "first_aid_today"
        _, state = act(state, {"kind": "correct", "token": "t1", "field": "sante",
                               "value": 20, "reason": "chute"})
        events, state = act(state, {"kind": "end_mission"}, [4])
        result = events[0].payload["results"]["t1"]
        assert (result["sante_max"], result["missions"]) == (42, 1)
        changed = CYBORG.between_matches(state, {10: door_cyborg(),
                                                 11: PROFILES["pieuvre"].sheet})
        assert changed[10]["sante"] == changed[10]["sante_max"] == 42
        assert changed[10]["missions"] == 1
        assert validate(changed[10]) == []
        assert 11 not in changed  # profiles do not recover between missions

    def test_a_poisons_symptom_costs_its_penalty_once(self) -> None:
        state = lab()
        _, state = act(state, {"kind": "poison", "token": "t1", "poison": "arsenic"})
        # Troubles de la vision: −15 % on every skill — Premiers soins 41 − 15 = 26, once.
        events, _ = act(state, {"kind": "test", "token": "t1", "test": "skill",
                                "skill": "premiers_soins"}, [20], actor=ALICE)
        assert (events[0].payload["value"], events[0].payload["target"]) == (26, 26)
        assert events[0].payload["success"]
        _, state = act(state, {"kind": "roll_initiative"})
        # Arme à feu 72 − 15 = 57: a 50 hits.
        events, _ = act(state, {"kind": "attack", "token": "t1", "weapon": "fusil_a_canon_scie",
                                "target": "t2"}, [50, 80], actor=ALICE)
        assert events[0].payload["shots"][0]["attack"]["target"] == 57

    def test_surgery_at_the_end_of_the_mission(self) -> None:
        state = next_to(lab(), "t2")
        _, state = act(state, {"kind": "correct", "token": "t1", "field": "sante", "value": 1,
                               "reason": "x"})
        _, state = act(state, {"kind": "roll_initiative"})
        _, state = act(state, {"kind": "end_phase"})
        # A tentacle (E × 7 = 2) at santé 1: broyage, location 1 (right arm): broken.
        _, state = act(state, {"kind": "attack", "token": "t2", "weapon": "tentacules",
                               "target": "t1"}, [5, 99, 1])
        assert state["tokens"]["t1"]["broken_limbs"] == ["right_arm"]
        state["tokens"]["t1"]["lost_limbs"] = ["left_leg"]  # as if a shot had taken it
        # Recovery 1D6 = 2; surgery 6: a better leg, +1 rapidité.
        _, state = act(state, {"kind": "end_mission"}, [2, 6])
        changed = CYBORG.between_matches(state, {10: door_cyborg()})
        assert changed[10]["lost_limbs"] == [] and changed[10]["surgery_bonus"] == {
            "rapidite": 1}
        assert validate(changed[10]) == []

    def test_the_fifth_mission_makes_a_commandeur_with_two_new_skills(self) -> None:
        veteran = door_cyborg()
        veteran.update(missions=4, sante_max=60, sante=60, rank_picks=["force", "dexterite"])
        assert validate(veteran) == []
        state = fold(CYBORG, CYBORG.start(MatchSetup("M5", (
            ParticipantSetup("Kenji", 10, 7, veteran),)), ScriptedDice([])))
        # Recovery 1D6 = 3; Commandeur: two skills drawn as at creation, (1D20 + 1D6) − 1:
        # 18 + 1 − 1 = 18 (Mécanique), 2 + 1 − 1 = 2 (a given skill: drawn again),
        # 20 + 2 − 1 = 21 (Anatomie).
        events, state = act(state, {"kind": "end_mission"},
                            [3, (20, 18), (6, 1), (20, 2), (6, 1), (20, 20), (6, 2)])
        result = events[0].payload["results"]["t1"]
        assert result["ranks"] == ["Commandeur"] and result["missions"] == 5
        assert result["new_skills"] == ["mecanique", "anatomie"]
        sheet = CYBORG.between_matches(state, {10: veteran})[10]
        assert sheet["sante_max"] == 63 and sheet["missions"] == 5
        assert sheet["drawn"][-2:] == ["mecanique", "anatomie"]
        assert sheet["skills"]["anatomie"] == 0
        assert validate(sheet) == []
        values = CYBORG.derived(sheet)
        assert values["rank"] == "Commandeur" and values["picks_left"] == 4
        assert values["rank_skill_bonus"] == 10

    def test_the_twenty_fifth_mission_ends_a_cyborg(self) -> None:
        old = door_cyborg()
        old.update(missions=24, sante_max=100, sante=100)
        state = fold(CYBORG, CYBORG.start(MatchSetup("M25", (
            ParticipantSetup("Kenji", 10, 7, old),)), ScriptedDice([])))
        events, state = act(state, {"kind": "end_mission"}, [1])
        assert events[0].payload["results"]["t1"]["fate"] == "eliminated"
        assert CYBORG.between_matches(state, {10: old})[10]["fate"] == "eliminated"

    def test_a_group_arriving_mid_fight_acts_after_the_others(self) -> None:
        state = lab()
        _, state = act(state, {"kind": "roll_initiative"})
        _, state = act(state, {"kind": "add_participant", "profile": "vigile"})
        assert state["initiative"]["order"] == ["cyborgs", "aliens", "humains"]
        _, state = act(state, {"kind": "end_phase"})
        _, state = act(state, {"kind": "end_phase"})
        forms = {form.kind: form for form in CYBORG.legal_actions(state, GM)}
        assert forms["attack"].choices["tokens"] == ["t3"]

    def test_a_strangled_victim_dies_after_its_turns(self) -> None:
        strangler = copy.deepcopy(PROFILES["vigile"].sheet)
        strangler["weapons"] = ["garrot"]
        state = next_to(lab(ParticipantSetup("Étrangleur", 12, None, strangler)), "t3")
        _, state = act(state, {"kind": "correct", "token": "t1", "field": "sante", "value": 1,
                               "reason": "blessé"})
        _, state = act(state, {"kind": "roll_initiative"})
        assert state["initiative"]["order"] == ["cyborgs", "aliens", "humains"]
        _, state = act(state, {"kind": "end_phase"})
        _, state = act(state, {"kind": "end_phase"})
        # The garrot (Arme blanche 31, étranglement D): 10 hits, Kenji's parry 90 fails;
        # D × 7 = 1: santé 0 — the airways crushed, 1D6 = 2 turns to live.
        events, state = act(state, {"kind": "attack", "token": "t3", "weapon": "garrot",
                                    "target": "t1"}, [10, 90, 2])
        assert events[0].payload["shots"][0]["wound"]["turns_to_live"] == 2
        assert "strangled" in state["tokens"]["t1"]["states"]
        # The strangler was the last to act: round 2 began by itself, one turn less to live.
        assert state["round"] == 2 and state["tokens"]["t1"]["turns_to_live"] == 1
        assert "dead" not in state["tokens"]["t1"]["states"]
        for _ in range(3):
            _, state = act(state, {"kind": "end_phase"})
        assert "dead" in state["tokens"]["t1"]["states"]

    def test_side_by_side_a_shot_at_the_structure_and_a_tour_de_force(self) -> None:
        state = lab()
        _, state = act(state, {"kind": "start_chase", "pursuer": "t1", "quarry": "t2",
                               "mode": "vehicle", "distance": "courte", "recoverable": "on",
                               "pursuer_vehicle": "dark_jet_45", "quarry_vehicle": "fourgon"})
        # Recoverable mistakes (the GM ticked them): Kenji's 10 passes (Conduite 46); the
        # octopus (no Conduite) fails with 20: a mistake, 1D10 = 4 structure; the success
        # gains: side by side.
        events, state = act(state, {"kind": "chase_round"}, [10, 20, 4])
        assert events[0].payload["after"] == "cote_a_cote"
        assert state["chase"]["quarry"]["structure"] == 46
        # Kenji drives and shoots: 72 − 5 − 5 − 10 (driver) = 52; 31 hits: G × 3 = 8.
        events, state = act(state, {"kind": "shoot_vehicle", "token": "t1",
                                    "weapon": "fusil_a_canon_scie", "aim": "structure"}, [31],
                            actor=ALICE)
        assert events[0].payload["rolls"][0]["target"] == 52
        assert state["chase"]["quarry"]["structure"] == 38
        assert state["tokens"]["t1"]["magazines"]["fusil_a_canon_scie"] == 1
        # A tour de force (30 ≤ 46): the van crashes; its driver's safety die shows 3, at most
        # the van's safety (3): unhurt.
        events, state = act(state, {"kind": "manoeuvre", "side": "pursuer",
                                    "tour_de_force": "on"}, [30, 3], actor=ALICE)
        assert events[0].payload["accident"] == [
            {"token": "t2", "name": "Pieuvre", "saved": True, "damage": 0, "sante": 30}]
        assert state["chase"]["quarry"]["wrecked"]

    def test_a_rammed_van_crashes_and_a_failed_ram_is_the_rammers_mistake(self) -> None:
        state = lab()
        _, state = act(state, {"kind": "start_chase", "pursuer": "t1", "quarry": "t2",
                               "mode": "vehicle", "distance": "courte", "recoverable": "on",
                               "pursuer_vehicle": "dark_jet_45", "quarry_vehicle": "fourgon"})
        # Not caught up yet: nobody rams (« au-delà de courte »).
        assert "ram" not in {f.kind for f in CYBORG.legal_actions(state, ALICE)}
        with pytest.raises(IllegalAction):
            act(state, {"kind": "ram"}, actor=ALICE)
        _, state = act(state, {"kind": "chase_round"}, [10, 20, 4])
        assert state["chase"]["distance"] == "cote_a_cote"
        ram = next(f for f in CYBORG.legal_actions(state, ALICE) if f.kind == "ram")
        assert (ram.choices["driver"], ram.choices["target"]) == ("t1", "Fourgon")
        # Kenji rams (Conduite 46): 60 fails — in the milder variant the GM ticked, a
        # recoverable mistake for the Dark Jet: 1D10 = 7 structure.
        events, state = act(state, {"kind": "ram"}, [60, 7], actor=ALICE)
        assert events[0].kind == "rammed" and not events[0].payload["success"]
        assert state["chase"]["pursuer"]["structure"] == 45 - 7
        assert not state["chase"]["quarry"]["wrecked"]
        # Again: 30 succeeds, the van crashes; its driver's safety die 5 > 3: 1D100 = 36, 9.
        events, state = act(state, {"kind": "ram"}, [30, 5, 36], actor=ALICE)
        assert events[0].payload["accident"] == [
            {"token": "t2", "name": "Pieuvre", "saved": False, "damage": 9, "sante": 21}]
        assert state["chase"]["quarry"]["wrecked"]
        assert "ram" not in {f.kind for f in CYBORG.legal_actions(state, ALICE)}
        with pytest.raises(IllegalAction) as refused:
            act(state, {"kind": "ram"}, actor=ALICE)
        assert refused.value.code == "wrecked"

    def test_a_failed_driving_test_is_an_accident_unless_the_gm_ticks_the_milder_rule(
            self) -> None:
        state = lab()
        _, crash = act(state, {"kind": "start_chase", "pursuer": "t1", "quarry": "t2",
                               "mode": "vehicle", "distance": "moyenne",
                               "pursuer_vehicle": "dark_jet_45", "quarry_vehicle": "fourgon"})
        assert crash["chase"]["accidents"]
        # A stunt: Kenji's 90 fails (46): an accident; his safety die 2 ≤ 2: unhurt.
        events, crash = act(crash, {"kind": "manoeuvre", "side": "pursuer", "what": "cascade"},
                            [90, 2], actor=ALICE)
        assert crash["chase"]["pursuer"]["wrecked"] and events[0].payload["accident"]
        _, mild = act(state, {"kind": "start_chase", "pursuer": "t1", "quarry": "t2",
                              "mode": "vehicle", "distance": "moyenne", "recoverable": "on",
                              "pursuer_vehicle": "dark_jet_45", "quarry_vehicle": "fourgon"})
        # The same failure, ticked recoverable: 1D10 = 6 off the structure, no crash.
        events, mild = act(mild, {"kind": "manoeuvre", "side": "pursuer", "what": "cascade"},
                           [90, 6], actor=ALICE)
        assert events[0].payload["mistakes"] == {"pursuer": 6}
        assert (mild["chase"]["pursuer"]["structure"], mild["chase"]["pursuer"]["wrecked"]) \
            == (39, False)

    def test_a_perforated_trunk_paralyses_until_santé_is_back_above_0(self) -> None:
        state = lab()
        _, state = act(state, {"kind": "correct", "token": "t2", "field": "sante", "value": 5,
                               "reason": "blessé"})
        _, state = act(state, {"kind": "roll_initiative"})
        # Kenji's sawn-off shotgun (72 %): 23 hits, the octopus' 80 fails to dodge; G × 3 = 8:
        # santé −3, perforation; location 5 (the trunk), constitution + 2: 5 + 2 ≤ 15, alive.
        events, state = act(state, {"kind": "attack", "token": "t1", "weapon":
                                    "fusil_a_canon_scie", "target": "t2"}, [23, 80, 5, 5],
                            actor=ALICE)
        assert events[0].payload["shots"][0]["wound"]["paralysed"]
        assert "paralysed" in state["tokens"]["t2"]["states"]
        # Healing to −1 is not enough: still paralysed.
        events, state = act(state, {"kind": "correct", "token": "t2", "field": "sante",
                                    "value": -1, "reason": "x"})
        assert events[0].payload["recovered"] == []
        assert "paralysed" in state["tokens"]["t2"]["states"]
        _, state = act(state, {"kind": "end_phase"})
        _, state = act(state, {"kind": "end_phase"})
        # Next round, Kenji's first aid (41 %): 11, 2D6 = 3 + 4: santé 6, the paralysis ends.
        events, state = act(state, {"kind": "first_aid", "token": "t1", "patient": "t2"},
                            [11, 3, 4], actor=ALICE)
        assert events[0].payload["recovered"] == ["paralysed"]
        assert state["tokens"]["t2"]["sante"] == 6
        assert "paralysed" not in state["tokens"]["t2"]["states"]

    def test_a_paralysis_set_by_the_gm_stays_the_gms(self) -> None:
        state = lab()
        _, state = act(state, {"kind": "correct", "token": "t2", "field": "sante", "value": -2,
                               "reason": "x"})
        _, state = act(state, {"kind": "set_state", "token": "t2", "state": "paralysed",
                               "on": "on"})
        events, state = act(state, {"kind": "correct", "token": "t2", "field": "sante",
                                    "value": 10, "reason": "soigné"})
        assert events[0].payload["recovered"] == []
        assert "paralysed" in state["tokens"]["t2"]["states"]

    def test_a_whole_target_crushed_dies(self) -> None:
        state = next_to(lab(), "t2")
        _, state = act(state, {"kind": "correct", "token": "t1", "field": "sante", "value": 1,
                               "reason": "x"})
        _, state = act(state, {"kind": "roll_initiative"})
        _, state = act(state, {"kind": "end_phase"})
        # The octopus' tentacles (E × 7 = 2) crush Kenji whole: 5 hits, his 99 fails to dodge;
        # santé −1: dead, no location rolled.
        events, state = act(state, {"kind": "attack", "token": "t2", "weapon": "tentacules",
                                    "target": "t1", "whole_body": "on"}, [5, 99])
        wound = events[0].payload["shots"][0]["wound"]
        assert wound["dead"] and wound["location"] is None
        assert "The whole target is crushed: death." in wound["notes"]
        assert "dead" in state["tokens"]["t1"]["states"]

    def test_only_the_gm_crushes_the_whole_target_and_only_by_broyage(self) -> None:
        state = next_to(lab(), "t2")
        _, state = act(state, {"kind": "roll_initiative"})
        attack = next(f for f in CYBORG.legal_actions(state, ALICE) if f.kind == "attack")
        assert attack.choices["crush"] is False
        with pytest.raises(IllegalAction) as refused:
            act(state, {"kind": "attack", "token": "t1", "weapon": "poing", "target": "t2",
                        "whole_body": "on"}, actor=ALICE)
        assert refused.value.code == "gm_crush"
        with pytest.raises(IllegalAction) as refused:
            act(state, {"kind": "attack", "token": "t1", "weapon": "tronconneuse",
                        "target": "t2", "whole_body": "on"})
        assert refused.value.code == "bad_field"

    def test_a_gms_crushing_weapon_kills_whatever_the_box(self) -> None:
        content = {"weapon_melee": [{"key": "gm-rouleau", "name": "Rouleau compresseur",
                                     "damage_type": "broyage", "factor": "H", "crushes": True,
                                     "source": "gm"}]}
        pieuvre = copy.deepcopy(PROFILES["pieuvre"].sheet)
        pieuvre["weapons"] = ["gm:gm-rouleau"]
        state = fold(CYBORG, CYBORG.start(MatchSetup("Chantier", (
            ParticipantSetup("Kenji", 10, 7, door_cyborg()),
            ParticipantSetup("Pieuvre", 11, None, pieuvre)), {"content": content}),
            ScriptedDice([])))
        state = next_to(state, "t2")
        assert state["custom_weapons"]["gm:gm-rouleau"]["crushes"]
        _, state = act(state, {"kind": "correct", "token": "t1", "field": "sante", "value": 3,
                               "reason": "x"})
        _, state = act(state, {"kind": "roll_initiative", "surprise": "aliens"})
        # H × 7 = 5 at santé 3: −2, crushed whole.
        events, state = act(state, {"kind": "attack", "token": "t2", "weapon": "gm:gm-rouleau",
                                    "target": "t1"}, [5, 99])
        assert events[0].payload["whole_body"] and "dead" in state["tokens"]["t1"]["states"]

    def test_camouflage_against_reperage(self) -> None:
        state = lab(ParticipantSetup("Infiltré", 12, None, PROFILES["infiltre"].sheet))
        assert "camouflage" not in {f.kind for f in CYBORG.legal_actions(state, ALICE)}
        form = next(f for f in CYBORG.legal_actions(state, GM) if f.kind == "camouflage")
        assert form.choices["tokens"] == ["t3"]
        assert form.choices["seekers"] == ["t1", "t2"]  # never the one who hides (issue 23)
        # Camouflage 49 %: 20 hides it; Kenji's Repérage (35 %) 50 and the octopus' (no
        # Repérage: the 35 % base) 70 fail: it stays hidden.
        events, state = act(state, {"kind": "camouflage", "token": "t3",
                                    "seekers": ["t1", "t2"]}, [20, 50, 70])
        payload = events[0].payload
        assert (payload["target"], payload["hidden"]) == (49, True)
        assert [(look["name"], look["target"], look["spotted"]) for look in payload["looks"]] \
            == [("Kenji", 35, False), ("Pieuvre", 35, False)]
        assert "hidden" in state["tokens"]["t3"]["states"]
        # Hidden again (30), but Kenji's 12 spots it.
        events, state = act(state, {"kind": "camouflage", "token": "t3", "seeker_t1": "on"},
                            [30, 12])
        assert not events[0].payload["hidden"] and "hidden" not in state["tokens"]["t3"]["states"]
        # A failed Camouflage (80) is plain sight: nobody rolls.
        events, state = act(state, {"kind": "camouflage", "token": "t3", "seekers": "t1"}, [80])
        assert events[0].payload["looks"] == [] and not events[0].payload["hidden"]

    def test_camouflage_is_refused_without_the_skill_a_seeker_or_the_gms_say(self) -> None:
        state = lab(ParticipantSetup("Infiltré", 12, 7, PROFILES["infiltre"].sheet))
        alice = Actor(7, character_ids=frozenset({10, 12}))  # she plays the alien too
        for action, code in (
                ({"token": "t1", "seekers": ["t2"]}, "no_camouflage"),
                ({"token": "t3"}, "no_seeker"),
                ({"token": "t3", "seekers": ["t3"]}, "not_a_target"),
                ({"token": "t3", "seekers": ["t2"], "malus": 10}, "gm_malus")):
            with pytest.raises(IllegalAction) as refused:
                act(state, {"kind": "camouflage", **action}, actor=alice)
            assert refused.value.code == code

    def test_the_damage_tables_corrected_cell_is_named_in_the_log(self) -> None:
        state = next_to(lab(), "t2")
        _, state = act(state, {"kind": "roll_initiative"})
        # Kenji's fist (force 13: D) on the octopus (resistance 3): the corrected cell, 5.
        events, state = act(state, {"kind": "attack", "token": "t1", "weapon": "poing",
                                    "target": "t2"}, [23, 80], actor=ALICE)
        shot = events[0].payload["shots"][0]
        assert (shot["cell"], shot["correction"]["printed"], shot["correction"]["used"]) == (
            5, 2, 5)
        # Kenji has acted: the aliens' turn comes by itself. The octopus' tentacles (E) on
        # Kenji (7): the printed cell, no correction.
        events, _ = act(state, {"kind": "attack", "token": "t2", "weapon": "tentacules",
                                "target": "t1"}, [5, 99])
        assert events[0].payload["shots"][0]["correction"] is None

    def test_an_opposed_test_and_a_situational_modifier(self) -> None:
        state = lab()
        # Rapidité 12 against 11: both succeed (10, 8), the lower score wins.
        events, state = act(state, {"kind": "opposed", "token": "t1", "other": "t2",
                                    "characteristic": "rapidite"}, [10, 8])
        assert events[0].payload["winner"] == "Pieuvre"
        _, state = act(state, {"kind": "situational", "token": "t1", "value": -20,
                               "label": "fumée"})
        events, state = act(state, {"kind": "test", "token": "t1", "test": "skill",
                                    "skill": "arme_a_feu"}, [55], actor=ALICE)
        assert (events[0].payload["target"], events[0].payload["success"]) == (52, False)
        with pytest.raises(IllegalAction):
            act(state, {"kind": "situational", "token": "t1", "value": -20, "label": "x"},
                actor=ALICE)


PLANS = st.lists(st.tuples(st.sampled_from(
    ["attack", "attack", "attack", "end_phase", "reload", "first_aid", "hours", "test",
     "initiative", "poison"]), st.integers(0, 1000)), min_size=1, max_size=40)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), plan=PLANS)
def test_invariants_hold_whatever_is_played(seed: int, plan: list) -> None:
    """No negative counter, nothing above its maximum, and a participant who is down never
    acts: whatever the dice and the order of actions."""
    dice = SeededDice(seed)
    state = lab(ParticipantSetup("Sora", 13, 8, PROFILES["sora"].sheet),
                ParticipantSetup("Vigile", 14, None, PROFILES["vigile"].sheet))
    _, state = apply(CYBORG, state, {"kind": "roll_initiative"}, GM, dice)
    for kind, pick in plan:
        tokens = list(state["tokens"].values())
        token = tokens[pick % len(tokens)]
        target = tokens[(pick // 7) % len(tokens)]
        weapons = token["weapons"] + ["poing"]
        action = {"attack": {"kind": "attack", "token": token["id"], "target": target["id"],
                             "weapon": weapons[pick % len(weapons)], "shots": 1 + pick % 3},
                  "end_phase": {"kind": "end_phase"},
                  "reload": {"kind": "reload", "token": token["id"],
                             "weapon": weapons[pick % len(weapons)]},
                  "first_aid": {"kind": "first_aid", "token": token["id"],
                                "patient": target["id"]},
                  "hours": {"kind": "hours", "hours": 1 + pick % 5},
                  "test": {"kind": "test", "token": token["id"], "characteristic": "force"},
                  "initiative": {"kind": "roll_initiative"},
                  "poison": {"kind": "poison", "token": target["id"], "poison": "arsenic"}}[kind]
        down = any(s in token["states"] for s in ("dead", "unconscious", "coma", "paralysed",
                                                  "out_of_action"))
        try:
            _, state = apply(CYBORG, state, action, GM, dice)
        except IllegalAction:
            continue
        if kind in ("attack", "reload", "first_aid", "test"):
            assert not down, f"{token['name']} acted while down"
        for person in state["tokens"].values():
            assert person["sante"] <= person["sante_max"]
            for key, left in person["magazines"].items():
                assert 0 <= left <= (PROFILES_WEAPON_MAX.get(key) or left), (key, left)
            assert person["unbalanced_until"] >= 0
            assert person["turns_to_live"] is None or person["turns_to_live"] >= 0 \
                or "dead" in person["states"]


def _magazines() -> dict[str, int]:
    from app.rules.cyborg.content import weapons

    return {key: weapon.magazine for key, weapon in weapons().items() if weapon.magazine}


PROFILES_WEAPON_MAX = _magazines()


FIELDS = ("token", "target", "weapon", "shots", "patient", "characteristic", "skill", "malus",
          "test", "other", "poison", "hours", "field", "value", "reason", "state", "on",
          "label", "profile", "group", "x", "y", "surprise", "pursuer", "quarry", "mode",
          "distance", "pursuer_vehicle", "quarry_vehicle", "pursuer_passengers", "side",
          "tour_de_force", "aim", "modifiers", "mod_obscurite", "modv_obscurite", "text",
          "w", "h")
ODD = st.one_of(st.none(), st.booleans(), st.integers(-10**12, 10**12), st.floats(),
                st.text(max_size=30), st.sampled_from(["t1", "t2", "t3", "poing", "force",
                                                       "fusil_a_canon_scie", "on", "foot",
                                                       "vehicle", "moto", "courte",
                                                       "pursuer", "sante", "arsenic"]),
                st.lists(st.text(max_size=5), max_size=3),
                st.dictionaries(st.text(max_size=5), st.integers(), max_size=2))


@settings(max_examples=300, deadline=None)
@given(kind=st.sampled_from(sorted(ACTIONS)),
       fields=st.dictionaries(st.sampled_from(FIELDS), ODD, max_size=8),
       gm=st.booleans(), seed=st.integers(0, 100))
def test_any_malformed_action_is_refused_with_a_reason(kind, fields, gm, seed) -> None:
    """Whatever a client sends, the rules answer events or an ``IllegalAction``: never a
    crash, never a state that does not fold."""
    state = lab(ParticipantSetup("Vigile", 12, None, PROFILES["vigile"].sheet))
    _, state = apply(CYBORG, state, {"kind": "roll_initiative"}, GM, SeededDice(0))
    try:
        events, after = apply(CYBORG, state, {**fields, "kind": kind},
                              GM if gm else ALICE, SeededDice(seed))
    except IllegalAction:
        return
    assert fold(CYBORG, events, state) == after
