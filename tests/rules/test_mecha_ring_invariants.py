"""Mecha-Ring under random legal play: whole tournaments picked among ``legal_actions`` with
seeded dice never raise, keep the invariants after every action (no negative crédits, energy
within 1..4 on every part in place, a fallen robot never attacks, nobody sees another's hand),
and fold(log) equals the state at the end."""

from __future__ import annotations

import random

from app.rules.dice import SeededDice
from app.rules.match import Actor, IllegalAction, MatchSetup, ParticipantSetup, apply, fold
from app.rules.mecha_ring.content import MAX_ENERGY
from app.rules.mecha_ring.match import OPEN_PILES, current_attacker
from app.rules.mecha_ring.reactions import playable
from app.rules.mecha_ring.robot import standing
from app.rules.registry import get_system

MECHA = get_system("mecha_ring")
GM = Actor(1, is_gm=True)
SLOTS = ("tete", "bras_g", "bras_d", "jambes", "torse")


def pick(form, rng: random.Random) -> dict:
    c = form.choices
    action: dict = {"kind": form.kind}
    if form.kind == "attack":
        action["target"] = rng.choice(c["targets"])
    elif form.kind == "climb":
        action["climb"] = c["can_climb"] and rng.random() < 0.5
    elif form.kind in ("choose_part", "boost_radar"):
        action["slot"] = rng.choice(c["slots"])
    elif form.kind == "install":
        seat = rng.choice(c["seats"])
        card, slot = rng.choice(c["options"][seat])
        action.update(seat=seat, card=card, slot=slot)
    elif form.kind == "recharge":
        seat = rng.choice(c["seats"])
        slot, most = rng.choice(c["options"][seat])
        action.update(seat=seat, slot=slot, points=rng.randint(1, most))
    elif form.kind == "ready":
        action["seat"] = rng.choice(c["seats"])
    elif form.kind == "buy":
        card, places = rng.choice(c["offers"])
        action.update(card=card, place=rng.choice(places))
    elif form.kind == "away":
        action.update(seat=rng.choice(c["seats"])[0], mode=rng.choice(["wait", "bot", "back"]))
    elif form.kind == "back":
        action["seat"] = rng.choice(c["seats"])
    elif form.kind == "set_timer":
        action["seconds"] = rng.choice([0, 30, 60])
    elif form.kind == "pass_reaction":
        action["seat"] = rng.choice(c["seats"])
    elif form.kind in ("play_sfx", "use_sfx"):
        seat = rng.choice(c["seats"])
        others = [tid for tid in c["opponents"] if tid != seat]
        action.update(seat=seat, card=rng.choice(c["cards"][seat]),
                      target=rng.choice(others) if others else "", slot=rng.choice(SLOTS))
    return action


def check(state: dict, *, views: bool) -> None:
    for tid, seat in state["tokens"].items():
        assert seat["credits"] >= 0
        for part in seat["robot"].values():
            if part is not None:
                assert 0 <= part["energy"] <= MAX_ENERGY
                assert part["energy"] > 0 or not standing(seat["robot"])
        for entry in seat["sfx_in_play"]:
            assert entry["energy"] > 0
        if not views:
            continue
        player = Actor(100 + int(tid[1:]), character_ids=frozenset({seat["character_id"]}))
        seen = MECHA.view(state, player)
        for other, shown in seen["tokens"].items():
            if other != tid:
                assert isinstance(shown["hand"], int) and isinstance(shown["sfx_hand"], int)
        assert all(isinstance(count, int) for name, count in seen["piles"].items()
                   if name not in OPEN_PILES)  # the cards played, face up
    attacker = current_attacker(state)
    if attacker is not None:
        assert standing(state["tokens"][attacker]["robot"])
    window = state.get("window")
    if window:
        # nobody is waited on who has nothing to play, nor a bot (it decides at once)
        for tid in window["waiting"]:
            assert playable(state, tid) and not state["tokens"][tid]["bot"]
        assert state["status"] == "running" and state["turn"] is None


def act(state: dict, action: dict, actor: Actor, dice, now: float) -> tuple[list, dict]:
    """``apply`` with the server's clock (the turn timer reads it)."""
    events = MECHA.decide(state, action, actor, dice, now=now)
    return events, fold(MECHA, events, state)


