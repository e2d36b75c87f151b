"""Tiamat leftovers of issue 11, through decide/evolve with scripted dice: ammunition
(« Armes § Munitions », « Tir en rafale »), the kusarigama's Force/Force throw, Gotonpo's
teleport and hanging, « pendant 1D6 tours » durations that end by themselves, running on
rough ground (« Course »), and the house talent effects (docs/rules-notes.md § Tiamat)."""

from __future__ import annotations

import copy

import pytest

from app.rules.dice import ScriptedDice
from app.rules.match import MatchSetup, ParticipantSetup, apply, fold
from app.rules.tiamat.content import all_weapons, weapon_spec
from app.rules.tiamat.errors import TiamatRefusal
from app.rules.tiamat.match import between_matches
from app.rules.tiamat.sheet import jack
from app.rules.tiamat.system import TIAMAT
from tests.rules.test_tiamat_match import GM, NICOLAS, play, setup


def fighter(*techniques: str, talents: tuple[str, ...] = (), weapons: tuple[str, ...] = (),
            furie: int = 0, **chars: int) -> dict:
    """A GM profile with every characteristic at 3, no art (so no art talent)."""
    characteristics = dict.fromkeys(
        ("force", "endurance", "habilete", "rapidite", "perception", "intelligence",
         "temperament", "volonte"), 3) | chars
    return {"kind": "pnj", "characteristics": characteristics, "skills": {},
            "talents": list(talents), "arts": [], "techniques": list(techniques),
            "sante": None, "energie": None, "furie": furie, "armour": "aucune",
            "weapons": list(weapons), "wounds": []}


def two(first: dict, second: dict, *, cid: int | None = None) -> dict:
    """p1 acts first (9 against 1 at initiative; both Rapidité 3)."""
    state = setup(("Un", first, None, None), ("Deux", second, cid, None))
    _, state = play(state, GM, {"kind": "roll_initiative"}, [9, 1, 1, 1, 1, 1])
    assert state["turn"] == "p1"
    return state


def refused(state: dict, action: dict, actor=GM) -> TiamatRefusal:
    before = copy.deepcopy(state)
    with pytest.raises(TiamatRefusal) as caught:
        play(state, actor, action, [])
    assert state == before
    return caught.value


# — ammunition ————————————————————————————————————————————————————————————————

def test_each_shot_uses_a_round_an_empty_gun_is_refused_and_reloading_takes_an_action() -> None:
    shooter = fighter("straight_punch", "blocage", weapons=("pistolet_9mm",))
    state = two(shooter, fighter("blocage"))
    assert state["participants"]["p1"]["ammo"] == {"pistolet_9mm": 15}
    _, state = play(state, GM, {"kind": "manoeuvre", "what": "draw",
                                "weapon": "pistolet_9mm"}, [])
    events, state = play(state, GM, {"kind": "attack", "technique": "visee",
                                     "target": "p2"}, [])
    assert events[0].payload["ammo"]["used"] == 1 and events[0].payload["ammo"]["left"] == 14
    # Perception 3: 2 against the défense instinctive's 5: missed; the round is spent anyway.
    _, state = play(state, GM, {"kind": "defend", "technique": "instinctive"}, [2, 1, 1, 5])
    assert state["participants"]["p1"]["ammo"]["pistolet_9mm"] == 14
    _, state = play(state, GM, {"kind": "roll_initiative"}, [9, 1, 1, 1, 1, 1])
    state["participants"]["p1"]["ammo"]["pistolet_9mm"] = 0  # fourteen shots later
    attack = next(f for f in TIAMAT.legal_actions(state, GM) if f.kind == "attack")
    assert "visee" not in attack.choices["techniques"]
    refusal = refused(state, {"kind": "attack", "technique": "visee", "target": "p2"})
    assert refusal.code == "no_ammo"
    assert refusal.message_fr() == "Un n'a plus de munitions : rechargez d'abord (une action)"
    manoeuvre = next(f for f in TIAMAT.legal_actions(state, GM) if f.kind == "manoeuvre")
    assert manoeuvre.choices["reload"]
    events, state = play(state, GM, {"kind": "manoeuvre", "what": "reload"}, [])
    assert (events[0].payload["before"], events[0].payload["after"]) == (0, 15)
    p1 = state["participants"]["p1"]
    assert p1["ammo"]["pistolet_9mm"] == 15 and p1["actions_left"] == 1
    assert refused(state, {"kind": "manoeuvre", "what": "reload"}).code == "already_loaded"


