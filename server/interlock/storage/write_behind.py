"""Fewer round trips to PostgreSQL: writes sent with the transaction's next statement.

Every statement a transaction sends to PostgreSQL costs a round trip, and after each one the
database thread must win the GIL back from the event loop and the run threads: 1-3 ms of
wall time each under load (bench (d)), whatever the statement. Two helpers save them, in
psycopg's pipeline mode (several statements sent at once, run one after the other, each
seeing what the ones before it did):

- :func:`defer` queues a write whose result nobody reads (an ``INSERT`` without
  ``RETURNING``, an ``UPDATE`` whose row count is not checked). It goes out with the
  transaction's next round trip: the statements of a :func:`send`, else its ``COMMIT``.
- :func:`send` runs several statements (the queued writes first) in one round trip and
  returns each one's rows and row count.

Any other statement run on the connection (an ORM flush, a plain ``connection.execute``)
first sends the queue in a round trip of its own, so writes always reach the database in the
order they were made; code that runs its own pipeline on the driver (the audit chain's
append) sends the queue first in it (:func:`send_queued_in_pipeline`). A rollback drops the
queue.

Errors: a queued write that fails (a unique or foreign key violation, a lock timeout) fails
the round trip it went out with, raised as SQLAlchemy raises a failed statement
(``IntegrityError``, ``OperationalError``, hence 503 ``database_busy`` for a lock timeout),
and the whole transaction is rolled back, as after any failed statement. So a write whose
failure the caller turns into an answer (a unique violation read as "already decided") is
not deferred: it would fail somewhere else.

SQLite has no round trips (the database is in the process): :func:`defer` executes at once,
:func:`send` executes its statements in turn.

How: a statement is compiled and its parameters processed by SQLAlchemy exactly as for an
immediate execution; only the driver's ``execute`` is replaced by queueing (the dialect's
``do_execute`` events). Rows come back as the driver reads them (no SQLAlchemy result
processing): for columns of plain types (numbers, text, booleans).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session
from sqlalchemy.sql import Executable

__all__ = ["Sent", "defer", "install", "queued", "send", "send_queued_in_pipeline"]

Params = Mapping[str, Any] | Sequence[Mapping[str, Any]] | None
"""A statement's parameters: one row's, several rows' (an executemany), or none."""

_QUEUE = "interlock_write_behind"
"""``Connection.info`` key: the queued writes, ``(sql, parameters, many)``, oldest first."""
_CAPTURE = "interlock_capture"
"""``Connection.info`` key, set while a statement is being compiled into the queue."""


@dataclass(frozen=True)
class Sent:
    """What one statement of :func:`send` returned.

    Attributes:
        rowcount: Rows matched (``UPDATE``, ``DELETE``) or inserted; -1 when not known.
        rows: Its rows (``RETURNING``, ``SELECT``), as the driver reads them.
    """

    rowcount: int
    rows: list[tuple[Any, ...]]

    def scalar(self) -> Any:
        """The first column of the first row, or None without rows."""
        return self.rows[0][0] if self.rows else None


def install(engine: Engine) -> None:
    """Hook a PostgreSQL ``engine`` up: queued writes go out before any other statement and
    with the ``COMMIT``, and a rollback drops them (once per engine)."""
    event.listen(engine, "do_execute", _capture_one)
    event.listen(engine, "do_execute_no_params", _capture_no_params)
    event.listen(engine, "do_executemany", _capture_many)
    event.listen(engine, "before_cursor_execute", _send_queue_first)
    event.listen(engine, "commit", _send_queue_with_commit)
    event.listen(engine, "rollback", _drop_queue)
    event.listen(engine, "reset", _drop_queue_on_reset)


def defer(session: Session, statement: Executable, params: Params = None) -> None:
    """Execute a write whose result nobody reads, on PostgreSQL with the next round trip.

    Args:
        session: The session whose transaction writes.
        statement: A Core ``INSERT``, ``UPDATE`` or ``DELETE`` without ``RETURNING``.
        params: Its parameters (a list of rows for a multi-row write).

    Raises:
        TypeError: The statement returns rows (its result would be lost).
        sqlalchemy.exc.DBAPIError: On SQLite, as ``connection.execute`` raises it; on
            PostgreSQL from the round trip it goes out with (see the module's docstring).
    """
    connection = session.connection()
    if connection.dialect.name != "postgresql":
        connection.execute(statement, params)
        return
    _compile_into_queue(connection, statement, params, returns=False)


def queued(session: Session) -> bool:
    """Whether writes of ``session``'s transaction wait to be sent (never on SQLite)."""
    return bool(session.connection().info.get(_QUEUE))


def send(session: Session, *statements: tuple[Executable, Params]) -> list[Sent]:
    """Run the queued writes and then ``statements``, in order, in one round trip.

    Args:
        session: The session whose transaction runs them.
        statements: ``(statement, parameters)`` pairs; a statement's rows are read when it
            has explicit ``RETURNING`` or is a ``SELECT``.

    Returns:
        One :class:`Sent` per statement, in order.

    Raises:
        sqlalchemy.exc.DBAPIError: The first statement that failed (a queued write's, or one
            of ``statements``), as SQLAlchemy raises it; nothing after it ran.
    """
    connection = session.connection()
    if connection.dialect.name != "postgresql":
        out = []
        for statement, params in statements:
            result = connection.execute(statement, params)
            rows = [tuple(row) for row in result] if result.returns_rows else []
            out.append(Sent(result.rowcount, rows))
        return out
    queue = connection.info.setdefault(_QUEUE, [])
    first = len(queue)
    for statement, params in statements:
        _compile_into_queue(connection, statement, params, returns=True)
    cursors = _run(connection, queue)
    return [
        Sent(cursor.rowcount, list(cursor.fetchall()) if cursor.description else [])
        for cursor in cursors[first:]
    ]


