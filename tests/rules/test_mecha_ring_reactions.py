"""Mecha-Ring's reaction windows (§ Cartes SFX: "peuvent être jouées à tout moment, même quand
c'est le tour de jeu d'un autre joueur"), the turn timer on the server's clock and the
players who leave and come back — house rules the text leaves open (docs/games/mecha_ring.md).
Each test plays a table set by hand with ScriptedDice; the fold of the events is the state."""

from __future__ import annotations

import pytest

from app.rules.dice import ScriptedDice, SeededDice
from app.rules.match import Actor, Event, IllegalAction, apply, fold
from tests.rules.test_mecha_ring_rules import (
    GM,
    MECHA,
    STRONG,
    WEAK,
    act,
    attack_phase,
    begin,
    with_robots,
)

WEAK2 = {slot: card.replace("#1", "#2") for slot, card in WEAK.items()}
SPECTATOR = Actor(99, is_spectator=True)


def player(state: dict, tid: str) -> Actor:
    seat = state["tokens"][tid]
    return Actor(seat["owner_id"], character_ids=frozenset({seat["character_id"]}))


def three() -> tuple[dict, str, str, str]:
    """Three robots, the order rolled (a 18, b 2, c 1), nobody climbs: a attacks."""
    state = with_robots(begin(3, implants=(5, 0, 2)), STRONG, WEAK, WEAK2)
    a, b, c = state["seats"]
    _, state = act(state, {"kind": "roll_order"}, faces=[6, 6, 6, 2, 1])
    _, state = act(state, {"kind": "climb", "climb": ""})
    _, state = act(state, {"kind": "climb", "climb": ""})
    assert state["fight"]["order"] == [a, b, c] and state["turn"] == a
    return state, a, b, c


def deal(state: dict, tid: str, cards: list[str], credits: int) -> None:
    for card in cards:
        if card in state["piles"]["sfx"]:
            state["piles"]["sfx"].remove(card)
    state["tokens"][tid].update(sfx_hand=list(cards), credits=credits)


def aimed(state: dict, a: str, target: str, slot: str = "tete") -> tuple[list, dict]:
    """``a`` attacks ``target``: the radar (1, 2, 2: an odd face) lets a aim at ``slot``."""
    _, state = act(state, {"kind": "attack", "target": target}, player(state, a),
                   faces=[1, 2, 2])
    return act(state, {"kind": "choose_part", "slot": slot}, player(state, a))


def test_the_window_asks_only_whose_card_can_change_the_strike():
    """Issue 25: before a strike, the attacker's attack card and the defender's défense card
    can change it; a card of the third player cannot: they are not asked."""
    state, a, b, c = three()
    deal(state, a, ["surcharge#1"], 50)
    deal(state, b, ["bouclier_ionique#2"], 50)   # b is not in this strike
    deal(state, c, ["bouclier_ionique#1"], 50)
    events, state = act(state, {"kind": "attack", "target": c}, player(state, a),
                        faces=[1, 2, 2])
    assert [event.kind for event in events] == ["radar_rolled"]  # nothing changes the aim
    events, state = act(state, {"kind": "choose_part", "slot": "tete"}, player(state, a))
    assert [event.kind for event in events] == ["part_chosen", "window_opened"]
    assert events[1].payload == {"after": "part_chosen", "by": None, "relevant": True}
    assert state["window"]["waiting"] == [a, c] and state["turn"] is None
    # who is asked is secret: each player learns only about themselves
    assert MECHA.view(state, player(state, a))["window"]["waiting"] == [a]
    assert MECHA.view(state, player(state, c))["window"]["waiting"] == [c]
    assert MECHA.view(state, player(state, b))["window"]["waiting"] == []
    assert MECHA.view(state, SPECTATOR)["window"]["waiting"] == []
    # the card that can change it is named in the form (the page asks with c's view)
    seen = MECHA.view(state, player(state, c))
    asked = next(form for form in MECHA.legal_actions(seen, player(state, c))
                 if form.kind == "pass_reaction")
    assert asked.choices["cards"] == {c: ["bouclier_ionique#1"]} and asked.choices["awaited"]
    assert "pass_reaction" not in {f.kind for f in MECHA.legal_actions(state, player(state, b))}
    events, state = act(state, {"kind": "pass_reaction"}, player(state, a))
    assert [(event.kind, event.visibility) for event in events] == [
        ("reaction_passed", "quiet")]
    assert state["window"]["waiting"] == [c]
    # c lets it go: the window closes and the strike is rolled (6 attack dice, 3 défense)
    events, state = act(state, {"kind": "pass_reaction"}, player(state, c),
                        faces=[1] * 6 + [6, 6, 6])
    assert [event.kind for event in events] == ["reaction_passed", "window_closed", "struck"]
    assert state["fight"]["attacker"] == 1


