"""MCP tool definitions (``mcp.types.Tool``) of Interlock tools, flat and grouped.

Rules: :mod:`interlock.mcp_bridge.exposition` (module docstring). Pure functions of the tools.
"""

from __future__ import annotations

import copy
import hashlib
from typing import Any

import mcp.types as types

from interlock.mcp_bridge.grouping import ACTION_FIELD, has_ref, merged_input_schema
from interlock.tools import Tool
from interlock.tools.registry import PROVIDER_NAME_MAX, provider_safe_name

MAX_TITLE_CHARS = 200
"""A grouped tool's title joins its actions' titles; past this many characters it becomes
``<namespace>: <n> actions``."""


def flat_definition(tool: Tool) -> types.Tool:
    """Return the MCP definition of one tool (flat; rules: :mod:`~interlock.mcp_bridge.exposition`)."""
    hints = tool.hints()
    return types.Tool(
        name=tool.provider_name or provider_safe_name(tool.name),
        title=tool.title,
        description=tool.description,
        input_schema=copy.deepcopy(tool.input_schema),
        output_schema=object_schema(tool.output_schema),
        annotations=types.ToolAnnotations(
            title=tool.title,
            read_only_hint=hints.read_only,
            destructive_hint=hints.destructive,
            idempotent_hint=hints.idempotent,
            open_world_hint=hints.open_world,
        ),
    )


def object_schema(schema: dict[str, Any] | None) -> dict[str, Any] | None:
    """A copy of an output schema whose root is an object (MCP through 2025-11-25 takes no
    other), else None."""
    if schema is None or schema.get("type") != "object":
        return None
    return copy.deepcopy(schema)


def group_name(namespace: str, taken: set[str]) -> str:
    """Return the MCP name of a namespace's grouped tool: its provider-safe name, or, when that
    is in ``taken``, the same cut to 55 characters plus ``_`` and 8 hex digits of the SHA-256
    of ``group:<namespace>``."""
    name = provider_safe_name(namespace)
    if name not in taken:
        return name
    digest = hashlib.sha256(f"group:{namespace}".encode()).hexdigest()[:8]
    return f"{name[: PROVIDER_NAME_MAX - 9]}_{digest}"


def grouped_definition(name: str, namespace: str, actions: dict[str, Tool]) -> types.Tool:
    """Return the MCP definition of a namespace's grouped tool (rules: ``exposition``).

    Args:
        name: Its MCP name.
        namespace: The namespace (``notes``).
        actions: Action -> tool, sorted by action.
    """
    pairs = list(actions.items())
    hints = [tool.hints() for _, tool in pairs]
    title = ", ".join(tool.title for _, tool in pairs)
    if len(title) > MAX_TITLE_CHARS:
        title = f"{namespace}: {len(pairs)} actions"
    lines = "\n".join(f"- {action}: {tool.description}" for action, tool in pairs)
    description = f"Tools of '{namespace}'. Set `{ACTION_FIELD}` to one of:\n{lines}"
    outputs = [object_schema(tool.output_schema) for _, tool in pairs]
    output_schema = None
    if all(s is not None and not has_ref(s) for s in outputs):
        branches = [
            {k: v for k, v in s.items() if k not in ("$schema", "$id")} for s in outputs if s
        ]
        output_schema = {"type": "object", "anyOf": branches}
    return types.Tool(
        name=name,
        title=title,
        description=description,
        input_schema=merged_input_schema(pairs),
        output_schema=output_schema,
        annotations=types.ToolAnnotations(
            title=title,
            read_only_hint=all(h.read_only for h in hints),
            destructive_hint=any(h.destructive for h in hints),
            idempotent_hint=all(h.idempotent for h in hints),
            open_world_hint=any(h.open_world for h in hints),
        ),
    )
