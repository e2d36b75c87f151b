"""The free roller's notation, read like the rulebooks' examples (docs/dice.md)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.rules.dice import RollRecord, ScriptedDice, SeededDice, group_value
from app.rules.errors import NotationError
from app.rules.notation import MAX_EXPLOSIONS, bounds, parse, roll


def faces(record: RollRecord) -> list[int]:
    return [die.value for die in record.dice]


def kept(record: RollRecord) -> list[int]:
    return [die.value for die in record.kept]


class TestTiamatExamples:
    """004_027408667edfd8d5.txt § Tests et Actions."""

    def test_ryu_searches_with_two_friends(self) -> None:
        # § Agir en équipe: Perception 3 + 2D10, best die 7, Investigation +4 → 11.
        record = roll("5d10t+4", ScriptedDice([3, 7, 1, 5, 2]))
        assert record.total == 11
        assert kept(record) == [7]

    def test_jack_bends_a_steel_bar(self) -> None:
        # § Critique: Force 3, 2, 10 and 10 → two d6 showing 3 and 5 → 18.
        record = roll("3d10t", ScriptedDice([(10, 2), (10, 10), (10, 10), (6, 3), (6, 5)]))
        assert record.total == 18
        assert [die.critical for die in record.dice[:3]] == [False, True, True]
        assert [die.added for die in record.dice[3:]] == ["critical", "critical"]

    def test_jack_strikes_with_a_knife(self) -> None:
        # § Dans le texte: Force 3 + 1D6; 1, 8, 10 → critical d6 3 → 13, knife d6 4 → 17.
        record = roll("3d10t+1d6", ScriptedDice([1, 8, 10, 3, 4]))
        assert record.total == 17
        assert record.describe() == "3d10t+1d6: 1, 8, 10*; 4 → 10 + 3 + 4 = 17"

    def test_a_dropped_ten_still_adds_its_d6(self) -> None:
        # Every 10 thrown counts ("pour chaque 10 obtenu sur les dés"), kept or not.
        record = roll("2d10t", ScriptedDice([10, 10, 1, 1]))
        assert record.total == 12
        assert [die.kept for die in record.dice[:2]] == [True, False]

    def test_a_six_on_the_critical_d6_does_not_chain(self) -> None:
        dice = ScriptedDice([10, 6])
        assert roll("1d10t", dice).total == 16
        dice.assert_exhausted()

    def test_keep_highest_one_may_be_spelt_out(self) -> None:
        record = roll("3d10kh1t", ScriptedDice([3, 10, 2, 3]))
        assert record.expression == "3d10t"
        assert record.total == 13

    def test_a_pool_without_t_has_no_critical(self) -> None:
        dice = ScriptedDice([3, 10])
        assert roll("2d10kh1", dice).total == 10
        dice.assert_exhausted()

    def test_pistol_damage_adds_every_d6(self) -> None:
        # § On garde tous les D6: 2D6 showing 1 and 6 → 7.
        assert roll("2d6", ScriptedDice([1, 6])).total == 7


class TestDiceGroups:
    def test_count_defaults_to_one(self) -> None:
        record = roll("d20", ScriptedDice([(20, 13)]))
        assert record.expression == "1d20"
        assert record.total == 13

    def test_percentile_dice(self) -> None:
        assert roll("d%", ScriptedDice([(100, 42)])).total == 42
        assert roll("1d100", ScriptedDice([(100, 42)])).total == 42
        assert roll("d%", ScriptedDice([1])).expression == "1d%"

    def test_constants_and_groups_add_and_subtract(self) -> None:
        record = roll("1d20+5-1d4+2", ScriptedDice([(20, 12), (4, 3)]))
        assert record.total == 12 + 5 - 3 + 2
        assert [m.value for m in record.modifiers] == [5, 2]
        assert [die.sign for die in record.dice] == [1, -1]

    def test_a_leading_minus(self) -> None:
        assert roll("-1d6+10", ScriptedDice([4])).total == 6
        assert roll("-3", ScriptedDice([])).total == -3

    def test_a_constant_alone(self) -> None:
        assert roll("7", ScriptedDice([])).total == 7

    def test_whitespace_and_case_do_not_matter(self) -> None:
        record = roll("  4 D6 KH 3 +\t1 ", ScriptedDice([1, 3, 4, 6]))
        assert record.expression == "4d6kh3+1"
        assert record.total == 14

    @pytest.mark.parametrize(
        ("expr", "kept_faces", "total"),
        [
            ("4d6kh3", [3, 4, 6], 13),
            ("4d6kl1", [1], 1),
            ("4d6dh1", [3, 1, 4], 8),
            ("4d6dl1", [3, 4, 6], 13),
            ("4d6kh", [6], 6),
            ("4d6dl0", [3, 1, 4, 6], 14),
        ],
    )
    def test_keep_and_drop(self, expr: str, kept_faces: list[int], total: int) -> None:
        record = roll(expr, ScriptedDice([3, 1, 4, 6]))
        assert kept(record) == kept_faces
        assert record.total == total
        assert faces(record) == [3, 1, 4, 6]

    def test_among_equal_faces_the_first_thrown_is_kept(self) -> None:
        record = roll("3d10kh1", ScriptedDice([7, 9, 9]))
        assert [die.kept for die in record.dice] == [False, True, False]
        record = roll("3d6kl2", ScriptedDice([2, 5, 2]))
        assert [die.kept for die in record.dice] == [True, False, True]


class TestExplodingDice:
    def test_a_highest_face_rolls_again_and_adds(self) -> None:
        record = roll("d6!", ScriptedDice([6, 6, 2]))
        assert record.total == 14
        assert [die.exploded for die in record.dice] == [True, True, False]
        assert [die.added for die in record.dice] == [None, "explosion", "explosion"]

    def test_extra_dice_come_after_the_group_in_waves(self) -> None:
        # 6, 2, 6 → two extra dice (6, 1) → one more (3).
        record = roll("3d6!", ScriptedDice([6, 2, 6, 6, 1, 3]))
        assert faces(record) == [6, 2, 6, 6, 1, 3]
        assert record.total == 24

    def test_explosions_stop_at_the_cap(self) -> None:
        dice = ScriptedDice([6] * (MAX_EXPLOSIONS + 1))
        record = roll("d6!", dice)
        dice.assert_exhausted()
        assert record.total == 6 * (MAX_EXPLOSIONS + 1)
        assert sum(die.exploded for die in record.dice) == MAX_EXPLOSIONS
        assert not record.dice[-1].exploded
        assert bounds("d6!") == (1, record.total)

    def test_exploded_dice_join_the_pool_before_keeping(self) -> None:
        record = roll("2d6!kh2", ScriptedDice([6, 1, 5]))
        assert kept(record) == [6, 5]
        assert record.total == 11
        record = roll("2d6!kh1", ScriptedDice([6, 1, 5]))
        assert [die.kept for die in record.dice] == [True, False, False]
        assert record.total == 6


class TestSuccesses:
    @pytest.mark.parametrize(
        ("expr", "successes"),
        [("6d10>=8", 3), ("6d10>8", 2), ("6d10<=2", 2), ("6d10<2", 1), ("6d10=10", 1)],
    )
    def test_count_the_dice_that_pass(self, expr: str, successes: int) -> None:
        record = roll(expr, ScriptedDice([8, 9, 1, 2, 10, 7]))
        assert record.total == successes
        assert sum(bool(die.success) for die in record.dice) == successes

    def test_exploding_successes(self) -> None:
        assert roll("2d10!>=8", ScriptedDice([10, 3, 9])).total == 2

    def test_a_constant_adds_to_the_count(self) -> None:
        assert roll("3d10>=8+1", ScriptedDice([8, 1, 1])).total == 2


class TestLabels:
    def test_a_label_becomes_the_purpose(self) -> None:
        record = roll("2d6+1 # dégâts", ScriptedDice([2, 3]))
        assert record.purpose == "dégâts"
        assert record.expression == "2d6+1"
        assert record.total == 6

    def test_the_label_keeps_its_case_and_accents(self) -> None:
        assert roll("d6#Coup de Pied Sauté", ScriptedDice([1])).purpose == "Coup de Pied Sauté"

    def test_an_empty_label_is_no_label(self) -> None:
        assert roll("d6 #  ", ScriptedDice([1])).purpose is None

    def test_an_explicit_purpose_wins_over_the_label(self) -> None:
        assert roll("d6 # dégâts", ScriptedDice([1]), purpose="Initiative").purpose == "Initiative"

    def test_the_label_is_part_of_the_tree(self) -> None:
        assert parse("2d6 # dégâts").label == "dégâts"


class TestErrors:
    @pytest.mark.parametrize(
        ("expr", "position", "expected", "found"),
        [
            ("", 0, ("term",), None),
            ("1d6+x", 4, ("term",), "x"),
            ("1d6+", 4, ("term",), None),
            ("2x6", 1, ("d", "operator"), "x"),
            ("d", 1, ("sides",), None),
            ("4d6kx", 4, ("h_or_l",), "x"),
            ("4d6>=", 5, ("number",), None),
            ("d6 3", 3, ("modifier", "operator"), "3"),
            ("# label", 0, ("term",), "#"),
            ("2d6++1", 4, ("term",), "+"),
            ("1d6²", 3, ("modifier", "operator"), "²"),
        ],
    )
    def test_syntax_errors_say_where_and_what(
        self, expr: str, position: int, expected: tuple[str, ...], found: str | None
    ) -> None:
        with pytest.raises(NotationError) as caught:
            parse(expr)
        assert caught.value.code == "notation_syntax"
        assert (caught.value.position, caught.value.expected, caught.value.found) == (
            position,
            expected,
            found,
        )

    def test_the_message_reads_naturally_in_both_languages(self) -> None:
        with pytest.raises(NotationError) as caught:
            parse("1d6+x")
        assert str(caught.value) == "expected a number or 'd' at position 4, found 'x'"
        assert caught.value.message_fr() == (
            "attendu un nombre ou « d » à la position 4, trouvé « x »"
        )

    @pytest.mark.parametrize(
        ("expr", "code", "position"),
        [
            ("0d6", "notation_range", 0),
            ("d0", "notation_range", 1),
            ("4d6kh5", "notation_range", 5),
            ("4d6kh0", "notation_range", 5),
            ("4d6dl4", "notation_range", 5),
            ("d1!", "notation_range", 1),
            ("d6+9999999", "notation_range", 3),
            ("3d6t", "tiamat_needs_d10", 3),
            ("3d10kh2t", "modifier_conflict", 4),
            ("3d10t!", "modifier_conflict", 5),
            ("6d10kh3>=8", "modifier_conflict", 7),
            ("4d6kh3dl1", "modifier_conflict", 6),
            ("d6!!", "modifier_repeated", 3),
        ],
    )
    def test_impossible_groups_are_refused(self, expr: str, code: str, position: int) -> None:
        with pytest.raises(NotationError) as caught:
            parse(expr)
        assert (caught.value.code, caught.value.position) == (code, position)
        assert caught.value.message_fr() != caught.value.message

    @pytest.mark.parametrize(
        ("expr", "code"),
        [
            ("1001d6", "notation_range"),
            ("600d6+401d6", "too_many_dice"),
            ("1d1001", "notation_range"),
            ("d6+" * 400 + "1", "too_long"),
        ],
    )
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


class TestBounds:
    @pytest.mark.parametrize(
        ("expr", "low", "high"),
        [
            ("1d20+5", 6, 25),
            ("4d6kh3", 3, 18),
            ("4d6dl1", 3, 18),
            ("4d6kl1", 1, 6),
            ("3d10t", 1, 28),
            ("3d10t+1d6", 2, 34),
            ("2d6-1d4", -2, 11),
            ("-3", -3, -3),
            ("d%", 1, 100),
            ("6d10>=8", 0, 6),
            ("6d10>=1", 6, 6),
            ("6d10>10", 0, 0),
            ("2d10!>=8", 0, 2 + MAX_EXPLOSIONS),
            ("2d10!<5", 0, 2),
            ("2d6!", 2, 6 * (2 + MAX_EXPLOSIONS)),
            ("4d6!kh3", 3, 18),
        ],
    )
    def test_theoretical_extremes(self, expr: str, low: int, high: int) -> None:
        assert bounds(expr) == (low, high)
        assert bounds(parse(expr)) == (low, high)

    @pytest.mark.parametrize(
        ("expr", "lowest", "highest"),
        [
            ("4d6kh3+1", [1] * 4, [6] * 4),
            ("3d10t-1d4", [1, 1, 1, 4], [10, 10, 10, 6, 6, 6, 1]),
            ("2d4-1d6", [1, 1, 6], [4, 4, 1]),
        ],
    )
    def test_the_extremes_can_be_rolled(
        self, expr: str, lowest: list[int], highest: list[int]
    ) -> None:
        assert roll(expr, ScriptedDice(lowest)).total == bounds(expr)[0]
        assert roll(expr, ScriptedDice(highest)).total == bounds(expr)[1]


# Property tests: Hypothesis builds expressions as a player would type them.

SIDES = st.sampled_from([1, 2, 3, 4, 6, 8, 10, 12, 20, 100, 1000])


@st.composite
def dice_groups(draw: st.DrawFn) -> str:
    count = draw(st.integers(1, 12))
    kind = draw(st.sampled_from(["plain", "select", "compare", "tiamat"]))
    if kind == "tiamat":
        return f"{count}d10{draw(st.sampled_from(['t', 'kh1t', 'T']))}"
    sides = draw(SIDES)
    explode = sides > 1 and draw(st.booleans())
    text = f"{count}d{'%' if sides == 100 and draw(st.booleans()) else sides}"
    text += "!" if explode else ""
    if kind == "select":
        rule = draw(st.sampled_from(["kh", "kl", "dh", "dl"]))
        n = draw(st.integers(1, count) if rule[0] == "k" else st.integers(0, count - 1))
        text += f"{rule}{n}"
    elif kind == "compare":
        operator = draw(st.sampled_from([">=", ">", "<=", "<", "="]))
        text += f"{operator}{draw(st.integers(0, sides + 1))}"
    return text


@st.composite
def expressions(draw: st.DrawFn) -> str:
    terms = draw(
        st.lists(st.one_of(dice_groups(), st.integers(0, 50).map(str)), min_size=1, max_size=5)
    )
    space = st.sampled_from(["", " ", "  ", "\t"])
    text = draw(st.sampled_from(["", "-"]))
    for index, term in enumerate(terms):
        if index:
            text += draw(space) + draw(st.sampled_from(["+", "-"])) + draw(space)
        text += term
    if draw(st.booleans()):
        text = text.upper()
    if draw(st.booleans()):
        text += f" # {draw(st.text(max_size=10))}"
    return text


NOTATION_CHARACTERS = "0123456789dDkKhHlLtT!%<>=+-# \t"


@given(text=st.one_of(st.text(), st.text(alphabet=NOTATION_CHARACTERS, max_size=40)))
def test_any_text_either_rolls_or_raises_a_notation_error(text: str) -> None:
    try:
        record = roll(text, SeededDice(0))
    except NotationError as error:
        assert 0 <= error.position <= len(text)
        assert error.message and error.message_fr()
    else:
        low, high = bounds(text)
        assert low <= record.total <= high


@settings(max_examples=300)
@given(expr=expressions(), seed=st.integers(0, 2**32))
def test_a_roll_lies_within_its_bounds_and_explains_its_total(expr: str, seed: int) -> None:
    record = roll(expr, SeededDice(seed))
    low, high = bounds(expr)
    assert low <= record.total <= high
    groups = {die.group for die in record.dice}
    explained = sum(group_value(d for d in record.dice if d.group == g) for g in groups)
    assert record.total == explained + sum(m.value for m in record.modifiers)
    assert RollRecord.from_dict(json.loads(json.dumps(record.to_dict()))) == record
    assert record.describe().split(" = ")[-1] == str(record.total)


@given(expr=expressions())
def test_the_canonical_expression_reads_back_the_same(expr: str) -> None:
    canonical = str(parse(expr))
    assert str(parse(canonical)) == canonical
    assert bounds(canonical) == bounds(expr)


def test_the_error_examples_in_the_docs_are_true() -> None:
    docs = Path(__file__).parents[2] / "docs" / "dice.md"
    section = docs.read_text(encoding="utf-8").split("## Limits and errors")[1].split("## ")[0]
    rows = re.findall(r"^\| `([^`]+)` \| (.+) \|$", section, flags=re.MULTILINE)
    assert len(rows) >= 5
    for expr, message in rows:
        with pytest.raises(NotationError) as caught:
            parse(expr)
        assert str(caught.value) == message
