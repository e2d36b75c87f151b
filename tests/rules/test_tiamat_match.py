"""Tiamat at the table through decide/evolve: the text's Shanghai warehouse example
(« Combat "Beat them all" § Exemple de combat ») replayed die by die, then the versus rules."""

from __future__ import annotations

import copy

import pytest

from app.rules.dice import ScriptedDice
from app.rules.match import Actor, IllegalAction, MatchSetup, ParticipantSetup, apply, fold
from app.rules.tiamat.errors import TiamatRefusal
from app.rules.tiamat.profiles import jin, ryu, voyous
from app.rules.tiamat.sheet import jack
from app.rules.tiamat.system import TIAMAT

GM = Actor(user_id=1, is_gm=True)
NICOLAS = Actor(user_id=2, character_ids=frozenset({10}))
GUY = Actor(user_id=3, character_ids=frozenset({11}))


def setup(*entries: tuple[str, dict, int | None, int | None]) -> dict:
    participants = tuple(ParticipantSetup(name, character_id=cid, owner_id=owner, sheet=sheet)
                         for name, sheet, cid, owner in entries)
    return fold(TIAMAT, TIAMAT.start(MatchSetup("Entrepôt n°8", participants), ScriptedDice([])))


def play(state: dict, actor: Actor, action: dict, faces: list[int]) -> tuple[list, dict]:
    dice = ScriptedDice(faces)
    events, after = apply(TIAMAT, state, action, actor, dice)
    dice.assert_exhausted()
    return events, after


def warehouse() -> dict:
    return setup(("Jack", jack(), 10, 2), ("Voyous", voyous(), None, None))


def test_the_shanghai_warehouse_example() -> None:
    state = warehouse()
    jack_p, thugs = state["participants"]["p1"], state["participants"]["p2"]
    assert (jack_p["sante"], jack_p["actions"], jack_p["armour"]) == (26, 2, 2)
    assert thugs["members"] == 4 and thugs["energie"] == 0 and thugs["furie"] == 0
    # « Nicolas lance 2 dés et obtient 3 et 8 … Le MJ lance un dé et obtient 5. »
    events, state = play(state, GM, {"kind": "roll_initiative"}, [3, 8, 5])
    assert state["order"] == ["p1", "p2"] and state["turn"] == "p1"
    assert events[0].payload["scores"] == {"p1": 8, "p2": 5}
    # « je me déplace jusqu'à celui qui est le plus proche. Je peux parcourir 8 mètres »
    events, state = play(state, NICOLAS, {"kind": "manoeuvre", "what": "move"}, [])
    assert events[0].payload["metres"] == 8
    # « ensuite je l'attaque avec ma technique 'Oi Zuki' »: the GM chooses no defence.
    _, state = play(state, NICOLAS, {"kind": "attack", "technique": "oi_zuki",
                                     "target": "p2"}, [])
    assert state["pending"]["technique"] == "oi_zuki"
    # précision 2D10 + 2 → 7 + 2 = 9 against one die 2; high location 10 → tête;
    # puissance Force 3: 2, 4, 6 → 6 − 2 (endurance) = 4: one voyou KO.
    events, state = play(state, GM, {"kind": "defend", "technique": "instinctive"},
                         [7, 3, 2, 10, 2, 4, 6])
    resolved = events[0].payload
    assert (resolved["attack_total"], resolved["defence_total"], resolved["hit"]) == (9, 2, True)
    assert resolved["damage"]["location"] == "tete" and resolved["damage"]["loss"] == 4
    assert state["participants"]["p2"]["down"] == 1
    # Jack has no action left: his turn passes by itself to the voyous.
    assert state["participants"]["p1"]["actions_left"] == 0 and state["turn"] == "p2"
    assert events[-1].kind == "turn_ended" and events[-1].payload["auto"]
    # Three voyous: Habileté 2 + 2D10 → 1, 4, 5, 7; the text's coup de pied « permet
    # d'ajouter 1 » (the GM's +1, see rules-notes) → 8. Jack has no action left: his
    # défense instinctive (one die) shows 2. The kick is « Bas »: legs table, 3 → right leg.
    # Force 2: 3 and 10 → critical d6 3 → 13 − 2 − 2 (blouson) = 9: no grave wound.
    # Everyone has played: the next round opens by itself, « 5 pour les voyous … 9 pour
    # Jack » (9, 4 and 5).
    events, state = play(state, GM, {"kind": "attack", "technique": "coup_de_pied",
                                     "target": "p1", "gm_modifier": 1},
                         [1, 4, 5, 7, 2, 3, 3, 10, 3, 9, 4, 5])
    resolved = next(e.payload for e in events if e.kind == "attack_resolved")
    assert resolved["attack_total"] == 8 and resolved["helpers"] == 2
    assert resolved["damage"]["loss"] == 9 and not resolved["damage"]["grave"]
    jack_p = state["participants"]["p1"]
    assert (jack_p["sante"], jack_p["furie"]) == (17, 1)
    assert [e.kind for e in events][-2:] == ["turn_ended", "initiative_rolled"]
    assert state["round"] == 2 and state["order"] == ["p1", "p2"]
    # Oi zuki on one voyou, Mae geri on another.
    _, state = play(state, NICOLAS, {"kind": "attack", "technique": "oi_zuki",
                                     "target": "p2"}, [])
    _, state = play(state, GM, {"kind": "defend", "technique": "instinctive"},
                    [8, 1, 3, 4, 5, 5, 1])
    assert state["participants"]["p2"]["down"] == 2
    # The voyous spent their action parrying? No: they kept it; this time they answer with
    # a parade instinctive (Habileté 2 + 1D10 for the second member) and fail.
    _, state = play(state, NICOLAS, {"kind": "attack", "technique": "mae_geri",
                                     "target": "p2"}, [])
    # Both sides have spent their actions: round 3 opens (Jack 6 and 2, the voyous 5).
    events, state = play(state, GM, {"kind": "defend", "technique": "parade_instinctive"},
                         [9, 2, 3, 1, 4, 7, 6, 2, 5, 6, 2, 5])
    assert events[0].payload["defence_total"] == 4 and events[0].payload["hit"]
    assert state["participants"]["p2"]["down"] == 3 and state["round"] == 3
    # « Le troisième prend la fuite »: the GM says so; the voyous are out of the fight.
    events, state = play(state, GM, {"kind": "gm_adjust", "participant": "p2",
                                     "field": "fled", "value": "oui",
                                     "reason": "il prend la fuite"}, [])
    assert TIAMAT.outcome(state).winners == ("Jack",) and state["turn"] is None
    assert events[-1].kind == "fight_decided"

