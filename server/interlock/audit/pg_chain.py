"""PostgreSQL: number, chain and insert a transaction's audit records inside the database.

The chain's lock (a transaction-scoped advisory lock) is held until the transaction ends, so
every moment its holder spends waiting on the client lengthens the wait of every other audited
write of every worker. Under load a client round trip costs far more than the network: after
each wait the database thread must win the GIL back from a busy event loop. So the holder
never waits on the client between taking the lock and its last audit statement: the lock and
one ``INSERT ... SELECT`` per record go to the server together (psycopg's pipeline mode), and
each ``INSERT`` reads the chain's tail and computes its record's hash itself:

    hash = encode(sha256(convert_to(prev_hash || E'\\n' || before || seq::text || after,
                                    'UTF8')), 'hex')

where ``before`` and ``after`` are the record's canonical JSON around the value of ``seq``
(the one field unknown before the lock), built by the caller with the same encoder as
:func:`interlock.audit.chain.record_hash`, which yields the same bytes. Each statement reads
the tail with a snapshot taken once the lock is held, and sees the records inserted before it
in the same transaction. ``RETURNING`` gives each record its ``seq``, ``prev_hash`` and
``hash``. When nothing is written after the records, the transaction's ``COMMIT`` goes in the
same round trip (see :func:`append_in_database`), and the notifications of the transaction's
events right after it (:mod:`~interlock.storage.pg_notify`): the lock is then held for
PostgreSQL's own work only (the inserts and the commit's disk flush). Measured with two workers, fifty
conversations cycling, on a loaded machine: the wait for the lock at p95 went from 40-99 ms
to 22-34 ms (PostgreSQL's own clock), the time from sending the lock to the transaction's end
from p50 14-20 / p95 72-137 ms to p50 7-10 / p95 47-53 ms.

``convert_to(..., 'UTF8')`` gives the bytes Python hashes in any server encoding: the text came
from the client in UTF-8 (SQL_ASCII keeps those bytes as they are; another encoding converts
them there and back, and text it cannot hold is refused by the ``INSERT`` anyway).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from interlock.storage import AuditRecord
from interlock.storage.pg_notify import AfterCommit, queue_after_commit
from interlock.storage.pg_pool import mark_written
from interlock.storage.write_behind import send_queued_in_pipeline

GENESIS_HASH = "0" * 64
AUDIT_CHAIN_LOCK_KEY = 0x1A0D17
"""Key of the transaction-scoped advisory lock that serialises appends to the chain."""

_LOCK_SQL = "SELECT pg_advisory_xact_lock(%s)"
_COMMIT_SQL = "COMMIT"
# The casts are the ones SQLAlchemy renders for these columns (same stored values).
_APPEND_SQL = f"""\
INSERT INTO audit_records (seq, created_at, kind, tool_call_id, conversation_id, employee, tool,
    owner_id, decider, channel, outcome, reason, proposed_args, executed_args, waited_ms,
    prev_hash, hash)
SELECT tail.seq + 1, %s::TIMESTAMP WITH TIME ZONE, %s::VARCHAR, %s::VARCHAR, %s::VARCHAR,
    %s::VARCHAR, %s::VARCHAR, %s::VARCHAR, %s::VARCHAR, %s::VARCHAR, %s::VARCHAR, %s::TEXT,
    %s::JSON, %s::JSON, %s::INTEGER, tail.hash,
    encode(sha256(convert_to(
        tail.hash || E'\\n' || %s::TEXT || (tail.seq + 1)::TEXT || %s::TEXT, 'UTF8')), 'hex')
FROM ((SELECT seq, hash FROM audit_records ORDER BY seq DESC LIMIT 1)
      UNION ALL SELECT 0, '{GENESIS_HASH}' ORDER BY seq DESC LIMIT 1) AS tail
RETURNING seq, prev_hash, hash"""


def append_in_database(
    session: Session, pending: list[tuple[AuditRecord, str, str]], *, commit: bool
) -> None:
    """Lock the chain and append ``pending`` to it in one round trip (PostgreSQL only).

    Args:
        session: The session whose transaction writes the records (flushed already).
        pending: Each record, with its canonical JSON before and after the value of ``seq``;
            the record's ``seq``, ``prev_hash`` and ``hash`` are set from the database.
        commit: Send the transaction's ``COMMIT`` in the same round trip (the lock is then
            released without waiting on the client at all). Only when nothing else is written
            after these records: SQLAlchemy's own commit then finds the transaction ended and
            does nothing (psycopg commits an idle connection as a no-op).

    Raises:
        sqlalchemy.exc.DBAPIError: As SQLAlchemy would raise it (``lock_timeout``: an
            ``OperationalError`` read as ``database_busy``); nothing is written then.
    """
    import psycopg  # PostgreSQL only (a SQLite server never imports psycopg)
    from psycopg.types.json import Json

    connection = session.connection()
    driver = connection.connection.driver_connection
    assert isinstance(driver, psycopg.Connection)
    mark_written(connection)  # a rollback must not be turned into a commit
    cursors: list[Any] = []
    committing: Any = None
    notifying: AfterCommit | None = None
    try:
        with driver.pipeline():
            # The transaction's queued writes (its events) go first, before the lock is taken.
            send_queued_in_pipeline(connection, driver)
            driver.execute(_LOCK_SQL, (AUDIT_CHAIN_LOCK_KEY,))
            for record, before, after in pending:
                params = (
                    record.created_at,
                    record.kind,
                    record.tool_call_id,
                    record.conversation_id,
                    record.employee,
                    record.tool,
                    record.owner_id,
                    record.decider,
                    record.channel,
                    record.outcome,
                    record.reason,
                    Json(record.proposed_args),  # None is JSON null, as the ORM writes it
                    Json(record.executed_args),
                    record.waited_ms,
                    before,
                    after,
                )
                cursors.append(driver.execute(_APPEND_SQL, params))
            if commit:
                committing = driver.execute(_COMMIT_SQL)
                # The transaction's notifications, right after its COMMIT (pg_notify).
                notifying = queue_after_commit(connection.info, driver)
        if notifying is not None:
            notifying.settle(None, committing)
        rows = [cursor.fetchone() for cursor in cursors]
    except psycopg.Error as exc:  # translated as SQLAlchemy translates its own statements
        if notifying is not None and notifying.settle(exc, committing):
            rows = [cursor.fetchone() for cursor in cursors]
        else:
            raise DBAPIError.instance(
                _APPEND_SQL, None, exc, psycopg.Error, connection_invalidated=driver.closed
            ) from exc
    for (record, _before, _after), row in zip(pending, rows, strict=True):
        assert row is not None
        record.seq, record.prev_hash, record.hash = int(row[0]), str(row[1]), str(row[2])