def test_never_ask_me_this_fight_about_a_card():
    """Issue 25: « never ask me this fight » per card — the next strike on that player asks
    nothing; a new fight asks again."""
    state, a, b, c = three()
    deal(state, c, ["bouclier_ionique#1"], 50)
    _, state = aimed(state, a, c)
    events, state = act(state, {"kind": "pass_reaction", "mute": "bouclier_ionique#1"},
                        player(state, c), faces=[1] * 6 + [6, 6, 6])
    assert [(event.kind, event.visibility) for event in events][:2] == [
        ("reaction_muted", "quiet"), ("reaction_passed", "quiet")]
    assert state["tokens"][c]["muted"] == ["bouclier_ionique#1"]
    assert "muted" not in MECHA.view(state, player(state, a))["tokens"][c]  # their hand
    # b now strikes c: c still holds the shield, but asked not to be asked this fight
    _, state = act(state, {"kind": "attack", "target": c}, player(state, b), faces=[1])
    events, state = act(state, {"kind": "choose_part", "slot": "tete"}, player(state, b),
                        faces=[1, 1, 1, 6, 6, 6])
    assert "window_opened" not in [event.kind for event in events]
    # a new fight forgets it
    state["fight"]["number"] = 2
    _, state = act(state, {"kind": "note", "text": "."})
    fresh = fold(MECHA, [Event("fight_started", {"number": 3, "seats": [a, b, c],
                                                 "challenger": a})], state)
    assert "muted" not in fresh["tokens"][c]


def test_a_jamming_card_is_asked_about_before_an_opponent_aims():
    """Issue 25: a Brouilleur can change an opponent's radar roll: its holder is asked
    before that opponent attacks — a house bot's attack too."""
    state, a, b, c = three()
    deal(state, c, ["brouilleur#1"], 50)
    state["tokens"][b]["bot"] = True
    state["tokens"][b]["robot"]["tete"]["energy"] = 2  # no radar energy it would spend
    # a strikes b's head; next in the order is b (a house bot), about to aim: c is asked
    _, state = act(state, {"kind": "attack", "target": b}, player(state, a), faces=[1, 2, 2])
    events, state = act(state, {"kind": "choose_part", "slot": "tete"}, player(state, a),
                        faces=[1] * 6 + [6, 6, 6])
    assert [event.kind for event in events][-2:] == ["struck", "window_opened"]
    assert state["window"]["waiting"] == [c]
    sfx = len(state["piles"]["sfx"])
    # c jams b; c has answered: the window closes and the bot attacks, its radar jammed
    events, state = act(state, {"kind": "play_sfx", "card": "brouilleur#1", "target": b},
                        player(state, c), faces=[(sfx, 1), 1])
    kinds = [event.kind for event in events]
    assert kinds[:4] == ["sfx_played", "dealt", "window_closed", "radar_rolled"]
    radar = events[3].payload
    assert radar["attacker"] == b and radar["forced"] == "jammed" and not radar["success"]


def test_a_card_played_in_another_players_turn_applies_its_cost_and_effect():
    state, a, _b, c = three()
    deal(state, c, ["sabotage#1"], 50)
    sfx = len(state["piles"]["sfx"])
    # during a's turn, c sabotages a's left arm: 25 crédits, one energy off, a new card
    events, state = act(state, {"kind": "play_sfx", "card": "sabotage#1", "target": a,
                                "slot": "bras_g"}, player(state, c), faces=[(sfx, 1)])
    assert [event.kind for event in events] == ["sfx_played", "dealt"]
    assert state["tokens"][c]["credits"] == 25
    assert state["tokens"][a]["robot"]["bras_g"]["energy"] == 3
    assert "sabotage#1" in state["piles"]["sfx_discard"]
    assert len(state["tokens"][c]["sfx_hand"]) == 1


