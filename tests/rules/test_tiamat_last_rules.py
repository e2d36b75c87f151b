"""Tiamat to the last rule (issue 24), each item as the text says it: holds and their escapes,
a held fighter's only action, the art lists, Kendo's sword, kept actions played after
another fighter, tests in a fight, a lethal attack on a KO fighter, range modifiers, the
henchmen's ties and free move, Ivre, Terrorisé and its test, Tai sabaki at initiative."""

from __future__ import annotations

import pytest

from app.rules.dice import ScriptedDice
from app.rules.match import MatchSetup, ParticipantSetup, fold
from app.rules.tiamat.content import learnable, talent_from_dice, techniques
from app.rules.tiamat.errors import TiamatRefusal
from app.rules.tiamat.profiles import voyous
from app.rules.tiamat.sheet import jack, roll_talents, validate
from app.rules.tiamat.system import TIAMAT
from tests.rules.test_tiamat_techniques import (
    GM,
    act,
    act_events,
    duel,
    fighter,
    refused,
    resolved,
)


class ThenFives(ScriptedDice):
    """The scripted faces, then 5s for whatever follows by itself (a new round's
    initiative)."""

    def _take(self, sides: int) -> int:
        return super()._take(sides) if self.remaining else min(5, sides)


def scripted(state: dict, action: dict, faces: list[int]) -> tuple[dict, list]:
    dice = ThenFives(faces)
    events = TIAMAT.decide(state, action, GM, dice)
    dice.assert_exhausted()
    for event in events:
        state = TIAMAT.evolve(state, event)
    return state, events


def held(hold: str, **victim: int) -> dict:
    """p2 held by p1's ``hold``, on p2's turn with its actions."""
    state = duel(fighter(hold), fighter(all=3, **victim))
    if techniques()[hold].target == "down":
        state["participants"]["p2"]["posture"] = "a_terre"  # the ground holds need it
    state["participants"]["p2"]["standing_defence"] = "instinctive"
    state = act(state, {"kind": "attack", "technique": hold, "target": "p2", "gm_modifier": 10})
    assert state["participants"]["p2"]["held_by"] == "p1"
    state["turn"] = "p2"
    state["participants"]["p2"]["actions_left"] = 3
    return state


# — holds ——————————————————————————————————————————————————————————————————————

def test_prise_de_l_ours_is_escaped_by_endurance_at_one_energie_a_try() -> None:
    """« … test d'opposition (Endurance/Endurance). Il perd 1 point d'énergie à chaque
    tentative. Chaque tentative compte comme une action » (several a turn)."""
    state = held("prise_de_l_ours", endurance=2)
    energie = state["participants"]["p2"]["energie"]
    assert next(f for f in TIAMAT.legal_actions(state, GM) if f.kind == "escape").choices[
        "test"] == "Endurance"
    # Endurance 2: 5 against the holder's Endurance 4: 6 — still held, one énergie lost.
    state, events = scripted(state, {"kind": "escape"}, [5, 1, 6, 1, 1, 1])
    payload = events[0].payload
    assert not payload["free"] and payload["characteristic"] == "Endurance"
    victim = state["participants"]["p2"]
    assert victim["energie"] == energie - 1 and victim["actions_left"] == 2
    assert state["turn"] == "p2"  # another try this turn
    state, events = scripted(state, {"kind": "escape"}, [9, 1, 3, 1, 1, 1])
    assert events[0].payload["free"] and state["participants"]["p2"]["held_by"] is None
    assert state["participants"]["p2"]["energie"] == energie - 2


def test_portes_de_l_enfer_costs_a_sante_a_try_and_leaves_the_victim_sonne() -> None:
    state = held("portes_de_l_enfer")
    sante = state["participants"]["p2"]["sante"]
    state, _ = scripted(state, {"kind": "escape"}, [2, 1, 1, 8, 1, 1, 1])
    assert state["participants"]["p2"]["sante"] == sante - 1
    state, events = scripted(state, {"kind": "escape"}, [9, 1, 1, 3, 1, 1, 1])
    victim = state["participants"]["p2"]
    assert events[0].payload["free"] and victim["states"]["sonne"] == state["round"] + 1
    assert victim["sante"] == sante - 2


