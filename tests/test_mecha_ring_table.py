"""Mecha-Ring through the real engine, the web pages, the JSON API and the live stream.

Mia is the GM (the host); Paul runs the Écurie Boulon (3 implants: he drafts first), Pia the
Acier Hurlant. The set-up is drawn with seeded dice; each later step scripts its dice
from the robots the draft gave (a pool of N dice gets N faces).
"""

from __future__ import annotations

import json

import pytest
from sqlalchemy import update

from app.models import Character, Match, User
from app.rules.dice import ScriptedDice, SeededDice
from app.rules.mecha_ring.robot import total
from app.services import tables
from app.services.access import load_campaign_access
from tests.seating import campaign_access, campaign_with_players, user_ids
from tests.table_harness import Step, assert_rewind_and_redo_round_trip, play
from tests.test_match_stream import first_state, read_messages

SECRET = "test-secret"


@pytest.fixture
def ring(db, web, libre_dice):
    people = {name: web(name) for name in ("mia", "paul", "pia")}
    ids = user_ids(db, people)
    campaign = campaign_with_players(db, ids["mia"], [ids["paul"], ids["pia"]], name="MMMA",
                                     system="mecha_ring")
    boulon = Character(campaign_id=campaign.id, owner_id=ids["paul"], name="Écurie Boulon",
                       sheet={"robot_name": "Boulon-Boum", "crew": "", "implants": 3,
                              "tournaments": 0, "wins": 0, "titles": 0, "best_points": 0})
    hurleur = Character(campaign_id=campaign.id, owner_id=ids["pia"], name="Acier Hurlant",
                        sheet={"robot_name": "Hurleur-IX", "crew": "", "implants": 1,
                               "tournaments": 0, "wins": 0, "titles": 0, "best_points": 0})
    db.add_all([boulon, hurleur])
    db.execute(update(User).values(locale="en"))
    db.commit()
    access = campaign_access(db, ids, campaign.id)
    return {"people": people, "access": access, "campaign": campaign.id,
            "boulon": boulon.id, "hurleur": hurleur.id, "dice": libre_dice}


def open_tournament(db, ring, name: str = "Tournoi", seed: int = 11) -> Match:
    match = tables.create_match(db=db, secret=SECRET, access=ring["access"]["mia"], name=name,
                                character_ids=[ring["boulon"], ring["hurleur"]],
                                dice=SeededDice(seed))
    db.commit()
    return match


def pool(match: Match, tid: str, value: str) -> int:
    state = match.state
    return total(state["tokens"][tid]["robot"], state["catalogue"]["parts"], value)


def one(db, match: Match, access, action: dict, faces=()) -> Match:
    return play(db, SECRET, match, [Step(access, action, list(faces))])


