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

import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
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


async def interlock_growth(directory: Path, turns: int) -> list[TurnRecord]:
    """Drive one conversation to ``turns`` turns; return what each turn wrote."""
    db_path, url = prepare_database(directory)
    records: list[TurnRecord] = []
    async with inprocess_server(bench_settings(url)) as live:
        client = LoadClient(live.url)
        checkpointer = sqlite3.connect(db_path)
        try:
            conversation_id = await client.new_conversation()
            async with client.events(conversation_id) as stream:
                with instrument(live.services.db.engine) as times:
                    checkpoint_truncate(checkpointer)
                    for turn in range(1, turns + 1):
                        before = file_sizes(db_path)
                        times.reset()
                        start = time.perf_counter()
                        cpu_start = time.process_time()
                        await hitl_cycle(client, stream, conversation_id, turn)
                        await live.services.engine.wait_idle()
                        wall = time.perf_counter() - start
                        cpu = time.process_time() - cpu_start
                        wal = file_sizes(db_path).wal
                        checkpoint_truncate(checkpointer)
                        after = file_sizes(db_path)
                        records.append(
                            turn_record(turn, wal, after.main - before.main, times, wall, cpu)
                        )
        finally:
            checkpointer.close()
            await client.aclose()
    return records


def at_turn(records: list[Any], turn: int, attr: str) -> float:
    """Median of ``attr`` over the :data:`WINDOW` turns ending at ``turn`` (1-based)."""
    window = [getattr(r, attr) for r in records if turn - WINDOW < r.turn <= turn]
    return median(window)


def report_turns(turns: int) -> list[int]:
    """Which of 10, 50, 100, 200 a run of ``turns`` turns can report."""
    return [t for t in (10, 50, 100, 200) if t <= turns]
