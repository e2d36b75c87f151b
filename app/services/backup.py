"""Backups: a consistent copy of the database, taken while the server keeps running.

SQLite: the online backup API (``sqlite3.Connection.backup``) copies every page under one
read lock, so the copy holds exactly the committed data at that moment, whatever other
connections are writing (WAL lets them carry on). PostgreSQL: ``pg_dump`` does the same job
better than anything we could write, so we say how to call it instead.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy.engine import URL, make_url

from app.config import Settings
from app.errors import AppError, NotFound
from app.i18n import lazy_gettext as _l

BACKUP_DIR_NAME = "backups"
# Only names we wrote ourselves can be downloaded; nothing else in the folder, ever.
BACKUP_NAME_RE = re.compile(r"^tablee-\d{8}-\d{6}(-\d{1,3})?\.db$")


class BackupUnsupported(AppError):
    """The database is not a SQLite file: back it up with the database's own tool."""

    status = 409
    code = "use_pg_dump"


@dataclass(frozen=True)
class BackupFile:
    name: str
    path: Path
    size: int
    created_at: datetime


def backup_dir(settings: Settings) -> Path:
    return settings.data_dir / BACKUP_DIR_NAME


def backup_database(settings: Settings, target: str | Path | None = None) -> str:
    """Write a consistent copy of the SQLite database and return its path.

    ``target`` defaults to ``<data_dir>/backups/tablee-YYYYmmdd-HHMMSS.db``. The copy is
    written beside its final name and renamed at the end, so a half-written file never
    carries a backup's name.
    """
    source = sqlite_path(settings)
    destination = Path(target) if target else _new_backup_path(backup_dir(settings))
    destination.parent.mkdir(parents=True, exist_ok=True)
    partial = destination.with_name(destination.name + ".partial")
    partial.unlink(missing_ok=True)
    src = sqlite3.connect(source, timeout=10)
    dst = sqlite3.connect(partial)
    try:
        src.backup(dst)
        # A standalone file: no -wal/-shm companions needed to read it back.
        dst.execute("PRAGMA journal_mode=DELETE")
    finally:
        dst.close()
        src.close()
    partial.replace(destination)
    return str(destination)


def sqlite_path(settings: Settings) -> Path:
    """The database file, or ``BackupUnsupported`` with the right command for PostgreSQL."""
    url = make_url(settings.resolved_database_url)
    if url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:"):
        path = Path(url.database)
        if not path.is_file():  # connecting would create an empty database there
            raise NotFound(_l("There is no database file at %(path)s.", path=str(path)))
        return path
    if url.get_backend_name() == "postgresql":
        raise BackupUnsupported(
            _l("This instance runs on PostgreSQL: back it up with pg_dump, for example "
               "%(command)s (restore with pg_restore).", command=pg_dump_command(settings)))
    raise BackupUnsupported(_l("Only a SQLite database file can be backed up from Tablée."))


def pg_dump_command(settings: Settings) -> str:
    """The ``pg_dump`` line for this instance; the password stays out (use PGPASSWORD)."""
    source = make_url(settings.resolved_database_url)
    url = URL.create("postgresql", username=source.username, host=source.host,
                     port=source.port, database=source.database, query=source.query)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    target = backup_dir(settings) / f"tablee-{stamp}.dump"
    conninfo = url.render_as_string(hide_password=False)
    return f"pg_dump --format=custom --file={target} '{conninfo}'"


def _new_backup_path(folder: Path) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    candidate = folder / f"tablee-{stamp}.db"
    counter = 1
    while candidate.exists():  # two backups in the same second keep both
        candidate = folder / f"tablee-{stamp}-{counter}.db"
        counter += 1
    return candidate


def list_backups(settings: Settings) -> list[BackupFile]:
    """The backups in the folder, newest first (only files with our own naming)."""
    folder = backup_dir(settings)
    if not folder.is_dir():
        return []
    files = []
    for entry in folder.iterdir():
        if BACKUP_NAME_RE.match(entry.name) and entry.is_file() and not entry.is_symlink():
            stat = entry.stat()
            files.append(BackupFile(name=entry.name, path=entry, size=stat.st_size,
                                    created_at=datetime.fromtimestamp(stat.st_mtime, UTC)))
    return sorted(files, key=lambda backup: backup.name, reverse=True)


def find_backup(settings: Settings, name: str) -> BackupFile:
    """The backup called exactly ``name``, looked up in the folder listing (never a path)."""
    if not BACKUP_NAME_RE.match(name):
        raise NotFound()
    for backup in list_backups(settings):
        if backup.name == name:
            return backup
    raise NotFound()
