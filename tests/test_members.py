"""Members: the GM changes roles, removes people and hands the GM role over; members leave."""

from __future__ import annotations

from sqlalchemy import select

from app.models import Character, Membership, Role
from tests.helpers import soup
from tests.test_campaigns import Table, count, make_table


def roles(db, table: Table) -> dict[str, Role]:
    db.commit()  # end the read snapshot
    rows = db.execute(select(Membership.id, Membership.role)
                      .where(Membership.campaign_id == table.campaign_id)).all()
    by_id = dict(rows)
    return {who: by_id[mid] for who, mid in table.membership.items() if mid in by_id}


def test_the_gm_changes_a_players_role_in_the_browser(web, new_client, db):
    table = make_table(web, new_client)
    gm = table.web["gm"]
    page = gm.page(f"{table.url}/members")
    row = page.select_one(f"#member-{table.membership['player']}")
    assert row.select_one("form.change-role select option[selected]")["value"] == "player"
    response = gm.post(f"{table.url}/members/{table.membership['player']}/role",
                       {"role": "spectator"})
    assert response.status_code == 303
    assert roles(db, table)["player"] is Role.SPECTATOR
    page = table.web["player"].page(table.url)
    assert page.select_one("main > p .badge.role.spectator")


def test_an_unknown_role_is_refused_and_nothing_changes(web, new_client, db):
    table = make_table(web, new_client)
    target = table.membership["player"]
    response = table.web["gm"].post(f"{table.url}/members/{target}/role", {"role": "gm"})
    assert response.status_code == 422
    assert soup(response).select_one(".form-error")
    answer = table.api["gm"].patch(f"{table.url}/members/{target}", json={"role": "admin"})
    assert answer.status_code == 422
    assert roles(db, table) == {"gm": Role.GM, "player": Role.PLAYER,
                                "spectator": Role.SPECTATOR}


def test_the_gm_cannot_demote_remove_or_leave_without_handing_over(web, new_client, db):
    table = make_table(web, new_client)
    gm, gm_api, mine = table.web["gm"], table.api["gm"], table.membership["gm"]
    answers = [
        gm.post(f"{table.url}/members/{mine}/role", {"role": "player"}),
        gm.post(f"{table.url}/members/{mine}/remove"),
        gm.post(f"{table.url}/leave"),
        gm_api.patch(f"{table.url}/members/{mine}", json={"role": "spectator"}),
        gm_api.delete(f"{table.url}/members/{mine}"),
    ]
    assert [a.status_code for a in answers] == [409] * 5
    assert answers[-1].json()["error"]["code"] == "gm_role"
    assert roles(db, table)["gm"] is Role.GM


def test_a_removed_member_loses_access_and_their_characters_become_npcs(web, new_client, db):
    table = make_table(web, new_client)
    paul_id = table.api["player"].id
    db.add(Character(campaign_id=table.campaign_id, owner_id=paul_id, name="Zetzet",
                     sheet={}))
    db.commit()
    response = table.web["gm"].post(
        f"{table.url}/members/{table.membership['player']}/remove")
    assert response.status_code == 303
    assert "player" not in roles(db, table)
    character = db.scalar(select(Character).where(Character.name == "Zetzet"))
    assert character.owner_id is None and character.version == 2
    assert table.web["player"].get(table.url).status_code == 404
    assert table.api["player"].get(f"/campaigns/{table.campaign_id}").status_code == 404
    names = [td.text for td in table.web["gm"].page(table.url).select(".member-name")]
    assert names == ["Gina", "Sam"]


def test_handing_over_the_gm_role_in_the_browser(web, new_client, db):
    table = make_table(web, new_client)
    gm, url = table.web["gm"], table.url
    form = gm.page(f"{url}/members").select_one(
        f"#member-{table.membership['player']} form.hand-over")
    assert form["action"] == f"{url}/gm"
    response = gm.post(f"{url}/gm", {"membership_id": str(table.membership["player"])})
    assert response.status_code == 303 and response.headers["location"] == url
    assert roles(db, table) == {"gm": Role.PLAYER, "player": Role.GM,
                                "spectator": Role.SPECTATOR}
    # The old GM is a player now; the new one manages the campaign.
    assert gm.get(f"{url}/members").status_code == 403
    assert table.web["player"].get(f"{url}/members").status_code == 200
    badges = gm.page(url).select("table.members .badge.gm")
    assert [b.find_parent("tr").select_one(".member-name").text for b in badges] == ["Paul"]


def test_handing_over_through_the_api_keeps_exactly_one_gm(web, new_client, db):
    table = make_table(web, new_client)
    url = table.url
    refused = table.api["gm"].post(f"{url}/gm", json={"membership_id": table.membership["gm"]})
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "already_gm"
    assert table.api["gm"].post(f"{url}/gm", json={"membership_id": 999_999}).status_code == 404
    answer = table.api["gm"].post(f"{url}/gm",
                                  json={"membership_id": table.membership["spectator"]})
    assert answer.status_code == 200
    assert answer.json()["role"] == "gm" and answer.json()["username"] == "sam"
    members = table.api["spectator"].get(f"{url}/members").json()
    assert [(m["username"], m["role"]) for m in members] == [
        ("sam", "gm"), ("gina", "player"), ("paul", "player")]
    # The former GM lost the GM's rights at once.
    assert table.api["gm"].post(f"{url}/gm", json={
        "membership_id": table.membership["gm"]}).status_code == 403
    db.commit()
    assert db.scalars(select(Membership.role)
                      .where(Membership.campaign_id == table.campaign_id)).all().count(
        Role.GM) == 1


def test_members_may_leave_but_not_remove_others(web, new_client, db):
    table = make_table(web, new_client)
    url = table.url
    # A player cannot remove another member (not even a spectator).
    assert table.api["player"].delete(
        f"{url}/members/{table.membership['spectator']}").status_code == 403
    assert table.api["spectator"].delete(
        f"{url}/members/{table.membership['spectator']}").status_code == 204
    page = table.web["player"].page(url)
    assert page.select_one("form.leave")
    response = table.web["player"].post(f"{url}/leave")
    assert response.status_code == 303 and response.headers["location"] == "/campaigns?left=1"
    assert roles(db, table) == {"gm": Role.GM}
    assert count(db, Membership) == 1
    assert table.web["player"].get(url).status_code == 404


def test_the_member_list_is_for_every_member_and_orders_the_gm_first(web, new_client):
    table = make_table(web, new_client)
    members = table.api["spectator"].get(f"{table.url}/members").json()
    assert [(m["username"], m["role"]) for m in members] == [
        ("gina", "gm"), ("paul", "player"), ("sam", "spectator")]
    assert {m["id"] for m in members} == set(table.membership.values())
    page = table.web["spectator"].page(table.url)
    assert [td.text for td in page.select(".member-name")] == ["Gina", "Paul", "Sam"]