def test_a_scripted_round_through_the_engine_folds_rewinds_and_redoes(db, ring):
    match = open_tournament(db, ring)
    gm, paul, pia = (ring["access"][name] for name in ("mia", "paul", "pia"))
    assert match.state["seats"] == ["t1", "t2"]  # Paul has more implants: he drafts first
    # the set-up rolled the first round's order at once (nobody decides anything there)
    assert match.state["fight"]["step"] in ("climb", "attack")
    # the host empties both purses (recorded): nobody can pay an SFX card, so no reaction
    # window pauses this scripted round (test_mecha_ring_reactions.py plays them)
    for seat in ("t1", "t2"):
        one(db, match, gm, {"kind": "correct", "seat": seat, "field": "credits", "value": 0})
    start_seq = match.seq
    seated = {"t1": paul, "t2": pia}
    first, second = match.state["fight"]["order"]
    # the last may climb over the first for one leg energy: they keep their place
    if match.state["fight"]["step"] == "climb":
        with pytest.raises(Exception, match=r"votre tour|your turn"):
            one(db, match, seated[first], {"kind": "climb", "climb": "on"})
        one(db, match, seated[second], {"kind": "climb", "climb": ""})
    assert match.state["turn"] == first
    # the first attacks: radar all odd (they choose), or no radar die (the defender chooses)
    radar = pool(match, first, "radar")
    one(db, match, seated[first], {"kind": "attack", "target": second}, [1] * radar)
    pending = match.state["fight"]["pending"]
    assert pending["chooser"] == (first if radar else second)
    attack = pool(match, first, "attaque")
    parts = match.state["catalogue"]["parts"]
    head = match.state["tokens"][second]["robot"]["tete"]
    defence = parts[head["card"].split("#")[0]]["defense"]
    strike = [6] * attack + [1] * defence
    # nobody can pay an SFX card: no window, the strike follows the aim
    one(db, match, seated[pending["chooser"]], {"kind": "choose_part", "slot": "tete"}, strike)
    # every 6 costs one more energy: the head is destroyed, into the attacker's loot
    assert match.state["tokens"][second]["robot"]["tete"] is None
    assert match.state["tokens"][first]["loot"] == [head["card"]]
    # the second's turn: radar dice all even (the first would choose) — no head left
    radar2 = pool(match, second, "radar")
    one(db, match, seated[second], {"kind": "attack", "target": first}, [2] * radar2)
    if match.state["fight"]["pending"]["step"] == "boost":  # a radar part to spend: no
        one(db, match, seated[second], {"kind": "decline_boost"})
    assert match.state["fight"]["pending"]["chooser"] == first
    attack2 = pool(match, second, "attaque")
    legs = match.state["tokens"][first]["robot"]["jambes"]
    legs_defence = parts[legs["card"].split("#")[0]]["defense"]
    one(db, match, seated[first], {"kind": "choose_part", "slot": "jambes"},
        [1] * attack2 + [6] * legs_defence)  # a sum that does not exceed: dodged
    fight = match.state["fight"]
    assert fight["step"] == "repairs" and first in fight["ready"]  # nothing to repair
    # the last robot ready: the next round begins, its order rolled at once
    order = [6] * pool(match, first, "mouvement") + [1] * pool(match, second, "mouvement")
    one(db, match, seated[second], {"kind": "ready", "seat": second}, order)
    assert match.state["fight"]["round"] == 2
    assert_rewind_and_redo_round_trip(db, gm, match, to_seq=start_seq + 2)


def test_the_table_page_offers_only_legal_forms_and_hides_the_other_hand(db, ring):
    mia, paul, pia = (ring["people"][name] for name in ("mia", "paul", "pia"))
    base = f"/campaigns/{ring['campaign']}/matches"
    ring["dice"].current = SeededDice(5)  # the set-up's draws
    response = mia.client.post(base, data={
        "csrf_token": mia.csrf(), "name": "Le grand tournoi",
        "characters": [str(ring["boulon"]), str(ring["hurleur"])]}, follow_redirects=False)
    assert response.status_code == 303, response.text
    url = response.headers["location"]
    db.commit()
    match = db.get(Match, int(url.rsplit("/", 1)[1]))
    state = match.state
    pia_hand = state["tokens"]["t2"]["hand"] + state["tokens"]["t2"]["sfx_hand"]
    names = {state["catalogue"]["parts"].get(c.split("#")[0], {}).get("name") for c in pia_hand}
    page = paul.page(url)
    robots = page.select(".mecha-robot")
    assert [r.select_one("h3").contents[0].strip() for r in robots] == ["Écurie Boulon",
                                                                        "Acier Hurlant"]
    assert len(page.select('#participant-t1 .robot-card:not(.missing)')) == 5
    assert page.select_one("#participant-t2 .hands").get_text(" ", strip=True).startswith(
        "5 parts in hand")
    assert page.select("#participant-t2 .card-in-hand") == []
    assert len(page.select("#participant-t1 .card-in-hand")) == 5
    kinds = {form["data-kind"] for form in page.select("#action-panel form.action")}
    assert "correct" not in kinds and "end_match" not in kinds
    gm_kinds = {form["data-kind"] for form in mia.page(url).select("#action-panel form.action")}
    assert {"correct", "end_match"} <= gm_kinds
    # the order needs nobody's decision: the set-up rolled it
    assert "roll_order" not in kinds | gm_kinds
    log = " ".join(li.get_text(" ", strip=True) for li in paul.page(url).select("#log > li"))
    assert "Order of round 1 by the Mouvement dice" in log
    del pia
    # a bad value is refused with a reason, nothing stored
    seq = ring_seq(db, url)
    refused = paul.client.post(url + "/actions", data={"csrf_token": paul.csrf(),
                                                       "kind": "buy", "choice": "x|hand"})
    assert refused.status_code == 422 and (
        "not the moment" in refused.text or "reactions first" in refused.text)
    assert ring_seq(db, url) == seq
    del names  # the names may appear in the market too: the ids are checked below


