"""The table engine: one action, one transaction; stale seq; idempotency; undo and redo."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from app.errors import Conflict, Forbidden, ValidationFailed
from app.models import Character, Match, MatchEvent, Membership, Role, Roll, User
from app.rules.dice import ScriptedDice
from app.services import campaigns, rolls, tables
from app.services.access import load_campaign_access
from tests.table_harness import (
    Step,
    assert_log_is_the_truth,
    assert_rewind_and_redo_round_trip,
    play,
)

SECRET = "test-secret"


@pytest.fixture
def table(db, api):
    """A libre campaign: GM Mia, player Paul with his character Aldo, spectator Sam."""
    users = {name: api(name) for name in ("mia", "paul", "sam")}
    gm_user = db.get(User, users["mia"].id)
    campaign = campaigns.create_campaign(db=db, user=gm_user, name="Table", system="libre")
    db.add_all([Membership(campaign_id=campaign.id, user_id=users["paul"].id, role=Role.PLAYER),
                Membership(campaign_id=campaign.id, user_id=users["sam"].id,
                           role=Role.SPECTATOR)])
    db.add(Character(campaign_id=campaign.id, owner_id=users["paul"].id, name="Aldo",
                     sheet={"hp": 12, "hp_max": 12, "counters": [], "statuses": ""}))
    db.commit()
    access = {name: load_campaign_access(db, db.get(User, user.id), campaign.id)
              for name, user in users.items()}
    aldo = db.scalar(select(Character.id).where(Character.name == "Aldo"))
    match = tables.create_match(db=db, secret=SECRET, access=access["mia"], name="Escarmouche",
                                character_ids=[aldo], dice=ScriptedDice([]))
    return access, match


def test_a_scripted_libre_match_folds_to_its_snapshot(db, table):
    access, match = table
    gm, paul = access["mia"], access["paul"]
    play(db, SECRET, match, [
        Step(gm, {"kind": "add_token", "name": "Gobelin", "hp_max": 6}),
        Step(gm, {"kind": "roll_initiative"}, faces=[14, 9]),
        Step(gm, {"kind": "next_turn"}),
        Step(paul, {"kind": "roll", "expression": "2d6+1 # dégâts"}, faces=[4, 5]),
        Step(paul, {"kind": "move", "token": "t1", "x": 30, "y": 40}),
        Step(paul, {"kind": "delay"}),
        Step(gm, {"kind": "next_turn"}),
        Step(paul, {"kind": "next_turn"}),
        Step(gm, {"kind": "adjust_hp", "token": "t2", "delta": -10}),
    ])
    db.refresh(match)
    state = match.state
    assert state["tokens"]["t2"]["hp"] == 0  # 6 − 10, never below zero
    assert state["tokens"]["t1"]["x"] == 30
    # Aldo (14) waited for the goblin (9): he now acts at 8, after it.
    assert state["order"] == ["t2", "t1"] and state["tokens"]["t1"]["initiative"] == 8
    # The goblin at 0 hit points, Aldo's side alone is left: the fight is decided, no turn
    # runs (it was the goblin's, in round 2).
    assert state["round"] == 2 and state["turn"] is None
    assert tables.system_of(match).outcome(state).winners == ("Aldo",)
    assert_rewind_and_redo_round_trip(db, gm, match, to_seq=4)


def test_each_roll_lands_signed_in_the_campaign_log(db, table):
    access, match = table
    play(db, SECRET, match, [Step(access["paul"], {"kind": "roll", "expression": "4d6kh3"},
                                  faces=[1, 6, 3, 5])])
    roll = db.scalar(select(Roll).where(Roll.match_id == match.id))
    assert roll.record["total"] == 14
    entry = rolls.entry_dict(roll)
    assert rolls.verify(SECRET, entry)
    assert not rolls.verify(SECRET, {**entry, "record": {**entry["record"], "total": 18}})


def test_a_stale_seq_is_refused_with_the_fresh_state_and_changes_nothing(db, table):
    access, match = table
    seq = match.seq
    tables.apply_action(db=db, secret=SECRET, access=access["mia"], match_id=match.id,
                        action={"kind": "note", "text": "Il pleut."}, expected_seq=seq,
                        dice=ScriptedDice([]))
    with pytest.raises(Conflict) as refused:
        tables.apply_action(db=db, secret=SECRET, access=access["paul"], match_id=match.id,
                            action={"kind": "note", "text": "Moi aussi"}, expected_seq=seq,
                            dice=ScriptedDice([]))
    assert refused.value.details["seq"] == seq + 1
    assert refused.value.details["state"]["tokens"]["t1"]["name"] == "Aldo"
    db.commit()
    assert db.scalar(select(func.count()).select_from(MatchEvent)
                     .where(MatchEvent.match_id == match.id)) == seq + 1


def test_the_same_idempotency_key_applies_once(db, table):
    access, match = table
    kwargs = dict(db=db, secret=SECRET, access=access["paul"], match_id=match.id,
                  expected_seq=None, idempotency_key="click-1")
    first = tables.apply_action(action={"kind": "roll", "expression": "1d20"},
                                dice=ScriptedDice([17]), **kwargs)
    again = tables.apply_action(action={"kind": "roll", "expression": "1d20"},
                                dice=ScriptedDice([]), **kwargs)
    assert again.replayed and again.seq == first.seq and again.events == first.events
    with pytest.raises(ValidationFailed) as refused:
        tables.apply_action(action={"kind": "roll", "expression": "1d6"},
                            dice=ScriptedDice([]), **kwargs)
    assert refused.value.status == 422


def test_refusals_change_nothing(db, table):
    access, match = table
    db.refresh(match)
    before = (match.seq, dict(match.state))
    for who, action in (("paul", {"kind": "adjust_hp", "token": "t9", "delta": 1}),
                        ("paul", {"kind": "add_token", "name": "X"}),
                        ("paul", {"kind": "move", "token": "t1", "x": 99999, "y": 0}),
                        ("paul", {"kind": "roll", "expression": "2d"}),
                        ("paul", {"kind": "launch_rocket"})):
        with pytest.raises(ValidationFailed):
            tables.apply_action(db=db, secret=SECRET, access=access[who], match_id=match.id,
                                action=action, expected_seq=None, dice=ScriptedDice([]))
    with pytest.raises(Forbidden):  # spectators watch
        tables.apply_action(db=db, secret=SECRET, access=access["sam"], match_id=match.id,
                            action={"kind": "roll", "expression": "1d6"}, expected_seq=None,
                            dice=ScriptedDice([]))
    db.commit()
    db.refresh(match)
    assert (match.seq, match.state) == before
    assert_log_is_the_truth(db, match)


def test_hidden_rolls_are_redacted_for_players(db, table):
    access, match = table
    play(db, SECRET, match, [Step(access["mia"], {"kind": "roll", "expression": "1d100",
                                                  "visibility": "gm"}, faces=[42])])
    actor = tables.actor_for(db, access["paul"])
    (last,) = tables.events_after(db, db.get(Match, match.id), actor, after_seq=match.seq - 1)
    assert last["kind"] == "hidden" and "42" not in str(last["payload"])
    gm_view = tables.events_after(db, db.get(Match, match.id), tables.actor_for(db, access["mia"]),
                                  after_seq=match.seq - 1)
    assert gm_view[0]["payload"]["rolls"][0]["total"] == 42


def test_ending_a_match_carries_hit_points_and_statuses_back_to_the_sheet(db, table):
    access, match = table
    gm, paul = access["mia"], access["paul"]
    play(db, SECRET, match, [
        Step(gm, {"kind": "adjust_hp", "token": "t1", "delta": -5}),
        Step(paul, {"kind": "set_statuses", "token": "t1", "statuses": "empoisonné"}),
        Step(gm, {"kind": "end_match"}),
    ])
    aldo = db.scalar(select(Character).where(Character.name == "Aldo"))
    db.refresh(aldo)
    assert (aldo.sheet["hp"], aldo.sheet["statuses"], aldo.sheet["hp_max"]) == (
        7, "empoisonné", 12)
