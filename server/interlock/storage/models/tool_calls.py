"""Tool calls, their approvers, their outputs and the decisions on them.

Tool call statuses (see :class:`ToolCallStatus`)::

    pending -> interrupted -> running -> succeeded | failed
                interrupted -> rejected | cancelled | expired
    pending -> running            (ALLOW calls skip ``interrupted``)
    pending -> failed             (malformed args, unknown tool, check refused: no card)
    pending | interrupted -> awaiting_client -> succeeded | failed | cancelled
                                  (``execution="frontend"``: the browser posts the result)
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column, Index, Text, UniqueConstraint, text
from sqlmodel import Field, SQLModel

from interlock.storage.models.common import (
    ToolCallStatus,
    new_id,
    utcnow,
)

FINISHED_LATE_WHERE = "finished_late_at IS NOT NULL"
"""The rows ``ix_tool_calls_finished_late`` covers (a partial index on both backends)."""

# The calls whose tool returned after they were stopped: the model's prompt notes them on every
# step (``interlock.engine.late``). A partial index: rare rows, and nothing written for the rest.
# Its PostgreSQL ``WHERE`` is added as the MCP record index's is.
FINISHED_LATE_INDEX = Index(
    "ix_tool_calls_finished_late", "conversation_id", sqlite_where=text(FINISHED_LATE_WHERE)
)


class ToolCall(SQLModel, table=True):
    __tablename__ = "tool_calls"
    __table_args__ = (
        Index("ix_tool_calls_message_id_index", "message_id", "index"),
        # Per-cycle reads of one conversation touch only the rows they return (migration 0017):
        # its calls after a message in call order (history), its open or declined calls (new
        # message, loop guard), its undone calls (the prompt's note).
        Index(
            "ix_tool_calls_conversation_id_message_id_index",
            "conversation_id",
            "message_id",
            "index",
        ),
        Index("ix_tool_calls_conversation_id_status", "conversation_id", "status"),
        Index("ix_tool_calls_conversation_id_undo_state", "conversation_id", "undo_state"),
        FINISHED_LATE_INDEX,
    )

    id: str = Field(default_factory=lambda: new_id("call"), primary_key=True)
    conversation_id: str = Field(max_length=64)
    message_id: int = Field()
    run_id: str = Field(max_length=64)
    index: int = 0
    name: str = Field(max_length=200)
    permission: str = Field(default="ASK", max_length=10)
    proposed_args: Any = Field(default=None, sa_column=Column(JSON))
    # Raw argument text when the model's JSON could not be parsed.
    raw_args: str | None = Field(default=None, sa_column=Column(Text))
    executed_args: Any = Field(default=None, sa_column=Column(JSON))
    status: str = Field(default=ToolCallStatus.pending, max_length=20, index=True)
    result_text: str | None = Field(default=None, sa_column=Column(Text))
    result_data: Any = Field(default=None, sa_column=Column(JSON))
    error_code: str | None = Field(default=None, max_length=64)
    error_message: str | None = Field(default=None, sa_column=Column(Text))
    # How the call reads on its card (``Confirmation`` as a dict), set when it is interrupted.
    confirmation: Any = Field(default=None, sa_column=Column(JSON))
    # Length of the tool's whole text output, and whether ``result_text`` is cut (the whole
    # text is then in ``tool_outputs``).
    result_chars: int | None = None
    result_cut: bool = False
    # The "don't ask again" grant that let this call run without a card, if any.
    grant_id: str | None = Field(default=None, max_length=64)
    created_at: datetime = Field(default_factory=utcnow)
    started_at: datetime | None = None
    finished_at: datetime | None = None
    # Approval policy, fixed when the call is interrupted (``interlock.approvals.policy``):
    # the server-clock deadline, distinct approvals needed, and whether the owner may approve.
    expires_at: datetime | None = Field(default=None, index=True)
    approvals_required: int = 1
    require_approver: bool = False
    # Set in the same guarded update that records the final decision; the expiry sweeper
    # only closes calls where it is still empty, so exactly one of the two wins.
    decided_at: datetime | None = None
    # ``available`` once the call changed data through ``ctx.store``; ``undone`` after undo.
    undo_state: str | None = Field(default=None, max_length=20)
    undone_at: datetime | None = None
    # Set when the tool of a call stopped while it ran (closed ``failed``, ``outcome_unknown``)
    # returned after all: ``status`` and the result or error then say what really happened
    # (``interlock.engine.late``); its tool message still says what the model was told then.
    finished_late_at: datetime | None = None
    # What the call was closed as before its tool returned: ``stopped`` (``outcome_unknown``)
    # or ``timeout``; None when it did not finish late (and on rows recorded before 0022:
    # stopped).
    finished_late_after: str | None = Field(default=None, max_length=16)
    # The MCP client that requested the call (its ``clientInfo`` title or name); None for
    # calls proposed in a chat.
    client_name: str | None = Field(default=None, max_length=200)
    # The MCP session it came in (``Mcp-Session-Id``, 2025-era clients); the loop guard
    # counts an MCP client's repeats within one session (``interlock.engine.loop_guard``).
    mcp_session: str | None = Field(default=None, max_length=200)


class ToolCallApproval(SQLModel, table=True):
    """One person's approval of a call that needs several (``approvals_required`` > 1)."""

    __tablename__ = "tool_call_approvals"
    __table_args__ = (
        UniqueConstraint("tool_call_id", "user_id", name="uq_tool_call_approvals_call_user"),
    )

    id: int | None = Field(default=None, primary_key=True)
    tool_call_id: str = Field(max_length=64, index=True)
    conversation_id: str = Field(max_length=64, index=True)
    user_id: str = Field(max_length=64)
    created_at: datetime = Field(default_factory=utcnow)


class ToolOutput(SQLModel, table=True):
    """The whole text output of a tool call whose ``result_text`` was cut.

    Kept apart from ``tool_calls`` so loading a conversation's history never reads it.
    """

    __tablename__ = "tool_outputs"

    tool_call_id: str = Field(primary_key=True, max_length=64)
    conversation_id: str = Field(index=True, max_length=64)
    text: str = Field(sa_column=Column(Text, nullable=False))


class Decision(SQLModel, table=True):
    __tablename__ = "decisions"

    id: str = Field(default_factory=lambda: new_id("dec"), primary_key=True)
    # Unique: of two concurrent decisions on one call exactly one insert succeeds.
    tool_call_id: str = Field(unique=True, max_length=64)
    conversation_id: str = Field(index=True, max_length=64)
    type: str = Field(max_length=20)
    user_id: str = Field(max_length=64)
    args: Any = Field(default=None, sa_column=Column(JSON))
    message: str | None = Field(default=None, sa_column=Column(Text))
    proposed_args: Any = Field(default=None, sa_column=Column(JSON))
    created_at: datetime = Field(default_factory=utcnow)
