"""An expired call's close and its run's resume are one commit: the conversation never reads
idle in between (nothing waiting, nothing running, no answer yet), as turning AI actions off
no longer lets it either."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from interlock.engine.expiry import expire_due
from interlock.models import ScriptedChatModel, scripted_message
from interlock.settings import Settings
from interlock.storage import Conversation
from support.live import live_server
from support.sse import collect, terminals

FAR_FUTURE = datetime(2100, 1, 1, tzinfo=UTC)


async def test_engine_an_expired_call_resumes_its_run_in_the_commit_that_closes_it(
    make_settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    add = scripted_message("Adding.", ("notes_add", {"text": "soon"}))
    model = ScriptedChatModel(responses=[add, "Not approved in time; left alone."])
    settings: Settings = make_settings(approval_sweep_interval_s=3600)
    async with live_server(settings, model=model) as server:
        conversation_id = await server.new_conversation()
        await server.say(conversation_id, "add a note soon")
        paused = await collect(server.client, conversation_id, until=terminals(1))
        assert paused.types[-1] == "run.paused", paused.types
        await server.idle()

        engine = server.services.engine
        seen_at_resume: list[str | None] = []
        resume_after_close = engine.resume_after_close

        def looked(conversation_id: str, message_id: int) -> str | None:
            # What a reader sees once the close committed, before the sweep resumes anything.
            with engine.db.session() as session:
                conversation = session.get(Conversation, conversation_id)
                assert conversation is not None
                seen_at_resume.append(conversation.active_run_id)
            return resume_after_close(conversation_id, message_id)

        monkeypatch.setattr(engine, "resume_after_close", looked)
        assert len(await engine.db.run(expire_due, engine, FAR_FUTURE)) == 1
        assert len(seen_at_resume) == 1 and seen_at_resume[0] is not None

        log = await collect(
            server.client, conversation_id, until=terminals(1), last_event_id=paused.frames[-1].id
        )
        assert [e["trigger"] for e in log.of("run.started")] == ["resume"]
        assert log.types[-1] == "run.completed", log.types
        await server.idle()
        assert model.calls_made == 2