def ring_seq(db, url: str) -> int:
    db.commit()
    return db.get(Match, int(url.rsplit("/", 1)[1])).seq


def test_hands_never_reach_another_player_api_log_or_stream(db, ring):
    match = open_tournament(db, ring, "Secrets")
    pia_cards = match.state["tokens"]["t2"]["hand"] + match.state["tokens"]["t2"]["sfx_hand"]
    paul_cards = match.state["tokens"]["t1"]["hand"] + match.state["tokens"]["t1"]["sfx_hand"]
    pile_cards = match.state["piles"]["parts"][:5]
    base = f"/api/v1/campaigns/{ring['campaign']}/matches/{match.id}"
    page_url = f"/campaigns/{ring['campaign']}/matches/{match.id}"
    paul, pia, mia = (ring["people"][name] for name in ("paul", "pia", "mia"))
    for who, own, other in ((paul, paul_cards, pia_cards), (pia, pia_cards, paul_cards)):
        body = who.client.get(base).json()
        raw = json.dumps(body) + json.dumps(who.client.get(base + "/log").json())
        with who.client.stream("GET", page_url + "/stream",
                               headers={"Last-Event-ID": "0"}) as response:
            raw += "\n".join(m.data for m in read_messages(response, first_state))
        assert all(card not in raw for card in other + pile_cards)
        assert all(card in json.dumps(body["state"]) for card in own)
    gm_raw = json.dumps(mia.client.get(base).json())
    assert all(card in gm_raw for card in pia_cards + paul_cards)


def test_the_json_api_plays_an_action_and_refuses_a_bad_one(db, ring):
    match = open_tournament(db, ring, "API")
    paul = ring["people"]["paul"]
    base = f"/api/v1/campaigns/{ring['campaign']}/matches/{match.id}"
    body = paul.client.get(base).json()
    # the set-up rolled the order (Pia first): Paul, second, is asked whether he climbs
    assert body["state"]["fight"]["order"] == ["t2", "t1"]
    assert {action["kind"] for action in body["legal_actions"]} >= {"climb", "note"}
    refused = paul.client.post(base + "/actions", json={"action": {
        "kind": "attack", "target": "t2"}, "seq": body["seq"]},
        headers={"X-CSRF-Token": paul.csrf()})
    assert refused.status_code == 422, refused.text
    ring["dice"].current = SeededDice(4)
    done = paul.client.post(base + "/actions", json={"action": {"kind": "climb",
                                                                "climb": ""},
                                                     "seq": body["seq"]},
                            headers={"X-CSRF-Token": paul.csrf()})
    assert done.status_code == 200, done.text
    assert paul.client.get(base).json()["state"]["fight"]["step"] == "attack"


def test_the_end_of_the_tournament_writes_the_record_on_the_sheets(db, ring):
    match = open_tournament(db, ring, "Fin")
    gm = ring["access"]["mia"]
    tables.apply_action(db=db, secret=SECRET, access=gm, match_id=match.id,
                        action={"kind": "end_match"}, expected_seq=None,
                        dice=ScriptedDice([]))
    db.commit()
    boulon = db.get(Character, ring["boulon"])
    assert boulon.sheet["tournaments"] == 1
    assert db.get(Match, match.id).status == "finished"


