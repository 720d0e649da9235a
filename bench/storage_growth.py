"""(b) One Interlock conversation to N turns: what each turn writes to the database.

Every turn has one approval ("add a note t<i>" → run.paused → approve → run.completed), over
HTTP + SSE against uvicorn serving in *this* process and loop, so the server's SQLAlchemy
engine can be instrumented:

* bytes: the WAL is checkpointed and truncated (``PRAGMA wal_checkpoint(TRUNCATE)``) after
  every turn, so the WAL size at the end of a turn is exactly the pages the turn wrote
  (frames of page size + 24 bytes); the main file's growth across the checkpoint is the net
  new storage;
* write time: the DBAPI ``COMMIT`` (``dialect.do_commit``, wrapped on this engine instance)
  plus the execution time of INSERT/UPDATE/DELETE statements (``before/after_cursor_execute``),
  as wall time and as the writing thread's CPU time (steady on a busy machine). SELECT
  execution time is reported apart.

Values reported for turn k are medians over the five turns ending at k (one turn is ~20
commits of ~50-100 µs each, so a single turn is noisy).
"""

from __future__ import annotations

import gc
import sqlite3
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import AsyncExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine

from client import hitl_cycle
from common import (
    DbTimes,
    TurnRecord,
    checkpoint_truncate,
    file_sizes,
    is_write,
    median,
    stamp,
    turn_record,
)
from interlock.api.app import freeze_startup_objects
from load_client import LoadClient
from server import bench_settings, inprocess_server, prepare_database

WINDOW = 5


@contextmanager
def instrument(engine: Engine) -> Iterator[DbTimes]:
    """Time commits and statements on ``engine`` while the context is open."""
    times = DbTimes()
    dialect: Any = engine.dialect  # do_commit is replaced on this instance only
    original_commit: Callable[[Any], None] = dialect.do_commit

    def timed_commit(dbapi_connection: Any) -> None:
        started = stamp()
        original_commit(dbapi_connection)
        times.add("commit", started)

    def before(conn: Any, _cursor: Any, _statement: str, *_args: Any) -> None:
        conn.info.setdefault("bench_started", []).append(stamp())

    def after(conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        times.add("write" if is_write(statement) else "read", conn.info["bench_started"].pop())

    dialect.do_commit = timed_commit
    event.listen(engine, "before_cursor_execute", before)
    event.listen(engine, "after_cursor_execute", after)
    try:
        yield times
    finally:
        event.remove(engine, "before_cursor_execute", before)
        event.remove(engine, "after_cursor_execute", after)
        dialect.do_commit = original_commit


@dataclass
class _Drive:
    """One in-process server with one conversation and its stream, driven a turn at a time."""

    db_path: Path
    client: LoadClient
    stream: Any
    conversation_id: str
    times: DbTimes
    checkpointer: sqlite3.Connection
    wait_idle: Callable[[], Awaitable[None]]

    async def turn(self, turn: int) -> TurnRecord:
        """Drive turn ``turn``; return what it wrote and cost."""
        before = file_sizes(self.db_path)
        self.times.reset()
        start = time.perf_counter()
        cpu_start = time.process_time()
        await hitl_cycle(self.client, self.stream, self.conversation_id, turn)
        await self.wait_idle()
        wall = time.perf_counter() - start
        cpu = time.process_time() - cpu_start
        wal = file_sizes(self.db_path).wal
        checkpoint_truncate(self.checkpointer)
        after = file_sizes(self.db_path)
        return turn_record(turn, wal, after.main - before.main, self.times, wall, cpu)


async def _open_drive(
    servers: AsyncExitStack, stack: AsyncExitStack, directory: Path, name: str
) -> _Drive:
    """Start a server on a new database ``name`` in ``directory`` (stopped with ``servers``)
    with a conversation and its stream (closed with ``stack``)."""
    db_path, url = prepare_database(directory, name)
    live = await servers.enter_async_context(inprocess_server(bench_settings(url)))
    client = LoadClient(live.url)
    stack.push_async_callback(client.aclose)
    checkpointer = sqlite3.connect(db_path)
    stack.callback(checkpointer.close)
    conversation_id = await client.new_conversation()
    stream = await stack.enter_async_context(client.events(conversation_id))
    times = stack.enter_context(instrument(live.services.db.engine))
    checkpoint_truncate(checkpointer)
    return _Drive(
        db_path,
        client,
        stream,
        conversation_id,
        times,
        checkpointer,
        live.services.engine.wait_idle,
    )


async def interlock_growth(
    directory: Path, turns: int, paired: int = 0
) -> tuple[list[TurnRecord], list[TurnRecord]]:
    """Drive one conversation to ``turns`` turns; return what each turn wrote.

    With ``paired`` > 0, a second server on a new database starts after turn ``turns -
    paired`` and a new conversation there takes its turns 1 to ``paired`` alternately with
    the long conversation's last ``paired`` turns (fresh turn k, then long turn ``turns -
    paired + k``): its records are returned second (else an empty list).
    """
    records: list[TurnRecord] = []
    fresh_records: list[TurnRecord] = []
    start_fresh = turns - paired if 0 < paired <= turns - paired else None
    # Every stream is closed before any server stops: a stopping server ends the event
    # streams of every server on this event loop (sse-starlette watches for shutdown once
    # per loop).
    async with AsyncExitStack() as servers, AsyncExitStack() as stack:
        long = await _open_drive(servers, stack, directory, "interlock.db")
        stack.enter_context(_server_gc())
        fresh: _Drive | None = None
        for turn in range(1, turns + 1):
            if fresh is not None and start_fresh is not None:
                fresh_records.append(await fresh.turn(turn - start_fresh))
            records.append(await long.turn(turn))
            if turn == start_fresh:
                fresh = await _open_drive(servers, stack, directory, "fresh.db")
    return records, fresh_records


@contextmanager
def _server_gc() -> Iterator[None]:
    """The collector as ``interlock serve`` sets it once started (start-up objects frozen,
    young collections every 7,000 allocations), restored afterwards.

    The in-process servers get their services from the benchmark, so the app does not do
    this itself (it does so only for a real server); without it the turns would be measured
    under Python's default thresholds, with every import's objects in sight of the collector.
    """
    threshold = gc.get_threshold()
    freeze_startup_objects()
    try:
        yield
    finally:
        gc.unfreeze()
        gc.set_threshold(*threshold)


def at_turn(records: list[Any], turn: int, attr: str) -> float:
    """Median of ``attr`` over the :data:`WINDOW` turns ending at ``turn`` (1-based)."""
    window = [getattr(r, attr) for r in records if turn - WINDOW < r.turn <= turn]
    return median(window)


def report_turns(turns: int) -> list[int]:
    """Which of 10, 50, 100, 200 a run of ``turns`` turns can report."""
    return [t for t in (10, 50, 100, 200) if t <= turns]
