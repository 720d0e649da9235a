"""``/mcp`` loads the MCP library on its first request, not at start-up.

* Building the app imports nothing of the ``mcp`` library (``tests/api/test_startup.py``).
* A started server has no MCP endpoint until the first request; several first requests at
  once start exactly one, and MCP clients then work as usual; the server stops cleanly.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import httpx

from interlock.mcp_bridge.endpoint import LazyMcpEndpoint
from interlock.settings import Settings
from support.mcp import serve_mcp, text_of


async def test_the_first_requests_start_one_endpoint_and_clients_work(
    make_settings: Callable[..., Settings],
) -> None:
    async with serve_mcp(make_settings()) as server:
        app = server.live.server.config.app
        [lazy] = {
            route.endpoint  # type: ignore[attr-defined]
            for route in app.router.routes
            if isinstance(getattr(route, "endpoint", None), LazyMcpEndpoint)
        }
        assert lazy.endpoint is None
        body = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        async with httpx.AsyncClient(base_url=server.url) as http:
            answers = await asyncio.gather(*(http.post("/mcp", json=body) for _ in range(4)))
        assert [a.status_code for a in answers] == [401] * 4  # the endpoint's own answer
        started = lazy.endpoint
        assert started is not None
        async with server.client() as client:
            listed = await client.list_tools()
            assert "notes_list" in {t.name for t in listed.tools}
            result = await client.call_tool("notes_list", {})
            assert text_of(result) == "No notes yet."
        assert lazy.endpoint is started  # one endpoint for every request