def test_a_burst_uses_2d6_rounds_and_fires_what_is_left() -> None:
    gunner = fighter("straight_punch", "blocage", weapons=("pistolet_mitrailleur",
                                                           "pistolet_9mm"))
    state = two(gunner, fighter("blocage"))
    _, state = play(state, GM, {"kind": "manoeuvre", "what": "draw",
                                "weapon": "pistolet_9mm"}, [])
    # « Arme de tir en rafale »: the 9 mm has no burst.
    assert refused(state, {"kind": "attack", "technique": "tir_en_rafale",
                           "target": "p2"}).code == "weapon_needed"
    _, state = play(state, GM, {"kind": "end_turn"}, [])
    _, state = play(state, GM, {"kind": "roll_initiative"}, [9, 1, 1, 1, 1, 1])
    _, state = play(state, GM, {"kind": "manoeuvre", "what": "draw",
                                "weapon": "pistolet_mitrailleur"}, [])
    # « L'arme perd 2D6 munitions »: 4 + 3 = 7 of 30.
    events, state = play(state, GM, {"kind": "attack", "technique": "tir_en_rafale",
                                     "target": "p2"}, [4, 3])
    assert events[0].payload["ammo"]["used"] == 7
    assert state["participants"]["p1"]["ammo"]["pistolet_mitrailleur"] == 23
    _, state = play(state, GM, {"kind": "defend", "technique": "instinctive"}, [2, 1, 1, 5])
    _, state = play(state, GM, {"kind": "roll_initiative"}, [9, 1, 1, 1, 1, 1])
    state["participants"]["p1"]["ammo"]["pistolet_mitrailleur"] = 5
    events, state = play(state, GM, {"kind": "attack", "technique": "tir_en_rafale",
                                     "target": "p2"}, [6, 6])
    assert events[0].payload["ammo"] | {"rule": ""} == {
        "weapon": "Pistolet-mitrailleur", "used": 5, "left": 0, "rule": ""}


def test_a_gm_weapon_carries_its_magazine_and_burst() -> None:
    content = {"weapon": [{"key": "gm-uzi", "name": "Uzi", "kind": "distance", "d6": 2,
                           "ammo": 32, "rafale": True, "short_range": 20}]}
    spec = weapon_spec(all_weapons(content)["gm-uzi"])
    assert (spec["ammo"], spec["reload"], spec["rafale"]) == (32, True, True)


# — kusarigama and Gotonpo ————————————————————————————————————————————————————————

def test_the_kusarigama_catches_then_throws_force_against_force() -> None:
    ninja = fighter("capture_du_kusarigama", "gotonpo", weapons=("kusarigama",))
    state = two(ninja, fighter("straight_punch", furie=1))
    _, state = play(state, GM, {"kind": "manoeuvre", "what": "draw", "weapon": "kusarigama"},
                    [])
    assert refused(state, {"kind": "kusarigama_throw", "target": "p2"}).code == "not_chained"
    _, state = play(state, GM, {"kind": "attack", "technique": "capture_du_kusarigama",
                                "target": "p2"}, [])
    # Habileté 3 + 1D10: 8 against 2; aléatoire 3 → torse; Force 3 + 1D6: 1 + 1 − 3 = 0.
    _, state = play(state, GM, {"kind": "defend", "technique": "instinctive"},
                    [8, 1, 1, 1, 2, 3, 1, 1, 1, 1])
    caught = state["participants"]["p2"]
    assert caught["held_by"] == "p1" and caught["held_with"] == "kusarigama"
    _, state = play(state, GM, {"kind": "roll_initiative"}, [9, 1, 1, 1, 1, 1])
    assert any(f.kind == "kusarigama_throw" for f in TIAMAT.legal_actions(state, GM))
    # Force 3 each: 7 against 5 — thrown to the ground, still in the chain.
    events, state = play(state, GM, {"kind": "kusarigama_throw", "target": "p2"},
                         [7, 1, 1, 5, 1, 1])
    assert events[0].payload["thrown"]
    caught = state["participants"]["p2"]
    assert caught["posture"] == "a_terre" and caught["held_by"] == "p1"
    # A tie: the thrower, who initiates, loses it (« Jet d'opposition »).
    events, state = play(state, GM, {"kind": "kusarigama_throw", "target": "p2"},
                         [5, 1, 1, 5, 1, 1])
    assert not events[0].payload["thrown"]


