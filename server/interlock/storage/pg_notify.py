"""PostgreSQL notifications sent with a commit, outside the transaction they announce.

Why not ``NOTIFY`` inside the transaction: a committing transaction that sent notifications
holds one lock for the whole database cluster from just before its commit until after it
(PostgreSQL orders the notification queue that way), and a commit waits for its WAL to reach
the disk. So every transaction storing events committed one at a time, each holding that lock
through its own disk flush (about 3 ms on the benchmark machine), and none could share a
flush with another. Under load most commits queued for it (bench (d): the most frequent wait
of active backends after the WAL flush itself), and with them every lock the transactions
held, such as the audit chain's (``pg_advisory_xact_lock``) in a decision's.

Here the ``NOTIFY`` goes right after the data transaction's ``COMMIT``, in the same round trip
(psycopg's pipeline mode, :func:`notify_with_commit`): one ``SELECT pg_notify(...)`` that is a
transaction of its own, with ``synchronous_commit`` off, so it holds the lock only for the
moment of its commit (it writes nothing that must reach the disk first: a notification is not
durable anyway). PostgreSQL runs it as soon as the ``COMMIT`` is done, without waiting for the
client: the committing thread does not have to win the GIL back and send another statement
first (bench (d) under load: that took a decision's notification about 9 ms at the median,
45 ms at p95). When the ``COMMIT`` fails, the ``NOTIFY`` is not run. A listener that receives
a notification finds its rows committed: those the payload carries
(:mod:`~interlock.streaming.announce`) and any it reads from storage.

When the ``COMMIT`` went out alone (none of the batches that carry it was used), or the
``NOTIFY`` after it failed, the committing thread sends the notifications after the commit
on a connection of its own (:class:`Notifier`: one per thread, in autocommit mode with
``synchronous_commit`` off). (Measured alternatives, bench (d) under load: one connection
shared by the threads made a decision's answer wait for the others' notifications, about 12
ms on average; one notifying thread fed by a queue freed the answer but the thread's turn at
the GIL delayed the notification itself, about 15 ms at the median.)

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
from collections.abc import MutableMapping
from dataclasses import dataclass
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
# After a COMMIT in a pipeline: a transaction of its own (committed at the pipeline's end),
# whose commit need not wait for the disk.
_ASYNC = "set_config('synchronous_commit', 'off', true)"
_SEND_ONE_AFTER_COMMIT = f"SELECT {_ASYNC}, pg_notify(%s, %s)"
_SEND_MANY_AFTER_COMMIT = (
    f"SELECT {_ASYNC}, pg_notify(%s, payload) FROM unnest(%s::text[]) AS payload"
)
_WITH_COMMIT = "interlock_notify_with_commit"
"""``Connection.info`` key: the :class:`WithCommit` of the transaction's ``COMMIT``."""

log = logging.getLogger(__name__)


@dataclass
class WithCommit:
    """Notifications asked to go out in the round trip of a transaction's ``COMMIT``.

    Attributes:
        channel: The channel.
        payloads: The payloads, in order.
        sent: Set once PostgreSQL ran them (the caller sends them otherwise).
    """

    channel: str
    payloads: list[str]
    sent: bool = False


def notify_with_commit(
    info: MutableMapping[Any, Any], channel: str, payloads: list[str]
) -> WithCommit:
    """Ask for ``payloads`` to go out on ``channel`` right after the ``COMMIT`` of the
    transaction of the connection whose ``Connection.info`` is ``info``, in its round trip.

    The code that sends that ``COMMIT`` in a pipeline calls :func:`queue_after_commit`; the
    caller must :func:`forget_with_commit` once the transaction ended, and send the
    notifications itself when they were not ``sent``.
    """
    asked = info[_WITH_COMMIT] = WithCommit(channel, payloads)
    return asked


def asked_with_commit(info: MutableMapping[Any, Any]) -> bool:
    """Whether notifications wait to go out with this connection's ``COMMIT``."""
    return _WITH_COMMIT in info


def forget_with_commit(info: MutableMapping[Any, Any]) -> None:
    """Drop what :func:`notify_with_commit` asked (the transaction ended)."""
    info.pop(_WITH_COMMIT, None)


def queue_after_commit(info: MutableMapping[Any, Any], driver: Any) -> AfterCommit | None:
    """Queue the notifications asked for this connection's ``COMMIT`` on ``driver`` (a psycopg
    connection in pipeline mode, its ``COMMIT`` just queued). None when none were asked.

    The caller settles them with :meth:`AfterCommit.settle` once the pipeline ended (also when
    it failed).
    """
    asked: WithCommit | None = info.pop(_WITH_COMMIT, None)
    if asked is None or not asked.payloads:
        return None
    cursor = driver.cursor()
    if len(asked.payloads) == 1:
        cursor.execute(_SEND_ONE_AFTER_COMMIT, (asked.channel, asked.payloads[0]))
    else:
        cursor.execute(_SEND_MANY_AFTER_COMMIT, (asked.channel, asked.payloads))
    return AfterCommit(asked, cursor)


@dataclass
class AfterCommit:
    """Notifications queued after a ``COMMIT`` in a pipeline (:func:`queue_after_commit`)."""

    asked: WithCommit
    cursor: Any

    def settle(self, error: Exception | None, commit_cursor: Any) -> bool:
        """Record whether the notifications went out; say whether ``error`` (what the
        pipeline raised, or None) was theirs alone, the ``COMMIT`` done (then the caller goes
        on as after a clean commit, and the notifications are sent on another connection)."""
        from psycopg.pq import ExecStatus

        if error is None:
            self.asked.sent = True
            return False
        done = commit_cursor.pgresult is not None
        if done and commit_cursor.pgresult.status == ExecStatus.COMMAND_OK:
            log.info("a notification after a commit failed (%s); sending it again", error)
            return True
        return False


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
