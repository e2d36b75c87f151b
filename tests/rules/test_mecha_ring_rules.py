"""Mecha-Ring's rules (seed 002_4824fb48e45db48f.txt) replayed step by step with ScriptedDice:
the set-up, the order and the climb, the radar, the strike, a fall, the bets, the market and
the end of the tournament. The text has no worked example with numbers: each test follows one
of its sentences (quoted) on a table whose robots are set by hand."""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.rules.dice import ScriptedDice, SeededDice
from app.rules.match import (
    Actor,
    Event,
    IllegalAction,
    MatchSetup,
    ParticipantSetup,
    apply,
    fold,
)
from app.rules.mecha_ring import content
from app.rules.mecha_ring.robot import Strike, order_by_movement, targets
from app.rules.registry import get_system

MECHA = get_system("mecha_ring")
GM = Actor(1, is_gm=True)
ANNA = Actor(10, character_ids=frozenset({1}))
BORIS = Actor(11, character_ids=frozenset({2}))

STRONG = {"tete": "tete_parabole#1", "bras_g": "bras_marteau_pilon#1",
          "bras_d": "bras_marteau_pilon#2", "jambes": "jambes_sprinter#1",
          "torse": "chassis_enclume#1"}  # M3 R3 A6, value 200
WEAK = {"tete": "crane_blinde#1", "bras_g": "bras_bouclier#1", "bras_d": "poing_rouille#1",
        "jambes": "chenilles#1", "torse": "tronc_rouille#1"}  # M1 R1 A3, value 110


def begin(players: int = 2, implants=(5, 0, 2, 1), seed: int = 7) -> dict:
    """A tournament just set up, its first round's order not rolled yet (the server rolls
    it at once; the tests roll it by hand with ``roll_order``, on faces they choose)."""
    setup = MatchSetup("Tournoi", tuple(
        ParticipantSetup(f"P{i + 1}", character_id=i + 1, owner_id=10 + i,
                         sheet={"implants": implants[i]}) for i in range(players)))
    return at_order(fold(MECHA, MECHA.start(setup, SeededDice(seed))))


def at_order(state: dict) -> dict:
    """The same table before the round's order is rolled."""
    state = copy.deepcopy(state)
    state["window"] = None
    state["fight"].update(step="order", order=[], rolls={}, climb_queue=[], attacker=0,
                          pending=None)
    state["turn"] = None
    return state


def with_robots(state: dict, *robots: dict) -> dict:
    """The same table with the robots set by hand (energy 4 everywhere) and no SFX card in
    any hand (no reaction window opens unless a test deals a card)."""
    state = copy.deepcopy(state)
    for tid, robot in zip(state["seats"], robots, strict=False):
        state["tokens"][tid]["robot"] = {slot: {"card": card, "energy": 4}
                                         for slot, card in robot.items()}
    for tid in state["seats"]:
        state["piles"]["sfx"] += state["tokens"][tid]["sfx_hand"]
        state["tokens"][tid]["sfx_hand"] = []
    return state


def act(state, action, actor=GM, faces=()):
    dice = ScriptedDice(faces)
    events, after = apply(MECHA, state, action, actor, dice)
    dice.assert_exhausted()
    return events, after


# — the cards ——————————————————————————————————————————————————————————————————————

def test_every_card_is_house_content_with_its_reason():
    assert {card["family"] for card in content.PARTS.values()} == set(content.FAMILIES)
    for card in [*content.PARTS.values(), *content.SFX.values()]:
        assert card["source"] == "house" and card["reason"]
    torses = content.instances(content.PARTS, "torse")
    assert len(torses) >= 20 and len(content.instances(content.PARTS)) - len(torses) >= 60
    with pytest.raises(ValueError, match="reason"):
        content._check("x", {"source": "house"})


def test_a_campaigns_own_cards_join_the_deck():
    found = content.deck({"part": [{"key": "gm-bras-laser", "name": "Bras laser",
                                    "family": "bras", "mouvement": 0, "radar": 0,
                                    "attaque": 4, "defense": 1, "value": 60, "copies": 2}],
                          "sfx": [{"key": "gm-x", "name": "X", "effect": "nope"}]})
    assert found["parts"]["gm-bras-laser"]["source"] == "gm"
    assert "gm-x" not in found["sfx"]  # an effect the engine cannot apply is skipped
    fewer = content.deck({"left_out": [{"key": "gm-a", "name": "a", "card": "poing_rouille"},
                                       {"key": "gm-b", "name": "b", "card": "sabotage"}]})
    assert "poing_rouille" not in fewer["parts"] and "sabotage" not in fewer["sfx"]
    assert "bras_scie" in fewer["parts"]


# — § Mise en place ——————————————————————————————————————————————————————————————

