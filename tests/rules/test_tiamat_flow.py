"""The flow of a Tiamat fight (issue 23): standing defences that answer an attack at once,
turns that pass by themselves, combos let go, a flight that decides a fight, and forms that
offer only what exists and may be chosen now."""

from __future__ import annotations

from app.rules.match import Actor
from app.rules.tiamat.profiles import voyous
from app.rules.tiamat.sheet import jack
from app.rules.tiamat.system import TIAMAT
from tests.rules.test_tiamat_extras import fighter, refused
from tests.rules.test_tiamat_match import GM, NICOLAS, boxer, jack_first, play, setup

BRUNO = Actor(user_id=4, character_ids=frozenset({12}))


def forms(state: dict, actor: Actor = GM) -> dict:
    return {form.kind: form for form in TIAMAT.legal_actions(state, actor)}


def test_a_standing_parry_answers_at_once_when_it_may_and_asks_when_it_may_not() -> None:
    state = jack_first(boxer("straight_punch", "coup_de_pied"))
    assert forms(state, NICOLAS)["standing_defence"].choices["options"]["p1"] == [
        "age_uke", "gedan_barai", "esquive_instinctive", "parade_avec_arme_improvisee",
        "parade_instinctive"]
    events, state = play(state, NICOLAS, {"kind": "standing_defence",
                                          "choice": "p1:age_uke"}, [])
    assert events[0].visibility == "self" and state["participants"]["p1"][
        "standing_defence"] == "age_uke"
    # Another player and the voyous' GM-less view do not learn it; the GM does.
    assert TIAMAT.view(state, BRUNO)["participants"]["p1"]["standing_defence"] is None
    assert TIAMAT.view(state, NICOLAS)["participants"]["p1"]["standing_defence"] == "age_uke"
    assert TIAMAT.view(state, GM)["participants"]["p1"]["standing_defence"] == "age_uke"
    _, state = play(state, NICOLAS, {"kind": "end_turn"}, [])
    # A punch to the upper body: Age-uke answers at once (3 + 1D6 1 = 4 against 2).
    events, state = play(state, GM, {"kind": "attack", "technique": "straight_punch",
                                     "target": "p1"}, [2, 1, 1, 3, 1, 1])
    resolved = events[1].payload
    assert resolved["standing"] and resolved["defence"] == "Age-uke" and not resolved["hit"]
    assert state["pending"] is None and state["participants"]["p1"]["actions_left"] == 1
    # A kick to the legs: Age-uke may not parry it, so Jack is asked.
    _, state = play(state, GM, {"kind": "attack", "technique": "coup_de_pied",
                                "target": "p1"}, [])
    assert state["pending"]["technique"] == "coup_de_pied"
    assert "defend" in forms(state, NICOLAS)


def test_a_standing_defence_is_set_by_its_player_with_a_defence_it_knows() -> None:
    state = jack_first(boxer("straight_punch"))
    assert refused(state, {"kind": "standing_defence", "participant": "p2",
                           "technique": "instinctive"}, NICOLAS).code == "not_allowed"
    refusal = refused(state, {"kind": "standing_defence", "participant": "p1",
                              "technique": "blocage"}, NICOLAS)
    assert refusal.code == "bad_field" and "Age-uke" in refusal.message_fr()
    # The GM answers for the boxer: always the défense instinctive.
    _, state = play(state, GM, {"kind": "standing_defence", "participant": "p2",
                                "technique": "instinctive"}, [])
    events, state = play(state, NICOLAS, {"kind": "attack", "technique": "oi_zuki",
                                          "target": "p2"}, [5, 1, 1, 9, 1, 1, 1])
    assert events[1].payload["standing"] and events[1].payload["defence"] is None
    # Cleared: asked again.
    _, state = play(state, GM, {"kind": "standing_defence", "choice": "p2:"}, [])
    _, state = play(state, NICOLAS, {"kind": "attack", "technique": "oi_zuki",
                                     "target": "p2"}, [])
    assert state["pending"] is not None


def test_a_combo_on_offer_waits_and_may_be_let_go() -> None:
    """Charge enragée's Straight-punch is free after a hit: with no action left, the turn
    waits for the choice; letting it go passes the turn."""
    state = setup(("Boxeur", boxer("charge_enragee", "straight_punch", furie=4), None, None),
                  ("Jack", jack(), 10, 2))
    _, state = play(state, GM, {"kind": "roll_initiative"}, [9, 1, 1, 1, 1])
    state["participants"]["p1"]["actions_left"] = 1
    _, state = play(state, GM, {"kind": "attack", "technique": "charge_enragee",
                                "target": "p2"}, [])
    # 9 against Jack's défense instinctive 1: hit; high 5 → torse; Force 3 + 1D10: 4.
    events, state = play(state, NICOLAS, {"kind": "defend", "technique": "instinctive"},
                         [9, 1, 1, 1, 1, 1, 5, 4, 1, 1, 1])
    assert state["combo"]["options"] == [{"technique": "straight_punch", "chain": None}]
    assert state["turn"] == "p1" and state["participants"]["p1"]["actions_left"] == 0
    assert {"combo", "skip_combo"} <= set(forms(state))
    events, state = play(state, GM, {"kind": "skip_combo"}, [])
    assert [e.kind for e in events] == ["combo_declined", "turn_ended"]
    assert state["turn"] == "p2" and state["combo"] is None


def test_fleeing_takes_a_group_out_and_decides_the_fight() -> None:
    state = setup(("Voyous", voyous(), None, None), ("Jack", jack(), 10, 2))
    _, state = play(state, GM, {"kind": "roll_initiative"}, [9, 1, 1])
    assert state["turn"] == "p1"
    events, state = play(state, GM, {"kind": "manoeuvre", "what": "flee"}, [])
    assert state["participants"]["p1"]["fled"] and events[-1].kind == "fight_decided"
    assert TIAMAT.outcome(state).winners == ("Jack",)
    assert "attack" not in forms(state, NICOLAS) and state["turn"] is None


def test_the_attack_form_offers_only_pairs_the_rules_accept_now() -> None:
    """Projection needs a standing target; a KO fighter is a target only for a lethal
    technique (an improvised weapon here); the fighter's own techniques come first."""
    wrestler = fighter("projection", "straight_punch")
    state = setup(("Lutteur", wrestler, None, None), ("Debout", fighter("blocage"), None, None),
                  ("KO", fighter("blocage"), None, None))
    _, state = play(state, GM, {"kind": "roll_initiative"}, [9, 1, 1, 5, 1, 1, 3, 1, 1])
    state["participants"]["p3"].update(ko=True, sante=0, posture="a_terre")
    attack = forms(state)["attack"].choices
    assert attack["targets"] == ["p2", "p3"]
    assert attack["techniques"][:2] == ["projection", "straight_punch"]
    assert not attack["aimed"] and attack["ranged"]  # Lancer de projectile is always there
    refusal = refused(state, {"kind": "attack", "technique": "straight_punch", "target": "p3"})
    assert refusal.code == "ko_needs_lethal" and refusal.message_fr() == (
        "KO est KO : seule une attaque létale lui fait encore quelque chose (Straight-punch "
        "ne l'est pas)")
