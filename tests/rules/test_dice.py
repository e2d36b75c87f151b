"""Dice sources and roll records: what a rule can count on, whoever throws the dice."""

from __future__ import annotations

import dataclasses
import json
import random
from array import array
from collections import Counter

import pytest

from app.rules.dice import (
    Dice,
    Die,
    Modifier,
    RollRecord,
    ScriptedDice,
    SeededDice,
    SystemDice,
    new_record,
)
from app.rules.errors import DiceError, NotationError, RulesError, ScriptedDiceError
from app.rules.notation import roll


class TestScriptedDice:
    def test_hands_out_faces_in_order_across_dice_sizes(self) -> None:
        dice = ScriptedDice([3, 10, 1, 6])
        assert dice.roll(6) == [3]
        assert dice.roll(10, count=2) == [10, 1]
        assert dice.remaining == (6,)
        assert dice.roll(20) == [6]
        assert dice.remaining == ()
        dice.assert_exhausted()

    def test_a_face_the_die_cannot_show_fails(self) -> None:
        dice = ScriptedDice([8])
        with pytest.raises(ScriptedDiceError) as caught:
            dice.roll(6)
        assert caught.value.code == "script_mismatch"
        assert caught.value.fields == {"index": 1, "face": 8, "sides": 6}

    def test_a_face_scripted_for_another_die_size_fails(self) -> None:
        dice = ScriptedDice([(10, 4)])
        with pytest.raises(ScriptedDiceError) as caught:
            dice.roll(6)
        assert caught.value.code == "script_wrong_die"
        assert "d10" in str(caught.value) and "d6" in str(caught.value)

    def test_a_face_scripted_for_the_right_die_passes(self) -> None:
        assert ScriptedDice([(10, 4), (6, 6)]).roll(10) == [4]

    def test_more_dice_than_scripted_fails(self) -> None:
        dice = ScriptedDice([2])
        with pytest.raises(ScriptedDiceError) as caught:
            dice.roll(6, count=2)
        assert caught.value.code == "script_exhausted"

    def test_leftover_faces_fail_the_exhaustion_check(self) -> None:
        dice = ScriptedDice([2, 5, 6])
        dice.roll(6)
        with pytest.raises(AssertionError, match=r"scripted faces never rolled \(2\)"):
            dice.assert_exhausted()

    def test_script_errors_are_rules_errors_and_test_failures(self) -> None:
        with pytest.raises(ScriptedDiceError) as caught:
            ScriptedDice([]).roll(6)
        assert isinstance(caught.value, DiceError)
        assert isinstance(caught.value, RulesError)
        assert isinstance(caught.value, AssertionError)
        assert "plus" not in caught.value.message  # English by default
        assert "épuisées" in caught.value.message_fr()


class TestRandomDice:
    def test_the_same_seed_throws_the_same_faces(self) -> None:
        assert SeededDice(7).roll(20, count=50) == SeededDice(7).roll(20, count=50)
        assert SeededDice(7).roll(20, count=50) != SeededDice(8).roll(20, count=50)

    @pytest.mark.parametrize("sides", [1, 6, 20, 1000])
    def test_one_die_at_a_time_throws_what_a_batch_would(self, sides: int) -> None:
        # A simulation seeded last year must replay the same: 32 bits per face, in order,
        # a draw beyond the last whole multiple of the sides thrown again.
        one_by_one = SeededDice(11)
        words = array("I", random.Random(11).randbytes(4 * 400))
        limit = 2**32 - 2**32 % sides
        expected = [word % sides + 1 for word in words if word < limit][:300]
        assert [one_by_one.roll(sides)[0] for _ in range(300)] == expected
        assert SeededDice(11).roll(sides, count=300) == expected

    @pytest.mark.parametrize("dice", [SeededDice(1), SystemDice()], ids=["seeded", "system"])
    @pytest.mark.parametrize("sides", [1, 2, 6, 10, 20, 100, 1000])
    def test_faces_lie_between_one_and_sides(self, dice: Dice, sides: int) -> None:
        faces = dice.roll(sides, count=500)
        assert len(faces) == 500
        assert all(1 <= face <= sides for face in faces)

    def test_every_face_comes_up_about_as_often(self) -> None:
        counts = Counter(SeededDice(2024).roll(6, count=1000) + SeededDice(9).roll(6, count=1000))
        assert sorted(counts) == [1, 2, 3, 4, 5, 6]
        assert all(280 < n < 390 for n in counts.values())

    def test_zero_dice_is_an_empty_throw(self) -> None:
        assert SystemDice().roll(6, count=0) == []

    @pytest.mark.parametrize(("sides", "count"), [(0, 1), (1001, 1), (6, -1), (6, 1001)])
    def test_impossible_requests_are_refused(self, sides: int, count: int) -> None:
        for dice in (SystemDice(), SeededDice(0), ScriptedDice([1])):
            with pytest.raises(DiceError):
                dice.roll(sides, count=count)

    def test_all_three_sources_are_dice(self) -> None:
        assert isinstance(SystemDice(), Dice)
        assert isinstance(SeededDice(0), Dice)
        assert isinstance(ScriptedDice([]), Dice)


