"""A remote call that times out is ``timeout`` saying it may still finish, and is never sent
again: not in the run, not after a restart."""

from __future__ import annotations

from pathlib import Path

from interlock.models import ScriptedChatModel, scripted_message
from interlock.settings import Settings
from support.live import live_server
from support.mcp_remote import RemoteMcp
from support.sse import collect, terminals
from support.waits import wait_until


async def test_a_timed_out_remote_call_is_never_sent_again(
    remote: RemoteMcp, db_url: str, tmp_path: Path
):
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None,
        database_url=db_url,
        client_dist=tmp_path / "no-client",
        mcp_servers={"remote": {"url": remote.url, "permissions": {"slow": "ALLOW"}}},
        mcp_call_timeout_s=3.0,  # the listings must fit in it too, on a busy machine
    )
    model = ScriptedChatModel(
        responses=[scripted_message("Waiting.", ("mcp_remote_slow", {"seconds": 5})), "Late."]
    )
    async with live_server(settings, model=model) as server:
        session = server.services.mcp_sources.sources["remote"].session
        await wait_until(lambda: session.state == "ready", timeout_s=30, what="ready")
        conversation_id = await server.new_conversation()
        await server.say(conversation_id, "Wait 5 s")
        log = await collect(server.client, conversation_id, until=terminals(1))
        assert log.types[-1] == "run.completed", log.types
        detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
        call = next(c for m in detail["messages"] for c in m["tool_calls"])
        assert call["status"] == "failed", call
        assert call["error"]["code"] == "timeout"
        assert "may still finish" in call["error"]["message"]

    async with live_server(settings, model=ScriptedChatModel(responses=[])) as server:
        session = server.services.mcp_sources.sources["remote"].session
        await wait_until(lambda: session.state == "ready", timeout_s=30, what="ready")
        await server.idle()
        detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
        again = next(c for m in detail["messages"] for c in m["tool_calls"])
        assert again["status"] == "failed" and again["error"]["code"] == "timeout"
    assert remote.log_path.read_text().count("slow started") == 1
