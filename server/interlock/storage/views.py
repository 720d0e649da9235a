"""Wire shapes of stored records, shared by the API answers and the event stream.

Each ``*Out`` model is what a client sees of a row; the ``*_out`` functions build them. Tool
titles and card hints come from the tool registry when the tool is still registered.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from interlock.storage.call_rows import CallValues
from interlock.storage.models import Conversation, Decision, Message, ToolCall, ToolCallStatus


class ToolErrorOut(BaseModel):
    code: str
    message: str


class ConfirmationOut(BaseModel):
    """How a pending call reads on its card, computed by the tool's ``confirmation``.

    ``summary`` is one sentence in the person's terms; ``action_label`` replaces "Approve";
    ``detail`` is long content shown on demand (plain text, or Markdown for document tools);
    ``previous`` is the stored text the change replaces (for a diff), null when none.
    """

    model_config = ConfigDict(json_schema_serialization_defaults_required=True)

    title: str
    summary: str
    action_label: str
    detail: str | None = None
    previous: str | None = None


UNDO_SAID = frozenset(
    {
        ToolCallStatus.pending,
        ToolCallStatus.interrupted,
        ToolCallStatus.awaiting_client,
        ToolCallStatus.running,
        ToolCallStatus.succeeded,
    }
)
"""Statuses whose card may say how the call can be undone: it may still run, or it ran. An
expired, rejected, cancelled or failed call changed nothing, so nothing is to be undone."""


def confirmation_out(stored: dict[str, Any], status: str) -> ConfirmationOut:
    """The card's confirmation from its stored fields, for a call in ``status``.

    Args:
        stored: What :func:`interlock.tools.hooks.make_confirmation` returned.
        status: The call's status: the stored ``undo`` sentence ("It can be undone
            afterwards.") follows the summary only for :data:`UNDO_SAID`.

    Returns:
        ``Delete note #2: “buy milk”. It can be undone afterwards.`` while the call waits;
        ``Delete note #2: “buy milk”.`` once it expired.
    """
    out = ConfirmationOut.model_validate(stored)
    undo = stored.get("undo")
    if isinstance(undo, str) and undo and status in UNDO_SAID:
        return out.model_copy(update={"summary": f"{out.summary} {undo}"})
    return out


class DecisionOut(BaseModel):
    """A person's decision on an interrupted tool call.

    ``proposed_args`` are the model's args at decision time; ``args`` the edited args (edit).
    """

    model_config = ConfigDict(json_schema_serialization_defaults_required=True)

    id: str
    type: Literal["approve", "edit", "reject", "respond"]
    user_id: str
    user_name: str
    args: Any = None
    message: str | None = None
    proposed_args: Any = None
    created_at: datetime


class UndoOut(BaseModel):
    """Whether the person can undo a write call's changes (``POST /api/tool-calls/{id}/undo``).

    ``available``: Undo may be offered (the server re-checks for later changes); ``undone``:
    Redo may be offered; ``unavailable`` comes with a ``reason``.
    """

    state: Literal["available", "undone", "unavailable"]
    reason: str | None = None


class ToolCallApprovalOut(BaseModel):
    """One person's approval of a call that needs several (``approvals_required`` > 1)."""

    model_config = ConfigDict(json_schema_serialization_defaults_required=True)

    user_id: str
    user_name: str
    created_at: datetime


