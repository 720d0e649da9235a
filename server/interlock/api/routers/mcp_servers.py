"""Remote MCP servers as tool sources (admins only): list, add or replace, delete, refresh.

Servers from ``INTERLOCK_MCP_SERVERS`` are listed and refreshed here but changed in the
settings; servers added here are stored (``mcp_servers``) and reach Streamable HTTP URLs only
(a stdio command runs a program on the server, so it belongs in the settings).
"""

from __future__ import annotations

import time
from typing import Literal
from urllib.parse import urlsplit, urlunsplit

from fastapi import APIRouter, Response, status
from pydantic import BaseModel, ConfigDict

from interlock.api.deps import AdminUser, ServicesDep
from interlock.api.errors import ERROR_RESPONSES
from interlock.errors import BadRequest
from interlock.mcp_bridge.sources import Source
from interlock.settings import McpServerSpec
from interlock.text import ONE_LINE_NAME, name_problem

router = APIRouter(prefix="/api/mcp-servers", tags=["mcp-servers"], responses=ERROR_RESPONSES)


class RemoteToolOut(BaseModel):
    model_config = ConfigDict(json_schema_serialization_defaults_required=True)

    name: str
    provider_name: str
    remote_name: str
    title: str
    permission: Literal["ALLOW", "ASK", "DENY"]
    write: bool
    available: bool
    reason: str | None = None


class McpServerOut(BaseModel):
    model_config = ConfigDict(json_schema_serialization_defaults_required=True)

    name: str
    title: str
    origin: Literal["settings", "admin"]
    transport: Literal["http", "stdio"]
    url: str | None = None
    command: str | None = None
    connection: str | None = None
    state: Literal["connecting", "ready", "down", "stopped"]
    error: str | None = None
    retry_in_s: float | None = None
    protocol_version: str | None = None
    tools: list[RemoteToolOut]


def _shown_url(url: str) -> str:
    """The URL without what may hold a secret (``user:password@``, the query)."""
    parts = urlsplit(url)
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def _out(source: Source) -> McpServerOut:
    session, spec = source.session, source.spec
    retry = None
    if session.state == "down" and session.retry_at is not None:
        retry = round(max(0.0, session.retry_at - time.monotonic()), 1)
    down = session.state != "ready"
    return McpServerOut(
        name=source.name,
        title=spec.title or source.name,
        origin=source.origin,
        transport="http" if spec.url else "stdio",
        url=_shown_url(spec.url) if spec.url else None,
        command=spec.command[0] if spec.command else None,
        connection=spec.connection,
        state=session.state,
        error=session.error,
        retry_in_s=retry,
        protocol_version=session.protocol_version,
        tools=[
            RemoteToolOut(
                name=t.name,
                provider_name=t.provider_name,
                remote_name=t.remote_name,
                title=t.title,
                permission=t.permission,  # type: ignore[arg-type]
                write=t.write,
                available=t.available and not down,
                reason=t.reason or (session.down_message() if down else None),
            )
            for t in source.tools
        ],
    )


@router.get("")
def list_servers(admin: AdminUser, services: ServicesDep) -> list[McpServerOut]:
    """Every remote MCP server: where it is, whether it is reachable, and its tools (each
    with its Interlock name, remote name, and why it is unavailable when it is)."""
    sources = services.mcp_sources.sources
    return [_out(sources[name]) for name in sorted(sources)]


@router.get("/{name}")
def get_server(name: str, admin: AdminUser, services: ServicesDep) -> McpServerOut:
    """One remote MCP server (404 ``mcp_server_not_found``)."""
    return _out(services.mcp_sources.get(name))


@router.put("/{name}")
async def put_server(
    name: str, spec: McpServerSpec, admin: AdminUser, services: ServicesDep
) -> McpServerOut:
    """Add or replace a Streamable HTTP server; it is stored and connects at once (its tools
    appear when listed: see ``state``). 409 ``mcp_server_in_settings`` for a server of the
    settings; 422 ``invalid_mcp_server`` for a stdio command or an unknown connection,
    ``invalid_request`` for a title that is not one line of visible characters (as user names;
    a server of the settings keeps its title, its cards show hidden characters as codes)."""
    problem = name_problem(spec.title, "An MCP server's title")
    if problem:
        raise BadRequest(
            "The request is not valid.",
            code="invalid_request",
            details={
                "errors": [{"path": ["body", "title"], "message": problem, "rule": ONE_LINE_NAME}]
            },
        )
    if spec.url is None:
        raise BadRequest(
            "Servers added here need a url; stdio commands go in INTERLOCK_MCP_SERVERS.",
            code="invalid_mcp_server",
        )
    return _out(await services.mcp_sources.put(name, spec, admin.id))


@router.delete("/{name}", status_code=status.HTTP_204_NO_CONTENT)
async def delete_server(name: str, admin: AdminUser, services: ServicesDep) -> Response:
    """Remove a server added here; its tools leave the registry at once."""
    await services.mcp_sources.delete(name)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post("/{name}/refresh")
async def refresh_server(name: str, admin: AdminUser, services: ServicesDep) -> McpServerOut:
    """List the server's tools again now (a server that is down is tried at once); answers
    with the state after the listing, or after up to 15 s."""
    return _out(await services.mcp_sources.refresh(name))
