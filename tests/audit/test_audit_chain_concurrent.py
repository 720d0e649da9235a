"""Audit records appended by many concurrent transactions form one unbroken chain.

On PostgreSQL the chain's lock and the statements that append (each reading the tail) go to
the server together (one round trip); each must still see the record the previous holder
committed: no two records share a sequence number, none is missing, and every link verifies.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from sqlmodel import col, select

from interlock.audit import verify_chain
from interlock.audit.chain import record_token_event
from interlock.storage import AccessToken, AuditRecord, Database

THREADS = 6
EACH = 15


def _append(database: Database, thread: int) -> None:
    for i in range(EACH):
        with database.session() as session:
            token = AccessToken(
                user_id=f"user_{thread}", name=f"t{thread}.{i}", token_hash=f"hash_{thread}_{i}"
            )
            session.add(token)  # as when a token is made: the record goes with its row
            record_token_event(session, token, decider="cli", channel="cli", outcome="created")
            session.commit()


def test_concurrent_appends_make_one_unbroken_chain(database: Database) -> None:
    with ThreadPoolExecutor(THREADS) as pool:
        for done in [pool.submit(_append, database, t) for t in range(THREADS)]:
            done.result()
    with database.session() as session:
        seqs = session.exec(select(AuditRecord.seq).order_by(col(AuditRecord.seq))).all()
        report = verify_chain(session)
    assert list(seqs) == list(range(1, THREADS * EACH + 1))
    assert report.ok and report.records == THREADS * EACH
