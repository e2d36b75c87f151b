"""The dice notation, read like the rulebooks' examples and the big tables' habits
(docs/dice.md): every operator and selector, its errors and its limits. The properties
(bounds, printing and parsing again) are in test_notation_properties.py, the comparison with
the d20 library in test_notation_d20.py."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.rules.dice import RollRecord, ScriptedDice, SeededDice
from app.rules.errors import NotationError
from app.rules.notation import MAX_EXPLOSIONS, MAX_EXTRA_DICE, bounds, parse, roll


def faces(record: RollRecord) -> list[int]:
    return [die.value for die in record.dice]


def kept(record: RollRecord) -> list[int]:
    return [die.value for die in record.kept]


def rolled(expr: str, *script: int | tuple[int, int]) -> RollRecord:
    """``expr`` rolled with exactly these faces (no more, no fewer)."""
    dice = ScriptedDice(script)
    record = roll(expr, dice)
    dice.assert_exhausted()
    return record


class TestTiamatExamples:
    """004_027408667edfd8d5.txt § Tests et Actions."""

    def test_ryu_searches_with_two_friends(self) -> None:
        # § Agir en équipe: Perception 3 + 2D10, best die 7, Investigation +4 → 11.
        record = rolled("5d10t+4", 3, 7, 1, 5, 2)
        assert record.total == 11
        assert kept(record) == [7]

    def test_jack_bends_a_steel_bar(self) -> None:
        # § Critique: Force 3, 2, 10 and 10 → two d6 showing 3 and 5 → 18.
        record = rolled("3d10t", (10, 2), (10, 10), (10, 10), (6, 3), (6, 5))
        assert record.total == 18
        assert [die.critical for die in record.dice[:3]] == [False, True, True]
        assert [die.added for die in record.dice[3:]] == ["critical", "critical"]

    def test_jack_strikes_with_a_knife(self) -> None:
        # § Dans le texte: Force 3 + 1D6; 1, 8, 10 → critical d6 3 → 13, knife d6 4 → 17.
        record = rolled("3d10t+1d6", 1, 8, 10, 3, 4)
        assert record.total == 17
        assert record.describe() == "3d10t+1d6: 1, 8, 10*; 4 → 10 + 3 + 4 = 17"

    def test_a_dropped_ten_still_adds_its_d6(self) -> None:
        # Every 10 thrown counts ("pour chaque 10 obtenu sur les dés"), kept or not.
        record = rolled("2d10t", 10, 10, 1, 1)
        assert record.total == 12
        assert [die.kept for die in record.dice[:2]] == [True, False]

    def test_a_six_on_the_critical_d6_does_not_chain(self) -> None:
        assert rolled("1d10t", 10, 6).total == 16

    def test_keep_highest_one_may_be_spelt_out(self) -> None:
        record = rolled("3d10kh1t", 3, 10, 2, 3)
        assert record.expression == "3d10t"
        assert record.total == 13

    def test_a_pool_without_t_has_no_critical(self) -> None:
        assert rolled("2d10kh1", 3, 10).total == 10

    def test_pistol_damage_adds_every_d6(self) -> None:
        # § On garde tous les D6: 2D6 showing 1 and 6 → 7.
        assert rolled("2d6", 1, 6).total == 7

    def test_a_pool_reduced_to_no_die_still_throws_one(self) -> None:
        # § Un dé minimum: « le personnage pourra toujours lancer 1D10 ».
        record = rolled("0d10t+2", (10, 7))
        assert (record.expression, record.total) == ("0d10t+2", 9)
        assert bounds("0d10t") == (1, 16)

    def test_a_comparison_after_the_pool_is_with_its_total(self) -> None:
        # § Jet de dés simple: the best die against the difficulty, not a count of dice.
        record = rolled("3d10t >= 8", 2, 9, 4)
        assert (record.total, record.target, record.outcome) == (9, 8, "success")


class TestDiceGroups:
    def test_count_defaults_to_one(self) -> None:
        record = rolled("d20", (20, 13))
        assert record.expression == "1d20"
        assert record.total == 13

    def test_percentile_dice_run_from_1_to_100(self) -> None:
        assert rolled("d%", (100, 42)).total == 42
        assert rolled("1d100", (100, 100)).total == 100
        assert rolled("d%", 1).expression == "1d%"
        assert bounds("d%") == (1, 100)

    def test_groups_and_numbers_add_and_subtract(self) -> None:
        record = rolled("1d20+5-1d4+2", (20, 12), (4, 3))
        assert record.total == 12 + 5 - 3 + 2
        assert [m.value for m in record.modifiers] == [5, 2]
        assert [die.sign for die in record.dice] == [1, -1]
        assert record.tree is None  # a plain sum leaves the record it always left

    def test_a_leading_minus(self) -> None:
        assert rolled("-1d6+10", 4).total == 6
        assert rolled("-3").total == -3

    def test_a_number_alone(self) -> None:
        assert rolled("7").total == 7

    def test_whitespace_and_case_do_not_matter(self) -> None:
        record = rolled("  4 D6 K H 3 +\t1 ", 1, 3, 4, 6)
        assert record.expression == "4d6kh3+1"
        assert record.total == 14

    def test_no_dice_throws_nothing(self) -> None:
        record = rolled("0d6+3")
        assert (record.total, record.dice) == (3, ())
        assert bounds("0d6") == (0, 0)


class TestArithmetic:
    @pytest.mark.parametrize(("expr", "total"), [
        ("1 + 3 * 6", 19), ("(1 + 3) * 6", 24), ("1 + 2 + 3", 6), ("2 * 5", 10),
        ("15 / 2", 7), ("15 // 2", 7), ("13 % 2", 1), ("-7 / 2", -4), ("7 % -3", -2),
        ("--1", 1), ("-+-++---+1", -1), ("2 - -3", 5), ("2*-3", -6),
    ])
    def test_precedence_signs_and_division(self, expr: str, total: int) -> None:
        assert rolled(expr).total == total

    def test_half_damage_rounds_down(self) -> None:
        record = rolled("8d6/2", 1, 2, 3, 4, 5, 6, 1, 2)  # 24 / 2
        assert record.total == 12
        assert rolled("3d6/2", 1, 2, 4).total == 3  # 7 / 2 rounds down

    def test_a_doubled_attack_explains_each_number(self) -> None:
        record = rolled("(1d20+5)*2", (20, 14))
        assert record.total == 38
        assert record.describe() == "(1d20+5)*2: 14 → (14 + 5) * 2 = 38"
        assert record.tree["kind"] == "chain" and record.tree["value"] == 38

    def test_a_negated_group(self) -> None:
        record = rolled("-(1d4)", 3)
        assert record.total == -3
        assert record.expression == "-(1d4)"


class TestRerolls:
    def test_reroll_once_replaces_the_die_in_its_place(self) -> None:
        record = rolled("2d6ro<3", 1, 5, 2)  # the 1 is thrown again: a 2, which stays
        assert record.total == 7
        assert faces(record) == [1, 2, 5]
        assert [die.rerolled for die in record.dice] == [True, False, False]
        assert [die.added for die in record.dice] == [None, "reroll", None]
        assert kept(record) == [2, 5]
        assert record.describe() == "2d6ro<3: ~1~, 2, 5 = 7"

    def test_reroll_once_on_a_face(self) -> None:
        assert rolled("1d20ro1", 1, 1).total == 1
        assert rolled("1d20ro1", 7).total == 7

    def test_reroll_until_no_die_matches(self) -> None:
        record = rolled("1d20rr<20", 3, 19, 20)
        assert record.total == 20
        assert [die.rerolled for die in record.dice] == [True, True, False]
        assert rolled("1d20rr>1", 12, 1).total == 1

    def test_reroll_the_lowest_once(self) -> None:
        record = rolled("4d6rol1", 5, 1, 3, 6, 4)
        assert kept(record) == [5, 4, 3, 6]

    def test_reroll_and_add_keeps_the_first_match_and_adds_one_die(self) -> None:
        record = rolled("4d6ra6", 6, 2, 3, 6, 5)
        assert record.total == 6 + 5 + 2 + 3 + 6
        assert [die.added for die in record.dice] == [None, "reroll", None, None, None]
        assert rolled("1d1ra1", 1, 1).total == 2

    def test_rerolls_stop_at_the_expressions_budget(self) -> None:
        record = rolled("1d20rr1", *[1] * (MAX_EXTRA_DICE + 1))
        assert record.total == 1 and len(record.dice) == MAX_EXTRA_DICE + 1
        assert bounds("1d20rr1") == (1, 20)  # which is why the bounds keep the 1

    def test_consecutive_rerolls_join(self) -> None:
        assert parse("2d6ro1ro2") == parse("2d6ro1 ro2")
        assert rolled("2d6ro1ro2", 2, 1, 6, 6).total == 12


class TestMinimumAndMaximum:
    def test_a_minimum_raises_each_die_and_keeps_the_face_thrown(self) -> None:
        record = rolled("8d6mi2", 1, 6, 4, 2, 6, 2, 5, 6)
        assert record.total == 33
        assert [die.rolled for die in record.dice][:2] == [1, None]
        assert record.describe().startswith("8d6mi2: ~1~2, 6, 4, 2")

    @pytest.mark.parametrize(("expr", "total"), [
        ("10d6mi6", 60), ("10d6mi10", 100), ("10d6ma1", 10), ("10d6ma0", 0)])
    def test_beyond_the_faces(self, expr: str, total: int) -> None:
        assert rolled(expr, *[3] * 10).total == total
        assert bounds(expr) == (total, total)

    def test_a_maximum(self) -> None:
        assert rolled("1d20ma15", 18).total == 15
        assert bounds("1d20mi10") == (10, 20)


class TestExplosions:
    def test_a_highest_face_rolls_again_and_adds(self) -> None:
        record = rolled("d6!", 6, 6, 2)
        assert record.total == 14
        assert [die.exploded for die in record.dice] == [True, True, False]
        assert [die.added for die in record.dice] == [None, "explosion", "explosion"]

    def test_each_die_is_followed_by_the_dice_it_caused(self) -> None:
        # Thrown in waves (6, 2, 6 → 6, 1 → 3); read in chains: 6! 6! 3, then 2, then 6! 1.
        record = rolled("3d6!", 6, 2, 6, 6, 1, 3)
        assert faces(record) == [6, 6, 3, 2, 6, 1]
        assert record.total == 24
        assert record.describe() == "3d6!: 6!, 6!, 3, 2, 6!, 1 = 24"

    @pytest.mark.parametrize(("expr", "script", "total"), [
        ("1d6e6", [6, 2], 8), ("1d10e>8", [9, 10, 3], 22), ("2d10e10e1", [1, 4, 10, 2], 17),
        ("1d2e2", [2, 2, 1], 5)])
    def test_on_a_face_or_a_threshold(self, expr: str, script: list[int], total: int) -> None:
        assert rolled(expr, *script).total == total

    def test_written_e_on_the_highest_face_is_the_same_as_bang(self) -> None:
        assert parse("4d6e6kh3") == parse("4d6!kh3")
        assert str(parse("4d6kh3e6")) == "4d6!kh3"  # dice change first, then keep

    def test_explosions_stop_at_the_cap(self) -> None:
        record = rolled("d6!", *[6] * (MAX_EXPLOSIONS + 1))
        assert record.total == 6 * (MAX_EXPLOSIONS + 1)
        assert sum(die.exploded for die in record.dice) == MAX_EXPLOSIONS
        assert not record.dice[-1].exploded
        assert bounds("d6!") == (1, record.total)

    def test_exploded_dice_join_the_pool_before_keeping(self) -> None:
        record = rolled("2d6!kh2", 6, 1, 5)
        assert kept(record) == [6, 5]
        record = rolled("2d6!kh1", 6, 1, 5)
        assert [die.kept for die in record.dice] == [True, False, False]


class TestKeepAndDrop:
    @pytest.mark.parametrize(("expr", "kept_faces", "total"), [
        ("4d6kh3", [3, 4, 6], 13), ("4d6k3", [3, 4, 6], 13), ("4d6kl1", [1], 1),
        ("4d6dh1", [3, 1, 4], 8), ("4d6dl1", [3, 4, 6], 13), ("4d6pl1", [3, 4, 6], 13),
        ("4d6ph1", [3, 1, 4], 8), ("4d6kh", [6], 6), ("4d6dl0", [3, 1, 4, 6], 14),
        ("4d6k>3", [4, 6], 10), ("4d6k>=4", [4, 6], 10), ("4d6p<2", [3, 4, 6], 13),
        ("4d6k=3", [3], 3), ("4d6p3", [1, 4, 6], 11), ("4d6kh5", [3, 1, 4, 6], 14),
        ("4d6kh0", [], 0), ("4d6dl5", [], 0),
    ])
    def test_by_position_and_by_value(self, expr: str, kept_faces: list[int],
                                      total: int) -> None:
        record = rolled(expr, 3, 1, 4, 6)
        assert kept(record) == kept_faces
        assert record.total == total
        assert faces(record) == [3, 1, 4, 6]

    def test_keep_operators_chain_in_the_order_written(self) -> None:
        assert rolled("4d6kh3dl1", 3, 1, 4, 6).total == 10  # 3, 4, 6, then drop the 3
        assert rolled("4d6dl1kh1", 3, 1, 4, 6).total == 6
        assert rolled("10d6k>2kl2", 1, 2, 3, 4, 5, 6, 6, 5, 4, 3).total == 6
        assert rolled("5d6ph1pl1", 1, 2, 3, 4, 5).total == 9

    def test_the_median_of_three_dice(self) -> None:
        # Chained, not joined as d20 does (where kh1kl1 keeps the highest and the lowest).
        record = rolled("3d20kh2kl1", 17, 4, 11)
        assert record.total == 11
        assert kept(record) == [11]

    def test_among_equal_faces_the_first_thrown_is_kept(self) -> None:
        record = rolled("3d10kh1", 7, 9, 9)
        assert [die.kept for die in record.dice] == [False, True, False]
        record = rolled("3d6kl2", 2, 5, 2)
        assert [die.kept for die in record.dice] == [True, False, True]
        record = rolled("2d6dh1", 6, 6)
        assert [die.kept for die in record.dice] == [True, False]


class TestSets:
    def test_the_best_of_two_attacks(self) -> None:
        record = rolled("(1d20+5, 1d20+3)kh1", (20, 9), (20, 15))
        assert record.total == 18
        assert record.tree["kind"] == "set"
        assert record.tree["kept"] == [False, True]
        assert record.describe() == "(1d20+5, 1d20+3)kh1: 9; 15 → (~9 + 5~, 15 + 3) = 18"

    def test_drop_what_falls_below(self) -> None:
        record = rolled("(1d6,1d8,1d10)p<3", (6, 2), (8, 5), (10, 1))
        assert record.total == 5
        assert record.expression == "(1d6, 1d8, 1d10)p<3"

    @pytest.mark.parametrize(("expr", "total"), [
        ("()", 0), ("(1,)", 1), ("(1, 1)", 2), ("(1, 2, 3, 4, 5)k3", 12),
        ("(1, 2, 3, 4, 5)k=3", 3), ("(1, 2, 3, 4, 5)k<3", 3), ("(1, 2, 3, 4, 5)k>3", 9),
        ("(1, 2, 3, 4, 5)kl2", 3), ("(1, 2, 3, 4, 5)kh2", 9), ("(1)k1", 1), ("(1)k2", 1),
        ("(1, 2, 3, 4, 5)p3", 12), ("(1, 2, 3, 4, 5)ph1pl1", 9), ("(1, 2, 3)kh2kl1", 2),
        ("((10, 6)kh1, 3)kl1", 3), ("-1 + (3, 1)kh1", 2),
    ])
    def test_keeping_and_dropping_items(self, expr: str, total: int) -> None:
        assert rolled(expr).total == total

    def test_parentheses_alone_are_no_set(self) -> None:
        assert rolled("((1d6))", 4).tree["kind"] == "parens"
        assert rolled("(1d6,)", 4).tree["kind"] == "set"

    def test_dice_operators_do_not_apply_to_sets(self) -> None:
        with pytest.raises(NotationError) as caught:
            parse("(1d6, 1d8)ro1")
        assert (caught.value.code, caught.value.position) == ("dice_only", 10)


class TestAnnotations:
    def test_each_part_keeps_its_annotation(self) -> None:
        record = rolled("1d8 [tranchant] + 2d6 [feu]", (8, 5), (6, 3), (6, 4))
        assert record.total == 12
        assert record.expression == "1d8[tranchant]+2d6[feu]"
        terms = record.tree["terms"]
        assert [term.get("label") for term in terms] == ["tranchant", "feu"]
        assert record.describe() == ("1d8[tranchant]+2d6[feu]: 5; 3, 4 → "
                                     "5 [tranchant] + 7 [feu] = 12")

    def test_numbers_and_parentheses_take_annotations_too(self) -> None:
        record = rolled("-(1d8 + 3) [soins] + 2 [bonus]", 5)
        assert record.total == -6
        assert record.describe() == (
            "-(1d8+3)[soins]+2[bonus]: 5 → -(5 + 3) [soins] + 2 [bonus] = -6")

    def test_several_annotations_and_brackets_inside_the_label(self) -> None:
        record = rolled("1d6 [feu] [magie # rare]", 2)
        assert record.tree["label"] == "feu magie # rare"
        assert record.purpose is None

    def test_an_annotation_keeps_its_case(self) -> None:
        assert rolled("1D6 [Feu Grégeois]", 2).tree["label"] == "Feu Grégeois"


class TestComparisons:
    def test_a_total_against_a_difficulty(self) -> None:
        record = rolled("1d20+5 >= 15", 12)
        assert (record.total, record.target, record.outcome) == (17, 15, "success")
        assert record.describe() == "1d20+5>=15: 12 → 12 + 5 = 17 > 15, success"
        assert rolled("1d20+5 >= 15", 2).outcome == "failure"

    def test_an_opposed_roll(self) -> None:
        record = rolled("1d20 + 2 > 1d20 + 4", 15, 12)
        assert (record.total, record.target, record.outcome) == (17, 16, "success")
        assert record.describe().endswith("= 17 > 16 (12 + 4), success")

    @pytest.mark.parametrize(("expr", "outcome"), [
        ("1 = 1", "success"), ("1 == 2", "failure"), ("1 > 1", "failure"), ("2 > 1", "success"),
        ("1 < 2", "success"), ("1 >= 2", "failure"), ("1 <= 1", "success"),
        ("1 != 1", "failure"), ("1 != 2", "success")])
    def test_every_comparison(self, expr: str, outcome: str) -> None:
        assert rolled(expr).outcome == outcome

    def test_right_after_a_group_a_plain_number_counts_successes(self) -> None:
        # Roll20's convention, ours since the first free roller: each die against 8.
        record = rolled("6d10>=8", 8, 9, 1, 2, 10, 7)
        assert (record.total, record.target) == (3, None)
        # Against dice or parentheses, the totals are compared.
        assert rolled("1d20 >= 1d20", 5, 9).outcome == "failure"
        assert rolled("(2d6) >= 7", 3, 5).outcome == "success"
        assert rolled("2d6 >= 7", 3, 5).total == 0

    def test_the_count_of_successes_can_be_judged_too(self) -> None:
        record = rolled("6d10>=8 >= 2", 8, 9, 1, 2, 10, 7)
        assert (record.total, record.target, record.outcome) == (3, 2, "success")

    def test_a_comparison_inside_parentheses_is_1_or_0(self) -> None:
        assert rolled("1 + (2 == 2)").total == 2
        assert rolled("(1d20+5 >= 15, 1d20+5 >= 15)", 12, 3).total == 1

    def test_not_equal_is_one_operator_after_a_bang(self) -> None:
        assert parse("1d6!=1").root.success.kind == "!="
        assert parse("1d6! =6").root.rolling and parse("1d6! =6").root.success.kind == "="


class TestSuccesses:
    @pytest.mark.parametrize(("expr", "successes"), [
        ("6d10>=8", 3), ("6d10>8", 2), ("6d10<=2", 2), ("6d10<2", 1), ("6d10=10", 1),
        ("6d10==10", 1), ("6d10!=1", 5)])
    def test_count_the_dice_that_pass(self, expr: str, successes: int) -> None:
        record = rolled(expr, 8, 9, 1, 2, 10, 7)
        assert record.total == successes
        assert sum(bool(die.success) for die in record.dice) == successes

    def test_exploding_successes(self) -> None:
        assert rolled("2d10!>=8", 10, 3, 9).total == 2

    def test_a_number_adds_to_the_count(self) -> None:
        assert rolled("3d10>=8+1", 8, 1, 1).total == 2

    def test_only_kept_dice_count(self) -> None:
        record = rolled("6d10kh3>=8", 8, 9, 1, 2, 10, 7)
        assert record.total == 3
        assert [die.success for die in record.dice] == [True, True, None, None, True, None]


class TestLabels:
    def test_a_label_becomes_the_purpose(self) -> None:
        record = rolled("2d6+1 # dégâts", 2, 3)
        assert record.purpose == "dégâts"
        assert record.expression == "2d6+1"
        assert record.total == 6

    def test_the_label_keeps_its_case_and_accents(self) -> None:
        assert rolled("d6#Coup de Pied Sauté", 1).purpose == "Coup de Pied Sauté"

    def test_an_empty_label_is_no_label(self) -> None:
        assert rolled("d6 #  ", 1).purpose is None

    def test_an_explicit_purpose_wins_over_the_label(self) -> None:
        dice = ScriptedDice([1])
        assert roll("d6 # dégâts", dice, purpose="Initiative").purpose == "Initiative"

    def test_the_label_is_part_of_the_tree(self) -> None:
        assert parse("2d6 # dégâts").label == "dégâts"


class TestErrors:
    @pytest.mark.parametrize(("expr", "position", "expected", "found"), [
        ("", 0, ("term",), None),
        ("1d6+x", 4, ("term",), "x"),
        ("1d6+", 4, ("term",), None),
        ("2x6", 1, ("d", "operator"), "x"),
        ("d", 1, ("sides",), None),
        ("4d6kx", 4, ("selector",), "x"),
        ("4d6dx", 3, ("modifier", "operator"), "d"),
        ("4d6mi", 5, ("number",), None),
        ("4d6>=", 5, ("term",), None),
        ("d6 3", 3, ("modifier", "operator"), "3"),
        ("# label", 0, ("term",), "#"),
        ("2d6+*1", 4, ("term",), "*"),
        ("1d6²", 3, ("modifier", "operator"), "²"),
        ("(1d6", 4, ("comma", "closing"), None),
        ("(1d6 2)", 5, ("comma", "closing"), "2"),
        ("1d6)", 3, ("modifier", "operator"), ")"),
        ("1d6 [feu", 8, ("annotation_end",), None),
        ("1d6 r1", 4, ("modifier", "operator"), "r"),
    ])
    def test_syntax_errors_say_where_and_what(
        self, expr: str, position: int, expected: tuple[str, ...], found: str | None
    ) -> None:
        with pytest.raises(NotationError) as caught:
            parse(expr)
        assert caught.value.code == "notation_syntax"
        assert (caught.value.position, caught.value.expected, caught.value.found) == (
            position, expected, found)

    def test_the_message_reads_naturally_in_both_languages(self) -> None:
        with pytest.raises(NotationError) as caught:
            parse("1d6+x")
        assert str(caught.value) == "expected a number, 'd' or '(' at position 4, found 'x'"
        assert caught.value.message_fr() == (
            "attendu un nombre, « d » ou « ( » à la position 4, trouvé « x »")

    @pytest.mark.parametrize(("expr", "code", "position"), [
        ("d0", "notation_range", 1),
        ("d6+9999999", "notation_range", 3),
        ("1.5", "whole_numbers", 0),
        ("1d6+.5", "whole_numbers", 4),
        ("2d6*1.5", "whole_numbers", 4),
        ("d1!", "explodes_forever", 2),
        ("1d20e<21", "explodes_forever", 4),
        ("1d1e1", "explodes_forever", 3),
        ("1d20rr<21", "rerolls_forever", 4),
        ("1d1rr1", "rerolls_forever", 3),
        ("1d6rrh1", "selector_by_value", 3),
        ("1d6el1", "selector_by_value", 3),
        ("3d6t", "tiamat_needs_d10", 3),
        ("3d10kh2t", "modifier_conflict", 4),
        ("3d10t!", "modifier_conflict", 5),
        ("3d10tro1", "modifier_conflict", 5),
        ("d6!!", "modifier_repeated", 3),
        ("3d10tt", "modifier_repeated", 5),
        ("10 / 0", "division_by_zero", 3),
        ("10 // 0", "division_by_zero", 3),
        ("10 % 0", "division_by_zero", 3),
        ("1d6 / (1d2 - 1)", "division_by_zero", 4),
        ("1000000 * 1001", "too_large", 8),
        ("(" * 33 + "1" + ")" * 33, "too_deep", 32),
        ("-" * 40 + "1", "too_deep", 32),
        ("-(" * 20 + "1" + ")" * 20, "too_deep", 32),
    ])
    def test_impossible_rolls_are_refused(self, expr: str, code: str, position: int) -> None:
        with pytest.raises(NotationError) as caught:
            parse(expr)
        assert (caught.value.code, caught.value.position) == (code, position)
        assert caught.value.message_fr() != caught.value.message

    @pytest.mark.parametrize(("expr", "code"), [
        ("1001d6", "notation_range"),
        ("600d6+401d6", "too_many_dice"),
        ("(600d6, 401d6)kh1", "too_many_dice"),
        ("1d1001", "notation_range"),
        ("d6+" * 400 + "1", "too_long"),
        ("1d20 / 0d6", "division_by_zero"),
    ])
    def test_limits_are_refused_before_any_die_is_rolled(self, expr: str, code: str) -> None:
        dice = ScriptedDice([])  # would fail loudly if anything were rolled
        with pytest.raises(NotationError) as caught:
            roll(expr, dice)
        assert caught.value.code == code

    def test_the_limit_message_names_the_limit(self) -> None:
        with pytest.raises(NotationError, match="at most 1000 dice, this one asks for 1001"):
            parse("1000d6+1d6")

    def test_a_thousand_dice_is_allowed(self) -> None:
        assert roll("1000d6", SeededDice(1)).total >= 1000

    def test_the_error_examples_in_the_docs_are_true(self) -> None:
        docs = Path(__file__).parents[2] / "docs" / "dice.md"
        section = docs.read_text(encoding="utf-8").split("## Limits and errors")[1]
        section = section.split("\n## ")[0]
        rows = re.findall(r"^\| `([^`]+)` \| (.+) \|$", section, flags=re.MULTILINE)
        assert len(rows) >= 8
        for expr, message in rows:
            with pytest.raises(NotationError) as caught:
                parse(expr)
            assert str(caught.value) == message.replace("\\|", "|")


class TestBounds:
    @pytest.mark.parametrize(("expr", "low", "high"), [
        ("1d20+5", 6, 25), ("4d6kh3", 3, 18), ("4d6dl1", 3, 18), ("4d6kl1", 1, 6),
        ("3d10t", 1, 28), ("3d10t+1d6", 2, 34), ("2d6-1d4", -2, 11), ("-3", -3, -3),
        ("d%", 1, 100), ("6d10>=8", 0, 6), ("6d10>=1", 6, 6), ("6d10>10", 0, 0),
        ("2d10!>=8", 0, 2 + MAX_EXPLOSIONS), ("2d10!<5", 0, 2),
        ("2d6!", 2, 6 * (2 + MAX_EXPLOSIONS)), ("4d6!kh3", 3, 18), ("2d6kh3", 2, 12),
        ("(1d20+5)*2", 12, 50), ("8d6/2", 4, 24), ("-(1d4)", -4, -1), ("1d6*-1", -6, -1),
        ("1d6%4", 0, 3), ("(1d20+5, 1d20+3)kh1", 6, 25), ("(1d6, 1d8)kl1", 1, 6),
        ("(1d6, 1d8)p<3", 0, 14), ("8d6mi2", 16, 48), ("1d20ro1", 1, 20), ("4d6ra6", 4, 30),
        ("1d20+5>=15", 6, 25), ("1 + (1d20 >= 1d20)", 1, 2), ("10d6k>3", 0, 60),
    ])
    def test_theoretical_extremes(self, expr: str, low: int, high: int) -> None:
        assert bounds(expr) == (low, high)
        assert bounds(parse(expr)) == (low, high)

    @pytest.mark.parametrize(("expr", "lowest", "highest"), [
        ("4d6kh3+1", [1] * 4, [6] * 4),
        ("3d10t-1d4", [1, 1, 1, 4], [10, 10, 10, 6, 6, 6, 1]),
        ("2d4-1d6", [1, 1, 6], [4, 4, 1]),
        ("(1d20+5)*2", [1], [20]),
        ("(1d20+5, 1d20+3)kh1", [1, 1], [20, 20]),
        ("8d6mi2", [1] * 8, [6] * 8),
    ])
    def test_the_extremes_can_be_rolled(self, expr: str, lowest: list[int],
                                        highest: list[int]) -> None:
        assert rolled(expr, *lowest).total == bounds(expr)[0]
        assert rolled(expr, *highest).total == bounds(expr)[1]


class ReservingDice:
    """A dice source that limits one roll's dice, as the campaign's cap does."""

    def __init__(self) -> None:
        self.reserved: list[int] = []
        self.thrown = 0

    def reserve(self, count: int) -> ReservingDice:
        assert self.thrown == 0, "reserve comes before any die is thrown"
        self.reserved.append(count)
        return self

    def roll(self, sides: int, *, count: int = 1) -> list[int]:
        self.thrown += count
        return [sides] * count


class TestReserve:
    @pytest.mark.parametrize(("expr", "asked"), [
        ("2d6+1d4", 3), ("d6!", 1), ("0d10t", 1), ("0d6", 0), ("(1d20+5, 1d20+3)kh1", 2),
        ("4d6ra6", 4), ("1d20 >= 1d20", 2), ("3", 0)])
    def test_a_limited_source_is_told_the_dice_asked_for_before_any_is_thrown(
            self, expr: str, asked: int) -> None:
        dice = ReservingDice()
        roll(expr, dice)
        assert dice.reserved == [asked]

    def test_the_campaigns_cap_refuses_before_any_die_is_thrown(self) -> None:
        from app.errors import ValidationFailed
        from app.services.dice_cap import CappedDice

        dice = CappedDice(ScriptedDice([]), 100)  # would fail loudly if anything were thrown
        with pytest.raises(ValidationFailed) as caught:
            roll("60d6 + 50d6", dice)
        assert caught.value.code == "too_many_dice"
        assert "110" in str(caught.value.message)  # the dice it asks for, in all

    def test_the_cap_counts_the_dice_asked_not_those_explosions_add(self) -> None:
        from app.services.dice_cap import CappedDice

        dice = CappedDice(ScriptedDice([6, 6, 6, 2]), 1)
        assert roll("1d6!", dice).total == 20
