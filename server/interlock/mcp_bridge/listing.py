"""What an MCP connection lists, and the way back from an MCP tool name to an Interlock tool.

The seam between the server (``interlock.mcp_bridge.serve``) and the exposition of tools:
:func:`build_listing` takes the tools a connection may use and the connection's query
parameters, and returns a :class:`Listing`. This module lists every tool flat under its
provider-safe name; the grouped exposition and the tag filters plug in here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import mcp_types as types

from interlock.tools import Permission, Tool

PAGE_SIZE = 100


@dataclass(frozen=True)
class Listing:
    """The MCP tools of one connection.

    Attributes:
        tools: MCP tool definitions, in order.
        names: MCP tool name -> Interlock tool name.
    """

    tools: list[types.Tool]
    names: dict[str, str]

    def page(self, cursor: str | None) -> types.ListToolsResult:
        """One page of the list; ``cursor`` is the previous page's ``next_cursor``."""
        start = int(cursor) if cursor and cursor.isdigit() else 0
        end = start + PAGE_SIZE
        return types.ListToolsResult(
            tools=self.tools[start:end],
            next_cursor=str(end) if end < len(self.tools) else None,
        )

    def resolve(self, name: str, arguments: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
        """``(Interlock tool name, args)`` for a ``tools/call``, or None for an unlisted name."""
        tool = self.names.get(name)
        return (tool, arguments) if tool is not None else None


def build_listing(
    tools: list[Tool], permissions: Mapping[str, Permission], query: Mapping[str, str]
) -> Listing:
    """List ``tools`` (already limited to what the connection may use) flat.

    Args:
        tools: The tools the person may use through the employee (no ``DENY`` tool).
        permissions: Their effective levels.
        query: The connection's query parameters (exposition, filters).
    """
    del permissions, query
    listed = [_definition(t) for t in tools]
    return Listing(tools=listed, names={t.provider_name: t.name for t in tools})


def _definition(tool: Tool) -> types.Tool:
    hints = tool.annotations
    read_only = not tool.write
    return types.Tool(
        name=tool.provider_name,
        title=tool.title,
        description=tool.description,
        input_schema=tool.input_schema,
        output_schema=tool.output_schema
        if (tool.output_schema or {}).get("type") == "object"
        else None,
        annotations=types.ToolAnnotations(
            title=tool.title,
            read_only_hint=read_only,
            destructive_hint=None if read_only else (hints.destructive or not hints.read_only),
            idempotent_hint=hints.idempotent,
            open_world_hint=hints.open_world,
        ),
    )
