"""Property tests of the dice notation (docs/dice.md): Hypothesis writes expressions as a
player would — every operator, selector, set, annotation and comparison, with spaces and
capitals — and throws them with dice it chooses face by face."""

from __future__ import annotations

import json
import operator

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from app.rules.dice import Die, RollRecord, SeededDice, group_value
from app.rules.errors import NotationError
from app.rules.notation import bounds, parse, roll

SIDES = st.sampled_from([1, 2, 3, 4, 6, 8, 10, 12, 20, 100, 1000])
SPACE = st.sampled_from(["", "", " ", "  ", "\t"])
COMPARISONS = [">=", ">", "<=", "<", "=", "=="]


class DrawnDice:
    """Dice whose every face Hypothesis picks (and shrinks towards the edges)."""

    def __init__(self, data: st.DataObject) -> None:
        self.data = data

    def roll(self, sides: int, *, count: int = 1) -> list[int]:
        return [self.data.draw(st.integers(1, sides)) for _ in range(count)]


@st.composite
def selectors(draw: st.DrawFn, count: int, sides: int, *, by_position: bool) -> str:
    kinds = ["h", "l", "cmp", "bare"] if by_position else ["cmp", "bare"]
    kind = draw(st.sampled_from(kinds))
    if kind in ("h", "l"):
        return kind + draw(st.sampled_from(["", str(draw(st.integers(0, count + 2)))]))
    number = str(draw(st.integers(0, sides + 1)))
    return (draw(st.sampled_from(COMPARISONS)) if kind == "cmp" else "") + number


@st.composite
def dice_operator(draw: st.DrawFn, count: int, sides: int) -> str:
    op = draw(st.sampled_from(["k", "p", "kh", "kl", "dh", "dl", "ro", "ra", "rr", "e", "mi",
                               "ma"]))
    if op in ("kh", "kl", "dh", "dl"):
        return op + draw(st.sampled_from(["", str(draw(st.integers(0, count + 2)))]))
    if op in ("mi", "ma"):
        return f"{op}{draw(st.integers(0, sides + 2))}"
    if op in ("rr", "e"):  # never every face, or the notation refuses it (tested elsewhere)
        if sides == 1:
            return "kh1"
        face = draw(st.integers(1, sides))
        return draw(st.sampled_from([f"{op}{face}", f"{op}>{max(face, 1)}",
                                     f"{op}<{min(face, sides)}"]))
    return op + draw(selectors(count, sides, by_position=op != "rr"))


@st.composite
def dice_groups(draw: st.DrawFn) -> str:
    count = draw(st.integers(0, 8))
    if draw(st.integers(0, 9)) == 0:
        return f"{count}d10{draw(st.sampled_from(['t', 'kh1t', 'T', 'tkh1']))}"
    sides = draw(SIDES)
    text = f"{draw(st.sampled_from([str(count), '']))}d"
    text += "%" if sides == 100 and draw(st.booleans()) else str(sides)
    if sides > 1 and draw(st.booleans()):
        text += "!"
    for op in draw(st.lists(dice_operator(count, sides), max_size=3)):
        text += draw(SPACE) + op
    if draw(st.booleans()):
        comparison = draw(st.sampled_from(COMPARISONS))
        if text.endswith("!") and comparison[0] == "=":
            text += " "  # "!=" is "not equal", never '!' then '='
        text += f"{comparison}{draw(st.integers(0, sides + 1))}"
    return text


def _set_operators(draw: st.DrawFn, items: int) -> str:
    return "".join(draw(st.lists(
        st.sampled_from(["k", "p", "kh", "kl", "dh", "dl"]).flatmap(
            lambda op: st.integers(0, items + 1).map(lambda n, op=op: f"{op}{n}")
            if op[-1] in "hl" or op == "k" else selectors(items, 20, by_position=False).map(
                lambda s, op=op: op + s)),
        max_size=2)))