class TestRollRecord:
    def test_jack_deciphers_the_parchment(self) -> None:
        # 004 § Jet de dés simple: Intelligence 2, Langue +2, very hard (10); 1 and 6 → 8.
        record = roll("2d10kh1", ScriptedDice([1, 6]), purpose="Langue")
        record = record.with_modifiers(Modifier(2, "Langue")).with_target(10, "échec")
        assert record.total == 8
        assert record.describe() == "2d10kh1: 1, 6 → 6 + Langue 2 = 8 < 10, échec"

    def test_describe_shows_the_sum_of_groups_and_modifiers(self) -> None:
        assert roll("2d10kh1+2", ScriptedDice([1, 6])).describe() == "2d10kh1+2: 1, 6 → 6 + 2 = 8"
        assert roll("2d6+1d4-3", ScriptedDice([3, 5, 2])).describe() == (
            "2d6+1d4-3: 3, 5; 2 → 8 + 2 - 3 = 7"
        )

    def test_describe_skips_the_arrow_when_nothing_is_added(self) -> None:
        assert roll("4d6kh3", ScriptedDice([1, 3, 4, 6])).describe() == "4d6kh3: 1, 3, 4, 6 = 13"

    def test_describe_marks_explosions_and_tiamat_criticals(self) -> None:
        assert roll("d6!", ScriptedDice([6, 2])).describe() == "1d6!: 6!, 2 = 8"
        assert roll("3d10t", ScriptedDice([2, 10, 10, 3, 5])).describe() == (
            "3d10t: 2, 10*, 10* → 10 + 3 + 5 = 18"
        )

    def test_kept_and_dropped_dice(self) -> None:
        record = roll("4d6dl1", ScriptedDice([2, 5, 1, 4]))
        assert [die.value for die in record.kept] == [2, 5, 4]
        assert [die.value for die in record.dropped] == [1]
        assert record.dropped[0].dropped

    def test_round_trips_through_json(self) -> None:
        records = [
            roll("3d10t+1d6-2 # couteau", ScriptedDice([1, 8, 10, 3, 4])),
            roll("4d6!kh3", ScriptedDice([6, 1, 2, 3, 5])),
            roll("6d10>=8", ScriptedDice([8, 9, 1, 2, 10, 7])).with_target(2, "réussite"),
        ]
        for record in records:
            data = json.loads(json.dumps(record.to_dict()))
            assert RollRecord.from_dict(data) == record
            assert RollRecord.from_dict(data).describe() == record.describe()

    def test_new_parts_of_a_record_round_trip_too(self) -> None:
        records = [
            roll("2d6ro<3 + 8d6mi2", ScriptedDice([1, 5, 2, *[1] * 8])),
            roll("(1d20+5, 1d20+3)kh1 [attaque] >= 15", ScriptedDice([9, 15])),
            roll("1d8 [tranchant] + 2d6 [feu] # coup", ScriptedDice([5, 3, 4])),
        ]
        for record in records:
            data = json.loads(json.dumps(record.to_dict()))
            assert RollRecord.from_dict(data) == record
            assert RollRecord.from_dict(data).describe() == record.describe()

    def test_a_die_says_it_was_rerolled_or_changed_only_when_it_was(self) -> None:
        plain = roll("2d6", ScriptedDice([3, 4])).to_dict()
        assert all(set(die) == {"sides", "value", "kept", "exploded", "critical", "success",
                                "added", "group", "sign"} for die in plain["dice"])
        assert "tree" not in plain
        changed = roll("1d6ro1mi3", ScriptedDice([1, 2])).to_dict()["dice"]
        assert changed[0]["rerolled"] is True and "rolled" not in changed[0]
        assert changed[1]["rolled"] == 2 and changed[1]["value"] == 3

    def test_a_record_stored_before_trees_reads_as_it_did(self) -> None:
        # A signed record of an earlier version: no tree, no rerolled, no rolled.
        stored = {"purpose": "dégâts", "expression": "2d6!+1", "modifiers": [
            {"value": 1, "label": None}], "total": 15, "target": None, "outcome": None,
            "dice": [{"sides": 6, "value": 6, "kept": True, "exploded": True,
                      "critical": False, "success": None, "added": None, "group": 0,
                      "sign": 1},
                     {"sides": 6, "value": 2, "kept": True, "exploded": False,
                      "critical": False, "success": None, "added": "explosion", "group": 0,
                      "sign": 1},
                     {"sides": 6, "value": 6, "kept": True, "exploded": False,
                      "critical": False, "success": None, "added": None, "group": 0,
                      "sign": 1}]}
        record = RollRecord.from_dict(stored)
        assert record.describe() == "2d6!+1: 6!, 2, 6 → 14 + 1 = 15"
        assert record.to_dict() == stored

    def test_a_record_built_quickly_is_a_record(self) -> None:
        args = ("Initiative", "1d20", (Die(20, 9),), (), 9)
        assert new_record(*args) == RollRecord(*args)
        assert new_record(*args, 10, "failure") == RollRecord(*args, 10, "failure")

    def test_a_malformed_tree_is_refused_when_read(self) -> None:
        record = roll("(1d6)*2", ScriptedDice([3])).to_dict()
        record["tree"] = {"kind": "chain", "ops": ["*"], "terms": [{"kind": "number"}]}
        with pytest.raises((KeyError, ValueError)):
            RollRecord.from_dict(record).describe()
        deep: dict = {"kind": "number", "value": 1}
        for _ in range(200):
            deep = {"kind": "unary", "op": "-", "operand": deep, "value": 1}
        record["tree"] = deep
        with pytest.raises(ValueError):
            RollRecord.from_dict(record).describe()

    def test_is_immutable(self) -> None:
        record = roll("1d6", ScriptedDice([4]))
        with pytest.raises(dataclasses.FrozenInstanceError):
            record.total = 6  # type: ignore[misc]

    def test_a_hand_built_record_describes_itself(self) -> None:
        record = RollRecord(
            purpose="Initiative",
            expression="2d10kh1",
            dice=(Die(10, 9), Die(10, 4, kept=False)),
            modifiers=(Modifier(-1, "épuisé"),),
            total=8,
        )
        assert record.describe() == "2d10kh1: 9, 4 → 9 - épuisé 1 = 8"


class TestErrors:
    def test_notation_error_carries_structured_fields(self) -> None:
        error = NotationError(4, ("term",), "x")
        assert error.code == "notation_syntax"
        assert error.position == 4
        assert error.to_dict() == {
            "code": "notation_syntax",
            "message": "expected a number, 'd' or '(' at position 4, found 'x'",
            "position": 4,
            "expected": ["term"],
            "found": "x",
        }
        assert error.message_fr() == (
            "attendu un nombre, « d » ou « ( » à la position 4, trouvé « x »")