def test_a_card_played_in_the_window_lets_those_who_passed_answer_it():
    state, a, _b, c = three()
    deal(state, a, ["surcharge#1"], 50)
    deal(state, c, ["bouclier_ionique#1", "surcharge#2"], 50)
    _, state = aimed(state, a, c)
    _, state = act(state, {"kind": "pass_reaction"}, player(state, a))
    sfx = len(state["piles"]["sfx"])
    _, state = act(state, {"kind": "play_sfx", "card": "bouclier_ionique#1"},
                   player(state, c), faces=[(sfx, 1)])
    assert state["window"]["waiting"] == [a]  # a may answer the shield; c has played
    _, state = act(state, {"kind": "pass_reaction"}, player(state, a),
                   faces=[1] * 6 + [6] * 5)
    assert state["window"] is None


def test_nobody_with_nothing_that_changes_the_step_is_waited_on():
    state, a, b, c = three()
    deal(state, b, ["sabotage#1"], 10)             # 25 crédits needed: cannot pay
    deal(state, c, ["reparation_eclair#1"], 50)    # nothing to repair
    events, state = act(state, {"kind": "attack", "target": c}, player(state, a),
                        faces=[1, 2, 2])
    assert [event.kind for event in events] == ["radar_rolled"]  # no window at all
    # the aim, then the strike at once (c's head is full: a repair changes nothing)
    events, state = act(state, {"kind": "choose_part", "slot": "tete"}, player(state, a),
                        faces=[6, 1, 1, 1, 1, 1, 1, 1, 1])
    assert [event.kind for event in events] == ["part_chosen", "struck"]
    # the next strike on that damaged head: now c's repair can save it, c is asked
    state["fight"]["attacker"] = 0
    _, state = aimed(state, a, c)
    assert state["window"]["waiting"] == [c]


def test_a_house_bot_is_never_waited_on_and_the_host_may_close_the_window():
    state, a, b, c = three()
    deal(state, a, ["surcharge#1"], 50)
    deal(state, c, ["bouclier_ionique#1"], 50)
    state["tokens"][a]["bot"] = True  # its reaction is decided at once
    state["tokens"][a]["credits"] = 20  # … and it keeps its crédits for a torse: none
    # the bot aims at once (radar 1, 2, 2): the strike waits for c only
    _, state = act(state, {"kind": "attack", "target": c}, player(state, a), faces=[1, 2, 2])
    assert state["window"]["waiting"] == [c]
    with pytest.raises(IllegalAction, match="no reaction is awaited"):
        act(state, {"kind": "pass_reaction"}, player(state, b))
    with pytest.raises(IllegalAction, match="GM"):
        act(state, {"kind": "close_window"}, player(state, c))
    # (the bot aimed at the weakest part, the Poing Rouillé: one défense die)
    events, state = act(state, {"kind": "close_window"}, faces=[1] * 6 + [6])
    assert [event.kind for event in events][:2] == ["window_closed", "struck"]
    assert events[0].payload["reason"] == "host"


# — the turn timer (house): the server's clock, injected ———————————————————————————————

def at(state: dict, action: dict, actor: Actor, now: float, faces=()) -> tuple[list, dict]:
    dice = ScriptedDice(faces)
    events = MECHA.decide(state, action, actor, dice, now=now)
    dice.assert_exhausted()
    return events, fold(MECHA, events, state)