def test_the_set_up_follows_the_text():
    state = begin(3, implants=(0, 5, 2))
    # "en commençant par celui qui a le plus d'implants artificiels"
    assert state["seats"] == ["t2", "t3", "t1"]
    parts = state["catalogue"]["parts"]
    values = {}
    for tid, seat in state["tokens"].items():
        # every robot complete, every part at 4 energy
        assert all(part and part["energy"] == 4 for part in seat["robot"].values())
        assert len(seat["hand"]) == 5 and len(seat["sfx_hand"]) == 1
        values[tid] = sum(parts[p["card"].split("#")[0]]["value"]
                          for p in seat["robot"].values())
    assert len(state["market"]) == 4  # players + 1
    low = min(values, key=values.get)
    high = max(values, key=values.get)
    assert state["tokens"][low]["credits"] == 100 and state["tokens"][high]["credits"] == 50
    # the challenger: the lowest value, the first in the draft order among ties (house)
    assert state["challenger"] == next(tid for tid in state["seats"]
                                       if values[tid] == values[low])
    assert state["fight"]["step"] == "order"
    # every card is somewhere exactly once
    everywhere = [c for pile in state["piles"].values() for c in pile] + state["market"]
    for seat in state["tokens"].values():
        everywhere += seat["hand"] + seat["sfx_hand"] + [p["card"] for p in
                                                          seat["robot"].values()]
    deck = content.instances(state["catalogue"]["parts"]) + content.instances(
        state["catalogue"]["sfx"])
    assert sorted(everywhere) == sorted(deck)


# — § Tour de jeu ————————————————————————————————————————————————————————————————————

def test_order_by_movement_dice_ties_reroll_one_die_then_climb():
    state = with_robots(begin(), STRONG, WEAK)
    first, second = state["seats"]
    # STRONG rolls 3 dice (1, 1, 2 = 4), WEAK 1 die (4): tie, one die each: 2 vs 5.
    events, state = act(state, {"kind": "roll_order"}, faces=[1, 1, 2, 4, 2, 5])
    assert events[0].payload["tiebreaks"] == [{first: 2, second: 5}]
    assert state["fight"]["order"] == [second, first]
    # from last to first: the strong robot climbs for one leg energy
    assert state["turn"] == first
    _, state = act(state, {"kind": "climb", "climb": "on"})
    assert state["fight"]["order"] == [first, second]
    assert state["tokens"][first]["robot"]["jambes"]["energy"] == 3
    # the weak robot, now last, may climb back (its chenilles have energy)
    _, state = act(state, {"kind": "climb", "climb": ""})
    assert state["fight"]["step"] == "attack" and state["turn"] == first


def attack_phase(order_faces=(6, 6, 6, 1)) -> tuple[dict, str, str]:
    state = with_robots(begin(), STRONG, WEAK)
    first, second = state["seats"]
    _, state = act(state, {"kind": "roll_order"}, faces=list(order_faces))
    # the leader cannot climb; the second keeps its place
    _, state = act(state, {"kind": "climb"})
    return state, first, second


def test_radar_odd_face_lets_the_attacker_choose_and_the_torso_is_protected():
    state, first, second = attack_phase()
    assert state["turn"] == first
    # "S'il obtient un ou plusieurs chiffre(s) impair(s), il peut choisir le morceau"
    _, state = act(state, {"kind": "attack", "target": second}, faces=[2, 4, 3])
    assert state["fight"]["pending"]["chooser"] == first
    # "on ne peut viser le torse que s'il manque déjà un autre morceau"
    assert "torse" not in targets(state["tokens"][second]["robot"])
    with pytest.raises(IllegalAction):
        act(state, {"kind": "choose_part", "slot": "torse"})
    # nobody holds an SFX card: no reaction window, the strike follows at once
    # 6 attack dice: 6, 6, 1, 1, 1, 1 = 16 against the crâne blindé's 3 dice 6, 5, 4 = 15
    events, state = act(state, {"kind": "choose_part", "slot": "tete"},
                        faces=[6, 6, 1, 1, 1, 1, 6, 5, 4])
    assert [event.kind for event in events] == ["part_chosen", "struck"]
    struck = events[1].payload
    # "un point d'énergie, plus un point supplémentaire par 6 sorti dans le jet d'attaque"
    assert struck["hit"] and struck["damage"] == 3 and struck["energy_after"] == 1


def test_an_even_radar_lets_the_defender_choose_unless_radar_energy_is_spent():
    state, first, second = attack_phase()
    _, state = act(state, {"kind": "attack", "target": second}, faces=[2, 4, 6])
    # the attacker answers first whether it spends radar energy (issue 25: the text's order,
    # no race with the defender): the defender may not choose yet
    assert state["fight"]["pending"]["step"] == "boost" and state["turn"] == first
    with pytest.raises(IllegalAction):
        act(state, {"kind": "choose_part", "slot": "bras_g"}, BORIS)
    # "transformer son échec au radar en réussite en dépensant un point d'énergie"
    _, boosted = act(state, {"kind": "boost_radar", "slot": "tete"}, ANNA)
    assert boosted["fight"]["pending"]["chooser"] == first
    assert boosted["tokens"][first]["robot"]["tete"]["energy"] == 3
    # without the boost the defender picks its shield arm, and the strike follows at once
    _, state = act(state, {"kind": "decline_boost"}, ANNA)
    assert state["fight"]["pending"]["chooser"] == second and state["turn"] == second
    events, state = act(state, {"kind": "choose_part", "slot": "bras_g"}, BORIS,
                        faces=[1, 1, 1, 1, 1, 2, 3, 3, 2])
    # 7 against 8: "L'attaque est réussie si la somme des dés dépasse celle de la défense"
    assert events[-1].kind == "struck" and not events[-1].payload["hit"]
    assert state["tokens"][second]["robot"]["bras_g"]["energy"] == 4
    assert state["turn"] == second  # the next attacker


