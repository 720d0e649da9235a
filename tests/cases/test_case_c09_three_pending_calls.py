"""C09 — three pending calls, answers arriving piecemeal (main job).

The model proposes three ``notes.add`` calls (A "one", B "two", C "three") in one message.
C is approved first; a second decision on C gets 409; then the remaining calls are decided
in reverse order: B edited to "two, edited", A rejected. The run must resume only after the
third decision; each outcome must land on its own call (C succeeded with the proposal, B
succeeded with the edited ``executed_args``, A rejected and never run), and each call carries
its own decision (what a card disables itself on).
"""

from __future__ import annotations

from typing import Any

from interlock.models import ScriptedChatModel, scripted_message
from interlock.settings import Settings
from support.live import LiveServer, live_server
from support.notes import stored_notes
from support.sse import EventLog, collect, terminals


async def _detail(server: LiveServer, conversation_id: str) -> dict[str, Any]:
    response = await server.client.get(f"/api/conversations/{conversation_id}")
    assert response.status_code == 200, response.text
    return dict(response.json())


async def _calls(server: LiveServer, conversation_id: str) -> dict[str, dict[str, Any]]:
    detail = await _detail(server, conversation_id)
    return {c["id"]: c for m in detail["messages"] for c in m["tool_calls"]}


async def _pending_ids(server: LiveServer, conversation_id: str) -> list[str]:
    response = await server.client.get(f"/api/conversations/{conversation_id}/pending")
    assert response.status_code == 200, response.text
    return [c["id"] for c in response.json()]


async def _all_events(server: LiveServer, conversation_id: str) -> EventLog:
    last = (await _detail(server, conversation_id))["last_event_seq"]
    return await collect(
        server.client, conversation_id, until=lambda log: int(log.frames[-1].id or 0) >= last
    )


def _notes(server: LiveServer) -> list[str]:
    return sorted(text for _, text in stored_notes(server.services.db))


async def test_case_c09_three_calls_decided_piecemeal_resume_only_after_the_last(
    case_settings: Settings,
) -> None:
    model = ScriptedChatModel(
        responses=[
            scripted_message(
                "Three notes.",
                ("notes_add", {"text": "one"}),
                ("notes_add", {"text": "two"}),
                ("notes_add", {"text": "three"}),
            ),
            "Two notes added, one declined.",
        ]
    )
    async with live_server(case_settings, model=model) as server:
        conversation_id = await server.new_conversation()
        await server.say(conversation_id, "add three notes")
        log = await collect(server.client, conversation_id, until=terminals(1))
        assert log.types[-1] == "run.paused", log.types
        interrupted = [e["tool_call"] for e in log.of("tool_call.interrupted")]
        assert [c["proposed_args"]["text"] for c in interrupted] == ["one", "two", "three"]
        a, b, c = (call["id"] for call in interrupted)
        assert len({a, b, c}) == 3
        assert log.of("run.paused")[0]["pending"] == [a, b, c]

        async def no_resume_yet(still_pending: list[str]) -> None:
            await server.idle()
            events = await _all_events(server, conversation_id)
            assert [e["trigger"] for e in events.of("run.started")] == ["message"]
            assert await _pending_ids(server, conversation_id) == still_pending
            assert model.calls_made == 1
            assert _notes(server) == []
            assert (await _detail(server, conversation_id))["status"] == "paused"

        # 1. Approve C.
        response = await server.decide(c, type="approve")
        assert response.status_code == 200, response.text
        assert response.json()["id"] == c and response.json()["decision"]["type"] == "approve"
        await no_resume_yet([a, b])

        # 2. Decide C again: 409 with C's recorded decision; nothing changes.
        again = await server.decide(c, type="reject", message="changed my mind")
        assert again.status_code == 409, again.text
        assert again.json()["error"]["code"] == "not_interrupted"
        assert again.json()["error"]["details"]["decision"]["type"] == "approve"
        assert again.json()["error"]["details"]["decision"] == response.json()["decision"]
        await no_resume_yet([a, b])

        # 3. Reverse order: edit B.
        response = await server.decide(b, type="edit", args={"text": "two, edited"})
        assert response.status_code == 200, response.text
        assert response.json()["id"] == b and response.json()["decision"]["type"] == "edit"
        await no_resume_yet([a])
        calls = await _calls(server, conversation_id)
        assert calls[c]["decision"]["type"] == "approve"
        assert calls[b]["decision"]["type"] == "edit"
        assert calls[a]["decision"] is None

        # 4. Reject A: the last decision resumes the run.
        response = await server.decide(a, type="reject", message="not this one")
        assert response.status_code == 200, response.text
        assert response.json()["id"] == a and response.json()["decision"]["type"] == "reject"
        log = await collect(
            server.client,
            conversation_id,
            until=terminals(1),
            last_event_id=str(log.frames[-1].id),
        )
        assert log.types[-1] == "run.completed", log.types
        await server.idle()

        events = await _all_events(server, conversation_id)
        types = events.types
        resumes = [i for i, f in enumerate(events.frames) if f.event == "run.started"][1:]
        assert [events.frames[i].data["trigger"] for i in resumes] == ["resume"]
        decided = [e["tool_call"]["id"] for e in events.of("tool_call.decided")]
        assert decided == [c, b, a]
        last_decided = max(i for i, t in enumerate(types) if t == "tool_call.decided")
        assert resumes[0] > last_decided

        # Each decision recorded on its own call; each outcome on the right call.
        for event in events.of("tool_call.decided"):
            expected = {c: "approve", b: "edit", a: "reject"}[event["tool_call"]["id"]]
            assert event["tool_call"]["decision"]["type"] == expected
        calls = await _calls(server, conversation_id)
        assert calls[c]["status"] == "succeeded"
        assert calls[c]["decision"]["type"] == "approve"
        assert calls[c]["executed_args"] == {"text": "three"}
        assert calls[b]["status"] == "succeeded"
        assert calls[b]["decision"]["type"] == "edit"
        assert calls[b]["decision"]["args"] == {"text": "two, edited"}
        assert calls[b]["decision"]["proposed_args"] == {"text": "two"}
        assert calls[b]["proposed_args"] == {"text": "two"}
        assert calls[b]["executed_args"] == {"text": "two, edited"}
        assert calls[a]["status"] == "rejected"
        assert calls[a]["decision"]["type"] == "reject"
        assert calls[a]["decision"]["message"] == "not this one"
        assert calls[a]["executed_args"] is None
        assert len({calls[x]["decision"]["id"] for x in (a, b, c)}) == 3

        assert _notes(server) == ["three", "two, edited"]
        detail = await _detail(server, conversation_id)
        tool_messages = [m for m in detail["messages"] if m["role"] == "tool"]
        assert [m["tool_call_id"] for m in tool_messages] == [a, b, c]
        assert [m["tool_status"] for m in tool_messages] == ["error", "success", "success"]
        assert model.calls_made == 2