def _compile_into_queue(
    connection: Connection, statement: Executable, params: Params, *, returns: bool
) -> None:
    """Let SQLAlchemy compile ``statement`` and process ``params``; queue what it would send."""
    connection.info[_CAPTURE] = returns
    try:
        connection.execute(statement, params)
    finally:
        connection.info.pop(_CAPTURE, None)


def _capturing(context: Any) -> bool:
    """Whether the statement of ``context`` is to be queued; checks that its rows may be."""
    try:
        info = context.root_connection.info
    except NotImplementedError:  # the engine's first connection, while SQLAlchemy sets up
        return False
    if _CAPTURE not in info:
        return False
    compiled = getattr(context, "compiled", None)
    if compiled is not None and (
        getattr(compiled, "implicit_returning", None)
        or (not info[_CAPTURE] and getattr(compiled, "effective_returning", None))
    ):
        raise TypeError("a deferred statement cannot return rows (its result would be lost)")
    return True


def _capture_one(_cursor: Any, statement: str, parameters: Any, context: Any) -> bool:
    if not _capturing(context):
        return False
    context.root_connection.info.setdefault(_QUEUE, []).append((statement, parameters, False))
    return True


def _capture_no_params(_cursor: Any, statement: str, context: Any) -> bool:
    return _capture_one(_cursor, statement, None, context)


def _capture_many(_cursor: Any, statement: str, parameters: Any, context: Any) -> bool:
    if not _capturing(context):
        return False
    context.root_connection.info.setdefault(_QUEUE, []).append((statement, parameters, True))
    return True


def _send_queue_first(connection: Connection, *_args: Any) -> None:
    """Before a statement run as usual: send the queued writes (their errors are raised as
    that statement's, which SQLAlchemy translates)."""
    if _CAPTURE in connection.info or not connection.info.get(_QUEUE):
        return
    _run(connection, connection.info[_QUEUE], translate=False)


def _send_queue_with_commit(connection: Connection) -> None:
    """Before ``COMMIT``: send the queued writes and the ``COMMIT`` in one round trip (the
    driver's own ``commit()`` then finds no transaction open and sends nothing)."""
    queue = connection.info.get(_QUEUE)
    if queue:
        queue.append(("COMMIT", None, False))
        _run(connection, queue)


def _drop_queue(connection: Connection) -> None:
    connection.info.pop(_QUEUE, None)


def _drop_queue_on_reset(dbapi_connection: Any, connection_record: Any, reset_state: Any) -> None:
    """A connection going back to the pool leaves nothing queued (its transaction ended)."""
    if connection_record is not None:
        connection_record.info.pop(_QUEUE, None)


def send_queued_in_pipeline(connection: Connection, driver: Any) -> None:
    """Send the writes queued on ``connection`` first in the caller's own pipeline.

    For code that talks to the driver itself in pipeline mode (the audit chain's append): the
    writes keep their order and share its round trip; their errors are raised when that
    pipeline syncs, as its own statements' are.

    Args:
        connection: The session's connection (``session.connection()``).
        driver: Its psycopg connection, in pipeline mode.
    """
    _execute(driver, connection.info.pop(_QUEUE, None) or [])


def _execute(driver: Any, entries: list[Any]) -> list[Any]:
    """Execute queued ``entries`` on ``driver`` (in pipeline mode); return their cursors."""
    cursors = []
    for sql, parameters, many in entries:
        cursor = driver.cursor()
        cursors.append(cursor)
        if many:
            cursor.executemany(sql, parameters)
        else:
            cursor.execute(sql, parameters)
    return cursors


def _run(connection: Connection, queue: list[Any], *, translate: bool = True) -> list[Any]:
    """Send ``queue`` in one round trip (pipeline mode) and empty it; return its cursors.

    Raises:
        sqlalchemy.exc.DBAPIError: When ``translate``, the first error, as SQLAlchemy raises
            a failed statement's (else the driver's own error, for SQLAlchemy to translate).
    """
    import psycopg  # PostgreSQL only (a SQLite server never imports psycopg)

    driver = connection.connection.driver_connection
    assert isinstance(driver, psycopg.Connection)
    entries = list(queue)
    queue.clear()
    cursors: list[Any] = []
    try:
        with driver.pipeline():
            cursors = _execute(driver, entries)
    except psycopg.Error as exc:
        if not translate:
            raise
        failed = next(
            (entries[i] for i, cursor in enumerate(cursors) if cursor.pgresult is None),
            entries[-1],
        )
        raise DBAPIError.instance(
            failed[0], failed[1], exc, psycopg.Error, connection_invalidated=driver.closed
        ) from exc
    return cursors