def play(seed: int, seen: set[str] | None = None) -> dict:
    players = 2 + seed % 3
    setup = MatchSetup("T", tuple(ParticipantSetup(f"P{i}", character_id=i + 1,
                                                   owner_id=100 + i + 1,
                                                   sheet={"implants": i % 2})
                                  for i in range(players)))
    log = list(MECHA.start(setup, SeededDice(seed)))
    state = fold(MECHA, log)
    dice, rng = SeededDice(seed + 10_000), random.Random(seed)
    now = 1_000_000.0
    for step in range(4000):
        forms = [form for form in MECHA.legal_actions(state, GM)
                 if form.kind not in ("note", "correct", "end_match", "modifier", "set_bot")]
        if not forms:
            break
        form = rng.choice(forms)
        if form.kind in ("play_sfx", "use_sfx") and rng.random() < 0.6:
            continue
        if form.kind in ("away", "set_timer") and rng.random() < 0.9:
            continue
        now += rng.choice([1, 5, 40, 90])
        try:
            events, state = act(state, pick(form, rng), GM, dice, now)
        except IllegalAction:
            continue  # a random target an SFX cannot take: refused, nothing changed
        log += events
        if seen is not None:
            seen.update(event.kind for event in events)
        check(state, views=step % 40 == 0)
    assert fold(MECHA, log) == state
    return state


def test_random_tournaments_keep_the_invariants_and_end():
    seen: set[str] = set()
    ended = [play(seed, seen)["status"] for seed in range(40)]
    assert ended.count("finished") >= 36
    # the random play went through the reaction windows, the timer and absent players
    assert {"window_opened", "window_closed", "sfx_played", "timer_set", "timed_out",
            "attack_skipped", "seat_away", "seat_back"} <= seen


def test_one_player_against_house_bots_plays_whole_tournaments():
    """One person against the house bots: only the human's forms are picked (as a player,
    not the host); the bots play every other move, never raise, and the tournaments end."""
    finished = 0
    seen: set[str] = set()
    for seed in range(12):
        players = 2 + seed % 3
        setup = MatchSetup("T", tuple(ParticipantSetup(f"P{i}", character_id=i + 1,
                                                       owner_id=100 + i + 1,
                                                       sheet={"implants": i % 2})
                                      for i in range(players)))
        log = list(MECHA.start(setup, SeededDice(seed)))
        state = fold(MECHA, log)
        dice, rng = SeededDice(seed + 500), random.Random(seed)
        for tid in [tid for tid in state["seats"] if tid != "t1"]:
            events, state = apply(MECHA, state, {"kind": "set_bot", "seat": tid, "on": "on"},
                                  GM, dice)
            log += events
        human = Actor(101, character_ids=frozenset({1}))
        for step in range(3000):
            forms = [form for form in MECHA.legal_actions(state, human)
                     if form.kind not in ("note",)]
            # nothing to do but SFX cards: the table waits for the bots (they stopped at
            # their dice budget): the host lets them play on
            if not [form for form in forms if form.kind not in ("play_sfx", "use_sfx")]:
                if MECHA.legal_actions(state, GM) and any(
                        form.kind == "let_bots_play" for form in MECHA.legal_actions(state, GM)):
                    events, state = apply(MECHA, state, {"kind": "let_bots_play"}, GM, dice)
                    log += events
                    continue
                if not forms:
                    break
            form = rng.choice(forms)
            if form.kind in ("play_sfx", "use_sfx") and rng.random() < 0.7:
                continue
            try:
                events, state = apply(MECHA, state, pick(form, rng), human, dice)
            except IllegalAction:
                continue
            log += events
            seen.update(event.kind for event in events)
            check(state, views=step % 50 == 0)
            assert all(event.payload.get("bot") for event in events[1:]
                       if event.payload.get("seat") not in (None, "t1")
                       and event.kind in ("ready", "installed", "recharged", "bought"))
        assert fold(MECHA, log) == state
        finished += state["status"] == "finished"
    assert finished >= 10
    # the human was asked in reaction windows; the bots played every kind of SFX effect
    assert {"window_opened", "reaction_passed", "window_closed"} <= seen


def test_house_bots_play_every_sfx_effect_and_finish_their_tournaments():
    """House bots (the host only lets them play on), two to four: every SFX effect of the
    deck is played by a bot, in its own turn or in a reaction window, and every tournament
    ends with the log folding to the state."""
    from app.rules.mecha_ring.content import EFFECTS

    effects: set[str] = set()
    for seed in range(9):
        setup = MatchSetup("T", tuple(ParticipantSetup(f"P{i}", character_id=i + 1,
                                                       owner_id=100 + i + 1,
                                                       sheet={"implants": i % 2})
                                      for i in range(2 + seed % 3)))
        log = list(MECHA.start(setup, SeededDice(seed)))
        state = fold(MECHA, log)
        dice = SeededDice(seed + 77)
        for tid in list(state["seats"]):
            events, state = apply(MECHA, state, {"kind": "set_bot", "seat": tid, "on": "on"},
                                  GM, dice)
            log += events
        for _ in range(400):
            if state["status"] != "running":
                break
            events, state = apply(MECHA, state, {"kind": "let_bots_play"}, GM, dice)
            log += events
            check(state, views=False)
        assert state["status"] == "finished"
        assert fold(MECHA, log) == state
        effects |= {event.payload["effect"] for event in log
                    if event.kind == "sfx_played" and event.payload.get("bot")}
    assert effects == set(EFFECTS)