def test_the_last_sante_lost_in_portes_de_l_enfer_kills() -> None:
    state = held("portes_de_l_enfer")
    state["participants"]["p2"]["sante"] = 1
    state, events = scripted(state, {"kind": "escape"}, [2, 1, 1, 8, 1, 1, 1])
    assert events[0].payload["dead"] and state["participants"]["p2"]["dead"]


def test_prise_du_sommeil_leaves_its_victim_epuise_for_the_fight() -> None:
    state = held("prise_du_sommeil")
    state["participants"]["p2"]["actions_left"] = 1
    state, events = scripted(state, {"kind": "escape"}, [9, 1, 1, 3, 1, 1, 1])
    assert events[0].payload["released"] == "epuise"
    assert state["participants"]["p2"]["states"]["epuise"] >= 10_000


@pytest.mark.parametrize("action", [
    {"kind": "attack", "technique": "coup_de_poing", "target": "p1"},
    {"kind": "manoeuvre", "what": "move"}, {"kind": "manoeuvre", "what": "stand_up"},
    {"kind": "jump", "metres": 1}, {"kind": "test", "participant": "p2",
                                    "characteristic": "force"}])
def test_a_held_fighter_can_only_try_to_escape_whatever_it_sends(action: dict) -> None:
    state = held("immobilisation")
    state["participants"]["p2"]["posture"] = "debout"
    assert refused(state, action).message_fr() == ("Cible est immobilisé : il ne peut que "
                                                   "tenter de se libérer")


def test_a_held_fighter_defends_by_instinct_only() -> None:
    state = held("immobilisation")
    state["participants"]["p2"]["posture"] = "debout"
    state["turn"], state["participants"]["p1"]["actions_left"] = "p1", 3
    state["participants"]["p2"]["standing_defence"] = None
    state = act(state, {"kind": "attack", "technique": "coup_de_poing", "target": "p2"})
    assert state["pending"] is None  # answered at once: no defence to choose


# — creation ———————————————————————————————————————————————————————————————————

@pytest.mark.parametrize(("art", "known", "opens"), [
    ("kick_boxing", {"straight_punch"}, "straight_elbow_strike"),
    ("kick_boxing", {"straight_punch", "straight_elbow_strike"}, "inside_elbow_strike"),
    ("lutte", {"straight_punch"}, "straight_elbow_strike"),
    ("lutte", {"straight_punch", "straight_elbow_strike"}, "elbow_drop"),
    ("lutte", {"coup_de_la_corde_a_linge", "elbow_drop", "portes_de_l_enfer",
               "straight_punch", "straight_elbow_strike"}, "enchainement_de_la_mort"),
    ("ninjutsu", set(), "blocage"),
    ("ninjutsu", {"blocage"}, "secret_d_ishikawa_goemon")])
def test_the_art_lists_are_complete(art: str, known: set, opens: str) -> None:
    """« Techniques de Kick-Boxing / de Lutte »: Straight-elbow strike; « Techniques de
    Ninjutsu »: Blocage — learnt within the art."""
    assert opens in learnable(known, [art])


def test_a_talent_drawn_again_from_another_cell_is_drawn_again() -> None:
    assert talent_from_dice(7, 5) == talent_from_dice(8, 5)
    dice = ScriptedDice([7, 5, 8, 5, 4, 5])
    talents, _ = roll_talents(dice)
    dice.assert_exhausted()
    assert talents == ["transfert_d_energie", "sursaut_d_energie"]


def test_a_kendo_fighter_starts_with_a_bokken_or_a_katana() -> None:
    sheet = jack()
    sheet.update(arts=["kendo"], art_talents={"kendo": "concentration"},
                 techniques=["kesa_giri", "do_giri", "tsuki", "shomen"], weapons=[])
    problem = next(p for p in validate(sheet) if p.field == "weapons")
    assert problem.message == "A Kendo fighter starts with a Bokken or a Katana among the " \
                              "weapons."
    sheet["weapons"] = ["bokken"]
    assert not [p for p in validate(sheet) if p.field == "weapons"]


