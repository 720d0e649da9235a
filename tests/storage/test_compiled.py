"""Prebuilt statements run on the driver's cursor (``storage.compiled`` through
``write_behind.execute``/``defer``/``send``) behave as SQLAlchemy's own execution, both databases.

* Rows read come back with the same Python values as ``connection.execute`` gives: aware or
  naive datetimes as the column type reads them, JSON decoded, booleans as ``bool``.
* Values written are stored as SQLAlchemy stores them (JSON encoded, datetimes converted),
  literal values bound in the statement and Python-side column defaults included.
* An ``INSERT``'s generated key comes back; driver errors are raised as SQLAlchemy's
  (``IntegrityError``), and the ``before_cursor_execute`` listeners see every statement.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import bindparam, event, insert, select, update
from sqlalchemy.exc import ArgumentError, IntegrityError

from interlock.storage import Conversation, Database, Message, MessageRole, Run, ToolCall
from interlock.storage.compiled import compiled
from interlock.storage.rows import insert_rows, new_row
from interlock.storage.write_behind import defer, execute, send

_CALLS = ToolCall.__table__  # type: ignore[attr-defined]
_RUNS = Run.__table__  # type: ignore[attr-defined]
_CONVERSATIONS = Conversation.__table__  # type: ignore[attr-defined]
_CALL = select(_CALLS).where(_CALLS.c.id == bindparam("call_id"))
_DONE_CALLS = select(_CALLS.c.id, _CALLS.c.result_cut).where(_CALLS.c.status == "done")
_CALLS_IN = select(_CALLS.c.id).where(
    _CALLS.c.status.in_(["pending", "running"]), _CALLS.c.id == bindparam("call_id")
)
_SET_CALL = update(_CALLS).where(_CALLS.c.id == bindparam("call_id"))
_INSERT_RUN = insert(_RUNS)
_INSERT_CONVERSATION = insert(_CONVERSATIONS)


def _seed(database: Database) -> tuple[str, int]:
    """A conversation, run, message and one call (``call_1``); return the conversation's id and
    the message's."""
    conversation = new_row(Conversation, owner_id="user_1", employee="assistant")
    run = new_row(Run, conversation_id=conversation.id, trigger="message", owner_id="worker_1")
    message = new_row(
        Message,
        conversation_id=conversation.id,
        run_id=run.id,
        role=MessageRole.assistant,
        content="",
    )
    with database.session() as session:
        session.add(conversation)
        session.flush()
        insert_rows(session, [run, message])
        call = new_row(
            ToolCall,
            id="call_1",
            conversation_id=conversation.id,
            message_id=message.id,
            run_id=run.id,
            name="notes.add",
            proposed_args={"text": "buy milk", "tags": ["a", None]},
            result_cut=True,
            expires_at=datetime(2030, 1, 2, 3, 4, 5, tzinfo=UTC),
        )
        insert_rows(session, [call])
        session.commit()
    assert message.id is not None
    return conversation.id, message.id


def test_a_row_read_holds_the_values_sqlalchemy_reads(database: Database) -> None:
    _seed(database)
    with database.session() as session:
        expected = session.connection().execute(_CALL, {"call_id": "call_1"}).one()
        read = execute(session, _CALL, {"call_id": "call_1"})
        assert read.rows == [tuple(expected)]
        assert compiled(session.connection().dialect, _CALL, ("call_id",)).keys == tuple(
            expected._fields
        )
    (values,) = read.rows
    row = dict(zip(expected._fields, values, strict=True))
    assert row["proposed_args"] == {"text": "buy milk", "tags": ["a", None]}
    assert row["result_cut"] is True
    assert isinstance(row["created_at"], datetime)
    assert row["expires_at"] == expected.expires_at
    assert row["result_data"] is None


def test_values_written_are_stored_as_sqlalchemy_stores_them(database: Database) -> None:
    _seed(database)
    moment = datetime(2031, 5, 6, 7, 8, 9, tzinfo=UTC)
    changes = {"status": "done", "result_data": {"n": [1, 2]}, "finished_at": moment}
    with database.session() as session:
        assert execute(session, _SET_CALL, {"call_id": "call_1", **changes}).rowcount == 1
        session.commit()
    with database.session() as session:
        row = session.connection().execute(_CALL, {"call_id": "call_1"}).one()
        done = execute(session, _DONE_CALLS).rows  # a literal bound in the statement
    assert (row.status, row.result_data, row.finished_at) == (
        "done",
        {"n": [1, 2]},
        session.connection().execute(select(_CALLS.c.finished_at)).scalar(),
    )
    assert row.finished_at.replace(tzinfo=row.finished_at.tzinfo or UTC) == moment
    assert done == [("call_1", True)]


def test_an_insert_fills_column_defaults_and_returns_its_key(database: Database) -> None:
    conversation_id, _message_id = _seed(database)
    with database.session() as session:
        # Run's id and created_at come from Python-side defaults (callables), status from a
        # scalar one: none is given here.
        execute(
            session,
            _INSERT_RUN,
            {"conversation_id": conversation_id, "trigger": "message", "owner_id": "worker_1"},
        )
        message = new_row(
            Message,
            conversation_id=conversation_id,
            run_id=None,
            role=MessageRole.user,
            content="later",
        )
        insert_rows(session, [message])  # autoincrement key read back
        session.commit()
        runs = session.connection().execute(select(_RUNS).order_by(_RUNS.c.created_at)).all()
    assert len(runs) == 2
    assert runs[-1].status == "running"
    assert runs[-1].id and runs[-1].id != runs[0].id
    assert isinstance(message.id, int) and message.id > _message_id


def test_a_literal_list_of_an_in_is_expanded_once(database: Database) -> None:
    _seed(database)
    with database.session() as session:
        assert execute(session, _CALLS_IN, {"call_id": "call_1"}).first() == ("call_1",)
        execute(session, _SET_CALL, {"call_id": "call_1", "status": "done"})
        assert execute(session, _CALLS_IN, {"call_id": "call_1"}).first() is None
        with pytest.raises(NotImplementedError):
            expanding = select(_CALLS.c.id).where(_CALLS.c.id.in_(bindparam("ids")))
            execute(session, expanding, {"ids": ["call_1"]})


def test_driver_errors_are_raised_as_sqlalchemy_raises_them(database: Database) -> None:
    conversation_id, _message_id = _seed(database)
    values = {"id": conversation_id, "owner_id": "user_1", "employee": "assistant"}
    with database.session() as session, pytest.raises(IntegrityError):
        execute(session, _INSERT_CONVERSATION, values)
    with database.session() as session, pytest.raises(ArgumentError):
        execute(session, _CALL, {})


def test_a_deferred_statement_may_not_return_rows(database: Database) -> None:
    with database.session() as session, pytest.raises(TypeError):
        defer(session, _CALL, {"call_id": "call_1"})


def test_listeners_see_each_statement_sent_or_queued(database: Database) -> None:
    _seed(database)
    seen: list[tuple[str, Any]] = []

    def record(_conn: Any, cursor: Any, statement: str, *_rest: Any) -> None:
        seen.append((statement.split()[0], cursor is not None))

    event.listen(database.engine, "before_cursor_execute", record)
    try:
        with database.session() as session:
            defer(session, _SET_CALL, {"call_id": "call_1", "status": "done"})
            (read,) = send(session, (_DONE_CALLS, None))
            session.commit()
    finally:
        event.remove(database.engine, "before_cursor_execute", record)
    assert read.rows == [("call_1", True)]
    assert [kind for kind, _cursor in seen] == ["UPDATE", "SELECT"]
