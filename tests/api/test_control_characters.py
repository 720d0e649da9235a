"""Text a person types holds no control character but tab and line breaks (API level).

An Escape (``\\x1b``) or a Bell (``\\x07``) in a message, a conversation's title, an
employee's name or other texts, an access token's name or a decision's reason is refused with
422 ``invalid_request``: the field's error has the stable rule ``control_character`` and a
sentence naming the field and the character. Nothing is written. Tabs and line breaks stay
welcome where the text may have them (a message). A tool call's arguments (a model's proposal,
a person's edit) are held to the same rule by the tool's validation: ``invalid_args`` with rule
``control_character`` at the argument's path, and no card for such a proposal.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from support.live import LiveServer
from support.sse import collect, terminals

ESC, BEL = "\x1b", "\x07"


def _refused(response: httpx.Response, field: str, character: str) -> None:
    """Assert ``response`` refuses ``field`` for holding ``character``."""
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["code"] == "invalid_request", error
    [field_error] = error["details"]["errors"]
    assert field_error["path"][-1] == field, field_error
    assert field_error["rule"] == "control_character", field_error
    name = "message" if field == "content" else field.replace("_", " ")  # not "The content"
    code = f"U+{ord(character):04X}"
    assert field_error["message"] == (
        f"The {name} contains a control character ({code}), which is not text: remove it."
    ), field_error


@pytest.mark.parametrize("character", [ESC, BEL])
async def test_a_message_with_a_control_character_is_refused_and_nothing_is_written(
    server: LiveServer, character: str
) -> None:
    conversation_id = await server.new_conversation()
    path = f"/api/conversations/{conversation_id}"
    response = await server.client.post(
        f"{path}/messages", json={"content": f"add a note {character}[31mred"}
    )
    _refused(response, "content", character)
    detail = (await server.client.get(path)).json()
    assert detail["messages"] == [] and detail["last_event_seq"] == 0, detail


async def test_tabs_and_line_breaks_in_a_message_are_kept(server: LiveServer) -> None:
    conversation_id = await server.new_conversation()
    text = "two lines:\r\n\tone\n\ttwo"
    await server.say(conversation_id, text)
    await collect(server.client, conversation_id, until=terminals(1))
    detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
    assert detail["messages"][0]["content"] == text


async def test_a_title_with_a_control_character_is_refused(server: LiveServer) -> None:
    conversation_id = await server.new_conversation()
    path = f"/api/conversations/{conversation_id}"
    before = (await server.client.get(path)).json()["title"]
    _refused(await server.client.patch(path, json={"title": f"Plan{BEL}"}), "title", BEL)
    assert (await server.client.get(path)).json()["title"] == before


EMPLOYEE_TEXTS: list[tuple[str, Any]] = [
    ("name", f"Hal{ESC}"),
    ("avatar", f"{ESC}]0;x"),
    ("title", f"Desk{BEL}"),
    ("about", f"Helps{ESC}[2J"),
    ("system_prompt", f"Be brief.{BEL}"),
    ("greeting", f"Hi{BEL}"),
    ("starter_prompts", ["fine", f"ring{BEL}"]),
]


@pytest.mark.parametrize(("field", "value"), EMPLOYEE_TEXTS)
async def test_an_employee_text_with_a_control_character_is_refused_on_create_and_change(
    server: LiveServer, field: str, value: Any
) -> None:
    character = ESC if ESC in str(value) else BEL
    made = {"slug": "desk", "name": "Hal", field: value}
    _refused(await server.client.post("/api/employees", json=made), field, character)
    assert (await server.client.get("/api/employees/desk")).status_code == 404

    before = (await server.client.get("/api/employees/assistant")).json()
    changed = await server.client.patch("/api/employees/assistant", json={field: value})
    _refused(changed, field, character)
    assert (await server.client.get("/api/employees/assistant")).json() == before


async def test_a_token_name_with_a_control_character_is_refused(server: LiveServer) -> None:
    response = await server.client.post("/api/tokens", json={"name": f"Claude{ESC}Desktop"})
    _refused(response, "name", ESC)
    assert (await server.client.get("/api/tokens")).json() == []


async def test_a_decisions_reason_with_a_control_character_is_refused(server: LiveServer) -> None:
    conversation_id = await server.new_conversation()
    await server.say(conversation_id, "add a note fine")
    log = await collect(server.client, conversation_id, until=terminals(1))
    call_id = log.of("tool_call.interrupted")[0]["tool_call"]["id"]
    for decision in ("reject", "respond"):
        response = await server.decide(call_id, type=decision, message=f"no{BEL}")
        _refused(response, "message", BEL)
    pending = (await server.client.get(f"/api/conversations/{conversation_id}/pending")).json()
    assert [c["id"] for c in pending] == [call_id]


async def test_an_edit_whose_args_hold_a_control_character_is_refused_and_the_call_waits(
    server: LiveServer,
) -> None:
    conversation_id = await server.new_conversation()
    await server.say(conversation_id, "add a note fine")
    log = await collect(server.client, conversation_id, until=terminals(1))
    call_id = log.of("tool_call.interrupted")[0]["tool_call"]["id"]

    response = await server.decide(call_id, type="edit", args={"text": f"fine{ESC}[2J"})

    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["code"] == "invalid_args", error
    assert error["details"]["errors"] == [
        {
            "path": ["text"],
            "message": "Contains a control character (U+001B), which is not text: remove it.",
            "rule": "control_character",
        }
    ]
    pending = (await server.client.get(f"/api/conversations/{conversation_id}/pending")).json()
    assert [(c["id"], c["decision"]) for c in pending] == [(call_id, None)]


async def test_a_proposal_whose_args_hold_a_control_character_gets_no_card(
    server: LiveServer,
) -> None:
    """The card would show the Escape as nothing: the call fails ``invalid_args`` instead."""
    conversation_id = await server.new_conversation()
    await server.say(conversation_id, 'use notes.add with {"text": "red\\u001b[31m"}')
    log = await collect(server.client, conversation_id, until=terminals(1))

    assert log.of("tool_call.interrupted") == []
    detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
    [call] = [c for m in detail["messages"] for c in m.get("tool_calls") or []]
    assert (call["status"], call["error"]["code"]) == ("failed", "invalid_args"), call
    assert call["started_at"] is None
    tool_texts = [m["content"] for m in detail["messages"] if m["role"] == "tool"]
    assert any("control character (U+001B)" in text for text in tool_texts), tool_texts


async def test_a_form_answer_hiding_a_control_character_in_its_json_is_refused(
    server: LiveServer,
) -> None:
    """``"\\u001b"`` is six letters in the message, an Escape once the form's JSON is read."""
    made = await server.client.post("/api/conversations", json={"employee": "scout"})
    conversation_id = made.json()["id"]
    await server.say(conversation_id, "Ask me for my details")
    log = await collect(server.client, conversation_id, until=terminals(1))
    call_id = log.of("tool_call.interrupted")[0]["tool_call"]["id"]
    answer = '{"name": "Ann\\u001b[2J", "email": "ann@example.com"}'

    response = await server.decide(call_id, type="respond", message=answer)

    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["code"] == "invalid_args", error
    assert [(e["path"], e["rule"]) for e in error["details"]["errors"]] == [
        (["name"], "control_character")
    ]
    pending = (await server.client.get(f"/api/conversations/{conversation_id}/pending")).json()
    assert [(c["id"], c["decision"]) for c in pending] == [(call_id, None)]
    fine = await server.decide(call_id, type="respond", message=answer.replace("\\u001b", ""))
    assert fine.status_code == 200, fine.text


async def test_a_grant_for_args_holding_a_control_character_is_refused(server: LiveServer) -> None:
    conversation_id = await server.new_conversation()
    body = {
        "tool": "notes.add",
        "scope": "conversation",
        "conversation_id": conversation_id,
        "args": {"text": f"a{ESC}b"},
    }

    response = await server.client.post("/api/grants", json=body)

    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["code"] == "invalid_args", error
    assert [(e["path"], e["rule"]) for e in error["details"]["errors"]] == [
        (["text"], "control_character")
    ]
    assert (await server.client.get("/api/grants")).json() == []
