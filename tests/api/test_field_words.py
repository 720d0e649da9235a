"""A field's error reads as a sentence for the person: a capital letter, a full stop, no
field name of the API where the form has words for it (was "the message is empty: write
something to send.", "title must not be empty.", "title must be at most 200 char…")."""

from __future__ import annotations

from typing import Any

import httpx

from interlock.errors import pydantic_field_errors
from support.live import LiveServer


def _field_message(response: httpx.Response) -> str:
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["code"] == "invalid_request", error
    [field_error] = error["details"]["errors"]
    return str(field_error["message"])


async def test_a_blank_message_and_a_bad_title_are_refused_in_sentences(
    server: LiveServer,
) -> None:
    conversation_id = await server.new_conversation()
    path = f"/api/conversations/{conversation_id}"
    blank = await server.client.post(f"{path}/messages", json={"content": " \u200b "})
    assert _field_message(blank) == "The message is empty: write something to send."
    cases: dict[str, str] = {
        " \u200b ": "The title is empty: write a name for the conversation.",
        "x" * 201: "The title must have at most 200 characters.",
        "two\nlines": "The title must be one line, without line breaks or tabs.",
    }
    for title, words in cases.items():
        assert _field_message(await server.client.patch(path, json={"title": title})) == words


def test_every_field_error_starts_with_a_capital_letter_unless_it_starts_with_a_name() -> None:
    errors: list[dict[str, Any]] = [
        {"loc": ("body", "x"), "msg": "Value error, give days or expires_at, not both"},
        {"loc": ("body", "x"), "msg": "Value error, not a cursor", "type": "value_error"},
        {"loc": ("body", "x"), "msg": "Value error, approval_timeout_s must be positive"},
        {"loc": ("body", "x"), "msg": "Value error, notes.add is not a tool"},
    ]
    assert [e["message"] for e in pydantic_field_errors(errors)] == [
        "Give days or expires_at, not both.",
        "Not a cursor.",
        "approval_timeout_s must be positive.",
        "notes.add is not a tool.",
    ]
