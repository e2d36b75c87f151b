"""Backups: a consistent copy while the server writes, the admin button, safe downloads.

Backups are a SQLite feature (PostgreSQL is backed up with pg_dump, tested at the end), so
this module always runs on a SQLite file, even when the suite runs against PostgreSQL.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from app.config import Settings
from app.db import make_engine
from app.errors import NotFound
from app.models import Base
from app.services.backup import BackupUnsupported, backup_database, find_backup
from tests.helpers import soup


@pytest.fixture
def database_url(tmp_path: Path) -> str:
    path = tmp_path / "tablee.db"
    engine = make_engine(f"sqlite:///{path}")
    Base.metadata.create_all(engine)
    engine.dispose()
    return f"sqlite:///{path}"


def _db_file(settings: Settings) -> Path:
    return Path(settings.resolved_database_url.removeprefix("sqlite:///"))


def _check_copy(path: str | Path) -> sqlite3.Connection:
    copy = sqlite3.connect(path)
    assert copy.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    return copy


def test_backup_while_another_connection_holds_a_write_transaction(settings, api):
    for name in ("alice", "bob", "carol"):
        api(name)
    writer = sqlite3.connect(_db_file(settings), isolation_level=None, timeout=1)
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("UPDATE users SET display_name = 'half-written' WHERE username = 'alice'")
    writer.execute("INSERT INTO attempts (key, at) VALUES ('uncommitted', '2026-01-01')")
    try:
        path = backup_database(settings)
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert Path(path).parent == settings.data_dir / "backups"
    copy = _check_copy(path)
    assert copy.execute("SELECT count(*) FROM users").fetchone() == (3,)
    assert copy.execute("SELECT display_name FROM users WHERE username = 'alice'"
                        ).fetchone() == ("alice",)
    assert copy.execute("SELECT count(*) FROM attempts WHERE key = 'uncommitted'"
                        ).fetchone() == (0,)
    # a standalone file: no WAL companion is needed to read it
    assert copy.execute("PRAGMA journal_mode").fetchone() == ("delete",)
    copy.close()


def test_backup_keeps_committed_rows_written_through_wal(settings, api):
    api("alice")
    # The server's engine writes in WAL mode: the last commit may live in the -wal file.
    assert Path(str(_db_file(settings)) + "-wal").exists()
    copy = _check_copy(backup_database(settings))
    assert copy.execute("SELECT username FROM users").fetchall() == [("alice",)]
    copy.close()


def test_two_backups_in_the_same_second_are_both_kept(settings):
    first, second = backup_database(settings), backup_database(settings)
    assert first != second and Path(first).exists() and Path(second).exists()


def test_make_backup_command_writes_to_the_target(settings, tmp_path, monkeypatch, capsys):
    from app.__main__ import main

    monkeypatch.setenv("TABLEE_DATABASE_URL", settings.resolved_database_url)
    monkeypatch.setenv("TABLEE_DATA_DIR", str(settings.data_dir))
    target = tmp_path / "elsewhere" / "copy.db"
    assert main(["backup", "--target", str(target)]) == 0
    assert capsys.readouterr().out.strip() == str(target)
    _check_copy(target).close()


def test_postgresql_is_told_to_use_pg_dump_without_leaking_the_password(tmp_path):
    settings = Settings(data_dir=tmp_path,
                        database_url="postgresql+psycopg://tablee:s3cret@db.local:5433/tablee")
    with pytest.raises(BackupUnsupported) as raised:
        backup_database(settings)
    message = str(raised.value.message)
    assert "pg_dump --format=custom" in message
    assert "postgresql://tablee@db.local:5433/tablee" in message
    assert "s3cret" not in message and "psycopg" not in message


def test_admin_backs_up_from_the_page_and_downloads_the_file(web):
    admin = web("root")
    response = admin.post("/admin/backup", csrf_path="/admin", follow_redirects=True)
    assert response.status_code == 200
    link = soup(response).select_one("#new-backup a")
    name = link["href"].rsplit("/", 1)[-1]
    assert name.startswith("tablee-") and name.endswith(".db")
    listed = [a.text for a in soup(response).select("table.backups a")]
    assert listed == [name]
    download = admin.get(link["href"])
    assert download.status_code == 200
    assert download.headers["content-disposition"] == f'attachment; filename="{name}"'
    assert download.content.startswith(b"SQLite format 3\x00")


def test_api_backup_answers_path_and_size(api):
    admin = api("root")
    response = admin.post("/admin/backups")
    assert response.status_code == 201
    body = response.json()
    assert Path(body["path"]).stat().st_size == body["size"] > 0
    listing = admin.get("/admin/backups").json()
    assert [item["name"] for item in listing] == [Path(body["path"]).name]


@pytest.mark.parametrize("name", [
    "../tablee.db", "..%2Ftablee.db", "%2E%2E%2Fsecret_key", "..%5Csecret_key", "secret_key",
    "tablee.db", "tablee-20260101-000000.db.partial", "tablee-20260101-000000.DB",
    "tablee-20260101-000000.db%00", "tablee-20260101-000001.db",
])
def test_download_accepts_only_listed_backup_names(web, settings, name):
    admin = web("root")
    backups = settings.data_dir / "backups"
    backups.mkdir(parents=True)
    (backups / "tablee-20260101-000000.db.partial").write_text("not finished")
    (settings.data_dir / "secret_key").write_text("do not serve me")
    # a link that has a backup's name but points elsewhere is not a backup
    (backups / "tablee-20260101-000001.db").symlink_to(settings.data_dir / "secret_key")
    response = admin.get(f"/admin/backups/{name}", follow_redirects=False)
    assert response.status_code == 404
    assert b"do not serve me" not in response.content


def test_a_name_that_looks_right_but_is_not_in_the_folder_is_not_found(web):
    admin = web("root")
    assert admin.get("/admin/backups/tablee-20260101-000000.db").status_code == 404


@pytest.mark.parametrize("name", ["..", ".", "../secret_key", "/etc/passwd",
                                  "backups/../secret_key", ""])
def test_find_backup_never_resolves_a_path(settings, name):
    backup_database(settings)
    with pytest.raises(NotFound):
        find_backup(settings, name)


def test_only_the_admin_backs_up_or_downloads(web, new_client, settings):
    admin = web("root")
    player = web("player")
    name = Path(backup_database(settings)).name
    assert player.post("/admin/backup", csrf_path="/account").status_code == 403
    assert player.get(f"/admin/backups/{name}").status_code == 403
    anonymous = new_client().get(f"/admin/backups/{name}", follow_redirects=False)
    assert anonymous.status_code == 303
    assert anonymous.headers["location"].startswith("/login")
    assert admin.get(f"/admin/backups/{name}").status_code == 200
    assert sorted(path.name for path in (settings.data_dir / "backups").iterdir()) == [name]