def test_the_campaign_page_shows_the_standings_and_the_tournaments(db, ring):
    """A finished tournament and a running one: the page (both languages) and the JSON API
    list both, linked to their tables, with the winner and each team's victory points,
    fights won and crédits; the standings sum them per team. A match of another game in the
    campaign is left out."""
    won = open_tournament(db, ring, "Coupe d'hiver")
    gm = ring["access"]["mia"]
    one(db, won, gm, {"kind": "correct", "seat": "t1", "field": "credits", "value": 30})
    tables.apply_action(db=db, secret=SECRET, access=gm, match_id=won.id,
                        action={"kind": "end_match"}, expected_seq=None,
                        dice=ScriptedDice([]))
    db.commit()
    running = open_tournament(db, ring, "Ligue de printemps")
    one(db, running, gm, {"kind": "correct", "seat": "t1", "field": "credits", "value": 45})
    db.add(Match(campaign_id=ring["campaign"], system="libre", name="Autre jeu",
                 state={"tokens": {"x": {"name": "Intrus"}}, "seats": ["x"]}))
    db.commit()
    winner = won.state["tokens"][won.state["result"]["winner"]]["name"]
    api = ring["people"]["pia"].client.get(
        f"/api/v1/campaigns/{ring['campaign']}/summary").json()
    assert api["system"] == "mecha_ring"
    history = api["summary"]["tournaments"]
    assert [(t["match_id"], t["name"], t["over"]) for t in history] == [
        (won.id, "Coupe d'hiver", True), (running.id, "Ligue de printemps", False)]
    assert history[0]["winner"] == winner and history[0]["champion"] is None  # ended early
    boulon = {t["name"]: next(row for row in t["teams"] if row["name"] == "Écurie Boulon")
              for t in history}
    assert boulon["Coupe d'hiver"]["credits"] == 30
    assert boulon["Ligue de printemps"]["credits"] == 45
    standings = {row["name"]: row for row in api["summary"]["standings"]}
    assert set(standings) == {"Écurie Boulon", "Acier Hurlant"}
    assert standings["Écurie Boulon"]["credits"] == 75 and standings["Écurie Boulon"][
        "played"] == 2 and standings[winner]["wins"] == 1
    # the page, in English then French
    page = ring["people"]["pia"].page(f"/campaigns/{ring['campaign']}")
    rows = {row.select_one("th").get_text(strip=True): [
        cell.get_text(strip=True) for cell in row.select("td")]
        for row in page.select(".mecha-standings table.standings tbody tr")}
    assert rows["Écurie Boulon"] == ["0", str(standings["Écurie Boulon"]["wins"]), "2", "0",
                                     "0", "75"]
    links = [a["href"] for a in page.select(".mecha-standings .tournaments > li > a")]
    assert links == [f"/campaigns/{ring['campaign']}/matches/{won.id}",
                     f"/campaigns/{ring['campaign']}/matches/{running.id}"]
    text = page.select_one(".mecha-standings .tournaments").get_text(" ", strip=True)
    assert f"Winner: {winner}" in text and "under way" in text and "Intrus" not in text
    assert "Écurie Boulon: 0 VP · 0 fights won · 30 crédits" in text
    db.execute(update(User).where(User.username_key == "pia").values(locale="fr"))
    db.commit()
    page = ring["people"]["pia"].page(f"/campaigns/{ring['campaign']}")
    text = page.select_one(".mecha-standings").get_text(" ", strip=True)
    assert f"Vainqueur : {winner}" in text and "en cours" in text
    assert "Écurie Boulon : 0 PV · 0 combat gagné · 30 crédits" in text
    assert "Combats" in text and "Historique des tournois" in text


def test_a_whole_tournament_of_house_bots_through_the_engine(db, ring):
    """The host gives both seats to the house bots and lets them play to the end: every step
    through the real engine, fold(log) == snapshot after each, the record on the sheets."""
    from tests.table_harness import assert_log_is_the_truth

    match = open_tournament(db, ring, "Robots")
    gm = ring["access"]["mia"]
    dice = SeededDice(2026)
    for seat in ("t1", "t2"):
        tables.apply_action(db=db, secret=SECRET, access=gm, match_id=match.id,
                            action={"kind": "set_bot", "seat": seat, "on": "on"},
                            expected_seq=None, dice=dice)
        assert_log_is_the_truth(db, match)
    for _ in range(200):
        if match.state["status"] == "finished":
            break
        tables.apply_action(db=db, secret=SECRET, access=gm, match_id=match.id,
                            action={"kind": "let_bots_play"}, expected_seq=None, dice=dice)
        assert_log_is_the_truth(db, match)
    state = match.state
    assert state["status"] == "finished" and state["result"]["winner"] in ("t1", "t2")
    assert state["history"]  # at least one fight fought to its end
    db.expire_all()
    sheets = [db.get(Character, ring[name]).sheet for name in ("boulon", "hurleur")]
    assert [sheet["tournaments"] for sheet in sheets] == [1, 1]
    assert sum(sheet["wins"] for sheet in sheets) == 1