def test_the_attacker_boosts_its_radar_against_a_house_bot_defender():
    """Issue 25: the bot used to choose its part inside the attacker's own action, so the
    attacker never had the moment to spend radar energy."""
    state, first, second = attack_phase()
    state["tokens"][second]["bot"] = True
    _, state = act(state, {"kind": "attack", "target": second}, ANNA, faces=[2, 4, 6])
    assert state["fight"]["pending"]["step"] == "boost"  # the bot waits for the attacker
    _, state = act(state, {"kind": "boost_radar", "slot": "tete"}, ANNA)
    assert state["fight"]["pending"]["chooser"] == first


def test_the_boost_and_the_part_aimed_at_are_one_click():
    state, first, second = attack_phase()
    _, state = act(state, {"kind": "attack", "target": second}, ANNA, faces=[2, 4, 6])
    boost = next(f for f in MECHA.legal_actions(state, ANNA) if f.kind == "boost_radar")
    assert "tete" in boost.choices["aims"] and "torse" not in boost.choices["aims"]
    events, state = act(state, {"kind": "boost_radar", "slot": "tete", "aim": "bras_d"}, ANNA,
                        faces=[1] * 6 + [6])
    assert [e.kind for e in events][:3] == ["radar_boosted", "part_chosen", "struck"]
    assert events[1].payload["slot"] == "bras_d" and events[1].payload["by"] == first


def test_a_part_may_spend_its_last_energy_point_and_goes_to_the_adversary():
    """§ Tour de jeu: climbing and the radar boost spend "un point d'énergie"; the text does
    not keep the last one back (issue 25: a house rule forbade it). The part at 0 is
    destroyed, "le joueur en donne la carte à son adversaire": the one it climbed over, the
    defender it aims at. The torse never spends its last point."""
    state = with_robots(begin(), STRONG, WEAK)
    first, second = state["seats"]
    state["tokens"][second]["robot"]["jambes"]["energy"] = 1
    _, state = act(state, {"kind": "roll_order"}, faces=[6, 6, 6, 1])
    assert state["fight"]["climb_queue"][0] == second  # asked, with its legs' last point
    events, state = act(state, {"kind": "climb", "climb": "on"}, BORIS)
    assert events[0].payload["destroyed"] == "chenilles#1" and events[0].payload["to"] == first
    assert state["tokens"][second]["robot"]["jambes"] is None
    assert state["tokens"][first]["loot"] == ["chenilles#1"]
    assert state["fight"]["order"] == [second, first]
    _, state = act(state, {"kind": "climb", "climb": ""}, ANNA)  # the other keeps its place
    # the weak robot attacks, its radar (crâne blindé, at 1) fails: it spends that last point
    state["tokens"][second]["robot"]["tete"]["energy"] = 1
    _, state = act(state, {"kind": "attack", "target": first}, BORIS, faces=[2])
    forms = {f.kind: f for f in MECHA.legal_actions(state, BORIS)}
    assert forms["boost_radar"].choices["slots"] == ["tete"]
    _, state = act(state, {"kind": "boost_radar", "slot": "tete"}, BORIS)
    assert state["tokens"][second]["robot"]["tete"] is None
    assert state["tokens"][first]["loot"] == ["chenilles#1", "crane_blinde#1"]
    from app.rules.mecha_ring.robot import radar_spendable
    torse_radar = {"torse": {"card": "cuirasse_scarabee#1", "energy": 1}}
    assert radar_spendable({**dict.fromkeys(("tete", "bras_g", "bras_d", "jambes")),
                            **torse_radar}, state["catalogue"]["parts"], last=True) == []


def test_the_attacker_may_not_act_for_the_defender():
    state, first, _second = attack_phase()
    with pytest.raises(IllegalAction):
        act(state, {"kind": "attack", "target": first}, BORIS)


def test_a_destroyed_part_goes_to_the_loot_and_a_fallen_torso_ends_the_fight():
    state, first, second = attack_phase()
    weak = state["tokens"][second]
    weak["robot"]["tete"] = None          # a part already missing: the torse is a target
    weak["robot"]["torse"]["energy"] = 1
    state["tokens"][first]["fight_loot"] = ["crane_blinde#1"]
    state["tokens"][first]["loot"] = ["crane_blinde#1"]
    credits = {tid: state["tokens"][tid]["credits"] for tid in state["seats"]}
    _, state = act(state, {"kind": "attack", "target": second}, faces=[1, 2, 2])
    # the hit destroys the torse; the loser draws a new torse (one die picks it in the
    # pile) and pays it; the market opens, loser first
    events, state = act(state, {"kind": "choose_part", "slot": "torse"},
                        faces=[5, 5, 5, 5, 5, 5, 1, 1, (len(state["piles"]["torse"]), 1)])
    kinds = [event.kind for event in events]
    assert kinds == ["part_chosen", "struck", "fight_ended", "torso_drawn", "market_opened"]
    events = events[1:]
    ended = events[1].payload
    assert ended["winner"] == first
    # bets: the value of the loot won in this fight (crâne blindé 25 + tronc rouillé 25)
    assert ended["payouts"][first] == 50
    assert state["tokens"][first]["credits"] == credits[first] + 50
    assert len(state["tokens"][first]["loot"]) == 2
    torso = events[2].payload
    assert torso["paid"] and state["tokens"][second]["robot"]["torse"]["card"] == torso["card"]
    assert state["tokens"][second]["credits"] == credits[second] - torso["cost"]
    assert state["shop"]["order"] == [second, first] and state["turn"] == second