def test_a_hit_that_takes_ten_makes_a_grave_wound_and_furie_stops_at_its_maximum() -> None:
    state = setup(("Jack", jack(), 10, 2), ("Jin", jin(), None, None))
    _, state = play(state, GM, {"kind": "roll_initiative"}, [1, 2, 9, 1, 1, 1])
    assert state["turn"] == "p2"
    jin_p = state["participants"]["p2"]
    # Jin kicks with Frappe du jaguar (Rapidité 4 + 2D10, 2 énergie): Jack parries with
    # Gedan-barai? No: the jaguar is « Aléatoire »; Age-uke only stops blows to the upper body.
    _, state = play(state, GM, {"kind": "attack", "technique": "frappe_du_jaguar",
                                "target": "p1"}, [])
    assert state["participants"]["p2"]["energie"] == jin_p["energie"] - 2
    with pytest.raises(TiamatRefusal) as refused:
        play(state, NICOLAS, {"kind": "defend", "technique": "age_uke"}, [])
    assert refused.value.code == "only_high"
    # Défense instinctive 4 against 9; location 1 → torse; Force 3: 10, 10, 9 → two d6 5, 6
    # → 21 − 2 − 2 = 17 ≥ 10: grave wound to the torso, 1D6 énergie lost (4).
    events, state = play(state, NICOLAS, {"kind": "defend", "technique": "instinctive"},
                         [9, 1, 1, 1, 1, 1, 4, 1, 10, 10, 9, 5, 6, 4])
    damage = events[0].payload["damage"]
    assert damage["loss"] == 17 and damage["grave"] and damage["location"] == "torse"
    jack_p = state["participants"]["p1"]
    assert jack_p["sante"] == 9 and "torse" in jack_p["wounds"]
    assert jack_p["energie"] == 32 - 4 and jack_p["furie"] == 1


