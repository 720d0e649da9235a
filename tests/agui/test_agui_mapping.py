"""The mapping on its own: Interlock events → AG-UI events, stored rows → AG-UI messages,
waiting calls → interrupts, resume entries → decisions."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from ag_ui.core import ResumeEntry

from interlock.agui.interrupts import (
    client_result_for,
    decision_for,
    decision_types,
    interrupt_for,
    response_schema,
)
from interlock.agui.translate import EventTranslator, history_messages
from interlock.errors import BadRequest
from interlock.storage import Message, ToolCall
from interlock.storage.views import MessageOut, ToolCallOut, ToolErrorOut
from interlock.streaming.events import (
    MessageCompleted,
    MessageDelta,
    RunStarted,
    ToolCallCompleted,
    ToolCallCreated,
    ToolCallInterrupted,
)
from interlock.tools import Tool

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def _call(**fields: Any) -> ToolCallOut:
    base: dict[str, Any] = {
        "id": "call_1",
        "message_id": 2,
        "run_id": "run_1",
        "name": "notes.add",
        "title": "Add a note",
        "permission": "ASK",
        "status": "interrupted",
        "proposed_args": {"text": "buy milk"},
        "created_at": NOW,
    }
    return ToolCallOut(**{**base, **fields})


def _message(role: str, content: str = "", **fields: Any) -> MessageOut:
    return MessageOut(
        id=fields.pop("id", 2), role=role, content=content, run_id="run_1", created_at=NOW, **fields
    )


def _tool(**fields: Any) -> Tool:
    return Tool(
        name="notes.add",
        title="Add a note",
        description="Add a note.",
        input_schema={"type": "object", "properties": {"text": {"type": "string"}}},
        handler=lambda args, ctx: "ok",
        **fields,
    )


def _dump(events: list[Any]) -> list[dict[str, Any]]:
    return [e.model_dump(mode="json", by_alias=True, exclude_none=True) for e in events]


def test_deltas_open_a_text_message_that_the_stored_message_ends() -> None:
    translator = EventTranslator("r")
    out = _dump(
        translator.feed(RunStarted(trigger="message"))
        + translator.feed(MessageDelta(delta="Hel"))
        + translator.feed(MessageDelta(delta=""))
        + translator.feed(MessageDelta(delta="lo"))
        + translator.feed(MessageCompleted(message=_message("assistant", "Hello")))
        + translator.feed(ToolCallCreated(tool_call=_call(status="pending")))
        + translator.feed(ToolCallInterrupted(tool_call=_call()))
    )
    assert out == [
        {"type": "TEXT_MESSAGE_START", "messageId": "r-text-1", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "r-text-1", "delta": "Hel"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "r-text-1", "delta": "lo"},
        {"type": "TEXT_MESSAGE_END", "messageId": "r-text-1"},
        {
            "type": "TOOL_CALL_START",
            "toolCallId": "call_1",
            "toolCallName": "notes.add",
            "parentMessageId": "r-text-1",
        },
        {"type": "TOOL_CALL_ARGS", "toolCallId": "call_1", "delta": '{"text": "buy milk"}'},
        {"type": "TOOL_CALL_END", "toolCallId": "call_1"},
    ]
    assert translator.close() == []


def test_a_message_not_streamed_comes_whole_and_one_without_text_still_parents_its_calls() -> None:
    translator = EventTranslator("r")
    whole = _dump(translator.feed(MessageCompleted(message=_message("assistant", "Hi"))))
    assert [e["type"] for e in whole] == [
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
    ]
    assert whole[1]["delta"] == "Hi"
    assert translator.feed(MessageCompleted(message=_message("assistant", ""))) == []
    start = _dump(
        translator.feed(ToolCallCreated(tool_call=_call(raw_args="{bad", proposed_args=None)))
    )
    assert start[0]["parentMessageId"] == "r-text-2"
    assert start[1]["delta"] == "{bad"
    assert translator.feed(MessageCompleted(message=_message("user", "hi"))) == []


def test_results_carry_the_tool_message_and_a_run_cut_mid_message_is_closed() -> None:
    translator = EventTranslator("r")
    done = _call(status="succeeded", result_text="Added note #1")
    out = _dump(
        translator.feed(ToolCallCompleted(tool_call=done, message=_message("tool", "", id=7)))
        + translator.feed(
            ToolCallCompleted(
                tool_call=_call(id="call_2", status="rejected"),
                message=_message("tool", "Rejected by the person: no.", id=8),
            )
        )
        + translator.feed(
            ToolCallCompleted(
                tool_call=_call(
                    id="call_3",
                    status="failed",
                    error=ToolErrorOut(code="timeout", message="Slow."),
                )
            )
        )
    )
    assert [(e["messageId"], e["toolCallId"], e["content"]) for e in out] == [
        ("msg-7", "call_1", "Added note #1"),
        ("msg-8", "call_2", "Rejected by the person: no."),
        ("call_3-result", "call_3", "Slow."),
    ]
    translator.feed(MessageDelta(delta="par"))
    assert _dump(translator.close()) == [{"type": "TEXT_MESSAGE_END", "messageId": "r-text-1"}]
    assert translator.close() == []


def test_history_sends_what_ran_and_marks_failed_tool_messages() -> None:
    messages = [
        Message(id=1, conversation_id="c", role="user", content="add a note"),
        Message(id=2, conversation_id="c", role="assistant", content=""),
        Message(
            id=3,
            conversation_id="c",
            role="tool",
            content="Added",
            tool_call_id="call_1",
            tool_status="success",
        ),
        Message(
            id=4,
            conversation_id="c",
            role="tool",
            content="Error [x]: y",
            tool_call_id="call_2",
            tool_status="error",
        ),
    ]
    calls = [
        ToolCall(
            id="call_1",
            conversation_id="c",
            message_id=2,
            run_id="r",
            name="notes.add",
            proposed_args={"text": "a"},
            executed_args={"text": "b"},
        ),
        ToolCall(
            id="call_2",
            conversation_id="c",
            message_id=2,
            run_id="r",
            index=1,
            name="notes.add",
            proposed_args={"text": "c"},
        ),
    ]
    out = [
        m.model_dump(by_alias=True, exclude_none=True) for m in history_messages(messages, calls)
    ]
    assert out[0] == {"id": "msg-1", "role": "user", "content": "add a note"}
    assert out[1]["id"] == "msg-2" and "content" not in out[1]
    assert [c["function"]["arguments"] for c in out[1]["toolCalls"]] == [
        '{"text": "b"}',
        '{"text": "c"}',
    ]
    assert out[2] == {"id": "msg-3", "role": "tool", "content": "Added", "toolCallId": "call_1"}
    assert out[3]["error"] == "Error [x]: y"


def test_interrupts_offer_the_decisions_the_call_allows() -> None:
    tool = _tool()
    assert decision_types(_call(), tool) == ["approve", "edit", "reject", "respond"]
    assert decision_types(_call(approvals_required=2), tool) == ["approve", "reject", "respond"]
    assert decision_types(_call(), None) == ["approve", "reject", "respond"]
    question = _tool(check_response=lambda args, message: [])
    assert decision_types(_call(), question) == ["respond", "reject"]

    interrupt = interrupt_for(_call(expires_at=NOW), tool).model_dump(
        by_alias=True, exclude_none=True
    )
    assert interrupt["expiresAt"] == "2026-12-01T12:00:00Z"
    assert interrupt["message"] == (
        "Add a note: approve it, change it, reject it or answer instead."
    )
    approver = interrupt_for(_call(require_approver=True), tool)
    assert approver.message == (
        "Add a note (an approver must approve it; you can reject it or answer instead)."
    )
    assert [
        b["properties"]["type"]["const"] for b in (approver.response_schema or {})["oneOf"]
    ] == ["reject", "respond"]
    asked = interrupt_for(_call(proposed_args={"question": "Tea?"}), question)
    assert asked.message == "Tea?" and asked.expires_at is None
    frontend = interrupt_for(_call(status="awaiting_client"), tool)
    assert frontend.reason == "interlock:client_result"
    assert frontend.response_schema == response_schema(_call(status="awaiting_client"), tool)
    branches = (frontend.response_schema or {})["oneOf"]
    assert [sorted(b["properties"]) for b in branches] == [["data", "text"], ["error"]]


def _entry(payload: Any = None, status: str = "resolved") -> ResumeEntry:
    return ResumeEntry(interrupt_id="call_1", status=status, payload=payload)  # type: ignore[arg-type]


def test_resume_entries_become_decisions() -> None:
    tool = _tool()
    edit = decision_for(_entry({"type": "edit", "args": {"text": "x"}}), _call(), tool)
    assert (edit.type, edit.args) == ("edit", {"text": "x"})
    reject = decision_for(_entry({"type": "reject", "message": "no"}), _call(), tool)
    assert (reject.type, reject.message) == ("reject", "no")
    cancelled = decision_for(_entry(status="cancelled"), _call(), tool)
    assert (cancelled.type, cancelled.message) == ("reject", None)
    result = client_result_for(_entry({"text": "UTC"}), _call(status="awaiting_client"))
    assert result.text == "UTC"
    dismissed = client_result_for(_entry(status="cancelled"), _call(status="awaiting_client"))
    assert dismissed.error is not None and dismissed.error.code == "cancelled"


@pytest.mark.parametrize(
    "payload",
    [
        None,
        "approve",
        {"approved": True},
        {"type": "respond"},
        {"type": "respond", "message": " "},
        {"type": "approve", "args": {"text": "x"}},
        {"type": "approve", "remember": {"scope": "everywhere"}},
        {"type": "edit", "args": "x"},
        {"type": "reject", "message": 5},
        {"type": "approve", "message": "ok"},
    ],
)
def test_payloads_that_fit_no_offered_decision_are_invalid_resume(payload: Any) -> None:
    """What ``POST /api/tool-calls/{id}/decision`` refuses (read by the same model and
    checks), as ``invalid_resume``: an approval with a note (``message``) among them."""
    with pytest.raises(BadRequest) as caught:
        decision_for(_entry(payload), _call(), _tool())
    assert caught.value.code == "invalid_resume"
    assert caught.value.details["errors"]
    with pytest.raises(BadRequest):
        client_result_for(
            _entry({"text": "a", "error": {"code": "failed", "message": "b"}}), _call()
        )


def test_a_payload_the_decision_endpoint_takes_is_taken() -> None:
    remember = {"scope": "employee", "exact_args": True, "days": 3}
    decision = decision_for(_entry({"type": "approve", "remember": remember}), _call(), _tool())
    assert (decision.type, decision.message) == ("approve", None)
    assert decision.remember is not None and decision.remember.days == 3
