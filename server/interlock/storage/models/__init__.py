"""SQLModel tables: Interlock's own records are the single source of truth.

Messages, tool calls and decisions live here; the LangGraph graph keeps no copy of the history
(see ``interlock.engine``), so the cost of a turn does not grow with the conversation's length.
One module per kind of record; everything is importable from here.
"""

from interlock.storage.models.common import (
    DecisionType,
    MessageRole,
    Role,
    RunStatus,
    TokenScope,
    ToolCallStatus,
    as_utc,
    new_id,
    utcnow,
)
from interlock.storage.models.content import (
    Document,
    McpServerRecord,
    StoreChange,
    StoreEntry,
)
from interlock.storage.models.conversations import (
    Conversation,
    EmployeeRecord,
    Event,
    Message,
    Run,
    Worker,
)
from interlock.storage.models.oversight import (
    ActionSwitch,
    AuditRecord,
    Grant,
)
from interlock.storage.models.people import (
    AccessToken,
    GroupMember,
    User,
)
from interlock.storage.models.tool_calls import (
    Decision,
    ToolCall,
    ToolCallApproval,
    ToolOutput,
)

__all__ = [
    "AccessToken",
    "ActionSwitch",
    "AuditRecord",
    "Conversation",
    "Decision",
    "DecisionType",
    "Document",
    "EmployeeRecord",
    "Event",
    "Grant",
    "GroupMember",
    "McpServerRecord",
    "Message",
    "MessageRole",
    "Role",
    "Run",
    "RunStatus",
    "StoreChange",
    "StoreEntry",
    "TokenScope",
    "ToolCall",
    "ToolCallApproval",
    "ToolCallStatus",
    "ToolOutput",
    "User",
    "Worker",
    "as_utc",
    "new_id",
    "utcnow",
]
