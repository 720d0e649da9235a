"""What the ``interlock`` command groups share: an error exit and the settings' database."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import typer

from interlock.errors import InterlockError
from interlock.settings import Settings
from interlock.storage import migrate
from interlock.storage.db import Database


def fail(message: str) -> typer.Exit:
    """Print ``error: <message>`` in red on standard error; return the exit (code 1) to raise."""
    typer.secho(f"error: {message}", err=True, fg=typer.colors.RED)
    return typer.Exit(code=1)


@contextmanager
def settings_database() -> Iterator[Database]:
    """The database of the settings, migrated first and disposed of after; an
    :class:`~interlock.errors.InterlockError` inside ends the command with its message (exit 1).
    """
    settings = Settings()
    migrate.upgrade(settings.database_url)
    database = Database(settings.database_url)
    try:
        yield database
    except InterlockError as exc:
        raise fail(exc.message) from None
    finally:
        database.dispose()