def test_the_defender_wins_ties_and_a_successful_step_counts_for_chains() -> None:
    state = setup(("Ryu", ryu(), 11, 3), ("Jin", jin(), None, None))
    _, state = play(state, GM, {"kind": "roll_initiative"}, [9, 1, 1, 2, 1, 1, 1])
    assert state["turn"] == "p1"
    _, state = play(state, GUY, {"kind": "attack", "technique": "oi_zuki", "target": "p2"}, [])
    # Jin dodges with Salto (Habileté 4 + 2D10): 9 against Ryu's 7 + 2 = 9: a tie, the
    # attacker loses (« le personnage ayant initié l'action perd »).
    events, state = play(state, GM, {"kind": "defend", "technique": "salto"},
                         [7, 1, 1, 9, 1, 1, 1, 1, 1])
    assert not events[0].payload["hit"]
    assert state["participants"]["p2"]["chain"] == ["salto"]


def test_refusals_change_nothing() -> None:
    state = warehouse()
    with pytest.raises(TiamatRefusal) as refused:
        play(state, NICOLAS, {"kind": "attack", "technique": "oi_zuki", "target": "p2"}, [])
    assert refused.value.code == "no_round"
    _, state = play(state, GM, {"kind": "roll_initiative"}, [3, 8, 5])
    before = copy.deepcopy(state)
    for action, code in (
            ({"kind": "attack", "technique": "nidan_geri", "target": "p2"}, "not_known"),
            ({"kind": "attack", "technique": "oi_zuki", "target": "p1"}, "target_self"),
            ({"kind": "attack", "technique": "age_uke", "target": "p2"}, "not_an_attack"),
            ({"kind": "attack", "technique": "visee", "target": "p2"}, "weapon_needed"),
            ({"kind": "attack", "technique": "oi_zuki", "target": "p2", "gm_modifier": 3},
             "gm_only"),
            ({"kind": "roll_initiative"}, "gm_only")):
        with pytest.raises(Exception) as refused:
            play(state, NICOLAS, action, [])
        assert getattr(refused.value, "code", None) == code
    assert state == before
    assert "Français" not in refused.value.message_fr()


def boxer(*techniques: str, weapons: tuple[str, ...] = (), furie: int = 1) -> dict:
    return {"kind": "pnj", "characteristics": dict.fromkeys(
                ("force", "endurance", "habilete", "rapidite", "perception", "intelligence",
                 "temperament", "volonte"), 3) | {"force": 3, "rapidite": 3},
            "skills": {}, "talents": [], "arts": ["boxe", "kick_boxing"],
            "techniques": list(techniques), "sante": None, "energie": None, "furie": furie,
            "armour": "aucune", "weapons": list(weapons), "wounds": []}


def jack_first(other: dict, name: str = "Boxeur") -> dict:
    state = setup(("Jack", jack(), 10, 2), (name, other, None, None))
    faces = [9, 1] + [1] * other["characteristics"]["rapidite"]
    _, state = play(state, GM, {"kind": "roll_initiative"}, faces)
    assert state["turn"] == "p1"
    return state


def test_a_blocked_blow_opens_the_chain_oeil_pour_oeil() -> None:
    state = jack_first(boxer("straight_punch", "blocage", "oeil_pour_oeil"))
    _, state = play(state, NICOLAS, {"kind": "attack", "technique": "oi_zuki",
                                     "target": "p2"}, [])
    # Oi zuki 3 + 2 = 5 against Blocage (Force 3 + 1) 6 + 1 = 7: parried.
    events, state = play(state, GM, {"kind": "defend", "technique": "blocage"},
                         [3, 1, 6, 1, 1])
    assert not events[0].payload["hit"]
    assert state["combo"] == {"pid": "p2", "target": "p1", "options": [
        {"technique": "straight_punch", "chain": "oeil_pour_oeil"}]}
    # The chain: free Straight-punch for its furie point, sonné for 1D6 rounds.
    _, state = play(state, GM, {"kind": "combo", "option": 0}, [])
    boxer_p = state["participants"]["p2"]
    assert boxer_p["furie"] == 0 and boxer_p["actions_left"] == 1  # 2 actions, one parry
    # 8 against Jack's one die 2; location high 3 → torse; Force 3 + 2: 5 + 2 = 7 − 4 = 3;
    # sonné 1D6 = 4 rounds.
    events, state = play(state, NICOLAS, {"kind": "defend", "technique": "instinctive"},
                         [8, 1, 1, 2, 3, 5, 1, 1, 4])
    payload = events[0].payload
    assert payload["chain"] == "Œil pour œil" and payload["damage"]["loss"] == 3
    assert state["participants"]["p1"]["states"]["sonne"] == 1 + 4
    assert state["combo"] is None