class ToolCallOut(BaseModel):
    """A tool call with its status, the args proposed and the args that actually ran.

    ``executed_args`` and ``started_at`` stay null for a call refused before its handler ran
    (it ends ``failed``: "not run"). ``result_text`` is cut past the server's limit
    (``result_cut``); ``result_chars`` is the length of the whole text, which
    ``GET /api/tool-calls/{id}/output`` serves. ``write``, ``destructive``, ``execution`` and
    ``modal`` come from the tool's declaration (false / ``server`` when it is unknown).
    ``expires_at`` is the server-clock deadline of an interrupted call (then it expires);
    ``approvals`` lists who approved so far when ``approvals_required`` > 1;
    ``require_approver`` means the conversation's owner may not approve it.
    ``grant_id`` names the "don't ask again" grant that let the call run without a card.
    ``client_name`` names the MCP client that requested the call ("Claude Desktop"; see
    ``interlock.mcp_bridge``), null for calls proposed in a chat. ``waiting_for`` says who
    the call waits for, as the person reading it: ``you`` (decide it, or your browser runs
    it), ``approvers`` (its owner may only reject it: an approver must approve), null once it
    waits for nobody; a conversation is read by its owner, an approver's Approvals list says
    ``you``.
    """

    model_config = ConfigDict(json_schema_serialization_defaults_required=True)

    id: str
    message_id: int
    run_id: str
    name: str
    title: str
    card: str | None = None
    permission: str
    status: str  # pending | interrupted | running | succeeded | failed | rejected | cancelled
    # | awaiting_client
    write: bool = False
    destructive: bool = False
    execution: Literal["server", "frontend"] = "server"
    modal: bool = False
    confirmation: ConfirmationOut | None = None
    proposed_args: Any = None
    executed_args: Any = None
    raw_args: str | None = None
    result_text: str | None = None
    result_data: Any = None
    result_chars: int | None = None
    result_cut: bool = False
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
    undo: UndoOut | None = None
    client_name: str | None = None
    finished_late_at: datetime | None = None
    """Set when the call was stopped while its tool ran and the tool returned after all:
    ``status`` and the result or error then say what really happened ("happened after it
    was stopped")."""
    finished_late_after: Literal["stopped", "timeout"] | None = None
    """With ``finished_late_at``: what the call was closed as while its tool ran, ``stopped``
    (it said it may have happened) or ``timeout`` (it said it timed out, still running)."""
    waiting_for: Literal["you", "approvers"] | None = None


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
    """A conversation in lists; ``pending`` counts the calls waiting for the owner
    (interrupted and undecided, plus frontend calls awaiting the browser); ``channel`` is
    ``mcp`` for the record of the calls MCP clients made through the employee (no chat)."""

    id: str
    title: str
    employee: str
    status: Literal["idle", "running", "paused"]
    pending: int = 0
    channel: Literal["chat", "mcp"] = "chat"
    created_at: datetime
    updated_at: datetime


def decision_out(decision: Decision, user_name: str | None = None) -> DecisionOut:
    """Build the wire shape of ``decision``; ``user_name`` defaults to the user id."""
    return DecisionOut(
        id=decision.id,
        type=decision.type,  # type: ignore[arg-type]
        user_id=decision.user_id,
        user_name=user_name or decision.user_id,
        args=decision.args,
        message=decision.message,
        proposed_args=decision.proposed_args,
        created_at=decision.created_at,
    )


@dataclass(frozen=True)
class ToolFacts:
    """What a call's wire shape takes from its tool's declaration (defaults: tool unknown)."""

    title: str | None = None
    card: str | None = None
    write: bool = False
    destructive: bool = False
    execution: Literal["server", "frontend"] = "server"
    modal: bool = False


def tool_call_out(
    call: ToolCall | CallValues,
    decision: Decision | None,
    facts: ToolFacts = ToolFacts(),
    *,
    decided_by: str | None = None,
    approvals: list[ToolCallApprovalOut] | None = None,
) -> ToolCallOut:
    """Build the wire shape of ``call``; the title defaults to the tool name.

    Args:
        call: The row (an object, or its values read with Core).
        decision: Its decision, if any.
        facts: From the tool's declaration.
        decided_by: The deciding user's name (defaults to the id).
    """
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
        title=facts.title or call.name,
        card=facts.card,
        permission=call.permission,
        status=call.status,
        write=facts.write,
        destructive=facts.destructive,
        execution=facts.execution,
        modal=facts.modal,
        confirmation=confirmation_out(call.confirmation, call.status)
        if isinstance(call.confirmation, dict)
        else None,
        proposed_args=call.proposed_args,
        executed_args=call.executed_args,
        raw_args=call.raw_args,
        result_text=call.result_text,
        result_data=call.result_data,
        result_chars=call.result_chars,
        result_cut=bool(call.result_cut),
        error=error,
        decision=decision_out(decision, decided_by) if decision else None,
        grant_id=call.grant_id,
        created_at=call.created_at,
        started_at=call.started_at,
        finished_at=call.finished_at,
        expires_at=call.expires_at,
        approvals_required=call.approvals_required,
        require_approver=call.require_approver,
        approvals=approvals or [],
        undo=UndoOut(state=call.undo_state) if call.undo_state else None,  # type: ignore[arg-type]
        client_name=call.client_name,
        finished_late_at=call.finished_late_at,
        finished_late_after=(
            (call.finished_late_after or "stopped") if call.finished_late_at else None
        ),  # type: ignore[arg-type]
        waiting_for=owner_waiting_for(call, decision),
    )


def owner_waiting_for(
    call: ToolCall | CallValues, decision: Decision | None
) -> Literal["you", "approvers"] | None:
    """Who ``call`` waits for, as its conversation's owner reads it (``ToolCallOut.waiting_for``):
    an undecided call needing an approver waits for the approvers, not for its owner."""
    if call.status == ToolCallStatus.awaiting_client:
        return "you"
    if call.status != ToolCallStatus.interrupted or decision is not None:
        return None
    return "approvers" if call.require_approver else "you"


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
