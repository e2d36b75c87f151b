"""Cyborg Anti-Alien: a fight that ends, and fewer clicks in a round (issue 23).

One side with nobody left who can fight (dead, unconscious, fled…) decides the fight: the GM
is offered to end it — the mission goes on — or the mission; nobody else is awaited. A group
with nobody left who may act hands over by itself. The attack form offers each attacker its
own weapons (``armed``) and never someone who cannot be chosen.
"""

from __future__ import annotations

import pytest

from app.rules.cyborg.profiles import PROFILES
from app.rules.match import IllegalAction, ParticipantSetup
from tests.rules.test_cyborg_system import ALICE, CYBORG, GM, act, lab, next_to


def forms_of(state, actor):
    return {form.kind: form for form in CYBORG.legal_actions(state, actor)}


def test_the_acting_group_is_awaited_and_hands_over_when_nobody_may_act():
    state = lab(ParticipantSetup("Vigile", 12, None, PROFILES["vigile"].sheet))
    assert not forms_of(state, ALICE)["move"].choices["awaited"]  # no fight, no turns
    _, state = act(state, {"kind": "roll_initiative"})
    assert state["initiative"]["order"] == ["cyborgs", "aliens", "humains"]
    # The cyborgs act: Kenji's player is awaited, the GM (playing the others) is not.
    assert forms_of(state, ALICE)["attack"].choices["awaited"]
    assert forms_of(state, ALICE)["move"].choices["awaited"]
    assert not forms_of(state, GM)["attack"].choices["awaited"]
    # Kenji shoots; nobody else of his group may act: the aliens' turn comes by itself, and
    # the GM is awaited for the octopus.
    events, state = act(state, {"kind": "attack", "armed": "t1:fusil_a_canon_scie",
                                "target": "t2"}, [99], actor=ALICE)
    assert [e.kind for e in events] == ["attacked", "phase_ended"]
    assert events[1].payload == {**events[1].payload, "group": "cyborgs", "auto": True,
                                 "next": "aliens"}
    assert forms_of(state, GM)["attack"].choices["awaited"]
    assert "attack" not in forms_of(state, ALICE)
    # The GM's move form proposes the one who acts now first.
    assert forms_of(state, GM)["move"].choices["tokens"][0] == "t2"
    # The guard is knocked out: when the octopus has acted, the humans' turn passes too and
    # round 2 begins with the cyborgs.
    _, state = act(state, {"kind": "set_state", "token": "t3", "state": "unconscious",
                           "on": "on"})
    state = next_to(state, "t2")
    events, state = act(state, {"kind": "attack", "armed": "t2:tentacules", "target": "t1"},
                        [99])
    assert [e.kind for e in events] == ["attacked", "phase_ended", "phase_ended"]
    assert state["round"] == 2 and state["initiative"]["active"] == 0


def test_only_the_attackers_own_weapons_and_never_an_unchoosable_target():
    state = lab(ParticipantSetup("Vigile", 12, None, PROFILES["vigile"].sheet))
    _, state = act(state, {"kind": "roll_initiative", "surprise": "aliens"})
    _, state = act(state, {"kind": "set_state", "token": "t3", "state": "fled", "on": "on"})
    attack = forms_of(state, GM)["attack"]
    assert attack.choices["tokens"] == ["t2"]
    offered = [key for key, _name in attack.choices["weapons"]["t2"]]
    assert offered == [*state["tokens"]["t2"]["weapons"], "poing"]
    assert "fusil_a_canon_scie" not in offered and list(attack.choices["weapons"]) == ["t2"]
    # Kenji's shotgun is not the octopus': sent through the form's one list, refused.
    with pytest.raises(IllegalAction) as refused:
        act(state, {"kind": "attack", "armed": "t2:fusil_a_canon_scie", "target": "t1"})
    assert refused.value.code == "not_your_weapon"
    # Alone to attack, the octopus is not offered as its own target; the guard who fled is
    # gone: neither a target nor anyone to choose.
    assert attack.choices["targets"] == ["t1"]
    with pytest.raises(IllegalAction) as refused:
        act(state, {"kind": "attack", "armed": "t2:tentacules", "target": "t3"})
    assert refused.value.code == "not_a_target"


