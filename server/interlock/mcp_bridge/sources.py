"""Remote MCP servers as tool sources: their tools in the registry as ``mcp.<server>.<tool>``.

:class:`McpSources` keeps one :class:`~interlock.mcp_bridge.client.RemoteSession` per server
(from ``INTERLOCK_MCP_SERVERS`` and from the admin API, see :mod:`.store`), started and stopped
in the app's lifespan. Each complete listing replaces the server's tools in the registry
(:meth:`~interlock.tools.ToolRegistry.replace_group`):

* names from :func:`~interlock.mcp_bridge.names.interlock_names` (provider-safe, unique);
  calls go out under the remote name, and each call's card names the remote tool;
* the remote JSON Schemas, checked by :func:`~interlock.tools.schema.check_schema_rules`; a
  tool whose schema is refused is listed as unavailable with the reason, never offered;
* permission ``ASK`` unless the server's ``permissions`` say otherwise; ``write`` unless the
  server's ``read_only`` lists it. Remote annotations are shown as hints, never trusted.

While a server is down its last listed tools stay registered and every call fails at once with
``upstream_error`` saying why and when Interlock tries again.
"""

from __future__ import annotations

import asyncio
import copy
import logging
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import anyio

from interlock.adapters.mcp_http import McpHttpCall
from interlock.errors import BadRequest, Conflict, NotFound
from interlock.mcp_bridge.names import interlock_names, tool_prefix
from interlock.mcp_bridge.store import delete_server, load_server, load_servers, save_server
from interlock.settings import MCP_SERVER_NAME_RE, McpServerSpec, Settings
from interlock.storage import Database
from interlock.tools import (
    Confirmation,
    Permission,
    Tool,
    ToolAnnotations,
    ToolContext,
    ToolRegistry,
    ToolResult,
    provider_safe_name,
)
from interlock.tools.schema import SchemaRuleError, check_schema_rules

if TYPE_CHECKING:  # the MCP library loads with the first server, not at every start
    import mcp_types as types

    from interlock.mcp_bridge.client import RemoteSession

logger = logging.getLogger(__name__)

CALL_GRACE_S = 1.0
"""A remote tool enforces the call timeout itself (so a late answer is ``timeout`` with a
clear message); the registry's backstop (``Tool.timeout_s``) is this much longer."""
MCP_SERVERS_VERB = "mcp_servers"
"""Control message ``mcp_servers <name> <process>``: a server of the admin API changed; other
processes read it again (PostgreSQL ``NOTIFY interlock_control``)."""
STARTUP_WAIT_S = 3.0
"""Longest wait at start-up for the servers' first listings, in seconds."""
REFRESH_WAIT_S = 15.0
"""Longest wait of a manual refresh for the new listing, in seconds."""


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


@dataclass
class Source:
    """A configured server, its session and what it last listed."""

    name: str
    spec: McpServerSpec
    origin: Literal["settings", "admin"]
    session: RemoteSession
    tools: list[RemoteTool] = field(default_factory=list)


