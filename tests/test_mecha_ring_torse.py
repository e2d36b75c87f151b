"""A fallen Combatank's torse on the table page (seed 002_4824fb48e45db48f.txt, § Phase de
marché; house: docs/rules-notes.md § Mecha-Ring): Paul's robot falls with 10 crédits and a
Pari truqué in hand; the torse he draws costs more; his page offers the card (the form open)
and the abandon, the others' pages do not, and the card pays the torse."""

from __future__ import annotations

from sqlalchemy import select, update

from app.models import User
from app.services.access import load_campaign_access
from app.web.table_view import TableView, fragment, panel_html, panel_state
from tests.test_mecha_ring_table import SECRET, one, open_tournament, pool, ring  # noqa: F401

PARI = "pari_truque#1"


def fell_short(db, ring):  # noqa: F811 — the fixture imported above
    """Seed 9: Paul (t1) attacks first and holds a Pari truqué. His head at 1 spends its last
    radar point (to Pia's loot): his torse is in reach; Pia strikes it at 1 energy."""
    match = open_tournament(db, ring, "Torse", seed=9)
    gm, paul, pia = (ring["access"][name] for name in ("mia", "paul", "pia"))
    assert match.state["fight"]["order"] == ["t1", "t2"]
    assert match.state["tokens"]["t1"]["sfx_hand"] == [PARI]
    for seat, value in (("t1", 10), ("t2", 0)):  # Pia can pay no card: no reaction window
        one(db, match, gm, {"kind": "correct", "seat": seat, "field": "credits", "value": value})
    for slot in ("tete", "torse"):
        one(db, match, gm, {"kind": "correct", "seat": "t1", "field": slot, "value": 1})
    one(db, match, pia, {"kind": "climb", "climb": ""})
    one(db, match, paul, {"kind": "attack", "target": "t2"}, [2] * pool(match, "t1", "radar"))
    one(db, match, paul, {"kind": "boost_radar", "slot": "tete"})
    assert match.state["tokens"]["t1"]["robot"]["tete"] is None
    parts = match.state["catalogue"]["parts"]
    legs = match.state["tokens"]["t2"]["robot"]["jambes"]["card"].split("#")[0]
    one(db, match, paul, {"kind": "choose_part", "slot": "jambes"},
        [1] * pool(match, "t1", "attaque") + [6] * parts[legs]["defense"])  # dodged
    one(db, match, pia, {"kind": "attack", "target": "t1"}, [1] * pool(match, "t2", "radar"))
    pile = match.state["piles"]["torse"]
    face = next(i + 1 for i, c in enumerate(pile) if parts[c.split("#")[0]]["value"] == 30)
    torse = match.state["tokens"]["t1"]["robot"]["torse"]["card"].split("#")[0]
    one(db, match, pia, {"kind": "choose_part", "slot": "torse"},
        [6] * pool(match, "t2", "attaque") + [1] * parts[torse]["defense"] + [(len(pile), face)])
    return match


def test_the_fallen_player_is_offered_the_credits_card_before_paying_the_torse(db, ring):  # noqa: F811
    match = fell_short(db, ring)
    assert match.state["fight"]["step"] == "torse" and match.state["turn"] == "t1"
    assert not match.state["tokens"]["t1"]["out"]
    url = f"/campaigns/{ring['campaign']}/matches/{match.id}"
    paul, pia = ring["people"]["paul"], ring["people"]["pia"]
    page = paul.page(url)
    card = page.select_one("#action-panel details.action-play_sfx")
    assert card is not None and card.has_attr("open")  # open by itself: it is his move
    options = [o["value"] for o in card.select("select[name=choice] option")]
    assert f"t1|{PARI}" in options
    kinds = [form["data-kind"] for form in page.select("#action-panel form.action")]
    # the card first, the abandon after it
    assert kinds.index("play_sfx") < kinds.index("give_up_torse")
    assert "Écurie Boulon" in page.select_one("#turn .torse-due").get_text()
    others = pia.page(url).select("#action-panel form.action")
    assert "give_up_torse" not in {form["data-kind"] for form in others}
    # in French, the abandon and the ring say so in French
    db.execute(update(User).where(User.username_key == "paul").values(locale="fr"))
    db.commit()
    french = paul.page(url)
    assert french.select_one("#action-give_up_torse-summary").get_text(strip=True) == \
        "Renoncer au torse"
    assert "carte SFX de crédits" in french.select_one("#turn .torse-due").get_text()
    # the card is played from the page: −10 + 40 crédits, the torse of 30 paid, the market
    sfx_pile = len(match.state["piles"]["sfx"])
    one(db, match, ring["access"]["paul"], {"kind": "play_sfx", "choice": f"t1|{PARI}"},
        [(sfx_pile, 1)])
    assert match.state["phase"] == "market" and match.state["tokens"]["t1"]["credits"] == 10
    assert match.state["tokens"]["t1"]["robot"]["torse"] is not None


def test_the_live_panel_opens_the_card_as_the_page_does(db, ring):  # noqa: F811
    """The stream draws the panel from ``PANEL_STATE_KEYS`` alone (tests/test_panel_basis.py):
    the card opens by itself from ``fight`` (its step, who owes the torse), so the live panel
    and its tag must read it too."""
    match = fell_short(db, ring)
    paul = db.scalar(select(User).where(User.username_key == "paul"))
    view = TableView.load(db, load_campaign_access(db, paul, ring["campaign"]), match)
    context = view.panel_context(csrf_token="csrf")
    assert panel_html(context) == fragment("matches/_actions.html", {**context, "oob": True})
    assert "fight" in panel_state(match.state)
