"""Alembic environment for Interlock's tables.

Alembic is configured in code by :mod:`interlock.storage.migrate`; there is no ``alembic.ini``.
That module hands over either an open connection (``config.attributes["connection"]``) or a
database URL (``config.attributes["database_url"]``). The target metadata is
``SQLModel.metadata`` with every table of :mod:`interlock.storage.models` registered.

SQLite runs in batch mode (``render_as_batch``) so that later ``ALTER TABLE`` steps work there
too; sqlmodel's own column types are written into new revisions as plain SQLAlchemy types, so a
revision never imports sqlmodel.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy.engine import Connection
from sqlmodel import SQLModel

import interlock.storage.models  # noqa: F401  (registers every table on SQLModel.metadata)
from interlock.storage.db import Database
from interlock.storage.migrate import render_item

target_metadata = SQLModel.metadata


def _configure(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
        render_item=render_item,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_offline() -> None:
    """Write the SQL to standard output instead of running it (``--sql`` mode)."""
    url = context.config.attributes.get("database_url") or context.config.get_main_option(
        "sqlalchemy.url"
    )
    context.configure(
        url=url,
        target_metadata=target_metadata,
        literal_binds=True,
        render_as_batch=str(url).startswith("sqlite"),
        render_item=render_item,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    """Run the migrations on the given connection, or on a new one to the given URL."""
    connection: Connection | None = context.config.attributes.get("connection")
    if connection is not None:
        _configure(connection)
        return
    url = context.config.attributes.get("database_url") or context.config.get_main_option(
        "sqlalchemy.url"
    )
    if not url:
        raise RuntimeError("No database: pass a connection or a database URL to Alembic")
    database = Database(url)
    try:
        with database.engine.connect() as new_connection:
            _configure(new_connection)
            new_connection.commit()
    finally:
        database.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
