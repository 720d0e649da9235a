"""Hostile AG-UI bodies: text storage cannot hold, control characters, and other people's
calls in a resume.

Found in QA: a user message with a NUL character was a 500 (and the connection dropped), and
an ``interruptId`` holding one reached the database (PostgreSQL refuses NUL in text). Each is
now one ``RUN_ERROR`` with a stable code, and nothing is written. A lone surrogate
(``"\\ud800"`` in JSON) is refused with the body (422, saying where, rule
``unpaired_surrogate``), before anything is read; one in an event going out (none should) is
sent as U+FFFD, never a broken stream.
"""

from __future__ import annotations

import json
from typing import Any

from interlock.settings import Settings
from interlock.storage import Database
from interlock.storage.users import create_user
from support.live import LiveServer, live_server

from .conftest import agui_run, one, resolved, run_input, types, user_message


async def _interrupted(server: LiveServer, conversation_id: str, text: str) -> dict[str, Any]:
    events = await agui_run(
        server.client, conversation_id, run_input(conversation_id, messages=[user_message(text)])
    )
    [interrupt] = one(events, "RUN_FINISHED")["outcome"]["interrupts"]
    return dict(interrupt)


async def test_text_storage_cannot_hold_is_a_run_error_not_a_500(server: LiveServer) -> None:
    conversation_id = await server.new_conversation()
    body = json.dumps(run_input(conversation_id, messages=[user_message("add a note a\u0000b")]))
    events = await agui_run(server.client, conversation_id, body)
    assert types(events) == ["RUN_ERROR"], events
    assert events[0]["code"] == "invalid_request"
    assert "NUL character or an unpaired surrogate" in events[0]["message"]
    surrogate = body.replace("a\\u0000b", "\\ud800")
    response = await server.client.post(
        f"/api/ag-ui/{conversation_id}",
        content=surrogate.encode(),
        headers={"content-type": "application/json"},
    )
    assert response.status_code == 422 and response.json()["error"]["code"] == "invalid_request"
    refused = response.json()["error"]
    assert "unpaired UTF-16 surrogate (at messages/0/content)" in refused["message"]
    assert refused["details"]["errors"][0]["path"] == ["messages", 0, "content"]
    assert refused["details"]["errors"][0]["rule"] == "unpaired_surrogate"
    for where in ('"runId": "r', '"threadId": "'):  # in any string, said where
        response = await server.client.post(
            f"/api/ag-ui/{conversation_id}",
            content=body.replace(where, where + "\\udc00").encode(),
            headers={"content-type": "application/json"},
        )
        assert response.status_code == 422, response.text
        assert response.json()["error"]["details"]["errors"][0]["rule"] == "unpaired_surrogate"

    interrupt = await _interrupted(server, conversation_id, "add a note buy milk")
    for bad_id in ("call_\u0000", interrupt["id"] + "\u0000"):
        resume = [resolved(bad_id)]
        body = json.dumps(run_input(conversation_id, resume=resume))
        events = await agui_run(server.client, conversation_id, body)
        assert types(events) == ["RUN_ERROR"], events
        assert events[0]["code"] == "invalid_resume"
    for payload in (
        {"type": "reject", "message": "no\u0000"},
        {"type": "edit", "args": {"text": "a\u0000b"}},
    ):
        resume = [resolved(interrupt["id"], payload)]
        events = await agui_run(
            server.client, conversation_id, json.dumps(run_input(conversation_id, resume=resume))
        )
        assert types(events) == ["RUN_ERROR"], events
        assert events[0]["code"] in ("invalid_resume", "invalid_request"), events

    detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
    assert [m["content"] for m in detail["messages"] if m["role"] == "user"] == [
        "add a note buy milk"
    ]
    (await server.client.get("/api/approvals")).raise_for_status()
    assert (await server.client.get("/api/audit")).json()["records"] == []


