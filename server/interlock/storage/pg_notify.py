"""PostgreSQL notifications sent after a commit, outside the transaction they announce.

Why not ``NOTIFY`` inside the transaction: a committing transaction that sent notifications
holds one lock for the whole database cluster from just before its commit until after it
(PostgreSQL orders the notification queue that way), and a commit waits for its WAL to reach
the disk. So every transaction storing events committed one at a time, each holding that lock
through its own disk flush (about 3 ms on the benchmark machine), and none could share a
flush with another. Under load most commits queued for it (bench (d): the most frequent wait
of active backends after the WAL flush itself), and with them every lock the transactions
held, such as the audit chain's (``pg_advisory_xact_lock``) in a decision's.

Here the data transaction commits first, without notifications; then the committing thread
sends them, in one statement on a connection of its own (one per thread, so threads never
queue for a shared one), in autocommit mode with ``synchronous_commit`` off. That statement's
transaction holds the lock only for the moment of its commit (it writes nothing that must
reach the disk first: a notification is not durable anyway). A listener that receives a
notification reads rows already committed. (Measured alternatives, bench (d) under load: one
connection shared by the threads made a decision's answer wait for the others' notifications,
about 12 ms on average; one notifying thread fed by a queue freed the answer but the thread's
turn at the GIL delayed the notification itself, about 15 ms at the median.)

If the process dies between the commit and the notification, or the statement fails twice,
the notifications are not sent: other processes' subscribers of those conversations catch up
at the next event they receive (a gap in the sequence makes them re-read storage), or at
their listener's next catch-up, which compares the followed conversations' stored last
sequence with what was announced every few seconds (``streaming.listener``); every subscriber
also re-reads storage whenever its listener reconnects.
"""

from __future__ import annotations

import logging
import os
import threading
from typing import TYPE_CHECKING, Any

from sqlalchemy.engine import URL

if TYPE_CHECKING:
    import psycopg

NOTIFIER_APPLICATION = "interlock-notifier"
"""``application_name`` of the notifying connection (seen in ``pg_stat_activity``)."""
CONNECT_TIMEOUT_S = 5
"""Longest wait for the notifying connection to open (whole seconds, libpq's unit)."""
_SEND_ONE = "SELECT pg_notify(%s, %s)"
_SEND_MANY = "SELECT pg_notify(%s, payload) FROM unnest(%s::text[]) AS payload"

log = logging.getLogger(__name__)


class Notifier:
    """Sends ``NOTIFY`` on a connection of the calling thread's own; safe from any thread.

    A thread's connection opens at its first :meth:`send` (a process that never sends opens
    none), again in a forked child.

    Args:
        url: The database's SQLAlchemy URL (PostgreSQL).
        statement_timeout_s: ``statement_timeout`` and ``lock_timeout`` of the connections,
            in seconds.
    """

    def __init__(self, url: URL, statement_timeout_s: float) -> None:
        self._conninfo = url.set(drivername="postgresql").render_as_string(hide_password=False)
        self._timeout_ms = max(1, int(statement_timeout_s * 1000))
        self._local = threading.local()
        self._mutex = threading.Lock()
        self._connections: list[psycopg.Connection[Any]] = []
        self._pid = os.getpid()

    def send(self, channel: str, payloads: list[str]) -> bool:
        """Send ``payloads`` on ``channel``, in order, in one statement (a blocking call).

        A failed attempt (the connection was closed) is retried once on a new connection.

        Returns:
            False when they could not be sent (logged; the caller's data is committed all the
            same).
        """
        if not payloads:
            return True
        for attempt in (1, 2):
            connection: psycopg.Connection[Any] | None = None
            try:
                connection = self._connection()
                if len(payloads) == 1:
                    connection.execute(_SEND_ONE, (channel, payloads[0]))
                else:
                    connection.execute(_SEND_MANY, (channel, payloads))
                return True
            except Exception as exc:  # closed by the server, or the database is away
                if connection is not None:
                    self._forget(connection)
                if attempt == 2:
                    log.warning(
                        "could not notify other workers on %s (%s); their streams catch up "
                        "at the next event",
                        channel,
                        type(exc).__name__,
                    )
        return False

    def close(self) -> None:
        """Close every thread's connection (a later :meth:`send` opens a new one)."""
        with self._mutex:
            connections, self._connections = self._connections, []
            mine = self._pid == os.getpid()
        for connection in connections if mine else ():
            _close(connection)

    def _connection(self) -> psycopg.Connection[Any]:
        with self._mutex:
            if self._pid != os.getpid():  # a forked child: never use the parent's sockets
                self._pid, self._connections = os.getpid(), []
                self._local = threading.local()
        connection: psycopg.Connection[Any] | None = getattr(self._local, "connection", None)
        if connection is not None and not connection.closed and connection in self._connections:
            return connection
        # Imported here: a SQLite server never notifies (psycopg costs start-up time).
        import psycopg

        connection = psycopg.connect(
            self._conninfo,
            autocommit=True,
            application_name=NOTIFIER_APPLICATION,
            connect_timeout=CONNECT_TIMEOUT_S,
            options=(
                "-c synchronous_commit=off"
                f" -c statement_timeout={self._timeout_ms}"
                f" -c lock_timeout={self._timeout_ms}"
            ),
        )
        with self._mutex:
            self._connections.append(connection)
        self._local.connection = connection
        return connection

    def _forget(self, connection: psycopg.Connection[Any]) -> None:
        with self._mutex:
            if connection in self._connections:
                self._connections.remove(connection)
        self._local.connection = None
        _close(connection)


def _close(connection: psycopg.Connection[Any]) -> None:
    try:
        connection.close()
    except Exception:  # already broken: nothing to close cleanly
        log.debug("closing a notifying connection failed", exc_info=True)
