"""The AG-UI endpoint over HTTP: a message streams text, tool calls and an interrupt; a resume
goes through the decision path; bad input gets a clear error and writes nothing."""

from __future__ import annotations

import json
from typing import Any

import httpx

from interlock.settings import Settings
from interlock.storage import Database
from interlock.storage.users import create_user
from support.live import LiveServer, live_server
from support.notes import stored_notes
from support.sse import collect, terminals
from support.waits import wait_until

from .conftest import agui_run, one, resolved, run_input, types, user_message


async def _interrupted(server: LiveServer, conversation_id: str, text: str) -> dict[str, Any]:
    """Send ``text``; return the one interrupt the run finished with."""
    events = await agui_run(
        server.client, conversation_id, run_input(conversation_id, messages=[user_message(text)])
    )
    finished = one(events, "RUN_FINISHED")
    assert finished["outcome"]["type"] == "interrupt", events
    [interrupt] = finished["outcome"]["interrupts"]
    return dict(interrupt)


async def _stored_call(server: LiveServer, conversation_id: str, call_id: str) -> dict[str, Any]:
    detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
    return next(c for m in detail["messages"] for c in m["tool_calls"] if c["id"] == call_id)


async def test_a_message_streams_text_then_the_tool_call_then_an_interrupt(
    server: LiveServer,
) -> None:
    conversation_id = await server.new_conversation()
    body = run_input(conversation_id, messages=[user_message("add a note buy milk")])
    events = await agui_run(server.client, conversation_id, body)

    assert types(events)[0] == "RUN_STARTED"
    assert events[0]["threadId"] == conversation_id and events[0]["runId"] == body["runId"]
    assert types(events)[-2:] == ["MESSAGES_SNAPSHOT", "RUN_FINISHED"]
    start = one(events, "TEXT_MESSAGE_START")
    text = "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert text == "I'll add that note."
    assert one(events, "TEXT_MESSAGE_END")["messageId"] == start["messageId"]
    call = one(events, "TOOL_CALL_START")
    assert call["toolCallName"] == "notes.add"
    assert call["parentMessageId"] == start["messageId"]
    assert one(events, "TOOL_CALL_ARGS")["delta"] == '{"text": "buy milk"}'
    assert one(events, "TOOL_CALL_END")["toolCallId"] == call["toolCallId"]
    assert "TOOL_CALL_RESULT" not in types(events)
    order = types(events)
    assert order.index("TEXT_MESSAGE_END") < order.index("TOOL_CALL_START")

    finished = events[-1]
    assert finished["threadId"] == conversation_id and finished["runId"] == body["runId"]
    [interrupt] = finished["outcome"]["interrupts"]
    assert interrupt["id"] == interrupt["toolCallId"] == call["toolCallId"]
    assert interrupt["reason"] == "tool_call"
    assert interrupt["message"] == "Add a note: “buy milk”"
    assert interrupt["expiresAt"].endswith("Z")
    assert interrupt["metadata"]["interlock"]["proposedArgs"] == {"text": "buy milk"}
    branches = {b["properties"]["type"]["const"]: b for b in interrupt["responseSchema"]["oneOf"]}
    assert list(branches) == ["approve", "edit", "reject", "respond"]
    tool = next(
        t for t in (await server.client.get("/api/tools")).json() if t["name"] == "notes.add"
    )
    edit_args = dict(branches["edit"]["properties"]["args"])
    assert edit_args.pop("description")
    assert edit_args == tool["input_schema"]
    assert branches["reject"]["required"] == ["type"]

    snapshot = events[-2]["messages"]
    assert [m["role"] for m in snapshot] == ["user", "assistant"]
    assert snapshot[0]["content"] == "add a note buy milk"
    assert snapshot[1]["toolCalls"][0]["id"] == call["toolCallId"]


