"""Simulations on the table page and through the API (docs/odds.md § Simulations and the
bookmaker): a member starts one, reads its progress and its figures — Mutatior's bookmaker
quotes from them, for a spectator too — and stops it; each runs on the pool of processes,
from what its asker may see.
"""

from __future__ import annotations

import time

import pytest
from bs4 import BeautifulSoup
from sqlalchemy import update

from app.models import Character, Membership, Role, User
from app.rules import simulation
from app.rules.dice import ScriptedDice, SeededDice
from app.rules.mutatior.samples import grosbaf, zetzet
from app.rules.mutatior.sheet import sheet_of
from app.services import simulations, tables
from tests.seating import (
    campaign_access,
    campaign_with_players,
    grosbaf_against_zetzet,
    user_ids,
)

HTMX = {"HX-Request": "true"}
WAIT = 180  # seconds a simulation may take on a busy machine before the test gives up


def wait_for(check, what: str):
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.25)
    raise AssertionError(f"still waiting for {what}")


@pytest.fixture
def arena(db, web, app):
    """Mia's Mutatior campaign: Paul's Grosbaf against Pia's Zetzet in the set-up, Sam
    watching (a spectator)."""
    people = {name: web(name) for name in ("mia", "paul", "pia", "sam")}
    ids = user_ids(db, people)
    campaign = campaign_with_players(db, ids["mia"], [ids["paul"], ids["pia"]], name="Arène",
                                     system="mutatior")
    db.add(Membership(campaign_id=campaign.id, user_id=ids["sam"], role=Role.SPECTATOR))
    gros = Character(campaign_id=campaign.id, owner_id=ids["paul"], name="Grosbaf",
                     sheet=sheet_of(grosbaf()))
    zet = Character(campaign_id=campaign.id, owner_id=ids["pia"], name="Zetzet",
                    sheet=sheet_of(zetzet()))
    db.add_all([gros, zet])
    db.execute(update(User).values(locale="en"))
    db.commit()
    access = campaign_access(db, ids, campaign.id)
    match = tables.create_match(db=db, secret="test-secret", access=access["mia"],
                                name="Le choc", character_ids=[gros.id, zet.id],
                                dice=ScriptedDice([]))
    url = f"/campaigns/{campaign.id}/matches/{match.id}"
    return {"people": people, "ids": ids, "access": access, "match": match.id, "url": url,
            "registry": app.state.simulations}


def body(response) -> BeautifulSoup:
    assert response.status_code == 200, response.text
    return BeautifulSoup(response.text, "html.parser")


def finished(user, url):
    shown = body(user.get(url + "/simulations", headers=HTMX))
    return shown if shown.select_one(".simulation-result[data-status=done]") else None


def test_a_spectator_sees_the_bookmakers_quote_before_the_bets(arena, db):
    sam, url = arena["people"]["sam"], arena["url"]
    page = sam.page(url)
    panel = page.select_one("#bookmaker #simulation")
    assert panel is not None and panel["hx-preserve"] == "true"
    form = panel.select_one("form.simulation-form")
    assert form["hx-post"] == url + "/simulations"
    started = body(sam.post(url + "/simulations", {"runs": "20", "seed": "7"}, headers=HTMX))
    assert started.select_one("#simulation-bar") is not None  # the progress bar
    assert started.select_one("#simulation-cancel") is not None
    assert started.select_one("[hx-trigger='load delay:1s']")["hx-get"] == url + "/simulations"
    shown = wait_for(lambda: finished(sam, url), "the simulation's end")
    victory = shown.select_one("table[data-section=victory]")
    assert victory.caption.text == "Who wins"
    rows = {row.th.text: row for row in victory.select("tbody tr")}
    assert set(rows) == {"Paul's team", "Pia's team"}
    # The figures are the rules' own, from what a spectator sees, with the seed asked.
    sim = arena["registry"].latest(arena["ids"]["sam"], arena["match"])
    assert sim.viewer is not None and sim.viewer.is_spectator and not sim.whole_state
    expected = simulation.simulate("mutatior", sim.state, 20, seed=7, viewer=sim.viewer)
    assert sim.tally == expected
    for team, row in zip(sim.state["team_order"], rows.values(), strict=True):
        chance = expected.share("win:" + team)
        assert row.select_one(".simulation-chance").text == f"{round(float(chance) * 100)}%"
        quote = row.select_one(".simulation-quote").text
        assert quote == (f"{round(float(1 / chance), 2):g}" if chance else "—")
    assert "Over 20 simulated fights" in shown.select_one(".simulation-over").text
    assert shown.select_one("table[data-section=deaths]") is not None
    # The table page shows the same panel to its asker, not to anyone else.
    assert sam.page(url).select_one("#bookmaker table[data-section=victory]") is not None
    assert arena["people"]["paul"].page(url).select_one("#simulation table") is None


