"""SQLModel tables: Interlock's own records are the single source of truth.

Messages, tool calls and decisions live here; the LangGraph graph keeps no copy of the history
(see ``interlock.engine``), so the cost of a turn does not grow with the conversation's length.

Tool call statuses (see :class:`ToolCallStatus`)::

    pending -> interrupted -> running -> succeeded | failed
                interrupted -> rejected | cancelled | expired
    pending -> running            (ALLOW calls skip ``interrupted``)
    pending -> failed             (malformed args, unknown tool, check refused: no card)
    pending | interrupted -> awaiting_client -> succeeded | failed | cancelled
                                  (``execution="frontend"``: the browser posts the result)
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, Boolean, Column, Index, String, Text, UniqueConstraint, false, text
from sqlmodel import Field, SQLModel


def utcnow() -> datetime:
    """Return the current time, timezone-aware UTC."""
    return datetime.now(UTC)


def as_utc(value: datetime) -> datetime:
    """Return ``value`` as aware UTC; SQLite hands back naive datetimes that were stored UTC."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def new_id(prefix: str) -> str:
    """Return a new opaque id such as ``conv_3f2a...`` (prefix + 32 hex digits)."""
    return f"{prefix}_{uuid.uuid4().hex}"


class Role(StrEnum):
    admin = "admin"
    member = "member"


class MessageRole(StrEnum):
    user = "user"
    assistant = "assistant"
    tool = "tool"


class RunStatus(StrEnum):
    running = "running"
    paused = "paused"
    completed = "completed"
    failed = "failed"
    cancelled = "cancelled"


class ToolCallStatus(StrEnum):
    pending = "pending"
    interrupted = "interrupted"
    running = "running"
    succeeded = "succeeded"
    failed = "failed"
    rejected = "rejected"
    cancelled = "cancelled"
    awaiting_client = "awaiting_client"
    # Nobody decided before ``expires_at``: closed by the server, never run.
    expired = "expired"


class DecisionType(StrEnum):
    approve = "approve"
    edit = "edit"
    reject = "reject"
    respond = "respond"


class User(SQLModel, table=True):
    __tablename__ = "users"

    id: str = Field(default_factory=lambda: new_id("user"), primary_key=True)
    name: str = Field(index=True, unique=True, max_length=200)
    role: str = Field(default=Role.member, max_length=20)
    token_hash: str | None = Field(default=None, index=True, max_length=128)
    created_at: datetime = Field(default_factory=utcnow)


class TokenScope(StrEnum):
    """What an access token may reach (``interlock.storage.tokens``).

    ``mcp``: the MCP endpoint ``/mcp`` only; every other route refuses it (403 ``token_scope``),
    so an agent holding it cannot decide its own tool calls.
    """

    mcp = "mcp"


class AccessToken(SQLModel, table=True):
    """An extra bearer token of a user, limited to a scope (see ``interlock.storage.tokens``).

    Only the token's SHA-256 hex digest is stored; the token is shown once, when created.
    """

    __tablename__ = "access_tokens"

    id: str = Field(default_factory=lambda: new_id("tok"), primary_key=True)
    user_id: str = Field(index=True, max_length=64)
    name: str = Field(max_length=100)
    scope: str = Field(default=TokenScope.mcp, max_length=20)
    token_hash: str = Field(index=True, unique=True, max_length=128)
    created_at: datetime = Field(default_factory=utcnow)
    last_used_at: datetime | None = None
    revoked_at: datetime | None = None


