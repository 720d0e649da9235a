"""Cancelling a run while the model streams keeps what the person already saw."""

from __future__ import annotations

from collections.abc import Callable

from interlock.settings import Settings
from support.live import live_server
from support.sse import collect


async def test_cancel_mid_answer_stores_the_streamed_text_and_ends_the_run_cancelled(
    make_settings: Callable[..., Settings],
) -> None:
    settings = make_settings(offline_token_delay_s=0.02)
    async with live_server(settings) as server:
        conversation_id = await server.new_conversation()
        await server.say(conversation_id, "write a long answer")
        log = await collect(
            server.client, conversation_id, until=lambda log: len(log.of("message.delta")) >= 5
        )
        response = await server.client.post(f"/api/conversations/{conversation_id}/cancel")
        assert response.status_code == 200
        await server.idle()

        streamed = "".join(d["delta"] for d in log.of("message.delta"))
        detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
        assert detail["status"] == "idle"
        assistant = [m for m in detail["messages"] if m["role"] == "assistant"]
        assert len(assistant) == 1
        assert assistant[0]["content"].startswith(streamed)
        everything = await collect(
            server.client,
            conversation_id,
            until=lambda log: int(log.frames[-1].id or 0) >= detail["last_event_seq"],
        )
        assert everything.types[-1] == "run.cancelled"
        assert everything.types.count("run.cancelled") == 1
