"""One lock wait budget per database call on PostgreSQL (issue 7 §1).

A call (one :meth:`~interlock.storage.Database.run`) that waits for ``INTERLOCK_DB_LOCK_TIMEOUT_S``
in all fails with 503 ``database_busy`` and writes nothing, however many of its statements wait.
PostgreSQL's ``lock_timeout`` bounds each wait on its own, so a call whose second statement
waited for a lock after its first had waited nearly the whole setting used to wait the setting
again.

Here two other transactions hold row locks on two conversations a call renames in turn. Once
the call waits for the first row, the deadlines' clock is moved on by nearly the whole budget
(no real waiting), and the first row is let go: the call's second statement, sent each of the
ways the storage layer sends statements, must then fail at once, the call's whole wait (counted
on that clock) well short of twice the setting, and neither title changed.

A call that spent little of its budget (nearly every one) sends nothing more: its statements
keep the session's ``lock_timeout``; once it spent more, they wait only what is left.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextlib import ExitStack

import pytest
from sqlalchemy import insert, text, update
from sqlalchemy.sql.expression import Update
from sqlmodel import Session

from interlock.errors import DatabaseBusy
from interlock.storage import Database
from interlock.storage import writer as writer_module
from interlock.storage.write_behind import defer, execute, send
from support.conversation_rows import CONVERSATIONS, conversation_row, stored_titles
from support.locks import held_on_postgres
from support.waits import POLL_S

pytestmark = pytest.mark.postgres

BUDGET_S = 2.0
"""The setting: long enough that the first (real) wait is seen before it runs out."""
SPENT_S = 1.9
"""How long the first wait is taken to have lasted: the deadlines' clock is moved on by it."""
ANSWER_S = 30.0
"""Bound of the test's own waits."""

_LOCK_WAITERS = text(
    "SELECT count(*) FROM pg_stat_activity"
    " WHERE wait_event_type = 'Lock' AND datname = current_database()"
)


def _rename(session: Session, conversation_id: str) -> None:
    session.execute(_renaming(conversation_id))


def _renaming(conversation_id: str) -> Update:
    return update(CONVERSATIONS).where(CONVERSATIONS.c.id == conversation_id).values(title="new")


def _rename_by_execute(session: Session, conversation_id: str) -> None:
    assert execute(session, _renaming(conversation_id)).rowcount == 1


def _rename_by_send(session: Session, conversation_id: str) -> None:
    (renamed,) = send(session, (_renaming(conversation_id), None))
    assert renamed.rowcount == 1


def _rename_deferred(session: Session, conversation_id: str) -> None:
    defer(session, _renaming(conversation_id))  # goes out with the COMMIT


SECOND_STATEMENT: dict[str, Callable[[Session, str], None]] = {
    "orm": _rename,
    "execute": _rename_by_execute,
    "send": _rename_by_send,
    "deferred": _rename_deferred,
}


@pytest.mark.parametrize("how", list(SECOND_STATEMENT))
async def test_a_call_waiting_for_two_locks_in_turn_fails_within_one_budget(
    pg_database: Database, pg_url: str, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    with pg_database.session() as session:
        session.execute(insert(CONVERSATIONS), [conversation_row(i, "old") for i in "ab"])
        session.commit()
    database = Database(pg_url, lock_timeout_s=BUDGET_S)

    def rename_both() -> None:
        with database.session() as session:
            _rename(session, "a")
            SECOND_STATEMENT[how](session, "b")
            session.commit()

    def lock_waiters() -> int:
        with pg_database.session() as session:
            return int(session.execute(_LOCK_WAITERS).scalar_one())

    lock = "SELECT id FROM conversations WHERE id = :id FOR UPDATE"
    clock = writer_module._clock
    try:
        with held_on_postgres(pg_url, lock, id="b"), ExitStack() as first_lock:
            first_lock.enter_context(held_on_postgres(pg_url, lock, id="a"))
            started = clock()
            call = asyncio.create_task(database.run(rename_both))
            async with asyncio.timeout(ANSWER_S):
                while await pg_database.run(lock_waiters) == 0:
                    assert not call.done(), call
                    await asyncio.sleep(POLL_S)  # a row of the server: no event to await
            monkeypatch.setattr(writer_module, "_clock", lambda: clock() + SPENT_S)
            first_lock.close()  # the call takes the first row, then waits for the second
            done, _ = await asyncio.wait({call}, timeout=ANSWER_S)
            assert done, "the call still waits for the second row"
            waited_s = writer_module._clock() - started
        with pytest.raises(DatabaseBusy) as failed:
            call.result()
        assert (failed.value.status, failed.value.code) == (503, "database_busy")
        assert waited_s < 1.5 * BUDGET_S, waited_s
    finally:
        database.dispose()
    assert stored_titles(pg_database) == [("a", "old"), ("b", "old")]


async def test_a_call_lowers_lock_timeout_only_once_it_spent_its_slack(
    pg_database: Database, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pg_database.session() as session:
        session.execute(insert(CONVERSATIONS), [conversation_row("a", "old")])
        session.commit()
    database = Database(pg_url, lock_timeout_s=BUDGET_S)
    clock = writer_module._clock
    setting = text("SELECT current_setting('lock_timeout')")

    def rename_twice() -> tuple[str, str]:
        with database.session() as session:
            _rename(session, "a")
            fresh = str(session.execute(setting).scalar_one())
            monkeypatch.setattr(writer_module, "_clock", lambda: clock() + SPENT_S)
            _rename(session, "a")
            late = str(session.execute(setting).scalar_one())
            session.commit()
        return fresh, late

    try:
        fresh, late = await database.run(rename_twice)
    finally:
        database.dispose()
    assert fresh == "2s"  # the session's own: nothing more was sent
    assert late.endswith("ms") and 1 <= int(late.removesuffix("ms")) <= 100, late
    assert stored_titles(pg_database) == [("a", "new")]
