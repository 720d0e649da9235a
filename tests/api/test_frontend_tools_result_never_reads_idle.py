"""A browser's result and the run it resumes are one commit: between them the conversation
never reads idle (nothing waiting, nothing running, no answer yet), which let a message sent
then be refused with 409 ``run_active`` although the detail said idle."""

from __future__ import annotations

from interlock.models import ScriptedChatModel, scripted_message
from interlock.settings import Settings
from support.frontend_tools import post_result, started_with
from support.held_starts import assert_running_not_idle, run_starts_held
from support.live import live_server


async def test_a_browser_result_starts_the_resumed_run_in_its_own_commit(
    api_settings: Settings,
) -> None:
    async with live_server(api_settings, model=ScriptedChatModel(responses=[])) as server:
        conversation_id, _model = await started_with(
            server, scripted_message("Checking.", ("test_clock", {})), "It is Oslo time."
        )
        log = await server.events_until(conversation_id, 1)
        (waiting,) = log.of("tool_call.awaiting_client")

        with run_starts_held(server.services.engine):
            posted = await post_result(
                server,
                waiting["tool_call"]["id"],
                {"text": "Europe/Oslo", "data": {"time_zone": "Europe/Oslo"}},
            )
            assert posted.status_code == 200, posted.text
            await assert_running_not_idle(server.client, conversation_id)
        log = await server.events_until(conversation_id, 2)
        assert log.types[-1] == "run.completed", log.types
        await server.idle()
        detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
        assert detail["status"] == "idle"
