"""No event gives a viewer what their view hides, under random legal play of every game whose
view hides something (Tiamat's secret orders, Mecha-Ring's hands and piles and reaction
windows, Mutatior's secret bets and the state kept for a re-roll).

After every event, each role — the GM, each seated player, a member who plays nothing, a
spectator — receives the event as the table engine gives it to them, and must find in its
payload nothing their view hides (``tests/rules/hidden.py`` says what that means). Chasse,
Cyborg and free play hide nothing in their views: ``tests/test_event_secrets.py`` checks
that on their demo matches, and would ask for a driver here the day one does.
"""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from app.rules.dice import ScriptedDice, SeededDice
from app.rules.match import Actor, Event, IllegalAction, MatchSetup, ParticipantSetup, fold
from app.rules.mutatior.system import MUTATIOR
from app.rules.registry import get_system
from app.rules.tiamat.profiles import voyous
from app.rules.tiamat.sheet import jack
from app.rules.tiamat.system import TIAMAT
from tests.rules.hidden import Watcher, leaks
from tests.rules.test_mecha_ring_invariants import pick as mecha_pick
from tests.rules.test_mutatior_system import FIGHT_KINDS
from tests.rules.test_mutatior_system import _random_action as mutatior_pick
from tests.rules.test_tiamat_invariants import pick as tiamat_pick

MECHA = get_system("mecha_ring")
GM = Actor(1, is_gm=True)
ALICE, BRUNO = 7, 8
CARLA = Actor(9)  # a member of the campaign who plays nothing
SAM = Actor(10, is_spectator=True)


class Table:
    """A match under watch: each event folded as it comes, then judged for every role."""

    def __init__(self, system, people: dict[str, Actor], opening: list[Event]) -> None:
        self.system, self.people = system, people
        self.watchers = [Watcher(name, actor) for name, actor in people.items()]
        self.watchers += [Watcher("a member who plays nothing", CARLA),
                          Watcher("a spectator", SAM)]
        self.state: dict[str, Any] = {}
        self.log: list[Event] = []
        self.found: list[str] = []
        self.take(opening, by=GM.user_id)

    def take(self, events: list[Event], *, by: int | None) -> None:
        for event in events:  # folded into a copy: the watchers keep the views before it
            self.state = self.system.evolve(json.loads(json.dumps(self.state)), event)
            self.log.append(event)
            self.found += leaks(self.system, self.watchers, self.state, event,
                                len(self.log), by)

    def act(self, actor: Actor, action: dict[str, Any], dice, **clock: float) -> bool:
        try:
            events = self.system.decide(self.state, action, actor, dice, **clock)
        except IllegalAction:
            return False
        self.take(events, by=actor.user_id)
        return True

    def assert_nothing_hidden_was_received(self) -> None:
        assert not self.found, "\n".join(self.found[:8])
        assert fold(self.system, self.log) == self.state


def seated(alice: set[int], bruno: set[int]) -> dict[str, Actor]:
    return {"the GM": GM, "Alice": Actor(ALICE, character_ids=frozenset(alice)),
            "Bruno": Actor(BRUNO, character_ids=frozenset(bruno))}


def anyone(table: Table, rng: random.Random) -> tuple[Actor, list]:
    """Someone at the table and what they may do now (the GM when the player may not)."""
    actor = rng.choice(list(table.people.values()))
    forms = table.system.legal_actions(table.state, actor)
    if not forms:
        actor, forms = GM, table.system.legal_actions(table.state, GM)
    return actor, forms


# — Tiamat: secret orders when fighters tie (« inscrivent secrètement leurs actions ») —

def duel() -> tuple[dict[str, Actor], MatchSetup]:
    """Jack (Alice's) and his twin Dante (Bruno's): the same Rapidité, so they often tie."""
    return seated({1}, {2}), MatchSetup("Duel", (
        ParticipantSetup("Jack", 1, ALICE, jack()), ParticipantSetup("Dante", 2, BRUNO, jack()),
        ParticipantSetup("Voyous", 3, None, voyous())))


def orders_pick(form, state: dict, rng: random.Random) -> dict | None:
    if form.kind == "write_orders":
        return {"kind": "write_orders", "participant": rng.choice(form.choices["participants"]),
                "orders": f"Ordre n°{rng.randrange(10**6)} : frappe puis pare"}
    if form.kind == "reveal_orders":
        return {"kind": "reveal_orders"}
    return tiamat_pick(form, state, rng)


def tiamat_play(seed: int) -> Table:
    rng, dice = random.Random(seed), SeededDice(seed)
    people, setup = duel()
    table = Table(TIAMAT, people, TIAMAT.start(setup, dice))
    for _ in range(60):
        actor, forms = anyone(table, rng)
        # tests and recovery are open at any time: rarely, so that the fight goes on
        forms = [form for form in forms if form.kind not in ("end", "end_match") and (
            form.kind not in ("test", "recover") or rng.random() < 0.1)]
        action = orders_pick(rng.choice(forms), table.state, rng) if forms else None
        if action is not None:
            table.act(actor, action, dice)
    return table


