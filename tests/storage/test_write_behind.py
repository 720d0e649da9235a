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
from sqlalchemy import func, insert, select, update
from sqlalchemy.exc import IntegrityError

from interlock.errors import DatabaseBusy
from interlock.storage import Conversation, Database
from interlock.storage.write_behind import defer, send

_conversations = Conversation.__table__  # type: ignore[attr-defined]
_COUNT = select(func.count()).select_from(_conversations)
_TITLES = select(_conversations.c.id, _conversations.c.title).order_by(_conversations.c.id)


def _row(conversation_id: str, title: str = "") -> dict[str, object]:
    row = Conversation(id=conversation_id, owner_id="user_wb", employee="assistant", title=title)
    return {c.name: getattr(row, c.name) for c in _conversations.columns}


def _titles(database: Database) -> list[tuple[str, str]]:
    with database.session() as session:
        return [(str(i), str(t)) for i, t in session.execute(_TITLES).all()]


def test_deferred_writes_are_stored_at_commit_in_order(database: Database) -> None:
    with database.session() as session:
        defer(session, insert(_conversations), [_row("conv_a"), _row("conv_b")])
        defer(session, update(_conversations).values(title="first"))
        seen = session.execute(_COUNT).scalar_one()  # a plain statement: the queue goes first
        defer(
            session,
            update(_conversations).where(_conversations.c.id == "conv_b").values(title="last"),
        )
        session.commit()
    assert seen == 2
    assert _titles(database) == [("conv_a", "first"), ("conv_b", "last")]


def test_send_runs_the_queue_then_its_statements_and_returns_rows(database: Database) -> None:
    with database.session() as session:
        defer(session, insert(_conversations), _row("conv_a"))
        renamed, counted, missing = send(
            session,
            (update(_conversations).values(title="renamed").returning(_conversations.c.id), None),
            (_COUNT, None),
            (update(_conversations).where(_conversations.c.id == "none").values(title="x"), None),
        )
        session.commit()
    assert renamed.rows == [("conv_a",)]
    assert counted.scalar() == 1
    assert missing.rowcount == 0
    assert missing.scalar() is None
    assert _titles(database) == [("conv_a", "renamed")]


def test_a_deferred_write_failing_at_commit_leaves_nothing_written(database: Database) -> None:
    with database.session() as session:
        session.execute(insert(_conversations).values(_row("conv_taken")))
        session.commit()
    with pytest.raises(IntegrityError), database.session() as session:
        session.execute(insert(_conversations).values(_row("conv_immediate")))
        defer(session, insert(_conversations), _row("conv_deferred"))
        defer(session, insert(_conversations), _row("conv_taken"))  # a unique violation
        session.commit()
    assert _titles(database) == [("conv_taken", "")]
    # The connection is whole again: the next transaction writes as usual.
    with database.session() as session:
        defer(session, insert(_conversations), _row("conv_after"))
        session.commit()
    assert [i for i, _t in _titles(database)] == ["conv_after", "conv_taken"]


def test_a_rollback_drops_the_queued_writes(database: Database) -> None:
    with database.session() as session:
        defer(session, insert(_conversations), _row("conv_dropped"))
        session.rollback()
        defer(session, insert(_conversations), _row("conv_kept"))
        session.commit()
    assert [i for i, _t in _titles(database)] == ["conv_kept"]


@pytest.mark.postgres
def test_a_statement_returning_rows_cannot_be_deferred(pg_database: Database) -> None:
    with pg_database.session() as session, pytest.raises(TypeError):
        defer(session, insert(_conversations).returning(_conversations.c.id), _row("conv_r"))


@pytest.mark.postgres
def test_a_deferred_write_waiting_for_a_lock_fails_as_database_busy(pg_url: str) -> None:
    database = Database(pg_url, lock_timeout_s=0.2)
    try:
        with database.session() as session:
            session.execute(insert(_conversations).values(_row("conv_locked")))
            session.commit()
        holding, release = threading.Event(), threading.Event()

        def hold_the_row() -> None:
            with database.session() as other:
                other.execute(update(_conversations).values(title="holder"))
                holding.set()
                release.wait(10)
                other.rollback()

        holder = threading.Thread(target=hold_the_row)
        holder.start()
        try:
            assert holding.wait(10)
            with pytest.raises(DatabaseBusy), database.session() as session:
                session.execute(insert(_conversations).values(_row("conv_mine")))
                defer(session, update(_conversations).values(title="mine"))
                session.commit()
        finally:
            release.set()
            holder.join(10)
        assert _titles(database) == [("conv_locked", "")]
    finally:
        database.dispose()
