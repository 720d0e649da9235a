"""Persistence: SQLModel tables, the database engine, and migrations."""

from interlock.storage.db import Database
from interlock.storage.models import (
    ActionSwitch,
    AuditRecord,
    Conversation,
    Decision,
    DecisionType,
    EmployeeRecord,
    Event,
    Grant,
    Message,
    MessageRole,
    Note,
    Role,
    Run,
    RunStatus,
    ToolCall,
    ToolCallStatus,
    User,
)

__all__ = [
    "ActionSwitch",
    "AuditRecord",
    "Conversation",
    "Database",
    "Decision",
    "DecisionType",
    "EmployeeRecord",
    "Event",
    "Grant",
    "Message",
    "MessageRole",
    "Note",
    "Role",
    "Run",
    "RunStatus",
    "ToolCall",
    "ToolCallStatus",
    "User",
]
