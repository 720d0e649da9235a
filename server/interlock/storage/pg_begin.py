"""PostgreSQL transactions begun in the round trip of their first write, and reads before it
outside any transaction.

psycopg sends a transaction's ``BEGIN`` in a round trip of its own, before the first
statement (even in pipeline mode), and a transaction that only read still ends with a
``COMMIT`` or ``ROLLBACK`` round trip: three trips for one ``SELECT``, each costing 1-3 ms of
wall time under load (see :mod:`~interlock.storage.write_behind`). Here the driver's
connections run in psycopg's autocommit mode and this module sends the ``BEGIN`` itself:

- A plain read (:func:`is_plain_read`: a ``SELECT`` that locks no row and calls no function
  with side effects) made while no transaction is open on the connection runs on its own,
  outside any transaction. PostgreSQL runs every transaction of this server at ``READ
  COMMITTED``, where each statement reads its own fresh snapshot anyway, so such a read sees
  what it would have seen as the transaction's first statement. A session that only reads
  thus costs one round trip a statement, and nothing to end it.
- Any other statement made while no transaction is open goes out in one pipeline (one round
  trip) after a ``BEGIN`` (:func:`begin_in_pipeline`), and everything after it runs in that
  transaction until SQLAlchemy ends it (the driver's ``commit()`` and ``rollback()`` end an
  open transaction in autocommit mode too, and do nothing without one).

:mod:`~interlock.storage.write_behind` runs every statement (it installs this module), and
code that talks to the driver itself in pipeline mode (the audit chain's append) begins with
:func:`~interlock.storage.write_behind.send_queued_in_pipeline`.

One lock wait budget per call: PostgreSQL's ``lock_timeout`` (the session's, the lock timeout
setting) bounds each wait for a lock on its own, so a call whose statements wait in turn could
wait the setting once per statement. A :meth:`~interlock.storage.Database.run` call has a
deadline (:func:`~interlock.storage.writer.set_write_deadline`, as on SQLite); once less than
the setting less :data:`LOCK_SLACK_SHARE` of it is left, every round trip that may wait for a
lock carries ``SET LOCAL lock_timeout`` to what is left (:func:`begin_in_pipeline`, in the same
pipeline, so no round trip more), down to a millisecond past the deadline (a free lock is
still had: the bound is on waiting, not working). A call that has spent little of its budget,
nearly every one, sends nothing more. A call's whole wait is thus at most the setting and the
slack; one statement waiting for several locks in turn still has the remainder for each.
"""

from __future__ import annotations

import math
import re
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine

from interlock.storage.writer import deadline_left_s

__all__ = [
    "LOCK_SLACK_SHARE",
    "begin_in_pipeline",
    "install",
    "is_plain_read",
    "lock_wait_left_ms",
    "needs_begin",
    "needs_lock_bound",
]

LOCK_SLACK_SHARE = 0.1
"""Share of the lock timeout setting a call may spend before its round trips lower
``lock_timeout`` to what is left: its whole wait is at most the setting and this share of it.
Below it, calls slowed a little (a wait for a thread under load) send nothing more."""
_LOCK_TIMEOUT_S = "interlock_lock_timeout_s"
"""Attribute of a driver connection: its session's ``lock_timeout``, in seconds."""

_NOT_PLAIN = re.compile(
    r"\bFOR (?:UPDATE|NO KEY UPDATE|SHARE|KEY SHARE)\b|pg_|nextval|setval|set_config"
)
"""What makes a ``SELECT`` more than a read: a row lock, or a function with side effects
(``pg_notify``, advisory locks, sequences, settings; this schema defines no functions)."""


def install(engine: Engine, lock_timeout_s: float) -> None:
    """Run ``engine``'s driver connections in autocommit mode: transactions are begun here.

    Args:
        engine: A PostgreSQL engine.
        lock_timeout_s: Its sessions' ``lock_timeout``, in seconds (the lock wait budget of
            a call).
    """

    def connected(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.autocommit = True
        setattr(dbapi_connection, _LOCK_TIMEOUT_S, lock_timeout_s)

    event.listen(engine, "connect", connected)


def is_plain_read(statement: str) -> bool:
    """Whether ``statement`` (SQL text) may run outside a transaction: a ``SELECT`` that
    locks no row and calls no function with side effects."""
    return statement.startswith("SELECT") and _NOT_PLAIN.search(statement) is None


def begin_in_pipeline(driver: Any) -> None:
    """Queue a ``BEGIN`` on ``driver`` (a psycopg connection in pipeline mode, nothing sent
    yet) when no transaction is open on it, and ``SET LOCAL lock_timeout`` when the call's
    lock wait budget is short (:func:`lock_wait_left_ms`)."""
    if _idle(driver):
        driver.execute(b"BEGIN")
    left_ms = lock_wait_left_ms(driver)
    if left_ms is not None:
        driver.execute(f"SET LOCAL lock_timeout = {left_ms}".encode(), prepare=False)


def lock_wait_left_ms(driver: Any) -> int | None:
    """What the statements sent next on ``driver`` (a psycopg connection) may wait for locks,
    in milliseconds (at least 1), when it is less than its session's ``lock_timeout`` allows.

    Returns:
        None when the calling thread has no deadline or spent less than
        :data:`LOCK_SLACK_SHARE` of the setting.
    """
    left_s = deadline_left_s()
    if left_s is None or left_s > getattr(driver, _LOCK_TIMEOUT_S, math.inf) * (
        1.0 - LOCK_SLACK_SHARE
    ):
        return None
    return max(1, int(left_s * 1000))


def needs_lock_bound(driver: Any, statement: str) -> bool:
    """Whether ``statement`` (SQL text), sent in ``driver``'s open transaction, must go out in
    a pipeline after :func:`begin_in_pipeline`'s ``SET LOCAL lock_timeout``: the call's lock
    wait budget is short (:func:`lock_wait_left_ms`) and it may wait for a lock (not a plain
    read)."""
    return lock_wait_left_ms(driver) is not None and not is_plain_read(statement)


def needs_begin(driver: Any, statement: str) -> bool:
    """Whether ``statement`` (SQL text) must go out after a ``BEGIN`` on ``driver`` (a psycopg
    connection): no transaction is open and it is not a plain read."""
    return _idle(driver) and not is_plain_read(statement)


def _idle(driver: Any) -> bool:
    from psycopg.pq import TransactionStatus

    return bool(driver.info.transaction_status == TransactionStatus.IDLE)