def test_the_turn_timer_applies_each_default_on_the_servers_clock():
    state, first, second = attack_phase()
    anna, boris = player(state, first), player(state, second)
    # the weak robot has a repair to pay for between rounds: the table waits for it
    state["tokens"][second]["robot"]["tete"]["energy"] = 3
    state["tokens"][second]["credits"] = 50
    with pytest.raises(IllegalAction, match="GM"):
        at(state, {"kind": "set_timer", "seconds": "60"}, anna, 1000)
    with pytest.raises(IllegalAction):
        at(state, {"kind": "set_timer", "seconds": "5"}, GM, 1000)  # 0 or 15 at least
    events, state = at(state, {"kind": "set_timer", "seconds": "60"}, GM, 1000)
    assert events[0].payload["at"] == 1000 and state["clock"]["deadline"] == 1060
    with pytest.raises(IllegalAction, match="30 s left"):
        at(state, {"kind": "timeout"}, boris, 1030)
    with pytest.raises(IllegalAction, match="timer"):
        MECHA.decide(state, {"kind": "timeout"}, boris, ScriptedDice([]))  # no clock: refused
    # the attacker's time is up: they let their attack go, the next one attacks
    events, state = at(state, {"kind": "timeout"}, boris, 1061)
    assert [event.kind for event in events] == ["timed_out", "attack_skipped"]
    assert events[0].payload["step"] == "attack" and state["turn"] == second
    assert state["clock"]["deadline"] == 1121  # the next decision gets its own minute
    # the second lets its attack go too: repairs; the untouched robot is ready by itself
    events, state = at(state, {"kind": "timeout"}, anna, 1200)
    assert [event.kind for event in events] == ["timed_out", "attack_skipped", "ready"]
    assert state["fight"]["step"] == "repairs" and state["fight"]["ready"] == [first]
    # the robots not ready are ready; the next round begins, its order rolled at once
    events, state = at(state, {"kind": "timeout"}, anna, 1300, faces=[6, 6, 6, 1])
    assert [event.kind for event in events] == ["timed_out", "ready", "round_started",
                                                "order_rolled"]
    # the climber keeps their place — the second decision in a row the weak robot's player
    # missed: the house bot plays the seat until they are back (issue 25)
    events, state = at(state, {"kind": "timeout"}, GM, 1400)
    assert [event.kind for event in events] == ["timed_out", "climbed", "seat_away"]
    assert not events[1].payload["climb"] and state["turn"] == first
    assert events[0].payload["row"] == 2 and events[2].payload == {
        "seat": second, "mode": "bot", "reason": "timeouts", "names": {second: "P2"},
        "at": 1400.0}
    assert state["tokens"][second]["bot"]
    _, state = at(state, {"kind": "back"}, boris, 1405)
    assert not state["tokens"][second]["bot"] and state.get("late") is None
    # a reaction window closes when its time is up (then the strike is rolled)
    state["tokens"][second].update(sfx_hand=["bouclier_ionique#1"], credits=50)
    _, state = at(state, {"kind": "attack", "target": second}, anna, 1410, faces=[1, 2, 2])
    _, state = at(state, {"kind": "choose_part", "slot": "tete"}, anna, 1415)
    assert state["window"] and state["clock"]["deadline"] == 1475
    events, state = at(state, {"kind": "timeout"}, anna, 1475, faces=[1] * 6 + [6, 6, 6])
    assert [event.kind for event in events] == ["window_closed", "struck"]
    assert events[0].payload["reason"] == "timeout"


def test_the_market_buyer_passes_when_the_time_is_up():
    state, first, second = attack_phase()
    state.update(phase="market", timer=60)
    state["fight"]["step"] = "over"
    state["shop"] = {"order": [second, first], "index": 0, "passes": 0}
    _, state = at(state, {"kind": "note", "text": "go"}, GM, 100)  # the clock starts
    events, state = at(state, {"kind": "timeout"}, GM, 160)
    assert [event.kind for event in events] == ["timed_out", "passed"]
    assert state["turn"] == first


# — a player leaves and comes back ———————————————————————————————————————————————————

def test_an_away_player_the_table_waits_or_the_bot_plays_until_they_are_back():
    state, first, second = attack_phase()
    anna, boris = player(state, first), player(state, second)
    _, state = at(state, {"kind": "set_timer", "seconds": "60"}, GM, 1000)
    with pytest.raises(IllegalAction, match="GM"):
        at(state, {"kind": "away", "seat": second, "mode": "wait"}, anna, 1001)
    events, state = at(state, {"kind": "away", "seat": second, "mode": "wait"}, GM, 1001)
    assert events[0].kind == "seat_away" and state["tokens"][second]["away"] == "wait"
    # away: never asked in a window (it would stall the table)
    state["tokens"][second].update(sfx_hand=["surcharge#1"], credits=50)
    events, state = at(state, {"kind": "attack", "target": second}, anna, 1002,
                       faces=[2, 2, 2])
    assert [event.kind for event in events] == ["radar_rolled"]
    _, state = at(state, {"kind": "decline_boost"}, anna, 1003)  # no radar energy spent
    # the defender (away) must choose the part: the table waits, the timer does not run out
    with pytest.raises(IllegalAction, match="away"):
        at(state, {"kind": "timeout"}, anna, 2000)
    # the host lets the house bot play the seat meanwhile: it chooses at once
    events, state = apply(MECHA, state, {"kind": "away", "seat": second, "mode": "bot"}, GM,
                          SeededDice(3))
    assert events[0].kind == "seat_away" and state["tokens"][second]["bot"]
    chosen = next(event for event in events if event.kind == "part_chosen")
    assert chosen.payload["bot"] and chosen.payload["by"] == second
    # the player is back: the seat is theirs again
    forms = {form.kind for form in MECHA.legal_actions(state, boris)}
    assert "back" in forms
    events, state = act(state, {"kind": "back"}, boris)
    assert [event.kind for event in events] == ["seat_back"]
    assert not state["tokens"][second]["bot"] and state["tokens"][second]["away"] is None
    with pytest.raises(IllegalAction, match="is here"):
        act(state, {"kind": "back"}, boris)


