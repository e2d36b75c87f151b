"""Invitations: the GM makes a link; someone registers or logs in through it and joins."""

from __future__ import annotations

import threading
from datetime import timedelta

from sqlalchemy import select, update

from app.models import Invite, Membership, Role, utcnow
from tests.conftest import TEST_PASSWORD
from tests.helpers import csrf_from, soup
from tests.test_campaigns import api_login, count, create_in_browser, invite, make_table


def make_link_in_browser(gm, campaign_id: int, **form: str) -> tuple[int, str]:
    """The GM creates a link on the invitations page; returns its id and full URL."""
    data = {"role": "player", "expires_in": "7d", "max_uses": "1", **form}
    response = gm.post(f"/campaigns/{campaign_id}/invites", data)
    assert response.status_code == 303, response.text
    invite_id = int(response.headers["location"].rsplit("#invite-", 1)[1])
    item = gm.page(f"/campaigns/{campaign_id}/invites").select_one(f"#invite-{invite_id}")
    return invite_id, item.select_one(f"input#invite-link-{invite_id}")["value"]


def test_a_newcomer_registers_through_the_link_and_joins_with_its_role(web, new_client, db):
    gina = web("gina")
    campaign_id = create_in_browser(gina, name="Les Ombres")
    invite_id, link = make_link_in_browser(gina, campaign_id, role="spectator")
    item = gina.page(f"/campaigns/{campaign_id}/invites").select_one(f"#invite-{invite_id}")
    assert item.select_one("button[data-copy]")["data-copy"] == f"#invite-link-{invite_id}"
    assert item.select_one(".badge.status.active") and item.select_one(".badge.role.spectator")
    assert link.startswith("http://testserver/invite/")
    path = link.removeprefix("http://testserver")

    visitor = new_client()
    page = soup(visitor.get(path))
    assert page.select_one("main h1").text.endswith("Les Ombres")
    assert page.select_one(".invitation .badge.role.spectator")
    hrefs = {a["href"] for a in page.select(".invitation a")}
    assert {f"/login?next={path}", f"/register?next={path}"} <= hrefs
    assert not page.select_one("form.join")

    register = visitor.get(f"/register?next={path}")
    response = visitor.post("/register", data={
        "username": "nina", "password": TEST_PASSWORD, "display_name": "Nina",
        "next": path, "csrf_token": csrf_from(register)}, follow_redirects=False)
    assert response.headers["location"] == path
    page = soup(visitor.get(path))
    join = visitor.post(path, data={"csrf_token": csrf_from(visitor.get(path))},
                        follow_redirects=False)
    assert page.select_one("form.join") and join.status_code == 303
    assert join.headers["location"] == f"/campaigns/{campaign_id}"
    names = [td.text for td in soup(visitor.get(join.headers["location"]))
             .select(".member-name")]
    assert names == ["Gina", "Nina"]
    db.commit()
    assert db.get(Invite, invite_id).uses == 1
    membership = db.scalar(select(Membership).where(Membership.campaign_id == campaign_id,
                                                    Membership.role == Role.SPECTATOR))
    assert membership.user.username == "nina"


def test_an_existing_user_logs_in_through_the_link(web, new_client):
    gina, paul = web("gina"), web("paul")
    campaign_id = create_in_browser(gina)
    _, link = make_link_in_browser(gina, campaign_id)
    path = link.removeprefix("http://testserver")
    visitor = new_client()
    response = visitor.post("/login", data={
        "username": "paul", "password": TEST_PASSWORD, "next": path,
        "csrf_token": csrf_from(visitor.get(f"/login?next={path}"))}, follow_redirects=False)
    assert response.headers["location"] == path
    join = visitor.post(path, data={"csrf_token": csrf_from(visitor.get(path))},
                        follow_redirects=False)
    assert join.headers["location"] == f"/campaigns/{campaign_id}"
    assert paul.get(f"/campaigns/{campaign_id}").status_code == 200


