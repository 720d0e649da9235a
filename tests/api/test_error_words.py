"""Errors a person reads are in their words: no "input schema", no argument names, no codes.

Found in QA: the offline model answered "Sorry — I could not add the note: The arguments do not
match the tool's input schema.", and a refused edit of a card or a refused grant said "The
(edited) arguments/args do not match the tool's input schema". The person now reads which field
is wrong by its title ("Note number must be a whole number."); the stable code and the field
errors stay for programs, and the failed rules by argument name go to the model only (after
" Hint: " in its tool message).
"""

from __future__ import annotations

from typing import Any

import httpx

from support.live import LiveServer

JARGON = ("schema", "argument", "args", "JSON", "integer", "property", "invalid_args", "Hint")


def _plain(text: str) -> None:
    for word in JARGON:
        assert word not in text, (word, text)


def _refusal(response: httpx.Response) -> dict[str, Any]:
    assert response.status_code == 422, response.text
    error = dict(response.json()["error"])
    assert error["code"] == "invalid_args", error
    assert error["details"]["errors"] == [
        {"path": ["id"], "message": "Must be a whole number.", "rule": "type"}
    ]
    _plain(error["message"])
    return error


async def test_the_offline_model_says_which_field_is_wrong_in_words(server: LiveServer) -> None:
    conversation_id = await server.new_conversation()
    log = await server.turn(conversation_id, 'use notes.delete with {"id": "two"}')
    assert log.types[-1] == "run.completed", log.types
    [call] = [e["tool_call"] for e in log.of("tool_call.completed")]
    assert call["error"] == {
        "code": "invalid_args",
        "message": "Note number must be a whole number.",
    }
    reply = log.of("message.completed")[-1]["message"]["content"]
    assert reply == "Sorry — I could not delete the note. Note number must be a whole number."
    # The model is told the same, and which argument by its name, after " Hint: ".
    [told] = [e["message"]["content"] for e in log.of("tool_call.completed")]
    assert told == (
        "Error [invalid_args]: Note number must be a whole number. Hint: id: Must be a whole number."
    )


async def test_a_refused_edit_and_a_refused_grant_name_the_field_by_its_title(
    server: LiveServer,
) -> None:
    conversation_id = await server.new_conversation()
    log = await server.turn(conversation_id, "add a note buy milk")
    [added] = [e["tool_call"] for e in log.of("tool_call.interrupted")]
    assert (await server.decide(added["id"], type="approve")).status_code == 200
    await server.idle()
    log = await server.turn(conversation_id, "delete note 1")
    [call] = [e["tool_call"] for e in log.of("tool_call.interrupted")]
    assert call["name"] == "notes.delete"

    error = _refusal(await server.decide(call["id"], type="edit", args={"id": "two"}))
    assert error["message"] == "The edit cannot be saved: Note number must be a whole number."

    response = await server.client.post(
        "/api/grants",
        json={
            "tool": "notes.delete",
            "scope": "conversation",
            "conversation_id": conversation_id,
            "args": {"id": "two"},
        },
    )
    error = _refusal(response)
    assert error["message"] == (
        "These details cannot be remembered for “Delete a note”: Note number must be a whole "
        "number."
    )
