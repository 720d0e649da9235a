"""Ids, times and the enumerations the tables' string columns hold."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any


def utcnow() -> datetime:
    """Return the current time, timezone-aware UTC."""
    return datetime.now(UTC)


def as_utc(value: datetime) -> datetime:
    """Return ``value`` as aware UTC; SQLite hands back naive datetimes that were stored UTC."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def empty_list() -> list[Any]:
    """A new empty list: the ``default_factory`` of a table model's list column.

    A Python function, not ``list``: SQLModel builds a table row object by asking pydantic for
    each missing field's default, and pydantic reads the factory's signature on every call;
    ``list``'s is parsed from its text signature (about 65 us, ten times a function's).
    """
    return []


def empty_dict() -> dict[str, Any]:
    """A new empty dict: the ``default_factory`` of a table model's dict column (see
    :func:`empty_list`)."""
    return {}


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


class TokenScope(StrEnum):
    """What an access token may reach (``interlock.storage.tokens``).

    ``mcp``: the MCP endpoint ``/mcp`` only; every other route refuses it (403 ``token_scope``),
    so an agent holding it cannot decide its own tool calls.
    """

    mcp = "mcp"
