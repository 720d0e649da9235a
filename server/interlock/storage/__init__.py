"""Persistence: SQLModel tables, the database engine, and migrations."""

from interlock.storage.db import Database
from interlock.storage.models import (
    AuditRecord,
    Conversation,
    Decision,
    DecisionType,
    Document,
    EmployeeRecord,
    Event,
    Message,
    MessageRole,
    Note,
    Role,
    Run,
    RunStatus,
    ToolCall,
    ToolCallStatus,
    ToolOutput,
    User,
)

__all__ = [
    "AuditRecord",
    "Conversation",
    "Database",
    "Decision",
    "DecisionType",
    "Document",
    "EmployeeRecord",
    "Event",
    "Message",
    "MessageRole",
    "Note",
    "Role",
    "Run",
    "RunStatus",
    "ToolCall",
    "ToolCallStatus",
    "ToolOutput",
    "User",
]
