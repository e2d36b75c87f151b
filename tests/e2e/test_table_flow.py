"""A session that flows (issue 23), on every game's demo: the action to take now is in the
first screen and wholly visible, at 1366×900 and 390×844, for the GM and each player; every
action form refused with a value the rules refuse shows the reason by its field; a choice a
live update took away is never sent; after an action the keyboard's focus stays in the
panel; the journal is one Tab stop.

The demo's matches are shared by the tests of this session: these only look, or send what
the rules refuse (which changes nothing). The stale choice is played on a table of its own.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Locator, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from app.services.demo import ensure_demo
from tests.e2e.table import LIVE, Campaign, act, log_in, open_match, seat_campaign

VIEWPORTS = {"desktop": {"width": 1366, "height": 900}, "phone": {"width": 390, "height": 844}}
DEMO_PEOPLE = ("mjdemo", "alice", "bruno")
DEMO_PASSWORD = "tablee-demo-2026"

# Wholly inside the screen, not clipped by a box that scrolls, not covered by anything: the
# points near its corners and its centre all reach it. '' when so, else what is wrong.
FULLY_VISIBLE = """element => {
  const box = element.getBoundingClientRect();
  if (!box.width || !box.height) return 'not shown';
  if (box.top < 0 || box.left < 0 || box.bottom > innerHeight || box.right > innerWidth)
    return `outside the first screen (${Math.round(box.top)}–${Math.round(box.bottom)})`;
  for (let up = element.parentElement; up; up = up.parentElement) {
    const style = getComputedStyle(up);
    if (!/(auto|scroll|hidden|clip)/.test(style.overflowX + style.overflowY)) continue;
    const frame = up.getBoundingClientRect();
    if (box.top < frame.top - 1 || box.bottom > frame.bottom + 1 ||
        box.left < frame.left - 1 || box.right > frame.right + 1)
      return `clipped by ${up.id || up.className}`;
  }
  const inset = 4;
  const points = [[box.left + inset, box.top + inset], [box.right - inset, box.top + inset],
    [box.left + inset, box.bottom - inset], [box.right - inset, box.bottom - inset],
    [(box.left + box.right) / 2, (box.top + box.bottom) / 2]];
  for (const [x, y] of points) {
    const hit = document.elementFromPoint(x, y);
    if (!hit || !(hit === element || element.contains(hit)))
      return `covered by ${hit ? hit.id || hit.className || hit.tagName : 'nothing'}`;
  }
  return '';
}"""


@pytest.fixture(scope="module")
def demo(live_server):
    ensure_demo(live_server.app.state.settings)


def log_in_demo(new_context, username: str, viewport: dict) -> Page:
    page = new_context(locale="fr-FR", viewport=viewport).new_page()
    page.goto("/login")
    page.fill("#field-username", username)
    page.fill("#field-password", DEMO_PASSWORD)
    page.locator("main form button[type=submit]").click()
    expect(page).not_to_have_url(re.compile("/login"))
    return page


def demo_tables(page: Page) -> list[str]:
    """Each demo campaign's match in progress (one per game)."""
    page.goto("/campaigns")
    campaigns = {href for href in page.eval_on_selector_all(
        "main a[href^='/campaigns/']", "links => links.map(a => a.getAttribute('href'))")
        if re.fullmatch(r"/campaigns/\d+", href)}
    tables = []
    for campaign in sorted(campaigns):
        page.goto(f"{campaign}/matches")
        found = [href for href in page.eval_on_selector_all(
            "main a[href*='/matches/']", "links => links.map(a => a.getAttribute('href'))")
            if re.fullmatch(r"/campaigns/\d+/matches/\d+", href)]
        tables.extend(found[:1])
    assert len(tables) >= 6, tables  # libre and the five games
    return tables


def open_table(page: Page, path: str) -> None:
    page.goto(path)
    expect(page.locator("#table[data-live]")).to_have_count(1)
    page.evaluate("window.scrollTo(0, 0)")


