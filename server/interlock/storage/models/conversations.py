"""Conversations, AI employees, runs and the workers that own them, messages and events."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Boolean, Column, Index, String, Text, UniqueConstraint, false, text
from sqlmodel import Field, SQLModel

from interlock.storage.models.common import (
    RunStatus,
    empty_dict,
    empty_list,
    new_id,
    utcnow,
)


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
        # A person's conversations by latest activity: the list's keyset pages.
        Index("ix_conversations_owner_updated", "owner_id", "updated_at", "id"),
    )

    id: str = Field(default_factory=lambda: new_id("conv"), primary_key=True)
    owner_id: str = Field(index=True, max_length=64)
    employee: str = Field(max_length=100)
    title: str = Field(default="New conversation", max_length=200)
    # Set while a run is active; claimed with a compare-and-set so only one run goes at a time.
    active_run_id: str | None = Field(default=None, max_length=64)
    last_event_seq: int = 0
    # Skills loaded in this conversation through ``load_skill`` (pinned ones are not listed).
    loaded_skills: list[str] = Field(
        default_factory=empty_list, sa_column=Column(JSON, nullable=False)
    )
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
    pinned_skills: list[str] = Field(
        default_factory=empty_list, sa_column=Column(JSON, nullable=False)
    )
    available_skills: list[str] = Field(
        default_factory=empty_list, sa_column=Column(JSON, nullable=False)
    )
    tool_overrides: dict[str, str] = Field(
        default_factory=empty_dict, sa_column=Column(JSON, nullable=False)
    )
    greeting: str = Field(default="", sa_column=Column(Text, nullable=False))
    # Oversight (see ``interlock.approvals``): who besides the owner may decide, the
    # employee's approval timeout, and per-tool approval rules.
    approvers: list[str] = Field(default_factory=empty_list, sa_column=Column(JSON, nullable=False))
    approval_timeout_s: float | None = None
    tool_approvals: dict[str, Any] = Field(
        default_factory=empty_dict, sa_column=Column(JSON, nullable=False)
    )
    starter_prompts: list[str] = Field(
        default_factory=empty_list, sa_column=Column(JSON, nullable=False)
    )
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


class Event(SQLModel, table=True):
    __tablename__ = "events"

    conversation_id: str = Field(primary_key=True, max_length=64)
    seq: int = Field(primary_key=True)
    run_id: str | None = Field(default=None, max_length=64)
    type: str = Field(max_length=40)
    data: str = Field(sa_column=Column(Text, nullable=False))
    created_at: datetime = Field(default_factory=utcnow)
