"""PostgreSQL notifications sent after a commit, outside the transaction they announce.

Why not ``NOTIFY`` inside the transaction: a committing transaction that sent notifications
holds one lock for the whole database cluster from just before its commit until after it
(PostgreSQL orders the notification queue that way), and a commit waits for its WAL to reach
the disk. So every transaction storing events committed one at a time, each holding that lock
through its own disk flush (about 3 ms on the benchmark machine), and none could share a
flush with another. Under load most commits queued for it (bench (d): the most frequent wait
of active backends after the WAL flush itself), and with them every lock the transactions
held, such as the audit chain's (``pg_advisory_xact_lock``) in a decision's.

Here the data transaction commits first, without notifications, and hands them to this
process's notifying thread, without waiting: the thread sends everything handed to it since its
last statement, in order, in one statement on a connection of its own, in autocommit mode with
``synchronous_commit`` off. That statement's transaction holds the lock only for the moment of
its commit (it writes nothing that must reach the disk first: a notification is not durable
anyway), and no request waits for it (a decision's answer did, about 12 ms on average under
load, when each committing thread sent its own on one shared connection). A listener that
receives a notification reads rows already committed.

If the process dies before the thread sent them, or its statement fails twice, the
notifications are not sent: other processes' subscribers of those conversations catch up at
the next event they receive (a gap in the sequence makes them re-read storage), and every
subscriber re-reads storage whenever its listener reconnects.
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
_SEND_MANY = "SELECT pg_notify(c, p) FROM unnest(%s::text[], %s::text[]) AS n(c, p)"
STOP_WAIT_S = 10.0
"""Longest wait for the notifying thread to send what is queued and end, on close."""

log = logging.getLogger(__name__)


class Notifier:
    """Sends ``NOTIFY`` from a thread and connection of its own; :meth:`send` never waits.

    The thread and its connection start at the first :meth:`send` (a process that never
    sends opens neither), again in a forked child.

    Args:
        url: The database's SQLAlchemy URL (PostgreSQL).
        statement_timeout_s: ``statement_timeout`` and ``lock_timeout`` of the connection,
            in seconds.
    """

    def __init__(self, url: URL, statement_timeout_s: float) -> None:
        self._conninfo = url.set(drivername="postgresql").render_as_string(hide_password=False)
        self._timeout_ms = max(1, int(statement_timeout_s * 1000))
        self._ready = threading.Condition()
        self._pending: list[tuple[str, str]] = []
        self._stopping = False
        self._thread: threading.Thread | None = None
        self._pid = os.getpid()

    def send(self, channel: str, payloads: list[str]) -> None:
        """Queue ``payloads`` on ``channel``, in order, for the notifying thread; return at once."""
        if not payloads:
            return
        with self._ready:
            if self._thread is None or self._pid != os.getpid():
                # First use, or a forked child (the parent's thread does not exist here).
                self._pid, self._stopping = os.getpid(), False
                self._pending.clear()
                self._thread = threading.Thread(
                    target=self._send_forever, name="interlock notifier", daemon=True
                )
                self._thread.start()
            self._pending.extend((channel, payload) for payload in payloads)
            self._ready.notify()

    def close(self) -> None:
        """Send what is queued, then stop the thread and close its connection (bounded wait)."""
        with self._ready:
            thread, self._thread = self._thread, None
            if thread is None or self._pid != os.getpid():
                return
            self._stopping = True
            self._ready.notify()
        thread.join(STOP_WAIT_S)

    def _send_forever(self) -> None:
        connection: psycopg.Connection[Any] | None = None
        try:
            while True:
                with self._ready:
                    while not self._pending and not self._stopping:
                        self._ready.wait()
                    batch, self._pending = self._pending, []
                    stopping = self._stopping
                if batch:
                    connection = self._send(connection, batch)
                if stopping and not batch:
                    return
        finally:
            if connection is not None:
                connection.close()

    def _send(
        self, connection: psycopg.Connection[Any] | None, batch: list[tuple[str, str]]
    ) -> psycopg.Connection[Any] | None:
        """Send ``batch`` in one statement, trying a new connection once; the one to go on with."""
        channels, payloads = [c for c, _p in batch], [p for _c, p in batch]
        for attempt in (1, 2):
            try:
                if connection is None or connection.closed:
                    connection = self._connect()
                if len(batch) == 1:
                    connection.execute(_SEND_ONE, (channels[0], payloads[0]))
                else:
                    connection.execute(_SEND_MANY, (channels, payloads))
                return connection
            except Exception as exc:  # closed by the server, or the database is away
                if connection is not None:
                    connection.close()
                connection = None
                if attempt == 2:
                    log.warning(
                        "could not notify other workers (%s); their streams catch up at the "
                        "next event",
                        type(exc).__name__,
                    )
        return None

    def _connect(self) -> psycopg.Connection[Any]:
        # Imported here: a SQLite server never notifies (psycopg costs start-up time).
        import psycopg

        return psycopg.connect(
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
