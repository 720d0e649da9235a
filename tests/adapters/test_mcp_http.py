"""Declarative ``mcp_http`` tools: one call to a remote MCP tool through the shared session;
a rejected credential (401) re-reads the connection once and re-creates the session."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from interlock.adapters.declarative import DeclarativeToolError, build_declarative_tool
from interlock.mcp_bridge.sources import McpSources
from interlock.settings import Settings
from interlock.storage import Database
from interlock.tools import ToolContext, ToolError, ToolRegistry
from support.mcp_remote import RemoteMcp, free_port
from support.waits import wait_until

SPEC: dict[str, Any] = {
    "name": "lookup.echo",
    "kind": "mcp_http",
    "title": "Echo through MCP",
    "description": "Echo a word through the remote MCP server.",
    "input_schema": {"type": "object", "properties": {"word": {"type": "string"}}},
    "connector": "secure",
    "tool_name": "echo",
    "argument_template": {"text": "{arguments.word}!"},
    "protocol_version": "2026-07-28",
}


def _settings(db_url: str, url: str, client_token: Path) -> Settings:
    return Settings(  # type: ignore[call-arg]
        _env_file=None,
        database_url=db_url,
        connections={"sec": {"token_file": str(client_token)}},
        mcp_servers={"secure": {"url": url, "connection": "sec", "offer_tools": False}},
        mcp_retry_max_s=1.0,
    )


def test_the_spec_is_checked_at_load(db_url: str, tmp_path: Path) -> None:
    settings = _settings(db_url, "http://127.0.0.1:9/mcp", tmp_path / "token")
    for key, value, words in [
        ("connector", "nowhere", "is not an MCP server"),
        ("protocol_version", "1999-01-01", "protocol_version must be one of"),
        ("argument_template", {"text": "{arguments.nope}"}, "does not declare"),
    ]:
        with pytest.raises(DeclarativeToolError) as bad:
            build_declarative_tool({**SPEC, key: value}, skill="lookup", settings=settings)
        assert words in bad.value.message and bad.value.path[0] == key


async def test_a_rejected_token_is_read_again_once_and_the_call_goes_through(
    database: Database, db_url: str, tmp_path: Path
) -> None:
    server_token, client_token = tmp_path / "server-token", tmp_path / "client-token"
    server_token.write_text("first")
    client_token.write_text("first")
    remote = RemoteMcp(free_port(), tmp_path / "remote.log", token_file=server_token)
    await remote.start()
    settings = _settings(db_url, remote.url, client_token)
    registry = ToolRegistry()
    registry.register(build_declarative_tool(SPEC, skill="lookup", settings=settings))
    sources = McpSources(settings, registry, database)
    sources.bind_declarative()
    await sources.start()
    ctx = ToolContext(user_id="u", conversation_id="c", tool_call_id="t", db=database)
    try:
        tool = registry.get("lookup.echo")
        assert tool is not None
        assert "mcp.secure.echo" not in registry  # offer_tools: false
        session = sources.session_for("secure", "2026-07-28")
        assert session is not None
        await wait_until(lambda: session.state == "ready", timeout_s=30, what="ready")
        assert (await registry.execute(tool, {"word": "one"}, ctx)).text == "echo: one!"

        # The token is rotated on both sides; the session still holds the old one.
        server_token.write_text("second")
        client_token.write_text("second")
        listings = session.listings
        assert (await registry.execute(tool, {"word": "two"}, ctx)).text == "echo: two!"
        assert session.listings > listings  # the session was re-created

        # A token that stays wrong: one re-read, then a clear failure (nothing ran).
        server_token.write_text("third")
        with pytest.raises(ToolError) as rejected:
            await registry.execute(tool, {"word": "three"}, ctx)
        assert rejected.value.code == "upstream_error"
        assert "credentials of connection 'sec'" in rejected.value.message
    finally:
        await sources.aclose()
        remote.kill()


async def test_a_2025_protocol_version_uses_the_initialize_handshake(
    database: Database, db_url: str, tmp_path: Path
) -> None:
    token = tmp_path / "token"
    token.write_text("same")
    remote = RemoteMcp(free_port(), tmp_path / "remote.log", token_file=token)
    await remote.start()
    settings = _settings(db_url, remote.url, token)
    registry = ToolRegistry()
    spec = {**SPEC, "protocol_version": "2025-06-18"}
    registry.register(build_declarative_tool(spec, skill="lookup", settings=settings))
    sources = McpSources(settings, registry, database)
    sources.bind_declarative()
    await sources.start()
    ctx = ToolContext(user_id="u", conversation_id="c", tool_call_id="t", db=database)
    try:
        session = sources.session_for("secure", "legacy")
        assert session is not None
        await wait_until(lambda: session.state == "ready", timeout_s=30, what="ready")
        assert session.protocol_version == "2025-11-25"  # the newest handshake version
        tool = registry.get("lookup.echo")
        assert tool is not None
        assert (await registry.execute(tool, {"word": "old"}, ctx)).text == "echo: old!"
    finally:
        await sources.aclose()
        remote.kill()