def test_a_cross_counter_strikes_back() -> None:
    state = jack_first(boxer("straight_punch", "cross_counter"))
    _, state = play(state, NICOLAS, {"kind": "attack", "technique": "oi_zuki",
                                     "target": "p2"}, [])
    # Cross-counter (Rapidité 3) 7 beats the Oi zuki's 5: Jack takes the counter's puissance
    # Force 3: 9 − 2 − 2 = 5 on the head (high table 1).
    events, state = play(state, GM, {"kind": "defend", "technique": "cross_counter"},
                         [3, 1, 7, 1, 1, 1, 9, 1, 1])
    payload = events[0].payload
    assert payload["countered"] and not payload["hit"]
    assert payload["counter_damage"]["location"] == "tete"
    assert state["participants"]["p1"]["sante"] == 21
    assert state["participants"]["p2"]["furie"] == 0  # the counter's cost


def test_a_knife_parried_bare_handed_still_cuts() -> None:
    knifer = boxer("straight_punch", weapons=("couteau",), furie=0)
    knifer["characteristics"]["force"] = 2
    state = setup(("Couteau", knifer, None, None), ("Boxeur", boxer("blocage"), None, None))
    _, state = play(state, GM, {"kind": "roll_initiative"}, [9, 1, 1, 1, 1, 1])
    _, state = play(state, GM, {"kind": "manoeuvre", "what": "draw", "weapon": "couteau"}, [])
    _, state = play(state, GM, {"kind": "attack", "technique": "attaque_armee",
                                "target": "p2"}, [])
    assert "letale" in state["pending"]["attributes"]  # the knife makes it lethal
    with pytest.raises(TiamatRefusal):
        play(state, GM, {"kind": "defend", "technique": "parade_instinctive"}, [])
    # Attack 5 against Blocage 8 + 1: parried, yet the knife rolls Force 2 + 1D6: 6 + 4 = 10
    # against the parade's puissance Endurance 3 + 1D10: 3 (no armour): 7 santé lost.
    events, state = play(state, GM, {"kind": "defend", "technique": "blocage"},
                         [5, 1, 1, 8, 1, 1, 6, 1, 4, 3, 1, 1, 1])
    payload = events[0].payload
    assert not payload["hit"] and payload["lethal_parry"]["loss"] == 7
    assert state["participants"]["p2"]["sante"] == 36 - 7


def test_a_hold_and_a_failed_escape() -> None:
    state = setup(("Ryu", ryu(), 11, 3), ("Jack", jack(), 10, 2))
    _, state = play(state, GM, {"kind": "roll_initiative"}, [9, 1, 1, 2, 1])
    # Immobilisation (Force 2) 5 against Jack's défense instinctive 1: held, no damage.
    _, state = play(state, GUY, {"kind": "attack", "technique": "immobilisation",
                                 "target": "p2"}, [])
    events, state = play(state, NICOLAS, {"kind": "defend", "technique": "instinctive"},
                         [5, 1, 1, 3])
    assert events[0].payload["hit"] and events[0].payload["damage"]["loss"] == 0
    jack_p = state["participants"]["p2"]
    assert jack_p["held_by"] == "p1" and jack_p["escape_tries"] == 3
    _, state = play(state, GUY, {"kind": "end_turn"}, [])
    kinds = {form.kind for form in TIAMAT.legal_actions(state, NICOLAS)}
    assert "escape" in kinds and "attack" not in kinds
    # Force 3: 4 against Ryu's Force 2: 6 — still held, two tries left, the turn's actions
    # spent: everyone has played, round 2 opens (one try a turn for the held Jack).
    events, state = play(state, NICOLAS, {"kind": "escape"}, [4, 1, 1, 6, 1, 9, 1, 1, 2, 1])
    assert not events[0].payload["free"]
    assert state["participants"]["p2"]["escape_tries"] == 2
    assert state["round"] == 2 and state["participants"]["p2"]["actions_left"] == 1