async def test_a_resume_with_an_edit_runs_the_edited_args_and_the_run_finishes(
    server: LiveServer,
) -> None:
    conversation_id = await server.new_conversation()
    interrupt = await _interrupted(server, conversation_id, "add a note buy milk")
    resume = [resolved(interrupt["id"], {"type": "edit", "args": {"text": "buy oat milk"}})]
    body = run_input(conversation_id, resume=resume)
    events = await agui_run(server.client, conversation_id, body)

    assert types(events)[0] == "RUN_STARTED" and events[0]["runId"] == body["runId"]
    result = one(events, "TOOL_CALL_RESULT")
    assert result["toolCallId"] == interrupt["id"] and "buy oat milk" in result["content"]
    assert "TOOL_CALL_START" not in types(events)  # the call started in the earlier run
    text = "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert "buy oat milk" in text
    assert events[-1]["type"] == "RUN_FINISHED"
    assert events[-1]["outcome"] == {"type": "success"}

    stored = await _stored_call(server, conversation_id, interrupt["id"])
    assert stored["status"] == "succeeded"
    assert stored["proposed_args"] == {"text": "buy milk"}
    assert stored["executed_args"] == {"text": "buy oat milk"}
    assert stored["decision"]["type"] == "edit"
    assert [text for _, text in stored_notes(server.services.db)] == ["buy oat milk"]
    audit = (await server.client.get("/api/audit")).json()["records"]
    assert [(r["outcome"], r["channel"]) for r in audit] == [("edited", "ag-ui")]


async def test_a_reject_with_a_reason_runs_nothing_and_the_model_hears_why(
    server: LiveServer,
) -> None:
    conversation_id = await server.new_conversation()
    interrupt = await _interrupted(server, conversation_id, "add a note buy milk")
    resume = [resolved(interrupt["id"], {"type": "reject", "message": "I have milk"})]
    events = await agui_run(
        server.client, conversation_id, run_input(conversation_id, resume=resume)
    )
    result = one(events, "TOOL_CALL_RESULT")
    assert "I have milk" in result["content"]
    assert events[-1]["outcome"] == {"type": "success"}
    assert stored_notes(server.services.db) == []
    stored = await _stored_call(server, conversation_id, interrupt["id"])
    assert stored["status"] == "rejected"


async def test_a_question_is_answered_with_respond(server: LiveServer) -> None:
    conversation_id = await server.new_conversation()
    interrupt = await _interrupted(
        server, conversation_id, "ask me to choose between tea, coffee and juice"
    )
    kinds = [b["properties"]["type"]["const"] for b in interrupt["responseSchema"]["oneOf"]]
    assert kinds == ["respond", "reject"]
    resume = [resolved(interrupt["id"])]
    refused = await agui_run(
        server.client, conversation_id, run_input(conversation_id, resume=resume)
    )
    assert types(refused) == ["RUN_ERROR"] and refused[0]["code"] == "invalid_resume"

    resume[0]["payload"] = {"type": "respond", "message": "coffee"}
    events = await agui_run(
        server.client, conversation_id, run_input(conversation_id, resume=resume)
    )
    assert one(events, "TOOL_CALL_RESULT")["content"] == "coffee"
    assert events[-1]["outcome"] == {"type": "success"}