def test_a_torse_drawn_but_not_paid_lies_face_up_and_an_old_log_put_it_back():
    """"Si un joueur n'a plus les moyens d'acheter le torse pioché, il a perdu par
    abandon": the torse shown to everyone is set aside face up (house), not put back in the
    pile the players cannot see; a log from before, which put it back, folds as it did."""
    state, _first, second = attack_phase()
    weak = state["tokens"][second]
    weak["robot"]["tete"] = None
    weak["robot"]["torse"]["energy"] = 1
    weak["credits"] = 0
    _, state = act(state, {"kind": "attack", "target": second}, faces=[1, 2, 2])
    events, after = act(state, {"kind": "choose_part", "slot": "torse"},
                        faces=[5, 5, 5, 5, 5, 5, 1, 1, (len(state["piles"]["torse"]), 1)])
    drawn = next(event for event in events if event.kind == "torso_drawn")
    card = drawn.payload["card"]
    assert not drawn.payload["paid"] and after["tokens"][second]["out"]
    assert card not in after["piles"]["torse"] and after["piles"]["torse_aside"] == [card]
    assert MECHA.view(after, ANNA)["piles"]["torse_aside"] == [card]
    old = [Event(event.kind, {key: value for key, value in event.payload.items()
                              if key != "aside"}) if event is drawn else event
           for event in events]
    before = fold(MECHA, old, state)
    assert card in before["piles"]["torse"] and "torse_aside" not in before["piles"]


def test_the_draft_discards_lie_face_down_and_an_old_log_folds_the_same():
    """"Toutes les cartes défaussées sont mélangées et remises sur le dessus de la pioche":
    face down (house), since the hands are dealt from them: the draft says to everyone who
    discarded, the host alone which cards. A log from before named them in the draft."""
    setup = MatchSetup("Tournoi", tuple(ParticipantSetup(f"P{i}", character_id=i,
                                                         owner_id=10 + i) for i in (1, 2)))
    events = MECHA.start(setup, SeededDice(7))
    drafted = next(event for event in events if event.kind == "drafted")
    on_top = next(event for event in events if event.kind == "discards_on_top")
    cards = on_top.payload["cards"]
    assert cards and on_top.visibility == "gm"
    assert len(drafted.payload["discards"]) == len(cards)
    assert not any(f'"{card}"' in json.dumps(drafted.payload) for card in cards)
    drawn = fold(MECHA, events[:events.index(on_top) + 1])
    assert drawn["piles"]["parts_top"] == cards and not set(cards) & set(drawn["piles"]["parts"])
    state = fold(MECHA, events)  # the hands are dealt from them first
    named = iter(cards)
    old_steps = [step if "card" in step else {**step, "card": next(named)}
                 for step in drafted.payload["steps"]]
    old = [Event("drafted", {**drafted.payload, "steps": old_steps, "discards": cards})
           if event is drafted else event for event in events if event is not on_top]
    assert fold(MECHA, old) == state


def test_the_challenger_doubles_the_bets_when_winning():
    state, first, second = attack_phase()
    state["fight"]["challenger"] = first
    strong = state["tokens"][second]
    strong["robot"]["tete"] = None
    strong["robot"]["torse"]["energy"] = 1
    _, state = act(state, {"kind": "attack", "target": second}, faces=[1, 2, 2])
    events, _ = act(state, {"kind": "choose_part", "slot": "torse"},
                    faces=[5, 5, 5, 5, 5, 5, 1, 1, (len(state["piles"]["torse"]), 1)])
    torse = state["catalogue"]["parts"]["tronc_rouille"]["value"]
    assert events[2].payload["payouts"][first] == 2 * torse and events[2].payload["doubled"]


def test_a_loser_who_cannot_pay_the_torso_is_out_and_the_last_one_wins_without_title():
    state, first, second = attack_phase()
    weak = state["tokens"][second]
    weak["robot"]["tete"] = None
    weak["robot"]["torse"]["energy"] = 1
    weak["credits"] = 0
    _, state = act(state, {"kind": "attack", "target": second}, faces=[1, 2, 2])
    events, state = act(state, {"kind": "choose_part", "slot": "torse"},
                        faces=[5, 5, 5, 5, 5, 5, 1, 1, (len(state["piles"]["torse"]), 1)])
    assert [e.kind for e in events][-1] == "tournament_ended"
    assert state["tokens"][second]["out"]
    assert state["result"] == {"winner": first, "champion": None, "reason": "alone",
                               "points": {first: 1, second: 0}}
    assert state["status"] == "finished"


