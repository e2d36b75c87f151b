"""Makibishi's whole effect (« Arme nécessaire : Sac de Makibishi », only against an attack
with « Mouvement », « l'adversaire perd une action pour le reste de son tour », Impulsion) and
Coup dans l'entrejambe's « La cible doit être de sexe masculin » (the sheet's sexe; the GM's
correction overrides), replayed with scripted dice."""

from __future__ import annotations

import pytest

from app.rules.match import IllegalAction
from app.rules.tiamat.system import TIAMAT
from tests.rules.test_tiamat_extras import fighter, refused, two
from tests.rules.test_tiamat_match import GM, play


def ninja(*devices: str) -> dict:
    return fighter("plongeon", "makibishi", "metsubushi", weapons=devices)


def test_makibishi_needs_the_bag_carried_not_in_hand() -> None:
    # Coup de la corde à linge (Mouvement): précision « Habileté », 3 D10 keep the best.
    state = two(fighter("coup_de_la_corde_a_linge", "straight_punch"), ninja())
    _, state = play(state, GM, {"kind": "attack", "technique": "coup_de_la_corde_a_linge",
                                "target": "p2"}, [])
    error = refused(state, {"kind": "defend", "technique": "makibishi"})
    assert error.code == "device_needed"
    assert "Sac de Makibishi" in error.message_fr() and "équipement" in error.message_fr()
    # The bag is gear: it is never offered as a weapon to hold.
    state = two(ninja("sac_de_makibishi", "katana"), fighter("straight_punch"))
    forms = {f.kind: f for f in TIAMAT.legal_actions(state, GM)}
    assert forms["manoeuvre"].choices["weapons"] == ["katana"]
    error = refused(state, {"kind": "manoeuvre", "what": "draw",
                            "weapon": "sac_de_makibishi"})
    assert error.code == "bad_field"


def test_a_makibishi_that_succeeds_costs_the_attacker_an_action_and_gives_impulsion() -> None:
    state = two(fighter("coup_de_la_corde_a_linge", "straight_punch"),
                ninja("sac_de_makibishi"))
    attacker = state["participants"]["p1"]
    assert attacker["actions_left"] == 2
    _, state = play(state, GM, {"kind": "attack", "technique": "coup_de_la_corde_a_linge",
                                "target": "p2"}, [])
    assert state["participants"]["p1"]["actions_left"] == 1
    energie = state["participants"]["p2"]["energie"]
    # Précision: best of [2, 1, 1] = 2 against « Rapidité + 3D10 »: best of six D10 = 6.
    events, state = play(state, GM, {"kind": "defend", "technique": "makibishi"},
                         [2, 1, 1, 6, 1, 1, 1, 1, 1])
    assert not events[0].payload["hit"]
    thrower, attacker = state["participants"]["p2"], state["participants"]["p1"]
    assert attacker["actions_left"] == 0  # « perd une action pour le reste de son tour »
    assert thrower["energie"] == energie - 1 and thrower["impulsion"] == 1
    assert thrower["actions_left"] == 1  # a defence spends one of its two actions


def test_a_failed_makibishi_costs_the_attacker_nothing_and_a_plain_blow_is_refused() -> None:
    state = two(fighter("coup_de_la_corde_a_linge", "straight_punch"),
                ninja("sac_de_makibishi"))
    _, state = play(state, GM, {"kind": "attack", "technique": "coup_de_la_corde_a_linge",
                                "target": "p2"}, [])
    # 8 against 4: hit (then the location and the puissance: all 3s, no loss).
    events, state = play(state, GM, {"kind": "defend", "technique": "makibishi"},
                         [8, 1, 1, 4, 1, 1, 1, 1, 1, 3, 3, 3, 3])
    assert events[0].payload["hit"] and events[0].payload["damage"]["loss"] == 0
    assert state["participants"]["p1"]["actions_left"] == 1
    # Against an attack without Mouvement, Makibishi is refused, the state unchanged.
    state = two(fighter("straight_punch"), ninja("sac_de_makibishi"))
    _, state = play(state, GM, {"kind": "attack", "technique": "coup_de_poing",
                                "target": "p2"}, [])
    assert refused(state, {"kind": "defend", "technique": "makibishi"}).code == (
        "only_against_movement")


def kicker() -> dict:
    return fighter("coup_dans_l_entrejambe", "straight_punch", furie=1)


def target(sexe: str) -> dict:
    return {**fighter("blocage"), "sexe": sexe}


def test_the_groin_kick_is_refused_against_a_target_whose_sheet_says_feminin() -> None:
    state = two(kicker(), target("feminin"))
    error = refused(state, {"kind": "attack", "technique": "coup_dans_l_entrejambe",
                            "target": "p2"})
    assert error.code == "target_not_male"
    assert error.message_fr() == ("Coup dans l'entrejambe : la cible doit être de sexe "
                                  "masculin (sa fiche dit féminin)")


