"""Engine and sessions.

SQLite gets WAL, foreign keys and a busy timeout on every connection, and Python's
implicit transactions are switched off so that writes can open with ``BEGIN IMMEDIATE``:
a write transaction takes the lock up front instead of failing with "database is locked"
when a reader later tries to upgrade (see ``write_transaction``).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker

SQLITE_BUSY_TIMEOUT_MS = 10_000


def make_engine(url: str) -> Engine:
    # As many connections as the thread pool has threads (anyio's default: 40), so a busy
    # worker queues on the database's lock, never on the pool.
    if url.startswith("sqlite"):
        in_memory = url in ("sqlite://", "sqlite:///:memory:")
        pool = {} if in_memory else {"pool_size": 10, "max_overflow": 30}
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 10},
                               **pool)
        _configure_sqlite(engine)
        return engine
    return create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=30)


def _configure_sqlite(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record) -> None:
        dbapi_connection.isolation_level = None  # we emit BEGIN ourselves
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection) -> None:
        mode = connection.get_execution_options().get("sqlite_begin", "DEFERRED")
        connection.exec_driver_sql(f"BEGIN {mode}")


def make_sessionmaker(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)


@contextmanager
def write_transaction(session: Session) -> Iterator[Session]:
    """One write transaction: all of it commits, or none of it does.

    A read transaction the request may have opened is closed first, so the write starts
    from fresh data under the write lock (``BEGIN IMMEDIATE`` on SQLite; the option is
    ignored elsewhere).
    """
    if session.in_transaction():
        session.rollback()
    session.connection(execution_options={"sqlite_begin": "IMMEDIATE"})
    try:
        yield session
        session.commit()
    except BaseException:
        session.rollback()
        raise
