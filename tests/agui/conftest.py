"""AG-UI fixtures: a live server on loopback (offline model) and a small AG-UI SSE reader."""

from __future__ import annotations

import json
import uuid
from typing import Any

import httpx

from support.api_fixtures import api_settings, server

__all__ = ["api_settings", "server"]

RUN_TIMEOUT_S = 15.0


def run_input(conversation_id: str, **fields: Any) -> dict[str, Any]:
    """A RunAgentInput body (camelCase, as clients send it): a new ``runId`` each time."""
    return {
        "threadId": conversation_id,
        "runId": f"run-{uuid.uuid4().hex[:8]}",
        "messages": [],
        **fields,
    }


def user_message(text: str) -> dict[str, Any]:
    return {"id": f"user-{uuid.uuid4().hex[:8]}", "role": "user", "content": text}


async def agui_run(
    client: httpx.AsyncClient, conversation_id: str, body: dict[str, Any]
) -> list[dict[str, Any]]:
    """POST ``body`` to the AG-UI endpoint and return every event until the stream ends."""
    events: list[dict[str, Any]] = []
    async with client.stream("POST", f"/api/ag-ui/{conversation_id}", json=body) as response:
        assert response.status_code == 200, await response.aread()
        assert response.headers["content-type"].startswith("text/event-stream")
        async for line in response.aiter_lines():
            if line.startswith("data:"):
                events.append(json.loads(line[5:]))
    return events


def types(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


def one(events: list[dict[str, Any]], type_: str) -> dict[str, Any]:
    found = [e for e in events if e["type"] == type_]
    assert len(found) == 1, types(events)
    return found[0]
