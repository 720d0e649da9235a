"""A separate MCP client process that calls one tool and waits (killed by tests with SIGKILL).

Run as ``python -P tests/support/mcp_caller.py <base url> <token> <mode> <tool> <args JSON>``
(``-P``: this folder's ``mcp.py`` must not hide the library). It prints ``calling`` once
connected and then waits for the result; the test kills it first, so it never sends a cancel
(a client crash, a laptop lid closed).
"""

from __future__ import annotations

import asyncio
import json
import sys

import httpx2
import mcp_types as types
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

DESKTOP = types.Implementation(name="claude-ai", title="Claude Desktop", version="1.0.0")


async def main(url: str, token: str, mode: str, tool: str, args: str) -> None:
    http: httpx2.AsyncClient = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    async with http:
        transport = streamable_http_client(f"{url}/mcp", http_client=http)
        async with Client(transport, client_info=DESKTOP, mode=mode) as client:
            print("calling", flush=True)
            result = await client.call_tool(tool, json.loads(args))
            print("result", result.is_error, flush=True)


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:6]))