class Conversation(SQLModel, table=True):
    __tablename__ = "conversations"
    __table_args__ = (
        # One record of MCP calls per person and employee (two first calls may race).
        Index(
            "uq_conversations_mcp_record",
            "owner_id",
            "employee",
            unique=True,
            sqlite_where=text("channel = 'mcp'"),
            postgresql_where=text("channel = 'mcp'"),
        ),
    )

    id: str = Field(default_factory=lambda: new_id("conv"), primary_key=True)
    owner_id: str = Field(index=True, max_length=64)
    employee: str = Field(max_length=100)
    title: str = Field(default="New conversation", max_length=200)
    # Set while a run is active; claimed with a compare-and-set so only one run goes at a time.
    active_run_id: str | None = Field(default=None, max_length=64)
    last_event_seq: int = 0
    # Skills loaded in this conversation through ``load_skill`` (pinned ones are not listed).
    loaded_skills: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    # ``chat`` (a person chats with the employee) or ``mcp`` (the per-person record of the calls
    # MCP clients make through this employee; no model runs in it).
    channel: str = Field(
        default="chat", sa_column=Column(String(20), nullable=False, server_default="chat")
    )
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)


class EmployeeRecord(SQLModel, table=True):
    """An admin-made AI employee, or an admin's override of a built-in one (``builtin``)."""

    __tablename__ = "employees"

    slug: str = Field(primary_key=True, max_length=100)
    builtin: bool = False
    name: str = Field(max_length=200)
    avatar: str = Field(default="", max_length=200)
    title: str = Field(default="", max_length=200)
    about: str = Field(default="", sa_column=Column(Text, nullable=False))
    system_prompt: str = Field(default="", sa_column=Column(Text, nullable=False))
    model: str | None = Field(default=None, max_length=200)
    pinned_skills: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    available_skills: list[str] = Field(
        default_factory=list, sa_column=Column(JSON, nullable=False)
    )
    tool_overrides: dict[str, str] = Field(
        default_factory=dict, sa_column=Column(JSON, nullable=False)
    )
    greeting: str = Field(default="", sa_column=Column(Text, nullable=False))
    # Oversight (see ``interlock.approvals``): who besides the owner may decide, the
    # employee's approval timeout, and per-tool approval rules.
    approvers: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    approval_timeout_s: float | None = None
    tool_approvals: dict[str, Any] = Field(
        default_factory=dict, sa_column=Column(JSON, nullable=False)
    )
    starter_prompts: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    disabled: bool = False
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)


class Run(SQLModel, table=True):
    __tablename__ = "runs"

    id: str = Field(default_factory=lambda: new_id("run"), primary_key=True)
    conversation_id: str = Field(index=True, max_length=64)
    trigger: str = Field(max_length=20)  # "message" | "resume"
    status: str = Field(default=RunStatus.running, max_length=20)
    error_code: str | None = Field(default=None, max_length=64)
    error_message: str | None = Field(default=None, sa_column=Column(Text))
    created_at: datetime = Field(default_factory=utcnow)
    finished_at: datetime | None = None
    # The worker driving the run (see Worker); another takes it over when its lease lapses.
    owner_id: str | None = Field(default=None, max_length=64, index=True)
    # Set by a cancel that reached another worker; the owner sees it and cancels.
    cancel_requested: bool = Field(
        default=False, sa_column=Column(Boolean, nullable=False, server_default=false())
    )


class Worker(SQLModel, table=True):
    """A server process. Its heartbeat renews the lease on every run it owns."""

    __tablename__ = "workers"

    id: str = Field(primary_key=True, max_length=64)
    host: str = Field(default="", max_length=200)
    pid: int = 0
    started_at: datetime = Field(default_factory=utcnow)
    heartbeat_at: datetime = Field(default_factory=utcnow)