def test_gotonpo_teleports_volonte_x4_and_hangs_until_furie_comes() -> None:
    ninja = fighter("gotonpo", "capture_du_kusarigama", volonte=2)
    state = two(fighter("straight_punch", "blocage"), ninja)
    _, state = play(state, GM, {"kind": "attack", "technique": "coup_de_poing",
                                "target": "p2"}, [])
    assert refused(state, {"kind": "defend", "technique": "instinctive",
                           "hang": "on"}).code == "hang_gotonpo"
    # Habileté 3: 4 against Gotonpo (Habileté + Acrobatie + Infiltration) 8: dodged.
    events, state = play(state, GM, {"kind": "defend", "technique": "gotonpo", "hang": "on"},
                         [4, 1, 1, 8, 1, 1])
    teleport = events[0].payload["teleport"]
    assert teleport["metres"] == 8 and teleport["hanging"]
    ninja_p = state["participants"]["p2"]
    assert ninja_p["hanging"] and ninja_p["energie"] == ninja_p["energie_max"] - 4
    # Hit while hanging: a point of furie and the ninja drops (« tant qu'il ne possède pas
    # de point de furie »).
    _, state = play(state, GM, {"kind": "attack", "technique": "coup_de_poing",
                                "target": "p2"}, [])
    events, state = play(state, GM, {"kind": "defend", "technique": "instinctive"},
                         [9, 1, 1, 1, 3, 6, 1, 1])
    assert events[0].payload["fell"] == ["Deux"]
    ninja_p = state["participants"]["p2"]
    assert ninja_p["furie"] == 1 and not ninja_p["hanging"]
    # With a point of furie, no Gotonpo.
    _, state = play(state, GM, {"kind": "roll_initiative"}, [9, 1, 1, 1, 1, 1])
    _, state = play(state, GM, {"kind": "attack", "technique": "coup_de_poing",
                                "target": "p2"}, [])
    assert refused(state, {"kind": "defend", "technique": "gotonpo"}).code == (
        "no_furie_allowed")


# — « pendant 1D6 tours » ———————————————————————————————————————————————————————

def test_nukite_wound_lasts_1d6_rounds_then_heals_with_a_log_line() -> None:
    state = two(fighter("nukite", "straight_punch"), fighter("blocage"), cid=20)
    _, state = play(state, GM, {"kind": "attack", "technique": "nukite", "target": "p2"}, [])
    # Rapidité 3: 8 against 2; aléatoire 5 → bras gauche; Force 3: 5 − 3 = 2 santé, and
    # « l'équivalent d'une blessure grave dont les effets durent 1D6 tours »: 2 rounds.
    events, state = play(state, GM, {"kind": "defend", "technique": "instinctive"},
                         [8, 1, 1, 2, 5, 5, 1, 1, 2])
    assert events[0].payload["damage"]["wound_rounds"] == 2
    hurt = state["participants"]["p2"]
    assert hurt["wounds"] == ["bras_gauche"] and hurt["temp_wounds"] == {"bras_gauche": 3}
    # The fight ends here: the passing wound is not written on the sheet.
    assert between_matches(state, {20: {"wounds": []}})[20]["wounds"] == []
    for _ in (2, 3):
        events, state = play(state, GM, {"kind": "roll_initiative"}, [9, 1, 1, 1, 1, 1])
        assert state["participants"]["p2"]["wounds"] == ["bras_gauche"]
    events, state = play(state, GM, {"kind": "roll_initiative"}, [9, 1, 1, 1, 1, 1])
    assert events[0].payload["ended"] == {"p2": {"wounds": ["bras_gauche"]}}
    hurt = state["participants"]["p2"]
    assert hurt["wounds"] == [] and hurt["temp_wounds"] == {}