def control_of(form: Locator) -> Locator:
    """What a player sees of a form: its card's title, or its one button."""
    card = form.locator("xpath=ancestor::details[contains(@class, 'action-card')][1]")
    if card.count():
        return card.locator("> summary")
    return form.locator("button[type=submit]")


def action_to_take_now(page: Page) -> Locator | None:
    """The decision the table awaits from this viewer (pinned); else the first thing they
    may do. On a phone, a game without a board opens on its state when nothing is awaited
    from the viewer: then the Actions tab is what must be in view."""
    pinned = page.locator("#action-panel .action-now form.action")
    if pinned.count():
        return control_of(pinned.first)
    forms = page.locator("#action-panel form.action")
    if not forms.count():
        return None
    if not page.locator("#panel-actions").is_visible():
        return page.locator("#tab-actions")
    first = forms.first
    tools = first.locator("xpath=ancestor::details[contains(@class, 'action-gm-tools')][1]")
    if tools.count() and not tools.evaluate("details => details.open"):
        return tools.locator("> summary")
    return control_of(first)


# The panels grow with the screen: on a desktop the actions show whole or take at least
# half the screen's height, the journal more than a quarter; on a phone the board starts in
# the screen's top quarter (the site's header folds). '' when so.
ROOM = """phone => {
  const high = (selector) => document.querySelector(selector)?.getBoundingClientRect().height;
  const actions = document.getElementById('panel-actions');
  if (phone) {
    const board = document.getElementById('board-frame');
    const top = board && board.offsetParent ? board.getBoundingClientRect().top : 0;
    return top > innerHeight / 4 ? `the board starts at ${Math.round(top)} px` : '';
  }
  if (actions.scrollHeight > actions.clientHeight + 1 && high('#panel-actions') < innerHeight / 2)
    return `the actions are a ${Math.round(high('#panel-actions'))} px box`;
  const log = high('#log');
  if (log < innerHeight * .28) return `the journal is a ${Math.round(log)} px box`;
  return '';
}"""


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=list(VIEWPORTS))
def test_the_action_to_take_now_is_in_the_first_screen(new_context, demo, viewport):
    problems, checked = [], 0
    for username in DEMO_PEOPLE:
        page = log_in_demo(new_context, username, VIEWPORTS[viewport])
        for path in demo_tables(page):
            open_table(page, path)
            if problem := page.evaluate(ROOM, viewport == "phone"):
                problems.append(f"{username} at {path}: {problem}")
            control = action_to_take_now(page)
            if control is None:  # nothing this person may do at this table now
                continue
            checked += 1
            if problem := control.evaluate(FULLY_VISIBLE):
                problems.append(f"{username} at {path}: « {control.inner_text()} » {problem}")
    assert checked >= 12, checked
    assert not problems, "\n".join(problems)


# — every form refused, the reason by its field ———————————————————————————————————————————

# A value the rules refuse, put in the form's first list (a choice not offered), else its
# first number (not a whole number), else its first text (far too long); past the browser's
# own checks, as a stale page or a script would send it. The field's name, or null when the
# form has nothing to fill (one button).
TAMPER = """form => {
  form.noValidate = true;
  const fields = Array.from(form.querySelectorAll(
    'select:not([multiple]), input[type=number], input[type=text], input:not([type]), textarea'))
    .filter(field => !field.disabled);
  const pick = fields.find(f => f.tagName === 'SELECT') || fields.find(f => f.type === 'number')
    || fields[0];
  if (!pick) return null;
  if (pick.tagName === 'SELECT') {
    pick.add(new Option('—', 'zz-gone'));
    pick.value = 'zz-gone';
  } else if (pick.type === 'number') {
    pick.value = '1e9';
  } else {
    pick.removeAttribute('maxlength');
    pick.value = 'x'.repeat(5000);
  }
  return pick.name;
}"""

