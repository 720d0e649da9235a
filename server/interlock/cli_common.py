"""What the ``interlock`` command groups share: an error exit, the settings and their database."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import typer
from pydantic import ValidationError
from pydantic_settings import SettingsError

from interlock.errors import InterlockError
from interlock.settings import Settings
from interlock.storage import migrate
from interlock.storage.db import Database


def fail(message: str) -> typer.Exit:
    """Print ``error: <message>`` in red on standard error; return the exit (code 1) to raise."""
    typer.secho(f"error: {message}", err=True, fg=typer.colors.RED)
    return typer.Exit(code=1)


def load_settings() -> Settings:
    """Read the settings (environment and ``.env``), as every command does first.

    Raises:
        typer.Exit: A setting has a value it cannot take, or a list or map setting is not
            JSON: each one is named, by its environment variable, with what is wrong (exit 1),
            instead of a traceback.
    """
    try:
        return Settings()
    except ValidationError as exc:
        problems = "; ".join(_setting_problem(error) for error in exc.errors())
        raise fail(f"a setting is not valid: {problems}.") from None
    except SettingsError as exc:  # a list or map setting that is not JSON
        field = re.search(r'field "(\w+)"', str(exc))
        name = f"INTERLOCK_{field.group(1).upper()}" if field else "a list or map setting"
        raise fail(f"{name} is not valid JSON (for example [] or {{}}).") from None


def _setting_problem(error: Any) -> str:
    """One pydantic error on a setting as ``INTERLOCK_NAME (at a.b): what is wrong (got X)``."""
    location = [str(part) for part in error.get("loc", ())]
    name = f"INTERLOCK_{location[0].upper()}" if location else "a setting"
    where = f" (at {'.'.join(location[1:])})" if len(location) > 1 else ""
    message = str(error.get("msg", "not valid")).removeprefix("Value error, ")
    got = error.get("input")
    shown = f" (got {got!r})" if isinstance(got, str | int | float) and len(repr(got)) <= 80 else ""
    return f"{name}{where}: {message}{shown}"


@contextmanager
def settings_database() -> Iterator[Database]:
    """The database of the settings, migrated first and disposed of after; an
    :class:`~interlock.errors.InterlockError` inside ends the command with its message (exit 1).
    """
    settings = load_settings()
    migrate.upgrade(settings.database_url)
    database = Database(settings.database_url)
    try:
        yield database
    except InterlockError as exc:
        raise fail(exc.message) from None
    finally:
        database.dispose()
