"""PostgreSQL transactions begun with their first write (``storage.pg_begin``).

* Plain reads made before any write run outside a transaction: none is left open.
* The first write begins the transaction, and everything after it is in that transaction: a
  rollback undoes it all, a commit stores it all.
* A read that locks rows begins the transaction: the lock holds until the transaction ends.
* A first write that fails (sent with its ``BEGIN``) raises as usual and writes nothing; the
  connection serves the next transaction.
* A write-behind batch that is the transaction's first round trip begins it too.
"""

from __future__ import annotations

import pytest
from psycopg.pq import TransactionStatus
from sqlalchemy import insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from interlock.errors import DatabaseBusy
from interlock.storage import Database
from interlock.storage.write_behind import defer, send
from support.conversation_rows import (
    CONVERSATIONS,
    COUNT,
    TITLES,
    conversation_row,
    stored_titles,
)

pytestmark = pytest.mark.postgres


def _open(session: Session) -> bool:
    """Whether a transaction is open on the session's driver connection."""
    driver = session.connection().connection.driver_connection
    assert driver is not None
    return bool(driver.info.transaction_status != TransactionStatus.IDLE)


def test_reads_before_any_write_leave_no_transaction_open(pg_database: Database) -> None:
    with pg_database.session() as session:
        assert session.execute(COUNT).scalar_one() == 0
        assert session.execute(TITLES).all() == []
        assert not _open(session)


def test_the_first_write_begins_a_transaction_a_rollback_undoes_whole(
    pg_database: Database,
) -> None:
    with pg_database.session() as session:
        assert session.execute(COUNT).scalar_one() == 0
        session.execute(insert(CONVERSATIONS).values(conversation_row("conv_a")))
        assert _open(session)
        assert session.execute(COUNT).scalar_one() == 1  # in the transaction
        session.execute(update(CONVERSATIONS).values(title="renamed"))
        session.rollback()
    assert stored_titles(pg_database) == []
    with pg_database.session() as session:
        session.execute(insert(CONVERSATIONS).values(conversation_row("conv_a")))
        session.execute(update(CONVERSATIONS).values(title="renamed"))
        session.commit()
    assert stored_titles(pg_database) == [("conv_a", "renamed")]


def test_a_read_that_locks_rows_holds_them_until_the_transaction_ends(
    pg_database: Database, pg_url: str
) -> None:
    with pg_database.session() as session:
        session.execute(insert(CONVERSATIONS).values(conversation_row("conv_l")))
        session.commit()
    other = Database(pg_url, lock_timeout_s=0.2)
    try:
        with pg_database.session() as holder:
            holder.execute(select(CONVERSATIONS.c.id).with_for_update())
            assert _open(holder)
            with pytest.raises(DatabaseBusy), other.session() as session:
                session.execute(update(CONVERSATIONS).values(title="other"))
            holder.rollback()
        with other.session() as session:
            session.execute(update(CONVERSATIONS).values(title="other"))
            session.commit()
    finally:
        other.dispose()
    assert stored_titles(pg_database) == [("conv_l", "other")]


def test_a_failing_first_write_writes_nothing_and_the_connection_serves_on(
    pg_database: Database,
) -> None:
    with pg_database.session() as session:
        session.execute(insert(CONVERSATIONS).values(conversation_row("conv_d")))
        session.commit()
    with pytest.raises(IntegrityError), pg_database.session() as session:
        session.execute(insert(CONVERSATIONS).values(conversation_row("conv_d", "twice")))
    with pg_database.session() as session:
        session.execute(update(CONVERSATIONS).values(title="after"))
        session.commit()
    assert stored_titles(pg_database) == [("conv_d", "after")]


def test_a_write_behind_batch_first_begins_the_transaction(pg_database: Database) -> None:
    with pg_database.session() as session:
        defer(session, insert(CONVERSATIONS), conversation_row("conv_w"))
        (renamed,) = send(session, (update(CONVERSATIONS).values(title="batch"), None))
        assert renamed.rowcount == 1
        assert _open(session)
        session.rollback()
    assert stored_titles(pg_database) == []