# The refusal is linked to a field that is marked invalid and described by it, and sits
# right under that field: '' when so.
BY_ITS_FIELD = """error => {
  const form = error.closest('form');
  const field = Array.from(form.querySelectorAll('[aria-invalid=true]')).find(candidate =>
    (candidate.getAttribute('aria-describedby') || '').split(' ').includes(error.id));
  if (!field) return 'no field is marked and described by it';
  const holder = field.closest('.field, fieldset') || field;
  if (error.previousElementSibling !== holder) return `not under the field ${field.name}`;
  return '';
}"""


def open_form(page: Page, kind: str) -> Locator:
    form = page.locator(f"form#action-{kind}")
    # the GM's tools and the map's (issue 28) fold their forms
    tools = page.locator("#action-panel details.action-gm-tools, "
                         "#action-panel details.action-map-tools", has=form)
    if tools.count() and not tools.evaluate("details => details.open"):
        tools.locator("> summary").click()
    card = page.locator(f"#action-panel details.action-{kind}")
    if card.count() and not card.evaluate("details => details.open"):
        card.locator("> summary").click()
    return form


def test_every_action_form_refused_says_why_by_its_field(new_context, demo):
    problems, refused = [], set()
    for username in DEMO_PEOPLE:
        page = log_in_demo(new_context, username, VIEWPORTS["desktop"])
        page.on("dialog", lambda dialog: dialog.accept())  # « Terminer le match ? »
        for path in demo_tables(page):
            open_table(page, path)
            kinds = page.eval_on_selector_all("#action-panel form.action",
                                              "forms => forms.map(form => form.dataset.kind)")
            for kind in kinds:
                form = open_form(page, kind)
                field = form.evaluate(TAMPER)
                if field is None:
                    continue  # one button: nothing to fill, nothing to refuse
                form.locator("button[type=submit]").click()
                if problem := refusal_problem(page, kind):
                    problems.append(f"{username} at {path}, {kind} ({field}): {problem}")
                else:
                    refused.add((path, kind))
    assert not problems, "\n".join(problems)
    assert len(refused) >= 50, sorted(refused)  # each game's forms, the GM's and the players'



def refusal_problem(page: Page, kind: str) -> str:
    """'' when the form shows its refusal by the field it is about, in words (never an
    internal « None »); else what is wrong."""
    error = page.locator(f"#action-{kind}-error")
    try:
        expect(error).to_be_visible(timeout=LIVE)
    except AssertionError:
        return "no reason shown"
    if re.search(r"\bNone\b", error.inner_text()):
        return f"« {error.inner_text()} »"
    try:  # table_panel.js moves it under its field once the answer has settled
        page.wait_for_function(f"error => ({BY_ITS_FIELD})(error) === ''",
                               arg=error.element_handle(), timeout=LIVE)
    except PlaywrightTimeout:
        return error.evaluate(BY_ITS_FIELD)
    return ""


# — a choice taken away by a live update ———————————————————————————————————————————————

@pytest.fixture
def campaign(live_server) -> Campaign:
    return seat_campaign(live_server.url, system="libre", name="La Tablée",
                         characters=[("player", {"name": "Aldo"}), ("gm", {"name": "Gobelin"})])


