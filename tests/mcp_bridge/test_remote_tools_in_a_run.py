"""A remote MCP tool in a real run: the model calls it by its provider name, it pauses as ASK
with a card naming the remote tool, the person approves, and the remote server runs it."""

from __future__ import annotations

from pathlib import Path

from interlock.mcp_bridge.names import interlock_names
from interlock.models import ScriptedChatModel, scripted_message
from interlock.settings import Settings
from interlock.tools import provider_safe_name
from support.live import live_server
from support.mcp_remote import RemoteMcp
from support.sse import collect, terminals
from support.waits import wait_until


async def test_the_model_calls_a_remote_tool_and_the_person_approves_it(
    remote: RemoteMcp, db_url: str, tmp_path: Path
):
    get_user = provider_safe_name(interlock_names("remote", ["get user", "get_user"])["get user"])
    model = ScriptedChatModel(
        responses=[
            scripted_message(
                "Asking the remote server.",
                ("mcp_remote_echo", {"text": "hi"}),
                (get_user, {"text": "ann"}),
            ),
            "Done.",
        ]
    )
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None,
        database_url=db_url,
        client_dist=tmp_path / "no-client",
        mcp_servers={"remote": {"url": remote.url}},
    )
    async with live_server(settings, model=model) as server:
        session = server.services.mcp_sources.sources["remote"].session
        await wait_until(lambda: session.state == "ready", timeout_s=30, what="ready")
        conversation_id = await server.new_conversation()
        await server.say(conversation_id, "Who is ann?")
        log = await collect(server.client, conversation_id, until=terminals(1))
        assert log.types[-1] == "run.paused", log.types
        calls = [event["tool_call"] for event in log.of("tool_call.interrupted")]
        get_user_tool = server.services.registry.by_provider_name(get_user)
        assert get_user_tool is not None
        assert sorted(c["name"] for c in calls) == sorted(["mcp.remote.echo", get_user_tool.name])
        summaries = {c["confirmation"]["summary"] for c in calls}
        assert "Run “get user” on the MCP server “remote”" in summaries

        seen = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
        for call in calls:
            response = await server.decide(call["id"], type="approve")
            assert response.status_code == 200, response.text
        log = await collect(
            server.client,
            conversation_id,
            until=terminals(1),
            last_event_id=str(seen["last_event_seq"]),
        )
        assert log.types[-1] == "run.completed", log.types
        await server.idle()
        detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
        stored = {c["name"]: c for m in detail["messages"] for c in m["tool_calls"]}
        assert stored["mcp.remote.echo"]["status"] == "succeeded"
        assert stored["mcp.remote.echo"]["result_text"] == "echo: hi"
        assert stored[get_user_tool.name]["status"] == "succeeded"
        assert stored[get_user_tool.name]["result_text"] == "get user ran with 'ann'"


async def test_a_remote_call_waiting_for_approval_runs_after_a_restart(
    remote: RemoteMcp, db_url: str, tmp_path: Path
):
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None,
        database_url=db_url,
        client_dist=tmp_path / "no-client",
        mcp_servers={"remote": {"url": remote.url}},
    )
    first = ScriptedChatModel(
        responses=[scripted_message("Echoing.", ("mcp_remote_echo", {"text": "later"}))]
    )
    async with live_server(settings, model=first) as server:
        conversation_id = await server.new_conversation()
        await server.say(conversation_id, "Echo later")
        log = await collect(server.client, conversation_id, until=terminals(1))
        assert log.types[-1] == "run.paused", log.types
        call = log.of("tool_call.interrupted")[0]["tool_call"]

    # A new process. The start-up waits a bounded time for the server's first listing; on a
    # busy machine the listing may come later, and the resumed call waits for it (within the
    # call timeout) instead of failing as an unknown tool.
    async with live_server(settings, model=ScriptedChatModel(responses=["Done."])) as server:
        response = await server.decide(call["id"], type="approve")
        assert response.status_code == 200, response.text
        await server.idle()
        detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
        stored = next(
            c for m in detail["messages"] for c in m["tool_calls"] if c["id"] == call["id"]
        )
        assert stored["status"] == "succeeded"
        assert stored["result_text"] == "echo: later"
