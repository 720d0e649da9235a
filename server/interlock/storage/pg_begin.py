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
"""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine

__all__ = ["begin_in_pipeline", "install", "is_plain_read", "needs_begin"]

_NOT_PLAIN = re.compile(
    r"\bFOR (?:UPDATE|NO KEY UPDATE|SHARE|KEY SHARE)\b|pg_|nextval|setval|set_config"
)
"""What makes a ``SELECT`` more than a read: a row lock, or a function with side effects
(``pg_notify``, advisory locks, sequences, settings; this schema defines no functions)."""


def install(engine: Engine) -> None:
    """Run ``engine``'s driver connections in autocommit mode: transactions are begun here."""
    event.listen(engine, "connect", _autocommit)


def is_plain_read(statement: str) -> bool:
    """Whether ``statement`` (SQL text) may run outside a transaction: a ``SELECT`` that
    locks no row and calls no function with side effects."""
    return statement.startswith("SELECT") and _NOT_PLAIN.search(statement) is None


def begin_in_pipeline(driver: Any) -> None:
    """Queue a ``BEGIN`` on ``driver`` (a psycopg connection in pipeline mode, nothing sent
    yet) when no transaction is open on it."""
    if _idle(driver):
        driver.execute(b"BEGIN")


def needs_begin(driver: Any, statement: str) -> bool:
    """Whether ``statement`` (SQL text) must go out after a ``BEGIN`` on ``driver`` (a psycopg
    connection): no transaction is open and it is not a plain read."""
    return _idle(driver) and not is_plain_read(statement)


def _idle(driver: Any) -> bool:
    from psycopg.pq import TransactionStatus

    return bool(driver.info.transaction_status == TransactionStatus.IDLE)


def _autocommit(dbapi_connection: Any, _record: Any) -> None:
    dbapi_connection.autocommit = True
