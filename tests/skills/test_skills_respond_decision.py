"""A ``respond`` decision is checked with the tool's ``check_response`` before it is stored."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest
from sqlmodel import select

from interlock.engine.decisions import DecisionIn, decide
from interlock.errors import BadRequest
from interlock.storage import Conversation, Decision, ToolCall, ToolCallStatus
from interlock.storage.models import Message, utcnow
from interlock.streaming import EventBus


class FakeEngine(SimpleNamespace):
    """What :func:`decide` uses of the engine: db, registry, bus, schedule_resume.

    The conversations of these tests are held by another run (:data:`BUSY_RUN`), so the
    decision cannot claim them and no run starts with it: the resume goes through
    ``schedule_resume``.
    """

    worker_id = "w1"

    def use_running_loop(self) -> None:
        pass

    def schedule_resume(self, conversation_id: str, message_id: int, user_id: str) -> None:
        self.resumed.append(message_id)
        self.resume_called.set()


BUSY_RUN = "run_busy"
"""The run holding every conversation of these tests."""


@pytest.fixture
def engine(database, builtin_registry) -> FakeEngine:
    return FakeEngine(
        db=database,
        registry=builtin_registry,
        bus=EventBus(database),
        resumed=[],
        resume_called=asyncio.Event(),
        employees=SimpleNamespace(
            get=lambda slug: SimpleNamespace(slug=slug, name="Assistant", disabled=False)
        ),
        deadlines=SimpleNamespace(now=utcnow),
    )


def interrupted_call(engine: FakeEngine, name: str, args: dict[str, Any]) -> str:
    """Store a conversation with one interrupted call of ``name`` and return the call's id."""
    with engine.db.session() as session:
        conversation = Conversation(owner_id="u1", employee="assistant", active_run_id=BUSY_RUN)
        session.add(conversation)
        session.flush()
        message = Message(conversation_id=conversation.id, role="assistant", run_id="run_1")
        session.add(message)
        session.flush()
        assert message.id is not None
        call = ToolCall(
            conversation_id=conversation.id,
            message_id=message.id,
            run_id="run_1",
            name=name,
            proposed_args=args,
            status=ToolCallStatus.interrupted,
        )
        session.add(call)
        session.commit()
        return call.id


def decisions(engine: FakeEngine, call_id: str) -> list[Decision]:
    with engine.db.session() as session:
        return list(session.exec(select(Decision).where(Decision.tool_call_id == call_id)).all())


async def test_an_answer_that_fits_is_recorded(engine):
    call_id = interrupted_call(
        engine, "ask.choice", {"question": "Drink?", "options": ["Tea", "Coffee"]}
    )

    out = await decide(engine, "u1", call_id, DecisionIn(type="respond", message="Tea"))

    assert out.decision is not None
    assert (out.decision.type, out.decision.message) == ("respond", "Tea")
    # The resume is scheduled on the loop's next turn, after the answer.
    await asyncio.wait_for(engine.resume_called.wait(), timeout=30)
    assert len(engine.resumed) == 1


async def test_an_answer_that_does_not_fit_is_refused_with_field_errors(engine):
    fields = {
        "type": "object",
        "properties": {"nights": {"type": "integer", "minimum": 1}},
        "required": ["nights"],
    }
    call_id = interrupted_call(engine, "ask.form", {"title": "Stay", "fields": fields})

    with pytest.raises(BadRequest) as caught:
        await decide(engine, "u1", call_id, DecisionIn(type="respond", message='{"nights": 0}'))

    assert caught.value.code == "invalid_args"
    assert caught.value.details == {
        "errors": [{"path": ["nights"], "message": "Must be at least 1.", "rule": "minimum"}]
    }
    assert decisions(engine, call_id) == []
    assert engine.resumed == []


async def test_tools_without_check_response_take_any_answer(engine):
    call_id = interrupted_call(engine, "notes.add", {"text": "milk"})

    out = await decide(engine, "u1", call_id, DecisionIn(type="respond", message="anything"))

    assert out.decision is not None
    assert out.decision.type == "respond"


async def test_a_check_response_that_raises_refuses_the_answer(engine, builtin_registry):
    def broken(args: dict[str, Any], message: str) -> list[Any]:
        raise RuntimeError("bug")

    builtin_registry.get("ask.confirm").check_response = broken
    call_id = interrupted_call(engine, "ask.confirm", {"summary": "Go?"})

    with pytest.raises(BadRequest) as caught:
        await decide(engine, "u1", call_id, DecisionIn(type="respond", message="yes"))

    assert [e["rule"] for e in caught.value.details["errors"]] == ["check_response"]
