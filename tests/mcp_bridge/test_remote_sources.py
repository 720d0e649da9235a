"""Remote MCP servers as tool sources, against a real ``mcp`` server on loopback."""

from __future__ import annotations

import asyncio
import os
import signal
from typing import Any

import pytest

from interlock.mcp_bridge.client import RemoteSession
from interlock.settings import McpServerSpec
from interlock.tools import Permission, ToolContext, ToolError, ToolRegistry
from support.mcp_remote import RemoteMcp, free_port, stdio_command
from support.waits import wait_until


def _tool(registry: ToolRegistry, name: str) -> Any:
    tool = registry.get(name)
    assert tool is not None, f"{name} is not registered; have {[t.name for t in registry.tools()]}"
    return tool


async def test_every_page_is_listed_and_a_call_runs(remote: RemoteMcp, make_sources, ctx):
    _sources, registry = await make_sources(
        {"remote": {"url": remote.url, "permissions": {"echo": "ALLOW"}, "read_only": ["echo"]}}
    )
    names = {t.name for t in registry.tools()}
    # 7 numbered tools at 3 per page: pages 1 to 3 (and more) were all read.
    assert {f"mcp.remote.tool{i}" for i in range(7)} <= names
    assert {"mcp.remote.echo", "mcp.remote.slow", "mcp.remote.big"} <= names

    echo = _tool(registry, "mcp.remote.echo")
    assert echo.permission == Permission.ALLOW and echo.write is False
    assert echo.input_schema["properties"]["text"]["type"] == "string"
    boom = _tool(registry, "mcp.remote.boom")
    assert boom.permission == Permission.ASK and boom.write is True  # hints are not trust

    result = await registry.execute(echo, {"text": "hi"}, ctx)
    assert result.text == "echo: hi"
    numbered = await registry.execute(_tool(registry, "mcp.remote.tool6"), {"x": 4}, ctx)
    assert numbered.text == "tool6 got 4"


async def test_a_refused_schema_is_listed_unavailable_with_the_reason(remote, make_sources):
    sources, registry = await make_sources({"remote": {"url": remote.url}})
    assert "mcp.remote.refused" not in registry
    row = next(t for t in sources.sources["remote"].tools if t.remote_name == "refused")
    assert row.available is False
    assert "input JSON Schema" in (row.reason or "") and "'if'" in (row.reason or "")


async def test_is_error_is_a_failed_call_with_the_remote_text(remote, make_sources, ctx):
    _sources, registry = await make_sources({"remote": {"url": remote.url}})
    with pytest.raises(ToolError) as failed:
        await registry.execute(_tool(registry, "mcp.remote.boom"), {}, ctx)
    assert failed.value.code == "failed"
    assert "the disk is full" in failed.value.message


async def test_a_slow_tool_hits_the_call_timeout(remote, make_sources, ctx):
    # 3 s: the listing before the call must fit in it too, on a busy machine.
    _sources, registry = await make_sources({"remote": {"url": remote.url}}, mcp_call_timeout_s=3.0)
    with pytest.raises(ToolError) as late:
        await registry.execute(_tool(registry, "mcp.remote.slow"), {"seconds": 20}, ctx)
    assert late.value.code == "timeout"
    assert "within 3 s" in late.value.message


async def test_a_long_result_is_cut_with_a_note(remote, make_sources, ctx):
    _sources, registry = await make_sources(
        {"remote": {"url": remote.url}}, max_tool_result_chars=1000
    )
    result = await registry.execute(_tool(registry, "mcp.remote.big"), {"chars": 5000}, ctx)
    assert result.full_text == "x" * 5000
    assert result.text.startswith("x" * 1000) and len(result.text) < 5000
    assert "5,000" in result.text or "5000" in result.text


async def test_a_server_killed_mid_call_is_outcome_unknown_and_comes_back(
    remote: RemoteMcp, make_sources, ctx: ToolContext
):
    sources, registry = await make_sources({"remote": {"url": remote.url}})
    session = sources.sources["remote"].session
    call = asyncio.create_task(
        registry.execute(_tool(registry, "mcp.remote.slow"), {"seconds": 30}, ctx)
    )
    await wait_until(
        lambda: "slow started" in remote.log_path.read_text(), timeout_s=60, what="the call"
    )
    remote.kill()
    with pytest.raises(ToolError) as cut:
        await asyncio.wait_for(call, 60)
    assert cut.value.code == "outcome_unknown"
    assert "not retried" in cut.value.message

    await wait_until(lambda: session.state == "down", timeout_s=60, what="down")
    assert session.error
    with pytest.raises(ToolError) as down:
        await registry.execute(_tool(registry, "mcp.remote.echo"), {"text": "x"}, ctx)
    assert down.value.code == "upstream_error"
    assert "not available" in down.value.message and "tries again" in down.value.message

    await remote.start()  # same port; the session retries with backoff (at most 1 s here)
    await wait_until(lambda: session.state == "ready", timeout_s=30, what="back")
    result = await registry.execute(_tool(registry, "mcp.remote.echo"), {"text": "x"}, ctx)
    assert result.text == "echo: x"
    assert remote.log_path.read_text().count("slow started") == 1  # never sent again