@pytest.mark.parametrize(("first_points", "winner_is_first", "winner_points", "expected"), [
    (11, True, 0, "champion"),       # reaches 12 and wins the fight: champion
    (11, False, 13, "overtaken"),    # the fight's winner has more: winner and champion
    (11, False, 5, "no_title"),      # the first to 12 wins the game, not the title
])
def test_the_end_of_the_tournament(first_points, winner_is_first, winner_points, expected):
    state, first, second = attack_phase()
    # first reaches 12 by destroying the weak robot's head; the fight then goes on
    state["tokens"][first]["loot"] = [f"poing_rouille#{i}" for i in range(first_points)]
    state["tokens"][second]["robot"]["tete"]["energy"] = 1
    _, state = act(state, {"kind": "attack", "target": second}, faces=[1, 2, 2])
    _, state = act(state, {"kind": "choose_part", "slot": "tete"},
                   faces=[5, 5, 5, 5, 5, 5, 1, 1, 1])
    assert state["first_to_12"] == first
    # now the second attacks and ends the fight one way or the other
    loser = second if winner_is_first else first
    winner = first if winner_is_first else second
    state["tokens"][second]["loot"] = [f"chenilles#{i}" for i in range(winner_points)]
    state["tokens"][loser]["robot"]["bras_g"] = None
    state["tokens"][loser]["robot"]["torse"]["energy"] = 1
    attacker = state["fight"]["order"][state["fight"]["attacker"]]
    assert attacker == second
    # the weak robot's head is gone: no radar die, the defender chooses, the strike follows
    if winner_is_first:  # the weak robot misses; the strong one then wins next round
        _, state = act(state, {"kind": "attack", "target": first}, BORIS)
        _, state = act(state, {"kind": "choose_part", "slot": "bras_d"}, ANNA,
                       faces=[1, 1, 6, 6])
        # the strong robot, untouched, has nothing to repair: ready by itself; once the
        # weak one is ready, the next round's order is rolled at once
        assert state["fight"]["ready"] == [first]
        _, state = act(state, {"kind": "ready", "seat": second}, faces=[6, 6, 6, 1])
        _, state = act(state, {"kind": "climb"})
        _, state = act(state, {"kind": "attack", "target": second}, faces=[1, 1, 1])
        _, state = act(state, {"kind": "choose_part", "slot": "torse"},
                       faces=[5, 5, 5, 5, 5, 5, 1, 1])
    else:  # three 6s against the chassis enclume's four dice: 1 + 3 energy, it falls
        _, state = act(state, {"kind": "attack", "target": first}, BORIS)
        _, state = act(state, {"kind": "choose_part", "slot": "torse"}, ANNA,
                       faces=[6, 6, 6, 1, 1, 1, 1])
    result = state["result"]
    assert result["reason"] == expected
    if expected == "no_title":
        assert result["winner"] == first and result["champion"] is None
    else:
        assert result["winner"] == winner and result["champion"] == winner


# — between rounds, the market, SFX ————————————————————————————————————————————————————

def test_repairs_between_rounds():
    state, first, second = attack_phase()
    state["fight"].update(step="repairs", ready=[])
    seat = state["tokens"][second]
    seat["robot"]["bras_d"] = None
    seat["robot"]["tete"]["energy"] = 2
    seat["hand"] = ["pince_hydraulique#1", "chenilles#2"]
    seat["credits"] = 15
    with pytest.raises(IllegalAction):  # legs are not arms
        act(state, {"kind": "install", "seat": second, "card": "chenilles#2",
                    "slot": "bras_d"}, BORIS)
    _, state = act(state, {"kind": "install", "choice": f"{second}|pince_hydraulique#1|bras_d"},
                   BORIS)
    assert state["tokens"][second]["robot"]["bras_d"] == {"card": "pince_hydraulique#1",
                                                          "energy": 4}
    with pytest.raises(IllegalAction, match=r"crédits|credits"):
        act(state, {"kind": "recharge", "seat": second, "slot": "tete", "points": 2}, BORIS)
    # The strong robot had nothing to repair: it was ready by itself. Once the weak one can
    # pay for nothing more (5 crédits), it is ready too, and the next round's order is
    # rolled at once (3 dice against 1).
    events, state = act(state, {"kind": "recharge", "seat": second, "slot": "tete",
                                "points": 1}, BORIS, faces=[6, 6, 6, 1])
    assert state["tokens"][second]["robot"]["tete"]["energy"] == 3
    assert state["tokens"][second]["credits"] == 5
    assert [e.kind for e in events] == ["recharged", "ready", "round_started", "order_rolled"]
    assert events[1].payload == {"seat": second, "auto": True, "names": {second: "P2"}}
    assert state["fight"]["round"] == 2 and state["fight"]["order"] == [first, second]


def test_the_market_runs_until_everyone_passes_then_a_new_fight():
    state, first, second = attack_phase()
    state["phase"] = "market"
    state["fight"]["step"] = "over"
    state["shop"] = {"order": [second, first], "index": 0, "passes": 0}
    state["market"] = ["bras_scie#1", "poing_rouille#5"]
    state["tokens"][second]["credits"] = 40
    pile = len(state["piles"]["parts"]) + len(state["piles"]["parts_top"])
    _, after = act(state, {"kind": "buy", "choice": "bras_scie#1|bras_d"}, BORIS,
                   faces=[(pile, 1)] if pile > 1 else [])
    seat = after["tokens"][second]
    # "il met le morceau remplacé dans sa main"; the market refills
    assert seat["robot"]["bras_d"]["card"] == "bras_scie#1"
    price = state["catalogue"]["parts"]["bras_scie"]["value"]
    assert "poing_rouille#1" in seat["hand"] and seat["credits"] == 40 - price
    assert len(after["market"]) == 2 and after["turn"] == first
    after["tokens"][second]["credits"] = 30  # enough for a part: asked again
    _, after = act(after, {"kind": "pass"}, ANNA)
    assert after["phase"] == "market"  # one pass is not a full turn of passes
    sfx = len(after["piles"]["sfx"])
    # the next fight begins, its first order rolled at once (3 dice against 1)
    events, after = act(after, {"kind": "pass"}, BORIS,
                        faces=[(sfx, 1), (sfx - 1, 1), 6, 6, 6, 1])
    assert [e.kind for e in events] == ["passed", "market_closed", "dealt", "dealt",
                                        "fight_started", "order_rolled"]
    assert after["fight"]["number"] == 2 and after["phase"] == "fight"