def test_a_sword_in_both_hands_forbids_punches_and_bare_hand_parries() -> None:
    state = duel(fighter("oi_zuki", "kesa_giri", "age_uke", weapons=("katana",)),
                 fighter("coup_de_poing", all=3))
    state["participants"]["p1"]["weapon"] = "katana"
    refusal = refused(state, {"kind": "attack", "technique": "oi_zuki", "target": "p2"})
    assert refusal.message_fr() == ("Oi zuki : l'arme de Kendo se tient à deux mains (ni "
                                    "coup de poing, ni parade à mains nues)")
    attack = next(f for f in TIAMAT.legal_actions(state, GM) if f.kind == "attack")
    assert "oi_zuki" not in attack.choices["techniques"]
    assert "kesa_giri" in attack.choices["techniques"]
    state["turn"] = "p2"
    state = act(state, {"kind": "attack", "technique": "coup_de_poing", "target": "p1"})
    assert refused(state, {"kind": "defend", "technique": "age_uke"}).code == "two_handed"


# — combat and states ——————————————————————————————————————————————————————————————

def test_kept_actions_are_played_after_another_fighter() -> None:
    """« Je garde une action pour jouer après tel personnage »: then any action."""
    state = fold(TIAMAT, TIAMAT.start(MatchSetup("Ruelle", (
        ParticipantSetup("Jack", sheet=fighter("oi_zuki")),
        ParticipantSetup("Poursuivant", sheet=fighter(all=3)),
        ParticipantSetup("Second", sheet=fighter(all=2)))), ScriptedDice([])))
    state, _ = scripted(state, {"kind": "roll_initiative"}, [9] * 4 + [5] * 3 + [2] * 2)
    assert state["order"] == ["p1", "p2", "p3"]
    assert refused(state, {"kind": "delay_turn", "after": "p1"}).code == "not_later"
    state, events = scripted(state, {"kind": "delay_turn", "after": "p2"}, [])
    assert state["order"] == ["p2", "p1", "p3"] and state["turn"] == "p2"
    state, _ = scripted(state, {"kind": "end_turn"}, [])
    assert state["turn"] == "p1" and state["participants"]["p1"]["actions_left"] == 5
    state["participants"]["p2"]["standing_defence"] = "instinctive"
    state, events = scripted(state, {"kind": "attack", "technique": "oi_zuki", "target": "p2"},
                             [9, 1, 1, 1, 1, 2, 3, 1])
    assert resolved(events)["hit"]


def test_a_test_in_a_fight_is_an_action_and_a_team_adds_every_skill() -> None:
    """« Agir en équipe »: Ryu (Perception 3, Investigation +1) rolls for Jack (2, +0) and
    Dante (1, +3): 3 + 2D10, best 7, + 4 = 11 (the text's example)."""
    def searcher(perception: int, investigation: int) -> dict:
        sheet = fighter(all=2, perception=perception)
        sheet["skills"] = {"investigation": investigation} if investigation else {}
        return sheet
    state = fold(TIAMAT, TIAMAT.start(MatchSetup("Maison de Jack", (
        ParticipantSetup("Jack", sheet=searcher(2, 0)),
        ParticipantSetup("Ryu", sheet=searcher(3, 1)),
        ParticipantSetup("Dante", sheet=searcher(1, 3)))), ScriptedDice([])))
    search = {"kind": "test", "participant": "p1", "characteristic": "perception",
              "skill": "investigation", "difficulty": "difficile",
              "helper_p2": "on", "helper_p3": "on"}
    state, events = scripted(state, search, [1, 2, 7, 3, 5])
    payload = events[0].payload
    assert payload["total"] == 11 and payload["roller"] == "Ryu" and payload["helpers"] == 2
    assert "changes" not in payload  # outside a round, no action spent
    state, _ = scripted(state, {"kind": "roll_initiative"}, [9, 1, 5, 1, 3, 1])
    assert state["order"] == ["p1", "p2", "p3"]
    state, events = scripted(state, search, [1, 2, 7, 3, 5])
    assert {pid: p["actions_left"] for pid, p in state["participants"].items()} == {
        "p1": 4, "p2": 4, "p3": 4}


