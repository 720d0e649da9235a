"""Database engine, sessions and the bounded thread pool every database call runs on.

The server never touches the database on its event loop: async code calls
``await db.run(fn, *args)``, which runs the plain synchronous function ``fn`` (one
transaction, written with ordinary SQLAlchemy sessions) on a small thread pool of this
database. A call stuck on a lock therefore holds one pool thread, never the loop, so
``/api/health`` and open streams keep answering.

Waiting is bounded by ``lock_timeout_s`` (``INTERLOCK_DB_LOCK_TIMEOUT_S``): SQLite's busy
timeout, PostgreSQL's ``lock_timeout`` and the wait for a pooled connection. The bound holds
for a call's whole wait (see :mod:`~interlock.storage.writer`, and
:mod:`~interlock.storage.pg_begin` for PostgreSQL's waits for locks): a request's call from
its submission (a wait for a free thread included), a run's step from its start, every try of
:meth:`Database.run_transaction` from the first. Past it the call
fails with :class:`~interlock.errors.DatabaseBusy` (503 ``database_busy``) and its
transaction is rolled back, so nothing is half written. PostgreSQL sessions also carry a
``statement_timeout``. SQLite runs in WAL mode, so readers never wait for the writer; its
writers of this process queue for the one write lock in :mod:`interlock.storage.writer`
(request threads first), not in SQLite's sleeping busy handler.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from sqlalchemy import event
from sqlalchemy.engine import Engine, make_url
from sqlmodel import Session, create_engine

from interlock.errors import DatabaseBusy
from interlock.storage import pg_pool, pg_priority, write_behind
from interlock.storage.db_calls import Call, run_deferred
from interlock.storage.db_errors import (
    TRANSACTION_TRIES,
    is_busy_error,
    is_conflict,
    retry_wait_s,
)
from interlock.storage.models.conversations import add_postgresql_options
from interlock.storage.pg_notify import Notifier
from interlock.storage.writer import (
    GatedConnection,
    WriteGate,
    attach,
    gate_for,
    mark_urgent_thread,
    set_write_deadline,
    write_deadline,
)

log = logging.getLogger(__name__)

DEFAULT_LOCK_TIMEOUT_S = 5.0
DEFAULT_STATEMENT_TIMEOUT_S = 30.0
DB_THREADS = 6
"""Threads running database calls. PostgreSQL's pool keeps two connections per thread (a
function may open a second, short session, e.g. the employee cache): see
:mod:`~interlock.storage.pg_pool`."""
RUN_THREADS = 2
"""Of those, the threads for runs' steps; the others serve requests (and background sweeps),
so a person's request never queues behind the steps of many busy runs. Two, not more: a
step's database work is short and CPU-bound under the GIL (model calls and tools run
elsewhere), so more run threads only take turns at the GIL with the request threads (bench
(d), 50 conversations cycling on PostgreSQL: decision POST p95 about 600 ms with 8 run
threads, about 95 ms with 2, same throughput) (on SQLite their writes
also go first: :func:`~interlock.storage.writer.mark_urgent_thread`)."""

run_work: ContextVar[bool] = ContextVar("interlock_run_work", default=False)
"""Set in a run's task (``engine.driving``): its database calls go to the runs' threads."""

P = ParamSpec("P")
T = TypeVar("T")


class Database:
    """Owns the SQLAlchemy engine and the thread pool database calls run on.

    Args:
        url: SQLAlchemy URL; ``postgresql://`` is read as ``postgresql+psycopg://``.
        lock_timeout_s: Longest wait for a lock or a pooled connection, in seconds, before a
            call fails with ``database_busy``.
        statement_timeout_s: PostgreSQL's ``statement_timeout``, in seconds (longer than
            ``lock_timeout_s``, so a wait for a lock ends as ``database_busy`` first).
    """

    def __init__(
        self,
        url: str,
        *,
        lock_timeout_s: float = DEFAULT_LOCK_TIMEOUT_S,
        statement_timeout_s: float = DEFAULT_STATEMENT_TIMEOUT_S,
    ) -> None:
        parsed = make_url(url)
        if parsed.drivername in ("postgresql", "postgres"):
            parsed = parsed.set(drivername="postgresql+psycopg")
        self.url = parsed
        self.is_sqlite = parsed.get_backend_name() == "sqlite"
        self.lock_timeout_s = lock_timeout_s
        kwargs: dict[str, Any] = {}
        gate: WriteGate | None = None
        self.notifier: Notifier | None = None
        """PostgreSQL: sends notifications after commits (:mod:`~interlock.storage.pg_notify`)."""
        if self.is_sqlite:
            connect_args: dict[str, Any] = {"check_same_thread": False, "timeout": lock_timeout_s}
            if parsed.database and parsed.database != ":memory:":
                path = Path(parsed.database)
                path.parent.mkdir(parents=True, exist_ok=True)
                kwargs["pool_timeout"] = lock_timeout_s
                gate = gate_for(str(path.resolve()))
                connect_args["factory"] = GatedConnection
            kwargs["connect_args"] = connect_args
        else:
            add_postgresql_options()
            lock_ms, statement_ms = int(lock_timeout_s * 1000), int(statement_timeout_s * 1000)
            kwargs["connect_args"] = {
                "options": f"-c lock_timeout={lock_ms} -c statement_timeout={statement_ms}"
            }
            kwargs["pool_timeout"] = lock_timeout_s
            kwargs.update(pg_pool.pool_options(DB_THREADS))
            self.notifier = Notifier(parsed, lock_timeout_s)
        self.engine: Engine = create_engine(parsed, **kwargs)
        if self.is_sqlite:
            event.listen(
                self.engine,
                "connect",
                functools.partial(_sqlite_on_connect, gate=gate, lock_timeout_s=lock_timeout_s),
            )
        else:
            from interlock.storage import pg_wait  # imports psycopg: PostgreSQL only

            pg_wait.install(self.engine)
            pg_pool.ping_when_idle(self.engine)
            pg_pool.keep_prepared_statements(self.engine)
            write_behind.install(self.engine, lock_timeout_s)
        self._executors: tuple[ThreadPoolExecutor, ThreadPoolExecutor] | None = None
        self._executor_pid = 0

    @contextmanager
    def session(self) -> Iterator[Session]:
        """Yield a new session; commit is the caller's, rollback happens on error.

        Raises:
            DatabaseBusy: A lock or a pooled connection was not had within ``lock_timeout_s``
                (the transaction is rolled back).
        """
        # A session outside a call of run() (a plain ``def`` endpoint, the CLI) has a bound
        # of its own on its waits to write; inside one, the call's holds.
        own_deadline = self.is_sqlite and write_deadline() is None
        if own_deadline:
            set_write_deadline(time.monotonic() + self.lock_timeout_s)
        with Session(self.engine, expire_on_commit=False) as session:
            try:
                yield session
            except BaseException as exc:
                session.rollback()
                if is_busy_error(exc):
                    raise DatabaseBusy(
                        "The database is busy; nothing was written. Try again."
                    ) from exc
                raise
            finally:
                if own_deadline:
                    set_write_deadline(None)

    async def run(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """Run the synchronous ``fn(*args, **kwargs)`` on the database thread pool.

        ``fn`` opens its own session(s), usually one transaction. When the caller is
        cancelled, the call still runs to its end (a thread cannot be stopped) and the
        cancellation is raised only after it, so nothing the caller does next overlaps it.
        A run's steps (:data:`run_work` set) go to threads of their own, requests to the
        others: a request waits only for other requests. On PostgreSQL the runs' threads also
        give way to requests' calls while these run (:mod:`~interlock.storage.pg_priority`).

        Returns:
            What ``fn`` returns.

        Raises:
            DatabaseBusy: From ``fn`` (see :meth:`session`); any other exception of ``fn``.
        """
        return await self._run(functools.partial(fn, *args, **kwargs), None)

    async def _run(self, fn: Callable[[], T], deadline: float | None) -> T:
        """:meth:`run` with the deadline of the call's waits for locks (None: ``lock_timeout_s``
        from its submission for a request, from its start on a thread for a run's step)."""
        loop = asyncio.get_running_loop()
        requests, runs = self._pools()
        is_run = run_work.get()
        if deadline is None and not is_run:
            deadline = time.monotonic() + self.lock_timeout_s  # a wait for a thread counts
        call = Call(loop, fn, deadline, self.lock_timeout_s)
        if is_run:
            runs.submit(call.run)
        elif self.is_sqlite:
            requests.submit(call.run)
        else:  # runs' threads give way to it (storage/pg_priority.py)
            requests.submit(pg_priority.REQUESTS.run, call.run)
        try:
            await call.waiter
        except asyncio.CancelledError:
            if call.outcome is None:  # still running: wait for its end, then be cancelled
                call.waiter = loop.create_future()
                await asyncio.wait({call.waiter})
            if call.outcome is not None:
                run_deferred(call.outcome.deferred)
            raise
        outcome = call.outcome
        assert outcome is not None
        run_deferred(outcome.deferred)
        if outcome.error is not None:
            raise outcome.error
        return outcome.value  # type: ignore[return-value]

    async def run_transaction(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """:meth:`run` for ``fn`` that is one transaction with no effect outside it before its
        commit: run again (at most :data:`TRANSACTION_TRIES` times in all) when PostgreSQL
        ended it to break a deadlock or a serialization conflict with another transaction.

        The transactions of one conversation take its rows in one order, so they do not
        deadlock with each other (:func:`~interlock.engine.open_calls.lock_open_calls`); this is
        for what remains (another order, a serialization failure): the one PostgreSQL picks
        would otherwise answer 503 ``database_busy``, though run again it simply meets the
        other's outcome. Each try after the first waits a little first (:data:`RETRY_WAIT_S`),
        so the transaction that won goes first; none starts once ``lock_timeout_s`` has passed
        since the first began, and a lock wait that timed out is never run again: what is
        stuck ends in 503 ``database_busy``, every try rolled back.

        Raises:
            DatabaseBusy: A lock or connection wait timed out, or the conflicts went on.
        """
        started = time.monotonic()
        call = functools.partial(fn, *args, **kwargs)
        for attempt in range(1, TRANSACTION_TRIES + 1):
            try:
                return await self._run(call, started + self.lock_timeout_s)
            except DatabaseBusy as exc:
                if attempt == TRANSACTION_TRIES or not is_conflict(exc.__cause__):
                    raise
                wait_s = retry_wait_s(attempt)
                if time.monotonic() - started + wait_s >= self.lock_timeout_s:
                    raise
                log.info(
                    "transaction %s run again in %.3f s after %s",
                    fn.__name__,
                    wait_s,
                    exc.__cause__,
                )
                await asyncio.sleep(wait_s)
        raise AssertionError("unreachable")

    def _pools(self) -> tuple[ThreadPoolExecutor, ThreadPoolExecutor]:
        # A forked worker process must not inherit its parent's threads: make its own.
        if self._executors is None or self._executor_pid != os.getpid():
            self._executors = (
                ThreadPoolExecutor(
                    DB_THREADS - RUN_THREADS,
                    thread_name_prefix="interlock-db",
                    initializer=mark_urgent_thread,
                ),
                ThreadPoolExecutor(
                    RUN_THREADS,
                    thread_name_prefix="interlock-db-run",
                    initializer=pg_priority.mark_run_thread,
                ),
            )
            self._executor_pid = os.getpid()
        return self._executors

    def dispose(self) -> None:
        """Stop the thread pool (waiting for running calls), close pooled connections and the
        notifying one."""
        if self._executors is not None and self._executor_pid == os.getpid():
            for executor in self._executors:
                executor.shutdown(wait=True)
        self._executors = None
        if self.notifier is not None:
            self.notifier.close()
        self.engine.dispose()


def _sqlite_on_connect(
    dbapi_connection: Any, _record: Any, *, gate: WriteGate | None, lock_timeout_s: float
) -> None:
    if gate is not None:
        attach(dbapi_connection, gate, lock_timeout_s)
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute(f"PRAGMA busy_timeout={int(lock_timeout_s * 1000)}")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()