def test_ko_finishing_off_and_rest() -> None:
    state = setup(("Jack", jack(), 10, 2), ("Boxeur", boxer("straight_punch"), None, None),
                  ("Second", boxer("straight_punch"), None, None))
    _, state = play(state, GM, {"kind": "roll_initiative"}, [9, 1, 1, 1, 1, 2, 1, 1])
    assert state["order"] == ["p1", "p3", "p2"]
    _, state = play(state, GM, {"kind": "gm_adjust", "participant": "p2", "field": "sante",
                                "value": 2, "reason": "déjà blessé"}, [])
    _, state = play(state, NICOLAS, {"kind": "attack", "technique": "oi_zuki",
                                     "target": "p2"}, [])
    # 9 against instinctive 1 (one action left, the boxer does not parry); high 5 → torse;
    # Force 3: 9 − 3 = 6 ≥ 2 santé: KO, not dead (the punch is not lethal).
    events, state = play(state, GM, {"kind": "defend", "technique": "instinctive"},
                         [7, 1, 1, 5, 9, 1, 1])
    assert events[0].payload["damage"]["ko"] and not events[0].payload["damage"]["dead"]
    boxer_p = state["participants"]["p2"]
    assert boxer_p["ko"] and boxer_p["sante"] == 0 and boxer_p["posture"] == "a_terre"
    with pytest.raises(TiamatRefusal) as refused:
        play(state, NICOLAS, {"kind": "coup_de_grace", "target": "p2"}, [])
    assert refused.value.code == "full_turn"
    # Jack keeps his action; the second boxer passes; round 2 opens (Jack first again).
    _, state = play(state, NICOLAS, {"kind": "end_turn"}, [])
    _, state = play(state, GM, {"kind": "end_turn"}, [9, 1, 1, 1, 1])
    assert state["round"] == 2 and state["turn"] == "p1"
    _, state = play(state, NICOLAS, {"kind": "coup_de_grace", "target": "p2"}, [])
    assert state["participants"]["p2"]["dead"]
    # Two days of rest for Jack's knuckles: no loss to heal, santé stays at its maximum.
    _, state = play(state, GM, {"kind": "recover", "participant": "p1", "what": "rest_days",
                                "amount": 2}, [3, 4])
    assert state["participants"]["p1"]["sante"] == 26


def test_a_fight_decided_asks_nobody_to_play_and_awaits_the_gm_s_end() -> None:
    """The boxer falls KO: Jack's side wins. No turn, no new round; the GM's « end the
    match » is awaited (first, marked awaited); Jack may still finish off his enemy (« Mise
    à mort », no turn needed once the fight is decided); the end keeps the result."""
    state = jack_first(boxer("straight_punch"))
    _, state = play(state, GM, {"kind": "gm_adjust", "participant": "p2", "field": "sante",
                                "value": 2, "reason": "déjà blessé"}, [])
    _, state = play(state, NICOLAS, {"kind": "attack", "technique": "oi_zuki",
                                     "target": "p2"}, [])
    events, state = play(state, GM, {"kind": "defend", "technique": "instinctive"},
                         [7, 1, 1, 5, 9, 1, 1])
    assert [e.kind for e in events] == ["attack_resolved", "fight_decided"]
    result = TIAMAT.outcome(state)
    assert result.winners == ("Jack",) and not result.over
    assert result.params == {"names": "Boxeur"} and state["turn"] is None
    gm_forms = TIAMAT.legal_actions(state, GM)
    assert gm_forms[0].kind == "end_match" and gm_forms[0].choices["awaited"]
    assert not {"roll_initiative", "attack", "end_turn"} & {f.kind for f in gm_forms}
    jack_forms = {f.kind for f in TIAMAT.legal_actions(state, NICOLAS)}
    assert "end_turn" not in jack_forms and "attack" not in jack_forms
    assert "coup_de_grace" in jack_forms
    refusal = refused_by(state, GM, {"kind": "roll_initiative"})
    assert refusal.code == "fight_decided" and refusal.message_fr().startswith(
        "le combat est joué")
    _, state = play(state, NICOLAS, {"kind": "coup_de_grace", "target": "p2"}, [])
    assert state["participants"]["p2"]["dead"]
    _, state = play(state, GM, {"kind": "end_match"}, [])
    assert state["status"] == "finished" and state["result"]["winners"] == ["Jack"]
    finished = TIAMAT.outcome(state)
    assert finished.over and finished.winners == ("Jack",)
    assert TIAMAT.legal_actions(state, GM) == []


def test_the_gm_ends_an_undecided_fight_and_a_correction_lets_a_decided_one_go_on() -> None:
    state = jack_first(boxer("straight_punch"))
    assert TIAMAT.outcome(state) is None
    assert next(f for f in TIAMAT.legal_actions(state, GM)
                if f.kind == "end_match").choices == {}
    # The boxer flees: decided; the GM brings him back (« fled: no »): the fight goes on.
    _, state = play(state, GM, {"kind": "gm_adjust", "participant": "p2", "field": "fled",
                                "value": "oui"}, [])
    assert TIAMAT.outcome(state).winners == ("Jack",)
    _, state = play(state, GM, {"kind": "gm_adjust", "participant": "p2", "field": "fled",
                                "value": "non"}, [9, 1, 1, 1, 1])
    assert TIAMAT.outcome(state) is None
    # No turn any more (the decision stopped it): a new round opens by itself.
    assert state["round"] == 2 and state["turn"] is not None
    _, state = play(state, GM, {"kind": "end_match"}, [])
    result = TIAMAT.outcome(state)
    assert result.over and result.winners == () and result.reason == "The GM ended the fight."