def test_a_stopped_simulation_counts_nothing_more(arena):
    paul, url = arena["people"]["paul"], arena["url"]
    body(paul.post(url + "/simulations", {"runs": "2000", "seed": "3"}, headers=HTMX))
    sim = arena["registry"].latest(arena["ids"]["paul"], arena["match"])
    wait_for(lambda: sim.done > 0, "a first run")
    assert paul.post(url + "/simulations/cancel", headers=HTMX).status_code == 204
    assert sim.status == "cancelled"
    counted = sim.done
    assert counted < 2000
    # what was under way in the processes ends there and is not counted
    wait_for(lambda: not sim.in_flight, "the pieces under way to end")
    assert sim.done == counted and sim.tally.runs == counted
    stopped = body(paul.get(url + "/simulations", headers=HTMX))  # the panel's next ask
    assert stopped.select_one(".simulation-result[data-status=cancelled]") is not None
    assert "stopped before the end" in stopped.text
    assert stopped.select_one("form.simulation-form") is not None  # another may start
    assert stopped.select_one("[hx-trigger]") is None  # and it asks no more
    assert arena["registry"].running() == 0


def test_nothing_to_simulate_is_said_by_the_form(arena, db, web):
    mia, url = arena["people"]["mia"], arena["url"]
    refused = body(mia.post(url + "/simulations", {"runs": "0"}, headers=HTMX))
    assert "Choose from 1 to 2000 runs." in refused.select_one(".simulation-error").text
    tables.apply_action(db=db, secret="test-secret", access=arena["access"]["mia"],
                        match_id=arena["match"], action={"kind": "end_fight", "both_stop": "on"},
                        expected_seq=None, dice=SeededDice(1))
    refused = body(mia.post(url + "/simulations", {"runs": "20"}, headers=HTMX))
    assert "nothing to simulate" in refused.select_one(".simulation-error").text


# — the API ——————————————————————————————————————————————————————————————————————————

@pytest.fixture
def duel(db, api, app):
    people = {name: api(name) for name in ("mia", "paul", "pia")}
    ids, campaign, gros, zet = grosbaf_against_zetzet(db, people)
    db.commit()
    access = campaign_access(db, ids, campaign.id)
    match = tables.create_match(db=db, secret="test-secret", access=access["mia"],
                                name="Duel", character_ids=[gros.id, zet.id],
                                dice=ScriptedDice([]))
    return {"people": people, "path": f"/campaigns/{campaign.id}/matches/{match.id}"
            "/simulations", "registry": app.state.simulations, "match": match.id,
            "ids": ids}


