"""Oversight: the AI-actions switch, remembered permissions (grants), the audit log."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column, Index, Text
from sqlmodel import Field, SQLModel

from interlock.storage.models.common import (
    new_id,
    utcnow,
)


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