def refused_by(state: dict, actor: Actor, action: dict) -> TiamatRefusal:
    before = copy.deepcopy(state)
    with pytest.raises(TiamatRefusal) as caught:
        play(state, actor, action, [])
    assert state == before
    return caught.value


def test_jumping_over_the_ravine_and_a_surprise_roll() -> None:
    # « Saut »: Jack (Habileté 2, no Acrobatie… here +2) jumps 2 m freely; 5 m is difficile
    # (8): 2 dice 3 and 5 + 2 = 7 < 8 — he lands on the ground.
    state = jack_first(boxer("straight_punch"))
    events, state = play(state, NICOLAS, {"kind": "jump", "metres": 2}, [])
    assert events[0].payload["free"]
    events, state = play(state, NICOLAS, {"kind": "jump", "metres": 5}, [3, 5])
    assert events[0].payload["difficulty"] == 8 and not events[0].payload["success"]
    assert state["participants"]["p1"]["posture"] == "a_terre"
    with pytest.raises(TiamatRefusal):
        play(state, NICOLAS, {"kind": "jump", "metres": 8}, [])
    # Surprise: (Rapidité + Infiltration / Perception + Vigilance), the initiator loses ties.
    events, _ = play(state, GM, {"kind": "opposed", "participant_a": "p1",
                                 "characteristic_a": "rapidite", "skill_a": "infiltration",
                                 "participant_b": "p2", "characteristic_b": "perception",
                                 "skill_b": "vigilance"}, [6, 2, 7, 1, 1])
    payload = events[0].payload
    assert (payload["total_a"], payload["total_b"]) == (7, 7) and not payload["initiator_wins"]


def test_a_wolf_on_four_legs() -> None:
    from app.rules.tiamat.profiles import loup
    from app.rules.tiamat.sheet import validate

    assert validate(loup()) == []
    state = jack_first(loup(), "Loup")
    with pytest.raises(TiamatRefusal) as refused:  # Oi zuki aims high
        play(state, NICOLAS, {"kind": "attack", "technique": "oi_zuki", "target": "p2"}, [])
    assert refused.value.code == "quadruped"
    _, state = play(state, NICOLAS, {"kind": "attack", "technique": "mae_geri",
                                     "target": "p2"}, [])
    assert "esquive_animale" in {f.kind: f for f in TIAMAT.legal_actions(state, GM)}[
        "defend"].choices["options"]


def test_a_gm_weapon_is_copied_into_the_match() -> None:
    from app.rules.tiamat.sheet import validate

    content = {"weapon": [{"key": "gm-nunchaku", "name": "Nunchaku", "kind": "contact",
                           "d10": 1, "d6": 0, "letale": False, "source": "gm"}]}
    fighter = boxer("straight_punch", weapons=("gm-nunchaku",))
    assert validate(fighter) != [] and validate(fighter, content) == []
    participants = (ParticipantSetup("Jack", character_id=10, owner_id=2, sheet=jack()),
                    ParticipantSetup("Boxeur", sheet=fighter))
    state = fold(TIAMAT, TIAMAT.start(MatchSetup("Dojo", participants, {"content": content}),
                                      ScriptedDice([])))
    arsenal = state["participants"]["p2"]["arsenal"]
    assert arsenal["gm-nunchaku"]["d10"] == 1 and not arsenal["gm-nunchaku"]["letale"]
    _, state = play(state, GM, {"kind": "roll_initiative"}, [1, 1, 9, 1, 1])
    _, state = play(state, GM, {"kind": "manoeuvre", "what": "draw", "weapon": "gm-nunchaku"},
                    [])
    _, state = play(state, GM, {"kind": "attack", "technique": "attaque_armee",
                                "target": "p1"}, [])
    assert "letale" not in state["pending"]["attributes"]
    # Habileté 3: 8 against Jack's instinctive 1; random location 2 → torse; Force 3 + 1D10
    # (the nunchaku): 4 dice, best 9 − 2 − 2 = 5.
    events, state = play(state, NICOLAS, {"kind": "defend", "technique": "instinctive"},
                         [8, 1, 1, 1, 2, 9, 1, 1, 1])
    assert events[0].payload["damage"]["loss"] == 5