def test_names_typed_by_players_are_never_live_html_nor_escaped_twice(db, ring):
    db.get(Character, ring["hurleur"]).name = "<b>O'Brien & Cie</b>"
    db.commit()
    match = open_tournament(db, ring, "Noms")
    url = f"/campaigns/{ring['campaign']}/matches/{match.id}"
    page = ring["people"]["paul"].page(url)
    assert page.select("#participant-t2 h3 b") == []
    assert "<b>O'Brien & Cie</b>" in page.select_one("#participant-t2 h3").get_text()
    host = ring["people"]["mia"].page(url)
    options = [option.get_text() for option in host.select("#action-panel option")]
    assert "<b>O'Brien & Cie</b> : crédits" in options  # the host's correction form
    for text in (page.get_text(), host.get_text()):
        assert "&amp;" not in text and "&#39;" not in text and "&lt;" not in text


def test_the_bots_stop_before_the_campaigns_dice_cap(db, ring):
    """A campaign capping the dice of one action at 15: the bots' chain stops before the
    move the cap would refuse, and the host's "let the bots play" goes on from there."""
    from app.models import Campaign

    match = open_tournament(db, ring, "Plafond")
    db.get(Campaign, ring["campaign"]).dice_cap = 15
    db.commit()
    gm = load_campaign_access(db, db.get(User, ring["access"]["mia"].user.id), ring["campaign"])
    for seat in ("t1", "t2"):
        tables.apply_action(db=db, secret=SECRET, access=gm, match_id=match.id,
                            action={"kind": "set_bot", "seat": seat, "on": "on"},
                            expected_seq=None, dice=SeededDice(seat))
    db.refresh(match)
    seqs = [match.seq]
    for turn in range(5):
        tables.apply_action(db=db, secret=SECRET, access=gm, match_id=match.id,
                            action={"kind": "let_bots_play"}, expected_seq=None,
                            dice=SeededDice(turn))
        db.refresh(match)
        seqs.append(match.seq)
    assert seqs == sorted(seqs) and seqs[-1] > seqs[0]  # progress, never a refusal


def test_the_compendium_lists_the_deck_the_campaign_plays(db, ring):
    """§ Mise en place / § Cartes SFX: every card with its values, the GM's own marked, and
    a house card the host left out listed apart, not in the deck."""
    from app.rules.mecha_ring.content import PARTS, SFX
    from app.services import content

    gm = ring["access"]["mia"]
    content.add_item(db=db, access=gm, kind="part", name="Bras Foreuse", fields={
        "family": "bras", "mouvement": "0", "radar": "0", "attaque": "3", "defense": "1",
        "value": "30", "copies": "2"})
    content.add_item(db=db, access=gm, kind="left_out", name="Sans enclume",
                     fields={"card": "chassis_enclume"})
    db.commit()

    def sections(who: str, language: str) -> dict[str, dict[str, list[str]]]:
        db.execute(update(User).where(User.username_key == who).values(locale=language))
        db.commit()
        page = ring["people"][who].page(f"/campaigns/{ring['campaign']}/compendium")
        return {section["id"]: {
            row.select_one(".entry-name").contents[0].strip(): [
                cell.get_text(strip=True) for cell in row.select("td")]
            for row in section.select("tbody tr")} for section in page.select(
                ".compendium-section")}

    french = sections("paul", "fr")
    parts = french["compendium-part"]
    assert len(parts) == len(PARTS)  # the house parts, less Châssis Enclume, plus the GM's
    assert "Châssis Enclume" not in parts
    assert parts["Bras Foreuse"] == ["bras", "0", "0", "3", "1", "30", "2"]
    assert parts["Crâne Blindé"][0] == "tête"
    assert list(french["compendium-left_out"]) == ["Châssis Enclume"]
    assert len(french["compendium-sfx"]) == len(SFX)
    assert french["compendium-sfx"]["Pari truqué"][0] == "crédits de la banque"
    english = sections("paul", "en")
    assert english["compendium-sfx"]["Pari truqué"][0] == "crédits from the bank"
    assert english["compendium-part"]["Bras Foreuse"] == parts["Bras Foreuse"]