def test_a_single_use_link_works_once(web, new_client, db):
    table = make_table(web, new_client)
    gm = table.api["gm"]
    link = invite(gm, table.campaign_id, "player", max_uses=1)
    first = api_login(new_client, "olga").post(f"/invites/{link['token']}/accept")
    assert first.status_code == 200 and first.json()["role"] == "player"
    latecomer = web("lucie")
    page_response = latecomer.get(link["path"])
    assert page_response.status_code == 410
    assert soup(page_response).select_one(".gone")
    refused = api_login(new_client, "lucie").post(f"/invites/{link['token']}/accept")
    assert refused.status_code == 410 and refused.json()["error"]["code"] == "invite_used_up"
    assert latecomer.post(link["path"], csrf_path=link["path"]).status_code == 410
    assert count(db, Membership) == 4
    assert db.get(Invite, link["id"]).uses == 1
    statuses = {i["id"]: i["status"] for i in gm.get(f"{table.url}/invites").json()}
    assert statuses[link["id"]] == "used_up"


def test_two_people_racing_for_a_single_use_link_cannot_both_get_in(api, db):
    gina = api("gina")
    campaign = gina.post("/campaigns", json={"name": "Course", "system": "libre"}).json()
    link = invite(gina, campaign["id"], "player", max_uses=1)
    racers = [api(name) for name in ("ana", "bob", "cyd", "dan")]
    start = threading.Barrier(len(racers))
    answers: list[int] = []

    def accept(person) -> None:
        start.wait()
        answers.append(person.post(f"/invites/{link['token']}/accept").status_code)

    threads = [threading.Thread(target=accept, args=(person,)) for person in racers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(answers) == [200, 410, 410, 410]
    assert count(db, Membership) == 2
    assert db.get(Invite, link["id"]).uses == 1


def test_a_multi_use_link_lets_several_people_in_up_to_its_limit(web, api, db):
    gina = api("gina")
    campaign = gina.post("/campaigns", json={"name": "Ouverte", "system": "libre"}).json()
    unlimited = invite(gina, campaign["id"], "spectator", max_uses=None, expires_in="1h")
    limited = invite(gina, campaign["id"], "player", max_uses=2)
    people = [api(name) for name in ("ana", "bob", "cyd")]
    for person in people:
        assert person.post(f"/invites/{unlimited['token']}/accept").status_code == 200
    others = [api(name) for name in ("dan", "eve", "fay")]
    answers = [p.post(f"/invites/{limited['token']}/accept").status_code for p in others]
    assert answers == [200, 200, 410]
    db.commit()
    assert db.get(Invite, unlimited["id"]).uses == 3
    assert db.get(Invite, limited["id"]).uses == 2
    assert count(db, Membership) == 6


def test_an_expired_link_is_gone_and_changes_nothing(web, new_client, db):
    table = make_table(web, new_client)
    link = invite(table.api["gm"], table.campaign_id, "player")
    db.execute(update(Invite).where(Invite.id == link["id"])
               .values(expires_at=utcnow() - timedelta(seconds=1)))
    db.commit()
    olga_web, olga = table.web["outsider"], table.api["outsider"]
    page = olga_web.get(link["path"])
    assert page.status_code == 410 and soup(page).select_one(".gone")
    assert not soup(page).select_one("form.join")
    preview = olga.get(f"/invites/{link['token']}")
    assert preview.status_code == 410 and preview.json()["error"]["code"] == "invite_expired"
    assert olga.post(f"/invites/{link['token']}/accept").status_code == 410
    assert olga_web.post(link["path"], csrf_path=link["path"]).status_code == 410
    assert count(db, Membership) == 3
    assert db.get(Invite, link["id"]).uses == 0


def test_a_revoked_link_is_gone(web, new_client, db):
    table = make_table(web, new_client)
    gm = table.web["gm"]
    in_browser, link = make_link_in_browser(gm, table.campaign_id)
    by_api = invite(table.api["gm"], table.campaign_id, "spectator")
    assert gm.post(f"{table.url}/invites/{in_browser}/revoke").status_code == 303
    assert table.api["gm"].delete(f"{table.url}/invites/{by_api['id']}").status_code == 204
    page = gm.page(f"{table.url}/invites")
    for invite_id in (in_browser, by_api["id"]):
        item = page.select_one(f"#invite-{invite_id}")
        assert item.select_one(".badge.status.revoked") and not item.select_one("form.revoke")
    olga = table.api["outsider"]
    for token in (link.rsplit("/", 1)[1], by_api["token"]):
        answer = olga.post(f"/invites/{token}/accept")
        assert answer.status_code == 410 and answer.json()["error"]["code"] == "invite_revoked"
    assert count(db, Membership) == 3


def test_a_member_following_a_link_keeps_their_role(web, new_client, db):
    table = make_table(web, new_client)
    link = invite(table.api["gm"], table.campaign_id, "spectator", max_uses=1)
    page = table.web["player"].page(link["path"])
    assert page.select_one(".already-member .badge.role.player")
    response = table.web["player"].post(link["path"], csrf_path=link["path"])
    assert response.status_code == 303 and response.headers["location"] == table.url
    answer = table.api["gm"].post(f"/invites/{link['token']}/accept")
    assert answer.json() == {"campaign_id": table.campaign_id,
                             "membership_id": table.membership["gm"], "role": "gm",
                             "already_member": True}
    db.commit()
    assert db.get(Invite, link["id"]).uses == 0
    assert db.get(Membership, table.membership["player"]).role is Role.PLAYER


def test_an_unknown_link_is_404(web, api):
    olga_web, olga = web("olga"), api("olga2")
    for token in ("nope", "x" * 32):
        assert olga_web.get(f"/invite/{token}").status_code == 404
        assert olga.get(f"/invites/{token}").status_code == 404
        assert olga.post(f"/invites/{token}/accept").status_code == 404
    assert olga.get(f"/invites/{'x' * 65}").status_code == 422  # over the API's limit
    assert olga_web.get(f"/invite/{'x' * 65}").status_code == 404


def test_the_api_preview_needs_no_login(web, new_client):
    table = make_table(web, new_client)
    link = invite(table.api["gm"], table.campaign_id, "spectator", expires_in="30d")
    preview = table.anonymous.get(f"/api/v1/invites/{link['token']}")
    assert preview.status_code == 200
    body = preview.json()
    assert (body["campaign_name"], body["role"], body["already_member"]) == (
        "Les Ombres", "spectator", False)
    assert table.anonymous.post(f"/api/v1/invites/{link['token']}/accept").status_code == 401


def test_bad_invite_input_is_refused_and_nothing_is_created(web, new_client, db):
    table = make_table(web, new_client)
    before = count(db, Invite)
    gm, gm_api = table.web["gm"], table.api["gm"]
    for form, field in (({"role": "gm"}, "role"), ({"expires_in": "2y"}, "expires_in"),
                        ({"max_uses": "0"}, "max_uses"), ({"max_uses": "5000"}, "max_uses"),
                        ({"max_uses": "deux"}, "max_uses")):
        data = {"role": "player", "expires_in": "1d", "max_uses": "1", **form}
        response = gm.post(f"{table.url}/invites", data)
        assert response.status_code == 422, form
        page = soup(response)
        assert page.select_one(f".has-error #field-{field}"), form
    for body in ({"role": "gm"}, {"expires_in": "2y"}, {"max_uses": 0}, {"max_uses": "many"},
                 {"token": "chosen"}):
        assert gm_api.post(f"{table.url}/invites", json=body).status_code == 422, body
    assert count(db, Invite) == before


def test_an_unlimited_link_from_the_browser_and_random_tokens(web, new_client, db):
    table = make_table(web, new_client)
    invite_id, _ = make_link_in_browser(table.web["gm"], table.campaign_id, max_uses="",
                                        expires_in="1h")
    db.commit()
    created = db.get(Invite, invite_id)
    assert created.max_uses is None
    assert timedelta(minutes=59) < created.expires_at - utcnow() <= timedelta(hours=1)
    tokens = db.scalars(select(Invite.token)).all()
    assert len(set(tokens)) == len(tokens) and all(len(t) >= 32 for t in tokens)


def test_nobody_joins_an_archived_campaign(web, new_client, db):
    table = make_table(web, new_client)
    link = invite(table.api["gm"], table.campaign_id, "player", max_uses=None)
    table.api["gm"].post(f"{table.url}/archive")
    olga_web, olga = table.web["outsider"], table.api["outsider"]
    assert soup(olga_web.get(link["path"])).select_one(".archived-notice")
    assert olga.post(f"/invites/{link['token']}/accept").status_code == 409
    assert olga_web.post(link["path"], csrf_path=link["path"]).status_code == 409
    assert count(db, Membership) == 3