def test_tir_rapide_draws_and_fires_and_braquage_takes_the_gun() -> None:
    krav = boxer("tir_rapide", "straight_punch", "coup_de_tete", "nukite", "braquage",
                 weapons=("pistolet_9mm",))
    krav["arts"] = ["krav_maga"]
    state = setup(("Krav", krav, None, None), ("Jack", jack(), 10, 2))
    _, state = play(state, GM, {"kind": "roll_initiative"}, [9, 1, 1, 1, 1])
    # Tir rapide: the pistol comes to hand in the same action (1 énergie); point-blank +1.
    events, state = play(state, GM, {"kind": "attack", "technique": "tir_rapide",
                                     "target": "p2", "range": "bout_portant"}, [])
    assert events[0].payload["drawn"] == "Pistolet 9 mm"
    assert state["participants"]["p1"]["weapon"] == "pistolet_9mm"
    assert "letale" in state["pending"]["attributes"]
    # Perception 3 + 1D10, +1: 6 + 1 = 7 against 2; location 3 → torse; 2D6 (no Force, no
    # critical): 6 + 5 = 11 − 2 − 2 = 7.
    events, state = play(state, NICOLAS, {"kind": "defend", "technique": "instinctive"},
                         [6, 1, 1, 1, 2, 3, 6, 5])
    assert events[0].payload["attack_total"] == 7 and events[0].payload["damage"]["loss"] == 7
    # Jack answers: he draws his own pistol; the krav-maga fighter's Braquage takes it.
    _, state = play(state, GM, {"kind": "end_turn"}, [])
    _, state = play(state, NICOLAS, {"kind": "manoeuvre", "what": "draw",
                                     "weapon": "pistolet_9mm"}, [])
    _, state = play(state, NICOLAS, {"kind": "end_turn"}, [9, 1, 1, 1, 1])
    assert state["round"] == 2  # everyone has played: the next round opens by itself
    _, state = play(state, GM, {"kind": "attack", "technique": "braquage", "target": "p2"}, [])
    # Rapidité 3 + 1D10: 8 against 1; Bras (legs' halves) 2 → right arm; no damage.
    events, state = play(state, NICOLAS, {"kind": "defend", "technique": "instinctive"},
                         [8, 1, 1, 1, 1, 2])
    assert "weapon_taken" in events[0].payload["effects"]
    jack_p, krav_p = state["participants"]["p2"], state["participants"]["p1"]
    assert jack_p["weapon"] is None and "pistolet_9mm" not in jack_p["weapons"]
    assert krav_p["weapon"] == "pistolet_9mm" and "terrorise" in jack_p["states"]


def test_ma_sutemi_waza_takes_both_down_and_ends_the_attackers_turn() -> None:
    state = jack_first(boxer("ma_sutemi_waza"), "Judoka")
    _, state = play(state, NICOLAS, {"kind": "attack", "technique": "oi_zuki",
                                     "target": "p2"}, [])
    # Habileté 3 + 2D10: 9 beats the Oi zuki's 5; high location 1 → head; Force 3: 4 − 4 = 0.
    events, state = play(state, GM, {"kind": "defend", "technique": "ma_sutemi_waza"},
                         [3, 1, 9, 1, 1, 1, 1, 1, 4, 1, 1])
    assert events[0].payload["countered"]
    jack_p, judoka = state["participants"]["p1"], state["participants"]["p2"]
    assert jack_p["posture"] == "a_terre" and judoka["posture"] == "a_terre"
    assert judoka["energie"] == judoka["energie_max"] - 3
    assert state["turn"] == "p2" and jack_p["actions_left"] == 1