def aim_at_paul(db, ring, match: Match) -> None:
    """Paul keeps his place; Pia (first in the order) attacks him, her radar all odd (or
    none: Paul chooses), and his head is aimed at: the strike is next."""
    paul_access, pia_access = ring["access"]["paul"], ring["access"]["pia"]
    assert match.state["fight"]["order"] == ["t2", "t1"]
    one(db, match, paul_access, {"kind": "climb", "climb": ""})
    one(db, match, pia_access, {"kind": "attack", "target": "t1"},
        [1] * pool(match, "t2", "radar"))
    chooser = match.state["fight"]["pending"]["chooser"]  # Pia, or Paul if she has no radar
    one(db, match, pia_access if chooser == "t2" else paul_access,
        {"kind": "choose_part", "slot": "tete"})


def strike_faces(match: Match) -> list[int]:
    """Faces for Pia's strike on Paul's head: her attack dice, then its défense dice."""
    parts = match.state["catalogue"]["parts"]
    head = match.state["tokens"]["t1"]["robot"]["tete"]["card"].split("#")[0]
    buffs = match.state["tokens"]["t1"]["buffs"]["defence"]
    return [1] * pool(match, "t2", "attaque") + [6] * (parts[head]["defense"] + buffs)


def test_a_reaction_window_and_the_turn_timer_through_the_api_page_and_stream(db, ring,
                                                                              monkeypatch):
    """Pia strikes Paul's head: Paul holds a Bouclier ionique, which can change the strike;
    Pia's Surcharge could too, but she cannot pay it: the window asks Paul only. Nothing
    tells Pia who is asked nor what Paul holds — API, log, page and raw stream; the timer
    runs on the server's clock (moved by the test) and its default closes the window."""
    now = {"t": 5000.0}
    monkeypatch.setattr(tables, "clock", lambda: now["t"])
    match = open_tournament(db, ring, "Réactions", seed=3)
    assert match.state["tokens"]["t1"]["sfx_hand"] == ["bouclier_ionique#2"]
    gm, pia_access = ring["access"]["mia"], ring["access"]["pia"]
    one(db, match, gm, {"kind": "correct", "seat": "t2", "field": "credits", "value": 0})
    one(db, match, gm, {"kind": "set_timer", "seconds": "60"})
    now["t"] = 5001.0
    aim_at_paul(db, ring, match)
    assert match.state["window"]["waiting"] == ["t1"]
    assert match.state["clock"]["deadline"] == 5061
    base = f"/api/v1/campaigns/{ring['campaign']}/matches/{match.id}"
    page_url = f"/campaigns/{ring['campaign']}/matches/{match.id}"
    paul, pia = ring["people"]["paul"], ring["people"]["pia"]
    body = pia.client.get(base).json()
    assert body["state"]["window"]["waiting"] == [] and body["state"]["turn"] is None
    assert "pass_reaction" not in {action["kind"] for action in body["legal_actions"]}
    raw = json.dumps(body) + json.dumps(pia.client.get(base + "/log").json())
    with pia.client.stream("GET", page_url + "/stream",
                           headers={"Last-Event-ID": "0"}) as response:
        raw += "\n".join(m.data for m in read_messages(response, first_state))
    assert "bouclier_ionique#2" not in raw  # the card (the catalogue lists every kind)
    mine = paul.client.get(base).json()
    assert mine["state"]["window"]["waiting"] == ["t1"]
    asked = next(action for action in mine["legal_actions"]
                 if action["kind"] == "pass_reaction")
    assert asked["choices"]["cards"] == {"t1": ["bouclier_ionique#2"]}
    # the pages: Pia reads that the table waits, Paul that he may react; the countdown is
    # the server's (61 s from 5001 − 10 s gone: 50)
    now["t"] = 5011.0
    page = pia.page(page_url)
    assert page.select_one("#turn .reaction-window") is not None
    assert "Paul" not in page.select_one("#turn").get_text() and "t1" not in str(
        page.select_one("#turn"))
    assert page.select_one("#turn-timer")["data-countdown"] == "50"
    assert paul.page(page_url).select_one("#turn .reaction-asked") is not None
    # the time is the server's: too early, refused; then the window closes by default
    with pytest.raises(Exception, match=r"50 s"):
        one(db, match, pia_access, {"kind": "timeout"})
    now["t"] = 5062.0
    one(db, match, pia_access, {"kind": "timeout"}, strike_faces(match))
    assert match.state["window"] is None
    closed = [event for event in tables.events_after(db, match, tables.actor_for(db, gm))
              if event["kind"] == "window_closed"][-1]
    assert closed["payload"]["reason"] == "timeout"