async def test_bad_resumes_get_a_run_error_with_a_stable_code_and_write_nothing(
    server: LiveServer,
) -> None:
    conversation_id = await server.new_conversation()
    interrupt = await _interrupted(server, conversation_id, "add a note buy milk")
    before = (await server.client.get(f"/api/conversations/{conversation_id}")).json()

    def entry(payload: Any, interrupt_id: str = interrupt["id"]) -> list[dict[str, Any]]:
        return [resolved(interrupt_id, payload)]

    cases = [
        (entry({"approved": True}), "invalid_resume"),
        (entry({"type": "approve", "args": {"text": "x"}}), "invalid_resume"),
        (entry({"type": "edit"}), "invalid_resume"),
        (entry({"type": "edit", "args": {"text": 5}}), "invalid_args"),
        (entry({"type": "edit", "args": {"text": "x", "extra": 1}}), "invalid_args"),
        (entry({"type": "approve"}, "call_" + "0" * 32), "not_found"),
        (entry({"type": "approve"}) * 2, "invalid_resume"),
    ]
    for resume, code in cases:
        events = await agui_run(
            server.client, conversation_id, run_input(conversation_id, resume=resume)
        )
        assert types(events) == ["RUN_ERROR"], (resume, events)
        assert events[0]["code"] == code, (resume, events)
        assert events[0]["message"]

    invalid = await agui_run(
        server.client,
        conversation_id,
        run_input(conversation_id, resume=entry({"type": "edit", "args": {"text": 5}})),
    )
    errors = invalid[0]["metadata"]["interlock"]["details"]["errors"]
    assert errors[0]["path"] == ["text"]
    # The person reads the field by its title, not "do not match the tool's input schema".
    assert invalid[0]["message"] == "The edit of “Add a note” cannot be used: Note must be text."

    # A new message while the call waits: the protocol wants a resume first.
    pending = await agui_run(
        server.client,
        conversation_id,
        run_input(conversation_id, messages=[user_message("add a note eggs")]),
    )
    assert types(pending) == ["RUN_ERROR"] and pending[0]["code"] == "interrupts_pending"
    assert interrupt["id"] in pending[0]["metadata"]["interlock"]["details"]["interrupts"]

    after = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
    assert after == before
    assert (await server.client.get("/api/audit")).json()["records"] == []


async def test_a_resume_for_a_call_that_is_not_waiting_gets_409s_code(server: LiveServer) -> None:
    conversation_id = await server.new_conversation()
    interrupt = await _interrupted(server, conversation_id, "add a note buy milk")
    approve = [resolved(interrupt["id"])]
    done = await agui_run(
        server.client, conversation_id, run_input(conversation_id, resume=approve)
    )
    assert done[-1]["outcome"] == {"type": "success"}
    before = (await server.client.get(f"/api/conversations/{conversation_id}")).json()

    again = await agui_run(
        server.client, conversation_id, run_input(conversation_id, resume=approve)
    )
    assert types(again) == ["RUN_ERROR"]
    assert again[0]["code"] == "not_interrupted"
    assert again[0]["metadata"]["interlock"]["details"]["status"] == "succeeded"
    # Dismissing a call that is closed already changes nothing and finishes at once.
    dismissed = await agui_run(
        server.client,
        conversation_id,
        run_input(
            conversation_id, resume=[{"interruptId": interrupt["id"], "status": "cancelled"}]
        ),
    )
    assert types(dismissed) == ["RUN_STARTED", "MESSAGES_SNAPSHOT", "RUN_FINISHED"]
    assert dismissed[-1]["outcome"] == {"type": "success"}
    assert (await server.client.get(f"/api/conversations/{conversation_id}")).json() == before


async def test_a_thread_id_other_than_the_conversation_is_refused(server: LiveServer) -> None:
    conversation_id = await server.new_conversation()
    other_id = await server.new_conversation()  # the same person's other conversation
    interrupt = await _interrupted(server, conversation_id, "add a note buy milk")
    before = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
    approve = [resolved(interrupt["id"])]
    for thread_id, body in (
        (other_id, {"messages": [user_message("add a note eggs")]}),
        (other_id, {"resume": approve}),
        ("x" * 5000, {"resume": approve}),
    ):
        refused = await agui_run(
            server.client,
            conversation_id,
            {**run_input(conversation_id), **body, "threadId": thread_id},
        )
        assert types(refused) == ["RUN_ERROR"], refused
        assert refused[0]["code"] == "thread_mismatch"
        assert "the threadId must be the conversation's id" in refused[0]["message"]
        details = refused[0]["metadata"]["interlock"]["details"]
        assert details == {"thread_id": thread_id[:100], "conversation_id": conversation_id}
    # Nothing was written: the call still waits, nothing decided, the other one untouched.
    assert (await server.client.get(f"/api/conversations/{conversation_id}")).json() == before
    other = (await server.client.get(f"/api/conversations/{other_id}")).json()
    assert other["messages"] == []
    assert (await server.client.get("/api/audit")).json()["records"] == []
    # With the conversation's id, the same resume goes through.
    done = await agui_run(
        server.client, conversation_id, run_input(conversation_id, resume=approve)
    )
    assert done[0]["type"] == "RUN_STARTED" and done[0]["threadId"] == conversation_id
    assert done[-1]["outcome"] == {"type": "success"}