def test_blinded_and_drunk() -> None:
    state = jack_first(boxer("straight_punch"))
    _, state = play(state, GM, {"kind": "gm_adjust", "participant": "p1", "field": "state",
                                "value": "aveugle", "rounds": 1}, [])
    with pytest.raises(TiamatRefusal) as refused:  # Oi zuki aims high
        play(state, NICOLAS, {"kind": "attack", "technique": "oi_zuki", "target": "p2"}, [])
    assert refused.value.code == "blinded"
    # Mae geri is « Aléatoire »: allowed, one die less (Habileté 2 − 1 = 1 die, + 1).
    _, state = play(state, NICOLAS, {"kind": "attack", "technique": "mae_geri",
                                     "target": "p2"}, [])
    events, state = play(state, GM, {"kind": "defend", "technique": "instinctive"}, [4, 5])
    assert events[0].payload["attack_total"] == 5 and not events[0].payload["hit"]
    _, state = play(state, GM, {"kind": "gm_adjust", "participant": "p1", "field": "state",
                                "value": "ivre", "rounds": 3}, [])
    # Ivre: −1 to every action (Intelligence 2 + Langue 2 − 1).
    events, _ = play(state, NICOLAS, {"kind": "test", "participant": "p1",
                                      "characteristic": "intelligence", "skill": "langue",
                                      "difficulty": "tres_difficile"}, [1, 6])
    assert events[0].payload["total"] == 7


def test_the_gm_types_postures_and_states_as_the_page_names_them() -> None:
    """« à terre », « Sonné », « oui »: the words the page shows, accents and case optional;
    an unknown word is refused with the words it may be, never the keys."""
    state = jack_first(boxer("straight_punch"))
    _, state = play(state, GM, {"kind": "gm_adjust", "participant": "p1", "field": "posture",
                                "value": "À terre"}, [])
    assert state["participants"]["p1"]["posture"] == "a_terre"
    _, state = play(state, GM, {"kind": "gm_adjust", "participant": "p1", "field": "state",
                                "value": "Sonné", "rounds": 1}, [])
    assert "sonne" in state["participants"]["p1"]["states"]
    _, state = play(state, GM, {"kind": "gm_adjust", "participant": "p1", "field": "ko",
                                "value": "oui"}, [])
    assert state["participants"]["p1"]["ko"] is True
    _, state = play(state, GM, {"kind": "gm_adjust", "participant": "p1", "field": "state",
                                "value": "none", "rounds": 1}, [])
    assert state["participants"]["p1"]["states"] == {}
    with pytest.raises(IllegalAction) as refused:
        play(state, GM, {"kind": "gm_adjust", "participant": "p1", "field": "posture",
                         "value": "couché"}, [])
    assert refused.value.message_fr() == (
        "« Valeur » : attendu : l'un de debout, à terre, à genoux")
    assert "a_terre" not in refused.value.message


def test_a_refused_choice_names_its_field_and_the_game_words_never_keys() -> None:
    state = jack_first(boxer("straight_punch"))
    with pytest.raises(IllegalAction) as refused:
        play(state, GM, {"kind": "test", "participant": "p1", "characteristic": "force",
                         "difficulty": "impossible"}, [])
    assert refused.value.message_fr() == (
        "« Difficulté » : attendu : l'un de facile (4), moyennement facile (6), difficile (8), "
        "très difficile (10), héroïque (15), surhumaine (20)")
    with pytest.raises(IllegalAction) as refused:
        play(state, GM, {"kind": "test", "participant": "p1", "characteristic": "force",
                         "skill": "kung_fu"}, [])
    assert refused.value.message_fr() == ("« Compétence » : cette valeur n'est pas l'une de "
                                          "celles proposées")
    assert refused.value.message == "“Skill”: this value is not one of those offered"


def test_each_orders_event_carries_its_writers_orders_and_old_logs_fold_the_same() -> None:
    """« inscrivent secrètement leurs actions »: an ``orders_written`` holds its writer's
    orders only; a log written before (the whole map under ``set``) folds to the same
    state."""
    state = setup(("Jack", jack(), 10, 2), ("Dante", jack(), 11, 3))
    start = copy.deepcopy(state)
    events, state = play(state, GM, {"kind": "roll_initiative"}, [8, 2, 8, 3])
    log = list(events)
    for actor, pid, text in ((NICOLAS, "p1", "Oi zuki"), (GUY, "p2", "Mae geri")):
        events, state = play(state, actor, {"kind": "write_orders", "participant": pid,
                                            "orders": text}, [])
        assert events[0].payload["orders"] == text and "set" not in events[0].payload
        log += events
    assert state["orders"] == {"p1": "Oi zuki", "p2": "Mae geri"}
    old = [*log[:1], *(copy.deepcopy(event) for event in log[1:])]
    old[1].payload["set"] = {"orders": {"p1": "Oi zuki"}}
    old[2].payload["set"] = {"orders": {"p1": "Oi zuki", "p2": "Mae geri"}}
    assert fold(TIAMAT, old, start) == fold(TIAMAT, log, start) == state
