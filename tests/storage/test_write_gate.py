"""SQLite's one writer, queued in the process (``interlock.storage.writer``).

Writers of one database file wait for each other on the process's gate instead of polling in
SQLite's busy handler: the next one gets the lock the moment the previous commits or rolls
back, request threads ahead of run threads, and a wait past the lock timeout fails as
``database_busy`` with nothing written.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.exc import OperationalError

from interlock.errors import DatabaseBusy
from interlock.storage import Conversation, Database
from interlock.storage.migrate import upgrade
from interlock.storage.writer import WriteGate, gate_for, mark_urgent_thread

GUARD_S = 30.0


def _sqlite_db(tmp_path: Path, lock_timeout_s: float) -> Iterator[Database]:
    url = f"sqlite:///{tmp_path / 'interlock.db'}"
    upgrade(url)
    database = Database(url, lock_timeout_s=lock_timeout_s)
    try:
        yield database
    finally:
        database.dispose()


@pytest.fixture
def sqlite_db(tmp_path: Path) -> Iterator[Database]:
    """A database whose writers give up after 0.5 s (the busy cases)."""
    yield from _sqlite_db(tmp_path, 0.5)


@pytest.fixture
def patient_db(tmp_path: Path) -> Iterator[Database]:
    """A database whose writers wait up to :data:`GUARD_S` (the order cases: a writer that gave
    up while a busy machine started the next thread would leave the order incomplete)."""
    yield from _sqlite_db(tmp_path, GUARD_S)


def _wait_for(condition: threading.Event) -> None:
    assert condition.wait(GUARD_S), "timed out"


def _until_queued(gate: WriteGate, count: int) -> None:
    """Wait (bounded) until ``count`` writers wait for ``gate``."""
    deadline = time.monotonic() + GUARD_S
    while len(gate._queue) < count:
        assert time.monotonic() < deadline, "the writers never queued"
        threading.Event().wait(0.001)


def test_waiters_get_the_gate_in_order_urgent_ones_first() -> None:
    gate = WriteGate()
    holder = object()
    assert gate.acquire(holder, 1.0)
    order: list[str] = []
    queued = threading.Semaphore(0)

    def writer(name: str, urgent: bool) -> None:
        queued.release()
        assert gate.acquire(name, GUARD_S, urgent=urgent)
        order.append(name)
        gate.release(name)

    threads = []
    for name, urgent in [("run-1", False), ("run-2", False), ("request", True)]:
        thread = threading.Thread(target=writer, args=(name, urgent))
        thread.start()
        assert queued.acquire(timeout=GUARD_S)
        _until_queued(gate, len(threads) + 1)  # queued in this order
        threads.append(thread)
    gate.release(holder)
    for thread in threads:
        thread.join(GUARD_S)
    assert order == ["request", "run-1", "run-2"]
    assert gate.owner is None


def test_a_wait_past_the_timeout_gives_up_and_leaves_no_trace() -> None:
    gate = WriteGate()
    assert gate.acquire("holder", 1.0)
    assert not gate.acquire("late", 0.01)
    gate.release("holder")
    assert gate.owner is None  # the late waiter was skipped, not handed the gate
    assert gate.acquire("next", 0.01)


def test_a_write_transaction_holds_the_gate_until_it_commits(sqlite_db: Database) -> None:
    gate = gate_for(str(Path(sqlite_db.url.database or "").resolve()))
    with sqlite_db.session() as session:
        session.connection().execute(text("SELECT count(*) FROM conversations"))
        assert gate.owner is None  # nothing written yet
        session.add(Conversation(owner_id="ann", employee="assistant"))
        session.flush()
        assert gate.owner is not None
        session.commit()
        assert gate.owner is None
    with sqlite_db.session() as session:
        session.add(Conversation(owner_id="ann", employee="assistant"))
        session.flush()
        session.rollback()
        assert gate.owner is None
    with pytest.raises(OperationalError), sqlite_db.session() as session:
        session.connection().execute(text("INSERT INTO nowhere VALUES (1)"))
    assert gate.owner is None  # a statement refused before its transaction began


def test_a_writer_waits_for_the_one_before_and_times_out_as_busy(sqlite_db: Database) -> None:
    inside, done = threading.Event(), threading.Event()

    def long_writer() -> None:
        with sqlite_db.session() as session:
            session.add(Conversation(owner_id="ann", employee="assistant"))
            session.flush()
            inside.set()
            done.wait(GUARD_S)
            session.commit()

    thread = threading.Thread(target=long_writer)
    thread.start()
    try:
        _wait_for(inside)
        with pytest.raises(DatabaseBusy), sqlite_db.session() as session:
            session.add(Conversation(owner_id="bob", employee="assistant"))
            session.commit()
    finally:
        done.set()
        thread.join(GUARD_S)
    with sqlite_db.session() as session:  # the lock is free again; nothing of Bob's was written
        owners = session.connection().execute(text("SELECT owner_id FROM conversations"))
        assert [row[0] for row in owners] == ["ann"]
        session.add(Conversation(owner_id="bob", employee="assistant"))
        session.commit()


def test_a_request_thread_writes_before_waiting_run_threads(patient_db: Database) -> None:
    """Run threads queue first; a request thread arriving later still writes before them."""
    sqlite_db = patient_db
    order: list[str] = []
    inside, release = threading.Event(), threading.Event()
    gate = gate_for(str(Path(sqlite_db.url.database or "").resolve()))

    def holder() -> None:
        with sqlite_db.session() as session:
            session.add(Conversation(owner_id="holder", employee="assistant"))
            session.flush()
            inside.set()
            release.wait(GUARD_S)
            session.commit()

    def writer(name: str, urgent: bool) -> None:
        if urgent:
            mark_urgent_thread()
        with sqlite_db.session() as session:
            session.add(Conversation(owner_id=name, employee="assistant"))
            session.flush()
            order.append(name)
            session.commit()

    first = threading.Thread(target=holder)
    first.start()
    _wait_for(inside)
    threads = []
    for name, urgent in [("run", False), ("request", True)]:
        thread = threading.Thread(target=writer, args=(name, urgent))
        thread.start()
        threads.append(thread)
        _until_queued(gate, len(threads))
    release.set()
    for thread in [first, *threads]:
        thread.join(GUARD_S)
    assert order == ["request", "run"]