def test_the_host_sets_the_turn_timer_when_opening_the_tournament(db, ring, monkeypatch):
    """The new-match form of a game with a turn timer asks for it; a bad value is refused
    with its reason; the tournament starts with it and the first action starts the clock."""
    monkeypatch.setattr(tables, "clock", lambda: 7000.0)
    mia = ring["people"]["mia"]
    base = f"/campaigns/{ring['campaign']}/matches"
    assert mia.page(base).select_one("#field-turn_seconds") is not None
    fields = {"csrf_token": mia.csrf(), "name": "Chrono",
              "characters": [str(ring["boulon"]), str(ring["hurleur"])]}
    refused = mia.client.post(base, data={**fields, "turn_seconds": "5"})
    assert refused.status_code == 422 and "Turn timer" in refused.text
    ring["dice"].current = SeededDice(5)
    response = mia.client.post(base, data={**fields, "turn_seconds": "90"},
                               follow_redirects=False)
    assert response.status_code == 303, response.text
    db.commit()
    match = db.get(Match, int(response.headers["location"].rsplit("/", 1)[1]))
    # the clock starts with the set-up: the order is awaited for 90 s
    assert match.state["timer"] == 90 and match.state["clock"]["deadline"] == 7090


def test_a_pass_in_a_reaction_window_does_not_exist_for_the_other_players(db, ring):
    """Pia strikes Paul's head: both may react — her Surcharge, his Bouclier ionique. Paul's
    « no reaction » is quiet: Pia's API (log, match, action answer), her page's log, her
    page stream and her API stream carry no trace of it — no line, no « something secret »,
    not Paul's id — and her seq from before it is still good for her own pass. The host and
    Paul read it; Pia's own pass then closes the window for everyone."""
    match = open_tournament(db, ring, "Discrétion", seed=3)
    assert match.state["tokens"]["t2"]["sfx_hand"] == ["surcharge#3"]
    aim_at_paul(db, ring, match)
    assert match.state["window"]["waiting"] == ["t1", "t2"]
    ring["dice"].current = ScriptedDice(strike_faces(match))
    base = f"/api/v1/campaigns/{ring['campaign']}/matches/{match.id}"
    page_url = f"/campaigns/{ring['campaign']}/matches/{match.id}"
    mia, paul, pia = (ring["people"][name] for name in ("mia", "paul", "pia"))
    paul_id = ring["access"]["paul"].user.id
    before = pia.client.get(base).json()
    seq_before = before["seq"]
    passed = paul.client.post(base + "/actions", json={
        "action": {"kind": "pass_reaction"}, "seq": paul.client.get(base).json()["seq"]},
        headers={"X-CSRF-Token": paul.csrf()})
    assert passed.status_code == 200, passed.text
    assert [event["kind"] for event in passed.json()["events"]] == ["reaction_passed"]
    pass_seq = passed.json()["seq"]
    # what Pia can read: nothing of it
    log = pia.client.get(base + "/log").json()
    assert pass_seq not in [event["seq"] for event in log["events"]]
    assert log["next_after_seq"] == pass_seq and not log["has_more"]
    after = pia.client.get(base).json()
    assert after["state"]["window"] == before["state"]["window"]
    assert after["state"]["clock"] == before["state"]["clock"]
    page = pia.page(page_url)
    assert page.select_one(f"#event-{pass_seq}") is None
    # the host and Paul read the pass
    for who in (mia, paul):
        seqs = [event["seq"] for event in who.client.get(base + "/log").json()["events"]]
        assert pass_seq in seqs
    assert mia.page(page_url).select_one(f"#event-{pass_seq}") is not None
    # Pia's seq from before Paul's pass is still current for her: no 409
    answered = pia.client.post(base + "/actions", json={
        "action": {"kind": "pass_reaction"}, "seq": seq_before},
        headers={"X-CSRF-Token": pia.csrf()})
    assert answered.status_code == 200, answered.text
    assert [event["kind"] for event in answered.json()["events"]][-2:] == ["window_closed",
                                                                          "struck"]
    # her streams, read past Paul's pass up to the window's end: no trace of it either
    final = answered.json()["seq"]
    with pia.client.stream("GET", page_url + "/stream",
                           headers={"Last-Event-ID": str(seq_before - 1)}) as response:
        html_stream = read_messages(response, lambda got: got[-1].event == "state")
    with pia.client.stream("GET", base + "/stream",
                           headers={"Last-Event-ID": str(seq_before - 1)}) as response:
        json_stream = read_messages(response, lambda got: got[-1].id == final)
    assert html_stream[-1].id == final
    passes = [json.loads(m.data) for m in json_stream if "reaction_passed" in m.data]
    assert [event["payload"]["seat"] for event in passes] == ["t2"]  # her own only
    for messages in (html_stream, json_stream):
        assert pass_seq not in [m.id for m in messages] and seq_before in [m.id for m in messages]
        # after the window opened (Paul may have aimed at his own head: that was public)
        raw = "\n".join(m.data for m in messages if int(m.id or 0) > seq_before)
        assert "kind-hidden" not in raw and '"kind":"hidden"' not in raw  # no « secret » stub
        assert f'"by":{paul_id}' not in raw and f'"actor_id":{paul_id}' not in raw
    # but a public event after her seq still makes it stale
    stale = pia.client.post(base + "/actions", json={
        "action": {"kind": "pass_reaction"}, "seq": seq_before},
        headers={"X-CSRF-Token": pia.csrf()})
    assert stale.status_code == 409