def test_a_groin_kick_stuns_and_lames_for_one_shared_1d6_and_the_gm_clears_it() -> None:
    state = two(fighter("coup_dans_l_entrejambe", "straight_punch", furie=1),
                fighter("blocage"))
    _, state = play(state, GM, {"kind": "attack", "technique": "coup_dans_l_entrejambe",
                                "target": "p2"}, [])
    # 8 against 2; legs 3 → jambe droite; 5 − 3 = 2; one 1D6 = 4 rounds for both effects.
    events, state = play(state, GM, {"kind": "defend", "technique": "instinctive"},
                         [8, 1, 1, 2, 3, 5, 1, 1, 4])
    payload = events[0].payload
    assert payload["damage"]["wound_rounds"] == 4 and payload["durations"] == {"sonne": 4}
    hurt = state["participants"]["p2"]
    assert hurt["states"]["sonne"] == 5 and hurt["temp_wounds"] == {"jambe_droite": 5}
    assert hurt["posture"] == "a_terre"
    _, state = play(state, GM, {"kind": "gm_adjust", "participant": "p2", "field": "wound",
                                "value": "aucune", "reason": "soigné"}, [])
    assert state["participants"]["p2"]["wounds"] == []
    _, state = play(state, GM, {"kind": "gm_adjust", "participant": "p2", "field": "state",
                                "value": "aucun"}, [])
    assert state["participants"]["p2"]["states"] == {}


def test_a_stun_ends_by_itself_with_a_log_line() -> None:
    state = two(fighter("straight_punch"), fighter("blocage"))
    _, state = play(state, GM, {"kind": "gm_adjust", "participant": "p2", "field": "state",
                                "value": "sonné", "rounds": 1}, [])
    _, state = play(state, GM, {"kind": "roll_initiative"}, [9, 1, 1, 1, 1, 1])
    assert "sonne" in state["participants"]["p2"]["states"]
    events, state = play(state, GM, {"kind": "roll_initiative"}, [9, 1, 1, 1, 1, 1])
    assert events[0].payload["ended"] == {"p2": {"states": ["sonne"]}}


def test_the_gm_rolls_a_poison_duration_and_immunity_refuses_it() -> None:
    state = two(fighter("straight_punch"), fighter("blocage"))
    events, state = play(state, GM, {"kind": "gm_adjust", "participant": "p2",
                                     "field": "state", "value": "empoisonné",
                                     "roll_rounds": "on"}, [3])
    assert events[0].payload["rounds"] == 3
    assert state["participants"]["p2"]["states"]["empoisonne"] == 1 + 3
    state = two(fighter("straight_punch"), fighter("blocage",
                                                   talents=("immunite_biologique",)))
    refusal = refused(state, {"kind": "gm_adjust", "participant": "p2", "field": "state",
                              "value": "malade"})
    assert refusal.code == "immune" and "Immunité biologique" in refusal.message_fr()


# — running on rough ground ———————————————————————————————————————————————————————

def test_running_in_a_forest_takes_habilete_plus_course_or_falls() -> None:
    state = setup(("Jack", jack(), 10, 2), ("Deux", fighter("blocage"), None, None))
    _, state = play(state, GM, {"kind": "roll_initiative"}, [9, 1, 1, 1, 1])
    # « Forêt : Moyennement facile (6) »: Habileté 2 + Course 1: 4 + 1 = 5 — Jack falls.
    events, state = play(state, NICOLAS, {"kind": "manoeuvre", "what": "run",
                                          "terrain": "foret"}, [1, 4])
    test = events[0].payload["test"]
    assert (test["total"], test["difficulty"], test["success"]) == (5, 6, False)
    assert state["participants"]["p1"]["posture"] == "a_terre"
    _, state = play(state, GM, {"kind": "roll_initiative"}, [9, 1, 1, 1, 1])
    _, state = play(state, NICOLAS, {"kind": "manoeuvre", "what": "stand_up"}, [])
    assert state["participants"]["p1"]["actions_left"] == 2  # Vivacité du chat (house)
    events, state = play(state, NICOLAS, {"kind": "manoeuvre", "what": "run",
                                          "terrain": "verglas"}, [9, 3])
    assert events[0].payload["test"]["success"]  # 9 + 1 = 10 against 10
    assert state["participants"]["p1"]["posture"] == "debout"
    _, state = play(state, GM, {"kind": "roll_initiative"}, [9, 1, 1, 1, 1])
    events, _ = play(state, NICOLAS, {"kind": "manoeuvre", "what": "run"}, [])
    assert "test" not in events[0].payload  # flat ground: no test


