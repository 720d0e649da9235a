"""How a call to a remote MCP tool that failed becomes a :class:`~interlock.tools.ToolError`.

Each function names the error code and writes the sentence the model and the person read;
:class:`interlock.mcp_bridge.client.RemoteSession` decides when to use which.
"""

from __future__ import annotations

import math
import time

import mcp_types as types
from mcp.shared.exceptions import MCPError

from interlock.mcp_bridge.transport import describe
from interlock.tools import ToolError

__all__ = ["call_error", "credentials_error", "cut_call", "down_message", "invalid_output"]


def call_error(
    server: str, exc: MCPError, remote_name: str, timeout_s: float
) -> tuple[ToolError, bool]:
    """Map an MCP error answered to ``tools/call`` to a tool error.

    Args:
        server: The MCP server's configured name.
        exc: The error the client raised.
        remote_name: The tool's name on the server.
        timeout_s: The call's timeout, in seconds.

    Returns:
        The error, and True when the session must be re-created (the server forgot the
        session, or the connection closed).
    """
    if exc.code == types.REQUEST_TIMEOUT:
        return ToolError(
            "timeout",
            f"The MCP server '{server}' did not answer the call to '{remote_name}' within "
            f"{timeout_s:g} s; it may still finish it, so check before trying again.",
        ), False
    if exc.code == types.INVALID_REQUEST and "Session terminated" in exc.message:
        # The server forgot the session (it restarted): a new one.
        return ToolError(
            "upstream_error",
            f"The MCP server '{server}' no longer knows this session; Interlock opens a "
            f"new one. The call to '{remote_name}' did not run.",
        ), True
    if exc.code == types.CONNECTION_CLOSED:
        # The session is gone: connect again (or find it down).
        return ToolError(
            "outcome_unknown",
            f"The connection to the MCP server '{server}' broke during the call to "
            f"'{remote_name}'; it may or may not have run. It is not retried: check "
            "before trying again.",
        ), True
    return ToolError(
        "upstream_error",
        f"The MCP server '{server}' refused the call to '{remote_name}': {exc.message}",
    ), False


def credentials_error(server: str, connection: str | None) -> ToolError:
    """``upstream_error``: the server rejected the connection's credentials (nothing ran)."""
    return ToolError(
        "upstream_error",
        f"The MCP server '{server}' rejected the credentials of connection '{connection}'.",
    )


def invalid_output(server: str, remote_name: str) -> ToolError:
    """``invalid_output``: the call ran, but its data does not fit the declared output schema."""
    return ToolError(
        "invalid_output",
        f"The MCP server '{server}' answered the call to '{remote_name}' with a result in a "
        "different form than it promised, so the result was discarded.",
    )


def cut_call(
    server: str, remote_name: str, exc: BaseException, *, command: bool = False
) -> ToolError:
    """``outcome_unknown``: the connection broke after the call was sent (it may have run).

    Args:
        server: The MCP server's configured name.
        remote_name: The tool's name on it.
        exc: What broke the call.
        command: True for a server Interlock starts (see :func:`describe`).
    """
    return ToolError(
        "outcome_unknown",
        f"The connection to the MCP server '{server}' broke during the call to '{remote_name}' "
        f"({describe(exc, command=command)}); it may or may not have run. It is not retried: check before "
        "trying again.",
    )


def down_message(server: str, state: str, error: str | None, retry_at: float | None) -> str:
    """Why calls to ``server`` fail now, as a sentence for the model and the person.

    Args:
        server: The MCP server's configured name.
        state: The session's state (``connecting``, ``down``, ``stopped``).
        error: Why it is down, as a sentence.
        retry_at: ``time.monotonic()`` of the next try, or None.
    """
    if state == "connecting":
        return f"The MCP server '{server}' is still connecting; try again shortly."
    retry = ""
    if retry_at is not None:
        left_s = max(1, math.ceil(retry_at - time.monotonic()))
        retry = f" Interlock tries again in {left_s} s."
    return f"The MCP server '{server}' is not available: {error}.{retry}"
