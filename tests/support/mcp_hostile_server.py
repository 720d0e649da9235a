"""MCP servers that misbehave, for the remote-source tests: ``python -m
support.mcp_hostile_server MODE PORT`` (Streamable HTTP on 127.0.0.1).

Modes built on ``mcp``'s ``MCPServer`` (a real protocol, hostile listings):

* ``many``: 10,000 tools, 1,000 per page; ``two_hundred``: 200 tools;
* ``huge``: tools with a 1 MB description, a 100 kB title and a 1 MB input schema;
* ``refloop``: input schemas whose ``$ref`` point at themselves or each other;
* ``names``: names and titles with control characters, RTL overrides and zero-width spaces;
* ``storm``: a tool ``storm`` that sends 5,000 ``list_changed`` notifications.

Raw ASGI modes (no MCP at all):

* ``status403`` / ``status500``: every request gets that status and a body naming the URL;
* ``garbage``: 200 with ``Content-Type: application/json`` and a body that is not JSON;
* ``hang``: reads the request and never answers.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import mcp_types as types
import uvicorn
from mcp.server.mcpserver import Context, MCPServer

MB = 1_000_000
RTL_NAMES = [
    "delete\u202efdp.txt",  # RIGHT-TO-LEFT OVERRIDE: shows as "deletetxt.pdf"
    "safe\u200bread",  # a zero-width space
    "bell\x07\x1b[31mred",  # BEL and an ANSI colour escape
    "new\nline",
]


class Listing(MCPServer):
    """Lists ``tools`` (pages of ``page``) instead of its registered ones."""

    def __init__(self, tools: list[types.Tool], page: int = 1000) -> None:
        super().__init__("hostile")
        self.hostile_tools = tools
        self.page = page

    async def _handle_list_tools(self, ctx: Any, params: Any) -> types.ListToolsResult:
        listed = [*await self.list_tools(), *self.hostile_tools]
        start = int(params.cursor) if params is not None and params.cursor else 0
        end = start + self.page
        return types.ListToolsResult(
            tools=listed[start:end], next_cursor=str(end) if end < len(listed) else None
        )


def _tool(name: str, **extra: Any) -> types.Tool:
    schema = extra.pop("input_schema", {"type": "object", "properties": {}})
    return types.Tool(name=name, input_schema=schema, **extra)


def _listing(mode: str) -> Listing:
    if mode == "many":
        return Listing([_tool(f"t{i}", description=f"Tool {i}.") for i in range(10_000)])
    if mode == "two_hundred":
        return Listing([_tool(f"t{i:03}", description=f"Tool {i}.") for i in range(200)])
    if mode == "huge":
        wide = {f"p{i}": {"type": "string", "description": "d" * 1000} for i in range(1000)}
        return Listing(
            [
                _tool("long_description", description="x" * MB),
                _tool("long_title", title="T" * 100_000, description="A long title."),
                _tool("wide", input_schema={"type": "object", "properties": wide}),
            ]
        )
    if mode == "refloop":
        loop = {
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/a"}},
            "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
        }
        itself = {"type": "object", "$ref": "#"}
        return Listing([_tool("loop", input_schema=loop), _tool("itself", input_schema=itself)])
    if mode == "names":
        return Listing(
            [_tool(n, title=f"Title {n}", description=f"Named {n!r}.") for n in RTL_NAMES]
        )
    return Listing([])


async def _raw(mode: str, scope: Any, receive: Any, send: Any) -> None:
    if scope["type"] != "http":
        return
    while (await receive()).get("more_body"):
        pass
    if mode == "hang":
        await asyncio.Event().wait()
    if mode == "garbage":
        headers = [(b"content-type", b"application/json")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b"\x00{not json at all"})
        return
    status = 403 if mode == "status403" else 500
    body = f"refused {scope['path']}?{scope['query_string'].decode()}".encode()
    await send({"type": "http.response.start", "status": status, "headers": []})
    await send({"type": "http.response.body", "body": body})


def main() -> None:
    mode, port = sys.argv[1], int(sys.argv[2])
    app: Any
    if mode in ("status403", "status500", "garbage", "hang"):

        async def app(scope: Any, receive: Any, send: Any) -> None:
            await _raw(mode, scope, receive, send)

    else:
        server = _listing(mode)

        @server.tool(description="Echo the text back.")
        def echo(text: str) -> str:
            return f"echo: {text}"

        @server.tool(description="Announce a tool list change 5,000 times.")
        async def storm(ctx: Context) -> str:
            for _ in range(5000):
                await ctx.notify_tools_changed()
            return "stormed"

        app = server.streamable_http_app()
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    main()