def test_sfx_any_moment_cost_effect_and_a_new_card():
    state, _first, second = attack_phase()
    state["tokens"][second]["sfx_hand"] = ["bouclier_ionique#1"]
    state["tokens"][second]["credits"] = 20
    events, state = act(state, {"kind": "attack", "target": second}, faces=[1, 2, 2])
    # a shield changes nothing to the aim: nobody is asked after the radar (issue 25)
    assert [event.kind for event in events] == ["radar_rolled"]
    events, state = act(state, {"kind": "choose_part", "slot": "tete"}, ANNA)
    # the strike waits for the reaction window: the defender's shield can change it
    assert [event.kind for event in events] == ["part_chosen", "window_opened"]
    assert state["window"]["waiting"] == [second] and state["turn"] is None
    sfx = len(state["piles"]["sfx"])
    # the defender plays during the attacker's turn: cost, effect, a new card; nobody else
    # is asked, so the window closes and the strike is rolled with the shield
    events, state = act(state, {"kind": "play_sfx", "card": "bouclier_ionique#1"}, BORIS,
                        faces=[(sfx, 1)] + [1] * 11)
    assert [event.kind for event in events] == ["sfx_played", "dealt", "window_closed",
                                                "struck"]
    assert events[1].visibility == "self"
    seat = state["tokens"][second]
    assert seat["credits"] == 5 and len(seat["sfx_hand"]) == 1
    assert events[3].payload["defence_dice"] == 5  # crâne blindé 3 + 2
    assert seat["buffs"]["defence"] == 0 and state["window"] is None


def test_a_multi_use_sfx_tracks_its_energy():
    state, first, _second = attack_phase()
    seat = state["tokens"][first]
    seat["sfx_hand"] = ["kit_de_soudure#1"]
    seat["credits"] = 30
    seat["robot"]["tete"]["energy"] = 1
    sfx = len(state["piles"]["sfx"])
    _, state = act(state, {"kind": "play_sfx", "card": "kit_de_soudure#1", "slot": "tete"},
                   ANNA, faces=[(sfx, 1)])
    assert state["tokens"][first]["sfx_in_play"] == [{"card": "kit_de_soudure#1",
                                                      "energy": 2}]
    for energy in (3, 4):
        _, state = act(state, {"kind": "use_sfx", "card": "kit_de_soudure#1",
                               "slot": "tete"}, ANNA) if energy == 3 else (None, state)
    assert state["tokens"][first]["robot"]["tete"]["energy"] == 3
    _, state = act(state, {"kind": "use_sfx", "card": "kit_de_soudure#1", "slot": "tete"},
                   ANNA)
    assert state["tokens"][first]["sfx_in_play"] == []
    assert "kit_de_soudure#1" in state["piles"]["sfx_discard"]


def test_bad_input_changes_nothing():
    state, _first, _second = attack_phase()
    before = copy.deepcopy(state)
    for action in ({"kind": "attack", "target": "t9"}, {"kind": "buy", "card": "x"},
                   {"kind": "play_sfx", "card": "nope"}, {"kind": "frobnicate"},
                   {"kind": "recharge", "slot": "tete"}, {"kind": "install", "choice": "a|b"}):
        with pytest.raises(IllegalAction):
            MECHA.decide(state, action, ANNA, ScriptedDice([]))
    assert state == before


# — what a player sees ——————————————————————————————————————————————————————————————

def test_a_player_sees_their_own_hands_only_and_no_pile_but_the_cards_played():
    state = begin(2, implants=(1, 0))
    state["piles"]["sfx_discard"] = ["surcharge#1"]  # played in the open: face up
    mine = MECHA.view(state, ANNA)
    assert mine["tokens"]["t1"]["hand"] == state["tokens"]["t1"]["hand"]
    assert mine["tokens"]["t2"]["hand"] == 5 and mine["tokens"]["t2"]["sfx_hand"] == 1
    assert mine["piles"].pop("sfx_discard") == ["surcharge#1"]
    assert all(isinstance(count, int) for count in mine["piles"].values())
    assert MECHA.view(state, GM) == state
    spectator = MECHA.view(state, Actor(99, is_spectator=True))
    assert spectator["tokens"]["t1"]["hand"] == 5


def test_the_tournament_record_is_written_back():
    state = begin(2, implants=(1, 0))
    state["result"] = {"winner": "t1", "champion": "t1", "reason": "champion", "points": {}}
    state["tokens"]["t1"]["loot"] = ["x#1"] * 12
    sheets = {1: {**MECHA.new_sheet()}, 2: {**MECHA.new_sheet()}}
    changed = MECHA.between_matches(state, sheets)
    assert changed[1]["wins"] == 1 and changed[1]["titles"] == 1
    assert changed[1]["best_points"] == 12
    assert changed[2]["tournaments"] == 1 and changed[2]["wins"] == 0
    assert MECHA.validate_sheet(changed[1]) == []


