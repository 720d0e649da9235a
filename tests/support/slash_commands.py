"""Sending slash commands through the API and checking what they stored, for the API tests."""

from __future__ import annotations

from typing import Any

import httpx
from sqlmodel import select

from interlock.storage import Conversation, Message, Run
from support.live import LiveServer
from support.notes import stored_notes

NOTES_CLAIM = {"skill": "notes", "command": "notes"}
"""The client's claim for Ada's ``/notes`` command."""


async def conversation_with(server: LiveServer, employee: str = "assistant") -> str:
    """A new conversation with ``employee``; its id."""
    response = await server.client.post("/api/conversations", json={"employee": employee})
    assert response.status_code == 201, response.text
    return str(response.json()["id"])


async def post_message(
    server: LiveServer, conversation_id: str, content: str, claim: dict[str, str] | None = None
) -> httpx.Response:
    """POST ``content`` as a message, with the client's command ``claim`` when given."""
    body: dict[str, Any] = {"content": content}
    if claim is not None:
        body["command"] = claim
    return await server.client.post(f"/api/conversations/{conversation_id}/messages", json=body)


async def conversation_detail(server: LiveServer, conversation_id: str) -> dict[str, Any]:
    """The conversation as ``GET /api/conversations/{id}`` returns it."""
    response = await server.client.get(f"/api/conversations/{conversation_id}")
    assert response.status_code == 200, response.text
    return dict(response.json())


def note_texts(server: LiveServer) -> list[str]:
    """The texts of the stored notes, oldest first."""
    return [text for _, text in stored_notes(server.services.db)]


def stored_counts(server: LiveServer, conversation_id: str) -> tuple[int, int, list[str]]:
    """Messages and runs of the conversation, and its loaded skills."""
    with server.services.db.session() as session:
        messages = session.exec(
            select(Message.id).where(Message.conversation_id == conversation_id)
        ).all()
        runs = session.exec(select(Run.id).where(Run.conversation_id == conversation_id)).all()
        conversation = session.get(Conversation, conversation_id)
        assert conversation is not None
        return len(messages), len(runs), list(conversation.loaded_skills)


async def assert_nothing_stored(server: LiveServer, conversation_id: str) -> None:
    """The conversation holds no message, run, event, title or loaded skill; no note exists."""
    assert stored_counts(server, conversation_id) == (0, 0, [])
    detail = await conversation_detail(server, conversation_id)
    assert detail["messages"] == [] and detail["last_event_seq"] == 0
    assert detail["status"] == "idle" and detail["title"] == "New conversation"
    assert note_texts(server) == []