def test_a_choice_taken_away_is_never_sent_and_the_typing_stays(new_context, campaign):
    gm = log_in(new_context, campaign.gm)
    url = open_match(gm, campaign, "Escarmouche", ["Aldo", "Gobelin"])
    other = log_in(new_context, campaign.gm)  # the same GM in a second tab
    other.goto(url)
    gm.set_viewport_size(VIEWPORTS["desktop"])
    gm.goto(url)
    expect(gm.locator("#table[data-live]")).to_have_count(1)
    gm.locator("details.action-adjust_hp > summary").click()
    choice = gm.locator("#action-adjust_hp select[name=token]")
    choice.select_option(label="Gobelin")
    gm.locator("#action-adjust_hp [name=delta]").fill("-3")

    act(other, "remove_token", {"token": "t2"})  # the Gobelin leaves the board
    note = gm.locator("#action-adjust_hp .stale-choice")
    expect(note).to_have_text("“Gobelin” is no longer offered: check this choice before sending.",
                              timeout=LIVE)
    expect(choice).to_have_value("t1")  # an option offered, never none
    expect(choice).to_have_attribute("aria-describedby", re.compile(note.get_attribute("id")))
    expect(gm.locator("#action-adjust_hp [name=delta]")).to_have_value("-3")  # kept

    # The first « send » goes to the choice; the second sends what is now chosen.
    gm.locator("#action-adjust_hp button[type=submit]").click()
    expect(choice).to_be_focused()
    expect(gm.locator("#log > li.kind-hp_changed")).to_have_count(0)
    gm.locator("#action-adjust_hp button[type=submit]").click()
    expect(gm.locator("#log > li.kind-hp_changed")).to_have_count(1, timeout=LIVE)
    expect(gm.locator("#log > li.kind-hp_changed")).to_contain_text("Aldo")
    expect(gm.locator("#action-panel")).not_to_contain_text("None")


def test_a_list_left_alone_follows_the_live_update_without_a_word(new_context, campaign):
    """A list nobody touched shows what the redrawn form offers first: no « no longer
    offered » for a choice the user never made (it cost a second send)."""
    gm = log_in(new_context, campaign.gm)
    url = open_match(gm, campaign, "Escarmouche", ["Aldo", "Gobelin"])
    other = log_in(new_context, campaign.gm)
    other.goto(url)
    gm.set_viewport_size(VIEWPORTS["desktop"])
    gm.goto(url)
    expect(gm.locator("#table[data-live]")).to_have_count(1)
    gm.locator("details.action-set_statuses > summary").click()
    choice = gm.locator("#action-set_statuses select[name=token]")
    expect(choice).to_have_value("t1")  # Aldo, shown first, no option marked: not chosen

    act(other, "remove_token", {"token": "t1"})  # Aldo leaves the board
    expect(choice).to_have_value("t2", timeout=LIVE)
    expect(gm.locator("#action-set_statuses .stale-choice")).to_have_count(0)
    gm.locator("#action-set_statuses [name=statuses]").fill("sonné")
    gm.locator("#action-set_statuses button[type=submit]").click()  # one send is enough
    expect(gm.locator("#log > li.kind-statuses_set")).to_have_count(1, timeout=LIVE)


# — the keyboard: the focus after an action, one Tab stop for the journal ————————————————

def focused(page: Page) -> str:
    """Where the keyboard's focus is: an element's id, or what holds it."""
    return page.evaluate("""() => { const active = document.activeElement;
        if (!active || active === document.body) return 'body';
        return active.id || active.closest('[id]')?.id || active.tagName; }""")


def expect_focused(page: Page, element: Locator, when: str) -> None:
    """``element`` holds the focus; else the failure says where the focus went, and what
    the journal last received (which of the answer and the live update came last)."""
    try:
        expect(element).to_be_focused()
    except AssertionError:
        last = page.evaluate("""() => Array.from(document.querySelectorAll("#log > li"),
            (li) => li.className).slice(-3)""")
        pytest.fail(f"{when}: the focus is on {focused(page)!r}; the journal ends {last}")


