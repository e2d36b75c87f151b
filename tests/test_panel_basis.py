"""The live page stream sends the action panel only when what it is drawn from changed
(``app/web/table_view.py``: ``panel_basis``, ``panel_tag``, ``MatchStream._panel_news``), even
to a tab back from a dropped connection. That is safe only if the panel's templates read
nothing of the state beyond ``PANEL_STATE_KEYS``: here every game's demo match, after each of
its events, as its GM and each of its players see it, is drawn from its whole panel context
and from the basis alone, and the two must be one."""

from __future__ import annotations

import dataclasses

import pytest
from sqlalchemy import select

from app.i18n import set_locale
from app.models import Match, Membership, Role, User
from app.rules.match import ActionForm
from app.rules.outcome import Outcome
from app.rules.registry import all_systems
from app.services.access import load_campaign_access
from app.web.table_view import (
    Panel,
    TableView,
    fragment,
    panel_html,
    panel_state_text,
    panel_tag,
)
from tests.demo_views import demo_views


@pytest.mark.parametrize("system", [system.key for system in all_systems()])
def test_the_panel_reads_only_its_basis(system, settings, db):
    forms = 0
    for step, username, view in demo_views(system, settings, db):
        context = view.panel_context(csrf_token="csrf")
        whole = fragment("matches/_actions.html", {**context, "oob": True})
        assert panel_html(context) == whole, (step, username)
        assert f'data-basis="{context["panel_tag"]}"' in whole
        forms += len(context["items"])
    assert forms  # the panels offered forms to draw


def test_the_tag_follows_the_basis_and_nothing_else(libre_match, db):
    """Two renders of one panel have one tag (their forms' idempotency keys differ); another
    seq alone keeps it (board.js moves the forms' seq inputs); a token added, the locale, the
    CSRF token each make another."""
    found = db.get(Match, int(libre_match.url.rsplit("/", 1)[1]))
    gm = db.scalar(select(User).join(Membership, Membership.user_id == User.id)
                   .where(Membership.campaign_id == found.campaign_id,
                          Membership.role == Role.GM))
    access = load_campaign_access(db, gm, found.campaign_id)
    set_locale("fr")
    view = TableView.load(db, access, found)
    first, again = (view.panel_context(csrf_token="csrf") for _ in range(2))
    assert [item["key"] for item in first["items"]] != [item["key"] for item in again["items"]]
    assert first["panel_tag"] == again["panel_tag"] is not None

    def tag(match: Match = found, csrf: str = "csrf", state: dict | None = None) -> str:
        return panel_tag(match, access, view.panel, csrf_token=csrf,
                         state_text=panel_state_text(state or view.state))

    assert tag() == first["panel_tag"]
    later = Match(**{column: getattr(found, column) for column in
                     ("id", "campaign_id", "name", "system", "status")},
                  seq=found.seq + 5, state=found.state)
    assert tag(later) == first["panel_tag"]
    assert tag(csrf="other") != first["panel_tag"]
    tokens = {**(view.state.get("tokens") or {}), "t9": {"name": "Gobelin", "x": 1, "y": 1}}
    assert tag(state={**view.state, "tokens": tokens}) != first["panel_tag"]
    set_locale("en")
    assert tag() != first["panel_tag"]


def test_every_field_of_the_panel_and_its_forms_names_the_tag(libre_match, db):
    """``panel_tag`` writes the panel's fields out by hand: a field added to ``Panel`` or to
    ``ActionForm`` that it forgot would leave a changed panel unsent (this test then fails
    with the field's name until the tag and the changes below cover it)."""
    found = db.get(Match, int(libre_match.url.rsplit("/", 1)[1]))
    gm = db.scalar(select(User).join(Membership, Membership.user_id == User.id)
                   .where(Membership.campaign_id == found.campaign_id,
                          Membership.role == Role.GM))
    access = load_campaign_access(db, gm, found.campaign_id)
    panel = TableView.load(db, access, found).panel
    form = panel.forms[0]
    state_text = panel_state_text(found.state)

    def tag(changed: Panel) -> str:
        return panel_tag(found, access, changed, csrf_token="csrf", state_text=state_text)

    form_changes = {"kind": form.kind + "x", "label": form.label + "x",
                    "template": (form.template or "") + "x",
                    "choices": {**form.choices, "x": 1}}
    panel_changes = {"forms": [*panel.forms, ActionForm("x", "x")],
                     "movable": [*panel.movable, "x"], "can_redo": not panel.can_redo,
                     "my_turn": not panel.my_turn, "now": panel.now | {"x"},
                     "gm_tools": panel.gm_tools | {"x"},
                     "outcome": Outcome(("x",), "x") if panel.outcome is None else None}
    for each in dataclasses.fields(ActionForm):
        forms = [dataclasses.replace(form, **{each.name: form_changes[each.name]}),
                 *panel.forms[1:]]
        assert tag(dataclasses.replace(panel, forms=forms)) != tag(panel), each.name
    for each in dataclasses.fields(Panel):
        changed = dataclasses.replace(panel, **{each.name: panel_changes[each.name]})
        assert tag(changed) != tag(panel), each.name
