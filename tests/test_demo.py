"""The demo seeding: accounts and one ready campaign per system, created once."""

from __future__ import annotations

from sqlalchemy import func, select

from app.models import Base, Campaign, Character, Match, MatchEvent, Membership, Role, User
from app.rules.registry import all_systems
from app.services import demo
from app.services.demo_matches import DEMO_MATCHES
from tests.conftest import TEST_PASSWORD


def counts(db) -> dict[str, int]:
    db.commit()
    return {table.name: db.scalar(select(func.count()).select_from(table))
            for table in Base.metadata.sorted_tables}


def test_demo_prints_the_logins_and_a_second_run_changes_nothing(settings, db):
    first = demo.ensure_demo(settings)
    after_first = counts(db)
    second = demo.ensure_demo(settings)
    assert counts(db) == after_first
    logins = [f"Compte MJ : {demo.GM_USERNAME} / {demo.DEMO_PASSWORD}",
              f"Compte joueuse : alice / {demo.DEMO_PASSWORD}",
              f"Compte joueur : bruno / {demo.DEMO_PASSWORD}"]
    assert first[:3] == logins and second[:3] == logins
    assert [line for line in first if line.startswith("Campagne de démo créée")] == [
        f"Campagne de démo créée : Démo — {system.name_fr}" for system in all_systems()]
    assert not [line for line in second if line.startswith("Campagne de démo créée")]
    assert after_first["campaigns"] == len(all_systems())


def test_one_campaign_per_system_with_valid_characters_dealt_to_the_players(settings, db):
    demo.ensure_demo(settings)
    db.commit()
    users = {u.username: u for u in db.scalars(select(User))}
    assert users[demo.GM_USERNAME].is_admin  # the first account on a fresh instance
    for system in all_systems():
        campaign = db.scalar(select(Campaign).where(Campaign.system == system.key))
        assert campaign.name == f"Démo — {system.name_fr}"
        roles = {m.user.username: m.role for m in db.scalars(
            select(Membership).where(Membership.campaign_id == campaign.id))}
        assert roles == {demo.GM_USERNAME: Role.GM, "alice": Role.PLAYER, "bruno": Role.PLAYER}
        stored = {c.name: c for c in db.scalars(
            select(Character).where(Character.campaign_id == campaign.id))}
        expected = system.demo_characters()
        assert sorted(stored) == sorted(c.name for c in expected)
        for ready in expected:
            character = stored[ready.name]
            assert system.validate_sheet(character.sheet) == []
            assert character.sheet == ready.sheet
            owner = None if ready.player is None else ("alice", "bruno")[ready.player % 2]
            assert (character.owner.username if character.owner else None) == owner


def test_demo_players_can_log_in(settings, new_client):
    demo.ensure_demo(settings)
    client = new_client()
    for username in (demo.GM_USERNAME, "alice", "bruno"):
        response = client.post("/api/v1/auth/login", json={"username": username,
                                                            "password": demo.DEMO_PASSWORD})
        assert response.status_code == 200, username


def test_a_changed_password_is_not_printed(settings, new_client):
    demo.ensure_demo(settings)
    client = new_client()
    login = client.post("/api/v1/auth/login",
                        json={"username": "alice", "password": demo.DEMO_PASSWORD})
    changed = client.post("/api/v1/me/password",
                          headers={"Authorization": f"Bearer {login.json()['token']}"},
                          json={"current_password": demo.DEMO_PASSWORD,
                                "new_password": TEST_PASSWORD})
    assert changed.status_code == 200
    lines = demo.ensure_demo(settings)
    assert "Compte joueuse : alice (mot de passe déjà changé)" in lines
    assert not any("alice / " in line for line in lines)


def test_demo_after_someone_registered_first_does_not_make_the_gm_admin(settings, api, db):
    api("founder")
    demo.ensure_demo(settings)
    db.commit()
    admins = db.scalars(select(User.username).where(User.is_admin)).all()
    assert admins == ["founder"]


def test_a_gm_who_renamed_the_demo_characters_is_not_overruled_by_a_restart(settings, db):
    demo.ensure_demo(settings)
    db.commit()
    campaign = db.scalar(select(Campaign).order_by(Campaign.id))
    for character in db.scalars(select(Character).where(Character.campaign_id == campaign.id)):
        character.name = f"{character.name} (renommé)"
    db.commit()
    before = counts(db)
    demo.ensure_demo(settings)
    assert counts(db) == before


def test_a_demo_campaign_opens_on_its_match_with_every_step_played(settings, db, caplog):
    demo.ensure_demo(settings)
    db.commit()
    assert not [r for r in caplog.records if "refused" in r.getMessage()]
    users = {u.username: u.id for u in db.scalars(select(User))}
    step_users = [users[demo.GM_USERNAME], users["alice"], users["bruno"]]
    def plan_of(system):
        return getattr(system, "demo_match", None) or DEMO_MATCHES.get(system.key)

    with_demo_match = [s for s in all_systems() if plan_of(s)]
    # Every demo campaign of these games opens on a living table (issue 10).
    assert {"libre", "mutatior", "cyborg"} <= {s.key for s in with_demo_match}
    for system in with_demo_match:
        campaign = db.scalar(select(Campaign).where(Campaign.system == system.key))
        ids = {c.name: c.id for c in db.scalars(
            select(Character).where(Character.campaign_id == campaign.id))}
        plan = plan_of(system)(ids)
        match = db.scalar(select(Match).where(Match.campaign_id == campaign.id))
        assert match.name == plan.name and match.status == "running"
        events = list(db.scalars(select(MatchEvent).where(MatchEvent.match_id == match.id)
                                 .order_by(MatchEvent.seq)))
        # The last step's events close the log, by the step's own member.
        last = plan.steps[-1]
        assert events[-1].actor_id == step_users[0 if last.by is None else 1 + last.by % 2]
        assert len(events) > len(plan.steps)


def test_the_demo_opens_its_match_once(settings, db):
    demo.ensure_demo(settings)
    demo.ensure_demo(settings)
    db.commit()
    campaign = db.scalar(select(Campaign).where(Campaign.system == "libre"))
    assert len(list(db.scalars(select(Match).where(Match.campaign_id == campaign.id)))) == 1
