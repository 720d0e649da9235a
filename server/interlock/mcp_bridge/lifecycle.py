"""The owner task of a remote MCP server's session: connect, list, follow changes, retry.

:class:`SessionLifecycle` is the half of :class:`interlock.mcp_bridge.client.RemoteSession`
that keeps the session alive in its own asyncio task (see that module for the whole story);
calls over the session are the other half, in :mod:`interlock.mcp_bridge.client`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from contextlib import suppress
from typing import TYPE_CHECKING, Any, Literal, TextIO, cast

import anyio
import mcp_types as types
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.subscriptions import ListenNotSupportedError, SubscriptionLost
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from interlock import __version__
from interlock.mcp_bridge.stdio import StdioWatch
from interlock.mcp_bridge.transport import (
    ConnectionAuth,
    SessionLost,
    describe,
    http_transport,
    list_all_tools,
    url_with_params,
)
from interlock.settings import Connection, McpServerSpec

if TYPE_CHECKING:
    from interlock.mcp_bridge.client import RemoteSession

logger = logging.getLogger("interlock.mcp_bridge.client")  # the name operators know

State = Literal["connecting", "ready", "down", "stopped"]
FIRST_RETRY_S = 0.5
"""First pause before trying a server that is down again; it doubles up to the maximum."""
STOP_TRIES = 50
Listener = Callable[["RemoteSession", list[types.Tool]], Awaitable[None]]


class SessionLifecycle:
    """The session's owner task and its state; the arguments are those of RemoteSession."""

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
                self.state, self.error = (
                    "down",
                    describe(exc, command=self.spec.command is not None),
                )
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
        watch = StdioWatch(self.name) if self.spec.command is not None else None
        try:
            errlog = await watch.open() if watch is not None else None
            client = Client(
                self._transport(watch, errlog),
                mode=self.mode,
                cache=None,
                read_timeout_seconds=self.call_timeout_s,
                message_handler=self._on_message,
                client_info=types.Implementation(name="interlock", version=__version__),
            )
            with anyio.CancelScope() as exited:
                if watch is not None:
                    watch.on_exit = exited.cancel  # the process ended: the session is over
                await self._session(client)
        except Exception as exc:
            if watch is not None:
                await watch.finish()
                if (said := watch.sentence()) is not None:
                    raise SessionLost(said) from exc
            raise
        finally:
            self._client = None
            if watch is not None:
                watch.on_exit = None
                await watch.finish()
        if exited.cancelled_caught and watch is not None:
            raise SessionLost(watch.sentence() or "its process ended")

    async def _session(self, client: Client) -> None:
        """Connect, list, and follow changes until a restart is asked for (or it fails)."""
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

    def _transport(self, watch: StdioWatch | None, errlog: TextIO | None) -> Any:
        spec = self.spec
        if spec.command is not None:
            assert watch is not None and errlog is not None
            command, args = watch.command(spec.command)
            params = StdioServerParameters(command=command, args=args, env=dict(spec.env) or None)
            return stdio_client(params, errlog=errlog)
        assert spec.url is not None
        url = url_with_params(spec.url, self._auth.connection)
        return http_transport(url, self._auth, self.guard)

    async def _publish(self, client: Client) -> None:
        tools = await list_all_tools(client)
        if self._on_tools is not None:
            await self._on_tools(cast("RemoteSession", self), tools)
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