async def test_a_resume_decides_only_calls_of_its_own_conversation(
    api_settings: Settings,
) -> None:
    """C30 for AG-UI: a decision applies only to its own call. Another person's call id, or
    one of the same person's other conversation, is ``not_found`` and stays waiting."""
    db = Database(api_settings.database_url)
    _ann, ann_token = create_user(db, "ann")
    _bob, bob_token = create_user(db, "bob")
    db.dispose()
    async with live_server(api_settings, headers={"Authorization": f"Bearer {ann_token}"}) as ann:
        anns = await ann.new_conversation()
        anns_other = await ann.new_conversation()
        ann_call = await _interrupted(ann, anns, "add a note ann's")
        await _interrupted(ann, anns_other, "add a note ann's other")
        async with ann.signed_in(bob_token) as bob_client:
            bob = LiveServer(url=ann.url, client=bob_client, services=ann.services)
            bobs = await bob.new_conversation()
            bob_call = await _interrupted(bob, bobs, "add a note bob's")
            approve = {"type": "approve"}
            # Bob answers his own interrupt and slips Ann's call in beside it.
            resume = [
                resolved(bob_call["id"], approve),
                resolved(ann_call["id"], approve),
            ]
            events = await agui_run(bob_client, bobs, run_input(bobs, resume=resume))
            assert types(events) == ["RUN_ERROR"] and events[0]["code"] == "not_found"
            assert events[0]["message"] == f"No tool call “{ann_call['id']}” in this conversation."
            # Ann's call from her other conversation, in this one.
        other_call = (await ann.client.get("/api/approvals")).json()
        other_id = next(
            a["tool_call"]["id"] for a in other_call if a["tool_call"]["id"] != ann_call["id"]
        )
        resume = [
            resolved(ann_call["id"]),
            resolved(other_id),
        ]
        events = await agui_run(ann.client, anns, run_input(anns, resume=resume))
        assert types(events) == ["RUN_ERROR"] and events[0]["code"] == "not_found"
        waiting = {a["tool_call"]["id"] for a in (await ann.client.get("/api/approvals")).json()}
        assert waiting == {ann_call["id"], other_id}
        assert (await ann.client.get("/api/audit")).json()["records"] == []


async def test_a_message_with_nothing_visible_is_a_run_error(server: LiveServer) -> None:
    """As ``POST .../messages`` refuses it: spaces, zero-width spaces and bidi marks only."""
    conversation_id = await server.new_conversation()
    body = json.dumps(
        run_input(conversation_id, messages=[user_message(" \u200b\ufeff\u202e\n\u2060 ")])
    )
    events = await agui_run(server.client, conversation_id, body)
    assert types(events) == ["RUN_ERROR"], events
    assert events[0]["code"] == "invalid_request"
    detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
    assert detail["messages"] == []


async def test_a_message_with_a_control_character_is_a_run_error(server: LiveServer) -> None:
    """As ``POST .../messages`` refuses it: an Escape (or any C0 control but tab and line
    breaks) is no part of what a person writes."""
    conversation_id = await server.new_conversation()
    body = json.dumps(run_input(conversation_id, messages=[user_message("add a note \x1b[2J")]))
    events = await agui_run(server.client, conversation_id, body)
    assert types(events) == ["RUN_ERROR"], events
    assert events[0]["code"] == "invalid_request"
    assert events[0]["message"] == (
        "The message contains a control character (U+001B), which is not text: remove it."
    )
    detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
    assert detail["messages"] == []


def test_an_event_holding_a_lone_surrogate_goes_out_as_a_replacement_character() -> None:
    from ag_ui.core import TextMessageContentEvent

    from interlock.api.routers.agui import _frame

    frame = _frame(TextMessageContentEvent(message_id="m1", delta="a\ud800b\U0001f600"))
    assert json.loads(str(frame.data)) == {
        "type": "TEXT_MESSAGE_CONTENT",
        "messageId": "m1",
        "delta": "a\ufffdb\U0001f600",
    }


async def test_a_body_that_is_no_run_input_is_refused_in_words_not_pydantics(
    server: LiveServer,
) -> None:
    """Broken JSON and an unknown role read as sentences ("Input tag 'wizard' found using
    'role' does not match any of the expected tags: ..." before)."""
    conversation_id = await server.new_conversation()
    url = f"/api/ag-ui/{conversation_id}"
    response = await server.client.post(
        url, content=b"{", headers={"content-type": "application/json"}
    )
    assert response.status_code == 422, response.text
    assert response.json()["error"]["details"]["errors"] == [
        {
            "path": ["body"],
            "message": "The body is not valid JSON: EOF while parsing an object at line 1 "
            "column 1.",
            "rule": "json_invalid",
        }
    ]
    body = {
        "threadId": conversation_id,
        "runId": "r1",
        "messages": [{"id": "m1", "role": "wizard", "content": "hi"}],
    }
    response = await server.client.post(url, json=body)
    assert response.status_code == 422, response.text
    [error] = response.json()["error"]["details"]["errors"]
    assert error["message"] == (
        "Its 'role' is 'wizard', which is not one of: 'developer', 'system', 'assistant', "
        "'user', 'tool', 'activity', 'reasoning'."
    )
