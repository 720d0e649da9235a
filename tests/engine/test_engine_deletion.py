"""Deleting a conversation that still waits on calls: each call keeps one outcome in the audit."""

from __future__ import annotations

from support.api_fixtures import api_settings, server
from support.live import LiveServer
from support.sse import collect, terminals

__all__ = ["api_settings", "server"]


async def test_calls_still_waiting_are_recorded_cancelled_when_their_conversation_is_deleted(
    server: LiveServer,
) -> None:
    conversation_id = await server.new_conversation()
    await server.say(conversation_id, "add a note keep me and add a note me too")
    log = await collect(server.client, conversation_id, until=terminals(1))
    waiting = [e["tool_call"]["id"] for e in log.of("tool_call.interrupted")]
    assert len(waiting) == 2, log.types
    me = (await server.client.get("/api/me")).json()

    deleted = await server.client.delete(f"/api/conversations/{conversation_id}")

    assert deleted.status_code == 204, deleted.text
    records = (await server.client.get("/api/audit")).json()["records"]
    assert sorted(
        (r["tool_call_id"], r["outcome"], r["reason"], r["decider"], r["channel"]) for r in records
    ) == sorted(
        (call_id, "cancelled", "The conversation was deleted.", me["id"], "system")
        for call_id in waiting
    )
    for call_id in waiting:  # nothing left to decide
        late = await server.decide(call_id, type="approve")
        assert late.status_code == 404, late.text


async def test_a_refused_delete_records_nothing(server: LiveServer) -> None:
    conversation_id = await server.new_conversation()
    await server.say(conversation_id, "add a note keep me")
    await collect(server.client, conversation_id, until=terminals(1))
    other = await server.client.post("/api/conversations", json={})

    refused = await server.client.delete(f"/api/conversations/{other.json()['id']}x")

    assert refused.status_code == 404, refused.text
    assert (await server.client.get("/api/audit")).json()["records"] == []
    pending = await server.client.get(f"/api/conversations/{conversation_id}/pending")
    assert len(pending.json()) == 1
