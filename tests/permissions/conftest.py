"""Fixtures and helpers for the permission tests (grants, the AI actions switch, levels).

Each test that asks for ``perm_settings`` runs on SQLite and on PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

import pytest

from interlock.settings import Settings
from interlock.storage import Grant, ToolCall
from support.live import LiveServer
from support.notes import stored_notes
from support.sse import EventLog, collect, terminals

SettingsMaker = Callable[..., Settings]


@pytest.fixture
def perm_settings(make_settings: SettingsMaker) -> Settings:
    """Default settings for a live server; each test runs on SQLite and PostgreSQL."""
    return make_settings()


async def turn(server: LiveServer, conversation_id: str, content: str) -> EventLog:
    """Send ``content`` and read events until the run it starts ends (paused or done)."""
    seen = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
    await server.say(conversation_id, content)
    return await until_terminal(server, conversation_id, seen["last_event_seq"])


async def until_terminal(server: LiveServer, conversation_id: str, after: int) -> EventLog:
    """Read the events after seq ``after`` until one run ends."""
    return await collect(
        server.client, conversation_id, until=terminals(1), last_event_id=str(after)
    )


async def decide_and_wait(
    server: LiveServer, conversation_id: str, call_id: str, **body: Any
) -> tuple[dict[str, Any], EventLog]:
    """Decide ``call_id`` and read until the resumed run ends; return the answer and events."""
    seen = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
    response = await server.decide(call_id, **body)
    assert response.status_code == 200, response.text
    log = await until_terminal(server, conversation_id, seen["last_event_seq"])
    await server.idle()
    return dict(response.json()), log


def only(log: EventLog, type_: str) -> dict[str, Any]:
    """The one ``type_`` event's tool call."""
    events = log.of(type_)
    assert len(events) == 1, (type_, log.types)
    return dict(events[0]["tool_call"])


def notes(server: LiveServer) -> list[str]:
    return [text for _, text in stored_notes(server.services.db)]


def stored_call(server: LiveServer, call_id: str) -> ToolCall:
    with server.services.db.session() as session:
        call = session.get(ToolCall, call_id)
        assert call is not None
        return call


def set_grant_expiry(server: LiveServer, grant_id: str, when: datetime) -> None:
    """Move a grant's expiry (stands in for time passing; the server's clock decides)."""
    with server.services.db.session() as session:
        grant = session.get(Grant, grant_id)
        assert grant is not None
        grant.expires_at = when
        session.add(grant)
        session.commit()