def test_a_house_bot_defender_offers_its_toughest_part_and_plays_its_turn():
    state, _first, second = attack_phase()
    _, state = act(state, {"kind": "set_bot", "seat": second, "on": "on"})
    assert state["tokens"][second]["bot"]
    events, state = act(state, {"kind": "attack", "target": second}, ANNA, faces=[2, 4, 6])
    events, _after = apply(MECHA, state, {"kind": "decline_boost"}, ANNA,
                           ScriptedDice([1] * 40))
    chosen = next(event for event in events if event.kind == "part_chosen")
    assert chosen.payload["bot"] and chosen.payload["by"] == second
    assert chosen.payload["slot"] in ("tete", "bras_g", "jambes")  # défense 3, not the torse
    # the strike, then the bot's own attack: it does not wait for a click
    kinds = [event.kind for event in events]
    assert kinds.count("struck") >= 1 and "radar_rolled" in kinds[kinds.index("struck"):]
    with pytest.raises(IllegalAction):
        act(state, {"kind": "set_bot", "seat": second, "on": ""}, ANNA)  # the host's call


# — invariants of the dice (Hypothesis) ————————————————————————————————————————————————

faces = st.lists(st.integers(1, 6), max_size=12)


@given(faces, faces)
def test_a_strike_hits_only_above_the_defence_and_costs_one_plus_its_sixes(attack, defence):
    found = Strike(tuple(attack), tuple(defence))
    assert found.hit == (sum(attack) > sum(defence))
    assert found.damage == ((1 + attack.count(6)) if found.hit else 0)
    assert found.damage >= 0


@given(st.dictionaries(st.sampled_from(["t1", "t2", "t3", "t4"]), st.integers(0, 6),
                       min_size=2), st.integers(0, 10_000))
def test_the_order_holds_every_fighter_once_highest_first(pools, seed):
    order, rolled, _ties = order_by_movement(SeededDice(seed), pools)
    assert sorted(order) == sorted(pools)
    totals = [rolled[tid]["total"] for tid in order]
    assert totals == sorted(totals, reverse=True)
    assert all(len(rolled[tid]["dice"]) == pools[tid] for tid in pools)


def test_the_hosts_situational_modifier_is_an_event_and_counts_once():
    state, first, second = attack_phase()
    with pytest.raises(IllegalAction):
        act(state, {"kind": "modifier", "seat": second, "roll": "defence", "dice": -2}, BORIS)
    events, state = act(state, {"kind": "modifier", "seat": second, "roll": "defence",
                                "dice": "-2", "reason": "ring glissant"})
    assert events[0].kind == "modifier_set" and events[0].payload["reason"] == "ring glissant"
    _, state = act(state, {"kind": "attack", "target": second}, faces=[1, 2, 2])
    events, state = act(state, {"kind": "choose_part", "slot": "tete"},
                        faces=[1] * 6 + [6])
    assert events[1].payload["defence_dice"] == 1  # crâne blindé 3 − 2
    assert state["tokens"][second]["buffs"]["defence"] == 0
    assert state["tokens"][first]["buffs"]["attack"] == 0


def test_a_tournament_needs_two_to_four_players_and_a_big_enough_deck():
    def setup(players: int, content=None) -> MatchSetup:
        return MatchSetup("T", tuple(ParticipantSetup(f"P{i}") for i in range(players)),
                          options={"content": content or {}})

    for players in (1, 5):
        with pytest.raises(IllegalAction, match="2"):
            MECHA.start(setup(players), SeededDice(1))
    no_torses = {"left_out": [{"key": f"gm-{key}", "name": key, "card": key}
                              for key, card in content.PARTS.items()
                              if card["family"] == "torse"]}
    with pytest.raises(IllegalAction, match="torses"):
        MECHA.start(setup(2, no_torses), SeededDice(1))


def test_a_house_bot_raises_its_shield_before_the_strike():
    state, first, second = attack_phase()
    state["tokens"][second].update(sfx_hand=["bouclier_ionique#1"], credits=100)
    _, state = act(state, {"kind": "set_bot", "seat": second, "on": "on"})
    _, state = act(state, {"kind": "attack", "target": second}, ANNA, faces=[1, 2, 2])
    events, _ = apply(MECHA, state, {"kind": "choose_part", "slot": "tete"}, ANNA,
                      SeededDice(3))
    kinds = [event.kind for event in events]
    # the bot answers in the reaction window at once: nobody waits for it
    assert kinds[:3] == ["part_chosen", "window_opened", "sfx_played"]
    assert events[2].payload["bot"] and "window_closed" in kinds
    struck = events[kinds.index("struck")].payload
    assert struck["defence_dice"] == 5 and struck["attacker"] == first


def test_the_host_lets_the_bot_play_one_move_for_an_absent_player():
    state, first, _second = attack_phase()
    assert state["turn"] == first
    with pytest.raises(IllegalAction):
        act(state, {"kind": "stand_in"}, BORIS)
    events, state = act(state, {"kind": "stand_in"}, faces=[1, 2, 2])
    assert [event.kind for event in events] == ["radar_rolled"]
    assert events[0].payload["bot"] and events[0].payload["attacker"] == first
    assert not state["tokens"][first]["bot"]  # the seat stays its player's
    assert state["turn"] == first  # the bot chose to aim; the player goes on


# — how a tournament ends, and steps nobody decides (issue 23) ——————————————————————

def test_the_outcome_names_the_winner_the_champion_and_each_fights_winner():
    state, first, second = attack_phase()
    assert MECHA.outcome(state) is None  # the tournament runs
    state["history"] = [{"fight": 1, "winner": second, "fallen": [first], "payouts": {},
                         "challenger": second, "rounds": 2}]
    state["tokens"][first]["loot"] = ["poing_rouille#1"]
    _, state = act(state, {"kind": "end_match"})
    outcome = MECHA.outcome(state)
    assert outcome.over and outcome.winners == ("P1",)
    assert outcome.reason == "the host ended the tournament: %(winner)s leads on victory points"
    assert outcome.params["fights"] == [{"fight": 1, "winner": "P2"}]
    assert outcome.params["champion"] is None and outcome.params["winner"] == "P1"


