"""Wire shapes of stored records, shared by the API answers and the event stream.

Each ``*Out`` model is what a client sees of a row; the ``*_out`` functions build them. Tool
titles and card hints come from the tool registry when the tool is still registered.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from interlock.storage.models import Conversation, Decision, Message, ToolCall


class ToolErrorOut(BaseModel):
    code: str
    message: str


class DecisionOut(BaseModel):
    """A person's decision on an interrupted tool call.

    ``proposed_args`` are the model's args at decision time; ``args`` the edited args (edit).
    """

    model_config = ConfigDict(json_schema_serialization_defaults_required=True)

    id: str
    type: Literal["approve", "edit", "reject", "respond"]
    user_id: str
    args: Any = None
    message: str | None = None
    proposed_args: Any = None
    created_at: datetime


class ToolCallApprovalOut(BaseModel):
    """One person's approval of a call that needs several (``approvals_required`` > 1)."""

    model_config = ConfigDict(json_schema_serialization_defaults_required=True)

    user_id: str
    user_name: str
    created_at: datetime


class ToolCallOut(BaseModel):
    """A tool call with its status, the args proposed and the args that actually ran.

    ``expires_at`` is the server-clock deadline of an interrupted call (then it expires);
    ``approvals`` lists who approved so far when ``approvals_required`` > 1;
    ``require_approver`` means the conversation's owner may not approve it.
    ``grant_id`` names the "don't ask again" grant that let the call run without a card.
    """

    model_config = ConfigDict(json_schema_serialization_defaults_required=True)

    id: str
    message_id: int
    run_id: str
    name: str
    title: str
    card: str | None = None
    permission: str
    status: str
    proposed_args: Any = None
    executed_args: Any = None
    raw_args: str | None = None
    result_text: str | None = None
    result_data: Any = None
    error: ToolErrorOut | None = None
    decision: DecisionOut | None = None
    grant_id: str | None = None
    created_at: datetime
    started_at: datetime | None = None
    finished_at: datetime | None = None
    expires_at: datetime | None = None
    approvals_required: int = 1
    require_approver: bool = False
    approvals: list[ToolCallApprovalOut] = []


class MessageOut(BaseModel):
    """A stored message; assistant messages carry their tool calls in call order."""

    model_config = ConfigDict(json_schema_serialization_defaults_required=True)

    id: int
    role: Literal["user", "assistant", "tool"]
    content: str
    run_id: str | None = None
    created_at: datetime
    tool_call_id: str | None = None
    tool_status: str | None = None
    tool_calls: list[ToolCallOut] = []


class ConversationSummary(BaseModel):
    id: str
    title: str
    employee: str
    status: Literal["idle", "running", "paused"]
    created_at: datetime
    updated_at: datetime


def decision_out(decision: Decision) -> DecisionOut:
    """Build the wire shape of ``decision``."""
    return DecisionOut.model_validate(decision, from_attributes=True)


def tool_call_out(
    call: ToolCall,
    decision: Decision | None,
    *,
    title: str | None = None,
    card: str | None = None,
    approvals: list[ToolCallApprovalOut] | None = None,
) -> ToolCallOut:
    """Build the wire shape of ``call``; ``title`` defaults to the tool name."""
    error = (
        ToolErrorOut(code=call.error_code, message=call.error_message or "")
        if call.error_code
        else None
    )
    return ToolCallOut(
        id=call.id,
        message_id=call.message_id,
        run_id=call.run_id,
        name=call.name,
        title=title or call.name,
        card=card,
        permission=call.permission,
        status=call.status,
        proposed_args=call.proposed_args,
        executed_args=call.executed_args,
        raw_args=call.raw_args,
        result_text=call.result_text,
        result_data=call.result_data,
        error=error,
        decision=decision_out(decision) if decision else None,
        grant_id=call.grant_id,
        created_at=call.created_at,
        started_at=call.started_at,
        finished_at=call.finished_at,
        expires_at=call.expires_at,
        approvals_required=call.approvals_required,
        require_approver=call.require_approver,
        approvals=approvals or [],
    )


def message_out(message: Message, tool_calls: list[ToolCallOut] | None = None) -> MessageOut:
    """Build the wire shape of ``message`` with its tool calls (assistant messages)."""
    assert message.id is not None
    return MessageOut(
        id=message.id,
        role=message.role,  # type: ignore[arg-type]
        content=message.content,
        run_id=message.run_id,
        created_at=message.created_at,
        tool_call_id=message.tool_call_id,
        tool_status=message.tool_status,
        tool_calls=tool_calls or [],
    )


def conversation_status(conversation: Conversation, has_pending: bool) -> str:
    """Return ``running`` while a run is active, ``paused`` with undecided calls, else ``idle``."""
    if conversation.active_run_id:
        return "running"
    return "paused" if has_pending else "idle"