class RemoteCall:
    """The handler of a remote tool: one ``tools/call`` under the remote name."""

    def __init__(self, session: RemoteSession, remote_name: str, timeout_s: float) -> None:
        self.session = session
        self.remote_name = remote_name
        self.timeout_s = timeout_s

    async def __call__(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        result = await self.session.call(self.remote_name, args, self.timeout_s)
        from interlock.mcp_bridge.results import tool_result

        return tool_result(result, server=self.session.name, remote_name=self.remote_name)


def _confirmation(server: str, remote_name: str, title: str) -> Any:
    def confirm(args: dict[str, Any], ctx: ToolContext) -> Confirmation:
        return Confirmation(
            title=title,
            summary=f"Run “{remote_name}” on the MCP server “{server}”",
            action_label="Run",
        )

    return confirm


class McpSources:
    """Every remote MCP server of this process and its tools in ``registry``.

    Args:
        settings: ``mcp_servers``, ``connections``, ``mcp_call_timeout_s``, ``mcp_retry_max_s``.
        registry: Where the remote tools go.
        db: For servers added by admins.
    """

    def __init__(self, settings: Settings, registry: ToolRegistry, db: Database) -> None:
        self.settings = settings
        self.registry = registry
        self.db = db
        self.sources: dict[str, Source] = {}
        self._extra: dict[tuple[str, str], RemoteSession] = {}
        self._started = False
        self._process = uuid.uuid4().hex[:12]
        self._reloads: set[asyncio.Task[None]] = set()
        self._changing = asyncio.Lock()  # one add/replace/delete at a time

    # -- lifecycle ---------------------------------------------------------------------------

    async def start(self, wait_s: float = STARTUP_WAIT_S) -> None:
        """Start a session for every server (settings first; stored ones after).

        Servers connect in the background; this waits up to ``wait_s`` seconds for their
        first listings (or failures), so that calls waiting for approval across a restart
        find their tools when serving starts. A server still connecting after that lists its
        tools when it answers.
        """
        self._started = True
        stored = await self.db.run(load_servers, self.db)
        for name, spec in self.settings.mcp_servers.items():
            self._add(name, spec, "settings")
        for name, spec in stored.items():
            if name not in self.sources:
                self._add(name, spec, "admin")
        sessions = [source.session for source in self.sources.values()]
        await asyncio.gather(
            *(s.wait_first_listing(wait_s) for s in sessions), return_exceptions=True
        )

    async def aclose(self) -> None:
        """Stop every session (stdio servers' processes end); their tools leave the registry."""
        self._started = False
        for task in list(self._reloads):
            task.cancel()
        sessions = [s.session for s in self.sources.values()] + list(self._extra.values())
        await asyncio.gather(*(s.aclose() for s in sessions))
        for name in list(self.sources):
            self.registry.replace_group(tool_prefix(name), [])
        self.sources.clear()
        self._extra.clear()

    def _add(self, name: str, spec: McpServerSpec, origin: Literal["settings", "admin"]) -> None:
        from interlock.mcp_bridge.client import RemoteSession

        session = RemoteSession(
            name,
            spec,
            self.settings.connections.get(spec.connection) if spec.connection else None,
            call_timeout_s=self.settings.mcp_call_timeout_s,
            retry_max_s=self.settings.mcp_retry_max_s,
            on_tools=self._apply,
        )
        self.sources[name] = Source(name, spec, origin, session)
        session.start()

    def bind_declarative(self) -> None:
        """Give the registry's ``mcp_http`` tools (loaded with the skills) their sessions."""
        for tool in self.registry.tools():
            if isinstance(tool.handler, McpHttpCall):
                tool.handler.sessions = self

    def session_for(self, name: str, mode: str = "auto") -> RemoteSession | None:
        """The session of server ``name`` (for ``mcp_http`` tools); a pinned protocol ``mode``
        gets its own session, made on first use. None for an unknown server."""
        source = self.sources.get(name)
        if source is None:
            return None
        if mode == "auto":
            return source.session
        key = (name, mode)
        if key not in self._extra:
            from interlock.mcp_bridge.client import RemoteSession

            spec = source.spec
            connection = self.settings.connections.get(spec.connection) if spec.connection else None
            self._extra[key] = RemoteSession(
                name,
                spec,
                connection,
                call_timeout_s=self.settings.mcp_call_timeout_s,
                retry_max_s=self.settings.mcp_retry_max_s,
                mode=mode,
            )
            self._extra[key].start()
        return self._extra[key]

    # -- admin -------------------------------------------------------------------------------

    def get(self, name: str) -> Source:
        """Raises: NotFound: no such server."""
        source = self.sources.get(name)
        if source is None:
            raise NotFound(f"There is no MCP server named '{name}'.", code="mcp_server_not_found")
        return source

    async def refresh(self, name: str) -> Source:
        """List the server's tools again now (a server that is down is tried at once); waits
        up to :data:`REFRESH_WAIT_S` seconds for the listing.

        Raises:
            NotFound: No such server.
        """
        source = self.get(name)
        await source.session.refresh(REFRESH_WAIT_S)
        return source

    async def put(self, name: str, spec: McpServerSpec, user_id: str) -> Source:
        """Add or replace a server of the admin API, stored and started at once.

        Raises:
            BadRequest: A bad name or an unknown connection.
            Conflict: ``mcp_server_in_settings`` for a server of ``INTERLOCK_MCP_SERVERS``.
        """
        if not MCP_SERVER_NAME_RE.fullmatch(name):
            raise BadRequest(
                "A server name is 1 to 32 lowercase letters, digits, '_' and '-'.",
                code="invalid_mcp_server",
            )
        if spec.connection is not None and spec.connection not in self.settings.connections:
            known = ", ".join(sorted(self.settings.connections)) or "none"
            raise BadRequest(
                f"The connection '{spec.connection}' is not configured (known: {known}).",
                code="invalid_mcp_server",
            )
        self._check_editable(name)
        async with self._changing:
            await self.db.run(save_server, self.db, name, spec, user_id, self._notice(name))
            await self._stop(name)
            self._add(name, spec, "admin")
            return self.sources[name]

    async def delete(self, name: str) -> None:
        """Remove a server of the admin API; its tools leave the registry.

        Raises:
            NotFound: No such server. Conflict: it comes from the settings.
        """
        self.get(name)
        self._check_editable(name)
        async with self._changing:
            await self.db.run(delete_server, self.db, name, self._notice(name))
            await self._stop(name)

    def _notice(self, name: str) -> str:
        return f"{MCP_SERVERS_VERB} {name} {self._process}"

    def on_control(self, argument: str) -> None:
        """Another process changed the admin server ``<name> <process>``: read it again (on the
        event loop, in the background); this process's own notices are skipped."""
        name, _, process = argument.partition(" ")
        if process == self._process or not self._started:
            return
        task = asyncio.get_running_loop().create_task(self._reload(name))
        self._reloads.add(task)
        task.add_done_callback(self._reloads.discard)

    async def _reload(self, name: str) -> None:
        if name in self.settings.mcp_servers:
            return
        async with self._changing:
            spec = await self.db.run(load_server, self.db, name)
            await self._stop(name)
            if spec is not None and self._started:
                self._add(name, spec, "admin")
        logger.info(
            "MCP server %s %s (changed by another process)", name, "reloaded" if spec else "removed"
        )

    def _check_editable(self, name: str) -> None:
        if name in self.settings.mcp_servers:
            raise Conflict(
                f"The MCP server '{name}' comes from INTERLOCK_MCP_SERVERS; change it there.",
                code="mcp_server_in_settings",
            )

    async def _stop(self, name: str) -> None:
        source = self.sources.pop(name, None)
        extra = [k for k in self._extra if k[0] == name]
        sessions = [self._extra.pop(k) for k in extra]
        if source is not None:
            sessions.append(source.session)
        await asyncio.gather(*(s.aclose() for s in sessions))
        self.registry.replace_group(tool_prefix(name), [])

    # -- listings ----------------------------------------------------------------------------

    async def _apply(self, session: RemoteSession, listed: list[types.Tool]) -> None:
        """Replace the server's registered tools with ``listed`` (called by the owner task).

        Checking schemas and building validators is CPU work: it runs in a worker thread.
        """
        source = self.sources.get(session.name)
        if source is None or source.session is not session:
            return
        rows = await anyio.to_thread.run_sync(self._replace, source, listed)
        if self.sources.get(session.name) is source:
            source.tools = rows
        logger.info(
            "MCP server %s lists %d tools (%d unavailable)",
            session.name,
            len(rows),
            sum(not r.available for r in rows),
        )

    def _replace(self, source: Source, listed: list[types.Tool]) -> list[RemoteTool]:
        """Build the tools of ``listed`` and swap them into the registry (a worker thread)."""
        import mcp_types as types

        session, spec = source.session, source.spec
        names = interlock_names(session.name, [t.name for t in listed])
        timeout_s = self.settings.mcp_call_timeout_s
        seen: set[str] = set()
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
                name, provider_safe_name(name), remote.name, title[:200], permission, write
            )
            rows.append(row)
            reason = _schema_problem(remote)
            if not spec.offer_tools:
                reason = "The server only serves mcp_http tools (offer_tools is false)."
            if reason is not None:
                row.available, row.reason = False, reason
                continue
            hints = remote.annotations or types.ToolAnnotations()
            tools.append(
                Tool(
                    name=name,
                    title=row.title,
                    description=(remote.description or f"The tool '{remote.name}'.")[:4000],
                    input_schema=copy.deepcopy(remote.input_schema),
                    output_schema=copy.deepcopy(remote.output_schema),
                    handler=RemoteCall(session, remote.name, timeout_s),
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
                    confirmation=_confirmation(session.name, remote.name, row.title),
                )
            )
        refused = self.registry.replace_group(tool_prefix(session.name), tools)
        for row in rows:
            if row.name in refused:
                row.available, row.reason = False, refused[row.name]
        return rows


def _schema_problem(remote: types.Tool) -> str | None:
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
