"""Run leases between server processes: heartbeats, takeover, and cancels from other processes.

Every server process is a row in ``workers`` (:mod:`~interlock.engine.workers`); its
heartbeat (every ``run_lease_s / 5``, on a thread and database connection of its own, so
neither a busy event loop nor busy database pools delay it) renews the lease on every run it
owns (``runs.owner_id``). A worker whose heartbeat is older than ``0.6 * run_lease_s`` is dead:
a sweep, run by one process at a time (a PostgreSQL advisory lock; SQLite has one process),
repairs its runs with the recovery rules (``engine.recovery``) and goes on with them here, so
a process killed with ``-9`` has its runs taken over within ``run_lease_s``. The repair of each
run checks again, in its own transaction, that the run still runs under that owner and that
its heartbeat is still old; the run's steps hold its row while they write (``engine.fence``),
so a worker that was only late writes nothing more for a run taken over. The start-up
recovery is the first sweep. A graceful stop deletes the worker's row, so its runs are taken
over at once.

Every beat of the sweep also reads the runs this process drives: a cancel requested on another
process (``runs.cancel_requested``, also sent as a ``NOTIFY``: :mod:`~interlock.engine.cancels`)
cancels the task here; a run taken over meanwhile (this process was cut off too long) is
abandoned without writing anything more.

Clocks: heartbeats and the cutoff are the processes' UTC clocks (keep hosts in sync, NTP).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, ParamSpec, TypeVar

from sqlalchemy import create_engine, delete, func, select, update
from sqlalchemy.engine import Engine as SaEngine
from sqlmodel import Session, col

from interlock.engine.recovery import Recovery, claim_takeover, recover_runs
from interlock.engine.workers import dead_before, deregister, register, this_worker
from interlock.storage import Run, Worker
from interlock.storage.db_errors import is_busy_error
from interlock.storage.models import as_utc, utcnow

if TYPE_CHECKING:
    from interlock.engine.runner import Engine

HEARTBEATS_PER_LEASE = 5
SWEEP_LOCK = 7_270_011
"""PostgreSQL advisory lock key held while sweeping (one process at a time)."""

log = logging.getLogger(__name__)

P = ParamSpec("P")
T = TypeVar("T")


class Leases:
    """This process's worker row, its heartbeat and the sweep for dead workers' runs.

    Args:
        engine: The engine (its ``worker_id`` names this process).
        lease_s: ``INTERLOCK_RUN_LEASE_S``.
    """

    def __init__(self, engine: Engine, lease_s: float) -> None:
        self._engine = engine
        self._db = engine.db
        self.lease_s = lease_s
        self.interval_s = lease_s / HEARTBEATS_PER_LEASE
        self._task: asyncio.Task[None] | None = None
        self._renewer: threading.Thread | None = None
        self._stop_renewing = threading.Event()
        self._renew_engine: SaEngine | None = None

    # -- life cycle ----------------------------------------------------------------------
    async def start(self) -> Recovery | None:
        """Register this worker, sweep once (start-up recovery), then beat in the background.

        The stopped runs are repaired before this returns (so the server never serves a
        conversation still held by a dead run); going on with them (takeover runs, resumes of
        decided pauses) happens in the background while the server already answers: a
        thousand decided pauses must not hold up a start. A request arriving first meets the
        usual compare-and-set on the conversation, as when a decision's own resume is late.

        Returns:
            What the first sweep repaired, or None when another process was sweeping.
        """
        await self._db.run(register, self._db, self._engine.worker_id, self.lease_s)
        found = await self.sweep(go_on_later=True)
        if self._renewer is None:
            self._stop_renewing.clear()
            self._renewer = threading.Thread(
                target=self._renew_forever, name="interlock heartbeat", daemon=True
            )
            self._renewer.start()
        if self._task is None:
            self._task = asyncio.create_task(self._beat_forever(), name="interlock heartbeat")
        return found

    async def stop(self) -> None:
        """Stop beating and delete this worker's row (its runs are taken over at once)."""
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None
        if self._renewer is not None:
            self._stop_renewing.set()
            renewer, self._renewer = self._renewer, None
            await asyncio.get_running_loop().run_in_executor(None, renewer.join)
        if self._renew_engine is not None:
            self._renew_engine.dispose()
            self._renew_engine = None
        try:
            await self._db.run(deregister, self._db, self._engine.worker_id)
        except Exception:  # the database is gone: the lease lapses instead
            log.warning("could not remove worker %s; its lease will lapse", self._engine.worker_id)

    # -- heartbeat -----------------------------------------------------------------------
    def _renew_forever(self) -> None:
        """Renew the lease every ``interval_s`` on a thread and connection of its own.

        Neither the event loop, nor the database thread pools, nor their pooled connections
        can hold it up: under load a late heartbeat let another worker take live runs over.
        """
        failing = False
        while not self._stop_renewing.wait(self.interval_s):
            try:
                self.renew()
            except Exception as exc:
                if not failing:  # one line per streak of failures, not one per beat
                    log.warning(
                        "heartbeat of worker %s failed (%s); retrying",
                        self._engine.worker_id,
                        type(exc).__name__,
                    )
                failing = True
            else:
                if failing:
                    log.info("heartbeat of worker %s beats again", self._engine.worker_id)
                failing = False

    def renew(self) -> None:
        """Renew this worker's lease now (a blocking call, on the heartbeat's connection).

        A row deleted meanwhile (this worker was taken for dead) is written again.
        """
        me = self._engine.worker_id
        with Session(self._renewal_engine()) as session:
            renewed = session.exec(  # type: ignore[call-overload]
                update(Worker).where(col(Worker.id) == me).values(heartbeat_at=utcnow())
            ).rowcount
            if renewed != 1:  # deleted as dead (cut off too long): back, with a new row
                session.add(this_worker(me))
            session.commit()

    def _renewal_engine(self) -> SaEngine:
        """The heartbeat's own connection (PostgreSQL); SQLite's one process uses the pool."""
        if self._db.is_sqlite:
            return self._db.engine
        if self._renew_engine is None:
            lock_ms = int(self._db.lock_timeout_s * 1000)
            self._renew_engine = create_engine(
                self._db.url,
                pool_size=1,
                max_overflow=0,
                pool_pre_ping=True,
                connect_args={
                    "options": f"-c lock_timeout={lock_ms} -c statement_timeout={2 * lock_ms}"
                },
            )
        return self._renew_engine

    async def _beat_forever(self) -> None:
        loop = asyncio.get_running_loop()
        failing = False
        while True:
            await asyncio.sleep(self.interval_s)
            try:
                # The default executor, not the database pool: a busy pool must not stop
                # the sweep (the lease itself is renewed on its own thread).
                local = self._engine.local_runs()
                cancel, lost = await loop.run_in_executor(None, self._check_runs, local)
                for run_id in cancel:
                    self._engine.cancel_local(run_id)
                for run_id in lost:
                    self._engine.abandon(run_id)
                await self.sweep()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                # One line per streak of failures, not a traceback every beat: a busy
                # database (a lock held elsewhere) is expected and says enough in a line.
                if is_busy_error(exc):
                    if not failing:
                        log.warning(
                            "sweep of worker %s waits: the database is busy (%s)",
                            self._engine.worker_id,
                            type(exc).__name__,
                        )
                elif not failing:
                    log.exception("sweep of worker %s failed", self._engine.worker_id)
                failing = True
            else:
                if failing:
                    log.info("sweep of worker %s works again", self._engine.worker_id)
                failing = False

    def _check_runs(self, local_runs: list[str]) -> tuple[list[str], list[str]]:
        """Return runs here to cancel and runs no longer this worker's (a blocking call)."""
        if not local_runs:
            return [], []
        me = self._engine.worker_id
        with self._db.session() as session:
            rows = session.exec(  # type: ignore[call-overload]
                select(
                    col(Run.id), col(Run.status), col(Run.owner_id), col(Run.cancel_requested)
                ).where(col(Run.id).in_(local_runs))
            ).all()
        cancel = [r for r, status, owner, wanted in rows if wanted and status == "running"]
        lost = [r for r, status, owner, _w in rows if status != "running" or owner != me]
        return cancel, lost

    # -- sweep ---------------------------------------------------------------------------
    async def sweep(self, *, go_on_later: bool = False) -> Recovery | None:
        """Repair dead workers' runs and go on with them here (one process at a time).

        Args:
            go_on_later: Return once repaired; start the takeovers and resumes in a task of
                their own (the start-up sweep).

        Returns:
            What was repaired, or None when another process holds the sweep.
        """
        found = await asyncio.get_running_loop().run_in_executor(None, self._sweep)
        if found is None:
            return None
        if found.repaired:
            log.warning("took over %d run(s) of stopped workers", len(found.repaired))
        if go_on_later:
            self._engine.in_background(self._go_on_logged(found), name="recovery: go on")
        else:
            await self._go_on(found)
        return found

    async def _go_on_logged(self, found: Recovery) -> None:
        try:
            await self._go_on(found)
        except Exception:  # a database hiccup: the next sweep finds the decided pauses again
            log.exception("going on with the runs recovered at start-up failed")

    async def _go_on(self, found: Recovery) -> None:
        """Start the takeover runs and resume the decided pauses a sweep found."""
        engine = self._engine
        for conversation_id, owner_id in found.takeover:
            run_id = await self._db.run(claim_takeover, engine, conversation_id)
            if run_id is not None:
                engine.start_task(run_id, conversation_id, owner_id)
        for conversation_id, message_id, owner_id in found.resume:
            await engine.resume_if_decided(conversation_id, message_id, owner_id)

    def _sweep(self) -> Recovery | None:
        with self._sweep_lock() as held:
            if not held:
                return None
            cutoff = dead_before(self.lease_s)
            with self._db.session() as session:
                workers = session.exec(select(Worker.id, Worker.heartbeat_at)).all()  # type: ignore[call-overload]
                live = {w for w, beat in workers if as_utc(beat) >= cutoff}
                live.add(self._engine.worker_id)
                dead = [w for w, _beat in workers if w not in live]
                found = recover_runs(self._engine, live, cutoff)
            if dead:
                with self._db.session() as session:
                    # Only rows still old: a worker that beat since keeps its row (without
                    # it, its live runs would look stale to the next sweep).
                    statement = delete(Worker).where(
                        col(Worker.id).in_(dead), col(Worker.heartbeat_at) < cutoff
                    )
                    session.exec(statement)  # type: ignore[call-overload]
                    session.commit()
            return found

    def exclusively(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T | None:
        """Run ``fn`` unless another process is sweeping (a blocking call).

        Returns:
            What ``fn`` returned, or None when another process holds the sweep lock.
        """
        with self._sweep_lock() as held:
            return fn(*args, **kwargs) if held else None

    @contextmanager
    def _sweep_lock(self) -> Iterator[bool]:
        if self._db.is_sqlite:
            yield True
            return
        with self._db.engine.connect() as connection:
            held = bool(connection.execute(select(func.pg_try_advisory_lock(SWEEP_LOCK))).scalar())
            connection.commit()
            try:
                yield held
            finally:
                if held:
                    connection.execute(select(func.pg_advisory_unlock(SWEEP_LOCK)))
                    connection.commit()
