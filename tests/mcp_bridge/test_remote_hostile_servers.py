"""Hostile remote MCP servers (:mod:`support.mcp_hostile_server`): huge or looping listings,
names that would read differently on a page, garbage, silence and notification storms. Each
ends in a clear state: the bad tools unavailable with the reason, or the server down with a
short sentence that repeats none of its garbage and none of the connection's secrets."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from interlock.mcp_bridge.remote_tools import MAX_OFFERED_TOOLS
from interlock.tools import ToolContext
from support.mcp_remote import RemoteMcp, free_port
from support.waits import wait_until

SECRETS = ("q-secret-789", "h-secret-123")


async def _serve(
    mode: str, make_sources: Any, tmp_path: Path, **settings: Any
) -> tuple[Any, Any, RemoteMcp]:
    remote = RemoteMcp(port=free_port(), log_path=tmp_path / f"{mode}.log", hostile=mode)
    await remote.start()
    spec = {"url": f"{remote.url}?key={SECRETS[0]}", "connection": "c"}
    sources, registry = await make_sources(
        {"h": spec},
        wait=False,
        connections={"c": {"headers": {"X-Key": SECRETS[1]}}},
        **settings,
    )
    session = sources.sources["h"].session
    await wait_until(lambda: session.state in ("ready", "down"), timeout_s=60, what="settled")
    return sources, registry, remote


@pytest.fixture
def hostile(make_sources: Any, tmp_path: Path) -> Any:
    started: list[RemoteMcp] = []

    async def serve(mode: str, **settings: Any) -> tuple[Any, Any]:
        sources, registry, remote = await _serve(mode, make_sources, tmp_path, **settings)
        started.append(remote)
        return sources, registry

    yield serve
    for remote in started:
        remote.kill()


def _rows(sources: Any) -> dict[str, Any]:
    return {row.remote_name: row for row in sources.sources["h"].tools}


async def test_a_server_listing_10000_tools_is_down_with_the_reason(hostile: Any):
    sources, registry = await hostile("many")
    session = sources.sources["h"].session
    assert session.state == "down"
    assert session.error == "RuntimeError: it lists more than 1,000 tools (Interlock reads no more)"
    assert not [t for t in registry.tools() if t.name.startswith("mcp.h.")]


async def test_at_most_128_tools_of_one_server_are_offered(hostile: Any):
    sources, registry = await hostile("two_hundred")
    rows = _rows(sources)
    available = [r for r in rows.values() if r.available]
    assert len(available) == MAX_OFFERED_TOOLS == 128
    late = rows["t199"]
    assert not late.available and "at most 128 tools of one MCP server" in (late.reason or "")
    assert registry.get("mcp.h.t199") is None


async def test_gigantic_descriptions_titles_and_schemas_are_cut_or_refused(hostile: Any):
    sources, registry = await hostile("huge")
    long_description = registry.get("mcp.h.long_description")
    assert long_description is not None and len(long_description.description) == 4000
    long_title = registry.get("mcp.h.long_title")
    assert long_title is not None and len(long_title.title) == 200
    assert long_title.title.endswith("…")
    wide = _rows(sources)["wide"]
    assert not wide.available
    assert "more than the 20,000 allowed" in (wide.reason or "")


async def test_schemas_with_ref_loops_are_unavailable_not_a_crash(hostile: Any, ctx: ToolContext):
    sources, registry = await hostile("refloop")
    rows = _rows(sources)
    for name in ("loop", "itself"):
        assert not rows[name].available
        assert "has a $ref loop that never reaches the data" in (rows[name].reason or "")
        assert registry.get(f"mcp.h.{name}") is None
    echo = registry.get("mcp.h.echo")
    assert echo is not None
    assert (await registry.execute(echo, {"text": "still"}, ctx)).text == "echo: still"


async def test_names_with_control_and_rtl_characters_read_as_written(
    hostile: Any, ctx: ToolContext
):
    sources, registry = await hostile("names")
    rows = _rows(sources)
    rtl = rows["delete\u202efdp.txt"]  # the exact remote name is kept for calls
    assert rtl.title == "Title delete[U+202E]fdp.txt"
    tool = registry.get(rtl.name)
    assert tool is not None and tool.confirmation is not None
    card = tool.confirmation({}, ctx)
    assert card.summary == "Run “delete[U+202E]fdp.txt” on the MCP server “h”"
    bell = registry.get(rows["bell\x07\x1b[31mred"].name)
    assert bell is not None and bell.title == "Title bell[U+0007][U+001B][31mred"
    for row in rows.values():
        assert row.name.isascii() and row.name.isprintable()
        assert all(c.isprintable() for c in row.title)


@pytest.mark.parametrize(
    ("mode", "said"),
    [
        ("garbage", "it answered with something that is not MCP (not valid JSON-RPC)"),
        ("status403", "it answered with an error: "),
        ("status500", "it answered with an error: "),
        ("hang", "it did not answer in time"),
    ],
)
async def test_a_server_answering_garbage_errors_or_nothing_is_down_in_one_clear_line(
    hostile: Any, mode: str, said: str
):
    # Only the silent server needs a short call timeout; the others answer at once, and a
    # short one could run out first on a busy machine ("did not answer in time").
    sources, _registry = await hostile(mode, mcp_call_timeout_s=2.0 if mode == "hang" else 30.0)
    session = sources.sources["h"].session
    assert session.state == "down"
    error = session.error or ""
    assert error.startswith(said), error
    assert len(error) <= 250 and "\n" not in error and "not json at all" not in error
    assert not any(secret in error for secret in SECRETS)
    assert not any(secret in session.down_message() for secret in SECRETS)


async def test_a_notification_storm_leaves_the_session_usable(hostile: Any, ctx: ToolContext):
    sources, registry = await hostile("storm")
    session = sources.sources["h"].session
    assert session.state == "ready"
    storm = registry.get("mcp.h.storm")
    assert storm is not None
    assert (await registry.execute(storm, {}, ctx)).text == "stormed"
    echo = registry.get("mcp.h.echo")
    assert echo is not None
    assert (await registry.execute(echo, {"text": "calm"}, ctx)).text == "echo: calm"
    assert session.state == "ready"
    assert session.listings < 1000  # 5,000 announcements coalesce into far fewer listings
