"""API: the built-in browser skill, whose tools the browser runs: loaded by ``load_skill``,
asked by the offline model, and a result whose data is over the cap."""

from __future__ import annotations

from interlock.models import ScriptedChatModel, scripted_message
from interlock.settings import Settings
from interlock.storage import ToolCall
from support.frontend_tools import post_result, started_with
from support.live import LiveServer, live_server


async def test_the_browser_skill_time_zone_through_load_skill(api_settings: Settings) -> None:
    async with live_server(api_settings, model=ScriptedChatModel(responses=[])) as server:
        conversation_id, _model = await started_with(
            server,
            scripted_message("", ("load_skill", {"name": "browser"})),
            scripted_message("", ("browser_time_zone", {})),
            "You are on Oslo time.",
        )
        log = await server.events_until(conversation_id, 1)
        (waiting,) = log.of("tool_call.awaiting_client")
        assert waiting["tool_call"]["name"] == "browser.time_zone"
        bad = await post_result(
            server, waiting["tool_call"]["id"], {"text": "x", "data": {"time_zone": "<b>"}}
        )
        assert bad.status_code == 422
        ok = await post_result(
            server,
            waiting["tool_call"]["id"],
            {"text": "Oslo", "data": {"time_zone": "Europe/Oslo"}},
        )
        assert ok.status_code == 200, ok.text
        log = await server.events_until(conversation_id, 2)
        assert log.types[-1] == "run.completed"
        tools = {t["name"]: t for t in (await server.client.get("/api/tools")).json()}
        assert (
            tools["browser.time_zone"]["execution"],
            tools["browser.time_zone"]["permission"],
        ) == (
            "frontend",
            "ALLOW",
        )
        assert tools["browser.selection"]["permission"] == "ASK"


async def test_the_offline_model_asks_the_browser_and_drafts_documents(server: LiveServer) -> None:
    conversation_id = await server.new_conversation()
    log = await server.turn(conversation_id, "what is my time zone?")
    (waiting,) = log.of("tool_call.awaiting_client")
    assert waiting["tool_call"]["name"] == "browser.time_zone"
    posted = await post_result(
        server,
        waiting["tool_call"]["id"],
        {"text": "The person's time zone is Europe/Oslo.", "data": {"time_zone": "Europe/Oslo"}},
    )
    assert posted.status_code == 200, posted.text
    log = await server.events_until(conversation_id, 2)
    assert log.types[-1] == "run.completed", log.types
    assert "Europe/Oslo" in log.of("message.completed")[-1]["message"]["content"]

    log = await server.turn(conversation_id, "write a document titled Trip plan")
    (interrupted,) = log.of("tool_call.interrupted")
    call = interrupted["tool_call"]
    assert (call["name"], call["modal"]) == ("documents.write", True)
    assert call["confirmation"]["summary"] == "Create the document “Trip plan” (4 lines)."


async def test_a_browser_result_with_data_over_the_cap_keeps_its_text_not_the_data(
    api_settings: Settings,
) -> None:
    settings = api_settings.model_copy(update={"max_tool_result_chars": 1_000})
    async with live_server(settings, model=ScriptedChatModel(responses=[])) as server:
        conversation_id, _model = await started_with(
            server, scripted_message("Checking.", ("test_clock", {})), "Done."
        )
        log = await server.events_until(conversation_id, 1)
        (waiting,) = log.of("tool_call.awaiting_client")
        call_id = waiting["tool_call"]["id"]

        big = {"time_zone": "Z" * 5_000}  # valid for the output schema, over the cap
        posted = await post_result(server, call_id, {"text": "A long zone.", "data": big})
        assert posted.status_code == 200, posted.text
        body = posted.json()
        assert body["result_data"] is None
        assert body["result_text"] == (
            "A long zone.\n\n[Result data dropped: 5,016 characters of data; the limit is 1,000.]"
        )
        log = await server.events_until(conversation_id, 2)
        (completed,) = log.of("tool_call.completed")
        assert completed["tool_call"]["result_data"] is None
        with server.services.db.session() as session:
            stored = session.get(ToolCall, call_id)
            assert stored is not None and stored.result_data is None