def _extend(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    @st.composite
    def binary(draw: st.DrawFn) -> str:
        op = draw(st.sampled_from(["+", "-", "*", "/", "//", "%", "+", "-"]))
        return draw(children) + draw(SPACE) + op + draw(SPACE) + draw(children)

    @st.composite
    def group(draw: st.DrawFn) -> str:
        items = draw(st.lists(children, max_size=4))
        comma = "," if len(items) == 1 and draw(st.booleans()) else ""
        return f"({', '.join(items)}{comma})" + _set_operators(draw, len(items))

    @st.composite
    def labelled(draw: st.DrawFn) -> str:
        label = draw(st.text(st.characters(blacklist_characters="]\n", codec="utf-8"),
                             max_size=8))
        return f"{draw(children)} [{label}]"

    return st.one_of(
        binary(),
        st.tuples(st.sampled_from(["-", "+", "--", "-+"]), children).map("".join),
        group(),
        labelled(),
    )


ATOMS = st.one_of(dice_groups(), st.integers(0, 50).map(str))
TERMS = st.recursive(ATOMS, _extend, max_leaves=6)


@st.composite
def expressions(draw: st.DrawFn) -> str:
    text = draw(TERMS)
    if draw(st.integers(0, 4)) == 0:
        space = " " if text.endswith("!") else draw(SPACE)  # "!=" is one operator
        text += space + draw(st.sampled_from([">=", "<", "==", "!="])) + draw(SPACE)
        text += draw(TERMS)
    if draw(st.booleans()):
        text = text.upper()
    if draw(st.booleans()):
        text += f" # {draw(st.text(max_size=10))}"
    return text


REFUSED_WHEN_RANDOM = {"division_by_zero", "too_large", "too_many_dice", "too_deep",
                       "too_long", "modifier_repeated"}


def rollable(expr: str) -> None:
    """Skip the expressions the notation rightly refuses (a divisor that can be 0…)."""
    try:
        parse(expr)
    except NotationError as error:
        assume(error.code not in REFUSED_WHEN_RANDOM)
        raise


ARITHMETIC = {"+": operator.add, "-": operator.sub, "*": operator.mul,
              "/": operator.floordiv, "//": operator.floordiv, "%": operator.mod}
COMPARE = {">=": operator.ge, ">": operator.gt, "<=": operator.le, "<": operator.lt,
           "=": operator.eq, "!=": operator.ne}


def explained(node: dict, groups: dict[int, list[Die]]) -> int:
    """A record part's value worked out again from its dice: it must be the value stored."""
    kind = node["kind"]
    if kind == "number":
        value = node["value"]
    elif kind == "dice":
        value = group_value(groups.get(node["group"], []))
    elif kind == "unary":
        inner = explained(node["operand"], groups)
        value = -inner if node["op"] == "-" else inner
    elif kind == "chain":
        value = explained(node["terms"][0], groups)
        for op, term in zip(node["ops"], node["terms"][1:], strict=True):
            value = ARITHMETIC[op](value, explained(term, groups))
    elif kind == "parens":
        value = explained(node["inner"], groups)
    elif kind == "set":
        values = [explained(item, groups) for item in node["items"]]
        value = sum(v for v, kept in zip(values, node["kept"], strict=True) if kept)
    else:
        value = int(COMPARE[node["op"]](explained(node["left"], groups),
                                        explained(node["right"], groups)))
    assert value == node["value"], node
    return value


def assert_explains_its_total(record: RollRecord) -> None:
    groups: dict[int, list[Die]] = {}
    for die in record.dice:
        groups.setdefault(die.group, []).append(die)
    extra = sum(modifier.value for modifier in record.modifiers)
    tree = record.tree
    if tree is None:
        assert record.total == sum(map(group_value, groups.values())) + extra
    elif tree["kind"] == "compare" and record.target is not None:
        left, right = explained(tree["left"], groups), explained(tree["right"], groups)
        assert (record.total, record.target) == (left + extra, right)
        assert record.outcome == ("success" if COMPARE[tree["op"]](left, right) else "failure")
    else:
        assert record.total == explained(tree, groups) + extra


@settings(max_examples=400, deadline=None)
@given(expr=expressions(), data=st.data())
def test_every_roll_lies_within_its_bounds_and_explains_its_total(expr: str,
                                                                  data: st.DataObject) -> None:
    rollable(expr)
    record = roll(expr, DrawnDice(data))
    low, high = bounds(expr)
    assert low <= record.total <= high, (expr, record.describe())
    assert_explains_its_total(record)
    assert RollRecord.from_dict(json.loads(json.dumps(record.to_dict()))) == record
    line = record.describe()
    assert f"= {record.total}" in line


@settings(max_examples=200, deadline=None)
@given(expr=expressions(), seed=st.integers(0, 2**32))
def test_seeded_rolls_stay_within_bounds(expr: str, seed: int) -> None:
    rollable(expr)
    low, high = bounds(expr)
    assert low <= roll(expr, SeededDice(seed)).total <= high


@settings(max_examples=400, deadline=None)
@given(expr=expressions())
def test_printing_a_tree_and_parsing_it_again_gives_the_same_tree(expr: str) -> None:
    rollable(expr)
    tree = parse(expr)
    again = parse(str(tree))
    assert again.root == tree.root
    assert str(again) == str(tree)
    assert bounds(str(tree)) == bounds(expr)


@settings(max_examples=200, deadline=None)
@given(expr=expressions(), seed=st.integers(0, 2**32))
def test_a_records_expression_parses_back_to_the_tree_it_rolled(expr: str, seed: int) -> None:
    rollable(expr)
    record = roll(expr, SeededDice(seed))
    assert parse(record.expression).root == parse(expr).root


NOTATION_CHARACTERS = "0123456789dDkKhHlLtTpPrRoOaAeEmMiI!%<>=+-*/#()[], \t."


@settings(max_examples=500)
@given(text=st.one_of(st.text(), st.text(alphabet=NOTATION_CHARACTERS, max_size=40)))
def test_any_text_either_rolls_or_says_where_it_went_wrong(text: str) -> None:
    try:
        record = roll(text, SeededDice(0))
    except NotationError as error:
        assert 0 <= error.position <= len(text)
        assert error.message and error.message_fr() and error.message != error.message_fr()
    else:
        low, high = bounds(text)
        assert low <= record.total <= high
