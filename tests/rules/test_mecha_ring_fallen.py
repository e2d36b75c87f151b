"""A fallen Combatank's new torse and the crédits cards (seed 002_4824fb48e45db48f.txt,
§ Phase de marché: "doit piocher un torse … et en payer le coût à la banque. Si un joueur n'a
plus les moyens d'acheter le torse pioché, il a perdu par abandon"; § Cartes SFX: "peuvent être
jouées à tout moment"). Boris's robot falls short of crédits for the torse he draws, with a
Pari truqué (10 crédits, +40) in hand: the table waits for him to play it (house,
docs/rules-notes.md § Mecha-Ring)."""

from __future__ import annotations

import pytest

from app.rules.match import IllegalAction, fold
from app.rules.mecha_ring.bots import stand_in
from tests.rules.test_mecha_ring_reactions import at
from tests.rules.test_mecha_ring_rules import ANNA, BORIS, GM, MECHA, act, attack_phase

PARI = "pari_truque#1"


def about_to_fall(credits: int, sfx_hand=(PARI,), torse_cost: int = 30):
    """Anna strikes Boris's torse at 1 energy (his head already gone): the strike that ends
    the fight is the next action. Boris has ``credits`` and ``sfx_hand``; the torse he will
    draw (``torse_face``) costs ``torse_cost``."""
    state, first, second = attack_phase()
    weak = state["tokens"][second]
    weak["robot"]["tete"] = None
    weak["robot"]["torse"]["energy"] = 1
    weak["credits"] = credits
    weak["sfx_hand"] = list(sfx_hand)
    state["piles"]["sfx"] = [c for c in state["piles"]["sfx"] if c not in sfx_hand]
    state["tokens"][first]["credits"] = 0  # Anna can play nothing: no window
    _, state = act(state, {"kind": "attack", "target": second}, faces=[1, 2, 2])
    parts = state["catalogue"]["parts"]
    pile = state["piles"]["torse"]
    face = next(index + 1 for index, c in enumerate(pile)
                if parts[c.split("#")[0]]["value"] == torse_cost)
    # six attack dice (all 5) against the torse's défense (all 1), then the torse drawn
    defence = parts[weak["robot"]["torse"]["card"].split("#")[0]]["defense"]
    faces = [5] * 6 + [1] * defence + [(len(pile), face)]
    return state, first, second, faces


def test_the_fallen_player_may_play_a_credits_card_before_paying_the_torse():
    state, first, second, faces = about_to_fall(credits=10)
    events, after = act(state, {"kind": "choose_part", "slot": "torse"}, faces=faces)
    kinds = [event.kind for event in events]
    # 10 crédits for a torse of 30: not paid yet, and not out — he may play his card
    assert "tournament_ended" not in kinds and not after["tokens"][second]["out"]
    due = next(event for event in events if event.kind == "torso_due").payload
    assert due["seat"] == second and due["cost"] == 30 and due["credits"] == 10
    assert after["turn"] == second and after["status"] == "running"
    forms = {form.kind: form for form in MECHA.legal_actions(after, BORIS)}
    assert forms["play_sfx"].choices["cards"] == {second: [PARI]}
    assert "give_up_torse" in forms
    assert "give_up_torse" not in {form.kind for form in MECHA.legal_actions(after, ANNA)}
    with pytest.raises(IllegalAction):
        act(after, {"kind": "give_up_torse"}, ANNA)
    # the host holds every seat: the fallen one's cards come first in the SFX form
    both = {**after, "tokens": {**after["tokens"], first: {
        **after["tokens"][first], "credits": 50, "sfx_hand": ["pari_truque#2"]}}}
    hosts = {form.kind: form for form in MECHA.legal_actions(both, GM)}
    assert hosts["play_sfx"].choices["seats"] == [second, first]
    # the card: −10 + 40 = 40 crédits, the torse paid (30) at once, the market opens
    sfx_pile = len(after["piles"]["sfx"])
    played, done = act(after, {"kind": "play_sfx", "card": PARI}, BORIS,
                       faces=[(sfx_pile, 1)])
    assert [event.kind for event in played] == ["sfx_played", "dealt", "torso_paid",
                                                "market_opened"]
    assert done["tokens"][second]["robot"]["torse"]["card"] == due["card"]
    assert done["tokens"][second]["credits"] == 10 - 10 + 40 - 30
    assert done["shop"]["order"] == [second, first] and done["turn"] == second
    # the log is the truth: folding it gives the same table
    assert fold(MECHA, events + played, state) == done


