"""Why a remote MCP server is down, in words naming what the person configured: a URL server
is never said to have a command, and a missing ``token_file`` is named as such (the tryout:
"its command cannot be started: No such file or directory (/run/secrets/docs-token)")."""

from __future__ import annotations

from pathlib import Path

import anyio
import httpx2

from interlock.mcp_bridge.calls import cut_call
from interlock.mcp_bridge.sources import McpSources
from interlock.mcp_bridge.transport import describe
from interlock.settings import Settings
from interlock.storage import Database
from interlock.tools import ToolRegistry
from support.waits import wait_until


async def test_a_url_server_with_a_missing_token_file_says_the_token_file_is_missing(
    database: Database, db_url: str, tmp_path: Path
) -> None:
    token = tmp_path / "docs-token"  # never written
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None,
        database_url=db_url,
        connections={"docs": {"token_file": str(token)}},
        mcp_servers={"docs": {"url": "http://127.0.0.1:9/mcp", "connection": "docs"}},
        mcp_retry_max_s=1.0,
    )
    sources = McpSources(settings, ToolRegistry(), database)
    await sources.start()
    try:
        session = sources.sources["docs"].session
        await wait_until(lambda: session.state == "down", timeout_s=30, what="down")
        assert session.error == f"the token file of connection 'docs' is missing: {token}"
        assert "command" not in (session.down_message() or "")
    finally:
        await sources.aclose()


def test_every_failure_names_a_command_only_for_a_command_server() -> None:
    failures: list[BaseException] = [
        FileNotFoundError(2, "No such file or directory", "/etc/missing"),
        anyio.EndOfStream(),
        httpx2.RemoteProtocolError("closed"),
        httpx2.ConnectError("refused"),
        httpx2.ReadTimeout("slow"),
        RuntimeError("odd"),
    ]
    for exc in failures:
        for_url = describe(exc, command=False)
        assert "command" not in for_url and "process" not in for_url, for_url
        assert "command" not in cut_call("docs", "search", exc).message
    assert describe(failures[0], command=True).startswith("its command cannot be started")
    assert describe(failures[0]) == "a file it needs is missing: No such file or directory " + (
        "(/etc/missing)"
    )
    assert describe(failures[1], command=True) == "its process closed its output"
