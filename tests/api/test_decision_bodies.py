"""A decision carries only what its type uses: a ``message`` on an approve or an edit was
accepted (200) and kept where no person reads it and the model never hears it; it is refused
with 422 ``invalid_request`` and the call keeps waiting, as AG-UI's resume refuses it."""

from __future__ import annotations

from support.api_errors import error_of
from support.live import LiveServer


async def test_a_message_on_an_approve_or_edit_is_refused_and_the_call_keeps_waiting(
    server: LiveServer,
) -> None:
    conversation_id = await server.new_conversation()
    [call] = [
        e["tool_call"]
        for e in (await server.turn(conversation_id, "add a note milk")).of("tool_call.interrupted")
    ]
    for body in (
        {"type": "edit", "args": {"text": "oat milk"}, "message": "why"},
        {"type": "approve", "message": "fine"},
    ):
        error = error_of(await server.decide(call["id"], **body), 422, "invalid_request")
        assert error["message"].startswith("Only turning a call down (the reason) or answering")
    pending = (await server.client.get(f"/api/conversations/{conversation_id}/pending")).json()
    assert [p["id"] for p in pending] == [call["id"]] and pending[0]["decision"] is None
    rejected = await server.decide(call["id"], type="reject", message="not now")
    assert rejected.status_code == 200, rejected.text
    assert rejected.json()["decision"]["message"] == "not now"
    await server.idle()