def test_a_player_s_test_waits_for_its_turn_in_a_round() -> None:
    from app.rules.match import Actor
    paul = Actor(user_id=5, character_ids=frozenset({20}))
    state = fold(TIAMAT, TIAMAT.start(MatchSetup("Duel", (
        ParticipantSetup("Ennemi", sheet=fighter(all=3)),
        ParticipantSetup("Paul", character_id=20, owner_id=5, sheet=fighter(all=2)))),
        ScriptedDice([])))
    state, _ = scripted(state, {"kind": "roll_initiative"}, [9, 1, 1, 2, 1])
    assert state["turn"] == "p1"
    with pytest.raises(TiamatRefusal) as caught:
        TIAMAT.decide(state, {"kind": "test", "participant": "p2",
                              "characteristic": "force"}, paul, ScriptedDice([]))
    assert caught.value.code == "not_your_turn"
    assert not [f for f in TIAMAT.legal_actions(state, paul) if f.kind == "test"]


def test_a_lethal_attack_kills_a_ko_fighter_at_once() -> None:
    """« Il en va de même si, une fois KO, le personnage subit une attaque « létale » »: the
    target is inert (no défense instinctive)."""
    state = duel(fighter("oi_zuki", weapons=("couteau",)), fighter(all=3))
    state["participants"]["p2"].update(ko=True, sante=0, posture="a_terre")
    assert refused(state, {"kind": "attack", "technique": "oi_zuki", "target": "p2"}).code \
        == "ko_needs_lethal"
    state["participants"]["p1"]["weapon"] = "couteau"
    state, events = act_events(state, {"kind": "attack", "technique": "attaque_armee",
                                       "target": "p2"})
    payload = resolved(events)
    assert payload["inert"] and payload["hit"] and state["participants"]["p2"]["dead"]


@pytest.mark.parametrize(("weapon", "technique", "modifier"), [
    ("senban", "shuriken", []), ("pistolet_9mm", "visee", [[-2, "longue portée"]])])
def test_only_a_weapon_with_three_ranges_takes_a_range_modifier(weapon, technique,
                                                                modifier) -> None:
    """« Certaines armes n'ayant qu'une seule valeur de portée, comme les shurikens, ne
    subissent pas ce modificateur »."""
    state = duel(fighter(technique, weapons=(weapon,)), fighter(all=3))
    state["participants"]["p1"]["weapon"] = weapon
    state = act(state, {"kind": "attack", "technique": technique, "target": "p2",
                        "range": "longue"})
    assert state["pending"]["modifiers"] == modifier


def test_henchmen_lose_a_tie_before_rapidite_and_move_for_free() -> None:
    """« S'ils ont une égalité avec un personnage unique, c'est ce dernier qui remportera
    l'initiative »; « Les hommes de mains ont tous droit à une action de mouvement
    gratuite »."""
    quick = voyous()
    quick["characteristics"]["rapidite"] = 4
    state = fold(TIAMAT, TIAMAT.start(MatchSetup("Quai", (
        ParticipantSetup("Voyous", sheet=quick), ParticipantSetup("Jack", sheet=jack()))),
        ScriptedDice([])))
    state, _ = scripted(state, {"kind": "roll_initiative"}, [6, 1, 1, 1, 6, 2])
    assert state["order"] == ["p2", "p1"]  # 6 each; Jack's Rapidité 2 < 4, yet he acts first
    state["turn"] = "p1"
    state, events = scripted(state, {"kind": "manoeuvre", "what": "move"}, [])
    assert events[0].payload["free"] and state["participants"]["p1"]["actions_left"] == 1
    state, events = scripted(state, {"kind": "manoeuvre", "what": "move"}, [])
    assert "free" not in events[0].payload


