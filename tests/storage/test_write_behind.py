"""Writes sent with the transaction's next round trip (``storage.write_behind``), both databases.

* A deferred write is stored at the commit, in the order the writes were made: a statement
  run afterwards (plain, or through ``send``) sees it.
* ``send`` returns each statement's rows and row count, in order.
* A deferred write that fails at the commit raises the error SQLAlchemy raises for a failed
  statement (a unique violation: ``IntegrityError``; a lock timeout: 503 ``database_busy``),
  and nothing of the transaction is stored, its immediate writes included.
* A rollback drops what was queued; a statement returning rows cannot be deferred.
"""

from __future__ import annotations

import threading

import pytest
from sqlalchemy import insert, update
from sqlalchemy.exc import IntegrityError

from interlock.errors import DatabaseBusy
from interlock.storage import Database
from interlock.storage.write_behind import defer, send
from support.conversation_rows import CONVERSATIONS, COUNT, conversation_row, stored_titles


def test_deferred_writes_are_stored_at_commit_in_order(database: Database) -> None:
    with database.session() as session:
        defer(
            session, insert(CONVERSATIONS), [conversation_row("conv_a"), conversation_row("conv_b")]
        )
        defer(session, update(CONVERSATIONS).values(title="first"))
        seen = session.execute(COUNT).scalar_one()  # a plain statement: the queue goes first
        defer(
            session,
            update(CONVERSATIONS).where(CONVERSATIONS.c.id == "conv_b").values(title="last"),
        )
        session.commit()
    assert seen == 2
    assert stored_titles(database) == [("conv_a", "first"), ("conv_b", "last")]


def test_send_runs_the_queue_then_its_statements_and_returns_rows(database: Database) -> None:
    with database.session() as session:
        defer(session, insert(CONVERSATIONS), conversation_row("conv_a"))
        renamed, counted, missing = send(
            session,
            (update(CONVERSATIONS).values(title="renamed").returning(CONVERSATIONS.c.id), None),
            (COUNT, None),
            (update(CONVERSATIONS).where(CONVERSATIONS.c.id == "none").values(title="x"), None),
        )
        session.commit()
    assert renamed.rows == [("conv_a",)]
    assert counted.scalar() == 1
    assert missing.rowcount == 0
    assert missing.scalar() is None
    assert stored_titles(database) == [("conv_a", "renamed")]


def test_a_deferred_write_failing_at_commit_leaves_nothing_written(database: Database) -> None:
    with database.session() as session:
        session.execute(insert(CONVERSATIONS).values(conversation_row("conv_taken")))
        session.commit()
    with pytest.raises(IntegrityError), database.session() as session:
        session.execute(insert(CONVERSATIONS).values(conversation_row("conv_immediate")))
        defer(session, insert(CONVERSATIONS), conversation_row("conv_deferred"))
        defer(session, insert(CONVERSATIONS), conversation_row("conv_taken"))  # a unique violation
        session.commit()
    assert stored_titles(database) == [("conv_taken", "")]
    # The connection is whole again: the next transaction writes as usual.
    with database.session() as session:
        defer(session, insert(CONVERSATIONS), conversation_row("conv_after"))
        session.commit()
    assert [i for i, _t in stored_titles(database)] == ["conv_after", "conv_taken"]


def test_a_rollback_drops_the_queued_writes(database: Database) -> None:
    with database.session() as session:
        defer(session, insert(CONVERSATIONS), conversation_row("conv_dropped"))
        session.rollback()
        defer(session, insert(CONVERSATIONS), conversation_row("conv_kept"))
        session.commit()
    assert [i for i, _t in stored_titles(database)] == ["conv_kept"]


@pytest.mark.postgres
def test_a_statement_returning_rows_cannot_be_deferred(pg_database: Database) -> None:
    with pg_database.session() as session, pytest.raises(TypeError):
        defer(
            session, insert(CONVERSATIONS).returning(CONVERSATIONS.c.id), conversation_row("conv_r")
        )


@pytest.mark.postgres
def test_a_deferred_write_waiting_for_a_lock_fails_as_database_busy(pg_url: str) -> None:
    database = Database(pg_url, lock_timeout_s=0.2)
    try:
        with database.session() as session:
            session.execute(insert(CONVERSATIONS).values(conversation_row("conv_locked")))
            session.commit()
        holding, release = threading.Event(), threading.Event()

        def hold_the_row() -> None:
            with database.session() as other:
                other.execute(update(CONVERSATIONS).values(title="holder"))
                holding.set()
                release.wait(10)
                other.rollback()

        holder = threading.Thread(target=hold_the_row)
        holder.start()
        try:
            assert holding.wait(10)
            with pytest.raises(DatabaseBusy), database.session() as session:
                session.execute(insert(CONVERSATIONS).values(conversation_row("conv_mine")))
                defer(session, update(CONVERSATIONS).values(title="mine"))
                session.commit()
        finally:
            release.set()
            holder.join(10)
        assert stored_titles(database) == [("conv_locked", "")]
    finally:
        database.dispose()
