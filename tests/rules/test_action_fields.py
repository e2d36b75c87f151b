"""Reading an action's fields the same way in every game (app/rules/action_fields.py)."""

from __future__ import annotations

import pytest

from app.rules.action_fields import flag
from app.rules.match import IllegalAction


@pytest.mark.parametrize(("value", "read"), [
    (True, True), ("on", True), ("yes", True), (False, False), (None, False), ("", False),
    ("off", False)])
def test_a_yes_or_no_reads_json_and_forms_alike(value, read):
    assert flag({"climb": value}, "climb") is read
    assert flag({}, "climb") is False


@pytest.mark.parametrize("value", ["zz-gone", "peut-être", 2, ["on"]])
def test_a_yes_or_no_that_is_neither_is_refused_by_its_field_in_words(value):
    """A stale or forged value is no « no »: Mecha-Ring's climb took it for one silently."""
    with pytest.raises(IllegalAction) as refused:
        flag({"climb": value}, "climb")
    assert refused.value.fields["field"] == "climb"
    assert refused.value.message_fr().endswith("oui ou non est attendu")
