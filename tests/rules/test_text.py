"""The one text policy: control characters, direction overrides, invisible-only names."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.rules.text import TextRefused, check_text, nul_path, text_pattern, text_problem


@pytest.mark.parametrize(("value", "problem"), [
    ("Aldo le Rôdeur", None),
    ("東京の侍", None),
    ("عليّ", None),  # right-to-left needs no override
    ("Zoë\u0301", None),
    ("a\x00b", "control"),
    ("\x1b[31mRouge", "control"),
    ("a\u202eb", "bidi"),
    ("\u2066Aldo\u2069", "bidi"),
    ("\u200b\u200b", "invisible"),
    ("\u3164", "invisible"),
    ("\u2800 \u00a0", "invisible"),
    ("line\nbreak", "control"),
])
def test_single_line_required_text(value, problem):
    assert text_problem(value, required=True) == problem


def test_multi_line_text_keeps_its_line_breaks_and_tabs():
    assert text_problem("Deux\nlignes\tet une tabulation\r\n", multiline=True) is None
    assert text_problem("a\x07b", multiline=True) == "control"


def test_a_refusal_names_its_field_in_both_languages():
    with pytest.raises(TextRefused) as refused:
        check_text("\u202eevil", field="name", required=True)
    assert refused.value.code == "text_bidi" and refused.value.fields == {"field": "name"}
    assert "direction" in refused.value.message and "direction" in refused.value.message_fr()


@given(st.text(min_size=1, max_size=12), st.booleans(), st.booleans())
def test_the_api_schema_pattern_says_exactly_what_the_policy_accepts(value, multiline,
                                                                       required):
    pattern = re.compile(text_pattern(multiline=multiline, required=required))
    accepted = text_problem(value, multiline=multiline, required=required) is None
    assert (pattern.fullmatch(value) is not None) == accepted


def test_nul_is_found_anywhere_in_json():
    assert nul_path({"a": [1, {"b": "x\x00"}]}) == "a.1.b"
    assert nul_path({"k\x00": 1}) == "k\x00"
    assert nul_path({"a": ["clean", 3, None]}) is None