def test_a_tie_s_secret_orders_reach_only_their_writer_and_the_gm():
    people, setup = duel()
    table = Table(TIAMAT, people, TIAMAT.start(setup, ScriptedDice([])))
    # 8 and 8, Rapidité 2 and 2: Jack and Dante act at the same time; the voyous roll 5.
    assert table.act(GM, {"kind": "roll_initiative"}, ScriptedDice([8, 2, 8, 3, 5]))
    assert table.state["simultaneous"] == [["p1", "p2"]]
    for who, pid, orders in (("Alice", "p1", "Oi zuki puis Mae geri"),
                             ("Bruno", "p2", "Coup de pied sournois")):
        assert table.act(people[who], {"kind": "write_orders", "participant": pid,
                                       "orders": orders}, ScriptedDice([]))
    assert table.state["orders"] == {"p1": "Oi zuki puis Mae geri",
                                     "p2": "Coup de pied sournois"}
    assert table.act(GM, {"kind": "reveal_orders"}, ScriptedDice([]))
    table.assert_nothing_hidden_was_received()


@settings(max_examples=12, deadline=None, derandomize=True)
@given(st.integers(0, 10_000))
def test_random_tiamat_fights_give_nobody_what_their_view_hides(seed: int):
    tiamat_play(seed).assert_nothing_hidden_was_received()


# — Mecha-Ring: hands, piles, who a reaction window waits for —

def mecha_play(seed: int) -> Table:
    """A tournament to the end of its first market: the host's robot is the house bot's, as
    in the demo (it plays at once, so a fight ends in a few hundred moves)."""
    rng, dice, now = random.Random(seed), SeededDice(seed), 1_000_000.0
    setup = MatchSetup("Tournoi", (
        ParticipantSetup("Écurie Boulon", 1, ALICE, {"implants": 1}),
        ParticipantSetup("Acier Hurlant", 2, BRUNO, {"implants": 0}),
        ParticipantSetup("Garage du MJ", 3, None, {"implants": 2})))
    table = Table(MECHA, seated({1}, {2}), MECHA.start(setup, dice))
    table.act(GM, {"kind": "set_bot", "seat": "t3", "on": "on"}, dice)
    for _ in range(600):
        actor, forms = anyone(table, rng)
        forms = [form for form in forms if form.kind not in (
            "note", "correct", "end_match", "modifier", "set_bot", "away", "set_timer",
            "timeout")]
        form = rng.choice(forms) if forms else None
        if form is None or (form.kind in ("play_sfx", "use_sfx") and rng.random() < 0.6):
            continue
        now += rng.choice([1, 5, 40])
        table.act(actor, mecha_pick(form, rng), dice, now=now)
        if any(event.kind == "market_closed" for event in table.log[-8:]):
            break
    return table


@settings(max_examples=3, deadline=None, derandomize=True)
@given(st.integers(0, 10_000))
def test_random_tournaments_give_nobody_what_their_view_hides(seed: int):
    mecha_play(seed).assert_nothing_hidden_was_received()


# — Mutatior: secret bets (§ 3-3 « secrètement »), the state kept for a re-roll —

def bet(actor: Actor, state: dict, rng: random.Random) -> dict[str, Any]:
    """A bet of any kind, mostly secret, on a creature of one's own (or anyone's)."""
    kind = rng.choice(["victory", "death", "secret", "secret"]
                      + (["spectator"] if actor.is_gm else []))
    own = [tid for tid, token in state["tokens"].items() if actor.controls(token)]
    return {"kind": "place_bet", "bet": kind, "stake": rng.randint(1, 30),
            "team": rng.choice(state["team_order"]),
            "mutant": rng.choice(own if own and rng.random() < 0.7 else list(state["tokens"])),
            "bettor_team": rng.choice(state["team_order"]), "label": "Le bookmaker Zog"}


def mutatior_play(seed: int) -> Table:
    """The demo's two teams (Alice's, Bruno's): bets placed, then a fight with re-rolls."""
    rng, dice = random.Random(seed), SeededDice(seed)
    owners = {0: ALICE, 1: BRUNO}
    characters = dict(enumerate(MUTATIOR.demo_characters(), start=1))
    setup = MatchSetup("Le choc des titans", tuple(
        ParticipantSetup(c.name, cid, owners.get(c.player), c.sheet)
        for cid, c in characters.items()))
    teams = [{cid for cid, c in characters.items() if c.player == player} for player in (0, 1)]
    table = Table(MUTATIOR, seated(*teams), MUTATIOR.start(setup, dice))
    for _ in range(8):
        actor = rng.choice(list(table.people.values()))
        table.act(actor, bet(actor, table.state, rng), dice)
    table.act(GM, {"kind": "start_fight", "uneven": "on"}, dice)
    for _ in range(60):
        actor, forms = anyone(table, rng)
        forms = [form for form in forms if form.kind in FIGHT_KINDS]
        if forms:
            table.act(actor, mutatior_pick(table.state, forms, dice), dice)
    table.act(GM, {"kind": "end_fight", "both_stop": "on"}, dice)
    return table


@settings(max_examples=6, deadline=None, derandomize=True)
@given(st.integers(0, 10_000))
def test_random_mutatior_fights_give_nobody_what_their_view_hides(seed: int):
    mutatior_play(seed).assert_nothing_hidden_was_received()


# The games whose views hide something, each with its random play above.
DRIVEN = frozenset({"tiamat", "mecha_ring", "mutatior"})
