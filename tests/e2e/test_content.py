"""The GM's custom content in the browser: a creature profile added on the campaign's content
page becomes a token at the table in one pick; a character prints without the site's menus."""

from __future__ import annotations

import uuid

import httpx
from playwright.sync_api import expect

from tests.e2e.table import act, api_user, log_in, token


def test_a_creature_profile_made_on_the_content_page_joins_a_match(new_context, live_server):
    gm_name = f"mia-{uuid.uuid4().hex[:8]}"
    with httpx.Client(base_url=live_server.url, timeout=10) as client:
        gm_auth = api_user(client, gm_name)
        campaign = client.post("/api/v1/campaigns", headers=gm_auth,
                               json={"name": "Les Brumes", "system": "libre"}).json()
        aldo = client.post(f"/api/v1/campaigns/{campaign['id']}/characters", headers=gm_auth,
                           json={"name": "Aldo", "notes": "Rôdeur du Nord"}).json()
    base = f"/campaigns/{campaign['id']}"
    gm = log_in(new_context, gm_name)

    gm.goto(base)
    gm.get_by_role("link", name="Custom content").click()
    gm.locator("details.add-item summary").click()
    gm.get_by_label("Name").fill("Gobelin des cavernes")
    gm.get_by_label("Hit points").fill("7")
    gm.get_by_label("Statuses").fill("sournois")
    gm.get_by_role("button", name="Add", exact=True).click()
    row = gm.locator("table.content-items tbody tr")
    expect(row).to_have_count(1)
    expect(row.locator("td").nth(1)).to_have_text("7")

    gm.goto(base + "/matches")
    gm.fill("#field-name", "Embuscade")
    gm.get_by_role("button", name="Start the match").click()
    act(gm, "add_token", {"profile": "gm-gobelin-des-cavernes"})
    goblin = token(gm, "t1")
    expect(goblin).to_be_visible()
    expect(gm.locator("#participant-t1 .participant-name")).to_have_text("Gobelin des cavernes")
    expect(gm.locator("#participant-t1")).to_contain_text("7")

    gm.goto(f"{base}/characters/{aldo['id']}")
    gm.locator("#print-character").click()
    sheet = gm.locator("article.printable-sheet")
    expect(sheet.locator("h1")).to_have_text("Aldo")
    expect(sheet).to_contain_text("Rôdeur du Nord")
    gm.emulate_media(media="print")
    expect(gm.locator(".site-header")).to_be_hidden()
