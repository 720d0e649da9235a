"""A remote MCP server that is down: its tools are not offered (to the model, to MCP clients of
``/mcp``), a call already proposed for one fails with a clear error without being sent, and
they are offered again when the server is back. After a restart, a call decided while its
server is still connecting waits for it; one whose server stays down fails clearly."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from interlock.models import ScriptedChatModel, scripted_message
from interlock.settings import Settings
from support.live import LiveServer, live_server
from support.mcp import serve_mcp
from support.mcp_remote import RemoteMcp, free_port
from support.sse import collect, terminals
from support.waits import wait_until


def _settings(db_url: str, tmp_path: Path, remote: RemoteMcp) -> Settings:
    return Settings(  # type: ignore[call-arg]
        _env_file=None,
        database_url=db_url,
        client_dist=tmp_path / "no-client",
        mcp_servers={"remote": {"url": remote.url}},
        mcp_retry_max_s=1.0,
    )


async def _stored_call(server: LiveServer, conversation_id: str, call_id: str) -> dict[str, Any]:
    detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
    return next(c for m in detail["messages"] for c in m["tool_calls"] if c["id"] == call_id)


async def _mcp_names(mcp: Any) -> set[str]:
    async with mcp.client() as client:
        return {tool.name for tool in (await client.list_tools()).tools}


async def test_a_down_server_s_tools_are_not_offered_and_come_back(
    remote: RemoteMcp, db_url: str, tmp_path: Path
):
    model = ScriptedChatModel(
        responses=[
            scripted_message("Echoing.", ("mcp_remote_echo", {"text": "hi"})),
            scripted_message("Trying anyway.", ("mcp_remote_echo", {"text": "down"})),
            "Nothing I can do.",
            "The server is down, sorry.",
            "Back again.",
        ]
    )
    settings = _settings(db_url, tmp_path, remote)
    async with serve_mcp(settings, model=model) as mcp:
        server = mcp.live
        session = server.services.mcp_sources.sources["remote"].session
        await wait_until(lambda: session.state == "ready", timeout_s=30, what="ready")
        assert "mcp_remote_echo" in await _mcp_names(mcp)
        first = await server.new_conversation()
        await server.say(first, "Echo hi")
        log = await collect(server.client, first, until=terminals(1))
        assert log.types[-1] == "run.paused", log.types
        call = log.of("tool_call.interrupted")[0]["tool_call"]
        assert "mcp_remote_echo" in model.bound_tool_names_seen[0]

        remote.kill()
        await wait_until(lambda: session.state == "down", timeout_s=60, what="down")
        # Not offered: to the model (a new turn) and to MCP clients.
        assert not any(n.startswith("mcp_remote_") for n in await _mcp_names(mcp))
        second = await server.new_conversation()
        await server.say(second, "Anything?")
        log = await collect(server.client, second, until=terminals(1))
        assert log.types[-1] == "run.completed", log.types
        assert not any(n.startswith("mcp_remote_") for n in model.bound_tool_names_seen[1])
        # The model calls it anyway (it saw it earlier): the clear reason, no card.
        detail = (await server.client.get(f"/api/conversations/{second}")).json()
        refused = next(c for m in detail["messages"] for c in m["tool_calls"])
        assert refused["status"] == "failed", refused
        assert refused["error"]["code"] == "upstream_error"
        assert "The MCP server 'remote' is not available" in refused["error"]["message"]
        # The call proposed before: approved now, it fails with the reason and is not sent.
        seen = (await server.client.get(f"/api/conversations/{first}")).json()
        response = await server.decide(call["id"], type="approve")
        assert response.status_code == 200, response.text
        log = await collect(
            server.client, first, until=terminals(1), last_event_id=str(seen["last_event_seq"])
        )
        assert log.types[-1] == "run.completed", log.types
        stored = await _stored_call(server, first, call["id"])
        assert stored["status"] == "failed", stored
        assert stored["error"]["code"] == "upstream_error", stored
        assert "The MCP server 'remote' is not available" in stored["error"]["message"]
        assert "not sent" in stored["error"]["message"]
        assert stored["executed_args"] is None  # not run

        await remote.start()  # same port
        await wait_until(lambda: session.state == "ready", timeout_s=30, what="back")
        assert "mcp_remote_echo" in await _mcp_names(mcp)
        await server.say(second, "And now?")
        log = await collect(server.client, second, until=terminals(2))
        assert log.types[-1] == "run.completed", log.types
        assert "mcp_remote_echo" in model.bound_tool_names_seen[4]


async def _paused_remote_call(settings: Settings) -> tuple[str, str]:
    """A first process: the model proposes ``mcp.remote.echo``; it waits for approval."""
    model = ScriptedChatModel(
        responses=[scripted_message("Echoing.", ("mcp_remote_echo", {"text": "later"}))]
    )
    async with live_server(settings, model=model) as server:
        # Start-up waits a few seconds for the remote server; a busy machine may take longer
        # to start it, and the model must find the tool registered.
        session = server.services.mcp_sources.sources["remote"].session
        await wait_until(lambda: session.state == "ready", timeout_s=30, what="ready")
        conversation_id = await server.new_conversation()
        await server.say(conversation_id, "Echo later")
        log = await collect(server.client, conversation_id, until=terminals(1))
        assert log.types[-1] == "run.paused", log.types
        return conversation_id, log.of("tool_call.interrupted")[0]["tool_call"]["id"]


async def test_after_a_restart_a_call_approved_while_its_server_connects_waits_for_it(
    db_url: str, tmp_path: Path
):
    remote = RemoteMcp(port=free_port(), log_path=tmp_path / "remote.log")
    await remote.start()
    try:
        settings = _settings(db_url, tmp_path, remote)
        conversation_id, call_id = await _paused_remote_call(settings)
        remote.kill()
        # The server comes back slow: it answers nothing until the test lets it, past the
        # bounded wait of Interlock's start-up, so the tool is not registered when the person
        # approves (however fast or slow this machine is).
        hold = tmp_path / "hold"
        hold.touch()
        remote.env = {"MCP_TEST_HOLD_FILE": str(hold)}
        await remote.start()
        async with live_server(settings, model=ScriptedChatModel(responses=["Done."])) as server:
            session = server.services.mcp_sources.sources["remote"].session
            assert session.state == "connecting"
            assert server.services.registry.get("mcp.remote.echo") is None
            edit = await server.decide(call_id, type="edit", args={"text": "edited"})
            assert edit.status_code == 409, edit.text
            assert edit.json()["error"]["code"] == "tool_not_ready"
            response = await server.decide(call_id, type="approve")
            assert response.status_code == 200, response.text
            hold.unlink()  # the server answers now; the approved call waited for its tools
            await server.idle(timeout_s=45)
            stored = await _stored_call(server, conversation_id, call_id)
            assert stored["status"] == "succeeded", stored
            assert stored["result_text"] == "echo: later"
    finally:
        remote.kill()


async def test_after_a_restart_a_call_whose_server_stays_down_fails_clearly(
    db_url: str, tmp_path: Path
):
    remote = RemoteMcp(port=free_port(), log_path=tmp_path / "remote.log")
    await remote.start()
    try:
        settings = _settings(db_url, tmp_path, remote)
        conversation_id, call_id = await _paused_remote_call(settings)
    finally:
        remote.kill()
    async with live_server(settings, model=ScriptedChatModel(responses=["Sorry."])) as server:
        assert server.services.registry.get("mcp.remote.echo") is None
        response = await server.decide(call_id, type="approve")
        assert response.status_code == 200, response.text
        await server.idle(timeout_s=45)
        stored = await _stored_call(server, conversation_id, call_id)
        assert stored["status"] == "failed", stored
        assert stored["error"]["code"] == "upstream_error", stored
        assert "The MCP server 'remote' is not available" in stored["error"]["message"]
        assert "nothing answers" in stored["error"]["message"]
        assert stored["executed_args"] is None
