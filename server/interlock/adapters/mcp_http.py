"""The ``mcp_http`` adapter: a declared tool that calls one tool of a remote MCP server.

Spec keys (docs/skills-and-employees.md, "Declarative tools"): ``connector`` (a server of
``INTERLOCK_MCP_SERVERS``), ``tool_name`` (the remote tool, as the server spells it),
``argument_template`` (the remote arguments, with ``{arguments.x}`` placeholders, as an
``http_json`` body) and optional ``protocol_version`` (``2026-07-28`` pins the modern protocol;
a 2025-era version uses the initialize handshake). Calls go through the server's shared
session (:class:`interlock.mcp_bridge.client.RemoteSession`): a rejected credential (401)
re-reads the connection once and re-creates the session; a broken connection after sending is
``outcome_unknown``; a remote ``is_error`` is a failed call with the remote text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from interlock.adapters.templating import TemplateSyntaxError, ValueTemplate, parse_value
from interlock.settings import Settings
from interlock.tools.base import ToolContext, ToolError, ToolResult

if TYPE_CHECKING:  # the MCP library loads on first use, not with the skills (start-up time)
    from interlock.mcp_bridge.client import RemoteSession

SPEC_KEYS = frozenset({"connector", "tool_name", "argument_template", "protocol_version"})


class SessionPool(Protocol):
    """Where an ``mcp_http`` tool finds its server's session (``McpSources``)."""

    def session_for(self, name: str, mode: str = "auto") -> RemoteSession | None: ...


class McpHttpSpecError(ValueError):
    """A bad ``mcp_http`` key: ``message`` and ``path`` (keys from the tool spec's root)."""

    def __init__(self, message: str, path: Sequence[str | int]) -> None:
        self.message = message
        self.path = list(path)
        super().__init__(message)


@dataclass
class McpHttpCall:
    """A checked ``mcp_http`` spec, ready to run once :attr:`sessions` is bound.

    Attributes:
        connector: The server's name. remote_tool: The tool's name on it.
        arguments: Template of the remote arguments (an object).
        mode: ``auto``, ``legacy`` or a pinned 2026-era protocol version.
        timeout_s: Longest wait for the answer, in seconds.
        sessions: Bound by ``McpSources.bind_declarative`` when the server starts.
    """

    connector: str
    remote_tool: str
    arguments: ValueTemplate
    mode: str
    timeout_s: float
    sessions: SessionPool | None = None

    def _session(self) -> RemoteSession:
        session = self.sessions.session_for(self.connector, self.mode) if self.sessions else None
        if session is None:
            raise ToolError(
                "upstream_error", f"The MCP server '{self.connector}' is not connected here."
            )
        return session

    def unavailable(self) -> str | None:
        """The tool's ``availability``: why its server cannot take calls now, or None."""
        session = self.sessions.session_for(self.connector) if self.sessions else None
        if session is None:
            return f"The MCP server '{self.connector}' is not connected here."
        return session.unavailable()

    async def ready(self, args: dict[str, Any], ctx: ToolContext) -> None:
        """The tool's ``check``: the server can take the call (waits while it connects).

        Raises:
            ToolError: ``upstream_error`` when it stays unreachable; the call is not run.
        """
        await self._session().wait_ready(self.timeout_s)

    async def __call__(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        session = self._session()
        filled = self.arguments.render(args)
        remote_args = filled if isinstance(filled, dict) else {}
        result = await session.call(self.remote_tool, remote_args, self.timeout_s)
        from interlock.mcp_bridge.results import tool_result

        return tool_result(result, server=self.connector, remote_name=self.remote_tool)


def parse_mcp_http(
    spec: dict[str, Any], arguments: set[str], settings: Settings, timeout_s: float
) -> McpHttpCall:
    """Check the ``mcp_http`` keys of a tool spec and return its handler.

    Args:
        spec: The tool spec.
        arguments: Argument names its ``input_schema`` declares.
        settings: ``mcp_servers`` (the connectors).
        timeout_s: The tool's call timeout.

    Raises:
        McpHttpSpecError: The first problem, with its path.
    """
    connector = spec.get("connector")
    if not isinstance(connector, str) or connector not in settings.mcp_servers:
        known = ", ".join(sorted(settings.mcp_servers)) or "none"
        raise McpHttpSpecError(
            f"connector {connector!r} is not an MCP server of INTERLOCK_MCP_SERVERS "
            f"(it has: {known})",
            ["connector"] if "connector" in spec else [],
        )
    remote = spec.get("tool_name")
    if not isinstance(remote, str) or not remote.strip():
        where = ["tool_name"] if "tool_name" in spec else []
        raise McpHttpSpecError("tool_name must be the remote tool's name", where)
    raw = spec.get("argument_template", {})
    if not isinstance(raw, dict):
        raise McpHttpSpecError("argument_template must be a mapping", ["argument_template"])
    try:
        template = parse_value(raw, [])
    except TemplateSyntaxError as exc:
        raise McpHttpSpecError(exc.message, ["argument_template", *exc.path]) from None
    for path, placeholder in template.placeholders():
        if placeholder.key not in arguments:
            declared = ", ".join(sorted(arguments)) or "none"
            raise McpHttpSpecError(
                f"placeholder names argument {placeholder.key!r}, which input_schema.properties "
                f"does not declare (declared: {declared})",
                ["argument_template", *path],
            )
    version = spec.get("protocol_version")
    if version is None:
        mode = "auto"
    else:
        mode = _pinned_mode(version)
    return McpHttpCall(connector, remote, template, mode, timeout_s)


def _pinned_mode(version: object) -> str:
    """The session mode for a declared ``protocol_version``: one 2026-era version, or legacy.

    Raises:
        McpHttpSpecError: Not a protocol version the MCP library speaks.
    """
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

    if version in MODERN_PROTOCOL_VERSIONS:
        return str(version)
    if version in HANDSHAKE_PROTOCOL_VERSIONS:
        return "legacy"
    known = ", ".join([*HANDSHAKE_PROTOCOL_VERSIONS, *MODERN_PROTOCOL_VERSIONS])
    raise McpHttpSpecError(
        f"protocol_version must be one of {known}, got {version!r}", ["protocol_version"]
    )