def test_a_side_that_can_no_longer_fight_decides_the_fight():
    state = lab()
    _, state = act(state, {"kind": "roll_initiative"})
    assert CYBORG.outcome(state) is None
    events, state = act(state, {"kind": "set_state", "token": "t2", "state": "unconscious",
                                "on": "on"})
    decided = CYBORG.outcome(state)
    assert decided.winners == ("cyborgs",) and not decided.over
    assert decided.reason == "No opponent of the cyborgs can fight any more."
    # The GM's end of the fight and of the mission come first, awaited; the player may still
    # act (an unconscious alien can be finished off) but is not awaited.
    gm_forms = CYBORG.legal_actions(state, GM)
    assert [form.kind for form in gm_forms[:2]] == ["end_fight", "end_mission"]
    assert all(form.choices["awaited"] for form in gm_forms[:2])
    assert not any(form.choices.get("awaited") for form in CYBORG.legal_actions(state, ALICE))
    # Ending the fight: no group acts in turn any more; the mission goes on.
    events, state = act(state, {"kind": "end_fight"})
    assert events[0].payload["winners"] == ["cyborgs"]
    assert state["initiative"] is None and state["status"] == "running"
    assert CYBORG.outcome(state) is None and "end_fight" not in forms_of(state, GM)
    with pytest.raises(IllegalAction):
        act(state, {"kind": "end_fight"})
    # Ended with the match, the outcome is final.
    _, state = act(state, {"kind": "end_match"})
    over = CYBORG.outcome(state)
    assert over.over and over.winners == ("cyborgs",) and over.reason == \
        "The GM ended the match."


def test_when_the_cyborgs_fall_the_aliens_win_and_only_the_gm_is_awaited():
    state = lab()
    _, state = act(state, {"kind": "roll_initiative", "surprise": "aliens"})
    _, state = act(state, {"kind": "set_state", "token": "t1", "state": "fled", "on": "on"})
    decided = CYBORG.outcome(state)
    assert decided.winners == ("aliens",) and decided.reason == "No cyborg can fight any more."
    assert not forms_of(state, GM)["attack"].choices["awaited"]


def test_nobody_able_to_act_anywhere_stops_the_rounds():
    state = lab()
    _, state = act(state, {"kind": "roll_initiative"})
    _, state = act(state, {"kind": "set_state", "token": "t2", "state": "dead", "on": "on"})
    events, state = act(state, {"kind": "set_state", "token": "t1", "state": "coma",
                                "on": "on"})
    assert [e.kind for e in events] == ["state_set"]  # no round after round of nobody
    assert CYBORG.outcome(state).winners == ()


def test_the_api_may_still_name_the_attacker_and_the_weapon_apart():
    state = lab()
    _, state = act(state, {"kind": "roll_initiative"})
    events, _ = act(state, {"kind": "attack", "token": "t1", "weapon": "fusil_a_canon_scie",
                            "target": "t2"}, [99], actor=ALICE)
    assert events[0].payload["weapon"] == "fusil_a_canon_scie"


def test_the_form_proposes_a_weapon_that_reaches_the_nearest_foe():
    state = lab()
    _, state = act(state, {"kind": "roll_initiative"})
    # The octopus is far: Kenji's shotgun, not his chainsaw (nor the grenade launcher).
    assert forms_of(state, ALICE)["attack"].choices["preferred"] == {"t1": "fusil_a_canon_scie"}
    # In contact, the chainsaw.
    state = next_to(state, "t2")
    assert forms_of(state, ALICE)["attack"].choices["preferred"] == {"t1": "tronconneuse"}
