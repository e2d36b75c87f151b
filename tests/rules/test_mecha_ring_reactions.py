"""Mecha-Ring's reaction windows (§ Cartes SFX: "peuvent être jouées à tout moment, même quand
c'est le tour de jeu d'un autre joueur"), the turn timer on the server's clock and the
players who leave and come back — house rules the text leaves open (docs/games/mecha_ring.md).
Each test plays a table set by hand with ScriptedDice; the fold of the events is the state."""

from __future__ import annotations

import pytest

from app.rules.dice import ScriptedDice, SeededDice
from app.rules.match import Actor, IllegalAction, apply, fold
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


def test_the_window_waits_for_every_player_who_can_react_and_closes_when_all_pass():
    state, a, b, c = three()
    deal(state, a, ["pari_truque#1"], 50)   # a's own step: a is not asked
    deal(state, b, ["surcharge#1"], 50)
    deal(state, c, ["sabotage#1"], 50)
    events, state = act(state, {"kind": "attack", "target": c}, player(state, a),
                        faces=[1, 2, 2])
    assert [event.kind for event in events] == ["radar_rolled", "window_opened"]
    assert events[1].payload == {"after": "radar_rolled", "by": a, "names": {a: "P1"}}
    assert state["window"]["waiting"] == [b, c] and state["turn"] is None
    # who is asked is secret: each player learns only about themselves
    assert MECHA.view(state, player(state, b))["window"]["waiting"] == [b]
    assert MECHA.view(state, player(state, c))["window"]["waiting"] == [c]
    assert MECHA.view(state, player(state, a))["window"]["waiting"] == []
    assert MECHA.view(state, SPECTATOR)["window"]["waiting"] == []
    # play waits: the attacker cannot aim yet
    with pytest.raises(IllegalAction, match="reactions"):
        act(state, {"kind": "choose_part", "slot": "tete"}, player(state, a))
    forms = {form.kind for form in MECHA.legal_actions(state, player(state, b))}
    assert {"pass_reaction", "play_sfx"} <= forms and "choose_part" not in forms
    assert "pass_reaction" not in {f.kind for f in MECHA.legal_actions(state, player(state, a))}
    events, state = act(state, {"kind": "pass_reaction"}, player(state, b))
    assert [event.kind for event in events] == ["reaction_passed"]
    assert events[0].visibility == "quiet"  # only b and the host know b was asked
    assert state["window"]["waiting"] == [c]
    events, state = act(state, {"kind": "pass_reaction"}, player(state, c))
    assert [event.kind for event in events] == ["reaction_passed", "window_closed"]
    assert state["window"] is None and state["turn"] == a
    # the aim is the next step: a new window before the strike; when it closes, the strike
    events, state = act(state, {"kind": "choose_part", "slot": "tete"}, player(state, a))
    assert [event.kind for event in events] == ["part_chosen", "window_opened"]
    events, state = act(state, {"kind": "close_window"}, GM, faces=[1] * 6 + [6, 6, 6])
    assert [event.kind for event in events][:2] == ["window_closed", "struck"]
    assert state["fight"]["attacker"] == 1


def test_a_card_played_in_another_players_turn_applies_its_cost_and_effect():
    state, a, b, c = three()
    deal(state, b, ["surcharge#1"], 50)
    deal(state, c, ["sabotage#1"], 50)
    _, state = act(state, {"kind": "attack", "target": c}, player(state, a), faces=[1, 2, 2])
    _, state = act(state, {"kind": "pass_reaction"}, player(state, b))
    sfx = len(state["piles"]["sfx"])
    # during a's turn, c sabotages a's left arm: 25 crédits, one energy off, a new card
    events, state = act(state, {"kind": "play_sfx", "card": "sabotage#1", "target": a,
                                "slot": "bras_g"}, player(state, c), faces=[(sfx, 1)])
    assert [event.kind for event in events] == ["sfx_played", "dealt"]
    assert state["tokens"][c]["credits"] == 25
    assert state["tokens"][a]["robot"]["bras_g"]["energy"] == 3
    assert "sabotage#1" in state["piles"]["sfx_discard"]
    assert len(state["tokens"][c]["sfx_hand"]) == 1
    # a card played: b, who had passed, may answer it; c has played
    assert state["window"]["waiting"] == [b]
    events, state = act(state, {"kind": "pass_reaction"}, player(state, b))
    assert [event.kind for event in events] == ["reaction_passed", "window_closed"]


def test_nobody_with_nothing_playable_is_waited_on():
    state, a, b, c = three()
    deal(state, b, ["sabotage#1"], 10)             # 25 crédits needed: cannot pay
    deal(state, c, ["reparation_eclair#1"], 50)    # nothing to repair: no target
    events, state = act(state, {"kind": "attack", "target": c}, player(state, a),
                        faces=[1, 2, 2])
    assert [event.kind for event in events] == ["radar_rolled"]  # no window at all
    # the aim, then the strike at once: c's head loses energy, now c has a repair to make
    events, state = act(state, {"kind": "choose_part", "slot": "tete"}, player(state, a),
                        faces=[6, 1, 1, 1, 1, 1, 1, 1, 1])
    assert [event.kind for event in events] == ["part_chosen", "struck", "window_opened"]
    assert state["window"]["waiting"] == [c] and state["window"]["after"] == "struck"