def test_course_du_jaguar_adds_a_die_to_the_running_test() -> None:
    state = two(fighter("straight_punch", talents=("course_du_jaguar",)), fighter("blocage"))
    events, _ = play(state, GM, {"kind": "manoeuvre", "what": "run", "terrain": "neige"},
                     [1, 1, 1, 8])
    assert events[0].payload["test"]["jaguar"] and events[0].payload["test"]["success"]


# — house talent effects ——————————————————————————————————————————————————————————

def test_initiative_talents_and_instinct() -> None:
    state = setup(("Un", fighter("straight_punch", talents=("reflexes_du_guepard",)), None,
                   None), ("Deux", fighter("blocage", talents=("instinct_de_survie",)), None,
                           None))
    events, state = play(state, GM, {"kind": "roll_initiative"}, [5, 1, 1, 9, 1, 1])
    assert events[0].payload["scores"] == {"p2": 9, "p1": 6}  # Réflexes du guépard +1
    _, state = play(state, GM, {"kind": "end_turn"}, [])
    _, state = play(state, GM, {"kind": "attack", "technique": "coup_de_poing",
                                "target": "p2"}, [])
    # Instinct de survie: two dice of défense instinctive instead of one (actions 2 − 1).
    events, _ = play(state, GM, {"kind": "defend", "technique": "instinctive"},
                     [4, 1, 1, 1, 6])
    assert events[0].payload["defence_total"] == 6 and not events[0].payload["hit"]


def test_frenesie_resistance_and_zen_on_the_receiving_end() -> None:
    target = fighter("blocage", talents=("frenesie", "resistance_de_l_ours", "zen"))
    state = two(fighter("straight_punch", furie=3), target)
    _, state = play(state, GM, {"kind": "attack", "technique": "coup_de_poing",
                                "target": "p2"}, [])
    # 9 against 1; high 3 → torse; Force 3: 8 − (3 + 1) = 4; Frénésie: +2 furie.
    events, state = play(state, GM, {"kind": "defend", "technique": "instinctive"},
                         [9, 1, 1, 1, 3, 8, 1, 1])
    assert events[0].payload["damage"]["endurance"] == 4
    assert events[0].payload["damage"]["loss"] == 4
    assert state["participants"]["p2"]["furie"] == 2


def test_tenacite_and_sursaut_once_a_fight() -> None:
    tough = fighter("blocage", talents=("tenacite",))
    state = two(fighter("straight_punch"), tough)
    state["participants"]["p2"]["sante"] = 3
    _, state = play(state, GM, {"kind": "attack", "technique": "coup_de_poing",
                                "target": "p2"}, [])
    events, state = play(state, GM, {"kind": "defend", "technique": "instinctive"},
                         [9, 1, 1, 1, 3, 9, 1, 1])
    assert events[0].payload["damage"]["tenacite"]
    p2 = state["participants"]["p2"]
    assert (p2["sante"], p2["ko"], p2["talent_used"]) == (1, False, ["tenacite"])
    spender = fighter("straight_punch", "nukite", talents=("sursaut_d_energie",), volonte=2)
    state = two(spender, fighter("blocage"))
    state["participants"]["p1"]["energie"] = 2
    events, state = play(state, GM, {"kind": "attack", "technique": "nukite",
                                     "target": "p2"}, [])
    assert events[0].payload["sursaut"] == ["Un"]
    p1 = state["participants"]["p1"]
    assert p1["energie"] == 2 and "epuise" not in p1["states"]