def test_a_buyer_who_can_pay_for_nothing_passes_by_himself():
    """§ Phase de marché: "tant qu'il y a des joueurs qui veulent (et peuvent) se payer des
    pièces (les autres passent juste leur tour)" — a broke player is not asked each lap."""
    state, first, second = attack_phase()
    state["phase"] = "market"
    state["fight"]["step"] = "over"
    state["shop"] = {"order": [second, first], "index": 0, "passes": 0}
    state["market"] = ["bras_scie#1", "poing_rouille#5"]
    state["tokens"][second]["credits"] = 80
    state["tokens"][first]["credits"] = 5  # less than any part
    pile = len(state["piles"]["parts"]) + len(state["piles"]["parts_top"])
    events, after = act(state, {"kind": "buy", "choice": "bras_scie#1|bras_d"}, BORIS,
                        faces=[(pile, 1)])
    assert [e.kind for e in events] == ["bought", "passed"]
    assert events[1].payload["auto"] == "broke" and after["turn"] == second
    # a crédits card he could pay would make him a buyer: then he is asked
    state["tokens"][first]["sfx_hand"] = ["pari_truque#1"]
    state["tokens"][first]["credits"] = 10
    events, after = act(state, {"kind": "buy", "choice": "bras_scie#1|bras_d"}, BORIS,
                        faces=[(pile, 1)])
    assert [e.kind for e in events] == ["bought"] and after["turn"] == first


# — the ring shows what players add up by hand (issue 25) ———————————————————————————

def _ring(state: dict) -> str:
    from app.web.templating import templates

    html = templates.env.get_template("systems/mecha_ring/_state.html").render(
        state=state, seq=1, current=None, system_key="mecha_ring")
    return " ".join(html.split())


def test_the_ring_shows_the_dice_the_value_the_bets_and_the_stakes():
    state, first, second = attack_phase()
    state["tokens"][first]["fight_loot"] = ["poing_rouille#1"]
    state["first_to_12"] = first
    state["fight"]["fallen"] = [second]
    state["history"] = [{"fight": 1, "winner": first, "fallen": [second], "rounds": 2,
                         "payouts": {first: 35, second: 0}, "challenger": second}]
    html = _ring(state)
    from app.rules.mecha_ring.robot import robot_value

    parts = state["catalogue"]["parts"]
    strong, weak = (robot_value(state["tokens"][tid]["robot"], parts) for tid in (first,
                                                                                   second))
    # STRONG: M3 R3 A6; WEAK: M1 R1 A3 — each on its robot, with its value
    assert f"Dés : Mouvement 3 · Radar 3 · Attaque 6 · valeur {strong} crédits" in html
    assert f"Dés : Mouvement 1 · Radar 1 · Attaque 3 · valeur {weak} crédits" in html
    assert f"plus faible valeur au début du combat (sa valeur maintenant : {weak} crédits)" \
        in html  # why the challenger is
    assert f"P1 {parts['poing_rouille']['value']}, P2 0" in html  # this fight's bets
    assert "P1 a atteint 12 points de victoire" in html
    assert "Tombés, dans l'ordre" in html and "Paris payés : P1 +35, P2 +0." in html
    state.update(phase="market")
    state["shop"] = {"order": [second, first], "index": 1, "passes": 0}
    assert "Ordre du marché : P2, P1 ←" in _ring(state)


# — the card file and the economy (issue 25) ————————————————————————————————————————

def test_every_card_is_priced_by_the_one_stated_formula():
    """cards.toml: "value = 10 × (sum of the four values) − 10, at least 10" — the torses
    were priced off it (up to 50 for a 30 card)."""
    for key, card in content.PARTS.items():
        total = card["mouvement"] + card["radar"] + card["attaque"] + card["defense"]
        assert card["value"] == max(10, 10 * total - 10), key


def test_every_head_carries_radar_dice():
    """The deck's design: "heads carry the radar dice (1–3)" — Mâchoire d'Acier had 0."""
    heads = [card for card in content.PARTS.values() if card["family"] == "tete"]
    assert all(1 <= card["radar"] <= 3 for card in heads)


def test_the_house_bot_keeps_the_price_of_the_dearest_torse():
    from app.rules.mecha_ring.bots import reserve

    state = begin()
    dearest = max(card["value"] for card in state["catalogue"]["parts"].values()
                  if card["family"] == "torse")
    assert reserve(state) == dearest


def test_tournaments_of_house_bots_end_on_twelve_points():
    """The command ``python -m app.rules.mecha_ring.simulate`` plays seeded tournaments of
    house bots: with the house prices and bot, they end on 12 victory points, not by
    bankruptcy (before: 25 of 30 at two players went bankrupt)."""
    from app.rules.mecha_ring.simulate import simulate, table

    found = simulate(3, seed=1, sizes=(2, 3))
    reasons = [report.reason for reports in found.values() for report in reports]
    assert all(reason in ("champion", "overtaken", "no_title") for reason in reasons)
    lines = table(found)
    assert lines[0].split()[0] == "players" and len(lines) == 3
