"""Fewer round trips to PostgreSQL: writes sent with the transaction's next statement.

Every statement a transaction sends to PostgreSQL costs a round trip, and after each one the
database thread must win the GIL back from the event loop and the run threads: 1-3 ms of
wall time each under load (bench (d)), whatever the statement. Two helpers save them, in
psycopg's pipeline mode (several statements sent at once, run one after the other, each
seeing what the ones before it did):

- :func:`defer` queues a write whose result nobody reads (an ``INSERT`` without
  ``RETURNING``, an ``UPDATE`` whose row count is not checked). It goes out with the
  transaction's next round trip: the statements of a :func:`send`, else its ``COMMIT``. A
  write whose row count decides whether the transaction goes on (a run step's fence) is
  queued with a ``check`` of that count, and goes out with the next statement, never with
  the ``COMMIT``.
- :func:`send` runs several statements (the queued writes first) in one round trip and
  returns each one's rows and row count; :func:`execute` runs one.
- :func:`~interlock.storage.read_soon.read_soon` queues a read whose rows are wanted a little
  later: it goes out with the next round trip like a deferred write.

Any other statement run on the connection (an ORM flush, a plain ``connection.execute``)
takes the queue with it, in its own round trip and after the queued writes, so writes always
reach the database in the order they were made; code that runs its own pipeline on the
driver (the audit chain's append) sends the queue first in it
(:func:`send_queued_in_pipeline`). A rollback drops the queue. Every round trip starts with
the ``BEGIN`` its statements need, and the ``lock_timeout`` lowered to what is left of the
call's lock wait budget once it is short (:mod:`~interlock.storage.pg_begin`).

Errors: a queued write that fails (a unique or foreign key violation, a lock timeout) fails
the round trip it went out with, raised as SQLAlchemy raises a failed statement
(``IntegrityError``, ``OperationalError``, hence 503 ``database_busy`` for a lock timeout),
and the whole transaction is rolled back, as after any failed statement. So a write whose
failure the caller turns into an answer (a unique violation read as "already decided") is
not deferred: it would fail somewhere else.

SQLite has no round trips (the database is in the process): :func:`defer` executes at once,
:func:`send` executes its statements in turn.

How: :func:`defer`, :func:`send` and :func:`execute` take prebuilt Core statements, compiled
once (:mod:`~interlock.storage.compiled`) and run on the driver's cursor, without
SQLAlchemy's execution; other statements meet the queue in the dialect's ``do_execute``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session
from sqlalchemy.sql import Executable

from interlock.storage import pg_begin, pg_notify
from interlock.storage.pg_begin import (
    begin_in_pipeline,
    is_plain_read,
    needs_begin,
    needs_lock_bound,
)
from interlock.storage.statements import (
    Params,
    Sent,
    connection_of,
    prepare,
    run_on,
    run_sqlite,
    sent,
    tell,
)

__all__ = [
    "Params",
    "Sent",
    "defer",
    "execute",
    "install",
    "queue_of",
    "queued",
    "send",
    "send_queue",
    "send_queued_in_pipeline",
]


_QUEUE = "interlock_write_behind"
"""``Connection.info`` key: the queued statements, oldest first: ``(sql, parameters, many)``,
and for a checked write or a read whose rows are wanted ``(..., after, before_commit)``, where
``after(cursor)`` is called when the round trip returns and ``before_commit`` says the entry
must not go out with the ``COMMIT`` (a checked write)."""


def install(engine: Engine, lock_timeout_s: float) -> None:
    """Hook a PostgreSQL ``engine`` up: queued writes go out with the next statement or the
    ``COMMIT``, and a rollback drops them; every statement is begun by
    :mod:`~interlock.storage.pg_begin`, its sessions' ``lock_timeout`` being
    ``lock_timeout_s`` seconds (once per engine)."""
    pg_begin.install(engine, lock_timeout_s)
    event.listen(engine, "do_execute", _on_execute)
    event.listen(engine, "do_execute_no_params", _on_execute_no_params)
    event.listen(engine, "do_executemany", _on_executemany)
    event.listen(engine, "commit", _send_queue_with_commit)
    event.listen(engine, "rollback", _drop_queue)
    event.listen(engine, "reset", _drop_queue_on_reset)


def defer(
    session: Session,
    statement: Executable,
    params: Params = None,
    check: Callable[[int], None] | None = None,
) -> None:
    """Execute a write whose result nobody reads, on PostgreSQL with the next round trip.

    Args:
        session: The session whose transaction writes.
        statement: A Core ``INSERT``, ``UPDATE`` or ``DELETE`` without ``RETURNING``.
        params: Its parameters (a list of rows for a multi-row write).
        check: Called with the write's row count as soon as its round trip returns (on
            SQLite at once); what it raises stops the transaction, raised from the statement
            or commit the write went out with. A checked write never goes out with the
            ``COMMIT``: the check runs before the transaction may commit.

    Raises:
        TypeError: The statement returns rows (its result would be lost).
        sqlalchemy.exc.DBAPIError: On SQLite, as ``connection.execute`` raises it; on
            PostgreSQL from the round trip it goes out with (see the module's docstring).
    """
    connection = connection_of(session)
    form, parameters, many = prepare(connection, statement, params)
    if form.returns_rows:
        raise TypeError("a deferred statement cannot return rows (its result would be lost)")
    if connection.dialect.name != "postgresql":
        rowcount = run_sqlite(connection, form, parameters, many).rowcount
        if check is not None:
            check(rowcount)
        return
    tell(connection, None, form, parameters, many)
    entry: tuple[Any, ...] = (form.sql, parameters, many)
    if check is not None:
        entry = (*entry, lambda cursor: check(cursor.rowcount), True)
    connection.info.setdefault(_QUEUE, []).append(entry)


def queue_of(connection: Connection) -> list[Any]:
    """The statements queued on ``connection`` (PostgreSQL), oldest first, to append to: each
    ``(sql, parameters, many)`` or ``(sql, parameters, many, after, before_commit)`` (see
    :data:`_QUEUE`)."""
    return connection.info.setdefault(_QUEUE, [])  # type: ignore[no-any-return]


def send_queue(connection: Connection) -> None:
    """Send what is queued on ``connection`` now, in one round trip (nothing when empty)."""
    queue = connection.info.get(_QUEUE)
    if queue:
        _run(connection, queue)


def queued(session: Session) -> bool:
    """Whether writes of ``session``'s transaction wait to be sent (never on SQLite)."""
    return bool(connection_of(session).info.get(_QUEUE))


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
    connection = connection_of(session)
    if connection.dialect.name != "postgresql":
        return [execute(session, statement, params) for statement, params in statements]
    queue = connection.info.setdefault(_QUEUE, [])
    first = len(queue)
    forms = []
    for statement, params in statements:
        form, parameters, many = prepare(connection, statement, params)
        forms.append(form)
        tell(connection, None, form, parameters, many)
        queue.append((form.sql, parameters, many))
    cursors = _run(connection, queue)
    return [sent(form, cursor) for form, cursor in zip(forms, cursors[first:], strict=True)]


def execute(session: Session, statement: Executable, params: Params = None) -> Sent:
    """Run the prebuilt ``statement`` now, compiled once (:mod:`~interlock.storage.compiled`),
    on the driver's cursor of ``session``'s connection: on PostgreSQL in one round trip with
    the queued writes (and the ``BEGIN`` it needs), else on its own.

    Returns:
        Its row count, rows (processed as SQLAlchemy does: JSON decoded, datetimes read) and,
        for an ``INSERT``, the generated key.

    Raises:
        sqlalchemy.exc.DBAPIError: As ``connection.execute`` raises it.
    """
    connection = connection_of(session)
    form, parameters, many = prepare(connection, statement, params)
    if connection.dialect.name != "postgresql":
        return run_sqlite(connection, form, parameters, many)
    driver: Any = connection.connection.driver_connection
    queue = connection.info.get(_QUEUE)
    if queue or needs_begin(driver, form.sql) or needs_lock_bound(driver, form.sql):
        tell(connection, None, form, parameters, many)
        queue = connection.info.setdefault(_QUEUE, [])
        queue.append((form.sql, parameters, many))
        return sent(form, _run(connection, queue)[-1])
    cursor = driver.cursor()
    return run_on(connection, cursor, form, parameters, many, lambda: bool(driver.closed))


def _info(context: Any) -> dict[Any, Any] | None:
    """The ``Connection.info`` of ``context``'s connection; None for the engine's first
    connection, while SQLAlchemy sets up (nothing of this module is in use yet)."""
    try:
        return context.root_connection.info  # type: ignore[no-any-return]
    except NotImplementedError:
        return None


def _on_execute(cursor: Any, statement: str, parameters: Any, context: Any) -> bool:
    return _handle(cursor, statement, parameters, context, "one")


def _on_execute_no_params(cursor: Any, statement: str, context: Any) -> bool:
    return _handle(cursor, statement, None, context, "none")


def _on_executemany(cursor: Any, statement: str, parameters: Any, context: Any) -> bool:
    return _handle(cursor, statement, parameters, context, "many")


def _handle(cursor: Any, statement: str, parameters: Any, context: Any, how: str) -> bool:
    """Queue the statement while :func:`defer` or :func:`send` compiles it; else run it on
    SQLAlchemy's ``cursor`` after the queued writes and the ``BEGIN`` (or the lowered
    ``lock_timeout``) it needs, in one round trip. False: nothing to send with it, SQLAlchemy
    runs it as usual.

    ``how``: ``one`` (with ``parameters``), ``none`` (without) or ``many`` (an executemany).
    Errors of the queued writes are raised as this statement's (SQLAlchemy translates them).
    """
    info = _info(context)
    if info is None:
        return False
    queue = info.pop(_QUEUE, None) or []
    driver = cursor.connection
    if not queue and not needs_begin(driver, statement) and not needs_lock_bound(driver, statement):
        return False
    with driver.pipeline():
        if not (is_plain_read(statement) and _plain(queue)):
            begin_in_pipeline(driver)
        cursors = _execute(driver, queue)
        if how == "many":
            cursor.executemany(statement, parameters)
        elif how == "none":
            cursor.execute(statement)
        else:
            cursor.execute(statement, parameters)
    _check(queue, cursors)
    return True


def _send_queue_with_commit(connection: Connection) -> None:
    """Before ``COMMIT``: send the queued writes and the ``COMMIT`` in one round trip (the
    driver's own ``commit()`` then finds no transaction open and sends nothing), and the
    notifications asked to go with it (:func:`~interlock.storage.pg_notify.notify_with_commit`)."""
    queue = connection.info.get(_QUEUE)
    if queue and any(len(entry) > 3 and entry[4] for entry in queue):
        _run(connection, queue)  # checked writes first, before anything may commit
    if queue or pg_notify.asked_with_commit(connection.info):
        queue = connection.info.setdefault(_QUEUE, [])
        queue.append(("COMMIT", None, False))
        _run(connection, queue, notify=True)


def _drop_queue(connection: Connection) -> None:
    connection.info.pop(_QUEUE, None)


def _drop_queue_on_reset(dbapi_connection: Any, connection_record: Any, reset_state: Any) -> None:
    """A connection going back to the pool leaves nothing queued (its transaction ended)."""
    if connection_record is not None:
        connection_record.info.pop(_QUEUE, None)


def send_queued_in_pipeline(connection: Connection, driver: Any) -> None:
    """Send the writes queued on ``connection`` first in the caller's own pipeline, after a
    ``BEGIN`` when no transaction is open yet (:mod:`~interlock.storage.pg_begin`).

    For code that talks to the driver itself in pipeline mode (the audit chain's append): the
    writes keep their order and share its round trip; their errors are raised when that
    pipeline syncs, as its own statements' are.

    Args:
        connection: The session's connection (``session.connection()``).
        driver: Its psycopg connection, in pipeline mode.
    """
    queue = connection.info.pop(_QUEUE, None) or []
    if any(len(entry) > 3 for entry in queue):
        # checked writes before the caller's statements (it may commit), and reads whose
        # rows are wanted: a pipeline of their own, synced when it ends
        _run(connection, queue)
        return
    begin_in_pipeline(driver)
    _execute(driver, queue)


def _plain(entries: list[Any]) -> bool:
    """Whether every queued entry is a plain read (no ``BEGIN`` needed for them)."""
    return all(is_plain_read(entry[0]) for entry in entries)


def _execute(driver: Any, entries: list[Any]) -> list[Any]:
    """Execute queued ``entries`` on ``driver`` (in pipeline mode); return their cursors."""
    cursors = []
    for sql, parameters, many, *_check in entries:
        cursor = driver.cursor()
        cursors.append(cursor)
        if many:
            cursor.executemany(sql, parameters)
        else:
            cursor.execute(sql, parameters)
    return cursors


def _run(connection: Connection, queue: list[Any], *, notify: bool = False) -> list[Any]:
    """Send ``queue`` in one round trip (pipeline mode) and empty it; return its cursors.

    ``notify``: ``queue`` ends with the ``COMMIT``; the notifications asked to go with it
    follow it (:func:`~interlock.storage.pg_notify.queue_after_commit`).

    Raises:
        sqlalchemy.exc.DBAPIError: The first error, as SQLAlchemy raises a failed
            statement's (not the notifications' own: the caller sends those again).
    """
    import psycopg  # PostgreSQL only (a SQLite server never imports psycopg)

    driver = connection.connection.driver_connection
    assert isinstance(driver, psycopg.Connection)
    entries = list(queue)
    queue.clear()
    cursors: list[Any] = []
    after: pg_notify.AfterCommit | None = None
    try:
        with driver.pipeline():
            if not _plain(entries):
                begin_in_pipeline(driver)
            cursors = _execute(driver, entries)
            if notify:
                after = pg_notify.queue_after_commit(connection.info, driver)
        if after is not None:
            after.settle(None, cursors[-1])
    except psycopg.Error as exc:
        if after is not None and after.settle(exc, cursors[-1]):
            _check(entries, cursors)
            return cursors
        failed = next(
            (entries[i] for i, cursor in enumerate(cursors) if cursor.pgresult is None),
            entries[-1],
        )
        raise DBAPIError.instance(
            failed[0], failed[1], exc, psycopg.Error, connection_invalidated=driver.closed
        ) from exc
    _check(entries, cursors)
    return cursors


def _check(entries: list[Any], cursors: list[Any]) -> None:
    """Run the checks of the checked ``entries`` (see :func:`defer`) on their row counts and
    hand the queued reads (:mod:`~interlock.storage.read_soon`) their rows."""
    for entry, cursor in zip(entries, cursors, strict=True):
        if len(entry) > 3:
            entry[3](cursor)
