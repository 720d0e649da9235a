"""The bare in-process LangGraph baseline for (a) and (b).

``langchain.agents.create_agent`` with ``HumanInTheLoopMiddleware(interrupt_on={"notes_add":
True})`` and a file-backed ``SqliteSaver``, driven by Interlock's own deterministic
``OfflineChatModel`` (the same model the Interlock server uses, so both sides get the same
tool call and the same final answer). The ``notes_add`` tool inserts a row into a SQLite
notes table, like Interlock's ``notes.add``.

A cycle: ``invoke({"messages": [user]})`` → ``__interrupt__`` → ``invoke(Command(resume=
{"decisions": [{"type": "approve"}]}))`` → final AI message. Sync ``invoke`` (SqliteSaver is a
sync saver); no HTTP, no event stream, no token streaming: this is the floor the HTTP server is
compared with.

Both SQLite connections use WAL with ``synchronous=NORMAL``, the same durability settings as
Interlock's database (``SqliteSaver.setup`` only sets WAL; left alone it would fsync on every
commit and look slower than it needs to).
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware
from langchain_core.messages import AIMessage
from langchain_core.tools import BaseTool, tool
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.types import Command

from common import (
    ASK_PROMPT,
    WARMUP_CYCLES,
    DbTimes,
    TurnRecord,
    checkpoint_truncate,
    file_sizes,
    is_write,
    stamp,
    turn_record,
)
from hitl_http import CycleStats, Mode, cycle_stats
from interlock.models.offline import OfflineChatModel

APPROVE: Command[Any] = Command(resume={"decisions": [{"type": "approve"}]})
SYSTEM_PROMPT = (
    "You are Ada, a careful assistant inside Interlock. Tools marked ASK pause for the "
    "person's approval; if they reject a call, acknowledge it and do not retry unless asked. "
    "Use the suggestions tool when the person wants ideas or has to pick between options."
)
"""The built-in assistant's prompt (a constant here, so the baseline does not depend on how
Interlock stores employees)."""


TIMES = DbTimes()
"""Commit and statement times on the checkpoint connection (one agent at a time)."""


class TimedCursor(sqlite3.Cursor):
    """A cursor that adds its statements' time to :data:`TIMES`."""

    def execute(self, sql: str, parameters: Any = (), /) -> TimedCursor:
        started = stamp()
        super().execute(sql, parameters)
        TIMES.add("write" if is_write(sql) else "read", started)
        return self

    def executemany(self, sql: str, seq_of_parameters: Any, /) -> TimedCursor:
        started = stamp()
        super().executemany(sql, seq_of_parameters)
        TIMES.add("write", started)
        return self


class TimedConnection(sqlite3.Connection):
    """A connection whose cursors are :class:`TimedCursor` and whose commits are timed."""

    def cursor(self, factory: Any = TimedCursor) -> Any:
        return super().cursor(factory)

    def commit(self) -> None:
        started = stamp()
        super().commit()
        TIMES.add("commit", started)


def _connect(path: Path, *, timed: bool) -> sqlite3.Connection:
    factory = TimedConnection if timed else sqlite3.Connection
    conn = sqlite3.connect(path, check_same_thread=False, factory=factory)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    return conn


def _notes_tool(conn: sqlite3.Connection) -> BaseTool:
    conn.execute(
        "CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, owner_id TEXT, text TEXT NOT NULL,"
        " created_at TEXT DEFAULT CURRENT_TIMESTAMP)"
    )
    conn.commit()
    lock = threading.Lock()

    @tool("notes_add")
    def notes_add(text: str) -> str:
        """Save a short note for the person (a reminder, a to-do item, a fact to keep)."""
        with lock:
            cursor = conn.cursor()
            cursor.execute(
                "INSERT INTO notes (owner_id, text) VALUES (?, ?)", ("local", text.strip())
            )
            note_id = cursor.lastrowid
            conn.commit()
        return f"Added note #{note_id}: {text.strip()}"

    return notes_add


@dataclass
class Baseline:
    """A compiled agent with its checkpoint database."""

    agent: Any
    checkpoints: sqlite3.Connection
    notes: sqlite3.Connection
    checkpoint_path: Path

    def cycle(self, thread_id: str, i: int) -> None:
        """One HITL cycle; raises when the agent does not interrupt and then answer."""
        config = {"configurable": {"thread_id": thread_id}}
        message = {"role": "user", "content": ASK_PROMPT.format(name=f"n{i}")}
        first = self.agent.invoke({"messages": [message]}, config)
        if not first.get("__interrupt__"):
            raise RuntimeError("the baseline agent did not interrupt")
        final = self.agent.invoke(APPROVE, config)
        last = final["messages"][-1]
        if not isinstance(last, AIMessage) or not last.text.startswith("Done"):
            raise RuntimeError(f"unexpected baseline answer: {last!r}")

    def close(self) -> None:
        self.checkpoints.close()
        self.notes.close()


@contextmanager
def baseline(directory: Path) -> Iterator[Baseline]:
    """Build the baseline agent over SQLite files in ``directory``."""
    checkpoint_path = directory / "checkpoints.db"
    checkpoints = _connect(checkpoint_path, timed=True)
    notes = _connect(directory / "notes.db", timed=False)
    saver = SqliteSaver(checkpoints)
    saver.setup()
    agent = create_agent(
        OfflineChatModel(),
        [_notes_tool(notes)],
        system_prompt=SYSTEM_PROMPT,
        middleware=[HumanInTheLoopMiddleware(interrupt_on={"notes_add": True})],
        checkpointer=saver,
    )
    built = Baseline(agent, checkpoints, notes, checkpoint_path)
    try:
        yield built
    finally:
        built.close()


def baseline_cycles(directory: Path, cycles: int, mode: Mode) -> CycleStats:
    """Run ``WARMUP_CYCLES`` + ``cycles`` sequential cycles; time the last ``cycles``."""
    durations: list[float] = []
    cpu_start = 0.0
    with baseline(directory) as agent:
        for i in range(WARMUP_CYCLES + cycles):
            if i == WARMUP_CYCLES:
                cpu_start = time.process_time()
            thread_id = f"fresh-{i}" if mode == "fresh" else "same"
            start = time.perf_counter()
            agent.cycle(thread_id, i)
            if i >= WARMUP_CYCLES:
                durations.append(time.perf_counter() - start)
        cpu = time.process_time() - cpu_start
    return cycle_stats("langgraph", mode, durations, cpu, cpu)


def baseline_growth(directory: Path, turns: int) -> list[TurnRecord]:
    """One thread to ``turns`` turns (each with one approval); what each turn wrote.

    The WAL is checkpointed and truncated after every turn, so its size at the end of a turn is
    what the turn wrote (pages x (page size + 24-byte frame header) + 32-byte WAL header); the
    main file's growth across the checkpoint is the net new storage. Only the checkpoint
    database is measured, not the notes.
    """
    out: list[TurnRecord] = []
    with baseline(directory) as agent:
        checkpoint_truncate(agent.checkpoints)
        for turn in range(1, turns + 1):
            before = file_sizes(agent.checkpoint_path)
            TIMES.reset()
            start = time.perf_counter()
            cpu_start = time.process_time()
            agent.cycle("growth", turn)
            wall = time.perf_counter() - start
            cpu = time.process_time() - cpu_start
            wal = file_sizes(agent.checkpoint_path).wal
            checkpoint_truncate(agent.checkpoints)
            after = file_sizes(agent.checkpoint_path)
            out.append(turn_record(turn, wal, after.main - before.main, TIMES, wall, cpu))
    return out
