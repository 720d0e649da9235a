"""SQLite's one writer, queued inside the process: requests first, then in arrival order.

SQLite lets one connection write at a time. Left to SQLite, writers that find the lock taken
sleep in its busy handler in growing steps (1, 2, 5 … 100 ms) and retry: a waiter can sleep
on for up to 100 ms after the lock came free, and whoever retries first wins, so under load a
person's decision waited behind whole queues of runs' steps, by chance. Here every connection
of a :class:`~interlock.storage.Database` on one file first takes this process's
:class:`WriteGate` before its transaction writes: waiters block on it without polling and are
handed the gate the moment the writer before them commits or rolls back, a thread serving
requests ahead of those serving runs, each class in arrival order. SQLite's own busy timeout
still covers writers in other processes (the CLI, a second server).

How: the DBAPI connection is a :class:`sqlite3.Connection` subclass whose cursors take the
gate just before the statement that makes ``sqlite3`` open a transaction (the first
``INSERT``/``UPDATE``/``DELETE``/``REPLACE`` outside one); ``commit``, ``rollback`` and
``close`` give it back. Waiting longer than the lock timeout fails like SQLite's own timeout
(``database is locked``, hence 503 ``database_busy`` with nothing written).

One bound for the whole wait: a database call given a deadline (:func:`set_write_deadline`,
set by :meth:`~interlock.storage.Database.run` from when a request's call was submitted) waits
for the gate only until then, and SQLite's busy timeout of the statement that follows is
lowered to what is left. Without it, a writer handed the gate just before its wait ended
(by one that had waited out its own busy timeout on another process's lock) would wait a whole
busy timeout more: 7.5 s for a 5 s setting.
"""

from __future__ import annotations

import heapq
import itertools
import sqlite3
import threading
import time
from collections.abc import Iterable
from typing import Any

_urgent = threading.local()
_deadline = threading.local()

_clock = time.monotonic
"""The clock of deadlines (tests move it on)."""

BUSY_SLACK_S = 0.05
"""SQLite's busy timeout is lowered only when less than this is left of the deadline, so a
writer that found the gate free sets no pragma."""

_DML = ("insert", "update", "delete", "replace", "savepoint")
"""Statements that begin a write transaction: ``sqlite3`` opens one before the first four, and
SQLite itself before a ``SAVEPOINT`` outside one (``session.begin_nested()``), after which
the writes inside would otherwise neither take the gate nor keep to the deadline."""


def mark_urgent_thread() -> None:
    """Make the calling thread's writes go ahead of other waiting writers (request threads).

    Used as a thread pool ``initializer``.
    """
    _urgent.value = True


def set_write_deadline(deadline: float | None) -> None:
    """Bound the calling thread's waits to write (gate and SQLite's busy timeout together;
    on PostgreSQL its waits for locks, :mod:`~interlock.storage.pg_begin`).

    Args:
        deadline: A :func:`time.monotonic` time; None: each wait has the whole lock timeout.
    """
    _deadline.value = deadline


def write_deadline() -> float | None:
    """The calling thread's deadline set by :func:`set_write_deadline` (None: none)."""
    return getattr(_deadline, "value", None)


def deadline_left_s() -> float | None:
    """Seconds left of the calling thread's deadline (negative past it; None: none set).

    PostgreSQL's transactions keep to it too (:func:`~interlock.storage.pg_begin.lock_wait_left_ms`).
    """
    deadline: float | None = getattr(_deadline, "value", None)
    return None if deadline is None else deadline - _clock()


def is_urgent_thread() -> bool:
    """Whether the calling thread was marked by :func:`mark_urgent_thread` (a request thread)."""
    return bool(getattr(_urgent, "value", False))


class _Waiter:
    """A queued writer: ``handed`` is a lock taken at creation and released to wake it (one C
    call each way, where a ``threading.Event`` is a condition variable in Python)."""

    __slots__ = ("cancelled", "handed", "owner")

    def __init__(self, owner: object) -> None:
        self.owner = owner
        self.handed = threading.Lock()
        self.handed.acquire()
        self.cancelled = False


class WriteGate:
    """A lock handed to waiters in order: urgent ones first, then by arrival.

    The owner is any object (the connection writing); it is never reentrant.
    """

    def __init__(self) -> None:
        self._mutex = threading.Lock()
        self._owner: object | None = None
        self._queue: list[tuple[int, int, _Waiter]] = []
        self._arrivals = itertools.count()

    @property
    def owner(self) -> object | None:
        """Who holds the gate now (None: free)."""
        return self._owner

    def acquire(self, owner: object, timeout_s: float, *, urgent: bool = False) -> bool:
        """Wait at most ``timeout_s`` seconds for the gate; True once ``owner`` holds it."""
        with self._mutex:
            if self._owner is None and not self._queue:
                self._owner = owner
                return True
            waiter = _Waiter(owner)
            heapq.heappush(self._queue, (0 if urgent else 1, next(self._arrivals), waiter))
        if waiter.handed.acquire(timeout=timeout_s):
            return True
        with self._mutex:
            if self._owner is owner:  # handed over just as the wait ended
                return True
            waiter.cancelled = True
        return False

    def release(self, owner: object) -> None:
        """Give the gate to the next waiter (if ``owner`` holds it)."""
        with self._mutex:
            if self._owner is not owner:
                return
            while self._queue:
                _priority, _arrival, waiter = heapq.heappop(self._queue)
                if not waiter.cancelled:
                    self._owner = waiter.owner
                    waiter.handed.release()
                    return
            self._owner = None