async def test_list_changed_and_a_manual_refresh_update_the_tools(remote, make_sources, ctx):
    sources, registry = await make_sources({"remote": {"url": remote.url}})
    assert "mcp.remote.added" not in registry
    await registry.execute(_tool(registry, "mcp.remote.grow"), {}, ctx)
    await wait_until(lambda: "mcp.remote.added" in registry, timeout_s=60, what="list_changed")
    added = await registry.execute(_tool(registry, "mcp.remote.added"), {}, ctx)
    assert added.text == "added ran"

    listings = sources.sources["remote"].session.listings
    await sources.refresh("remote")
    assert sources.sources["remote"].session.listings > listings


async def test_a_server_that_is_down_at_start_is_retried(tmp_path, make_sources, ctx):
    remote = RemoteMcp(port=free_port(), log_path=tmp_path / "late.log")
    sources, registry = await make_sources({"late": {"url": remote.url}}, wait=False)
    session = sources.sources["late"].session
    await wait_until(lambda: session.state == "down", timeout_s=60, what="down")
    assert "nothing answers" in (session.error or "")
    await remote.start()
    try:
        await wait_until(lambda: session.state == "ready", timeout_s=30, what="ready")
        assert "mcp.late.echo" in registry
    finally:
        remote.kill()


async def test_a_stdio_server_is_a_source_and_is_started_again_when_it_dies(
    make_sources, ctx, tmp_path
):
    command, env = stdio_command()
    pid_file = tmp_path / "pid"
    servers = {"local": {"command": command, "env": {**env, "MCP_TEST_PID_FILE": str(pid_file)}}}
    sources, registry = await make_sources(servers)
    result = await registry.execute(_tool(registry, "mcp.local.echo"), {"text": "pipe"}, ctx)
    assert result.text == "echo: pipe"

    session = sources.sources["local"].session
    first_pid = int(pid_file.read_text())
    os.kill(first_pid, signal.SIGKILL)  # idle: no call in flight
    await wait_until(lambda: session.failures > 0, timeout_s=60, what="the loss noticed")
    assert session.error.startswith("its process was stopped by signal 9 (exit code 137)")
    await wait_until(lambda: session.state == "ready", timeout_s=30, what="started again")
    assert int(pid_file.read_text()) != first_pid
    result = await registry.execute(_tool(registry, "mcp.local.echo"), {"text": "again"}, ctx)
    assert result.text == "echo: again"


async def test_an_http_server_that_dies_while_idle_is_down_then_back(
    remote: RemoteMcp, make_sources, ctx
):
    sources, registry = await make_sources({"remote": {"url": remote.url}})
    session = sources.sources["remote"].session
    remote.kill()
    await wait_until(lambda: session.state == "down", timeout_s=60, what="down")
    await remote.start()
    await wait_until(lambda: session.state == "ready", timeout_s=30, what="back")
    result = await registry.execute(_tool(registry, "mcp.remote.echo"), {"text": "y"}, ctx)
    assert result.text == "echo: y"


async def test_a_2025_session_follows_the_list_changed_notification(remote: RemoteMcp):
    listings: list[list[str]] = []

    async def on_tools(session: RemoteSession, tools: list[Any]) -> None:
        listings.append([t.name for t in tools])

    spec = McpServerSpec(url=remote.url)
    session = RemoteSession(
        "old", spec, None, call_timeout_s=10, retry_max_s=1, on_tools=on_tools, mode="legacy"
    )
    session.start()
    try:
        await wait_until(lambda: session.state == "ready", timeout_s=30, what="ready")
        assert session.protocol_version == "2025-11-25"
        assert "added" not in listings[-1]
        await session.call("grow_legacy", {}, 10)
        await wait_until(lambda: "added" in listings[-1], timeout_s=60, what="list_changed")
    finally:
        await session.aclose()


async def test_the_card_names_the_remote_tool_and_the_server_s_title(
    remote: RemoteMcp, make_sources, ctx: ToolContext
):
    servers = {"docs": {"url": remote.url, "title": "Company \u202edocs"}}
    _sources, registry = await make_sources(servers)
    tool = _tool(registry, "mcp.docs.echo")
    assert tool.confirmation is not None
    card = tool.confirmation({"text": "x"}, ctx)
    assert card.summary == "Run “echo” on the MCP server “Company [U+202E]docs”"
    assert card.action_label == "Run"


async def test_waiting_for_a_down_server_from_another_thread_s_loop_fails_clearly(
    tmp_path, make_sources
):
    remote = RemoteMcp(port=free_port(), log_path=tmp_path / "never.log")  # never started
    sources, _registry = await make_sources({"gone": {"url": remote.url}}, wait=False)
    session = sources.sources["gone"].session
    await wait_until(lambda: session.state == "down", timeout_s=60, what="down")

    def in_another_loop() -> BaseException | None:
        try:
            asyncio.run(session.wait_ready(600.0))
        except BaseException as exc:  # returned to the test
            return exc
        return None

    # It answers after one try at once (the server is still down), not after the 600 s.
    async with asyncio.timeout(30):
        failed = await asyncio.to_thread(in_another_loop)
    assert isinstance(failed, ToolError), repr(failed)
    assert failed.code == "upstream_error"
    assert "not available" in failed.message and "not sent" in failed.message
