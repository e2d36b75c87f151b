"""Mutatior: what the arena does by itself (issue 23: fights end, fewer clicks).

Standing orders strike or let go the strikes a mutant did not choose (§ 1-3), a follow-up
with nothing to strike with passes, a turn with nothing left ends, the next round starts, and
a fight with one team left is decided: no turn runs, the GM is offered to end it (§ 3-2 Fin du
carnage). Grosbaf (Patom's) against Zetzet (Yetzar's), from the second round of the text's
example (tests.rules.test_mutatior_system).
"""

from __future__ import annotations

import pytest

from app.rules.dice import SeededDice
from app.rules.match import IllegalAction, apply
from app.rules.mutatior.system import MUTATIOR
from tests.rules.test_mutatior_system import (
    GM,
    PATOM,
    YETZAR,
    example_match,
    limb,
    play,
    to_the_second_round,
)


def kinds(events):
    return [event.kind for event in events]


def test_standing_orders_strike_the_counter_attack_at_once():
    state = to_the_second_round(example_match())
    events, state = play(state, YETZAR, {"kind": "set_orders", "token": "m2",
                                         "strike": "always"}, [])
    assert state["standing"]["m2"] == {"strike": "always", "limb": None}
    # Grosbaf's horn on Zetzet's torso: 7 + 1 + 1 = 9 against 6 + 6 = 12. Zetzet may
    # counter-attack: its orders say strike, nobody is asked. Its pump roll 1 + 1 ≤ 8; its
    # strongest limb but the torso (the head, 5 muscles) at the Grosbaf limb that defends
    # worst, not the head that attacked (an arm, 6 muscles): 5 + 3 = 8 against 6 + 1 = 7.
    events, state = play(state, PATOM, {"kind": "attack", "limb": "m1:tête",
                                        "target": "m2:torse"}, [1, 6, 1, 1, 3, 1])
    assert kinds(events) == ["attacked", "pump_rolled", "attacked", "turn_ended",
                             "turn_started"]
    counter = events[2].payload
    assert events[1].payload["auto"] == counter["auto"] == "orders" and counter["counter"]
    assert (counter["limb"], counter["target_limb"]) == ("tête", "bras gauche")
    assert limb(state, "m1", "bras gauche")["lost_muscles"] == 1
    # Grosbaf missed and has nothing left to do: his turn ended by itself, Zetzet's began.
    assert events[3].payload["auto"] == "nothing" and state["turn"] == "m2"


def test_orders_to_let_strikes_go_and_to_ask_again():
    state = to_the_second_round(example_match())
    _, state = play(state, YETZAR, {"kind": "set_orders", "token": "m2", "strike": "never"}, [])
    events, state = play(state, PATOM, {"kind": "attack", "limb": "m1:tête",
                                        "target": "m2:torse"}, [1, 6])
    assert kinds(events) == ["attacked", "follow_up_declined", "turn_ended", "turn_started"]
    assert events[1].payload["auto"] == "orders" and state["pending"] is None
    # Back to asking: Zetzet's trainer is asked at the next counter-attack.
    _, state = play(state, YETZAR, {"kind": "set_orders", "token": "m2", "strike": "ask"}, [])
    assert state["standing"]["m2"]["strike"] == "ask"


def test_orders_for_all_my_mutants_or_one_limb_and_what_is_refused():
    state = to_the_second_round(example_match())
    events, state = play(state, PATOM, {"kind": "set_orders", "strike": "always"}, [])
    assert [e.payload["token"] for e in events] == ["m1"]  # all his mutants: Grosbaf
    form = next(f for f in MUTATIOR.legal_actions(state, PATOM) if f.kind == "set_orders")
    assert form.choices["tokens"] == ["m1"] and "tronc" not in form.choices["limbs"]["m1"]
    assert form.choices["orders"]["m1"] == {"strike": "always", "limb": None}
    # The form sends "token:limb"; the trunk never attacks (§ 1-3).
    _, state = play(state, PATOM, {"kind": "set_orders", "limb": "m1:bras droit",
                                   "strike": "always"}, [])
    assert state["standing"]["m1"] == {"strike": "always", "limb": "bras droit"}
    for action, actor in (({"limb": "m1:tronc"}, PATOM), ({"token": "m2"}, PATOM),
                          ({"strike": "sometimes"}, PATOM), ({"limb": "zz"}, PATOM)):
        with pytest.raises(IllegalAction) as refused:
            play(state, actor, {"kind": "set_orders", "strike": "always", **action}, [])
        # Said in words, never an internal value.
        assert "sometimes" not in refused.value.message_fr()
        assert "always" not in refused.value.message_fr()
    assert "Frappes qu'il n'a pas choisies" in _refusal_fr(state, {"strike": "sometimes"})
    assert "« Membre »" in _refusal_fr(state, {"limb": "m1:tronc"})