_gates: dict[str, WriteGate] = {}
_gates_mutex = threading.Lock()


def gate_for(path: str) -> WriteGate:
    """The process's gate of the database file ``path`` (one per file, shared by engines)."""
    with _gates_mutex:
        gate = _gates.get(path)
        if gate is None:
            gate = _gates[path] = WriteGate()
        return gate


def _is_dml(sql: str) -> bool:
    """Whether ``sqlite3`` opens a transaction before ``sql`` (its own test, comments aside)."""
    text = sql.lstrip()
    while text.startswith(("--", "/*")):
        end = text.find("\n") if text.startswith("--") else text.find("*/")
        if end < 0:
            return False
        text = text[end + (1 if text.startswith("--") else 2) :].lstrip()
    return text[:9].lower().startswith(_DML)


class GatedConnection(sqlite3.Connection):
    """A ``sqlite3`` connection whose write transactions hold its database's gate.

    :func:`attach` must be called once, right after connecting.
    """

    _gate: WriteGate | None = None
    _gate_timeout_s = 5.0
    _holds_gate = False
    _busy_lowered = False

    def cursor(self, factory: Any = None) -> Any:
        """A cursor taking the gate before the statement that begins a write transaction."""
        return super().cursor(factory or GatedCursor)

    def commit(self) -> None:
        try:
            super().commit()
        finally:
            self.give_back()

    def rollback(self) -> None:
        try:
            super().rollback()
        finally:
            self.give_back()

    def close(self) -> None:
        try:
            super().close()
        finally:
            self._holds_gate = False
            if self._gate is not None:
                self._gate.release(self)

    def take(self, sql: str) -> None:
        """Take the gate if ``sql`` begins a write transaction.

        Raises:
            sqlite3.OperationalError: ``database is locked`` after the lock timeout.
        """
        if self._holds_gate or self._gate is None or self.in_transaction or not _is_dml(sql):
            return
        deadline: float | None = getattr(_deadline, "value", None)
        # Past the deadline a free gate is still taken: the bound is on waiting, not working.
        wait_s = self._gate_timeout_s if deadline is None else deadline - _clock()
        urgent = getattr(_urgent, "value", False)
        if not self._gate.acquire(self, max(wait_s, 0.0), urgent=urgent):
            raise sqlite3.OperationalError("database is locked")
        self._holds_gate = True
        if deadline is not None:
            self._bound_busy_wait(deadline - _clock())

    def _bound_busy_wait(self, left_s: float) -> None:
        """Give SQLite's busy handler only ``left_s`` of the deadline, at least a millisecond
        (a lock that is free is still had); restored when the gate is given back."""
        if left_s >= self._gate_timeout_s - BUSY_SLACK_S:
            return
        self._set_busy_timeout(left_s)
        self._busy_lowered = True

    def _set_busy_timeout(self, seconds: float) -> None:
        # A plain cursor: a GatedCursor would hand the gate back (no transaction is open yet).
        cursor = sqlite3.Cursor(self)
        try:
            cursor.execute(f"PRAGMA busy_timeout={max(1, int(seconds * 1000))}")
        finally:
            cursor.close()

    def give_back(self) -> None:
        """Release the gate once no transaction is open any more."""
        if self._holds_gate and not self.in_transaction:
            self._holds_gate = False
            if self._busy_lowered:
                self._busy_lowered = False
                self._set_busy_timeout(self._gate_timeout_s)
            assert self._gate is not None
            self._gate.release(self)


class GatedCursor(sqlite3.Cursor):
    """The cursor of a :class:`GatedConnection`."""

    def execute(self, sql: str, parameters: Any = (), /) -> GatedCursor:
        connection: GatedConnection = self.connection  # type: ignore[assignment]
        connection.take(sql)
        try:
            super().execute(sql, parameters)
        finally:
            connection.give_back()  # a failed BEGIN, or a statement in autocommit mode
        return self

    def executemany(self, sql: str, seq_of_parameters: Iterable[Any], /) -> GatedCursor:
        connection: GatedConnection = self.connection  # type: ignore[assignment]
        connection.take(sql)
        try:
            super().executemany(sql, seq_of_parameters)
        finally:
            connection.give_back()
        return self


def attach(connection: Any, gate: WriteGate, timeout_s: float) -> None:
    """Give a new :class:`GatedConnection` its gate and its longest wait, in seconds."""
    if isinstance(connection, GatedConnection):
        connection._gate = gate
        connection._gate_timeout_s = timeout_s
