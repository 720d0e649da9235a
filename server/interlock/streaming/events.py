"""Typed stream events.

Every event has a ``type`` literal, the conversation-wide ``seq`` (assigned when published;
the SSE ``id:``) and the ``run_id`` it belongs to. Exactly one terminal event
(``run.paused``, ``run.completed``, ``run.failed`` or ``run.cancelled``) ends every run.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, TypeAdapter

from interlock.storage.views import MessageOut, ToolCallOut


class _Event(BaseModel):
    seq: int = 0
    run_id: str | None = None


class RunStarted(_Event):
    type: Literal["run.started"] = "run.started"
    trigger: Literal["message", "resume"]


class MessageDelta(_Event):
    type: Literal["message.delta"] = "message.delta"
    delta: str


class MessageCompleted(_Event):
    type: Literal["message.completed"] = "message.completed"
    message: MessageOut


class ToolCallCreated(_Event):
    type: Literal["tool_call.created"] = "tool_call.created"
    tool_call: ToolCallOut


class ToolCallInterrupted(_Event):
    type: Literal["tool_call.interrupted"] = "tool_call.interrupted"
    tool_call: ToolCallOut


class ToolCallDecided(_Event):
    type: Literal["tool_call.decided"] = "tool_call.decided"
    tool_call: ToolCallOut


class ToolCallApproved(_Event):
    """One person approved a call that needs more approvals (``tool_call.approvals``)."""

    type: Literal["tool_call.approved"] = "tool_call.approved"
    tool_call: ToolCallOut


class ToolCallRunning(_Event):
    type: Literal["tool_call.running"] = "tool_call.running"
    tool_call: ToolCallOut


class ToolCallAwaitingClient(_Event):
    """A frontend call (``execution="frontend"``) is ready for the person's browser to run."""

    type: Literal["tool_call.awaiting_client"] = "tool_call.awaiting_client"
    tool_call: ToolCallOut


# A call ended, with its tool message. The message's ``content`` is empty when it is the
# call's ``result_text`` (a result is not sent twice in one event); ``GET`` of the
# conversation has it in full. (A comment, not a docstring: it would change the OpenAPI.)
class ToolCallCompleted(_Event):
    type: Literal["tool_call.completed"] = "tool_call.completed"
    tool_call: ToolCallOut
    message: MessageOut | None = None


# A call stopped ("may have happened") or timed out while its tool ran, whose tool returned
# after all (``tool_call.finished_late_after`` says which): its
# real outcome, recorded once (``tool_call.finished_late_at``); no tool message goes with it.
class ToolCallFinishedLate(_Event):
    type: Literal["tool_call.finished_late"] = "tool_call.finished_late"
    tool_call: ToolCallOut


class RunPaused(_Event):
    type: Literal["run.paused"] = "run.paused"
    pending: list[str]


class RunCompleted(_Event):
    type: Literal["run.completed"] = "run.completed"


class RunFailed(_Event):
    type: Literal["run.failed"] = "run.failed"
    error: dict[str, Any]


class RunCancelled(_Event):
    type: Literal["run.cancelled"] = "run.cancelled"
    reason: str


class ConversationDeleted(_Event):
    """The conversation was deleted: the stream's last event (it then ends; a reconnect is
    404 ``not_found``). Not stored; ``seq`` is one past the last stored event."""

    type: Literal["conversation.deleted"] = "conversation.deleted"


StreamEvent = Annotated[
    RunStarted
    | MessageDelta
    | MessageCompleted
    | ToolCallCreated
    | ToolCallInterrupted
    | ToolCallDecided
    | ToolCallApproved
    | ToolCallRunning
    | ToolCallAwaitingClient
    | ToolCallCompleted
    | ToolCallFinishedLate
    | RunPaused
    | RunCompleted
    | RunFailed
    | RunCancelled
    | ConversationDeleted,
    Field(discriminator="type"),
]
stream_event_adapter: TypeAdapter[StreamEvent] = TypeAdapter(StreamEvent)

TERMINAL_TYPES = frozenset({"run.paused", "run.completed", "run.failed", "run.cancelled"})