def test_the_groin_kick_lands_on_a_male_or_unsaid_target() -> None:
    for sexe in ("masculin", ""):
        state = two(kicker(), target(sexe))
        _, state = play(state, GM, {"kind": "attack", "technique": "coup_dans_l_entrejambe",
                                    "target": "p2"}, [])
        # 8 against 2; legs 3 → jambe droite; 5 − 3 = 2; one 1D6 = 4 rounds for both.
        events, state = play(state, GM, {"kind": "defend", "technique": "instinctive"},
                             [8, 1, 1, 2, 3, 5, 1, 1, 4])
        assert events[0].payload["hit"] and events[0].payload["durations"] == {"sonne": 4}


def test_the_gm_overrides_by_correcting_the_targets_sex_recorded_with_a_reason() -> None:
    state = two(kicker(), target("feminin"))
    events, state = play(state, GM, {"kind": "gm_adjust", "participant": "p2", "field": "sexe",
                                     "value": "non précisé", "reason": "déguisée"}, [])
    assert events[0].payload["before"] == "feminin" and events[0].payload["after"] == ""
    assert state["participants"]["p2"]["sexe"] == ""
    _, state = play(state, GM, {"kind": "attack", "technique": "coup_dans_l_entrejambe",
                                "target": "p2"}, [])
    assert state["pending"]
    with pytest.raises(IllegalAction) as caught:
        play(state, GM, {"kind": "gm_adjust", "participant": "p2", "field": "sexe",
                         "value": "peut-être"}, [])
    assert "masculin, féminin, non précisé" in caught.value.message_fr()


def test_the_sheet_keeps_the_sex_and_refuses_an_unknown_one() -> None:
    sheet = TIAMAT.sheet_from_form({"sexe": "feminin"})
    assert sheet["sexe"] == "feminin"
    assert not [p for p in TIAMAT.validate_sheet(sheet) if p.field == "sexe"]
    wrong = [p for p in TIAMAT.validate_sheet({**sheet, "sexe": "x"}) if p.field == "sexe"]
    assert wrong and "Apparence" in wrong[0].rule
    assert TIAMAT.new_sheet()["sexe"] == ""


def test_ivre_loses_a_point_but_rolls_1d6_more_to_resist_intimidation_and_fear() -> None:
    """« Ivre : un malus d'un point dans toutes ses actions … un bonus d'1D6 pour résister
    aux tests d'intimidation et pour résister à l'état Terrorisé »."""
    state = two(fighter("straight_punch"), fighter("blocage"))
    _, state = play(state, GM, {"kind": "gm_adjust", "participant": "p2", "field": "state",
                                "value": "ivre", "rounds": 5}, [])
    intimidation = {"kind": "opposed", "participant_a": "p1", "characteristic_a":
                    "temperament", "skill_a": "intimidation", "participant_b": "p2",
                    "characteristic_b": "volonte"}
    # p1: best of [6, 2, 1] = 6; p2: best of [5, 1, 1] = 5, +1D6 (3), −1 ivre = 7.
    events, _ = play(state, GM, intimidation, [6, 2, 1, 5, 1, 1, 3])
    payload = events[0].payload
    assert (payload["total_a"], payload["total_b"]) == (6, 7) and not payload["initiator_wins"]
    # Any other opposed roll: only the point lost (p2 initiates a plain Force contest).
    events, _ = play(state, GM, {**intimidation, "participant_a": "p2", "skill_a": "",
                                 "characteristic_a": "force", "participant_b": "p1"},
                     [6, 1, 1, 5, 1, 1])
    assert (events[0].payload["total_a"], events[0].payload["total_b"]) == (5, 5)
    # Terrorisé and ivre, the initiator overcoming its fear (Volonté / Tempérament) gets 1D6.
    _, state = play(state, GM, {"kind": "gm_adjust", "participant": "p2", "field": "state",
                                "value": "terrorisé", "rounds": 2}, [])
    events, _ = play(state, GM, {"kind": "opposed", "participant_a": "p2",
                                 "characteristic_a": "volonte", "participant_b": "p1",
                                 "characteristic_b": "temperament"}, [4, 1, 1, 2, 6, 1, 1])
    assert (events[0].payload["total_a"], events[0].payload["total_b"]) == (5, 6)


def test_epuise_rolls_one_d10_fewer_on_rapidite_and_aveugle_only_on_its_characteristics(
        ) -> None:
    """« Épuisé : un malus d'1D10 en Rapidité »; « Aveuglé : un malus d'1D10 à toutes ses
    actions impliquant l'Habileté, la Rapidité et la Perception »."""
    state = two(kicker(), target("masculin"))
    _, state = play(state, GM, {"kind": "gm_adjust", "participant": "p1", "field": "state",
                                "value": "épuisé", "rounds": 5}, [])
    _, state = play(state, GM, {"kind": "attack", "technique": "coup_dans_l_entrejambe",
                                "target": "p2"}, [])
    # « Rapidité » 3 D10, one fewer: [1, 1]; the défense instinctive's single die: 5. Missed.
    events, _ = play(state, GM, {"kind": "defend", "technique": "instinctive"}, [1, 1, 5])
    assert events[0].payload["attack_total"] == 1 and not events[0].payload["hit"]
    # Absorption's précision is Endurance + 2: an aveuglé boxer keeps its three dice.
    state = two(fighter("straight_punch"), fighter("blocage", "absorption"))
    _, state = play(state, GM, {"kind": "gm_adjust", "participant": "p2", "field": "state",
                                "value": "aveuglé", "rounds": 5}, [])
    _, state = play(state, GM, {"kind": "attack", "technique": "coup_de_poing",
                                "target": "p2"}, [])
    events, _ = play(state, GM, {"kind": "defend", "technique": "absorption"},
                     [1, 1, 1, 1, 1, 9])
    assert events[0].payload["defence_total"] == 11 and not events[0].payload["hit"]


