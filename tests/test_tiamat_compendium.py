"""Tiamat's compendium (issue 10, issue 11 « All the techniques »): the whole technique list,
the arts and their trees, the weapons with the campaign's own, talents and skills, searchable
and filtered by art and type without a script."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from app.models import Campaign, User
from app.rules.tiamat.content import techniques
from app.rules.tiamat.system import TIAMAT
from app.services import content, demo
from app.services.access import load_campaign_access
from tests.helpers import soup
from tests.test_words import _login


def test_the_compendium_lists_every_technique_with_its_figures():
    sections = {section.key: section for section in TIAMAT.compendium({})}
    listed = sections["technique"].entries
    assert len(listed) == 120
    assert sum(1 for e in listed if dict(e.figures)["Type"] == "Enchaînement") == 23
    absorption = next(e for e in listed if e.name == "Absorption")
    assert dict(absorption.figures) == {
        "Martial arts": "Boxe", "Type": "Parade", "Prerequisites": "Blocage", "Weapon": "—",
        "Cost": "1 énergie", "Précision": "Endurance + 2", "Puissance": "Endurance + 2D10",
        "Location": "—", "Attributes": "—", "Combo": "—", "Steps": "—"}
    assert absorption.text_fr.startswith("Ne peut être utilisé contre les attaques à distance")
    chain = next(e for e in listed if dict(e.figures)["Steps"] != "—")
    assert " → " in dict(chain.figures)["Steps"]
    assert len(sections["art"].entries) == 9
    assert "Absorption ← Blocage" in sections["art"].entries[0].text
    assert len(sections["talent"].entries) == 20 and len(sections["skill"].entries) == 22
    pistol = next(e for e in sections["weapon"].entries if e.name == "Pistolet 9 mm")
    assert dict(pistol.figures)["Munitions"] == 15
    assert dict(pistol.figures)["Ranges (m)"] == "6 / 20 / 50"
    # Every key of the data comes out, none twice.
    assert sorted(e.name for e in listed) == sorted(
        t.name for t in techniques().values() if not t.animal)


@pytest.fixture
def tiamat_campaign(settings, app, db):
    demo.ensure_demo(settings)
    db.commit()
    campaign_id = db.scalar(select(Campaign.id).where(Campaign.system == "tiamat"))
    gm = db.scalar(select(User).where(User.username == demo.GM_USERNAME))
    content.add_item(db=db, access=load_campaign_access(db, gm, campaign_id), kind="weapon",
                     name="Nunchaku du MJ", fields={"kind": "contact", "d10": "1",
                                                    "letale": ""})
    db.commit()
    return campaign_id


def _rows(client, campaign_id: int, **params) -> dict[str, dict[str, dict[str, str]]]:
    page = soup(client.get(f"/campaigns/{campaign_id}/compendium", params=params))
    return {section["id"].removeprefix("compendium-"): {
        row.select_one(".entry-name").contents[0].strip(): {
            cell["data-label"]: cell.text for cell in row.select("td")}
        for row in section.select("tbody tr")} for section in page.select(
        ".compendium-section")}


def test_the_page_lists_every_technique_and_the_campaigns_weapon(tiamat_campaign,
                                                                   new_client):
    alice = _login(new_client, "alice", "fr")
    rows = _rows(alice, tiamat_campaign)
    assert len(rows["technique"]) == 120
    assert rows["technique"]["Makibishi"]["Arme"] == "Sac de Makibishi"
    assert rows["technique"]["Makibishi"]["Prérequis"] == "Plongeon"
    assert "Nunchaku du MJ" in rows["weapon"] and "Pistolet 9 mm" in rows["weapon"]
    page = soup(alice.get(f"/campaigns/{tiamat_campaign}/compendium"))
    own = [row for row in page.select("#compendium-weapon tbody tr.own")]
    assert [row.select_one(".entry-name").contents[0].strip() for row in own] == [
        "Nunchaku du MJ"]
    # The art and type filters are plain selects in the GET form (no script needed).
    assert page.select_one("form.compendium-search select[name=art] option[value=Ninjutsu]")
    assert page.select_one("form.compendium-search select[name=type] option[value=Esquive]")


def test_search_and_filters_keep_only_what_matches(tiamat_campaign, new_client):
    alice = _login(new_client, "alice", "fr")
    ninjutsu = _rows(alice, tiamat_campaign, art="Ninjutsu")
    assert set(ninjutsu) == {"technique"}  # a filter by art keeps the techniques only
    assert "Makibishi" in ninjutsu["technique"] and "Absorption" not in ninjutsu["technique"]
    assert all("Ninjutsu" in row["Arts martiaux"] for row in ninjutsu["technique"].values())
    dodges = _rows(alice, tiamat_campaign, art="Ninjutsu", type="Esquive")
    assert {row["Type"] for row in dodges["technique"].values()} == {"Esquive"}
    assert "Makibishi" in dodges["technique"] and len(dodges["technique"]) < len(
        ninjutsu["technique"])
    # The search ignores case and accents and looks into every section.
    found = _rows(alice, tiamat_campaign, q="MAKIBISHI")
    assert set(found["technique"]) == {"Makibishi", "Metsubushi"}  # named, or its prerequisite
    assert _rows(alice, tiamat_campaign, q="nunchaku") == {"weapon": {
        "Nunchaku du MJ": _rows(alice, tiamat_campaign)["weapon"]["Nunchaku du MJ"]}}
    # An unknown filter value is ignored rather than emptying the page.
    assert len(_rows(alice, tiamat_campaign, art="Monopoly")["technique"]) == 120
    english = _login(new_client, demo.GM_USERNAME, "en")
    assert "Makibishi" in _rows(english, tiamat_campaign, art="Ninjutsu")["technique"]
