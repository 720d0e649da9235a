"""Two servers stopped in turn on two event loops of one thread, each with an MCP call waiting.

Found in a full random-order run (seed 1869703179): ``test_a_server_stopping_closes_the_calls_
it_cannot_answer`` hung in ``stopped()`` after a test whose loop stayed open and idle (the
browser tests' session loop) had started sse-starlette's per-thread shutdown watcher there: no
watcher ran on the later loop, the waiting MCP stream never heard of the shutdown, and uvicorn
waited for it. The suite now keeps that watcher per loop (:mod:`support.sse_shutdown`); this
test holds the first loop idle with its call still waiting, exactly like that run.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

from interlock.settings import Settings
from support.mcp import McpServer, serve_mcp

WAIT_S = 40.0  # generous for a loaded machine, yet under the 50 s MCP approval timeout


async def _waiting(server: McpServer) -> None:
    """Bounded poll until the MCP call waits in the person's Approvals view."""
    async with asyncio.timeout(WAIT_S):
        while not (await server.live.client.get("/api/approvals")).json():  # noqa: ASYNC110
            await asyncio.sleep(0.05)


async def _stop_while_a_call_waits(
    settings: Settings,
    name: str,
    waiting: asyncio.Future[None] | None = None,
    release: asyncio.Future[None] | None = None,
) -> None:
    """Serve, leave an MCP call waiting, (optionally pause there), then stop the server.

    ``stopped()`` raises ``TimeoutError`` when the waiting stream keeps uvicorn up.
    """
    async with serve_mcp(settings, name) as server, server.client() as client:
        calling = asyncio.create_task(client.call_tool("notes_add", {"text": "buy milk"}))
        await _waiting(server)
        if waiting is not None and release is not None:
            waiting.set_result(None)
            await release
        server.live.stop()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(calling, WAIT_S)
        await server.live.stopped()


def test_a_second_loop_hears_its_server_stop_while_the_first_loop_idles(
    make_settings: Callable[..., Settings],
) -> None:
    settings = make_settings(mcp_approval_channel="web")
    idle = asyncio.new_event_loop()
    try:
        waiting: asyncio.Future[None] = idle.create_future()
        release: asyncio.Future[None] = idle.create_future()
        first = idle.create_task(_stop_while_a_call_waits(settings, "ann", waiting, release))
        idle.run_until_complete(waiting)
        # The first loop now sits idle with its call (and its shutdown watcher) pending.
        asyncio.run(_stop_while_a_call_waits(settings, "bob"))
        release.set_result(None)
        idle.run_until_complete(first)
    finally:
        idle.close()