def test_concentration_boost_and_the_eagle_eye() -> None:
    shooter = fighter("straight_punch", "blocage", weapons=("pistolet_9mm",),
                      talents=("concentration", "boost_d_energie", "oeil_d_aigle"))
    state = two(shooter, fighter("blocage"))
    events, state = play(state, GM, {"kind": "manoeuvre", "what": "prepare"}, [])
    assert state["participants"]["p1"]["prepared"] == 2
    _, state = play(state, GM, {"kind": "manoeuvre", "what": "draw",
                                "weapon": "pistolet_9mm"}, [])
    _, state = play(state, GM, {"kind": "roll_initiative"}, [9, 1, 1, 1, 1, 1])
    energie = state["participants"]["p1"]["energie"]
    _, state = play(state, GM, {"kind": "attack", "technique": "visee", "target": "p2",
                                "range": "longue", "boost": "on"}, [])
    pending = state["pending"]
    assert pending["modifiers"] == [] and pending["boost"] == 1  # no −2 at long range
    assert state["participants"]["p1"]["energie"] == energie - 2
    # Perception 3 + 2 (prepared) + 1 (boost) = 6 dice.
    events, _ = play(state, GM, {"kind": "defend", "technique": "instinctive"},
                     [1, 1, 1, 1, 1, 7, 2, 3, 4, 4])
    assert events[0].payload["attack_total"] == 7 and events[0].payload["damage"]["loss"] == 5
    plain = two(fighter("straight_punch"), fighter("blocage"))
    assert refused(plain, {"kind": "attack", "technique": "coup_de_poing", "target": "p2",
                           "boost": "on"}).code == "no_talent"


def test_aura_adds_a_die_to_intimidation() -> None:
    state = two(fighter("straight_punch", talents=("aura",)), fighter("blocage"))
    events, _ = play(state, GM, {"kind": "test", "participant": "p1",
                                 "characteristic": "temperament", "skill": "intimidation",
                                 "difficulty": "difficile"}, [1, 1, 1, 8])
    assert events[0].payload["talents"] == ["aura"] and events[0].payload["success"]


def test_fold_equals_the_state_over_the_new_actions() -> None:
    ninja = fighter("capture_du_kusarigama", "gotonpo", "shuriken",
                    weapons=("kusarigama", "senban"))
    setup_ = MatchSetup("Pli", (ParticipantSetup("Un", sheet=ninja),
                                ParticipantSetup("Deux", sheet=fighter("nukite", "blocage"))))
    events = TIAMAT.start(setup_, ScriptedDice([]))
    state = fold(TIAMAT, events)
    script = [
        ({"kind": "roll_initiative"}, [9, 1, 1, 1, 1, 1]),
        ({"kind": "manoeuvre", "what": "draw", "weapon": "senban"}, []),
        ({"kind": "attack", "technique": "shuriken", "target": "p2"}, []),
        ({"kind": "defend", "technique": "instinctive"}, [2, 1, 1, 5]),
        ({"kind": "roll_initiative"}, [1, 1, 1, 9, 1, 1]),
        ({"kind": "attack", "technique": "nukite", "target": "p1"}, []),
        ({"kind": "defend", "technique": "instinctive"}, [8, 1, 1, 2, 5, 5, 1, 1, 1]),
        ({"kind": "roll_initiative"}, [9, 1, 1, 1, 1, 1]),
        ({"kind": "roll_initiative"}, [9, 1, 1, 1, 1, 1]),
        ({"kind": "manoeuvre", "what": "run", "terrain": "foret"}, [2, 1, 1]),
    ]
    for action, faces in script:
        dice = ScriptedDice(faces)
        new, state = apply(TIAMAT, state, action, GM, dice)
        dice.assert_exhausted()
        events += new
    assert fold(TIAMAT, events) == state
    assert state["participants"]["p1"]["ammo"]["senban"] == 5
    assert state["participants"]["p1"]["wounds"] == []  # Nukite's 1 round is over
    assert state["participants"]["p1"]["posture"] == "a_terre"  # fell in the forest