async def test_a_body_that_is_not_a_run_agent_input_is_422(server: LiveServer) -> None:
    conversation_id = await server.new_conversation()
    for body in (
        {},
        {"threadId": "t", "runId": "r"},
        {"threadId": "t", "runId": "r", "messages": 5},
    ):
        response = await server.client.post(f"/api/ag-ui/{conversation_id}", json=body)
        assert response.status_code == 422, response.text
        assert response.json()["error"]["code"] == "invalid_request"
    response = await server.client.post(
        f"/api/ag-ui/{conversation_id}",
        content=b"not json",
        headers={"content-type": "application/json"},
    )
    assert response.status_code == 422
    empty = await agui_run(server.client, conversation_id, run_input(conversation_id))
    assert types(empty) == ["RUN_ERROR"] and empty[0]["code"] == "invalid_request"


async def test_unknown_or_someone_elses_conversation_is_404_and_no_token_is_401(
    api_settings: Settings,
) -> None:
    db = Database(api_settings.database_url)
    _ann, ann_token = create_user(db, "ann")
    _bob, bob_token = create_user(db, "bob")
    db.dispose()
    ann = {"Authorization": f"Bearer {ann_token}"}
    async with live_server(api_settings, headers=ann) as server:
        conversation_id = await server.new_conversation()
        body = run_input(conversation_id, messages=[user_message("add a note secret")])
        async with httpx.AsyncClient(base_url=server.url, timeout=10) as other:
            for headers, path, status in (
                ({"Authorization": f"Bearer {bob_token}"}, conversation_id, 404),
                (ann, "conv_" + "0" * 32, 404),
                ({}, conversation_id, 401),
            ):
                response = await other.post(f"/api/ag-ui/{path}", json=body, headers=headers)
                assert response.status_code == status, response.text
        detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
        assert detail["messages"] == []


async def test_a_client_that_leaves_does_not_stop_the_run(server: LiveServer) -> None:
    conversation_id = await server.new_conversation()
    body = run_input(conversation_id, messages=[user_message("add a note buy milk")])
    async with server.client.stream("POST", f"/api/ag-ui/{conversation_id}", json=body) as response:
        async for line in response.aiter_lines():
            if line.startswith("data:"):
                assert json.loads(line[5:])["type"] == "RUN_STARTED"
                break  # leave at once
    log = await collect(server.client, conversation_id, until=terminals(1))
    assert log.types[-1] == "run.paused"
    await server.idle()
    bus = server.services.bus
    await wait_until(
        lambda: bus.subscriber_count(conversation_id) == 0,
        timeout_s=10,
        what="the streams that left to release their subscriptions",
    )
    # The next AG-UI run answers the interrupt the client never saw.
    pending = (await server.client.get(f"/api/conversations/{conversation_id}/pending")).json()
    resume = [resolved(pending[0]["id"])]
    events = await agui_run(
        server.client, conversation_id, run_input(conversation_id, resume=resume)
    )
    assert events[-1]["outcome"] == {"type": "success"}
    assert [text for _, text in stored_notes(server.services.db)] == ["buy milk"]
