"""Fixtures for the remote MCP source tests: the test MCP server and Interlock's side
(imported by tests/mcp_bridge/conftest.py and tests/cases/conftest.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from interlock.mcp_bridge.sources import McpSources
from interlock.settings import Settings
from interlock.storage import Database
from interlock.tools import ToolContext, ToolRegistry
from support.mcp_remote import RemoteMcp, free_port
from support.waits import wait_until

READY_S = 30.0


@pytest.fixture
async def remote(tmp_path: Path) -> AsyncIterator[RemoteMcp]:
    """The test MCP server on a free loopback port."""
    server = RemoteMcp(port=free_port(), log_path=tmp_path / "remote.log")
    await server.start()
    try:
        yield server
    finally:
        server.kill()


@pytest.fixture
async def make_sources(database: Database, db_url: str) -> AsyncIterator[Callable[..., Any]]:
    """``await make_sources(servers, **settings) -> (McpSources, ToolRegistry)``, started; every
    server is awaited until ready. Stopped after the test."""
    made: list[McpSources] = []

    async def make(servers: dict[str, Any], wait: bool = True, **overrides: Any) -> Any:
        values: dict[str, Any] = {
            "database_url": db_url,
            "mcp_servers": servers,
            "mcp_retry_max_s": 1.0,
            **overrides,
        }
        settings = Settings(_env_file=None, **values)
        registry = ToolRegistry(
            max_result_chars=settings.max_tool_result_chars,
            default_timeout_s=settings.tool_timeout_s,
        )
        sources = McpSources(settings, registry, database)
        made.append(sources)
        await sources.start()
        if wait:
            for name in servers:
                session = sources.sources[name].session
                await wait_until(
                    lambda s=session: s.state == "ready", timeout_s=READY_S, what=f"{name} ready"
                )
        return sources, registry

    yield make
    for sources in made:
        await sources.aclose()


@pytest.fixture
def ctx(database: Database) -> Iterator[ToolContext]:
    yield ToolContext(
        user_id="user_1", conversation_id="conv_1", tool_call_id="call_1", db=database
    )
