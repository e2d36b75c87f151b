"""One round of the Shanghai warehouse in two browsers, counting the clicks (issue 23, « Too
many clicks »): Mia (GM, the voyous) and Paul (Jack) each set a standing defence once; then
Jack's Oi zuki is answered at once by the voyous' défense instinctive, Jack keeps his
second action, the voyous' punch is answered at once by Jack's Age-uke, the voyous' turn
passes by itself (no action left) and the next round opens by itself. Then the last
voyous flee: the fight is decided, nobody is asked to play, the GM ends it and both
browsers read who won. The server's dice are scripted.

Clicks: every button pressed, folded card opened and choice changed in a list. Before
issue 23 the same round took 9 (two defences, two « end the turn », the GM's initiative);
it now takes 3."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from app.rules.tiamat.profiles import voyous
from app.rules.tiamat.sheet import jack
from tests.e2e.table import scripted, seat_duel

LIVE = 2_000
ROUND_CLICKS = 3


class Clicks:
    """Acts through the action panel like a person, counting every click it takes."""

    def __init__(self) -> None:
        self.done: list[str] = []

    def act(self, page: Page, kind: str, fields: dict[str, str] | None = None) -> None:
        form = page.locator(f"form#action-{kind}")
        expect(form).to_be_attached()
        for folded in (page.locator("#action-panel details.action-gm-tools", has=form),
                       page.locator(f"details.action-{kind}")):
            if folded.count() and not folded.evaluate("element => element.open"):
                folded.locator("> summary").click()
                self.done.append(f"open {kind}")
        for name, value in (fields or {}).items():
            field = form.locator(f'[name="{name}"]')
            if field.input_value() == value:
                continue
            if field.evaluate("element => element.tagName") == "SELECT":
                field.select_option(value)
            else:
                field.fill(value)
            self.done.append(f"{kind}: {name}")
        form.locator('button[type="submit"]').click()
        self.done.append(kind)


def test_one_round_takes_three_clicks_and_a_decided_fight_ends(new_context, live_server):
    duel = seat_duel(new_context, live_server.url, system="tiamat", campaign="Tiamat",
                     match="Entrepôt n°8", gm_fighter=("Voyous", voyous()),
                     player_fighter=("Jack", jack()))
    gm, player = duel.gm, duel.player
    jack_id, thugs = duel.ids["Jack"], duel.ids["Voyous"]
    with scripted(live_server, *((8, 3, 5) if jack_id == "p1" else (5, 8, 3))):
        gm.locator("form#action-roll_initiative button[type=submit]").click()
        expect(player.locator("#turn .current-turn")).to_contain_text("Jack", timeout=LIVE)

    setup = Clicks()  # once for the whole fight
    setup.act(player, "standing_defence", {"choice": f"{jack_id}:age_uke"})
    expect(player.locator(f'[data-participant="{jack_id}"] .standing')).to_contain_text(
        "Age-uke", timeout=LIVE)
    setup.act(gm, "standing_defence", {"choice": f"{thugs}:instinctive"})
    expect(gm.locator(f'[data-participant="{thugs}"] .standing')).to_be_visible(timeout=LIVE)
    assert player.locator(f'[data-participant="{thugs}"] .standing').count() == 0  # secret

    round_ = Clicks()
    # Oi zuki 7 + 2 against the voyous' one die 2; head; Force 3: 6 − 2: one voyou out.
    with scripted(live_server, 7, 3, 2, 10, 2, 4, 6):
        round_.act(player, "attack", {"technique": "oi_zuki", "target": thugs})
        line = gm.locator("#log > li.kind-attack_resolved").last
        expect(line).to_contain_text("its standing defence answered at once", timeout=LIVE)
    expect(gm.locator("form#action-defend")).to_have_count(0)
    round_.act(player, "end_turn")
    expect(gm.locator(f'form#action-attack [name=target] option[value="{jack_id}"]')
           ).to_have_count(1, timeout=LIVE)  # the voyous' turn has reached the GM's panel
    # The voyous' punch (Habileté 2 + 2D10) 4 against Age-uke 5 + 1D6 3: parried at once;
    # their turn and the round are over: the next one opens (Jack 9, the voyous 5).
    faces = (1, 2, 3, 4, 5, 1, 3) + ((9, 1, 5) if jack_id == "p1" else (5, 9, 1))
    with scripted(live_server, *faces):
        round_.act(gm, "attack", {"technique": "coup_de_poing", "target": jack_id})
        for page in (gm, player):
            expect(page.locator("#turn .round")).to_contain_text("2", timeout=LIVE)
    expect(player.locator("form#action-defend")).to_have_count(0)
    assert len(round_.done) <= ROUND_CLICKS, round_.done

    # « Le troisième prend la fuite »: the last voyous flee; the fight is decided.
    Clicks().act(gm, "gm_adjust", {"participant": thugs, "field": "fled", "value": "yes"})
    for page in (gm, player):
        expect(page.locator("#turn")).to_contain_text("The fight is decided.", timeout=LIVE)
        expect(page.locator("#log > li.kind-fight_decided")).to_contain_text(
            "Jack wins the fight. Nobody on the side of Voyous can fight any more.")
    expect(player.locator("#action-panel form#action-end_turn")).to_have_count(0)
    end = gm.locator("form#action-end_match")
    expect(end).to_contain_text("Jack wins the fight. Nobody on the side of Voyous can fight "
                                "any more.")
    end.locator("button[type=submit]").click()
    for page in (gm, player):
        expect(page.locator("#turn")).to_contain_text("The fight is over.", timeout=LIVE)
        expect(page.locator("#log > li.kind-match_ended")).to_contain_text(
            "Jack wins the fight.")
