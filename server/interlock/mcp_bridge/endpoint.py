"""``/mcp`` without the MCP library at start-up: the MCP server loads on its first request.

The MCP server (:class:`interlock.mcp_bridge.serve.McpEndpoint`) needs the ``mcp`` library,
about 0.3 s of CPU to import, a fifth of a whole start (issue 7, benchmark f), and most starts
never see an MCP client. The app therefore routes ``/mcp`` to :class:`LazyMcpEndpoint`: the
first request imports and starts the real endpoint (its session manager runs in a task of
its own until the app's lifespan ends) and every request goes to it. Behaviour is the same
as an endpoint started with the app; only the first MCP request pays for the import.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from starlette.types import Receive, Scope, Send

from interlock.settings import Settings

if TYPE_CHECKING:
    from interlock.api.services import Services
    from interlock.mcp_bridge.serve import McpEndpoint

MCP_PATHS = frozenset({"/mcp", "/mcp/"})
"""Where the endpoint answers: both spellings, so a client configured with either connects
(MCP clients do not follow redirects)."""


class LazyMcpEndpoint:
    """The ASGI app routed at :data:`MCP_PATHS`; run :meth:`run` inside the app's lifespan.

    Args:
        settings: Server settings, handed to the real endpoint.
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.endpoint: McpEndpoint | None = None
        """The real endpoint, once a request made it."""
        self._services: Services | None = None
        self._task: asyncio.Task[None] | None = None
        self._started = asyncio.Event()
        self._stop = asyncio.Event()

    @asynccontextmanager
    async def run(self, services: Services) -> AsyncIterator[None]:
        """Accept MCP requests until the block ends; then stop the real endpoint if it ran."""
        self._services = services
        self.endpoint, self._started, self._stop = None, asyncio.Event(), asyncio.Event()
        try:
            yield
        finally:
            self._services = None
            task, self._task = self._task, None
            if task is not None:
                self._stop.set()
                await asyncio.gather(task, return_exceptions=True)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        services = self._services
        if services is None:  # not serving (yet, or any more): the real endpoint says 503
            from interlock.mcp_bridge.serve import McpEndpoint

            await McpEndpoint(self.settings)(scope, receive, send)
            return
        endpoint = await self._ready(services)
        await endpoint(scope, receive, send)

    async def _ready(self, services: Services) -> McpEndpoint:
        """The started endpoint; the first caller starts it, the others wait for it.

        Raises:
            Exception: Why the endpoint could not start (a later request tries again).
        """
        if self._task is None:
            from interlock.mcp_bridge.serve import McpEndpoint

            self.endpoint = McpEndpoint(self.settings)
            self._task = asyncio.create_task(self._hold(self.endpoint, services), name="mcp")
        task = self._task
        waiter = asyncio.ensure_future(self._started.wait())
        try:
            await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            waiter.cancel()
        if not self._started.is_set() or self.endpoint is None:
            self._task = None
            task.result()  # raises why it did not start
            raise RuntimeError("the MCP endpoint stopped as it started")
        return self.endpoint

    async def _hold(self, endpoint: McpEndpoint, services: Services) -> None:
        """Keep the endpoint's session manager running until :meth:`run` ends."""
        async with endpoint.run(services):
            self._started.set()
            await self._stop.wait()
