"""PostgreSQL keeps prepared statements across sessions that only read; writes still roll back.

* A statement a pooled connection ran five times, each in a read-only session that ended
  without a commit, is prepared on the server (psycopg forgets its prepared statements at
  every ``ROLLBACK``; a read-only session now ends with ``COMMIT``).
* A session that wrote and ended without a commit, or failed, still leaves nothing written.
"""

from __future__ import annotations

import pytest
from sqlalchemy import func, insert, select, text
from sqlalchemy.exc import DBAPIError

from interlock.storage import Conversation, Database

pytestmark = pytest.mark.postgres

_conversations = Conversation.__table__  # type: ignore[attr-defined]
_COUNT = select(func.count()).select_from(_conversations)


@pytest.fixture
def database(pg_database: Database) -> Database:
    """This file's tests run on PostgreSQL only."""
    return pg_database


def _new_conversation(conversation_id: str) -> dict[str, object]:
    row = Conversation(id=conversation_id, owner_id="user_prepared", employee="assistant")
    return {c.name: getattr(row, c.name) for c in _conversations.columns}


def _stored(database: Database) -> int:
    with database.session() as session:
        return int(session.execute(_COUNT).scalar_one())


def test_statements_of_read_only_sessions_get_prepared(database: Database) -> None:
    pids = set()
    for _ in range(6):  # one pooled connection (the same thread): prepared after the fifth
        with database.session() as session:
            session.execute(_COUNT).scalar_one()
            pids.add(session.execute(text("SELECT pg_backend_pid()")).scalar_one())
    with database.session() as session:
        prepared = session.execute(
            text("SELECT statement FROM pg_prepared_statements WHERE statement LIKE '%count(*)%'")
        ).all()
        pids.add(session.execute(text("SELECT pg_backend_pid()")).scalar_one())
    assert len(pids) == 1
    assert len(prepared) == 1


def test_a_session_that_wrote_without_commit_leaves_nothing(database: Database) -> None:
    with database.session() as session:
        session.execute(_COUNT).scalar_one()
        session.execute(insert(_conversations).values(_new_conversation("conv_uncommitted")))
    assert _stored(database) == 0

    with pytest.raises(DBAPIError), database.session() as session:
        session.execute(insert(_conversations).values(_new_conversation("conv_failed")))
        session.execute(text("SELECT 1 / 0"))
    assert _stored(database) == 0

    with database.session() as session:  # the connection is usable again, and writes commit
        session.execute(insert(_conversations).values(_new_conversation("conv_committed")))
        session.commit()
    assert _stored(database) == 1