def test_the_api_starts_reads_and_stops_a_simulation(duel):
    paul, pia, path = duel["people"]["paul"], duel["people"]["pia"], duel["path"]
    assert paul.get(path).json() == {"simulation": None}
    started = paul.post(path, json={"runs": 12, "seed": 5})
    assert started.status_code == 202, started.text
    first = started.json()
    assert (first["status"], first["runs"], first["seed"], first["whole_state"]) == (
        "running", 12, 5, False)
    done = wait_for(lambda: (found := paul.get(path).json()["simulation"])["status"] == "done"
                    and found, "the simulation's end")
    assert done["id"] == first["id"] and done["done"] == 12
    victory = done["sections"][0]
    assert victory["key"] == "victory" and victory["title"] == "Who wins"
    assert sum(line["count"] for line in victory["lines"]) == 12
    for line in victory["lines"]:
        if line["count"]:
            assert line["quote"] == round(12 / line["count"], 2)
    assert done["per_second"] > 0 and 0 < done["margin"] <= 30
    # the same seed plays the same fights again
    again = paul.post(path, json={"runs": 12, "seed": 5}).json()
    assert again["id"] != first["id"]
    repeat = wait_for(lambda: (found := paul.get(path).json()["simulation"])["status"] == "done"
                      and found, "the second simulation")
    assert [line["count"] for line in repeat["sections"][0]["lines"]] == \
        [line["count"] for line in victory["lines"]]
    # only its asker sees it
    assert pia.get(path).json() == {"simulation": None}
    assert pia.delete(path).status_code == 409
    stopped = paul.delete(path)
    assert stopped.status_code == 200 and stopped.json()["status"] == "done"  # already over


def test_the_api_refuses_what_cannot_be_simulated(duel):
    paul, path = duel["people"]["paul"], duel["path"]
    assert paul.post(path, json={"runs": 0}).status_code == 422
    assert paul.post(path, json={"runs": 2001}).status_code == 422
    assert paul.post(path, json={"runs": True}).status_code == 422
    assert paul.post(path.replace("/simulations", "0/simulations"),
                     json={"runs": 5}).status_code == 404


def test_a_players_simulation_starts_from_their_view_only(db, api, app):
    """Mecha-Ring: the position handed to the processes holds the other players' hands and
    the piles as counts (``match.view``); the GM's holds the cards."""
    from app.rules.mecha_ring.sheet import blank_sheet

    people = {name: api(name) for name in ("mia", "paul", "pia")}
    ids = user_ids(db, people)
    campaign = campaign_with_players(db, ids["mia"], [ids["paul"], ids["pia"]], name="Ring",
                                     system="mecha_ring")
    robots = [Character(campaign_id=campaign.id, owner_id=ids[name], name=f"Robot de {name}",
                        sheet=blank_sheet()) for name in ("paul", "pia")]
    db.add_all(robots)
    db.commit()
    access = campaign_access(db, ids, campaign.id)
    match = tables.create_match(db=db, secret="test-secret", access=access["mia"],
                                name="Tournoi", character_ids=[r.id for r in robots],
                                dice=SeededDice(2))
    path = f"/campaigns/{campaign.id}/matches/{match.id}/simulations"
    registry: simulations.Simulations = app.state.simulations
    assert people["paul"].post(path, json={"runs": 1, "seed": 1}).status_code == 202
    theirs = registry.latest(ids["paul"], match.id)
    other = next(tid for tid, seat in theirs.state["tokens"].items()
                 if seat["owner_id"] == ids["pia"])
    mine = next(tid for tid in theirs.state["tokens"] if tid != other)
    assert isinstance(theirs.state["tokens"][other]["hand"], int)
    assert isinstance(theirs.state["tokens"][mine]["hand"], list)
    assert isinstance(theirs.state["piles"]["parts"], int)
    assert people["mia"].post(path, json={"runs": 1, "seed": 1}).status_code == 202
    gms = registry.latest(ids["mia"], match.id)
    assert gms.whole_state and isinstance(gms.state["tokens"][other]["hand"], list)
    for sim in (theirs, gms):
        wait_for(lambda sim=sim: not sim.running, "the tournament")
        assert sim.status == "done", sim.error
