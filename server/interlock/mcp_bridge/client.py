"""One long-lived client session per remote MCP server, kept off the request path.

A :class:`RemoteSession` owns an :class:`mcp.Client` inside its own asyncio task (started in
the app's lifespan): it connects (Streamable HTTP or stdio), reads every page of
``tools/list``, hands the listing on, and lists again when the server says its tools changed
(``subscriptions/listen`` on 2026-07-28 connections, ``notifications/tools/list_changed`` on
older ones) or a refresh is asked for. When the server cannot be reached or the connection
breaks, the session is ``down`` with the reason, and it tries again after 0.5 s, 1 s, 2 s...
up to ``mcp_retry_max_s``. Calls (:meth:`RemoteSession.call`) run in the caller's task over
the shared session; a transport failure ends the owner task's session, never the caller.

Credentials come from a named :class:`~interlock.settings.Connection` (its headers, query
parameters and ``token_file``). When the server answers 401, the connection is read again
once and the session re-created; a call rejected that way is sent once more (the server did
not run it).

The owner task (connect, list, follow changes, retry) is in
:mod:`interlock.mcp_bridge.lifecycle`; how a failed call becomes a
:class:`~interlock.tools.ToolError` (which code, which sentence) is in
:mod:`interlock.mcp_bridge.calls`. This module is the session's public face and its calls.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import mcp_types as types
from mcp.shared.exceptions import MCPError

from interlock.mcp_bridge.calls import (
    call_error,
    credentials_error,
    cut_call,
    down_message,
    invalid_output,
)
from interlock.mcp_bridge.lifecycle import Listener, SessionLifecycle, State
from interlock.tools import ToolError

__all__ = ["Listener", "RemoteSession", "State"]


class RemoteSession(SessionLifecycle):
    """A remote MCP server's session, owned by a background task.

    Args:
        name: The server's name (``mcp.<name>.<tool>``).
        spec: Where it is and how to reach it.
        connection: The connection ``spec.connection`` names, if any.
        call_timeout_s: Longest wait for an answer (listing or call), in seconds.
        retry_max_s: Longest pause between two tries while the server is down.
        on_tools: Called with every complete listing (not for ``mcp_http``-only sessions).
        mode: ``auto`` (discover, fall back to the initialize handshake), ``legacy``, or a
            2026-era protocol version to pin.
        guard: None for any address; else public addresses only (checked where it
            connects), except these host names (servers added through the admin API).

    Attributes:
        state: ``connecting``, ``ready``, ``down`` (see :attr:`error`) or ``stopped``.
        error: Why the server is down, as a sentence; None otherwise.
        retry_at: ``time.monotonic()`` of the next try while down.
        listings: Complete listings so far; failures: failed connection attempts so far.
    """

    # -- calls -------------------------------------------------------------------------------

    def unavailable(self) -> str | None:
        """Why this server's tools are not offered now (it is down or stopped), or None.

        A server still connecting counts as available: a call waits for it (see
        :meth:`wait_ready`)."""
        if self.state in ("down", "stopped"):
            return self.down_message()
        return None

    async def wait_ready(self, wait_s: float) -> float:
        """Wait until the session can take a call: at once when ready; while connecting,
        until it is ready or fails; while down, after one try at once (the backoff is
        skipped) for its outcome. Bounded by ``wait_s`` seconds.

        Returns:
            The seconds waited.

        Raises:
            ToolError: ``upstream_error`` saying why, when the server is still unreachable
                (nothing was sent to it).
        """
        if self.state == "ready" and self._client is not None:
            return 0.0
        loop = self._loop
        if loop is not None and loop is not asyncio.get_running_loop():
            # Another thread's loop: the session's events belong to the owner's (as call()).
            future = asyncio.run_coroutine_threadsafe(self.wait_ready(wait_s), loop)
            return await asyncio.wrap_future(future)
        started = time.monotonic()
        if self._task is not None:
            failures = self.failures
            if self.state == "down":
                self.request("refresh")  # the person is waiting: try now, not at retry_at
            await self._wait_for(
                lambda: self.state == "ready" and self._client is not None, failures, wait_s
            )
        waited = time.monotonic() - started
        if self.state == "ready" and self._client is not None:
            return waited
        if self.state == "connecting":
            raise ToolError(
                "upstream_error",
                f"The MCP server '{self.name}' did not finish connecting within {wait_s:g} s, "
                "so the call was not sent.",
            )
        raise ToolError("upstream_error", f"{self.down_message()} The call was not sent.")

    async def wait_listed(self, wait_s: float) -> None:
        """Wait (as :meth:`wait_ready`) until the server's tools have been listed once.

        Raises:
            ToolError: ``upstream_error`` when the server is still unreachable.
        """
        if self.listings == 0:
            await self.wait_ready(wait_s)

    def down_message(self) -> str:
        """Why calls fail now, as a sentence for the model and the person."""
        return down_message(self.name, self.state, self.error, self.retry_at)

    async def call(
        self, remote_name: str, arguments: dict[str, Any], timeout_s: float
    ) -> types.CallToolResult:
        """Call a remote tool under its remote name.

        Returns:
            The server's result (``is_error`` results included).

        A server that is not ready is waited for first (:meth:`wait_ready`), within the
        same ``timeout_s``.

        Raises:
            ToolError: ``upstream_error`` when the server is unreachable or refused the
                request (nothing ran); ``timeout`` past ``timeout_s`` seconds (the server may still
                act); ``outcome_unknown`` when the connection broke after the call was sent
                (it may have run; never retried).
        """
        loop = self._loop
        if loop is not None and loop is not asyncio.get_running_loop():
            # Called from another thread's loop: the session's streams belong to the owner's.
            future = asyncio.run_coroutine_threadsafe(
                self.call(remote_name, arguments, timeout_s), loop
            )
            return await asyncio.wrap_future(future)
        timeout_s = max(0.1, timeout_s - await self.wait_ready(timeout_s))
        for attempt in (1, 2):
            client = self._client
            if client is None or self.state != "ready":
                raise ToolError("upstream_error", f"{self.down_message()} The call was not sent.")
            rejections = self._auth.rejections
            try:
                return await client.call_tool(
                    remote_name, arguments, read_timeout_seconds=timeout_s
                )
            except MCPError as exc:
                if self._auth.rejections > rejections:
                    if attempt == 1 and await self._reauthenticate(timeout_s):
                        continue
                    raise credentials_error(self.name, self._auth.name) from None
                raise self._call_error(exc, remote_name, timeout_s) from None
            except RuntimeError as exc:
                if "structured content" not in str(exc):
                    raise cut_call(
                        self.name, remote_name, exc, command=self.spec.command is not None
                    ) from None
                # The call ran; its data does not fit the output schema the server declared.
                raise invalid_output(self.name, remote_name) from None
            except Exception as exc:
                raise cut_call(
                    self.name, remote_name, exc, command=self.spec.command is not None
                ) from None
        raise AssertionError("unreachable")

    def _call_error(self, exc: MCPError, remote_name: str, timeout_s: float) -> ToolError:
        error, restart = call_error(self.name, exc, remote_name, timeout_s)
        if restart:
            self.request("restart")  # the session is gone or forgotten: a new one
        return error

    async def _reauthenticate(self, wait_s: float) -> bool:
        """Read the connection again and re-create the session; True once it is ready."""
        listings, failures = self.listings, self.failures
        self.request("restart")
        return await self._wait_for(
            lambda: self.listings > listings and self.state == "ready", failures, wait_s
        )
