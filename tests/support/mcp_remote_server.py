"""A real MCP server (``mcp``'s ``MCPServer``) for the remote-source tests.

Run as ``python mcp_remote_server.py http PORT [TOKEN_FILE]`` (Streamable HTTP under uvicorn on
127.0.0.1; with a token file, every request needs ``Authorization: Bearer <its contents>``,
read on each request so a test can rotate it) or ``python mcp_remote_server.py stdio``.

Tools: ``tool0``..``tool6`` (listed three per page), ``echo``, ``boom`` (an ``is_error``
result), ``slow`` (sleeps), ``big`` (a long text), ``grow`` (adds ``added`` and announces that
the tool list changed; ``grow_legacy`` announces it on a 2025-era connection), the C19 names (``a.b/c``, ``get user``, an 80-character name,
``Get_User``, ``get_user`` and ``get-user``), and ``refused`` whose input schema Interlock does not accept.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

import mcp_types as types
import uvicorn
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

PAGE = 3
LONG_NAME = "l" * 80
REFUSED = types.Tool(
    name="refused",
    description="A schema with a keyword Interlock refuses.",
    input_schema={"type": "object", "if": {"required": ["a"]}, "then": {"required": ["b"]}},
)


class PagedServer(MCPServer):
    """Lists its tools :data:`PAGE` at a time (cursor = index of the next tool)."""

    async def _handle_list_tools(self, ctx: Any, params: Any) -> types.ListToolsResult:
        tools = [*await self.list_tools(), REFUSED]
        start = int(params.cursor) if params is not None and params.cursor else 0
        end = start + PAGE
        return types.ListToolsResult(
            tools=tools[start:end], next_cursor=str(end) if end < len(tools) else None
        )


server = PagedServer("remote-test")


def _numbered(i: int) -> Any:
    def numbered(x: int) -> str:
        return f"tool{i} got {x}"

    return numbered


for index in range(7):
    server.add_tool(_numbered(index), name=f"tool{index}", description=f"Numbered tool {index}.")


def _named(label: str) -> Any:
    def named(text: str = "") -> str:
        return f"{label} ran with {text!r}"

    return named


for remote in ("a.b/c", "get user", LONG_NAME, "Get_User", "get_user", "get-user"):
    server.add_tool(_named(remote), name=remote, description=f"The tool named {remote!r}.")


@server.tool(description="Echo the text back.")
def echo(text: str) -> str:
    return f"echo: {text}"


@server.tool(description="Always fails.")
def boom() -> str:
    raise ToolError("the disk is full")


@server.tool(description="Answer after some seconds.")
async def slow(seconds: float) -> str:
    print("slow started", file=sys.stderr, flush=True)  # tests wait for this line
    await asyncio.sleep(seconds)
    return f"slept {seconds}"


@server.tool(description="A long text.")
def big(chars: int) -> str:
    return "x" * chars


@server.tool(description="Add a tool named 'added' and announce the change.")
async def grow(ctx: Context) -> str:
    server.add_tool(lambda: "added ran", name="added", description="Added at run time.")
    await ctx.notify_tools_changed()
    return "grown"


@server.tool(description="Add 'added' and announce it the 2025 way (on the connection).")
async def grow_legacy(ctx: Context) -> str:
    server.add_tool(lambda: "added ran", name="added", description="Added at run time.")
    await ctx.session.send_tool_list_changed()
    return "grown"


class BearerCheck:
    """ASGI middleware: 401 unless ``Authorization`` is the token file's bearer token."""

    def __init__(self, app: Any, token_file: Path) -> None:
        self.app = app
        self.token_file = token_file

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = dict(scope["headers"])
            want = f"Bearer {self.token_file.read_text().strip()}".encode()
            if headers.get(b"authorization") != want:
                await send({"type": "http.response.start", "status": 401, "headers": []})
                await send({"type": "http.response.body", "body": b"unauthorized"})
                return
        await self.app(scope, receive, send)


class HeldStart:
    """ASGI middleware: every request waits while the file ``hold`` exists (a server slow to
    come up, for as long as the test says; ``MCP_TEST_HOLD_FILE``)."""

    def __init__(self, app: Any, hold: Path) -> None:
        self.app = app
        self.hold = hold

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            while self.hold.exists():  # noqa: ASYNC110 (another process removes it)
                await asyncio.sleep(0.02)
        await self.app(scope, receive, send)


def main() -> None:
    pid_file = os.environ.get("MCP_TEST_PID_FILE")
    if pid_file:  # the tests kill a stdio server by its pid
        Path(pid_file).write_text(str(os.getpid()))
    if sys.argv[1] == "stdio":
        server.run("stdio")
        return
    app: Any = server.streamable_http_app()
    if len(sys.argv) > 3:
        app = BearerCheck(app, Path(sys.argv[3]))
    hold = os.environ.get("MCP_TEST_HOLD_FILE")
    if hold:
        app = HeldStart(app, Path(hold))
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")


if __name__ == "__main__":
    main()