def test_a_house_bot_is_never_waited_on_and_the_host_may_close_the_window():
    state, a, b, c = three()
    deal(state, b, ["surcharge#1"], 50)
    deal(state, c, ["surcharge#2"], 50)
    state["tokens"][b]["bot"] = True  # its reaction is decided at once (here: none)
    _, state = act(state, {"kind": "attack", "target": c}, player(state, a), faces=[1, 2, 2])
    assert state["window"]["waiting"] == [c]
    with pytest.raises(IllegalAction, match="no reaction is awaited"):
        act(state, {"kind": "pass_reaction"}, player(state, a))
    with pytest.raises(IllegalAction, match="GM"):
        act(state, {"kind": "close_window"}, player(state, c))
    events, state = act(state, {"kind": "close_window"})
    assert [event.kind for event in events] == ["window_closed"]
    assert events[0].payload["reason"] == "host" and state["turn"] == a


def test_sfx_effects_the_engine_applies_in_a_window():
    state, a, b, c = three()
    deal(state, b, ["brouilleur#1"], 50)
    deal(state, c, ["visee_laser#1"], 50)
    # after a's radar roll, b jams c and c makes sure of its next aim
    _, state = act(state, {"kind": "attack", "target": b}, player(state, a), faces=[2, 2, 2])
    assert state["window"]["waiting"] == [b, c]
    sfx = len(state["piles"]["sfx"])
    _, state = act(state, {"kind": "play_sfx", "card": "brouilleur#1", "target": c},
                   player(state, b), faces=[(sfx, 1)])
    assert state["tokens"][c]["buffs"]["jammed"]
    _, state = act(state, {"kind": "play_sfx", "card": "visee_laser#1"}, player(state, c),
                   faces=[(sfx - 1, 1)])
    assert state["tokens"][c]["buffs"]["sure_radar"]


# — the turn timer (house): the server's clock, injected ———————————————————————————————

def at(state: dict, action: dict, actor: Actor, now: float, faces=()) -> tuple[list, dict]:
    dice = ScriptedDice(faces)
    events = MECHA.decide(state, action, actor, dice, now=now)
    dice.assert_exhausted()
    return events, fold(MECHA, events, state)


def test_the_turn_timer_applies_each_default_on_the_servers_clock():
    state, first, second = attack_phase()
    anna, boris = player(state, first), player(state, second)
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
    events, state = at(state, {"kind": "timeout"}, anna, 1200)
    assert state["fight"]["step"] == "repairs"
    # the robots not ready are ready; the next round begins; the server rolls the order
    events, state = at(state, {"kind": "timeout"}, anna, 1300)
    assert [event.kind for event in events] == ["timed_out", "ready", "ready", "round_started"]
    events, state = at(state, {"kind": "timeout"}, GM, 1400, faces=[6, 6, 6, 1])
    assert [event.kind for event in events] == ["timed_out", "order_rolled"]
    events, state = at(state, {"kind": "timeout"}, GM, 1500)  # the climber keeps their place
    assert [event.kind for event in events] == ["timed_out", "climbed"]
    assert not events[1].payload["climb"] and state["turn"] == first
    # a reaction window closes when its time is up
    state["tokens"][second].update(sfx_hand=["surcharge#1"], credits=50)
    _, state = at(state, {"kind": "attack", "target": second}, anna, 1510, faces=[1, 2, 2])
    assert state["window"] and state["clock"]["deadline"] == 1570
    events, state = at(state, {"kind": "timeout"}, anna, 1570)
    assert [event.kind for event in events] == ["window_closed"]
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
    state, a, b, c = three()
    log: list = []
    deal(state, b, ["surcharge#1"], 50)
    base = dict(state)
    for action, actor, now, faces in (
            ({"kind": "set_timer", "seconds": "30"}, GM, 10, ()),
            ({"kind": "attack", "target": c}, player(state, a), 11, [1, 2, 2]),
            ({"kind": "away", "seat": c, "mode": "wait"}, GM, 12, ()),
            ({"kind": "timeout"}, GM, 50, ()),
            ({"kind": "back", "seat": c}, GM, 51, ())):
        events, state = at(state, action, actor, now, faces)
        log += events
    assert fold(MECHA, log, base) == state


def test_a_quiet_pass_keeps_the_windows_clock_and_a_card_played_restarts_it():
    """A pass is known to the player and the host only (``quiet``): it must not move the
    deadline everyone sees; a card played in the window (public) gives the others time to
    answer it."""
    state, a, b, c = three()
    deal(state, b, ["surcharge#1"], 50)
    deal(state, c, ["pari_truque#1"], 50)
    _, state = at(state, {"kind": "set_timer", "seconds": "60"}, GM, 1000)
    events, state = at(state, {"kind": "attack", "target": c}, player(state, a), 1010,
                       faces=[1, 2, 2])
    assert state["window"]["waiting"] == [b, c] and state["clock"]["deadline"] == 1070
    seen_by_a = MECHA.view(state, player(state, a))
    events, state = at(state, {"kind": "pass_reaction"}, player(state, b), 1020)
    assert [(event.kind, event.visibility) for event in events] == [("reaction_passed",
                                                                     "quiet")]
    assert state["clock"]["deadline"] == 1070  # unchanged: nothing tells a that b passed
    assert MECHA.view(state, player(state, a)) == seen_by_a
    events, state = at(state, {"kind": "play_sfx", "card": "pari_truque#1"},
                       player(state, c), 1030, faces=[1])
    assert events[0].kind == "sfx_played" and events[0].visibility == "public"
    assert state["clock"]["deadline"] == 1090
