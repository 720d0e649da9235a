"""Tools: declaration (``@tool``), the registry, argument validation and execution.

See ``docs/architecture.md`` ("Tool registry contract") for how the engine uses them.
"""

from interlock.tools.base import (
    TOOL_ERROR_CODES,
    Confirmation,
    FieldError,
    Permission,
    Tool,
    ToolAnnotations,
    ToolContext,
    ToolError,
    ToolResult,
    is_question,
)
from interlock.tools.decorator import tool
from interlock.tools.registry import ToolRegistrationError, ToolRegistry, provider_safe_name

__all__ = [
    "TOOL_ERROR_CODES",
    "Confirmation",
    "FieldError",
    "Permission",
    "Tool",
    "ToolAnnotations",
    "ToolContext",
    "ToolError",
    "ToolRegistrationError",
    "ToolRegistry",
    "ToolResult",
    "is_question",
    "provider_safe_name",
    "tool",
]
