"""The PostgreSQL connection pool of a server process: its size, and checks of idle connections.

Sizing: every database thread may hold two sessions at once (a function may open a second,
short one), so the pool keeps ``2 * threads`` connections open, reused most-recently-used
first (a warm set: PostgreSQL's per-connection caches stay hot), and opens a few more only
for a burst; the cap stays :data:`MAX_CONNECTIONS`. A smaller kept pool than the threads
use closes and reopens connections all the time under load (a PostgreSQL backend started and
warmed for a handful of statements).

Checks: a connection that sat in the pool longer than :data:`PING_AFTER_IDLE_S` is tried
(the dialect's ping, an empty statement) before it is handed out, and replaced when the server
closed it (a restart, an idle timeout). One used moments ago is handed out as it
is: checking every checkout cost a round trip per transaction (about fifteen per HITL cycle).
A connection that breaks in between fails its statement, and SQLAlchemy then discards every
connection opened before the break.
"""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DisconnectionError

MAX_CONNECTIONS = 30
"""Most pooled connections of one process (the listener's own connection comes on top)."""
PING_AFTER_IDLE_S = 1.0
"""A pooled connection idle longer than this is checked before use, in seconds."""
_IDLE_SINCE = "interlock_idle_since"

monotonic = time.monotonic
"""The clock idle time is measured with (tests replace it)."""


def pool_options(threads: int) -> dict[str, Any]:
    """``create_engine`` pool arguments for a process running database calls on ``threads``."""
    kept = min(2 * threads, MAX_CONNECTIONS)
    return {"pool_size": kept, "max_overflow": MAX_CONNECTIONS - kept, "pool_use_lifo": True}


def ping_when_idle(engine: Engine, idle_s: float = PING_AFTER_IDLE_S) -> None:
    """Check ``engine``'s pooled connections before use when they sat idle over ``idle_s``.

    Use instead of ``pool_pre_ping`` (which checks every checkout).
    """

    def checked_in(_dbapi_connection: Any, record: Any) -> None:
        if record is not None:
            record.info[_IDLE_SINCE] = monotonic()

    def checked_out(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        since = record.info.pop(_IDLE_SINCE, None)
        if since is None or monotonic() - since <= idle_s:
            return  # new, or used moments ago
        try:
            engine.dialect.do_ping(dbapi_connection)
        except Exception as exc:  # closed by the server: the pool opens another one
            raise DisconnectionError(f"a pooled connection was closed: {exc}") from exc

    event.listen(engine, "checkin", checked_in)
    event.listen(engine, "checkout", checked_out)


_WROTE = "interlock_wrote"


def mark_written(connection: Any) -> None:
    """Note that ``connection``'s transaction may have written through the driver itself (out
    of SQLAlchemy's sight), so :func:`keep_prepared_statements` rolls it back when asked to."""
    connection.info[_WROTE] = True


def keep_prepared_statements(engine: Engine) -> None:
    """End ``engine``'s read-only transactions with ``COMMIT``, so psycopg keeps its prepared
    statements.

    psycopg prepares a statement on the server once a connection ran it five times
    (``prepare_threshold``): later runs skip PostgreSQL's parsing and planning. But every
    ``ROLLBACK`` makes it forget them all (and deallocate them), and a session that only read
    ends with a rollback (SQLAlchemy rolls back what it closes): with a few read-only sessions
    per request nothing was ever prepared, and every statement was parsed and planned anew.
    A transaction that ran only ``SELECT`` statements (not ``pg_notify``) is committed here
    instead, which for PostgreSQL is the same (no row changed, no lock kept); one that may have
    written, or failed, is rolled back as before.
    """
    from psycopg.pq import TransactionStatus

    def before_cursor_execute(conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if not statement.startswith("SELECT") or "pg_notify" in statement:
            conn.info[_WROTE] = True

    def rollback(conn: Any) -> None:
        if conn.info.pop(_WROTE, False):
            return
        dbapi_connection = conn.connection.dbapi_connection
        if (
            dbapi_connection is not None
            and dbapi_connection.info.transaction_status == TransactionStatus.INTRANS
        ):
            dbapi_connection.commit()  # the rollback that follows finds nothing to do

    def commit(conn: Any) -> None:
        conn.info.pop(_WROTE, None)

    event.listen(engine, "before_cursor_execute", before_cursor_execute)
    event.listen(engine, "rollback", rollback)
    event.listen(engine, "commit", commit)