def test_enchainement_d_iga_throws_the_kusarigama_from_afar_after_a_gotonpo() -> None:
    """« Il peut ensuite enchaîner gratuitement … « Capture du Kusarigama » en attaque à
    distance … alors « inévitables » »."""
    ninja = fighter("gotonpo", "capture_du_kusarigama", "metsubushi", "enchainement_d_iga",
                    weapons=("kusarigama",))
    state = two(fighter("straight_punch", "blocage"), ninja)
    state["participants"]["p2"]["weapon"] = "kusarigama"  # in hand from an earlier round
    _, state = play(state, GM, {"kind": "attack", "technique": "coup_de_poing",
                                "target": "p2"}, [])
    _, state = play(state, GM, {"kind": "defend", "technique": "gotonpo"}, [4, 1, 1, 8, 1, 1])
    options = state["combo"]["options"]
    index = options.index({"technique": "capture_du_kusarigama",
                           "chain": "enchainement_d_iga"})
    _, state = play(state, GM, {"kind": "combo", "option": index}, [])
    pending = state["pending"]
    assert pending["ranged"] and "inevitable" in pending["attributes"]
    # Esquive instinctive 9 against 2, yet « inévitable »: the chain catches Un anyway.
    events, state = play(state, GM, {"kind": "defend", "technique": "esquive_instinctive"},
                         [2, 1, 1, 1, 9, 1, 1, 3, 1, 1, 1, 1])
    assert events[0].payload["auto_fail"] == "inevitable" and events[0].payload["hit"]
    assert state["participants"]["p1"]["held_by"] == "p2"


def test_zen_rage_blind_fighting_ki_vision_and_the_monkey() -> None:
    # Zen: Braquage's Terrorisante does not take (Rapidité 3 + 1D10: 8 against 1; arm 2).
    state = two(fighter("braquage", "straight_punch"), fighter("blocage", talents=("zen",)))
    _, state = play(state, GM, {"kind": "attack", "technique": "braquage", "target": "p2"}, [])
    events, state = play(state, GM, {"kind": "defend", "technique": "instinctive"},
                         [8, 1, 1, 1, 1, 2])
    assert "zen" in events[0].payload["effects"]
    assert "terrorise" not in state["participants"]["p2"]["states"]
    # Rage du taureau: furie 3 of 6 adds 1D6 (4) to Force 3's best 5: 9 − 3 = 6.
    state = two(fighter("straight_punch", talents=("rage_du_taureau",), furie=3),
                fighter("blocage"))
    _, state = play(state, GM, {"kind": "attack", "technique": "coup_de_poing",
                                "target": "p2"}, [])
    events, _ = play(state, GM, {"kind": "defend", "technique": "instinctive"},
                     [9, 1, 1, 1, 3, 5, 1, 1, 4])
    assert events[0].payload["rage"] and events[0].payload["damage"]["loss"] == 6
    # Combat aveugle: blinded, a « Haut » blow is still allowed, with all three dice.
    for talents, allowed in (((), False), (("combat_aveugle",), True)):
        state = two(fighter("straight_punch", talents=talents), fighter("blocage"))
        _, state = play(state, GM, {"kind": "gm_adjust", "participant": "p1",
                                    "field": "state", "value": "aveuglé"}, [])
        action = {"kind": "attack", "technique": "coup_de_poing", "target": "p2"}
        if not allowed:
            assert refused(state, action).code == "blinded"
            continue
        _, state = play(state, GM, action, [])
        events, _ = play(state, GM, {"kind": "defend", "technique": "instinctive"},
                         [2, 1, 7, 9])
        assert events[0].payload["attack_total"] == 7 and not events[0].payload["hit"]
    # Vision du ki: darkness gives no −3.
    for talents, expected in (((), [[-3, "obscurité"]]), (("vision_du_ki",), [])):
        state = two(fighter("straight_punch", talents=talents, weapons=("pistolet_9mm",)),
                    fighter("blocage"))
        state["participants"]["p1"]["weapon"] = "pistolet_9mm"
        _, state = play(state, GM, {"kind": "attack", "technique": "visee", "target": "p2",
                                    "situation_obscurite": "on"}, [])
        assert state["pending"]["modifiers"] == expected
    # Agilité du singe: a 4 m jump (Habileté 3 + 1: difficulty 4) rolls four dice.
    state = two(fighter("straight_punch", talents=("agilite_du_singe",)), fighter("blocage"))
    events, state = play(state, GM, {"kind": "jump", "metres": 4}, [1, 1, 1, 4])
    assert events[0].payload["talent"] and events[0].payload["success"]
