"""``Database.run_transaction``: a transaction PostgreSQL ends to break a deadlock runs again.

Found in QA: a decision and a new message racing on one conversation (two workers) lock the
call and the conversation in opposite orders; PostgreSQL ended one of them and the person got
503 ``database_busy`` for a request that, run again, simply meets the other's outcome. Here two
transactions take two rows in opposite orders: through :meth:`Database.run` one of them fails
with ``database_busy``; through :meth:`Database.run_transaction` both end committed, the loser
after running again. A lock wait that times out is not run again, nor does a try start once
the lock timeout has passed; each try after the first waits a little, so the winner goes
first; conflicts that go on end in ``database_busy`` after the last try.

Nothing here leans on timing: PostgreSQL's deadlock check (``deadlock_timeout``, 1 s after the
later of the two waits began) ends the crossing, well within the lock timeout, however late
the load lets the second wait begin; and the loser runs again only once the winner holds both
rows. Without that, the loser's new try could take the row its own abort freed before the
winner (woken, but not yet scheduled) did, and the two deadlock anew: both then run twice.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from itertools import pairwise

import pytest
from sqlalchemy import text
from sqlalchemy.exc import OperationalError

from interlock.errors import DatabaseBusy
from interlock.storage import Database
from interlock.storage.db_errors import RETRY_WAIT_S, TRANSACTION_TRIES

BARRIER_S = 30.0
"""Longest wait of a transaction for the other (a failing test must not hang)."""


@pytest.fixture
def pg_database(postgres_server: object) -> Iterator[Database]:
    """A Database on a new PostgreSQL database holding a table ``t`` of two rows."""
    url = postgres_server.create_database()  # type: ignore[attr-defined]
    # Lock waits longer than any load: the deadlock check must end the crossing, not a timeout.
    database = Database(url, lock_timeout_s=BARRIER_S, statement_timeout_s=2 * BARRIER_S)
    with database.session() as session:
        session.execute(text("CREATE TABLE t (id int PRIMARY KEY, v int NOT NULL)"))
        session.execute(text("INSERT INTO t VALUES (1, 0), (2, 0)"))
        session.commit()
    try:
        yield database
    finally:
        database.dispose()
        postgres_server.drop_database(url)  # type: ignore[attr-defined]


def _crossing(database: Database) -> tuple[Callable[[], str], Callable[[], str], list[str]]:
    """Two transactions updating rows 1 and 2 in opposite orders; each holds its first row
    until the other holds its own (first try only), so one of them must deadlock. A try after
    the first begins once the other transaction holds both rows (it won the deadlock)."""
    both_hold = threading.Barrier(2, timeout=BARRIER_S)
    holds_both = {"a": threading.Event(), "b": threading.Event()}
    tries: list[str] = []

    def crossing(name: str, other: str, first: int, second: int) -> str:
        first_try = name not in tries
        tries.append(name)
        if not first_try:
            assert holds_both[other].wait(BARRIER_S), f"{other} never took both rows"
        with database.session() as session:
            session.execute(text("UPDATE t SET v = v + 1 WHERE id = :id"), {"id": first})
            if first_try:
                both_hold.wait()
            session.execute(text("UPDATE t SET v = v + 1 WHERE id = :id"), {"id": second})
            holds_both[name].set()
            session.commit()
        return name

    return (lambda: crossing("a", "b", 1, 2)), (lambda: crossing("b", "a", 2, 1)), tries


def _values(database: Database) -> list[int]:
    with database.session() as session:
        return [int(v) for v in session.execute(text("SELECT v FROM t ORDER BY id")).scalars()]


@pytest.mark.postgres
async def test_a_deadlocked_transaction_runs_again_and_both_commit(pg_database: Database) -> None:
    a, b, tries = _crossing(pg_database)
    done = await asyncio.gather(pg_database.run_transaction(a), pg_database.run_transaction(b))
    assert sorted(done) == ["a", "b"]
    assert sorted(tries) in (["a", "a", "b"], ["a", "b", "b"])  # the loser ran twice
    assert _values(pg_database) == [2, 2]  # its first try left nothing


@pytest.mark.postgres
async def test_without_running_again_the_deadlock_is_database_busy(pg_database: Database) -> None:
    a, b, _ = _crossing(pg_database)
    done = await asyncio.gather(pg_database.run(a), pg_database.run(b), return_exceptions=True)
    assert sorted(type(d).__name__ for d in done) == ["DatabaseBusy", "str"]
    assert _values(pg_database) == [1, 1]


@pytest.mark.postgres
async def test_a_lock_wait_that_times_out_is_not_run_again(postgres_server: object) -> None:
    url = postgres_server.create_database()  # type: ignore[attr-defined]
    database = Database(url, lock_timeout_s=0.2)
    holder = Database(url)
    tries: list[int] = []
    try:
        with database.session() as session:
            session.execute(text("CREATE TABLE t (id int PRIMARY KEY, v int NOT NULL)"))
            session.execute(text("INSERT INTO t VALUES (1, 0)"))
            session.commit()

        def blocked() -> None:
            tries.append(1)
            with database.session() as session:
                session.execute(text("UPDATE t SET v = 1 WHERE id = 1"))

        with holder.session() as session:
            session.execute(text("SELECT * FROM t WHERE id = 1 FOR UPDATE"))
            with pytest.raises(DatabaseBusy):
                await database.run_transaction(blocked)
        assert tries == [1]
    finally:
        database.dispose()
        holder.dispose()
        postgres_server.drop_database(url)  # type: ignore[attr-defined]


class _Deadlock(Exception):
    """What psycopg raises for PostgreSQL's deadlock (its SQLSTATE only)."""

    sqlstate = "40P01"


def _conflicting(tries: list[float]) -> Callable[[], None]:
    """A transaction PostgreSQL ends as a deadlock at every try (as ``Database.session``
    raises it); ``tries`` gets the time each try began."""

    def conflicting() -> None:
        tries.append(time.monotonic())
        busy = DatabaseBusy("The database is busy; nothing was written. Try again.")
        busy.__cause__ = OperationalError("UPDATE t", {}, _Deadlock("deadlock detected"))
        raise busy

    return conflicting


async def test_conflicts_that_go_on_end_in_database_busy_each_try_after_a_wait(
    tmp_path: object,
) -> None:
    database = Database(f"sqlite:///{tmp_path}/t.db", lock_timeout_s=30.0)
    tries: list[float] = []
    try:
        with pytest.raises(DatabaseBusy):
            await database.run_transaction(_conflicting(tries))
    finally:
        database.dispose()
    assert len(tries) == TRANSACTION_TRIES
    waits = [later - earlier for earlier, later in pairwise(tries)]
    # at least half the mean wait, doubled per try (the loop's clock may wake a little early)
    assert all(w >= 0.9 * RETRY_WAIT_S * 2**i / 2 for i, w in enumerate(waits)), waits


async def test_no_try_starts_once_the_lock_timeout_has_passed(tmp_path: object) -> None:
    # Shorter than any wait before a second try: the first conflict is the answer.
    database = Database(f"sqlite:///{tmp_path}/t.db", lock_timeout_s=RETRY_WAIT_S / 2)
    tries: list[float] = []
    try:
        with pytest.raises(DatabaseBusy):
            await database.run_transaction(_conflicting(tries))
    finally:
        database.dispose()
    assert len(tries) == 1
