"""A slash command bound to a declarative ``mcp_http`` tool: out of the ``/`` menu while its
MCP server is down, refused with the reason when typed, back in the menu when the server is."""

from __future__ import annotations

from pathlib import Path

from interlock.settings import Settings
from support.live import live_server
from support.mcp_remote import RemoteMcp
from support.waits import wait_until

SKILL = """---
name: lookup
description: Echo words through the remote MCP server.
commands:
  - command: shout
    title: Shout a word
    description: Echo the word typed after /shout
    tool: lookup.echo
    args: {word: "{query}"}
tools:
  - name: lookup.echo
    kind: mcp_http
    title: Echo through MCP
    description: Echo a word through the remote MCP server.
    input_schema: {type: object, properties: {word: {type: string}}, required: [word]}
    connector: remote
    tool_name: echo
    argument_template: {text: "{arguments.word}!"}
---
Echo words.
"""


async def test_a_command_on_a_down_server_leaves_the_menu_and_comes_back(
    remote: RemoteMcp, db_url: str, tmp_path: Path
):
    (tmp_path / "skills" / "lookup").mkdir(parents=True)
    (tmp_path / "skills" / "lookup" / "SKILL.md").write_text(SKILL)
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None,
        database_url=db_url,
        client_dist=tmp_path / "no-client",
        skills_path=[tmp_path / "skills"],
        mcp_servers={"remote": {"url": remote.url, "offer_tools": False}},
        mcp_retry_max_s=1.0,
    )
    async with live_server(settings) as server:
        session = server.services.mcp_sources.sources["remote"].session
        await wait_until(lambda: session.state == "ready", timeout_s=30, what="ready")

        async def menu() -> list[str]:
            response = await server.client.get("/api/employees/assistant/commands")
            assert response.status_code == 200, response.text
            return [c["command"] for c in response.json()]

        assert "shout" in await menu()
        remote.kill()
        await wait_until(lambda: session.state == "down", timeout_s=60, what="down")
        assert "shout" not in await menu()
        conversation_id = await server.new_conversation()
        typed = await server.client.post(
            f"/api/conversations/{conversation_id}/messages", json={"content": "/shout hey"}
        )
        assert typed.status_code == 422, typed.text
        error = typed.json()["error"]
        assert error["code"] == "slash_command_unavailable"
        assert "The MCP server 'remote' is not available" in error["message"]

        await remote.start()
        await wait_until(lambda: session.state == "ready", timeout_s=30, what="back")
        assert "shout" in await menu()
