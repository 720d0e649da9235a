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
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Awaitable, Callable
from contextlib import suppress
from typing import Any, Literal

import anyio
import mcp_types as types
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.subscriptions import ListenNotSupportedError, SubscriptionLost
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from interlock import __version__
from interlock.mcp_bridge.transport import (
    ConnectionAuth,
    SessionLost,
    describe,
    http_transport,
    list_all_tools,
    url_with_params,
)
from interlock.settings import Connection, McpServerSpec
from interlock.tools import ToolError

logger = logging.getLogger(__name__)

State = Literal["connecting", "ready", "down", "stopped"]
FIRST_RETRY_S = 0.5
"""First pause before trying a server that is down again; it doubles up to the maximum."""
STOP_TRIES = 50
Listener = Callable[["RemoteSession", list[types.Tool]], Awaitable[None]]


class RemoteSession:
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

    def __init__(
        self,
        name: str,
        spec: McpServerSpec,
        connection: Connection | None,
        *,
        call_timeout_s: float,
        retry_max_s: float,
        on_tools: Listener | None = None,
        mode: str = "auto",
        guard: tuple[str, ...] | None = None,
    ) -> None:
        self.name = name
        self.spec = spec
        self.call_timeout_s = call_timeout_s
        self.retry_max_s = retry_max_s
        self.mode = mode
        self.guard = guard
        self.state: State = "connecting"
        self.error: str | None = None
        self.retry_at: float | None = None
        self.listings = 0
        self.failures = 0
        self.protocol_version: str | None = None
        self._on_tools = on_tools
        self._auth = ConnectionAuth(connection, spec.connection)
        self._client: Client | None = None
        self._want: set[str] = set()
        self._wake = asyncio.Event()
        self._changed = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._stopping = False
        self._loop: asyncio.AbstractEventLoop | None = None

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> None:
        """Start the owner task (on the running loop); it connects at once."""
        if self._task is None:
            self._loop = asyncio.get_running_loop()
            self._task = asyncio.create_task(self._run(), name=f"mcp-source:{self.name}")

    async def aclose(self) -> None:
        """Stop the owner task and close the session (a stdio server's process ends)."""
        self._stopping = True
        task, self._task = self._task, None
        if task is not None:
            # A cancel that lands while the transport is failing can be taken by the mcp
            # client's own cancel scope; cancel again until the task has ended (bounded).
            for _ in range(STOP_TRIES):
                task.cancel()
                done, _pending = await asyncio.wait({task}, timeout=0.2)
                if done:
                    break
            else:
                logger.error("MCP server %s: the session task did not stop", self.name)
        self.state = "stopped"
        self._client = None

    def request(self, what: Literal["refresh", "restart"]) -> None:
        """Ask the owner task to list the tools again, or to re-create the session."""
        self._want.add(what)
        self._wake.set()

    async def refresh(self, wait_s: float) -> bool:
        """List the tools again now (a server that is down is tried at once).

        Returns:
            True when a new listing arrived within ``wait_s`` seconds; False when the server
            was down (see :attr:`error`) or slower.
        """
        listings, failures = self.listings, self.failures
        self.request("refresh")
        return await self._wait_for(lambda: self.listings > listings, failures, wait_s)

    async def wait_first_listing(self, wait_s: float) -> bool:
        """Wait up to ``wait_s`` seconds for the first listing; False on a failure or later."""
        return await self._wait_for(lambda: self.listings > 0, 0, wait_s)

    async def _wait_for(self, done: Callable[[], bool], failures: int, wait_s: float) -> bool:
        deadline = time.monotonic() + wait_s
        while not done():
            left = deadline - time.monotonic()
            if self.failures > failures or left <= 0 or self._task is None:
                return False
            changed = self._changed
            with suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), left)
        return True

    def _signal(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    async def _run(self) -> None:
        delay = FIRST_RETRY_S
        reread = False
        while not self._stopping:
            rejections = self._auth.rejections
            try:
                await self._serve()
                delay, reread = FIRST_RETRY_S, False
                continue
            except Exception as exc:
                self._client = None
                if self._stopping:
                    return
                if self._auth.rejections > rejections and not reread:
                    reread = True  # the token may have been rotated: read it again, try now
                    logger.info(
                        "MCP server %s rejected its credentials; reading them again", self.name
                    )
                    continue
                self.state, self.error = "down", describe(exc)
                if self._auth.rejections > rejections:
                    self.error = f"it rejected the credentials of connection '{self._auth.name}'"
                self.failures += 1
                self.retry_at = time.monotonic() + delay
                logger.warning("MCP server %s is down: %s", self.name, self.error)
                self._signal()
            self._wake.clear()
            with suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), delay)
            delay = min(delay * 2, self.retry_max_s)

    async def _serve(self) -> None:
        if self.state != "down":  # a re-created session; while down, "down" stays until ready
            self.state = "connecting"
        await self._auth.load()
        client = Client(
            self._transport(),
            mode=self.mode,
            cache=None,
            read_timeout_seconds=self.call_timeout_s,
            message_handler=self._on_message,
            client_info=types.Implementation(name="interlock", version=__version__),
        )
        try:
            async with client, anyio.create_task_group() as group:
                self._want.clear()
                self.protocol_version = client.protocol_version
                if client.protocol_version in MODERN_PROTOCOL_VERSIONS:
                    # Subscribe before listing, so no change falls between the two.
                    subscribed = anyio.Event()
                    group.start_soon(self._listen, client, subscribed)
                    with anyio.move_on_after(self.call_timeout_s):
                        await subscribed.wait()
                await self._publish(client)
                self._client, self.state, self.error, self.retry_at = client, "ready", None, None
                self._signal()
                while True:
                    await self._wake.wait()
                    self._wake.clear()
                    want, self._want = self._want, set()
                    if "restart" in want:
                        group.cancel_scope.cancel()
                        return
                    await self._publish(client)
                    self._signal()
        finally:
            self._client = None

    def _transport(self) -> Any:
        spec = self.spec
        if spec.command is not None:
            return StdioServerParameters(
                command=spec.command[0], args=list(spec.command[1:]), env=dict(spec.env) or None
            )
        assert spec.url is not None
        url = url_with_params(spec.url, self._auth.connection)
        return http_transport(url, self._auth, self.guard)

    async def _publish(self, client: Client) -> None:
        tools = await list_all_tools(client)
        if self._on_tools is not None:
            await self._on_tools(self, tools)
        self.listings += 1  # after the registry has the tools: waiters look them up next

    async def _listen(self, client: Client, subscribed: anyio.Event) -> None:
        """Follow ``subscriptions/listen`` for tool list changes; ``subscribed`` is set once the
        try is over (acknowledged or not).

        The stream is also how a dead server shows: when it is lost, the session ends
        (:class:`SessionLost`) and the owner task connects again (and lists again); when the
        server closes it, the session is re-created at once.
        """
        try:
            async with client.listen(tools_list_changed=True) as subscription:
                subscribed.set()
                async for _event in subscription:
                    self.request("refresh")
            self.request("restart")
        except ListenNotSupportedError:
            subscribed.set()
        except (SubscriptionLost, MCPError, TimeoutError) as exc:
            subscribed.set()
            lost = isinstance(exc, SubscriptionLost) or (
                isinstance(exc, MCPError) and exc.code == types.CONNECTION_CLOSED
            )
            if lost:
                raise SessionLost("the connection was lost") from exc
            logger.info("MCP server %s: no change stream (%s)", self.name, exc)

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            self.request("refresh")

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
        if self.state == "connecting":
            return f"The MCP server '{self.name}' is still connecting; try again shortly."
        retry = ""
        if self.retry_at is not None:
            left_s = max(1, math.ceil(self.retry_at - time.monotonic()))
            retry = f" Interlock tries again in {left_s} s."
        return f"The MCP server '{self.name}' is not available: {self.error}.{retry}"

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
                    raise ToolError(
                        "upstream_error",
                        f"The MCP server '{self.name}' rejected the credentials of connection "
                        f"'{self._auth.name}'.",
                    ) from None
                raise self._call_error(exc, remote_name, timeout_s) from None
            except RuntimeError as exc:
                if "structured content" not in str(exc):
                    raise _cut_call(self.name, remote_name, exc) from None
                # The call ran; its data does not fit the output schema the server declared.
                raise ToolError(
                    "invalid_output",
                    f"The MCP server '{self.name}' answered the call to '{remote_name}' with data "
                    "that does not fit the output schema it declares.",
                ) from None
            except Exception as exc:
                raise _cut_call(self.name, remote_name, exc) from None
        raise AssertionError("unreachable")

    def _call_error(self, exc: MCPError, remote_name: str, timeout_s: float) -> ToolError:
        if exc.code == types.REQUEST_TIMEOUT:
            return ToolError(
                "timeout",
                f"The MCP server '{self.name}' did not answer the call to '{remote_name}' within "
                f"{timeout_s:g} s; it may still finish it, so check before trying again.",
            )
        if exc.code == types.INVALID_REQUEST and "Session terminated" in exc.message:
            self.request("restart")  # the server forgot the session (it restarted): a new one
            return ToolError(
                "upstream_error",
                f"The MCP server '{self.name}' no longer knows this session; Interlock opens a "
                f"new one. The call to '{remote_name}' did not run.",
            )
        if exc.code == types.CONNECTION_CLOSED:
            self.request("restart")  # the session is gone: connect again (or find it down)
            return ToolError(
                "outcome_unknown",
                f"The connection to the MCP server '{self.name}' broke during the call to "
                f"'{remote_name}'; it may or may not have run. It is not retried: check "
                "before trying again.",
            )
        return ToolError(
            "upstream_error",
            f"The MCP server '{self.name}' refused the call to '{remote_name}': {exc.message}",
        )

    async def _reauthenticate(self, wait_s: float) -> bool:
        """Read the connection again and re-create the session; True once it is ready."""
        listings, failures = self.listings, self.failures
        self.request("restart")
        return await self._wait_for(
            lambda: self.listings > listings and self.state == "ready", failures, wait_s
        )


def _cut_call(server: str, remote_name: str, exc: BaseException) -> ToolError:
    return ToolError(
        "outcome_unknown",
        f"The connection to the MCP server '{server}' broke during the call to '{remote_name}' "
        f"({describe(exc)}); it may or may not have run. It is not retried: check before "
        "trying again.",
    )
