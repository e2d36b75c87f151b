"""Each game's ``check_state`` (app/rules/state_check.py): a state as the game's own rules
write it passes; a value its pages or rules could not read is named at its path."""

from __future__ import annotations

import copy

import pytest

from app.rules.dice import SeededDice
from app.rules.match import MatchSetup, ParticipantSetup, fold
from app.rules.registry import all_systems, get_system


def started(key: str) -> dict:
    """A match of ``key`` just opened with the game's demo characters, as ``start`` writes it."""
    system = get_system(key)
    characters = system.demo_characters()
    setup = MatchSetup("Essai", tuple(
        ParticipantSetup(character.name, character_id=index + 1,
                         owner_id=10 + index if character.player is not None else None,
                         sheet=character.sheet)
        for index, character in enumerate(characters[:4])))
    return fold(system, system.start(setup, SeededDice(7)))


def problems(key: str, state: dict) -> dict[str, str]:
    return {problem.field: problem.message for problem in get_system(key).check_state(state)}


@pytest.mark.parametrize("key", [system.key for system in all_systems()])
def test_every_game_checks_its_state_and_accepts_a_match_it_opened(key):
    assert callable(getattr(get_system(key), "check_state", None))
    assert problems(key, started(key)) == {}


def test_free_play_refuses_what_its_pages_and_actions_cannot_read():
    state = started("libre")
    broken = copy.deepcopy(state)
    broken["tokens"]["t1"].update(x="abc", statuses=7, hp=broken["tokens"]["t1"]["hp_max"] + 1)
    broken["tokens"]["t2"]["y"] = 10_001  # beyond the largest board
    broken["tokens"]["t2"]["name"] = "Gob\u202enileb"  # a direction override
    broken["turn"], broken["order"] = "t9", ["t1", "t1"]
    assert problems("libre", broken) == {
        "tokens.t1.x": "Must be a whole number.",
        "tokens.t1.statuses": "Must be text of at most %(n)s characters.",
        "tokens.t1.hp": "Must be between %(low)s and %(high)s.",
        "tokens.t2.y": "Must be between %(low)s and %(high)s.",
        "tokens.t2.name": "Must be text without control characters or direction marks.",
        "turn": "Names no participant of this match.",
        "order.1": "Listed twice."}


def test_a_token_whose_id_is_not_its_key_is_refused():
    state = started("libre")
    state["tokens"]["t1"]["id"] = "t2"
    assert problems("libre", state) == {"tokens.t1.id": "Must be %(value)s."}


def test_tiamat_refuses_orders_and_attacks_on_nobody():
    state = started("tiamat")
    state["orders"] = {"p9": "Frapper"}
    state["pending"] = {"attacker": "p1", "target": "p9", "technique": "straight_punch"}
    state["participants"]["p1"]["sante"] = -1
    assert problems("tiamat", state) == {
        "orders.p9": "Names no participant of this match.",
        "pending.target": "Names no participant of this match.",
        "participants.p1.sante": "Must be between %(low)s and %(high)s."}


def test_each_game_refuses_a_turn_or_list_naming_nobody():
    cases = {"mecha_ring": ("seats", ["t9"], "seats.0"),
             "mutatior": ("team_order", ["nobody"], "team_order.0"),
             "cyborg": ("order", ["t9"], "order.0"),
             "chasse": ("order", ["t9"], "order.0")}
    for key, (field, value, where) in cases.items():
        state = started(key)
        state[field] = value
        assert problems(key, state) == {where: "Names no participant of this match."}, key


def test_mutatior_refuses_standing_orders_it_cannot_read():
    state = started("mutatior")
    assert problems("mutatior", {**state, "standing": {"m1": {"strike": "always",
                                                              "limb": "tête"}},
                                 "decided": False}) == {}
    state.update(standing={"m1": {"strike": "sometimes", "limb": 3}, "m9": {}},
                 decided="yes")
    assert problems("mutatior", state) == {
        "standing.m1.strike": "Must be one of: %(names)s.",
        "standing.m1.limb": "Must be text of at most %(n)s characters.",
        "standing.m9": "Names no participant of this match.",
        "standing.m9.strike": "Must be one of: %(names)s.",
        "decided": "Must be yes or no."}