def test_a_game_without_a_campaign_summary_answers_null(db, ring):
    paul = ring["people"]["paul"]
    made = paul.client.post("/api/v1/campaigns", json={"name": "Libre", "system": "libre"},
                            headers={"X-CSRF-Token": paul.csrf()})
    assert made.status_code == 201, made.text
    answer = paul.client.get(f"/api/v1/campaigns/{made.json()['id']}/summary").json()
    assert answer == {"system": "libre", "summary": None}
    page = paul.page(f"/campaigns/{made.json()['id']}")
    assert page.select_one(".mecha-standings") is None
    outsider = ring["people"]["pia"].client.get(f"/api/v1/campaigns/{made.json()['id']}/summary")
    assert outsider.status_code == 404


def test_the_ring_shows_the_bank_beside_the_market(db, ring):
    """Issue 12: the board shows the market, the bank and each loot pile."""
    match = open_tournament(db, ring, "Banque")
    gm = ring["access"]["mia"]
    one(db, match, gm, {"kind": "correct", "seat": "t1", "field": "credits", "value": 0})
    one(db, match, gm, {"kind": "correct", "seat": "t2", "field": "credits", "value": 30})
    db.execute(update(User).where(User.username_key == "pia").values(locale="fr"))
    db.commit()
    page = ring["people"]["pia"].page(f"/campaigns/{ring['campaign']}/matches/{match.id}")
    bank = page.select_one(".mecha-market .bank").get_text(" ", strip=True)
    assert "banque" in bank and "30 crédits" in bank


def test_the_hosts_log_reads_the_drafts_discards_and_the_ring_shows_the_open_piles(db, ring):
    """The draft's discards go back face down on top of the pile: the host's log names them
    (never « Something happened »), a player's log says only that the GM did something in
secret. The SFX cards
    played lie face up, shown on the ring to everyone (issue 23)."""
    match = open_tournament(db, ring, "Piles", seed=3)
    gm = ring["access"]["mia"]
    events = tables.events_after(db, match, tables.actor_for(db, gm))
    discards = next(event for event in events if event["kind"] == "discards_on_top")
    names = [match.state["catalogue"]["parts"][card.split("#")[0]]["name"]
             for card in discards["payload"]["cards"]]
    url = f"/campaigns/{ring['campaign']}/matches/{match.id}"
    host = ring["people"]["mia"].page(url)
    line = host.select_one(f"#event-{discards['seq']}").get_text(" ", strip=True)
    assert "face down on top of the pile" in line and all(name in line for name in names)
    assert "Something happened" not in host.get_text()
    hidden = ring["people"]["paul"].page(url).select_one(f"#event-{discards['seq']}")
    assert "kind-hidden" in hidden["class"] and names[0] not in hidden.get_text()
    one(db, match, ring["access"]["paul"], {"kind": "play_sfx",
                                            "card": "bouclier_ionique#2"}, [1])
    for who in ("paul", "pia", "mia"):
        pile = ring["people"][who].page(url).select_one(".mecha-market .sfx-discard")
        assert "Bouclier ionique" in pile.get_text(" ", strip=True)
