"""A remote MCP server's listing as Interlock tools (used by :mod:`.sources`).

* names from :func:`~interlock.mcp_bridge.names.interlock_names` (provider-safe, unique);
  calls go out under the remote name, and each call's card names the remote tool;
* the remote JSON Schemas, checked by :func:`~interlock.tools.schema.check_schema_rules`; a
  tool whose schema is refused is listed as unavailable with the reason, never offered;
* permission ``ASK`` unless the server's ``permissions`` say otherwise; ``write`` unless the
  server's ``read_only`` lists it. Remote annotations are shown as hints, never trusted;
* each tool's ``availability`` is its session's (not offered while the server is down) and
  its ``check`` waits for a server still connecting (within the call timeout).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from interlock.mcp_bridge.names import interlock_names, visible
from interlock.settings import McpServerSpec
from interlock.tools import (
    Confirmation,
    Permission,
    Tool,
    ToolAnnotations,
    ToolContext,
    ToolResult,
    provider_safe_name,
)
from interlock.tools.schema import SchemaRuleError, check_schema_rules

if TYPE_CHECKING:  # the MCP library loads with the first server (see sources.py)
    import mcp_types as types

    from interlock.mcp_bridge.client import RemoteSession

CALL_GRACE_S = 1.0
"""A remote tool enforces the call timeout itself (so a late answer is ``timeout`` with a
clear message); the registry's backstop (``Tool.timeout_s``) is this much longer."""


MAX_OFFERED_TOOLS = 128
"""Most tools of one server offered to models (OpenAI's limit of tools in one request); the
others are listed unavailable with the reason."""


@dataclass
class RemoteTool:
    """One tool a remote server lists, as people see it in the admin API.

    Attributes:
        name: Interlock name (``mcp.<server>.<tool>``); provider_name: as models see it.
        remote_name: The server's own name for it (calls use this one).
        available: False when Interlock refused it (see ``reason``) or the server is down.
        reason: Why it is unavailable, as a sentence; None when available.
    """

    name: str
    provider_name: str
    remote_name: str
    title: str
    permission: str
    write: bool
    available: bool = True
    reason: str | None = None


class RemoteCall:
    """The handler of a remote tool: one ``tools/call`` under the remote name."""

    def __init__(self, session: RemoteSession, remote_name: str, timeout_s: float) -> None:
        self.session = session
        self.remote_name = remote_name
        self.timeout_s = timeout_s

    async def __call__(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        from interlock.mcp_bridge.results import tool_result

        result = await self.session.call(self.remote_name, args, self.timeout_s)
        return tool_result(result, server=self.session.name, remote_name=self.remote_name)

    async def ready(self, args: dict[str, Any], ctx: ToolContext) -> None:
        """The tool's ``check``: the server can take the call (waits while it connects).

        Raises:
            ToolError: ``upstream_error`` when it stays unreachable; the call is not run.
        """
        await self.session.wait_ready(self.timeout_s)


def confirmation(
    server: str, remote_name: str, title: str
) -> Callable[[dict[str, Any], ToolContext], Confirmation]:
    """The card of a call: it names the remote tool as the server spells it (``remote_name``
    already passed through :func:`~interlock.mcp_bridge.names.visible`)."""

    def confirm(args: dict[str, Any], ctx: ToolContext) -> Confirmation:
        return Confirmation(
            title=title,
            summary=f"Run “{remote_name}” on the MCP server “{server}”",
            action_label="Run",
        )

    return confirm


def build_tools(
    session: RemoteSession, spec: McpServerSpec, listed: list[types.Tool], timeout_s: float
) -> tuple[list[RemoteTool], list[Tool]]:
    """Turn a server's listing into admin rows and registry tools (rules: module docstring).

    Args:
        session: The server's session (calls go through it).
        spec: The server's settings (``permissions``, ``read_only``, ``offer_tools``).
        listed: Every tool it lists (duplicated remote names: the first one counts).
        timeout_s: The per-call timeout, in seconds.

    Returns:
        ``(rows, tools)``: one row per remote tool (unavailable ones with their reason) and the
        tools to register (the available ones).
    """
    import mcp_types as types

    names = interlock_names(session.name, [t.name for t in listed])
    availability = session.unavailable
    seen: set[str] = set()
    offered = 0
    rows: list[RemoteTool] = []
    tools: list[Tool] = []
    for remote in listed:
        if remote.name in seen:
            continue
        seen.add(remote.name)
        name = names[remote.name]
        title = remote.title or (remote.annotations and remote.annotations.title) or remote.name
        write = remote.name not in spec.read_only
        permission = spec.permissions.get(remote.name, "ASK")
        row = RemoteTool(
            name, provider_safe_name(name), remote.name, visible(title), permission, write
        )
        rows.append(row)
        reason = schema_problem(remote)
        if not spec.offer_tools:
            reason = "The server only serves mcp_http tools (offer_tools is false)."
        elif reason is None and permission != "DENY":
            offered += 1
            if offered > MAX_OFFERED_TOOLS:
                reason = (
                    f"Interlock offers at most {MAX_OFFERED_TOOLS} tools of one MCP server (the "
                    f"most OpenAI takes in one request) and this one lists {len(listed):,}; set "
                    "the ones you do not need to DENY in the server's permissions."
                )
        if reason is not None:
            row.available, row.reason = False, reason
            continue
        hints = remote.annotations or types.ToolAnnotations()
        handler = RemoteCall(session, remote.name, timeout_s)
        tools.append(
            Tool(
                name=name,
                title=row.title,
                description=(remote.description or f"The tool '{remote.name}'.")[:4000],
                input_schema=copy.deepcopy(remote.input_schema),
                output_schema=copy.deepcopy(remote.output_schema),
                handler=handler,
                check=handler.ready,
                availability=availability,
                permission=Permission(permission),
                write=write,
                annotations=ToolAnnotations(
                    read_only=not write,
                    destructive=write and hints.destructive_hint is True,
                    idempotent=hints.idempotent_hint is True,
                    open_world=hints.open_world_hint is not False,
                ),
                timeout_s=timeout_s + CALL_GRACE_S,
                tags=("mcp", session.name),
                confirmation=confirmation(
                    visible(spec.title or session.name), visible(remote.name), row.title
                ),
            )
        )
    return rows, tools


def schema_problem(remote: types.Tool) -> str | None:
    """Why Interlock refuses the tool's schemas, as a sentence; None when they pass."""
    checks = [("input", remote.input_schema, True)]
    if remote.output_schema is not None:
        checks.append(("output", remote.output_schema, False))
    for which, schema, object_root in checks:
        try:
            check_schema_rules(schema, require_object_root=object_root)
        except SchemaRuleError as exc:
            return f"Interlock refuses its {which} JSON Schema: it {exc}."
    return None
