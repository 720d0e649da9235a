"""Reads sent with the transaction's next round trip (``storage.read_soon``), both databases.

* A queued read goes out with the next statement, after the writes queued before it (it sees
  them), and its result is what the database held then.
* Its result sends the queue when nothing else took it yet; its ``then`` gets the same rows.
* A rollback before it went out drops it: asking for its result then is an error.
* On PostgreSQL, plain reads sent together while no transaction is open begin none.
"""

from __future__ import annotations

import pytest
from sqlalchemy import insert, update

from interlock.storage import Database
from interlock.storage.read_soon import read_soon
from interlock.storage.statements import Sent, connection_of
from interlock.storage.write_behind import defer, execute
from support.conversation_rows import CONVERSATIONS, COUNT, TITLES, conversation_row


def test_a_queued_read_goes_out_with_the_next_statement_after_the_writes_before_it(
    database: Database,
) -> None:
    with database.session() as session:
        defer(session, insert(CONVERSATIONS), conversation_row("conv_a"))
        titles = read_soon(session, TITLES)
        defer(session, update(CONVERSATIONS).values(title="later"))
        counted = execute(session, COUNT).scalar()  # carries the queue
        session.commit()
    assert counted == 1
    assert titles.result().rows == [("conv_a", "")]  # read before the later update


def test_its_result_sends_the_queue_and_its_then_gets_the_same_rows(database: Database) -> None:
    got: list[Sent] = []
    with database.session() as session:
        defer(session, insert(CONVERSATIONS), conversation_row("conv_b"))
        soon = read_soon(session, COUNT, then=got.append)
        assert soon.result().scalar() == 1
        session.commit()
    assert [sent.scalar() for sent in got] == [1]


def test_a_rollback_before_it_went_out_drops_it(pg_database: Database) -> None:
    with pg_database.session() as session:
        defer(session, insert(CONVERSATIONS), conversation_row("conv_c"))
        soon = read_soon(session, COUNT)
        session.rollback()
        with pytest.raises(RuntimeError, match="dropped"):
            soon.result()


def test_plain_reads_sent_together_begin_no_transaction(pg_database: Database) -> None:
    from psycopg.pq import TransactionStatus

    with pg_database.session() as session:
        counted = read_soon(session, COUNT)
        titles = read_soon(session, TITLES)
        assert titles.result().rows == []
        assert counted.result().scalar() == 0
        driver = connection_of(session).connection.driver_connection
        assert driver.info.transaction_status == TransactionStatus.IDLE