def _refusal_fr(state, fields):
    with pytest.raises(IllegalAction) as refused:
        play(state, PATOM, {"kind": "set_orders", **fields}, [])
    return refused.value.message_fr()


def test_a_second_attack_with_no_limb_left_passes_by_itself():
    state = to_the_second_round(example_match())
    # 7 + 1 + 3 = 11 against 6 + 2 = 8: Grosbaf may attack again (pump roll first).
    _, state = play(state, PATOM, {"kind": "attack", "limb": "m1:tête",
                                   "target": "m2:torse"}, [3, 2])
    assert state["pending"]["kind"] == "second_attack"
    # Its arms and legs are torn off (the GM's corrections): nothing may strike again, the
    # second attack goes, and with it the turn.
    for name in ("bras gauche", "bras droit", "jambe gauche"):
        _, state = play(state, GM, {"kind": "gm_correct", "limb": f"m1:{name}",
                                    "organ": "muscles", "lost": 6}, [])
    events, state = play(state, GM, {"kind": "gm_correct", "limb": "m1:jambe droite",
                                     "organ": "muscles", "lost": 6}, [])
    assert kinds(events) == ["gm_corrected", "follow_up_declined", "turn_ended",
                             "turn_started"]
    assert events[1].payload["auto"] == "nothing" and state["turn"] == "m2"


def test_a_fight_with_one_team_left_is_decided_and_the_gm_ends_it():
    state = to_the_second_round(example_match())
    assert MUTATIOR.outcome(state) is None
    # Zetzet loses its three lobes: dead (§ 1-5 Dégâts). Grosbaf's team alone is left.
    events, state = play(state, GM, {"kind": "gm_correct", "limb": "m2:tête",
                                     "organ": "lobes", "lost": 3}, [])
    assert kinds(events) == ["gm_corrected", "fight_decided"]
    assert state["decided"] and state["turn"] is None and state["activation"] is None
    decided = MUTATIOR.outcome(state)
    assert decided.winners == ("Grosbaf",) and not decided.over
    assert decided.reason == "No other team has a creature left in the arena."
    # Nobody is asked to play a fight that is over; the GM's end is what the table awaits.
    assert kinds_of(MUTATIOR.legal_actions(state, PATOM)) == ["note"]
    gm_forms = MUTATIOR.legal_actions(state, GM)
    assert gm_forms[0].kind == "end_fight" and gm_forms[0].choices["awaited"]
    assert gm_forms[0].choices["winner"] == "owner-10"
    with pytest.raises(IllegalAction, match="decided"):
        play(state, GM, {"kind": "new_round"}, [])
    # The GM revives Zetzet: the fight goes on, a new round starts (Grosbaf 4, Zetzet 3).
    events, state = play(state, GM, {"kind": "gm_correct", "limb": "m2:tête",
                                     "organ": "lobes", "lost": 0}, [3, 1])
    assert kinds(events)[:3] == ["gm_corrected", "fight_resumed", "round_started"]
    assert not state["decided"] and state["turn"] == "m1" and MUTATIOR.outcome(state) is None
    _, state = play(state, GM, {"kind": "gm_correct", "limb": "m2:tête", "organ": "lobes",
                                "lost": 3}, [])
    # Ended: the winner the form proposed; the outcome is final.
    _, state = apply(MUTATIOR, state, {"kind": "end_fight", "winner": "owner-10"}, GM,
                     SeededDice(1))
    over = MUTATIOR.outcome(state)
    assert over.over and over.winners == ("Grosbaf",)


def test_both_trainers_stopping_is_an_outcome_without_winner():
    state = to_the_second_round(example_match())
    _, state = apply(MUTATIOR, state, {"kind": "end_fight", "both_stop": "1"}, GM,
                     SeededDice(1))
    over = MUTATIOR.outcome(state)
    assert over.over and over.winners == () and over.reason == \
        "Both trainers stopped the fight."


def test_no_outcome_before_the_fight():
    state = example_match()
    assert MUTATIOR.outcome(state) is None
    assert "set_orders" in kinds_of(MUTATIOR.legal_actions(state, PATOM))


def kinds_of(forms):
    return [form.kind for form in forms]