def test_giving_up_the_torse_is_the_abandon_of_the_text():
    state, first, second, faces = about_to_fall(credits=10)
    _, waiting = act(state, {"kind": "choose_part", "slot": "torse"}, faces=faces)
    card = waiting["fight"]["due"]["card"]
    events, after = act(waiting, {"kind": "give_up_torse"}, BORIS)
    assert [event.kind for event in events] == ["torso_unpaid", "tournament_ended"]
    assert events[0].payload["reason"] == "gave_up"
    assert after["tokens"][second]["out"] and after["piles"]["torse_aside"] == [card]
    assert after["result"]["winner"] == first and after["result"]["champion"] is None


def test_a_card_that_does_not_cover_the_torse_leaves_him_out():
    """10 crédits and a torse of 50 (a campaign's own dearer torse): the card brings him to
    40, short still; once he holds no crédits card he can pay, he is out as the text says."""
    state, _first, second, faces = about_to_fall(credits=10, torse_cost=40)
    _, waiting = act(state, {"kind": "choose_part", "slot": "torse"}, faces=faces)
    waiting["fight"]["due"]["cost"] = 50
    waiting["piles"]["sfx"] = [c for c in waiting["piles"]["sfx"]
                               if not c.startswith("pari_truque")]
    sfx_pile = len(waiting["piles"]["sfx"])
    events, after = act(waiting, {"kind": "play_sfx", "card": PARI}, BORIS,
                        faces=[(sfx_pile, 1)])
    assert [event.kind for event in events][-2:] == ["torso_unpaid", "tournament_ended"]
    assert events[-2].payload["reason"] == "short" and after["tokens"][second]["out"]


@pytest.mark.parametrize(("credits", "sfx_hand"), [
    (5, (PARI,)),            # the card costs 10: he cannot pay it either
    (10, ("surcharge#1",)),  # no crédits card
])
def test_without_a_credits_card_he_can_play_the_loser_is_out_at_once(credits, sfx_hand):
    state, _first, second, faces = about_to_fall(credits=credits, sfx_hand=sfx_hand)
    events, after = act(state, {"kind": "choose_part", "slot": "torse"}, faces=faces)
    drawn = next(event for event in events if event.kind == "torso_drawn").payload
    assert not drawn["paid"] and after["tokens"][second]["out"]
    assert "torso_due" not in [event.kind for event in events]


def test_a_house_bot_plays_its_credits_card_and_the_hosts_stand_in_would_too():
    state, _first, second, faces = about_to_fall(credits=10)
    _, waiting = act(state, {"kind": "choose_part", "slot": "torse"}, faces=faces)
    assert stand_in(waiting) == {"kind": "play_sfx", "seat": second, "card": PARI}
    sfx_pile = len(waiting["piles"]["sfx"])
    events, after = act(waiting, {"kind": "set_bot", "seat": second, "on": "on"}, GM,
                        faces=[(sfx_pile, 1)])
    assert "torso_paid" in [event.kind for event in events]
    assert after["tokens"][second]["robot"]["torse"] is not None


def test_the_turn_timer_plays_the_credits_card_for_an_absent_player():
    state, _first, second, faces = about_to_fall(credits=10)
    _, state = act(state, {"kind": "set_timer", "seconds": 60}, GM)
    events, waiting = at(state, {"kind": "choose_part", "slot": "torse"}, GM, 100, faces)
    deadline = waiting["clock"]["deadline"]
    sfx_pile = len(waiting["piles"]["sfx"])
    events, after = at(waiting, {"kind": "timeout"}, ANNA, deadline + 1, [(sfx_pile, 1)])
    kinds = [event.kind for event in events]
    assert kinds[:2] == ["timed_out", "sfx_played"] and "torso_paid" in kinds
    assert events[0].payload["step"] == "torse" and not after["tokens"][second]["out"]
