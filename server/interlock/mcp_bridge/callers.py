"""Who a request to ``/mcp`` acts for, and the MCP client's name as people read it.

:class:`interlock.mcp_bridge.serve.McpEndpoint` puts a :class:`Caller` and a "connection
closed" event in each request's ASGI scope; the handlers read them back with
:func:`caller_of` and :func:`left_event`.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from mcp.server.context import ServerRequestContext

from interlock.errors import InterlockError
from interlock.mcp_bridge.names import visible
from interlock.mcp_bridge.options import ListingOptions

__all__ = [
    "CALLER_KEY",
    "LEFT_KEY",
    "SESSION_HEADER",
    "UNNAMED_CLIENT",
    "Caller",
    "caller_of",
    "client_name",
    "left_event",
    "readable_name",
    "session_id",
]

CALLER_KEY = "interlock.mcp.caller"
"""ASGI scope key holding the :class:`Caller` of a request to ``/mcp``."""
LEFT_KEY = "interlock.mcp.left"
"""ASGI scope key holding the ``asyncio.Event`` set when the request's connection closes."""
SESSION_HEADER = "mcp-session-id"
UNNAMED_CLIENT = "An MCP client"


@dataclass(frozen=True)
class Caller:
    """Who a request to ``/mcp`` acts for.

    Attributes:
        user_id: The token's user.
        employee: The employee's slug.
        options: The exposition and filters from the query parameters.
        token_name: The MCP token's name, ``None`` for the person's own token.
    """

    user_id: str
    employee: str
    options: ListingOptions
    token_name: str | None = None


def client_name(ctx: ServerRequestContext[Any], token_name: str | None = None) -> str:
    """The MCP client's name from its ``clientInfo`` (title, else name), for people to read:
    line breaks and tabs are spaces, other control and format characters (a bidirectional
    override) read ``[U+202E]`` as in a remote server's names (:func:`~interlock.mcp_bridge.names.visible`),
    so nothing the client wrote is silently dropped and nothing reorders the card; runs of
    spaces made one, at most 200 characters; :data:`UNNAMED_CLIENT` when nothing is left. With an MCP
    token, its name follows: ``Claude Desktop (token “Laptop”)``."""
    params = ctx.session.client_params
    info = params.client_info if params is not None else None
    name = readable_name(info.title or info.name or "") if info is not None else UNNAMED_CLIENT
    if token_name is None or token_name == name:
        return name
    return readable_name(f"{name} (token “{token_name}”)")


def readable_name(raw: str) -> str:
    """``raw`` as a name a card can show (see :func:`client_name`)."""
    spaced = "".join(" " if c.isspace() else c for c in raw)
    name = " ".join(visible(spaced, len(spaced) * 8 + 1).split())
    return name[:200].strip() or UNNAMED_CLIENT


def caller_of(ctx: ServerRequestContext[Any]) -> Caller:
    """The :class:`Caller` the endpoint put in the request's scope (see :data:`CALLER_KEY`).

    Raises:
        InterlockError: ``internal`` when the request has none.
    """
    request = ctx.request
    caller = request.scope.get(CALLER_KEY) if request is not None else None
    if not isinstance(caller, Caller):
        raise InterlockError("The request reached MCP without its caller.", code="internal")
    return caller


def left_event(ctx: ServerRequestContext[Any]) -> asyncio.Event | None:
    """The event set when this request's connection closes (see :data:`LEFT_KEY`)."""
    request = ctx.request
    left = request.scope.get(LEFT_KEY) if request is not None else None
    return left if isinstance(left, asyncio.Event) else None


def session_id(ctx: ServerRequestContext[Any]) -> str | None:
    """The request's ``Mcp-Session-Id`` (2025-era sessions; None on the 2026 era)."""
    request = ctx.request
    found = request.headers.get(SESSION_HEADER) if request is not None else None
    return found[:200] if found else None
