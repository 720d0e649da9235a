"""New rows built with ``new_row`` and written with ``insert_rows`` or the unit of work."""

from __future__ import annotations

from typing import Any

import pytest
from sqlmodel import select

from interlock.storage import Conversation, Database, Message, MessageRole, Run, ToolCall
from interlock.storage.rows import insert_rows, new_row

_FRESH = {"id", "created_at", "updated_at"}
"""Defaults made anew for every object (new ids, the current time)."""


@pytest.mark.parametrize(
    ("model", "values"),
    [
        (Conversation, {"owner_id": "user_1", "employee": "assistant"}),
        (Run, {"conversation_id": "conv_1", "trigger": "message", "owner_id": "worker_1"}),
        (
            Message,
            {
                "conversation_id": "conv_1",
                "run_id": "run_1",
                "role": MessageRole.user,
                "content": "hi",
            },
        ),
        (
            ToolCall,
            {
                "id": "call_1",
                "conversation_id": "conv_1",
                "message_id": 1,
                "run_id": "run_1",
                "index": 0,
                "name": "notes.add",
                "permission": "ASK",
                "proposed_args": {"text": "buy milk"},
            },
        ),
    ],
)
def test_a_new_row_holds_what_the_constructor_gives(model: Any, values: dict[str, Any]) -> None:
    built, constructed = new_row(model, **values), model(**values)

    def attributes(row: Any) -> dict[str, Any]:
        return {k: v for k, v in row.__dict__.items() if k not in _FRESH | {"_sa_instance_state"}}

    assert attributes(built) == attributes(constructed)
    assert built.model_fields_set == constructed.model_fields_set == set(values)
    assert {k for k in _FRESH if k in constructed.__dict__} <= built.__dict__.keys()


def test_mutable_defaults_are_not_shared_between_rows() -> None:
    first = new_row(Conversation, owner_id="user_1", employee="assistant")
    second = new_row(Conversation, owner_id="user_1", employee="assistant")
    assert first.loaded_skills == second.loaded_skills == []
    assert first.loaded_skills is not second.loaded_skills
    assert first.id != second.id


def test_an_unknown_field_is_refused() -> None:
    with pytest.raises(TypeError, match="no field"):
        new_row(Message, conversation_id="conv_1", colour="red")


def test_new_rows_are_written_by_insert_rows_and_by_the_unit_of_work(database: Database) -> None:
    conversation = new_row(Conversation, owner_id="user_1", employee="assistant")
    run = new_row(Run, conversation_id=conversation.id, trigger="message", owner_id="worker_1")
    message = new_row(
        Message, conversation_id=conversation.id, run_id=run.id, role=MessageRole.user, content="hi"
    )
    with database.session() as session:
        session.add(conversation)
        session.flush()
        insert_rows(session, [run, message])
        assert message.id is not None
        session.add(
            new_row(
                ToolCall,
                id="call_1",
                conversation_id=conversation.id,
                message_id=message.id,
                run_id=run.id,
                index=0,
                name="notes.add",
                permission="ASK",
                proposed_args={"text": "buy milk"},
            )
        )
        session.commit()
    with database.session() as session:
        stored = session.exec(select(Message).where(Message.id == message.id)).one()
        assert (stored.content, stored.role, stored.run_id) == ("hi", "user", run.id)
        call = session.exec(select(ToolCall)).one()
        assert (call.status, call.proposed_args, call.message_id) == (
            "pending",
            {"text": "buy milk"},
            message.id,
        )
        assert session.exec(select(Conversation)).one().loaded_skills == []
