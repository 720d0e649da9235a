"""On PostgreSQL the database numbers and hashes audit records itself, under the chain's lock;
the chain is the same, byte for byte, as the one Python computes (and SQLite writes).

Every record appended in the database gets the hash Python computes from the row read back
(unicode, nested and null arguments, token records, several records in one transaction, the
first record of an empty table), links to records Python chained before, and a transaction
that cannot get the chain's lock within the lock timeout writes nothing. The records' round
trip carries the transaction's COMMIT only when nothing comes after them: records appended in
a savepoint, or followed by a failing write, are undone with their transaction.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import event, func, text
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.orm import Session as OrmSession
from sqlmodel import col, select

from interlock.audit import GENESIS_HASH, record_hash, record_payload, verify_chain
from interlock.audit.chain import (
    canonical_around_seq,
    record_outcome,
    record_token_event,
)
from interlock.audit.pg_chain import AUDIT_CHAIN_LOCK_KEY
from interlock.storage import AccessToken, AuditRecord, Database, ToolCall
from interlock.storage.rows import insert_rows
from support.locks import advisory_lock

NESTED_ARGS: dict[str, Any] = {
    "seq": 7,  # a "seq" of the arguments is not the record's
    "text": 'Grüße, 東京 🚀 "quoted" \\ back\nline',
    "items": [1, 2.5, None, True, {"z": [], "a": {"ü": "ß"}}],
    "empty": {},
}


def _call(index: int) -> ToolCall:
    """A tool call the records are about (not stored: a record only copies its fields)."""
    return ToolCall(
        id=f"call_{index}",
        conversation_id="conversation_1",
        name="notes.add",
        proposed_args=NESTED_ARGS,
        created_at=datetime.now(UTC) - timedelta(milliseconds=1234),
    )


def _stage(session: Any, index: int, **overrides: Any) -> AuditRecord:
    fields: dict[str, Any] = {
        "call": _call(index),
        "decider": "user_ännä",
        "channel": "web",
        "outcome": "edited",
        "reason": "zu früh — 早すぎる",
        "proposed_args": NESTED_ARGS,
        "executed_args": {"text": "ok", "nested": {"b": 1, "a": [None]}},
    }
    return record_outcome(session, **{**fields, **overrides})


def _rows(database: Database) -> list[AuditRecord]:
    with database.session() as session:
        return list(session.exec(select(AuditRecord).order_by(col(AuditRecord.seq))).all())


def _count(database: Database, table: Any) -> int:
    with database.session() as session:
        return int(session.exec(select(func.count()).select_from(table)).one())


def _assert_python_hashes_match(rows: list[AuditRecord]) -> None:
    prev_hash = GENESIS_HASH
    for row in rows:
        assert row.prev_hash == prev_hash
        assert record_hash(prev_hash, record_payload(row)) == row.hash
        prev_hash = row.hash


@pytest.mark.parametrize("seq", [0, 1, 9, 10, 123456789])
def test_canonical_json_splits_around_the_record_seq(seq: int) -> None:
    record = AuditRecord(
        seq=seq,
        created_at=datetime.now(UTC),
        tool_call_id="call_1",
        conversation_id="conversation_1",
        employee="assistant",
        tool="notes.add",
        owner_id="user_1",
        decider="user_1",
        channel="web",
        outcome="approved",
        reason='ünïcode "seq":1',
        proposed_args=NESTED_ARGS,
        executed_args=None,
        prev_hash="",
        hash="",
    )
    payload = record_payload(record)
    before, after = canonical_around_seq(payload)
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert before + str(seq) + after == canonical


@pytest.mark.postgres
def test_records_chained_in_the_database_hash_as_python_does(pg_database: Database) -> None:
    with pg_database.session() as session:  # the empty table: the first record's link is genesis
        first = _stage(session, 1)
        session.commit()
    assert (first.seq, first.prev_hash) == (1, GENESIS_HASH)

    with pg_database.session() as session:  # several in one transaction, each after the last
        staged = [
            _stage(session, 2, reason=None, executed_args=None, outcome="rejected"),
            _stage(session, 3, proposed_args={}, executed_args=[]),
            _stage(session, 4, proposed_args=None, reason=""),
        ]
        token = AccessToken(user_id="user_1", name="Claude — Desktop ✓", token_hash="hash_1")
        session.add(token)
        staged.append(
            record_token_event(session, token, decider="cli", channel="cli", outcome="created")
        )
        session.commit()

    rows = _rows(pg_database)
    assert [r.seq for r in rows] == [1, 2, 3, 4, 5]
    assert [(r.seq, r.prev_hash, r.hash) for r in rows] == [
        (r.seq, r.prev_hash, r.hash) for r in [first, *staged]
    ]
    assert rows[1].reason is None and rows[1].executed_args is None
    assert rows[3].proposed_args is None and rows[0].proposed_args == NESTED_ARGS
    assert rows[4].kind == "token" and rows[4].reason == "Claude — Desktop ✓"
    _assert_python_hashes_match(rows)
    with pg_database.session() as session:
        assert verify_chain(session).ok


@pytest.mark.postgres
def test_database_chained_records_continue_a_python_chained_chain(pg_database: Database) -> None:
    with pg_database.session() as session:  # as written before the chain moved into PostgreSQL
        prev_hash, older = GENESIS_HASH, []
        for seq in (1, 2):
            record = _stage(session, seq)
            record.seq, record.prev_hash = seq, prev_hash
            record.hash = prev_hash = record_hash(prev_hash, record_payload(record))
            older.append(record)
        session.info.clear()  # appended by hand, not at commit
        insert_rows(session, older)
        session.commit()
    with pg_database.session() as session:
        newer = _stage(session, 3)
        session.commit()

    assert (newer.seq, newer.prev_hash) == (3, older[-1].hash)
    _assert_python_hashes_match(_rows(pg_database))
    with pg_database.session() as session:
        report = verify_chain(session)
    assert report.ok and report.records == 3


@pytest.mark.postgres
def test_a_writer_that_cannot_get_the_chain_lock_writes_nothing(pg_url: str) -> None:
    database = Database(pg_url, lock_timeout_s=0.2)
    try:
        with (
            advisory_lock(pg_url, AUDIT_CHAIN_LOCK_KEY),
            database.session() as session,
            pytest.raises(OperationalError),
        ):
            token = AccessToken(user_id="user_1", name="laptop", token_hash="hash_1")
            session.add(token)
            record_token_event(session, token, decider="cli", channel="cli", outcome="created")
            session.commit()
        assert _count(database, AccessToken) == 0
        assert _count(database, AuditRecord) == 0
    finally:
        database.dispose()


@pytest.mark.postgres
def test_records_appended_in_a_savepoint_are_undone_with_their_transaction(
    pg_database: Database,
) -> None:
    with pg_database.session() as session:
        with session.begin_nested():  # its release appends the records, but commits nothing
            _stage(session, 1)
        session.rollback()
    assert _count(pg_database, AuditRecord) == 0


@pytest.mark.postgres
def test_a_failure_after_the_records_in_the_same_commit_writes_nothing(
    pg_database: Database,
) -> None:
    def fail_after_the_records(session: OrmSession) -> None:
        session.connection().execute(text("SELECT 1 / 0"))

    event.listen(OrmSession, "before_commit", fail_after_the_records)
    try:
        with pg_database.session() as session, pytest.raises(DBAPIError):
            token = AccessToken(user_id="user_1", name="laptop", token_hash="hash_1")
            session.add(token)
            record_token_event(session, token, decider="cli", channel="cli", outcome="created")
            session.commit()
    finally:
        event.remove(OrmSession, "before_commit", fail_after_the_records)
    assert _count(pg_database, AccessToken) == 0
    assert _count(pg_database, AuditRecord) == 0
