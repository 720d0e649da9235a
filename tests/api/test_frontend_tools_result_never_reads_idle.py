"""A browser's result and the run it resumes are one commit: between them the conversation
never reads idle (nothing waiting, nothing running, no answer yet), which let a message sent
then be refused with 409 ``run_active`` although the detail said idle."""

from __future__ import annotations

from typing import Any

import pytest

from interlock.models import ScriptedChatModel, scripted_message
from interlock.settings import Settings
from support.frontend_tools import post_result, started_with
from support.live import live_server


async def test_a_browser_result_starts_the_resumed_run_in_its_own_commit(
    api_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with live_server(api_settings, model=ScriptedChatModel(responses=[])) as server:
        conversation_id, _model = await started_with(
            server, scripted_message("Checking.", ("test_clock", {})), "It is Oslo time."
        )
        log = await server.events_until(conversation_id, 1)
        (waiting,) = log.of("tool_call.awaiting_client")

        # Hold every later resume and run start: a reader then sees what the result's
        # commit left, before any task of the event loop ran.
        engine = server.services.engine
        held: list[tuple[str, tuple[Any, ...]]] = []
        for name in ("spawn_soon", "schedule_resume"):
            monkeypatch.setattr(engine, name, lambda *a, _n=name, **_k: held.append((_n, a)))
        posted = await post_result(
            server,
            waiting["tool_call"]["id"],
            {"text": "Europe/Oslo", "data": {"time_zone": "Europe/Oslo"}},
        )
        assert posted.status_code == 200, posted.text
        url = f"/api/conversations/{conversation_id}"
        detail = (await server.client.get(url)).json()
        assert (detail["status"], detail["pending"]) == ("running", 0), detail
        sent = await server.client.post(f"{url}/messages", json={"content": "and now?"})
        assert sent.status_code == 409 and sent.json()["error"]["code"] == "run_active"

        monkeypatch.undo()
        for name, args in held:
            getattr(engine, name)(*args)
        log = await server.events_until(conversation_id, 2)
        assert log.types[-1] == "run.completed", log.types
        await server.idle()
        assert (await server.client.get(url)).json()["status"] == "idle"