def test_the_log_of_windows_timers_and_absences_folds_to_the_state():
    state, a, _b, c = three()
    log: list = []
    deal(state, c, ["bouclier_ionique#1"], 50)
    base = dict(state)
    for action, actor, now, faces in (
            ({"kind": "set_timer", "seconds": "30"}, GM, 10, ()),
            ({"kind": "attack", "target": c}, player(state, a), 11, [1, 2, 2]),
            ({"kind": "choose_part", "slot": "tete"}, player(state, a), 12, ()),
            ({"kind": "pass_reaction", "mute": "bouclier_ionique#1"}, player(state, c), 13,
             [1] * 6 + [6, 6, 6]),
            ({"kind": "away", "seat": c, "mode": "wait"}, GM, 14, ()),
            ({"kind": "timeout"}, GM, 50, ()),
            ({"kind": "back", "seat": c}, GM, 51, ())):
        events, state = at(state, action, actor, now, faces)
        log += events
    assert fold(MECHA, log, base) == state


def test_a_quiet_pass_keeps_the_windows_clock_and_a_card_played_restarts_it():
    """A pass is known to the player and the host only (``quiet``): it must not move the
    deadline everyone sees; a card played in the window (public) gives the others time to
    answer it."""
    state, a, _b, c = three()
    deal(state, a, ["surcharge#1"], 50)
    deal(state, c, ["bouclier_ionique#1"], 50)
    _, state = at(state, {"kind": "set_timer", "seconds": "60"}, GM, 1000)
    _, state = at(state, {"kind": "attack", "target": c}, player(state, a), 1005,
                  faces=[1, 2, 2])
    events, state = at(state, {"kind": "choose_part", "slot": "tete"}, player(state, a), 1010)
    assert state["window"]["waiting"] == [a, c] and state["clock"]["deadline"] == 1070
    seen_by_c = MECHA.view(state, player(state, c))
    events, state = at(state, {"kind": "pass_reaction"}, player(state, a), 1020)
    assert [(event.kind, event.visibility) for event in events] == [("reaction_passed",
                                                                     "quiet")]
    assert state["clock"]["deadline"] == 1070  # unchanged: nothing tells c that a passed
    assert MECHA.view(state, player(state, c)) == seen_by_c
    events, state = at(state, {"kind": "play_sfx", "card": "bouclier_ionique#1"},
                       player(state, c), 1030, faces=[1])
    assert events[0].kind == "sfx_played" and events[0].visibility == "public"
    assert state["clock"]["deadline"] == 1090


def test_a_player_who_acts_between_two_timeouts_keeps_the_seat():
    """Issue 25: the count of missed decisions is of decisions in a row: a player who plays
    in between starts it over, and the house bot does not take the seat."""
    state, first, second = attack_phase()
    anna, boris = player(state, first), player(state, second)
    _, state = at(state, {"kind": "set_timer", "seconds": "60"}, GM, 1000)
    events, state = at(state, {"kind": "timeout"}, boris, 1061)  # Anna's attack goes
    assert state["late"] == {"seat": first, "row": 1}
    state["fight"].update(attacker=0, pending=None)  # (by hand) Anna is to attack again
    _, state = at(state, {"kind": "note", "text": "me voilà"}, anna, 1062)
    assert state["late"] == {"seat": first, "row": 1}  # a note is no move
    events, state = at(state, {"kind": "attack", "target": second}, anna, 1063,
                       faces=[1, 2, 2])
    assert events[0].kind == "seat_present" and state["late"] is None
