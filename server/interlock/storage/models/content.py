"""What tools keep: the key-value store and its changes, documents, remote MCP servers."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from interlock.storage.models.common import (
    empty_dict,
    utcnow,
)


class StoreEntry(SQLModel, table=True):
    """One key of a person's data kept by tools through ``ctx.store`` (see ``interlock.store``).

    A deleted key stays as a tombstone (``present`` false) so its undo history stays linked.
    ``last_change_id`` is the :class:`StoreChange` whose state the entry holds now.
    """

    __tablename__ = "store_entries"
    __table_args__ = (
        UniqueConstraint("owner_id", "namespace", "key", name="uq_store_entries_owner_ns_key"),
        UniqueConstraint("owner_id", "namespace", "seq", name="uq_store_entries_owner_ns_seq"),
    )

    id: int | None = Field(default=None, primary_key=True)
    owner_id: str = Field(max_length=64)
    namespace: str = Field(max_length=100)
    key: str = Field(max_length=200)
    seq: int | None = None
    """The entry's number among its owner's entries of its namespace, for an entry made by
    :meth:`~interlock.store.ToolStore.add` (its key is this number); None for others."""
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
    spec: dict[str, Any] = Field(default_factory=empty_dict, sa_column=Column(JSON, nullable=False))
    created_by: str = Field(max_length=64)
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)