class Message(SQLModel, table=True):
    __tablename__ = "messages"
    __table_args__ = (
        Index("ix_messages_conversation_id_id", "conversation_id", "id"),
        # Exactly one tool message per tool call, enforced by the database.
        UniqueConstraint("tool_call_id", name="uq_messages_tool_call_id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    conversation_id: str = Field(max_length=64)
    run_id: str | None = Field(default=None, max_length=64)
    role: str = Field(max_length=20)
    content: str = Field(default="", sa_column=Column(Text, nullable=False))
    tool_call_id: str | None = Field(default=None, max_length=64)
    # For tool messages: "success" | "error" (LangChain's ToolMessage.status).
    tool_status: str | None = Field(default=None, max_length=20)
    created_at: datetime = Field(default_factory=utcnow)


class ToolCall(SQLModel, table=True):
    __tablename__ = "tool_calls"
    __table_args__ = (Index("ix_tool_calls_message_id_index", "message_id", "index"),)

    id: str = Field(default_factory=lambda: new_id("call"), primary_key=True)
    conversation_id: str = Field(index=True, max_length=64)
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


class GroupMember(SQLModel, table=True):
    """A user's membership of a named group (groups exist through their members)."""

    __tablename__ = "group_members"

    group: str = Field(primary_key=True, max_length=100)
    user_id: str = Field(primary_key=True, max_length=64, index=True)
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


class ActionSwitch(SQLModel, table=True):
    """A person's "AI actions" switch for one employee: on while ``now < on_until``.

    Off (``on_until`` None or past) makes every write tool of the employee ``DENY`` for that
    person. Turning it on sets ``on_until`` a bounded time ahead; use never extends it.
    """

    __tablename__ = "action_switches"

    user_id: str = Field(primary_key=True, max_length=64)
    employee: str = Field(primary_key=True, max_length=100)
    on_until: datetime | None = None
    # "default" (started with the first message to the employee) or "person".
    changed_by: str = Field(default="default", max_length=20)
    changed_at: datetime = Field(default_factory=utcnow)


class Grant(SQLModel, table=True):
    """A remembered approval ("don't ask again") of one tool for one person.

    ``scope`` is ``conversation`` (``conversation_id`` set) or ``employee`` (all of the
    person's conversations with ``employee``). ``args`` narrows it to those exact args (their
    canonical JSON is ``args_key``); ``schema_hash`` voids it when the tool's schema or
    permission changes.
    """

    __tablename__ = "grants"
    __table_args__ = (Index("ix_grants_user_employee_tool", "user_id", "employee", "tool"),)

    id: str = Field(default_factory=lambda: new_id("grant"), primary_key=True)
    user_id: str = Field(max_length=64)
    employee: str = Field(max_length=100)
    tool: str = Field(max_length=200)
    scope: str = Field(max_length=20)
    conversation_id: str | None = Field(default=None, max_length=64)
    args: Any = Field(default=None, sa_column=Column(JSON))
    args_key: str | None = Field(default=None, sa_column=Column(Text))
    schema_hash: str = Field(max_length=64)
    source_call_id: str | None = Field(default=None, max_length=64)
    uses: int = 0
    last_used_at: datetime | None = None
    created_at: datetime = Field(default_factory=utcnow)
    expires_at: datetime
    revoked_at: datetime | None = None


class Event(SQLModel, table=True):
    __tablename__ = "events"

    conversation_id: str = Field(primary_key=True, max_length=64)
    seq: int = Field(primary_key=True)
    run_id: str | None = Field(default=None, max_length=64)
    type: str = Field(max_length=40)
    data: str = Field(sa_column=Column(Text, nullable=False))
    created_at: datetime = Field(default_factory=utcnow)


class StoreEntry(SQLModel, table=True):
    """One key of a person's data kept by tools through ``ctx.store`` (see ``interlock.store``).

    A deleted key stays as a tombstone (``present`` false) so its undo history stays linked.
    ``last_change_id`` is the :class:`StoreChange` whose state the entry holds now.
    """

    __tablename__ = "store_entries"
    __table_args__ = (
        UniqueConstraint("owner_id", "namespace", "key", name="uq_store_entries_owner_ns_key"),
    )

    id: int | None = Field(default=None, primary_key=True)
    owner_id: str = Field(max_length=64)
    namespace: str = Field(max_length=100)
    key: str = Field(max_length=200)
    value: Any = Field(default=None, sa_column=Column(JSON))
    present: bool = True
    last_change_id: int | None = None
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)


class StoreChange(SQLModel, table=True):
    """What one tool call did to one key: the value before its first write and after its last."""

    __tablename__ = "store_changes"
    __table_args__ = (
        UniqueConstraint("tool_call_id", "entry_id", name="uq_store_changes_call_entry"),
    )

    id: int | None = Field(default=None, primary_key=True)
    tool_call_id: str = Field(index=True, max_length=64)
    entry_id: int = Field(index=True)
    before: Any = Field(default=None, sa_column=Column(JSON))
    present_before: bool = False
    after: Any = Field(default=None, sa_column=Column(JSON))
    present_after: bool = False
    # The change the entry held before this call wrote it (restored by undo).
    prev_change_id: int | None = None
    # Words for a person: ``note #2: “buy milk”``.
    label: str = Field(default="", max_length=300)
    created_at: datetime = Field(default_factory=utcnow)


class AuditRecord(SQLModel, table=True):
    """One decision or automatic outcome on a tool call, chained by SHA-256 (see ``interlock.audit``).

    ``seq`` orders the chain (1, 2, 3, ...); ``hash`` is SHA-256 over ``prev_hash`` and the
    record's other fields, so editing, inserting or deleting a row breaks the chain.

    ``kind`` ``token``: an access token created or revoked (``outcome`` ``created`` or
    ``revoked``), ``tool_call_id`` the token's id, ``reason`` its name, ``owner_id`` its owner,
    ``decider`` who did it; ``conversation_id``, ``employee`` and ``tool`` are empty.
    """

    __tablename__ = "audit_records"
    __table_args__ = (
        Index("ix_audit_records_tool_created", "tool", "created_at"),
        Index("ix_audit_records_owner_created", "owner_id", "created_at"),
    )

    seq: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    created_at: datetime = Field(default_factory=utcnow, index=True)
    # ``tool_call`` or ``token``.
    kind: str = Field(
        default="tool_call", max_length=20, sa_column_kwargs={"server_default": "tool_call"}
    )
    tool_call_id: str = Field(index=True, max_length=64)
    conversation_id: str = Field(max_length=64)
    employee: str = Field(index=True, max_length=100)
    tool: str = Field(max_length=200)
    # The conversation's owner: members see the records of their own conversations.
    owner_id: str = Field(max_length=64)
    # A user id, ``policy:<grant id>``, ``policy:allow``, ``policy:repeat``, ``timeout`` or ``system``.
    decider: str = Field(index=True, max_length=100)
    channel: str = Field(max_length=20)
    outcome: str = Field(max_length=20)
    reason: str | None = Field(default=None, sa_column=Column(Text))
    proposed_args: Any = Field(default=None, sa_column=Column(JSON))
    executed_args: Any = Field(default=None, sa_column=Column(JSON))
    # Milliseconds from the call's proposal to this outcome.
    waited_ms: int = 0
    prev_hash: str = Field(max_length=64)
    hash: str = Field(max_length=64, unique=True)


class Document(SQLModel, table=True):
    """A person's Markdown document (the ``documents`` skill); one per owner and title."""

    __tablename__ = "documents"
    __table_args__ = (UniqueConstraint("owner_id", "title", name="uq_documents_owner_title"),)

    id: int | None = Field(default=None, primary_key=True)
    owner_id: str = Field(index=True, max_length=64)
    title: str = Field(max_length=200)
    markdown: str = Field(sa_column=Column(Text, nullable=False))
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)


class McpServerRecord(SQLModel, table=True):
    """A remote MCP server added through the admin API (``/api/mcp-servers``); servers from
    ``INTERLOCK_MCP_SERVERS`` are not stored. ``spec`` is a
    :class:`~interlock.settings.McpServerSpec` as JSON."""

    __tablename__ = "mcp_servers"

    name: str = Field(primary_key=True, max_length=32)
    spec: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    created_by: str = Field(max_length=64)
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)
