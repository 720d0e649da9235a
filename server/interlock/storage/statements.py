"""Prebuilt statements run on the driver's cursor of a session's connection: the parts
:mod:`~interlock.storage.write_behind` shares with every dialect.

A statement is compiled once (:mod:`~interlock.storage.compiled`); here its parameters are
made, the ``before_cursor_execute`` listeners told, SQLite's cursor run (through the write
gate's :class:`~interlock.storage.writer.GatedCursor`) and what a cursor returned read.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session
from sqlalchemy.sql import Executable

from interlock.storage.compiled import Compiled, compiled, raise_as_sqlalchemy

__all__ = ["Params", "Sent", "connection_of", "prepare", "run_on", "run_sqlite", "sent", "tell"]

Params = Mapping[str, Any] | Sequence[Mapping[str, Any]] | None
"""A statement's parameters: one row's, several rows' (an executemany), or none."""

_CONNECTION = "interlock_connection"
"""``Session.info`` key: the session's transaction and its connection (:func:`connection_of`)."""


@dataclass(frozen=True)
class Sent:
    """What one statement run by :mod:`~interlock.storage.write_behind` returned.

    Attributes:
        rowcount: Rows matched (``UPDATE``, ``DELETE``) or inserted; -1 when not known.
        rows: Its rows (``RETURNING``, ``SELECT``), processed as SQLAlchemy does.
    """

    rowcount: int
    rows: list[Any]
    key: Any = None
    """An ``INSERT``'s generated key (None: none generated)."""

    def first(self) -> Any:
        """The first row, or None without rows."""
        return self.rows[0] if self.rows else None

    def scalar(self) -> Any:
        """The first column of the first row, or None without rows."""
        return self.rows[0][0] if self.rows else None


def connection_of(session: Session) -> Connection:
    """``session.connection()``, remembered for the session's transaction: the ORM's own
    lookup (its transaction state machine) costs more than running a small statement."""
    transaction = session._transaction
    cached = session.info.get(_CONNECTION)
    if cached is not None and cached[0] is transaction and transaction.is_active:
        return cached[1]  # type: ignore[no-any-return]
    connection = session.connection()
    session.info[_CONNECTION] = (session._transaction, connection)
    return connection


def prepare(
    connection: Connection, statement: Executable, params: Params
) -> tuple[Compiled, Any, bool]:
    """``statement``'s compiled form, the driver's parameters and whether they are several
    rows' (an executemany)."""
    if params is None or isinstance(params, Mapping):
        form = compiled(connection.dialect, statement, tuple(params) if params else ())
        return form, form.parameters(params), False
    form = compiled(connection.dialect, statement, tuple(params[0]) if params else ())
    return form, [form.parameters(row) for row in params], True


def tell(connection: Connection, cursor: Any, form: Compiled, parameters: Any, many: bool) -> None:
    """Call the ``before_cursor_execute`` listeners (no execution context; no cursor for a
    statement queued)."""
    if connection._has_events or connection.engine._has_events:
        connection.dispatch.before_cursor_execute(
            connection, cursor, form.sql, parameters, None, many
        )


def run_sqlite(connection: Connection, form: Compiled, parameters: Any, many: bool) -> Sent:
    """Run ``form`` on a new cursor of SQLite's connection (through the write gate)."""
    cursor = connection.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
    try:
        return run_on(connection, cursor, form, parameters, many)
    finally:
        cursor.close()


def run_on(
    connection: Connection,
    cursor: Any,
    form: Compiled,
    parameters: Any,
    many: bool,
    closed: Callable[[], bool] = lambda: False,
) -> Sent:
    """Run ``form`` on the driver's ``cursor`` and read what it returned.

    ``closed`` tells, after a failure, whether the driver's connection is gone (the error
    then marks it invalidated, as SQLAlchemy does).

    Raises:
        sqlalchemy.exc.DBAPIError: The driver's error, as ``connection.execute`` raises it.
    """
    tell(connection, cursor, form, parameters, many)
    try:
        if many:
            cursor.executemany(form.sql, parameters)
        else:
            cursor.execute(form.sql, parameters)
        return sent(form, cursor)
    except Exception as exc:
        raise_as_sqlalchemy(exc, connection.dialect, form.sql, parameters, invalidated=closed())
        raise


def sent(form: Compiled, cursor: Any) -> Sent:
    """What ``cursor`` (which ran ``form``) returned."""
    rows = form.rows(cursor.fetchall()) if form.returns_rows else []
    if form.implicit_returning:
        return Sent(cursor.rowcount, rows, rows[0][0] if rows else None)
    return Sent(cursor.rowcount, rows, cursor.lastrowid if form.lastrowid else None)
