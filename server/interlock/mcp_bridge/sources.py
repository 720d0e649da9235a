"""Remote MCP servers as tool sources: their tools in the registry as ``mcp.<server>.<tool>``.

:class:`McpSources` keeps one :class:`~interlock.mcp_bridge.client.RemoteSession` per server
(from ``INTERLOCK_MCP_SERVERS`` and from the admin API, see :mod:`.store`), started and stopped
in the app's lifespan. Each complete listing replaces the server's tools in the registry
(:meth:`~interlock.tools.ToolRegistry.replace_group`), built by :mod:`.remote_tools`.

While a server is down its last listed tools stay registered but unavailable
(``Tool.availability``): they are not offered to models, MCP clients or the slash menu, and a
call already proposed for one is tried once at once and, when the server is still down, fails
with ``upstream_error`` saying why and when Interlock tries again (it was not sent). They are
offered again when the server is back. A call decided while its server is still connecting
(after a restart, before the first listing) waits for it, within the call timeout.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal
from urllib.parse import urlsplit

import anyio

from interlock.adapters.mcp_http import McpHttpCall
from interlock.adapters.net_guard import (
    DestinationRefused,
    DestinationUnresolved,
    checked_addresses,
)
from interlock.errors import BadRequest, Conflict, NotFound
from interlock.mcp_bridge.names import tool_prefix
from interlock.mcp_bridge.remote_tools import RemoteTool, build_tools
from interlock.mcp_bridge.store import delete_server, load_server, load_servers, save_server
from interlock.settings import MCP_SERVER_NAME_RE, McpServerSpec, Settings
from interlock.storage import Database
from interlock.tools import Tool, ToolRegistry

if TYPE_CHECKING:  # the MCP library loads with the first server, not at every start
    import mcp_types as types

    from interlock.mcp_bridge.client import RemoteSession

logger = logging.getLogger(__name__)

MCP_SERVERS_VERB = "mcp_servers"
"""Control message ``mcp_servers <name> <process>``: a server of the admin API changed; other
processes read it again (PostgreSQL ``NOTIFY interlock_control``)."""
STARTUP_WAIT_S = 3.0
"""Longest wait at start-up for the servers' first listings, in seconds."""
REFRESH_WAIT_S = 15.0
"""Longest wait of a manual refresh for the new listing, in seconds."""


@dataclass
class Source:
    """A configured server, its session and what it last listed."""

    name: str
    spec: McpServerSpec
    origin: Literal["settings", "admin"]
    session: RemoteSession
    tools: list[RemoteTool] = field(default_factory=list)


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
            self.registry.expect_group(tool_prefix(name), None)
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
            guard=self._guard(origin),
        )
        self.sources[name] = Source(name, spec, origin, session)
        self.registry.expect_group(tool_prefix(name), self._find_tool)
        session.start()

    async def _find_tool(self, tool_name: str) -> Tool | None:
        """A tool of a configured server that is not registered (yet): wait for the server's
        first listing (within the call timeout), then look again.

        Raises:
            ToolError: ``upstream_error`` when the server stays unreachable.
        """
        server = tool_name.split(".", 2)[1]
        source = self.sources.get(server)
        if source is not None:
            await source.session.wait_listed(self.settings.mcp_call_timeout_s)
        return self.registry.get(tool_name)

    def _guard(self, origin: Literal["settings", "admin"]) -> tuple[str, ...] | None:
        """Servers added through the admin API reach public addresses only (as ``http_json``
        tools); the operator's own (settings) reach any."""
        return tuple(self.settings.http_allowed_hosts) if origin == "admin" else None

    async def _check_public(self, url: str) -> None:
        """Refuse an admin server's URL that is not https or not public (checked again at each
        connection: a name may resolve differently later).

        Raises:
            BadRequest: ``invalid_mcp_server`` saying why.
        """
        allowed = frozenset(h.strip().lower() for h in self.settings.http_allowed_hosts)
        try:
            parts = urlsplit(url)
            host, port = (parts.hostname or "").lower(), parts.port
        except ValueError as exc:
            raise BadRequest(f"The URL is not valid: {exc}.", code="invalid_mcp_server") from None
        if parts.scheme != "https" and host not in allowed:
            raise BadRequest(
                "A server added here needs an https:// URL (plain http only in "
                "INTERLOCK_MCP_SERVERS).",
                code="invalid_mcp_server",
            )
        try:
            await checked_addresses(host, port or (443 if parts.scheme == "https" else 80), allowed)
        except DestinationRefused as exc:
            raise BadRequest(
                f"Interlock may not connect to {exc.host}: {exc.reason}. Servers added here "
                "must be public; put a server of your own network in INTERLOCK_MCP_SERVERS.",
                code="invalid_mcp_server",
            ) from None
        except DestinationUnresolved:
            raise BadRequest(
                f"The host {host} does not resolve to any address.", code="invalid_mcp_server"
            ) from None

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
                guard=self._guard(source.origin),
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
            BadRequest: A bad name, an unknown connection, a URL that is not https or not
                public (``invalid_mcp_server``).
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
        assert spec.url is not None  # the router refuses commands
        await self._check_public(spec.url)
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

    def resync(self) -> None:
        """Read every admin server again (on the event loop, in the background) and apply
        what changed: the process's listening connection was down, so other processes'
        notices may have been lost. Unchanged servers keep their sessions."""
        if not self._started:
            return
        task = asyncio.get_running_loop().create_task(self._resync())
        self._reloads.add(task)
        task.add_done_callback(self._reloads.discard)

    async def _resync(self) -> None:
        async with self._changing:
            stored = await self.db.run(load_servers, self.db)
            admin = {n for n, s in self.sources.items() if s.origin == "admin"}
            for name in sorted(admin | set(stored)):
                spec, source = stored.get(name), self.sources.get(name)
                if name in self.settings.mcp_servers or (source and source.spec == spec):
                    continue
                await self._stop(name)
                if spec is not None and self._started:
                    self._add(name, spec, "admin")
                logger.info(
                    "MCP server %s %s (changed while not listening)",
                    name,
                    "reloaded" if spec else "removed",
                )

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
        self.registry.expect_group(tool_prefix(name), None)

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
        rows, tools = build_tools(
            source.session, source.spec, listed, self.settings.mcp_call_timeout_s
        )
        refused = self.registry.replace_group(tool_prefix(source.name), tools)
        for row in rows:
            if row.name in refused:
                row.available, row.reason = False, refused[row.name]
        return rows