def test_a_stun_takes_one_of_the_actions_left_this_turn() -> None:
    """« Assommante : … l'adversaire est « sonné » et perd donc une action pendant le reste du
    tour et le suivant » (« Sonné »: « pour le tour en cours, s'il n'a pas encore agi »)."""
    faces = [8, 1, 1, 2, 3, 5, 1, 1, 4]  # 8 against 2, legs, 5 − 3, 1D6 = 4 rounds
    state = two(kicker(), target("masculin"))
    assert state["participants"]["p2"]["actions_left"] == 2
    _, state = play(state, GM, {"kind": "attack", "technique": "coup_dans_l_entrejambe",
                                "target": "p2"}, [])
    _, state = play(state, GM, {"kind": "defend", "technique": "instinctive"}, faces)
    assert state["participants"]["p2"]["actions_left"] == 1  # its turn is still to come
    # The target acted first and kept its two actions to defend: it loses one of them.
    state = two(target("masculin"), kicker())
    _, state = play(state, GM, {"kind": "end_turn"}, [])
    assert state["turn"] == "p2" and state["participants"]["p1"]["actions_left"] == 2
    _, state = play(state, GM, {"kind": "attack", "technique": "coup_dans_l_entrejambe",
                                "target": "p1"}, [])
    _, state = play(state, GM, {"kind": "defend", "technique": "instinctive"}, faces)
    assert state["participants"]["p1"]["actions_left"] == 1
    # Stunned again while stunned: no second action lost.
    state["participants"]["p2"]["furie"] = 1
    state["participants"]["p2"]["actions_left"] = 2  # one left after the kick: no new round
    state["participants"]["p1"]["posture"] = "debout"  # back up (the kick is « Jambes »)
    _, state = play(state, GM, {"kind": "attack", "technique": "coup_dans_l_entrejambe",
                                "target": "p1"}, [])
    _, state = play(state, GM, {"kind": "defend", "technique": "instinctive"}, faces)
    assert state["participants"]["p1"]["actions_left"] == 1


def test_degagement_breaks_a_hold_with_force_plus_2d6_for_3_energie() -> None:
    """« Soumission … se libérer par un jet d'opposition Force / Force ou en utilisant la
    technique de Krav-maga « Dégagement » » (Force + 2D6, 3 énergie)."""
    state = two(fighter("immobilisation", "straight_punch"),
                fighter("contre_prise", "degagement", "straight_punch"))
    _, state = play(state, GM, {"kind": "attack", "technique": "immobilisation",
                                "target": "p2"}, [])
    # Précision 5 against the défense instinctive's 3, then the location die (1).
    events, state = play(state, GM, {"kind": "defend", "technique": "instinctive"},
                         [5, 1, 1, 3, 1])
    assert state["participants"]["p2"]["held_by"] == "p1"
    _, state = play(state, GM, {"kind": "end_turn"}, [])
    forms = {f.kind: f for f in TIAMAT.legal_actions(state, GM)}
    assert forms["escape"].choices == {"degagement": True, "test": "Force"}
    held = state["participants"]["p2"]
    energie, tries = held["energie"], held["escape_tries"]
    # Force 3 D10 best 4 + 2D6 (1 + 2) = 7 against the holder's Force: best 6. Free.
    events, state = play(state, GM, {"kind": "escape", "degagement": "on"},
                         [4, 1, 1, 1, 2, 6, 1, 1])
    assert events[0].payload["free"] and events[0].payload["technique"] == "Dégagement"
    freed = state["participants"]["p2"]
    assert freed["held_by"] is None and freed["energie"] == energie - 3
    assert freed["escape_tries"] == tries and freed["actions_left"] == held["actions_left"] - 1
    # Without the technique known, the box is refused.
    state = two(fighter("immobilisation", "straight_punch"), fighter("straight_punch"))
    _, state = play(state, GM, {"kind": "attack", "technique": "immobilisation",
                                "target": "p2"}, [])
    _, state = play(state, GM, {"kind": "defend", "technique": "instinctive"},
                    [5, 1, 1, 3, 1])
    _, state = play(state, GM, {"kind": "end_turn"}, [])
    assert {f.kind: f for f in TIAMAT.legal_actions(state, GM)}["escape"].choices == {
        "degagement": False, "test": "Force"}
    assert refused(state, {"kind": "escape", "degagement": "on"}).code == "not_known"
