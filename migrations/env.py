"""Alembic environment: the URL comes from Tablée's settings unless the caller passes one."""

from alembic import context

from app.config import Settings
from app.db import make_engine
from app.models import Base, UTCDateTime

config = context.config
target_metadata = Base.metadata


def render_item(type_, obj, autogen_context):
    """Write our UTCDateTime as the plain ``sa.DateTime(timezone=True)`` it stores."""
    if type_ == "type" and isinstance(obj, UTCDateTime):
        return "sa.DateTime(timezone=True)"
    return False


def database_url() -> str:
    return config.attributes.get("url") or Settings().resolved_database_url


def run_migrations_offline() -> None:
    url = database_url()
    context.configure(url=url, target_metadata=target_metadata, literal_binds=True,
                      render_as_batch=url.startswith("sqlite"))
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is None:
        engine = make_engine(database_url())
        with engine.connect() as connection:
            _run(connection)
        engine.dispose()
    else:
        _run(connection)


def _run(connection) -> None:
    context.configure(connection=connection, target_metadata=target_metadata,
                      render_as_batch=connection.dialect.name == "sqlite",
                      compare_type=True, render_item=render_item)
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