def test_the_focus_stays_in_the_panel_and_the_journal_is_one_tab_stop(new_context, campaign):
    gm = log_in(new_context, campaign.gm)
    url = open_match(gm, campaign, "Escarmouche", ["Aldo", "Gobelin"])
    gm.set_viewport_size(VIEWPORTS["desktop"])
    gm.goto(url)
    expect(gm.locator("#table[data-live]")).to_have_count(1)

    # A roll sent with Enter: the focus is back in its field, after the live update too.
    expression = gm.locator("#roll-expression")
    expression.focus()
    for number in range(3):
        expression.fill("2d6")
        gm.keyboard.press("Enter")
        expect(gm.locator("#log > li.kind-rolled")).to_have_count(number + 1, timeout=LIVE)
        # and the state that came with the line (the forms' seq: a roll sent before it would
        # be refused as sent for the state before)
        newest = gm.locator("#log > li.log-line").last.get_attribute("data-seq")
        expect(gm.locator("#table-state [data-seq]").first).to_have_attribute(
            "data-seq", newest, timeout=LIVE)
        expect_focused(gm, expression, f"after roll {number + 1}")

    # Paul's turn: he ends it by keyboard. His answer redraws the panel without that button,
    # and the live update redraws it again: the focus stays in the panel, on the next thing
    # to do, never on the page's body.
    player = log_in(new_context, campaign.player)
    player.set_viewport_size(VIEWPORTS["desktop"])
    player.goto(url)
    expect(player.locator("#table[data-live]")).to_have_count(1)
    act(gm, "roll_initiative")
    expect(gm.locator("#log > li.kind-initiative_rolled")).to_have_count(2, timeout=LIVE)
    for turns in range(1, 4):  # the GM moves the turn on until it is Aldo's
        act(gm, "next_turn")
        # Paul's page is current (his journal has the line) before it is read.
        expect(player.locator("#log > li.kind-turn_advanced")).to_have_count(turns,
                                                                             timeout=LIVE)
        newest = player.locator("#log > li.log-line").last.get_attribute("data-seq")
        expect(player.locator("#table-state [data-seq]").first).to_have_attribute(
            "data-seq", newest, timeout=LIVE)
        if player.locator("#action-panel").get_attribute("data-my-turn") == "true":
            break
    ending = player.locator("#action-panel .action-now #action-next_turn button[type=submit]")
    expect(ending).to_be_visible(timeout=LIVE)
    player.evaluate("""() => { window.panelsDrawn = 0;
        new MutationObserver(() => { window.panelsDrawn += 1; })
          .observe(document.getElementById('panel-actions'), {childList: true}); }""")
    ending.focus()
    player.keyboard.press("Enter")
    # The answer is in, and the live update that followed it (the state at the newest line).
    expect(player.locator("#log > li.kind-turn_advanced")).to_have_count(turns + 1,
                                                                         timeout=LIVE)
    newest = player.locator("#log > li.log-line").last.get_attribute("data-seq")
    expect(player.locator("#table-state [data-seq]").first).to_have_attribute(
        "data-seq", newest, timeout=LIVE)
    player.wait_for_function(
        "() => window.panelsDrawn >= 1 && !document.querySelector('.htmx-request')")
    assert focused(player) not in ("body", "HTML", "actions-title"), focused(player)
    assert player.locator("#action-panel").evaluate(
        "panel => panel.contains(document.activeElement)")

    # The journal's dice details and undo buttons are no Tab stops: Tab enters the journal
    # once and leaves it at the next press; the arrows go through them.
    log = gm.locator("#log")
    assert log.locator("summary").count() >= 3
    log.focus()
    gm.keyboard.press("Tab")
    assert not log.evaluate("log => log.contains(document.activeElement)"), focused(gm)
    log.focus()
    gm.keyboard.press("ArrowUp")  # the newest control on screen
    active = gm.evaluate("() => document.activeElement.tagName")
    assert active in ("SUMMARY", "BUTTON") and log.evaluate(
        "log => log.contains(document.activeElement)")
    gm.keyboard.press("Home")
    first = log.locator("summary, button").first
    expect(first).to_be_focused()
    gm.keyboard.press("ArrowDown")
    expect(log.locator("summary, button").nth(1)).to_be_focused()
    gm.keyboard.press("Escape")
    expect(log).to_be_focused()