def test_ivre_takes_one_from_initiative_and_the_defense_instinctive() -> None:
    state = duel(fighter("oi_zuki"), fighter(all=3))
    state["participants"]["p2"]["states"] = {"ivre": 10}
    state["participants"]["p1"]["states"] = {"ivre": 10}
    state["participants"]["p2"]["standing_defence"] = "instinctive"
    # Oi zuki (Habileté 4 + 2): 2 + 2 − 1 = 3; the défense instinctive (4 dice): 3 − 1 = 2.
    _, events = scripted(state, {"kind": "attack", "technique": "oi_zuki", "target": "p2"},
                         [2, 1, 1, 1, 3, 1, 1, 1])
    payload = resolved(events)
    assert payload["defence_total"] == 2 and payload["attack_total"] == 3
    state["turn"], state["participants"]["p1"]["actions_left"] = None, 0
    state["participants"]["p2"]["actions_left"] = 0
    state, events = scripted(state, {"kind": "roll_initiative"},
                             [5, 1, 1, 1, 4, 1, 1])
    assert events[0].payload["scores"] == {"p1": 4, "p2": 3}


def test_a_terrorised_fighter_overcomes_its_fear_with_an_action() -> None:
    """Braquage terrorises; « test d'opposition (Volonté/Tempérament) à chaque tour … cela
    compte comme une action »; énergie-costing defences are refused meanwhile."""
    state = duel(fighter("braquage"), fighter("absorption", all=3, weapons=("couteau",)))
    state["participants"]["p2"].update(weapon="couteau", standing_defence="instinctive")
    state = act(state, {"kind": "attack", "technique": "braquage", "target": "p2",
                        "gm_modifier": 10})
    victim = state["participants"]["p2"]
    assert "terrorise" in victim["states"] and victim["terrorised_by"] == "p1"
    state["turn"] = "p2"
    form = next(f for f in TIAMAT.legal_actions(state, GM) if f.kind == "overcome_fear")
    assert form.choices == {"source": "Attaquant"}
    # Volonté 3: 4 against the Tempérament 4: 4 — the initiator loses ties.
    state, events = scripted(state, {"kind": "overcome_fear"}, [4, 1, 1, 4, 1, 1, 1])
    assert not events[0].payload["won"] and "terrorise" in state["participants"]["p2"]["states"]
    assert state["participants"]["p2"]["actions_left"] == 4
    assert refused(state, {"kind": "overcome_fear"}).code == "fear_once"


def test_tai_sabaki_s_d6_goes_to_the_next_roll_even_an_initiative() -> None:
    state = duel(fighter("tai_sabaki"), fighter("coup_de_poing", all=3))
    state["turn"] = "p2"
    state = act(state, {"kind": "attack", "technique": "coup_de_poing", "target": "p1",
                        "gm_modifier": -10})
    state = act(state, {"kind": "defend", "technique": "tai_sabaki"})
    assert state["participants"]["p1"]["next_d6"] == 1
    state["turn"] = None
    for pid in state["participants"]:
        state["participants"][pid]["actions_left"] = 0
    state, events = scripted(state, {"kind": "roll_initiative"}, [7, 1, 1, 1, 4, 5, 1, 1])
    assert events[0].payload["scores"]["p1"] == 7 + 4
    assert state["participants"]["p1"]["next_d6"] == 0


def test_nukitsuke_draws_and_strikes_by_surprise_and_ends_standing_sword_in_hand() -> None:
    state = duel(fighter("nukitsuke", weapons=("katana",), infiltration=0),
                 fighter(all=3))
    state["participants"]["p2"]["standing_defence"] = "instinctive"
    state, events = act_events(state, {"kind": "attack", "technique": "nukitsuke",
                                       "target": "p2", "gm_modifier": 10})
    assert events[0].payload["drawn"] == "Katana"
    assert "attaque_surprise" in events[0].payload["attributes"]
    assert resolved(events)["surprise"] and state["participants"]["p1"]["weapon"] == "katana"
