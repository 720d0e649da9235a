"""What the ``interlock`` command groups share: an error exit, the settings and their database."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import typer
from pydantic import ValidationError
from pydantic_settings import SettingsError
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError

from interlock.errors import InterlockError
from interlock.settings import Settings, database_url_problem, safe_database_url
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
    if location[:1] == ["database_url"]:
        shown = ""  # the message shows the URL, its password hidden
    return f"{name}{where}: {message}{shown}"


def database_url(option: str | None) -> str:
    """The database URL of a command: its ``--database-url`` option, else the settings'.

    Raises:
        typer.Exit: The option is no URL Interlock works with (exit 1, naming the option).
    """
    if option is None:
        return load_settings().database_url
    problem = database_url_problem(option)
    if problem is not None:
        raise fail(f"--database-url {safe_database_url(option)} {problem}.")
    return option


@contextmanager
def reaching_database(url: str, *, from_option: bool = False) -> Iterator[None]:
    """End the command with one line when the database at ``url`` cannot be opened.

    A server that is down, a database that does not exist, a SQLite file that cannot be
    opened: SQLAlchemy's ``OperationalError`` raised while connecting (it has no SQL
    statement), or a SQLite folder that cannot be made, becomes ``error: cannot open the
    database INTERLOCK_DATABASE_URL=...: <the reason>`` (the password hidden, exit 1) instead
    of a traceback. Errors of a statement are not connection problems and go on. ``from_option``: the URL came from
    ``--database-url``, which the line names instead.

    Raises:
        typer.Exit: The database cannot be opened.
    """
    source = "--database-url " if from_option else "INTERLOCK_DATABASE_URL="
    try:
        yield
        return
    except (OperationalError, InterfaceError) as exc:
        if exc.statement:
            raise
        reason = connect_failure(exc)
    except OSError as exc:  # SQLite: the file's folder cannot be made
        if not url.startswith("sqlite"):
            raise
        where = f" ({exc.filename})" if exc.filename else ""
        reason = f"its folder cannot be made: {exc.strerror or exc}{where}"
    raise fail(
        f"cannot open the database {source}{safe_database_url(url)}: {reason}. Check the URL, "
        "and that the database server is running and the database exists."
    ) from None


def connect_failure(exc: DBAPIError) -> str:
    """The driver's reason a connection failed, without its prefixes (``Connection refused``,
    ``database "x" does not exist``, ``unable to open database file``)."""
    text = str(exc.orig).strip().splitlines()[0] if str(exc.orig).strip() else "no reason given"
    text = text.rsplit(" failed: ", 1)[-1].removeprefix("connection failed: ")
    return text.removeprefix("FATAL:").strip().rstrip(".")


@contextmanager
def settings_database() -> Iterator[Database]:
    """The database of the settings, migrated first and disposed of after; an
    :class:`~interlock.errors.InterlockError` inside ends the command with its message (exit 1),
    as does a database that cannot be opened (:func:`reaching_database`).
    """
    settings = load_settings()
    with reaching_database(settings.database_url):
        migrate.upgrade(settings.database_url)
        database = Database(settings.database_url)
        try:
            yield database
        except InterlockError as exc:
            raise fail(exc.message) from None
        finally:
            database.dispose()
